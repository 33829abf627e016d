"""Bottom-tested loops: ``while`` loops whose test the compiler copied to the end of the body.

A mixin of :class:`~uncompile.structure.walker.Walker`, through
:class:`~uncompile.structure.loops.LoopStructurer`:
3.10+ copy a ``while`` test to the bottom of the body (3.14+ no longer do for every loop), and
a loop whose body runs first is laid out with its test last. The per-version layouts are facts of
:mod:`uncompile.bytecode.versions`.
"""

from __future__ import annotations

import ast
from typing import Any, FrozenSet, List, Optional, Tuple

from ..bytecode import versions as V
from ..bytecode.readings import ENDS_PATH
from ..expressions.conditions import Node, negate, reduce_nodes, tested_blocks
from .branch_follow import is_written_continue
from .context import Context, Loop
from .loop_graph import LoopGraph


class BottomTestedLoops(LoopGraph):
    """Bottom-tested ``while`` loops for the walker; uses the walker's graph, simulator and helpers."""

    _emit_while: Any
    _handler_exits: Any
    _bottom_cuts: Any
    _leads_to: Any
    _pure_suffix: Any
    legacy_loop_span: Any
    block_of: Any
    continues_through_finally: Any
    jumps_to_next_iteration: Any
    blocks: Any
    if_statement: Any
    instrs: Any
    walk: Any

    def bottom_tested_loop(
        self,
        block_id: int,
        head: Node,
        fall: Optional[int],
        ctx: Context,
        stack: List[Any],
        tested: List[Node],
    ) -> Optional[int]:
        """``while c: body`` compiled as ``if c: (body; if c: repeat)`` (*tested*: the nodes of
        ``c``, reduced to *head*); -1 if not that shape."""
        if not self._exits_to_loop_header(head):
            return -1  # (most tests: see bottom_test)
        shape = self.bottom_test(block_id, head, fall, tested_blocks(tested))
        if shape is None:
            return -1
        test, body_b, exit_b, cut = shape
        header = self.blocks[body_b]
        body = self.natural_loop(body_b)
        if V.LAYOUT_IN_SOURCE_ORDER:
            # a try body ending in ``break`` reaches the test only by an exception
            body = frozenset(body | self.legacy_loop_span(body_b, body))
        continue_to = self.block_of[cut] if self.blocks[self.block_of[cut]].start == cut else body_b
        break_to, else_b = self._while_else(body, exit_b, ctx)
        info = Loop(body_b, continue_to, break_to, body)
        self._bottom_cuts[body_b] = cut
        inner = ctx.loop_body(info, until=cut)
        stmts = self.walk(header.start, inner, list(stack), entering=True)
        return self._emit_while(test, stmts, False, break_to, else_b, ctx, stack)

    def _while_else(
        self, body: FrozenSet[int], exit_b: Optional[int], ctx: Context
    ) -> Tuple[Optional[int], Optional[int]]:
        """(where ``break`` goes, the ``else`` block or None) of a while loop whose test leaves
        to *exit_b*: a ``break`` past that block skips the loop's ``else``, which runs into the
        code after the loop or is a ``continue`` of the enclosing loop."""
        if exit_b is None:
            return exit_b, None
        exit_off = self.blocks[exit_b].offset
        # a ``break`` that is a block of its own is only a jump to where it goes
        exits = self._exits(set(body), exit_b)
        if not exits and body:
            # (3.11+) a ``break`` in an except clause, laid out past the body, jumps from there
            head = self.blocks[min(body, key=lambda b: self.blocks[b].offset)]
            exits = [b for b in self._handler_exits(head, set(body)) if b != exit_b]
        outs = [self.blocks[b].jump if self._lone_jump(b) else b for b in exits]
        later = [b for b in outs if b is not None and self.blocks[b].offset > exit_off]
        outer = ctx.loop
        if outer is not None and (
            is_written_continue(self, exit_b, outer.header) or self._continues_through_finally_at(exit_b, ctx)
        ):
            return (later[0], exit_b) if later else (exit_b, None)
        forward = [b for b in later if self._runs_forward_into(exit_b, b)]
        if not forward:
            # (a ``break`` after statements of its own is no lone jump: its block jumps there)
            jumped = later or sorted(
                (
                    b
                    for b in (self._jump_ending(e) for e in exits)
                    if b is not None and self.blocks[b].offset > exit_off
                ),
                key=lambda b: self.blocks[b].offset,
            )
            if jumped and self._else_ends_path(exit_b, jumped[0]):
                forward = jumped[:1]
        later = forward
        if outer is not None and not later and self._leads_to(exit_b) != outer.continue_to:
            # the loop ends the enclosing loop's body: ``break`` goes to that loop's next
            # iteration (by a jump there), past the ``else`` at *exit_b* (which may only jump)
            to_next = self._jump_to_next_iteration(exits, outer.continue_to)
            if to_next is not None:
                return to_next, exit_b
        return (later[0], exit_b) if later else (exit_b, None)

    def _jump_ending(self, block_id: int) -> Optional[int]:
        """Where block *block_id* jumps when it ends in an unconditional jump; else None."""
        block = self.blocks[block_id]
        return block.jump if self.instrs[block.end - 1].op == "JUMP" else None

    def _continues_through_finally_at(self, block_id: int, ctx: Context) -> bool:
        """Whether the block is a ``continue`` inside a try/finally: a copy of the finally body
        (after the ``POP_BLOCK`` leaving the try, 3.9 - 3.10; 3.8: a ``CALL_FINALLY`` to it), then
        a jump to the next iteration."""
        start = self.blocks[block_id].start
        instrs = self.instrs
        if instrs[start].op == "POP_BLOCK":
            start += 1
        if instrs[start].op == "CALL_FINALLY":
            return bool(self.jumps_to_next_iteration(start + 1, ctx))
        return bool(self.continues_through_finally(start, ctx))

    def _else_ends_path(self, exit_b: int, after: int) -> bool:
        """``while c: ... break ... else: return x`` then code: the loop's ``else`` at *exit_b*
        ends the path (returns or raises), so the code after the loop, at *after* (where a
        ``break`` goes), is reached only by a ``break``; not when *after* is a copy of that
        ``else`` (3.10+ copy a small exit: a ``break`` to the return after the loop)."""
        block, other = self.blocks[exit_b], self.blocks[after]
        if self.instrs[block.end - 1].op not in ENDS_PATH:
            return False
        mine = [(ins.op, ins.arg) for ins in self.instrs[block.start : block.end]]
        theirs = [(ins.op, ins.arg) for ins in self.instrs[other.start : other.end]]
        return mine != theirs

    def _jump_to_next_iteration(self, exits: List[int], header: int) -> Optional[int]:
        """The block that a loop's exit (or the jump ending it) goes to when that leads to the
        enclosing loop's *header* (through blocks that only jump); None if none does."""
        for b in exits:
            block = self.blocks[b]
            ends_in_jump = self.instrs[block.end - 1].op == "JUMP"
            for target in (b, block.jump if ends_in_jump else None):
                if target is not None and self._leads_to(target) == header:
                    return target
        return None

    def _runs_forward_into(self, start: int, goal: int) -> bool:
        """Whether *goal* follows *start* on a path of forward edges (an ``else`` runs into the
        code after its loop; a copy of the loop's exit or a jump back does not)."""
        work, seen = [start], {start}
        while work:
            b = work.pop()
            if b == goal:
                return True
            for succ in self.blocks[b].succs:
                if (
                    succ not in seen
                    and self.blocks[b].offset < self.blocks[succ].offset <= self.blocks[goal].offset
                ):
                    seen.add(succ)
                    work.append(succ)
        return False

    def guarded_bottom_tested_loop(
        self, nodes: List[Node], used: int, fall: Optional[int], ctx: Context, stack: List[Any]
    ) -> Optional[int]:
        """``if a: while b: body``: the guard's test and the loop's make one ``a and b`` chain.

        Only the loop's own tests are copied to the bottom; the guard is the ``if`` around the
        loop (its body starts at the loop's first test). -1 if not that shape.
        """
        # the loop's test goes to its header (the body) or leaves there: a node of it has that exit
        last = max((k for k in range(1, used) if self._exits_to_loop_header(nodes[k])), default=0)
        for j in range(1, last + 1):
            tail, _ = reduce_nodes(nodes[j:used])
            if (
                len(tail) != 1
                or self.bottom_test(nodes[j].entry, tail[0], fall, [n.entry for n in nodes[j:used]]) is None
            ):
                continue
            guard, _ = reduce_nodes(nodes[:j])
            if len(guard) == 1 and nodes[j].entry in (guard[0].true, guard[0].false):
                return self.if_statement(nodes[j - 1].entry, guard[0], nodes[j].entry, ctx, stack)
        return -1

    def _exits_to_loop_header(self, node: Node) -> bool:
        """Whether an exit of condition *node* is a loop's header."""
        true, false = node.true, node.false
        # (a block that can head no loop is known without is_loop_header's call: most exits)
        candidates = self.cfg.loop_candidates
        return (isinstance(true, int) and true in candidates and self.is_loop_header(true)) or (
            isinstance(false, int) and false in candidates and self.is_loop_header(false)
        )

    def bottom_test(
        self, block_id: int, head: Node, fall: Optional[int], top: Optional[List[int]] = None
    ) -> Optional[Tuple[ast.expr, int, Optional[int], int]]:
        """(test, body block, exit block, index where the copied test starts) of a bottom-tested loop."""
        if not self._exits_to_loop_header(head):
            return None  # (most tests: the loop's test goes to its body, or leaves to its header)
        # how often the test is negated (once the shape is known)
        negations = 1 if head.false == fall else 0
        body_b, exit_b = (head.false, head.true) if negations else (head.true, head.false)
        if (
            body_b is not None
            and exit_b is not None
            and not self.is_loop_header(body_b)
            and self.is_loop_header(exit_b)
            and self._lone_jump(body_b)
        ):
            # 3.12+: the loop leaves by a jump (to an enclosing loop), the test is inverted
            negations, body_b, exit_b = negations + 1, exit_b, body_b
        if body_b is None or not self.is_loop_header(body_b):
            return None
        header = self.blocks[body_b]
        sources = sorted(p for p in header.preds if self.blocks[p].offset >= header.offset)
        if not sources:
            return None
        cut = self._copied_test(block_id, body_b, exit_b, sources, top)
        if cut is None:
            # the body starts with a loop of its own, which jumps back to the same header
            inner = self.inner_loop_sources(body_b, sources)
            cut = self._copied_test(block_id, body_b, exit_b, sources[len(inner) :], top) if inner else None
            if cut is not None and any(self.blocks[s].end > cut for s in inner):
                return None
        if cut is None:
            return None
        test = head.expr
        for _ in range(negations):
            test = negate(test)
        return test, body_b, exit_b, cut

    def _copied_test(
        self,
        block_id: int,
        body_b: int,
        exit_b: Optional[int],
        sources: List[int],
        top: Optional[List[int]],
    ) -> Optional[int]:
        """Where the copy of the test in *block_id* (and the *top* blocks) that jumps back to
        *body_b* from *sources* (in layout order) starts; None if they are no such copy."""
        bottom = self.blocks[sources[-1]]
        last = self.instrs[bottom.end - 1]
        several = top is not None and len(top) > 1 and len(sources) > 1
        copied = self._copied_or_test(top, sources, body_b) if several and top else None
        if copied is not None and top:  # 3.12+: each test of the copy that repeats the loop has its own jump
            block_id, bottom = top[0], self.blocks[copied]
            top = [block_id]
        elif last.op == "JUMP" and bottom.end - bottom.start == 1 and len(bottom.preds) == 1:
            bottom = self.blocks[bottom.preds[0]]  # 3.12+: cond; POP_JUMP_IF_FALSE exit; JUMP_BACKWARD body
            last = self.instrs[bottom.end - 1]
            if (
                last.op not in V.CONDITIONAL_JUMPS
                or not self._same_exit(bottom.jump, exit_b)
                or bottom.fall != sources[-1]
                or len(sources) != 1
            ):
                return None
        elif (
            last.op not in V.CONDITIONAL_JUMPS
            or bottom.jump != body_b
            or not self._same_exit(bottom.fall, exit_b)
        ):
            return None
        top = top or [block_id]
        if len(top) > 1:  # a condition of several blocks (and/or, chains) is copied block by block
            first = bottom.id - (top[-1] - top[0])  # blocks between (a chain's cleanup) are copied too
            if first < body_b or any(not self._same_code(t, first + t - top[0]) for t in top[1:]):
                return None
            block_id, bottom = top[0], self.blocks[first]
        if any(not bottom.id <= b <= sources[-1] for b in sources):
            return None  # other back edges: continue statements, not the copied condition
        n = self._pure_suffix(block_id, bottom.id)
        if n == 0:
            return None
        return bottom.end - 1 - n

    def _copied_or_test(self, top: List[int], sources: List[int], body_b: int) -> Optional[int]:
        """The first block of a copied ``a or b`` test whose jumps back are blocks of their own."""
        b = sources[-1]
        for k in range(len(top) - 1, -1, -1):
            block = self.blocks[b]
            if (
                block.end - block.start == 1
                and self.instrs[block.start].op == "JUMP"
                and block.jump == body_b
                and len(block.preds) == 1
            ):
                b = block.preds[0]
            if self.instrs[self.blocks[b].end - 1].op not in V.CONDITIONAL_JUMPS or (
                k and (not self._same_code(top[k], b) or b - 1 < 0)
            ):
                return None  # the first test may end a body block: its suffix is checked later
            if k:
                b -= 1
        if any(not b <= s <= sources[-1] for s in sources):
            return None
        return b

    def _break_past_bottom_test(self, pos: int, ctx: Context) -> bool:
        """A jump from a bottom-tested loop's body to its exit (or where an exit that is only a
        jump goes), past the copied test: ``break``."""
        loop = ctx.loop
        block = self.block_of[pos] if pos < len(self.instrs) else None
        return (
            loop is not None
            and block is not None
            and pos == self.blocks[block].start
            and self.is_break(block, loop)
            and block not in ctx.stops
        )
