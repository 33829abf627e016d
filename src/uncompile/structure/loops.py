"""Loops: ``for`` and ``while`` (top- and bottom-tested) rebuilt from back edges.

A mixin of :class:`~uncompile.structure.walker.Walker`: a loop header is a block that a back
edge reaches; its natural loop is the body; jumps to the header or past the exit inside it
become ``continue``/``break``. The per-version layouts (3.10/3.11 copy a ``while`` test to the
bottom) are chosen by the facts in :mod:`uncompile.bytecode.versions`.
"""

from __future__ import annotations

import ast
from typing import Any, FrozenSet, List, Optional, Set, Tuple

from ..bytecode import versions as V
from ..bytecode.awaits import ASYNC
from ..expressions import values as M
from ..expressions.conditions import Node, negate, reduce_nodes
from .branch_follow import is_written_continue, outer_loop_jump
from .comprehensions import contains_item, loop_to_comprehension
from .context import Context, Loop


class LoopStructurer:
    """Loop statements for the walker; uses the walker's graph, simulator and helpers."""

    _bottom_cuts: Any
    _headers: Any
    copied_break_cuts: Any
    _node: Any
    _pure_suffix: Any
    _reachable: Any
    _try_handlers: Any
    block_of: Any
    blocks: Any
    covering_try: Any
    exit: Any
    fail: Any
    handler_of: Any
    handlers: Any
    if_statement: Any
    index_at: Any
    instrs: Any
    starts_finally_copy: Any
    is_try_handler: Any
    legacy_loop_exits: Any
    legacy_loop_span: Any
    sim: Any
    span: Any
    start_of: Any
    try_statement: Any
    walk: Any

    def bottom_tested_loop(
        self,
        block_id: int,
        head: Node,
        fall: Optional[int],
        ctx: Context,
        stack: List[Any],
        top: Optional[List[int]] = None,
    ) -> Optional[int]:
        """``while c: body`` compiled as ``if c: (body; if c: repeat)``; -1 if not that shape."""
        shape = self.bottom_test(block_id, head, fall, top)
        if shape is None:
            return -1
        test, body_b, exit_b, cut = shape
        header = self.blocks[body_b]
        body = self.natural_loop(body_b)
        continue_to = self.block_of[cut] if self.blocks[self.block_of[cut]].start == cut else body_b
        break_to, else_b = self._while_else(body, exit_b, ctx)
        info = Loop(body_b, continue_to, break_to, body)
        self._bottom_cuts[body_b] = cut
        inner = ctx._replace(loop=info, region=body, stops=frozenset(), until=cut)
        stmts = self.walk(header.start, inner, list(stack), entering=True)
        return self._emit_while(test, stmts, False, break_to, else_b, ctx, stack)

    def _while_else(
        self, body: FrozenSet[int], exit_b: Optional[int], ctx: Context
    ) -> Tuple[Optional[int], Optional[int]]:
        """(where ``break`` goes, the ``else`` block or None) of a while loop whose test leaves
        to *exit_b*: a ``break`` past that block skips the loop's ``else``, which runs into the
        code after the loop or is a ``continue`` of the enclosing loop."""
        if exit_b is None or V.LAYOUT_IN_SOURCE_ORDER:
            return exit_b, None
        exit_off = self.blocks[exit_b].offset
        # a ``break`` that is a block of its own is only a jump to where it goes
        outs = [self.blocks[b].jump if self._lone_jump(b) else b for b in self._exits(set(body), exit_b)]
        later = [b for b in outs if b is not None and self.blocks[b].offset > exit_off]
        outer = ctx.loop
        if outer is not None and self._lone_jump(exit_b) and is_written_continue(self, exit_b, outer.header):
            return (later[0], exit_b) if later else (exit_b, None)
        later = [b for b in later if self._runs_forward_into(exit_b, b)]
        return (later[0], exit_b) if later else (exit_b, None)

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
        for j in range(1, used):
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

    def bottom_test(
        self, block_id: int, head: Node, fall: Optional[int], top: Optional[List[int]] = None
    ) -> Optional[Tuple[ast.expr, int, Optional[int], int]]:
        """(test, body block, exit block, index where the copied test starts) of a bottom-tested loop."""
        if head.false == fall:
            test, body_b, exit_b = negate(head.expr), head.false, head.true
        else:
            test, body_b, exit_b = head.expr, head.true, head.false
        if (
            body_b is not None
            and exit_b is not None
            and not self.is_loop_header(body_b)
            and self.is_loop_header(exit_b)
            and self._lone_jump(body_b)
        ):
            # 3.12+: the loop leaves by a jump (to an enclosing loop), the test is inverted
            test, body_b, exit_b = negate(test), exit_b, body_b
        if body_b is None or not self.is_loop_header(body_b):
            return None
        header = self.blocks[body_b]
        sources = [p for p in header.preds if self.blocks[p].offset >= header.offset]
        if not sources:
            return None
        sources.sort()
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
        if len(top) > 1:  # a condition of several blocks (and/or) is copied block by block
            first = bottom.id - (len(top) - 1)
            if first < body_b or any(not self._same_code(t, first + k) for k, t in enumerate(top) if k):
                return None
            block_id, bottom = top[0], self.blocks[first]
        if any(not bottom.id <= b <= sources[-1] for b in sources):
            return None  # other back edges: continue statements, not the copied condition
        n = self._pure_suffix(block_id, bottom.id)
        if n == 0:
            return None
        return test, body_b, exit_b, bottom.end - 1 - n

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
            and self._bottom_cuts.get(loop.header) == ctx.until
        )

    def region_entry(self, block: Any, ctx: Context, stack: List[Any]) -> Optional[int]:
        """The statement that the first block of a region or loop body starts, or -1 for none.

        A try/with body that is a loop is that loop; a loop or clause body that starts with a
        try of its own (not one around the whole loop, nor a finally copy) is that try (its
        set-up NOP is not read).
        """
        if self._body_starts_loop(block, ctx):
            return self.loop(block.id, ctx, stack)
        entry = self.handler_of(block.offset)
        if (
            entry is not None
            and entry.target not in ctx.active
            and self.is_try_handler(entry)
            and not self.starts_finally_copy(block.start, ctx)
            and not (self.is_loop_header(block.id) and self.try_holding_loop(block, entry, ctx) is not None)
        ):
            return self.try_statement(block.start, entry, ctx, stack)
        return -1

    def _body_starts_loop(self, block: Any, ctx: Context) -> bool:
        """A region entered at a loop header that the region holds (``try: while True: ...``)."""
        if (
            not ctx.active
            or not self.is_loop_header(block.id)
            or (ctx.loop is not None and ctx.loop.header == block.id)
        ):
            return False
        entry = self.handler_of(block.offset)
        if entry is None:
            return False
        holding = self._try_at_header(block, entry)
        return holding is not None and holding.target in ctx.active

    def try_holding_loop(self, header: Any, entry: Any, ctx: Context) -> Optional[Any]:
        """The handler entry of a try not yet entered that starts at loop *header* (whose first
        block *entry* covers) and holds the whole loop; None if there is none."""
        holding = self._try_at_header(header, entry)
        return holding if holding is not None and holding.target not in ctx.active else None

    def _try_at_header(self, header: Any, entry: Any) -> Optional[Any]:
        """The try (or with) holding the whole loop at *header*: *entry*'s own, or the try
        around it whose handler covers only its clauses (``try: while True: try: ...``)."""
        if self._try_encloses_loop(header, entry):
            return entry
        around = self.covering_try(entry)
        if around is not None and self.is_try_handler(around) and self._try_encloses_loop(header, around):
            return around
        return None

    def _try_encloses_loop(self, header: Any, entry: Any) -> bool:
        """A try (or with) starting at a loop header holds the whole loop when its jumps back are
        inside its span; a try's also run under its handler (a try inside the body leaves its
        cover before them)."""
        lo, hi = self.span(entry.target, ("POP_EXCEPT",))
        sources = [self.blocks[p] for p in header.preds if self.blocks[p].offset >= header.offset]
        ends = [self.instrs[b.end - 1].offset for b in sources]
        if not ends or not all(lo <= end < hi for end in ends):
            return False
        return not self.is_try_handler(entry) or all(self._under(end, entry.target) for end in ends)

    def _under(self, offset: int, target: int) -> bool:
        """Whether the handler at *target* catches what the instruction at *offset* raises,
        directly or through the handlers of constructs nested in its body."""
        entry = self.handler_of(offset)
        for _ in range(len(self.handlers)):
            if entry is None:
                return False
            if entry.target == target:
                return True
            entry = self.handler_of(entry.target)
        return False

    def _same_exit(self, a: Optional[int], b: Optional[int]) -> bool:
        """Blocks *a* and *b* are one exit, or copies of one ``return`` or jump (3.12+ copy small
        exits), or one is only a jump to the other."""
        if a == b:
            return True
        if a is None or b is None:
            return False
        x, y = self.blocks[a], self.blocks[b]
        if self._lone_jump(a) and self._lone_jump(b):
            return x.jump == y.jump
        if self._lone_jump(a) != self._lone_jump(b):  # 3.12: a jump to a copy of the return laid out before
            jump, other = (x, b) if self._lone_jump(a) else (y, a)
            to = jump.jump
            return to is not None and not self._lone_jump(to) and self._same_exit(to, other)
        if x.end - x.start != y.end - y.start or self.instrs[x.end - 1].op != "RETURN_VALUE":
            return False
        return all(
            p.op == q.op and p.arg == q.arg and p.target is None
            for p, q in zip(self.instrs[x.start : x.end], self.instrs[y.start : y.end])
        )

    def is_break(self, block_id: int, loop: Loop) -> bool:
        """Whether reaching *block_id* leaves *loop*: its exit, or where an exit that is only a jump goes."""
        exit_b = loop.break_to
        return exit_b is not None and (
            block_id == exit_b or (self._lone_jump(exit_b) and block_id == self.blocks[exit_b].jump)
        )

    def _lone_jump(self, block_id: int) -> bool:
        block = self.blocks[block_id]
        return block.end - block.start == 1 and self.instrs[block.start].op == "JUMP"

    def _same_code(self, a: int, b: int) -> bool:
        """Blocks *a* and *b* hold the same instructions (jump targets aside)."""
        x, y = self.blocks[a], self.blocks[b]
        if x.end - x.start != y.end - y.start:
            return False
        jumps = V.CONDITIONAL_JUMPS
        if self.instrs[x.end - 1].op not in jumps or self.instrs[y.end - 1].op not in jumps:
            return False
        return all(
            p.op == q.op and (p.target is not None or p.arg == q.arg)
            for p, q in zip(self.instrs[x.start : x.end - 1], self.instrs[y.start : y.end - 1])
        )

    def _reach_normal(self, start: int, goal: int, raising: bool = False) -> bool:
        """Whether *goal* is reachable from *start* by normal edges, and with *raising* also
        from a try body into its handler (reachable sets kept per start)."""
        key = (start, raising)
        reachable = self._reachable.get(key)
        if reachable is None:
            reachable = {start}
            work = [start]
            while work:
                b = work.pop()
                for succ in self.blocks[b].succs + (self._try_handler_blocks(b) if raising else []):
                    if succ not in reachable:
                        reachable.add(succ)
                        work.append(succ)
            self._reachable[key] = reachable
        return goal in reachable

    def reaches(self, start: int, goal: int, ctx: Context) -> bool:
        """Whether *goal* is reachable from *start* inside the current region (loop body)."""
        return goal in self.reachable_in_region(start, ctx, goal)

    def reachable_in_region(
        self, start: int, ctx: Context, goal: Optional[int] = None, raising: bool = True
    ) -> Set[int]:
        """The blocks reachable from *start* inside the current region, not past the loop's
        header, with *raising* also through exception handlers (the search may stop once it
        finds *goal*)."""
        region = ctx.region
        header = ctx.loop.header if ctx.loop is not None else None
        seen = {start}
        work = [start]
        while work:
            b = work.pop()
            if b == goal:
                break
            if b == header:
                continue
            succs = self.blocks[b].succs
            if raising:
                succs = succs + self.blocks[b].handlers + self._try_handler_blocks(b)
            for succ in succs:
                if succ not in seen and (region is None or succ in region):
                    seen.add(succ)
                    work.append(succ)
        return seen

    def _try_handler_blocks(self, block_id: int) -> List[int]:
        """The except/finally handler that an exception in the block goes to (as a block list)."""
        if not V.HAS_EXCEPTION_TABLE:
            return []
        found = self._try_handlers.get(block_id)
        if found is None:
            entry = self.handler_of(self.blocks[block_id].offset)
            found = (
                [self.block_of[self.index_at(entry.target)]]
                if entry is not None and self.is_try_handler(entry)
                else []
            )
            self._try_handlers[block_id] = found
        return found

    # -- loops --------------------------------------------------------------------------

    def is_loop_header(self, block_id: int) -> bool:
        """A block with a back edge from a block it reaches; a back edge from an except clause
        (``continue``, or the end of the loop body after a try) counts where the block dominates it.

        A ``for`` header is one even without back edges: a body that always leaves the loop
        (``for x in y: return x``) never repeats it.
        """
        if block_id not in self._headers:
            block = self.blocks[block_id]
            later = [p for p in block.preds if self.blocks[p].offset >= block.offset]
            is_for = self.instrs[block.end - 1].op == "FOR_ITER"
            self._headers[block_id] = is_for or any(self._back_edge(block_id, p) for p in later)
        return self._headers[block_id]

    def _back_edge(self, header: int, source: int) -> bool:
        """Whether the jump from block *source* to *header* (placed before it) closes a loop."""
        return self._reach_normal(header, source) or (
            self._reach_normal(header, source, raising=True) and self._dominates(header, source)
        )

    def _dominates(self, a: int, b: int) -> bool:
        """Whether every path from the entry to block *b* (exceptions included) passes block *a*."""
        seen = {0, a}
        work = [0] if a != 0 else []
        while work:
            block = work.pop()
            if block == b:
                return False
            for succ in self.blocks[block].succs + self._try_handler_blocks(block):
                if succ not in seen:
                    seen.add(succ)
                    work.append(succ)
        return True

    def natural_loop(self, header: int) -> FrozenSet[int]:
        head = self.blocks[header]
        body = {header}
        work = [p for p in head.preds if self.blocks[p].offset >= head.offset and self._back_edge(header, p)]
        while work:
            b = work.pop()
            if b in body:
                continue
            body.add(b)
            work.extend(self.blocks[b].preds)
        return frozenset(body)

    def loop(self, header: int, ctx: Context, stack: List[Any]) -> Optional[int]:
        head = self.blocks[header]
        body = set(self.natural_loop(header))
        first = self.instrs[head.start]
        if first.op == "FOR_ITER" and head.end - head.start == 1:
            return self.for_loop(header, body, ctx, stack)
        if V.LAYOUT_IN_SOURCE_ORDER:
            body |= self.legacy_loop_span(header, body)
        return self.while_loop(header, body, ctx, stack)

    def _exits(self, body: set, exclude: Optional[int]) -> List[int]:
        header = min(body, key=lambda b: self.blocks[b].offset) if body else None
        inside = [b for b in body if header is None or not self._raising_in_handler(header, b)]
        outs = {s for b in inside for s in self.blocks[b].succs if s not in body and s != exclude}
        if V.LAYOUT_IN_SOURCE_ORDER:  # handler code (e.g. an unmatched exception's RERAISE) leaves no loop
            outs = self.legacy_loop_exits(body, outs)
        return sorted(outs, key=lambda b: self.blocks[b].offset)

    def _raising_in_handler(self, header: int, block_id: int) -> bool:
        """Handler code of a loop body (reached by an exception only) before its ``POP_EXCEPT``:
        where it goes is the next except clause or a re-raise, never out of the loop."""
        return (
            V.HAS_EXCEPTION_TABLE
            and not self._reach_normal(header, block_id)
            and not self._pops_exception(block_id)
        )

    def _pops_exception(self, block_id: int) -> bool:
        """Whether the block ends an except clause (a ``POP_EXCEPT`` not of a re-raise)."""
        block = self.blocks[block_id]
        return any(
            self.instrs[i].op == "POP_EXCEPT" and self.instrs[i - 1].op != "COPY"
            for i in range(block.start, block.end)
        )

    def _handler_exits(self, head: Any, body: set) -> List[int]:
        """Where the except clauses of the tries in a loop body jump out of it (``break``).

        A ``while True`` loop left only from an except clause has no normal exit: the places
        that a clause goes to after its ``POP_EXCEPT`` and that lie outside the body are.
        """
        if not V.HAS_EXCEPTION_TABLE:
            return []
        outs: Set[int] = set()
        for b in body:
            entry = self.handler_of(self.blocks[b].offset)
            if entry is None or not self.is_try_handler(entry) or self.span(entry.target)[0] < head.offset:
                continue
            handler = self.block_of[self.index_at(entry.target)]
            seen = {handler}
            work = [handler]
            while work:
                b = work.pop()
                popped = self._pops_exception(b)
                for succ in self.blocks[b].succs:
                    if succ in body or succ in seen:
                        continue
                    seen.add(succ)
                    (outs.add if popped else work.append)(succ)
        return sorted(outs, key=lambda b: self.blocks[b].offset)

    def for_loop(self, header: int, body: set, ctx: Context, stack: List[Any]) -> Optional[int]:
        head = self.blocks[header]
        exit_b = head.jump
        exit_off = self.blocks[exit_b].offset if exit_b is not None else 1 << 60
        body |= {
            b.id
            for b in self.blocks
            if head.offset <= b.offset < exit_off
            and ctx.lo <= b.offset < ctx.hi
            and not self.instrs[b.start].op == "PUSH_EXC_INFO"
        }
        iterator = self.sim.pop(stack, self.instrs[head.start])
        slots: List[Any] = []
        if isinstance(iterator, M.IteratorSlot):  # 3.15
            slots, iterator = [iterator], self.sim.pop(stack, self.instrs[head.start])
        if not isinstance(iterator, M.Iterator):
            iterator = M.Iterator(self.sim.expr(iterator, self.instrs[head.start]))
        outer = ctx.loop.continue_to if ctx.loop is not None else None
        later = [b for b in self._exits(body, exit_b) if self.blocks[b].offset > exit_off]
        if (
            not later
            and outer is not None
            and outer in self._exits(body, exit_b)
            and exit_b is not None
            and self.blocks[exit_b].fall != outer
        ):
            later = [outer]  # break jumps straight to the enclosing loop's next iteration
        break_to, else_b = (later[0], exit_b) if later else (exit_b, None)
        info = Loop(header, header, break_to, frozenset(body))
        target = M.LoopTarget()
        self.sim.pending.append(self.instrs[head.start].offset)
        inner = ctx._replace(loop=info, region=frozenset(body), stops=frozenset())
        stmts = self.walk(self.start_of(head.fall), inner, stack + [iterator] + slots + [target])
        orelse: List[ast.stmt] = []
        after = self.start_of(break_to)
        cut = self.copied_break_cuts.get(header)
        if else_b is None and after is not None and cut is not None and cut > after:
            # each ``break`` is a copy of the code after the ``else``: see copied_exits
            orelse = self.walk(after, ctx._replace(until=min(ctx.until, cut)), list(stack))
            after = cut
        if else_b is not None:
            orelse = self.walk(self.start_of(else_b), ctx.stop_at(break_to), list(stack))
            jump = outer_loop_jump(self, orelse, self.exit, break_to, ctx)
            if jump is not None:  # the else goes on to the enclosing loop, not past this one
                orelse.append(jump)
        if target.target is None:
            raise self.fail(head.start, "for loop without a target")
        node_type = ast.AsyncFor if self.instrs[head.start].arg == ASYNC else ast.For
        loop_node = node_type(
            target=target.target,
            iter=iterator.iterable,
            body=stmts or [ast.Pass()],
            orelse=orelse,
            type_comment=None,
        )
        if stack and hasattr(stack[-1], "uncompile_comprehension") and contains_item(stmts):
            comprehension = loop_to_comprehension(loop_node, None)
            result = next(
                (k for k in range(len(stack) - 1, -1, -1) if hasattr(stack[k], "uncompile_comprehension")),
                None,
            )
            if comprehension is None or result is None:
                raise self.fail(head.start, "comprehension")
            stack[result] = comprehension
            self.sim.pending = []
            return after
        self.sim.emit(loop_node)
        return after

    def while_loop(self, header: int, body: set, ctx: Context, stack: List[Any]) -> Optional[int]:
        head = self.blocks[header]
        # handler code of the body (3.12+ places it after the function) does not extend the body
        normal = [b for b in body if self._reach_normal(header, b)]
        last_source = max(self.blocks[b].offset for b in normal)
        body |= {
            b.id
            for b in self.blocks
            if head.offset <= b.offset <= last_source
            and ctx.lo <= b.offset < ctx.hi
            and self.instrs[b.start].op != "PUSH_EXC_INFO"
            and self._reach_normal(header, b.id)
        }
        # a try body whose handler goes on with the loop belongs to it, also where its own end
        # leaves the loop (``try: ...; break``), with the jumps that only it reaches
        tried = {
            b.id
            for b in self.blocks
            if head.offset < b.offset
            and ctx.lo <= b.offset < ctx.hi
            and self._reach_normal(header, b.id)
            and any(h in body for h in self._try_handler_blocks(b.id))
        }
        body |= tried
        inside = self._tries_inside(head, body, ctx)
        body |= inside | self._only_after(inside, body)
        body |= {
            b.id
            for b in self.blocks
            if b.preds
            and all(p in tried for p in b.preds)
            and b.end - b.start == 1
            and self.instrs[b.start].op == "JUMP"
        }
        outs = self._exits(body, None) or self._handler_exits(head, body)
        exit_b = outs[0] if outs else None
        last = self.instrs[head.end - 1]
        break_to, else_b = exit_b, None
        if last.op in V.CONDITIONAL_JUMPS and head.jump in outs:
            exit_b = head.jump  # where the test leaves; an earlier exit is a ``break`` written before it
            break_to, else_b = self._while_else(frozenset(body), exit_b, ctx)
        info = Loop(header, header, break_to, frozenset(body))
        inner = ctx._replace(loop=info, region=frozenset(body), stops=frozenset())
        test: ast.expr = ast.Constant(value=True)
        start: Optional[int] = head.start
        if last.op in V.CONDITIONAL_JUMPS and exit_b is not None:
            # while <condition>: the header evaluates the condition and leaves on false
            work = list(stack)
            saved_out = self.sim.out
            self.sim.out = []
            for i in range(head.start, head.end - 1):
                self.sim.step(self.instrs[i], work)
            pre = self.sim.out
            self.sim.out = saved_out
            if not pre:
                expr = self.sim.pop_expr(work, last)
                node, fall = self._node(header, expr, head.end - 1, False)
                node, top, fall = self._while_condition(node, fall, header, body, exit_b, stack)
                if node.false == exit_b:
                    test, start = node.expr, self.start_of(node.true)
                elif node.true == exit_b:
                    test, start = negate(node.expr), self.start_of(node.false)
                copied = self.bottom_test(header, node, fall, top) if V.DUPLICATES_WHILE_CONDITION else None
                if copied is not None and start == self.start_of(copied[1]):
                    # ``continue`` jumps back to this test, the end of the body to its copy
                    self._bottom_cuts[header] = copied[3]
                    inner = inner._replace(until=copied[3])
                    stmts = self.walk(start, inner, list(stack), entering=True)
                    return self._emit_while(test, stmts, True, break_to, else_b, ctx, stack)
        stmts = self.walk(start, inner, list(stack), entering=start == head.start)
        # the end of the body would repeat the test there: a jump back to the test is ``continue``
        explicit = V.DUPLICATES_WHILE_CONDITION and start != head.start
        return self._emit_while(test, stmts, explicit, break_to, else_b, ctx, stack)

    def _tries_inside(self, head: Any, body: set, ctx: Context) -> Set[int]:
        """The blocks of the try bodies that start inside a loop body: a try statement lies
        inside the loop, also where the rest of its body only leaves the loop (``while True:
        try: (if c: continue); rest finally: ...; break``, the rest laid out after the jump back)."""
        if not V.HAS_EXCEPTION_TABLE:
            return set()
        found: Set[int] = set()
        targets = {
            entry.target for entry in map(self.handler_of, (self.blocks[b].offset for b in body)) if entry
        }
        at_header = self.handler_of(head.offset)
        holding = self._try_at_header(head, at_header) if at_header is not None else None
        for target in sorted(targets):
            entry = next(e for e in self.handlers if e.target == target)
            if not self.is_try_handler(entry):
                continue
            lo, hi = self.span(target, ("POP_EXCEPT",))
            if lo < head.offset or (holding is not None and holding.target == target):
                continue  # a try around the loop
            found |= {
                b.id
                for b in self.blocks
                if lo <= b.offset < hi
                and ctx.lo <= b.offset < ctx.hi
                and b.id not in body
                and self.instrs[b.start].op != "PUSH_EXC_INFO"
                and self._reach_normal(head.id, b.id)
            }
        return found

    def _only_after(self, blocks: Set[int], body: set) -> Set[int]:
        """The blocks that only the ends of *blocks* (try bodies inside a loop) lead to, one after
        the other: the statements after such a try up to where the loop's ``break`` goes."""
        found: Set[int] = set()
        for start in sorted(blocks):
            for b in self.blocks[start].succs:
                while (
                    b not in body
                    and b not in found
                    and all(p in blocks or p in found for p in self.blocks[b].preds)
                ):
                    found.add(b)
                    succs = self.blocks[b].succs
                    if len(succs) != 1:
                        break
                    b = succs[0]
        return found

    def _emit_while(
        self,
        test: ast.expr,
        stmts: List[ast.stmt],
        explicit_continue: bool,
        break_to: Optional[int],
        else_b: Optional[int],
        ctx: Context,
        stack: List[Any],
    ) -> Optional[int]:
        """Emit the while loop (its ``else`` walked from *else_b* to *break_to*); where to go on."""
        orelse: List[ast.stmt] = []
        if else_b is not None:
            orelse = self.walk(self.start_of(else_b), ctx.stop_at(break_to), list(stack))
            jump = outer_loop_jump(self, orelse, self.exit, break_to, ctx)
            if jump is not None:  # the else goes on to the enclosing loop, not past this one
                orelse.append(jump)
        loop_node = ast.While(test=test, body=stmts or [ast.Pass()], orelse=orelse)
        if explicit_continue:  # a trailing ``continue`` is not the loop's own end
            loop_node.uncompile_explicit_continue = True  # type: ignore[attr-defined]
        self.sim.emit(loop_node)
        return self.start_of(break_to)

    def _while_condition(
        self, node: Node, fall: Optional[int], header: int, body: set, exit_b: Optional[int], stack: List[Any]
    ) -> Tuple[Node, List[int], Optional[int]]:
        """Extend a ``while`` test over the pure condition blocks after the header (and/or).

        Returns the test's node, the blocks it spans and where its last block falls through.
        """
        nodes = [node]
        falls = [fall]
        while fall is not None and fall in body and fall != header and not self.is_loop_header(fall):
            pure = self._pure(fall, self.blocks[fall].start, stack)  # type: ignore[attr-defined]
            if pure is None or pure[1] != "cond":
                break
            new, fall = self._node(fall, pure[0], pure[2], False)
            nodes.append(new)
            falls.append(fall)
        if len(nodes) == 1:
            return node, [header], falls[0]
        reduced, sizes = reduce_nodes(nodes)
        head = reduced[0]
        if (
            isinstance(head.true, tuple)
            or isinstance(head.false, tuple)
            or exit_b not in (head.true, head.false)
        ):
            return node, [header], falls[0]
        return head, [n.entry for n in nodes[: sizes[0]]], falls[sizes[0] - 1]
