"""Loops: ``for`` and ``while`` (top- and bottom-tested) rebuilt from back edges.

A mixin of :class:`~uncompile.structure.walker.Walker`: a loop header is a block that a back
edge reaches; its natural loop is the body; jumps to the header or past the exit inside it
become ``continue``/``break``. The per-version layouts (3.10/3.11 copy a ``while`` test to the
bottom) are chosen by the facts in :mod:`uncompile.bytecode.versions`.
"""

from __future__ import annotations

import ast
from typing import Any, FrozenSet, List, Optional, Set

from ..bytecode import versions as V
from ..expressions import values as M
from ..expressions.conditions import Node, negate, reduce_nodes
from .branch_follow import outer_loop_jump
from .comprehensions import contains_item, loop_to_comprehension
from .context import Context, Loop


class LoopStructurer:
    """Loop statements for the walker; uses the walker's graph, simulator and helpers."""

    _bottom_cuts: Any
    _headers: Any
    _node: Any
    _pure_suffix: Any
    _reachable: Any
    block_of: Any
    blocks: Any
    cfg: Any
    exit: Any
    fail: Any
    handler_of: Any
    instrs: Any
    is_try_handler: Any
    legacy_loop_exits: Any
    legacy_loop_span: Any
    sim: Any
    span: Any
    start_of: Any
    walk: Any

    def bottom_tested_loop(self, block_id: int, head: Node, fall: Optional[int], ctx: Context,
                           stack: List[Any], top: Optional[List[int]] = None) -> Optional[int]:
        """``while c: body`` compiled as ``if c: (body; if c: repeat)``; -1 if not that shape."""
        if head.false == fall:
            test, body_b, exit_b = negate(head.expr), head.false, head.true
        else:
            test, body_b, exit_b = head.expr, head.true, head.false
        if body_b is None or not self.is_loop_header(body_b):
            return -1
        header = self.blocks[body_b]
        sources = [p for p in header.preds if self.blocks[p].offset >= header.offset]
        if not sources:
            return -1
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
            if last.op not in V.CONDITIONAL_JUMPS or bottom.jump != exit_b or bottom.fall != sources[-1] \
                    or len(sources) != 1:
                return -1
        elif last.op not in V.CONDITIONAL_JUMPS or bottom.jump != body_b or bottom.fall != exit_b:
            return -1
        top = top or [block_id]
        if len(top) > 1:  # a condition of several blocks (and/or) is copied block by block
            first = bottom.id - (len(top) - 1)
            if first < body_b or any(not self._same_code(t, first + k) for k, t in enumerate(top) if k):
                return -1
            block_id, bottom = top[0], self.blocks[first]
        if any(not bottom.id <= b <= sources[-1] for b in sources):
            return -1  # other back edges: continue statements, not the copied condition
        n = self._pure_suffix(block_id, bottom.id)
        if n == 0:
            return -1
        cut = bottom.end - 1 - n
        body = self.natural_loop(body_b)
        continue_to = self.block_of[cut] if self.blocks[self.block_of[cut]].start == cut else body_b
        info = Loop(body_b, continue_to, exit_b, body)
        self._bottom_cuts[body_b] = cut
        inner = ctx._replace(loop=info, region=body, stops=frozenset(), until=cut)
        stmts = self.walk(header.start, inner, list(stack), entering=True)
        self.sim.emit(ast.While(test=test, body=stmts or [ast.Pass()], orelse=[]))
        return self.start_of(exit_b)

    def _copied_or_test(self, top: List[int], sources: List[int], body_b: int) -> Optional[int]:
        """The first block of a copied ``a or b`` test whose jumps back are blocks of their own."""
        b = sources[-1]
        for k in range(len(top) - 1, -1, -1):
            block = self.blocks[b]
            if block.end - block.start == 1 and self.instrs[block.start].op == "JUMP" \
                    and block.jump == body_b and len(block.preds) == 1:
                b = block.preds[0]
            if self.instrs[self.blocks[b].end - 1].op not in V.CONDITIONAL_JUMPS \
                    or (k and (not self._same_code(top[k], b) or b - 1 < 0)):
                return None  # the first test may end a body block: its suffix is checked later
            if k:
                b -= 1
        if any(not b <= s <= sources[-1] for s in sources):
            return None
        return b

    def _break_past_bottom_test(self, pos: int, ctx: Context) -> bool:
        """A jump from a bottom-tested loop's body to its exit, past the copied test: ``break``."""
        loop = ctx.loop
        return loop is not None and loop.break_to is not None and pos == self.blocks[loop.break_to].start \
            and self._bottom_cuts.get(loop.header) == ctx.until

    def _body_starts_loop(self, block: Any, ctx: Context) -> bool:
        """A region entered at a loop header that the region holds (``try: while True: ...``)."""
        if not ctx.active or not self.is_loop_header(block.id) \
                or (ctx.loop is not None and ctx.loop.header == block.id):
            return False
        entry = self.handler_of(block.offset)
        return entry is not None and entry.target in ctx.active and self._try_encloses_loop(block, entry)

    def _try_in_loop_at_header(self, block: Any, ctx: Context) -> Any:
        """The handler entry of a ``try`` that starts at the header of the loop being entered."""
        if ctx.loop is None or ctx.loop.header != block.id:
            return None
        entry = self.handler_of(block.offset)
        if entry is None or entry.target in ctx.active or not self.is_try_handler(entry) \
                or self._try_encloses_loop(block, entry):
            return None
        return entry

    def _try_encloses_loop(self, header: Any, entry: Any) -> bool:
        """A try starting at a loop header holds the whole loop when its back edges are inside."""
        lo, hi = self.span(entry.target)
        sources = [self.blocks[p] for p in header.preds if self.blocks[p].offset >= header.offset]
        return bool(sources) and all(lo <= self.instrs[b.end - 1].offset < hi for b in sources)

    def _same_code(self, a: int, b: int) -> bool:
        """Blocks *a* and *b* hold the same instructions (jump targets aside)."""
        x, y = self.blocks[a], self.blocks[b]
        if x.end - x.start != y.end - y.start:
            return False
        jumps = V.CONDITIONAL_JUMPS
        if self.instrs[x.end - 1].op not in jumps or self.instrs[y.end - 1].op not in jumps:
            return False
        return all(p.op == q.op and (p.target is not None or p.arg == q.arg)
                   for p, q in zip(self.instrs[x.start:x.end - 1], self.instrs[y.start:y.end - 1]))

    def _reach_normal(self, start: int, goal: int) -> bool:
        """Whether *goal* is reachable from *start* by normal edges (reachable sets kept per start)."""
        return goal in self._reachable_from(start, through_handlers=False)

    def _reachable_from(self, start: int, through_handlers: bool) -> Set[int]:
        """The blocks reachable from *start* by normal edges, and by exceptions if asked (cached)."""
        key = (start, through_handlers)
        reachable = self._reachable.get(key)
        if reachable is None:
            reachable = {start}
            work = [start]
            while work:
                block = self.blocks[work.pop()]
                for succ in block.succs + self._raises_to(block) if through_handlers else block.succs:
                    if succ not in reachable:
                        reachable.add(succ)
                        work.append(succ)
            self._reachable[key] = reachable
        return reachable

    def _back_edge_sources(self, header: int) -> List[int]:
        """The later blocks that jump back to *header* and that it reaches: its loop's back edges.

        A loop whose body always leaves it (``break``, ``return``) unless an exception is
        handled repeats only from the handler: its back edges are reached through the handler.
        """
        head = self.blocks[header]
        later = [p for p in head.preds if self.blocks[p].offset >= head.offset]
        sources = [p for p in later if p in self._reachable_from(header, through_handlers=False)]
        if not sources and later:
            dominated = self._dominated_through_handlers(header)
            sources = [p for p in later if p in dominated]
        return sources

    def _inside_loop(self, header: int, block_id: int) -> bool:
        """Whether *header* reaches *block_id*: normally, or through a handler in its loop only."""
        if self._reach_normal(header, block_id):
            return True
        return self._back_edge_sources(header) != [] and block_id in self._dominated_through_handlers(header)

    def _raises_to(self, block: Any) -> List[int]:
        """The handler block an exception in *block* goes to (ranges start blocks), as a list."""
        entry = self.handler_of(block.offset)
        target = self.cfg.block_of_offset(entry.target) if entry is not None else None
        return [target.id] if target is not None else []

    def _dominated_through_handlers(self, header: int) -> Set[int]:
        """The blocks that *header* reaches and dominates, handler entries counted as edges.

        Code after a ``try`` that a handler jumps back to is no loop header: the handler is
        also reached without passing through it.
        """
        around = {header}
        work = [0] if header != 0 else []
        around.update(work)
        while work:
            block = self.blocks[work.pop()]
            for succ in block.succs + self._raises_to(block):
                if succ not in around:
                    around.add(succ)
                    work.append(succ)
        around.discard(header)
        return self._reachable_from(header, through_handlers=True) - around

    def reaches(self, start: int, goal: int, ctx: Context) -> bool:
        """Whether *goal* is reachable from *start* inside the current region (loop body)."""
        region = ctx.region
        header = ctx.loop.header if ctx.loop is not None else None
        seen = {start}
        work = [start]
        while work:
            b = work.pop()
            if b == goal:
                return True
            if b == header:
                continue
            for succ in self.blocks[b].succs + self.blocks[b].handlers:
                if succ not in seen and (region is None or succ in region):
                    seen.add(succ)
                    work.append(succ)
        return False

    # -- loops --------------------------------------------------------------------------

    def is_loop_header(self, block_id: int) -> bool:
        """A block with a back edge from a block it reaches (see :meth:`_back_edge_sources`).

        A ``for`` header is one even without back edges: a body that always leaves the loop
        (``for x in y: return x``) never repeats it.
        """
        if block_id not in self._headers:
            block = self.blocks[block_id]
            is_for = self.instrs[block.end - 1].op == "FOR_ITER"
            self._headers[block_id] = is_for or bool(self._back_edge_sources(block_id))
        return self._headers[block_id]

    def natural_loop(self, header: int) -> FrozenSet[int]:
        body = {header}
        work = self._back_edge_sources(header)
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
        outs = {s for b in body for s in self.blocks[b].succs if s not in body and s != exclude}
        if V.LAYOUT_IN_SOURCE_ORDER:  # handler code (e.g. an unmatched exception's RERAISE) leaves no loop
            outs = self.legacy_loop_exits(body, outs)
        return sorted(outs, key=lambda b: self.blocks[b].offset)

    def for_loop(self, header: int, body: set, ctx: Context, stack: List[Any]) -> Optional[int]:
        head = self.blocks[header]
        exit_b = head.jump
        exit_off = self.blocks[exit_b].offset if exit_b is not None else 1 << 60
        body |= {b.id for b in self.blocks
                 if head.offset <= b.offset < exit_off and ctx.lo <= b.offset < ctx.hi
                 and not self.instrs[b.start].op == "PUSH_EXC_INFO"}
        iterator = self.sim.pop(stack, self.instrs[head.start])
        slots: List[Any] = []
        if isinstance(iterator, M.IteratorSlot):  # 3.15
            slots, iterator = [iterator], self.sim.pop(stack, self.instrs[head.start])
        if not isinstance(iterator, M.Iterator):
            iterator = M.Iterator(self.sim.expr(iterator, self.instrs[head.start]))
        outer = ctx.loop.continue_to if ctx.loop is not None else None
        later = [b for b in self._exits(body, exit_b) if self.blocks[b].offset > exit_off]
        if not later and outer is not None and outer in self._exits(body, exit_b) and exit_b is not None \
                and self.blocks[exit_b].fall != outer:
            later = [outer]  # break jumps straight to the enclosing loop's next iteration
        break_to, else_b = (later[0], exit_b) if later else (exit_b, None)
        info = Loop(header, header, break_to, frozenset(body))
        target = M.LoopTarget()
        self.sim.pending.append(self.instrs[head.start].offset)
        inner = ctx._replace(loop=info, region=frozenset(body), stops=frozenset())
        stmts = self.walk(self.start_of(head.fall), inner, stack + [iterator] + slots + [target])
        orelse: List[ast.stmt] = []
        if else_b is not None:
            orelse = self.walk(self.start_of(else_b), ctx.stop_at(break_to), list(stack))
            jump = outer_loop_jump(self, orelse, self.exit, break_to, ctx)
            if jump is not None:  # the else goes on to the enclosing loop, not past this one
                orelse.append(jump)
        if target.target is None:
            raise self.fail(head.start, "for loop without a target")
        loop_node = ast.For(target=target.target, iter=iterator.iterable, body=stmts or [ast.Pass()],
                            orelse=orelse, type_comment=None)
        if contains_item(stmts) and stack and hasattr(stack[-1], "uncompile_comprehension"):
            comprehension = loop_to_comprehension(loop_node, None)
            result = next((k for k in range(len(stack) - 1, -1, -1)
                           if hasattr(stack[k], "uncompile_comprehension")), None)
            if comprehension is None or result is None:
                raise self.fail(head.start, "comprehension")
            stack[result] = comprehension
            self.sim.pending = []
            return self.start_of(break_to)
        self.sim.emit(loop_node)
        return self.start_of(break_to)

    def while_loop(self, header: int, body: set, ctx: Context, stack: List[Any]) -> Optional[int]:
        head = self.blocks[header]
        last_source = max(self.blocks[b].offset for b in body)
        body |= {b.id for b in self.blocks
                 if head.offset <= b.offset <= last_source and ctx.lo <= b.offset < ctx.hi
                 and self.instrs[b.start].op != "PUSH_EXC_INFO" and self._inside_loop(header, b.id)}
        outs = self._exits(body, None)
        exit_b = outs[0] if outs else None
        last = self.instrs[head.end - 1]
        if last.op in V.CONDITIONAL_JUMPS and head.jump in outs:
            exit_b = head.jump  # where the test leaves; an earlier exit is a ``break`` written before it
        info = Loop(header, header, exit_b, frozenset(body))
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
                node = self._while_condition(node, fall, header, body, exit_b, stack)
                if node.false == exit_b:
                    test, start = node.expr, self.start_of(node.true)
                elif node.true == exit_b:
                    test, start = negate(node.expr), self.start_of(node.false)
        stmts = self.walk(start, inner, list(stack), entering=start == head.start)
        loop_node = ast.While(test=test, body=stmts or [ast.Pass()], orelse=[])
        if V.DUPLICATES_WHILE_CONDITION and start != head.start:
            # the end of the body would repeat the test there: a jump back to the test is ``continue``
            loop_node.uncompile_explicit_continue = True  # type: ignore[attr-defined]
        self.sim.emit(loop_node)
        return self.start_of(exit_b)

    def _while_condition(self, node: Node, fall: Optional[int], header: int, body: set,
                         exit_b: Optional[int], stack: List[Any]) -> Node:
        """Extend a ``while`` test over the pure condition blocks after the header (and/or)."""
        nodes = [node]
        while fall is not None and fall in body and fall != header and not self.is_loop_header(fall):
            pure = self._pure(fall, self.blocks[fall].start, stack)  # type: ignore[attr-defined]
            if pure is None or pure[1] != "cond":
                break
            new, nxt = self._node(fall, pure[0], pure[2], False)
            nodes.append(new)
            fall = nxt
        if len(nodes) == 1:
            return node
        reduced, sizes = reduce_nodes(nodes)
        head = reduced[0]
        if isinstance(head.true, tuple) or isinstance(head.false, tuple) \
                or exit_b not in (head.true, head.false):
            return node
        return head
