"""Conditional jumps: a boolean value (``a or b``, ``x if c else y``) or an ``if`` statement.

A mixin of :class:`~uncompile.structure.walker.Walker`: at a conditional jump the boolean
expression is rebuilt (:mod:`uncompile.expressions.conditions`) and either kept as a value or
made an ``if``/``elif``/``else`` (or an ``assert``) whose branches end where their paths meet,
the immediate post-dominator inside the enclosing region (:mod:`.branch_follow`).
"""

from __future__ import annotations

import ast
from typing import Any, Callable, Dict, List, Optional, Tuple

from ..bytecode import versions as V
from ..expressions.conditions import VALUE, Node, none_test, reduce_nodes
from .context import Context
from .copied_exits import copied_tail_ternary


class Conditionals:
    """Conditional jumps for the walker; uses the walker's graph, simulator and helpers."""

    _copied_return: Any
    _lone_jump: Any
    _pure: Any
    _pure_chain: Any
    _statement_free: Any
    _pure_then_return: Any
    _walked_operand: Any
    _walked_value: Any
    block_of: Any
    blocks: Any
    bottom_tested_loop: Any
    compare_chain: Any
    fail: Any
    guarded_bottom_tested_loop: Any
    handler_of: Any
    handlers: Any
    if_statement: Any
    instrs: Any
    is_loop_header: Any
    line_at: Any
    line_of: Any
    legacy_thread_exits: Any
    sim: Any
    start_of: Any

    def _node(self, block_id: int, expr: Any, jump_index: int, value: bool) -> Tuple[Node, Optional[int]]:
        """The condition node of a block whose conditional jump is at *jump_index*."""
        ins = self.instrs[jump_index]
        block = self.blocks[block_id]
        target = block.jump
        fall = block.fall
        lone = self.blocks[fall] if value and fall is not None else None
        if (
            lone is not None
            and lone.end - lone.start == 1
            and self.instrs[lone.start].op == "POP_TOP"
            and lone.fall is not None
        ):
            # ``JUMP_IF_X_OR_POP`` whose POP_TOP is a block of its own (``a and b or c``): the
            # value is dropped on the way to the next block, which is this side's exit
            fall = lone.fall
        if ins.op in ("POP_JUMP_IF_NONE", "POP_JUMP_IF_NOT_NONE"):
            expr = none_test(expr, ins.op == "POP_JUMP_IF_NONE")
            jump_if_true = True
        else:
            jump_if_true = ins.op == "POP_JUMP_IF_TRUE"
        jump_exit: Any = (VALUE, target) if value else target
        if jump_if_true:
            return Node(block_id, expr, jump_exit, fall), fall
        return Node(block_id, expr, fall, jump_exit), fall

    def conditional(self, block_id: int, ctx: Context, stack: List[Any]) -> Optional[int]:
        block = self.blocks[block_id]
        jump = block.end - 1
        self.sim.pending.append(self.instrs[jump].offset)
        expr = self.sim.pop(stack, self.instrs[jump])
        value = bool(stack) and stack[-1] is expr
        if value:
            stack.pop()
        chain = None
        if isinstance(expr, ast.Compare) and stack and stack[-1] is expr.comparators[-1]:
            chain = self.compare_chain(block_id, expr, value, stack)
            if chain is None:
                raise self.fail(jump, "comparison chain")
        if chain is not None and chain[2] is not None:
            stack.append(chain[0])
            return -1 - chain[2] if chain[2] < 0 else self.start_of(chain[2])
        if chain is not None:
            node, fall = chain[0], chain[1]
            node.last, node.entry = node.entry, block_id
        else:
            node, fall = self._node(block_id, self.sim.expr(expr, self.instrs[jump]), jump, value)
        nodes = [node]
        falls = [fall]
        merges = {node.true[1]} if isinstance(node.true, tuple) else set()
        if isinstance(node.false, tuple):
            merges.add(node.false[1])
        past_jumps = None  # how many nodes there were before a ternary's second condition
        joined = None  # where the jump past that second condition goes
        blocks = self.blocks
        while fall is not None:
            here = blocks[fall]  # the block the condition goes on to
            if here.start >= ctx.until:
                break
            if (
                V.CONDITIONAL_JUMPS_FORWARD_ONLY
                and falls[-1] == fall
                and self._inverted_jump_back(nodes, fall)
            ):
                fall += 1  # the condition goes on where the test jumps, past the jump back
                continue
            skipped = None
            if past_jumps is None and here.end - here.start == 1:
                # (the first branch of a ternary tested ends in jumps: blocks of one instruction)
                skipped = self._ternary_else_branch(nodes, fall)
            if skipped is not None and self.blocks[skipped[0]].start >= ctx.until:
                skipped = None  # past where the walk ends (a loop's copied test at the bottom)
            if skipped is not None:
                past_jumps = len(nodes)
                fall, joined = skipped
                continue
            if fall in merges:
                tested = self._tested_merge(nodes, fall, stack) or self._operand_walked_whole(
                    nodes, falls, fall, ctx, stack
                )
                if tested is None:
                    after = self._value_through_jump(nodes, fall)
                    if after is None:
                        break
                    merges = {side[1] for n in nodes for side in (n.true, n.false) if isinstance(side, tuple)}
                    falls[-1] = fall = after
                    continue
                j, node, fall = tested
                nodes[j:], falls[j:] = [node], [fall]
                self._thread_dropped_values(nodes)
                merges = {side[1] for n in nodes for side in (n.true, n.false) if isinstance(side, tuple)}
                continue
            start = here.start
            if (
                self.instrs[start].op == "POP_TOP"  # (first: the cheapest test, seldom true)
                and nodes
                and falls[-1] == fall
                and (isinstance(nodes[-1].true, tuple) or isinstance(nodes[-1].false, tuple))
            ):
                start += 1
            free = self._statement_free(fall, start)
            if not (free or merges or V.INLINED_COMPREHENSIONS):
                break  # (most blocks a branch goes to make statements: no value goes on there)
            if self.is_loop_header(fall) or (ctx.loop is not None and fall in (ctx.loop.break_to,)):
                break
            pure = None
            if free:
                pure = self._pure(fall, start, stack) or self._pure_chain(fall, start, stack)
            if pure is None and merges:
                pure = self._pure_then_return(fall, start, merges, stack)
            if pure is None and (free or V.INLINED_COMPREHENSIONS) and (len(nodes) == 1 or falls[-1] == fall):
                # a ternary's first branch holding a loop (an inlined comprehension) or a boolean
                # value, tested by the last node (``a and ([x for x in c] == d if b else e)``,
                # ``f(a or b) if c else d``)
                pure = self._walked_value(fall, nodes[-1], ctx, stack)
            if pure is None and merges:
                pure = self._walked_operand(fall, start, merges, ctx, stack)
            if pure is None:
                break
            item, kind, end = pure
            expr_item = item
            if kind in ("cond", "value-cond"):
                new, nxt = self._node(fall, expr_item, end, kind == "value-cond")
            elif kind == "chain-cond":  # a chained comparison tested as a condition
                new, nxt = self._chain_exits(item, end, nodes), end
            elif kind == "chain-return":  # a value (chain) ending in a copy of the merge's return
                returns = [m for m in merges if m is not None and self._copied_return(end, m)]
                if len(returns) > 1:
                    returns = self._join_copied_merges(nodes, returns)
                    merges = {side[1] for n in nodes for side in (n.true, n.false) if isinstance(side, tuple)}
                if len(returns) != 1:
                    break
                new = Node(fall, expr_item, (VALUE, returns[0]), (VALUE, returns[0]))
                # a ternary's first branch: its second follows, where the test jumps
                after = fall + 1
                second = any(after in (n.true, n.false) for n in nodes)
                nxt = after if second and after < len(self.blocks) else None
            elif kind == "chain":  # the chain's value goes to block *end*; its cleanup follows
                new = Node(fall, expr_item, (VALUE, end), (VALUE, end))
                nxt = end  # a merge point: the value may be tested again or computed with there
                merges.add(end)
            elif kind == "walked":  # an operand holding a boolean value of its own, up to merge *end*
                new = Node(fall, expr_item, (VALUE, end), (VALUE, end))
                nxt = end
            elif kind == "jump":  # the value's last block (a walked one's may be later) jumps to the merge
                last_block = self.block_of[end]
                target = self.blocks[last_block].jump
                new = Node(fall, expr_item, (VALUE, target), (VALUE, target))
                nxt = last_block + 1 if last_block + 1 < len(self.blocks) else None
                merges.add(target)
            else:
                nxt = self.blocks[fall].fall
                if nxt not in merges:
                    break
                new = Node(fall, expr_item, (VALUE, nxt), (VALUE, nxt))
            for side in (new.true, new.false):
                if isinstance(side, tuple):
                    merges.add(side[1])
            nodes.append(new)
            if self._thread_dropped_values(nodes):
                merges = {side[1] for n in nodes for side in (n.true, n.false) if isinstance(side, tuple)}
            falls.append(nxt)
            fall = nxt
        threaded = self.legacy_thread_exits(nodes) if V.LAYOUT_IN_SOURCE_ORDER else None
        # (one node reduces to itself: most conditions)
        reduced, sizes = reduce_nodes(nodes, self._leads_to) if len(nodes) > 1 else (list(nodes), [1])
        if past_jumps is not None and not (
            sizes[0] > past_jumps and self._joins_after(joined, falls[past_jumps : sizes[0]])
        ):
            # the nodes past the jumps are no ternary's second condition: the condition ends before
            nodes, falls = nodes[:past_jumps], falls[:past_jumps]
            if threaded:
                # (3.8 - 3.10) an exit seen through a lone jump to where the nodes left out go stays
                # the jump (``if a: pass`` then ``elif b:``: the pass jumps past the elif)
                for node, side, jump, target in threaded:
                    kept = node in nodes and getattr(node, side) == target
                    if kept and not _exit_elsewhere(nodes, node, side):
                        setattr(node, side, jump)
            reduced, sizes = reduce_nodes(nodes)
        if not V.THREADS_JUMPS_TO_WHILE_BACK_EDGE and sizes[0] < len(nodes):
            # (3.10+: a jump back on a line of its own stays a block of its own)
            reduced, sizes = self._join_exits(nodes, reduced, sizes, self._jumps_back_to_one_place)
        if V.COPIES_SMALL_EXITS and sizes[0] < len(nodes):
            reduced, sizes = self._join_exits(nodes, reduced, sizes, self._copies_of_one_return)
        head = reduced[0]
        used = sizes[0]
        if isinstance(head.true, tuple) or isinstance(head.false, tuple):
            if not head.is_value():
                raise self.fail(jump, "mixed boolean value and condition")
            if head.true != head.false:
                raise self.fail(jump, "boolean value with two merge points")
            stack.append(head.expr)
            return self.start_of(head.true[1])
        fall_block = falls[used - 1]
        tail = (
            copied_tail_ternary(self, head, fall_block, nodes[:used], ctx, stack)
            if V.COPIES_SMALL_EXITS
            else None
        )
        if tail is not None:
            return tail
        if V.DUPLICATES_WHILE_CONDITION:
            loop_exit = self.bottom_tested_loop(block_id, head, fall_block, ctx, stack, nodes[:used])
            if loop_exit == -1 and used > 1:
                loop_exit = self.guarded_bottom_tested_loop(nodes, used, fall_block, ctx, stack)
            if loop_exit != -1:
                return loop_exit
        return self.if_statement(nodes[used - 1].last, head, fall_block, ctx, stack)

    def _chain_exits(self, node: Node, fall: Optional[int], nodes: List[Node]) -> Node:
        """The exits of a chained comparison tested after *nodes*, as theirs.

        After its last test the chain jumps past its cleanup to where it goes on: that jump
        may stay a block of its own, and when it goes to a small exit the compiler puts a copy
        of the exit there instead (3.10+). The chain's exit is then the jump's target, or the
        original exit, where the other tests go.
        """
        others = {exit for n in nodes for exit in (n.true, n.false) if isinstance(exit, int)}
        for side in ("true", "false"):
            exit = getattr(node, side)
            if not isinstance(exit, int) or exit in others:
                continue
            block = self.blocks[exit]
            if self._lone_jump(exit) and block.jump in others:
                setattr(node, side, block.jump)
            elif exit == fall and V.COPIES_SMALL_EXITS and self.instrs[block.end - 1].op == "RETURN_VALUE":
                for other in others:
                    if self._copied_return(block.start, other):
                        setattr(node, side, other)
                        break
        return node

    def _join_copied_merges(self, nodes: List[Node], returns: List[int]) -> List[int]:
        """``return g(k0=x, ..., s=a or b or c)``: the merge points *returns* of the value that
        *nodes* make, blocks that each hold a copy of one return (3.10 copies a rest without a
        line of its own into each jump to it, whatever its size: each operand of the ``or``
        jumps to a copy of its own), made one, the last laid out (where the walk goes on: a
        ternary's first branch ends there, before its second). The merge points left: that one,
        or *returns* where they are no copies of one another."""
        last = max(returns, key=lambda m: self.blocks[m].offset)
        if not all(self._copied_return(self.blocks[m].start, last) for m in returns):
            return returns
        for node in nodes:
            for side in ("true", "false"):
                exit = getattr(node, side)
                if isinstance(exit, tuple) and exit[1] in returns:
                    setattr(node, side, (exit[0], last))
        return [last]

    def _inverted_jump_back(self, nodes: List[Node], fall: int) -> bool:
        """3.12+ (conditional jumps only go forward): the last test of *nodes* that jumps back
        (to the loop's next iteration) jumps past a block of its own that jumps back (*fall*), to
        the block right after it, where the rest of the condition is: an earlier test jumps past
        that block (``x or (a and b)``: x to the if's body)."""
        if not V.CONDITIONAL_JUMPS_FORWARD_ONLY or not self._lone_jump(fall):
            return False
        block = self.blocks[fall]
        node = nodes[-1]
        other = node.true if node.false == fall else node.false
        if block.jump is None or self.blocks[block.jump].offset > block.offset or other != fall + 1:
            return False
        if len(nodes) == 1:
            # the first test: a jump back on its line is the compiler's (``continue`` has a line
            # of its own), so the condition may go on past it (``if not (a in x or b in y):``)
            return self._jump_back_on_test_line(fall)
        past = self.blocks[other].offset
        return any(
            isinstance(side, int) and self.blocks[side].offset > past
            for n in nodes[:-1]
            for side in (n.true, n.false)
        )

    def _join_exits(
        self, nodes: List[Node], reduced: List[Node], sizes: List[int], same: Callable[[int, int], bool]
    ) -> Tuple[List[Node], List[int]]:
        """*nodes* reduced (*reduced*, *sizes*) after making their exits that are copies of one
        exit (*same*) the same block, the last test's, where the first condition then takes in
        more tests. Each test that leaves for the loop's next iteration has a jump back of its
        own (3.12+; 3.10 - 3.11 on lines of their own: all but the last test, which jumps back
        itself), each that goes to a small exit a copy of it (3.10+: ``if a or (b and c):``
        at the end of a function, the tests of b and c return None each)."""
        exits: List[int] = []
        for node in reversed(nodes):
            for side in (node.true, node.false):
                if isinstance(side, int) and side not in exits:
                    exits.append(side)
        joined: Dict[int, int] = {}
        for k, exit in enumerate(exits):
            if exit in joined:
                continue
            for other in exits[k + 1 :]:
                if other not in joined and same(exit, other):
                    joined[other] = exit
        entries = {n.entry for n in nodes}
        changed = [
            (node, side, getattr(node, side))
            for node in nodes
            for side in ("true", "false")
            if getattr(node, side) in joined and getattr(node, side) not in entries
        ]
        if not changed:
            return reduced, sizes
        for node, side, exit in changed:
            setattr(node, side, joined[exit])
        joined_reduced, joined_sizes = reduce_nodes(nodes, self._leads_to)
        if joined_sizes[0] > sizes[0]:
            return joined_reduced, joined_sizes
        for node, side, exit in changed:
            setattr(node, side, exit)
        return reduced, sizes

    def _jumps_back_to_one_place(self, a: int, b: int) -> bool:
        """Whether blocks *a* and *b* lead back to the same block: both only jump back to it, or
        one only jumps back to the other. (3.10 - 3.11: a test at the loop's end jumps back to
        its header, the others to the jump back at the bottom, a block of its own when it has
        a line of its own.)"""
        x, y = self.blocks[a], self.blocks[b]
        if self._lone_jump(a) and x.jump == b:
            return y.offset < x.offset
        if self._lone_jump(b) and y.jump == a:
            return x.offset < y.offset
        return (
            self._lone_jump(a)
            and self._lone_jump(b)
            and x.jump == y.jump
            and self.blocks[x.jump].offset < min(x.offset, y.offset)
        )

    def _copies_of_one_return(self, a: int, b: int) -> bool:
        """Whether blocks *a* and *b* are copies of one ``return`` of a loaded value (the same
        code on one line; a copy that also leaves a handler or a with is read where it stands),
        the last of the function's code, which tests inside one try reach: the condition ends
        the function, whose return the compiler copies into each test again. A copy further up
        is a ``return`` of a branch, which the tests each reach on their own (a nested if's)."""
        x, y = self.blocks[a], self.blocks[b]
        return (
            self.instrs[x.end - 1].op == "RETURN_VALUE"
            and self._ends_normal_code(max(a, b))
            and self._reached_in_one_try(x.preds + y.preds)
            and all(ins.op.startswith("LOAD_") for ins in self.instrs[x.start : x.end - 1])
            and self._copied_return(x.start, b)
            and self.line_of(self.instrs[x.start].offset) == self.line_of(self.instrs[y.start].offset)
        )

    def _reached_in_one_try(self, blocks: List[int]) -> bool:
        """Whether *blocks* all jump from inside the same handler's range (or from outside any):
        tests on either side of a ``try``'s start are no one condition."""
        handlers = {self.handler_of(self.instrs[self.blocks[b].end - 1].offset) for b in blocks}
        return len(handlers) <= 1

    def _ends_normal_code(self, block_id: int) -> bool:
        """Whether block *block_id* is the last of all or the last before the handlers (3.11+
        lay them out after the function's other code; the first is where an exception goes)."""
        after = block_id + 1
        if after == len(self.blocks):
            return True
        offset = self.blocks[after].offset
        return any(handler.target == offset for handler in self.handlers)

    def _ternary_else_branch(self, nodes: List[Node], fall: int) -> Optional[Tuple[int, int]]:
        """``if (b if a else c):``: after the first branch's test, the block past the jumps that
        end that branch (at *fall*) when it is where a test jumps to (the second branch), and
        where the last of those jumps, a forward one past the second branch, goes; or None."""
        last = nodes[-1]
        if not (isinstance(last.true, int) and isinstance(last.false, int)):
            return None
        block = fall
        while block + 1 < len(self.blocks) and self._lone_jump(block) and not self.is_loop_header(block):
            block += 1
        if block == fall or self.is_loop_header(block):
            return None
        past = self.blocks[block - 1].jump
        if past is None or self.blocks[past].offset <= self.blocks[block].offset:
            return None
        if any(side == block for node in nodes for side in (node.true, node.false)):
            return block, past
        return None

    def _value_through_jump(self, nodes: List[Node], merge: int) -> Optional[int]:
        """``(a or b) if c else d``: the value of the last nodes goes to *merge*, a block that only
        jumps forward (the end of the ternary's first branch), where a test jumps to the block
        after it (the second branch). The value's exits are made the jump's target, and that
        block is returned (where the condition goes on); None if *merge* is no such jump."""
        after = merge + 1
        block = self.blocks[merge]
        if (
            after >= len(self.blocks)
            or not self._lone_jump(merge)
            or block.jump is None
            or self.blocks[block.jump].offset <= block.offset
            or not any(after in (n.true, n.false) for n in nodes)
            or any(merge in (n.true, n.false) for n in nodes)  # (a plain exit there: no value's)
        ):
            return None
        into, past = (VALUE, merge), (VALUE, block.jump)
        for node in nodes:
            if node.true == into:
                node.true = past
            if node.false == into:
                node.false = past
        return after

    def _joins_after(self, joined: Optional[int], falls: List[Optional[int]]) -> bool:
        """Whether the jump past a ternary's second condition goes where one of that condition's
        tests falls through (on 3.12+ also past a jump back there on the test's line: the test
        jumping back was inverted; a ``continue`` written there has a line of its own)."""
        for fall in falls:
            if fall is None:
                continue
            if joined == fall:
                return True
            if (
                V.CONDITIONAL_JUMPS_FORWARD_ONLY
                and joined == fall + 1
                and self._lone_jump(fall)
                and self._jump_back_on_test_line(fall)
            ):
                return True
        return False

    def _jump_back_on_test_line(self, fall: int) -> bool:
        """Whether block *fall*, a lone jump, jumps back on the line of the test right before it
        (3.12+: the test jumping back was inverted over it)."""
        block = self.blocks[fall]
        jump, test = self.instrs[block.start], self.instrs[block.start - 1]
        return (
            block.jump is not None
            and self.blocks[block.jump].offset < block.offset
            and test.op in V.CONDITIONAL_JUMPS
            and self.line_at(jump.offset) == self.line_at(test.offset)
        )

    def _leads_to(self, exit: Any) -> Any:
        """Where a condition's exit leads: past blocks that only jump."""
        seen = set()
        while isinstance(exit, int) and exit not in seen and self._lone_jump(exit):
            seen.add(exit)
            exit = self.blocks[exit].jump
        return exit

    def _tested_merge(
        self, nodes: List[Node], merge: int, stack: List[Any]
    ) -> Optional[Tuple[int, Node, Optional[int]]]:
        """``a or b and (c and d or e)``: the last nodes make a value that *merge* tests again;
        ``a and not (b or c)``: a value that *merge* computes with (the result goes on to an
        earlier node's merge point, or is tested there).

        Returns where those nodes start, the node of the value made at *merge* (entered where
        they are) and its fall-through block; None if the nodes before *merge* are no such value.
        """
        block = self.blocks[merge]
        tested = (
            self.instrs[block.start].op == "COPY" and self.instrs[block.end - 1].op in V.CONDITIONAL_JUMPS
        )
        into = (VALUE, merge)
        for j in range(len(nodes) - 1, -1, -1):
            reduced, _ = reduce_nodes(nodes[j:])
            if len(reduced) != 1 or reduced[0].true != into or reduced[0].false != into:
                continue
            inner = {n.entry for n in nodes[j + 1 :]}
            if any(side == into or side in inner for n in nodes[:j] for side in (n.true, n.false)):
                continue
            value = reduced[0].expr
            if not tested:
                return self._merge_operand(nodes, j, value, merge, stack) if j else None
            pure = self._pure(merge, block.start, stack + [value])
            if pure is None or pure[0] is not value or pure[1] != "cond":
                return None
            node, fall = self._node(merge, value, pure[2], True)
            node.entry = nodes[j].entry
            return j, node, fall
        return None

    def _operand_walked_whole(
        self, nodes: List[Node], falls: List[Optional[int]], merge: int, ctx: Context, stack: List[Any]
    ) -> Optional[Tuple[int, Node, Optional[int]]]:
        """``a and ((b if c else d) == (e if f else g))``: the value that the last nodes make at
        *merge* is computed with there by code that tests again (a value of its own): the operand
        of an earlier node that holds them, walked whole up to that node's merge point.

        Returns where those nodes start, the operand's node and where it goes; or None."""
        offset = self.blocks[merge].offset
        for j in range(1, len(nodes)):
            entry = nodes[j].entry
            outer = {side[1] for n in nodes[:j] for side in (n.true, n.false) if isinstance(side, tuple)}
            later = {m for m in outer if m is not None and self.blocks[m].offset > offset}
            if not later or falls[j - 1] != entry:
                continue
            start = self.blocks[entry].start
            if self.instrs[start].op == "POP_TOP" and _value_node(nodes[j - 1]):
                start += 1  # the value of ``a and``/``a or`` dropped before the next operand
            walked = self._walked_operand(entry, start, later, ctx, stack)
            if walked is not None:
                value, _, end = walked
                return j, Node(entry, value, (VALUE, end), (VALUE, end)), end
        return None

    def _merge_operand(
        self, nodes: List[Node], j: int, value: Any, merge: int, stack: List[Any]
    ) -> Optional[Tuple[int, Node, Optional[int]]]:
        """The node of what block *merge* computes from *value* (the value of ``nodes[j:]``),
        when that goes on to the merge point of an earlier node, or is tested as a value."""
        pure = self._pure(merge, self.blocks[merge].start, stack, [value])
        if pure is None:
            return None
        result, kind, end = pure
        if kind == "value-cond":
            node, fall = self._node(merge, result, end, True)
        elif kind == "fall":
            fall = self.blocks[merge].fall
            into = (VALUE, fall)
            if fall is None or not any(into in (n.true, n.false) for n in nodes[:j]):
                return None
            node = Node(merge, result, into, into)
        elif kind == "jump":  # ``(a or b) + 1 if c else d``: a ternary's first branch goes on
            # past its second (the block after the jump, where an earlier node's test goes)
            last = self.block_of[end]
            target, after = self.blocks[last].jump, last + 1
            if (
                target is None
                or self.blocks[target].offset <= self.blocks[last].offset
                or after >= len(self.blocks)
                or not any(after in (n.true, n.false) for n in nodes[:j])
            ):
                return None
            node, fall = Node(merge, result, (VALUE, target), (VALUE, target)), after
        else:
            return None
        node.entry = nodes[j].entry
        return j, node, fall

    def _thread_dropped_values(self, nodes: List[Node]) -> bool:
        """Make value exits to the block where the last node's plain exit drops the value plain exits.

        3.14+ threads ``m and a or b``: when ``m`` is false the ``or`` test of ``m`` is known, so
        the jump goes with ``m`` straight to the ``POP_TOP`` before ``b``, where the ``or`` test's
        own false exit goes without a value. True if an exit changed.
        """
        last = nodes[-1]
        plain = {side for side in (last.true, last.false) if isinstance(side, int)}
        changed = False
        for node in nodes[:-1]:
            for side in ("true", "false"):
                exit = getattr(node, side)
                if (
                    isinstance(exit, tuple)
                    and exit[0] == VALUE
                    and exit[1] in plain
                    and self.instrs[self.blocks[exit[1]].start].op == "POP_TOP"
                ):
                    setattr(node, side, exit[1])
                    changed = True
        return changed


def _value_node(node: Node) -> bool:
    return isinstance(node.true, tuple) or isinstance(node.false, tuple)


def _exit_elsewhere(nodes: List[Node], node: Node, side: str) -> bool:
    """Whether the exit on *side* of *node* is also an exit of another side of *nodes*."""
    exit = getattr(node, side)
    return any(
        other is not node or name != side
        for other in nodes
        for name in ("true", "false")
        if getattr(other, name) == exit
    )
