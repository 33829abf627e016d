"""Loop graph queries: headers, natural loops, back edges, reachability and loop exits.

A mixin of :class:`~uncompile.structure.walker.Walker`, through
:class:`~uncompile.structure.loops.LoopStructurer`:
questions about the control-flow graph that the loop structuring asks, answered without emitting
anything.
"""

from __future__ import annotations

from typing import Any, Dict, FrozenSet, Iterable, List, Optional, Set, Tuple

from ..bytecode import versions as V
from .context import Context, Loop

_NO_COPIED_TEST = (1 << 60, -1)  # (see LoopGraph.copied_test_jump)


class LoopGraph:
    """Graph queries about loops for the walker; uses the walker's blocks and handlers."""

    _copied_test_jumps: Any
    _headers: Any
    _reachable: Any
    _try_handlers: Any
    block_of: Any
    blocks: Any
    cfg: Any
    handler_of: Any
    index_at: Any
    instrs: Any
    is_try_handler: Any
    legacy_loop_exits: Any
    span: Any

    def blocks_within(self, lo: int, hi: int) -> List[Any]:
        """The blocks that start at an offset from *lo* up to (not including) *hi*, in layout order."""
        blocks = self.blocks
        return blocks[_first_at(blocks, lo) : _first_at(blocks, hi)]

    def _same_exit(self, a: Optional[int], b: Optional[int]) -> bool:
        """Blocks *a* and *b* are one exit, or copies of one ``return`` or jump (3.12+ copy small
        exits), or one is only a jump to the other."""
        if a == b:
            return True
        if a is None or b is None:
            return False
        x, y = self.blocks[a], self.blocks[b]
        if self._lone_jump(a) and self._lone_jump(b):
            return x.jump == y.jump or x.jump == b or y.jump == a
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
        if exit_b is None or block_id == exit_b:
            return exit_b is not None
        # (the lone jump tested here, without _lone_jump's call: every block walked in a loop asks)
        exit = self.blocks[exit_b]
        return block_id == exit.jump and exit.end - exit.start == 1 and self.instrs[exit.start].op == "JUMP"

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
        return goal in self._reach_set(start, raising)

    def _reach_set(self, start: int, raising: bool = False) -> Set[int]:
        """The blocks reachable from *start* (see :meth:`_reach_normal`)."""
        key = (start, raising)
        reachable = self._reachable.get(key)
        if reachable is None:
            blocks = self.blocks
            through_tries = raising and V.HAS_EXCEPTION_TABLE  # (see _try_handler_blocks)
            reachable = {start}
            work = [start]
            while work:
                b = work.pop()
                succs = blocks[b].succs
                if through_tries:
                    succs = succs + self._try_handler_blocks(b)
                for succ in succs:
                    if succ not in reachable:
                        reachable.add(succ)
                        work.append(succ)
            self._reachable[key] = reachable
        return reachable

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
        blocks = self.blocks
        through_tries = raising and V.HAS_EXCEPTION_TABLE  # (see _try_handler_blocks)
        copy, body_start = self.copied_test_jump(ctx)
        seen = {start}
        work = [] if start == goal else [start]
        while work:
            b = work.pop()
            if b == header:
                continue
            block = blocks[b]
            succs = block.succs
            if b >= copy and body_start in succs:
                succs = [s for s in succs if s != body_start]  # (the next iteration)
            if raising and block.handlers:
                succs = succs + block.handlers
            if through_tries:
                succs = succs + self._try_handler_blocks(b)
            for succ in succs:
                if succ not in seen and (region is None or succ in region):
                    seen.add(succ)
                    if succ == goal:
                        return seen  # (found where it is first seen: a branch's end often goes there)
                    work.append(succ)
        return seen

    def copied_test_jump(self, ctx: Context) -> Tuple[int, int]:
        """(the first block of the copy of a ``while`` test at the bottom of the body of the loop
        being walked, the block that copy jumps back to) when a ``continue`` jumps back to the
        test at the top, the loop's header: that jump back to the start of the body is the
        loop's next iteration, as a jump to the header is; (a large number, -1) for no such copy."""
        loop = ctx.loop
        found = self._copied_test_jumps.get(loop.header) if loop is not None else None
        return found if found is not None else _NO_COPIED_TEST

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
        if block_id not in self.cfg.loop_candidates:
            return False
        known = self._headers.get(block_id)
        if known is None:
            blocks = self.blocks
            block = blocks[block_id]
            known = self.instrs[block.end - 1].op == "FOR_ITER"
            if not known:
                offset = block.offset
                for pred in block.preds:  # a back edge comes from a block laid out at or after it
                    if blocks[pred].offset >= offset and self._back_edge(block_id, pred):
                        known = True
                        break
            self._headers[block_id] = known
        return known

    def _back_edge(self, header: int, source: int) -> bool:
        """Whether the jump from block *source* to *header* (placed before it) closes a loop.

        3.8 - 3.9 keep a loop's own jump back after a body that never reaches its end
        (``while True: if c: return x; raise E``), dead: it still closes the loop.
        """
        return (
            self._reach_normal(header, source)
            or (self._reach_normal(header, source, raising=True) and self._dominates(header, source))
            or (V.KEEPS_DEAD_CODE and not self.blocks[source].preds and self._lone_jump(source))
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

    def natural_loop(self, header: int, sources: Optional[List[int]] = None) -> FrozenSet[int]:
        """The blocks of the loop at *header*: those that reach its back edges (or only *sources*)."""
        body = {header}
        work = list(sources) if sources is not None else self.back_edge_sources(header)
        tried: Optional[Dict[int, List[int]]] = None  # handler block -> the first block of its try
        while work:
            b = work.pop()
            if b in body:
                continue
            body.add(b)
            preds = self.blocks[b].preds
            if (
                not preds
                and V.HAS_EXCEPTION_TABLE
                and self.instrs[self.blocks[b].start].op == "PUSH_EXC_INFO"
            ):
                # an except clause that goes on with the loop: its try is in the loop, and so is
                # the code on every path to the try's start (``if c: x = 1 / else: x = 2`` first)
                if tried is None:
                    tried = {}
                    for block in self.blocks:
                        for handler in self._try_handler_blocks(block.id):
                            tried.setdefault(handler, [block.id])
                preds = tried.get(b, [])
            work.extend(preds)
        return frozenset(body)

    def back_edge_sources(self, header: int) -> List[int]:
        """The blocks whose jumps back to *header* close a loop, in layout order."""
        head = self.blocks[header]
        later = [p for p in head.preds if self.blocks[p].offset >= head.offset]
        return sorted(p for p in later if self._back_edge(header, p))

    def inner_loop_sources(self, header: int, sources: List[int]) -> List[int]:
        """``while a: while True: ...`` (3.11+): the outer loop's test copied to the bottom of its
        body and the inner loop both jump back to *header* (the no-op between their starts is not
        read). Of the back-edge *sources* (in layout order), those before the last one when they
        close a loop of their own that does not hold the last; none otherwise."""
        if len(sources) < 2 or sources[-1] in self.natural_loop(header, sources[:-1]):
            return []
        return sources[:-1]

    def _exits(self, body: set, exclude: Optional[int]) -> List[int]:
        inside: Iterable[int] = body
        if V.HAS_EXCEPTION_TABLE and body:  # (handler code lies in the loop body: see _raising_in_handler)
            header = min(body, key=lambda b: self.blocks[b].offset)
            inside = [b for b in body if not self._raising_in_handler(header, b)]
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


def _first_at(blocks: List[Any], offset: int) -> int:
    """The index of the first of *blocks* (in layout order) that starts at or after *offset*."""
    lo, hi = 0, len(blocks)
    while lo < hi:
        mid = (lo + hi) // 2
        if blocks[mid].offset < offset:
            lo = mid + 1
        else:
            hi = mid
    return lo
