"""Loops: ``for`` and ``while`` (top- and bottom-tested) rebuilt from back edges.

A mixin of :class:`~uncompile.structure.walker.Walker`: a loop header is a block that a back
edge reaches; its natural loop is the body; jumps to the header or past the exit inside it
become ``continue``/``break``. The per-version layouts (3.10/3.11 copy a ``while`` test to the
bottom) are chosen by the facts in :mod:`uncompile.bytecode.versions`.
"""

from __future__ import annotations

import ast
from typing import Any, List, Optional, Set, Tuple

from ..bytecode import versions as V
from ..bytecode.awaits import ASYNC
from ..expressions import values as M
from ..expressions.conditions import Node, negate, reduce_nodes
from ..flow.cfg import ENDS_PATH
from .bottom_tested_loops import BottomTestedLoops
from .branch_follow import outer_loop_jump
from .comprehensions import contains_item, loop_to_comprehension
from .context import Context, Loop


class LoopStructurer(BottomTestedLoops):
    """Loop statements for the walker; uses the walker's graph, simulator and helpers."""

    _bottom_cuts: Any
    _copied_test_jumps: Any
    copied_break_cuts: Any
    _node: Any
    compare_chain: Any
    try_entry_at: Any
    blocks: Any
    covering_try: Any
    exit: Any
    fail: Any
    handler_of: Any
    handlers: Any
    instrs: Any
    starts_finally_copy: Any
    is_try_handler: Any
    is_with_handler: Any
    exit_call_at: Any
    _through_jump: Any
    _with_resumes_at: Any
    legacy_dead_code_after: Any
    legacy_loop_span: Any
    legacy_mark_written_continues: Any
    legacy_threaded_last_break: Any
    sim: Any
    span: Any
    start_of: Any
    try_statement: Any
    walk: Any

    def region_entry(self, block: Any, ctx: Context, stack: List[Any]) -> Optional[int]:
        """The statement that the first block of a region or loop body starts, or -1 for none.

        A try/with body that is a loop is that loop; a loop or clause body that starts with a
        try of its own (not one around the whole loop, nor a finally copy) is that try (its
        set-up NOP is not read).
        """
        if self._shared_header_sources(block.id, ctx) or (
            V.HAS_EXCEPTION_TABLE and self._body_starts_loop(block, ctx)
        ):
            return self.loop(block.id, ctx, stack)
        if not V.HAS_EXCEPTION_TABLE:
            return -1
        entry = self.try_entry_at(block.offset, ctx)
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

    def _shared_header_sources(self, header: int, ctx: Context) -> List[int]:
        """The jumps back of the loop that starts the body of the bottom-tested loop being walked
        at its own header (see :meth:`inner_loop_sources`); none when there is no such loop."""
        loop = ctx.loop
        cut = self._bottom_cuts.get(header)
        if loop is None or loop.header != header or cut is None or self.block_of[cut] not in loop.body:
            return []
        inner = [s for s in self.back_edge_sources(header) if self.blocks[s].end <= cut]
        return inner if inner and self.block_of[cut] not in self.natural_loop(header, inner) else []

    def try_holding_loop(self, header: Any, entry: Any, ctx: Context) -> Optional[Any]:
        """The handler entry of a try not yet entered that starts at loop *header* (whose first
        block *entry* covers) and holds the whole loop; None if there is none."""
        holding = self._try_at_header(header, entry)
        return holding if holding is not None and holding.target not in ctx.active else None

    def _try_at_header(self, header: Any, entry: Any) -> Optional[Any]:
        """The try (or with) holding the whole loop at *header*: *entry*'s own, or a try around
        it whose handler covers only its clauses (``try: while True: try: ...``)."""
        if self._try_encloses_loop(header, entry):
            return entry
        # (outward through tries starting there: ``with m: while True: try: try: ...``, the
        # with's exit covers the outer try's clauses, the outer try's the inner's)
        around = self.covering_try(entry)
        for _ in range(len(self.handlers)):
            if around is None or not (self.is_try_handler(around) or self.is_with_handler(around)):
                return None
            if self._try_encloses_loop(header, around):
                return around
            around = self.covering_try(around)
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

    def loop(self, header: int, ctx: Context, stack: List[Any]) -> Optional[int]:
        head = self.blocks[header]
        inner = self._shared_header_sources(header, ctx)
        body = set(self.natural_loop(header, inner or None))
        first = self.instrs[head.start]
        if first.op == "FOR_ITER" and head.end - head.start == 1:
            return self.for_loop(header, body, ctx, stack)
        if V.LAYOUT_IN_SOURCE_ORDER:
            body |= self.legacy_loop_span(header, body)
        # a loop sharing its header with the enclosing one ends before that one's copied test
        end = self.instrs[self._bottom_cuts[header]].offset if inner else None
        return self.while_loop(header, body, ctx, stack, end)

    def for_loop(self, header: int, body: set, ctx: Context, stack: List[Any]) -> Optional[int]:
        head = self.blocks[header]
        exit_b = head.jump
        exit_off = self.blocks[exit_b].offset if exit_b is not None else 1 << 60
        body |= {
            b.id
            for b in self.blocks_within(max(head.offset, ctx.lo), min(exit_off, ctx.hi))
            if not self.instrs[b.start].op == "PUSH_EXC_INFO"
        }
        iterator = self.sim.pop(stack, self.instrs[head.start])
        slots: List[Any] = []
        if isinstance(iterator, M.IteratorSlot):  # 3.15
            slots, iterator = [iterator], self.sim.pop(stack, self.instrs[head.start])
        if not isinstance(iterator, M.Iterator):
            iterator = M.Iterator(self.sim.expr(iterator, self.instrs[head.start]))
        outer = ctx.loop.continue_to if ctx.loop is not None else None
        exits = self._exits(body, exit_b)
        later = [b for b in exits if self.blocks[b].offset > exit_off]
        if (
            not later
            and outer is not None
            and outer in exits
            and exit_b is not None
            and self.blocks[exit_b].fall != outer
        ):
            later = [outer]  # break jumps straight to the enclosing loop's next iteration
        break_to, else_b = (later[0], exit_b) if later else (exit_b, None)
        info = Loop(header, header, break_to, frozenset(body))
        target = M.LoopTarget()
        self.sim.pending.append(self.instrs[head.start].offset)
        inner = ctx.loop_body(info)
        statement_seq = self.sim.statement_seq
        stmts = self.walk(self.start_of(head.fall), inner, stack + [iterator] + slots + [target])
        if V.LAYOUT_IN_SOURCE_ORDER:
            self.legacy_mark_written_continues(stmts, header)
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
        if V.THREADS_JUMPS_ON_ONE_LINE_ONLY and self._tests_jump_to_jump_back(header, body):
            loop_node.uncompile_tests_below_item = True  # type: ignore[union-attr]  # see comprehensions
        if stack and hasattr(stack[-1], "uncompile_comprehension") and contains_item(stmts):
            comprehension = loop_to_comprehension(loop_node, None)
            result = next(
                (k for k in range(len(stack) - 1, -1, -1) if hasattr(stack[k], "uncompile_comprehension")),
                None,
            )
            if comprehension is None or result is None:
                raise self.fail(head.start, "comprehension")
            stack[result] = comprehension
            self.sim.order.tops.append(comprehension)  # computed now (see ComputationOrder)
            self.sim.pending = []
            # the statements of its body are none of the code's: the values computed before it
            # are as fresh as they were (``x, y = [..], [..]`` stores the first one last)
            self.sim.statement_seq = statement_seq
            return after
        self.sim.emit(loop_node)
        return after

    def _tests_jump_to_jump_back(self, header: int, body: Set[int]) -> bool:
        """(3.10 - 3.12) Whether a test in the for loop's *body* jumps to a lone jump back to *header*,
        not threaded to the header (over a jump of its own): the test is on another line than the
        code before that jump (a comprehension's element)."""
        blocks, instrs = self.blocks, self.instrs
        for b in body:
            block = blocks[b]
            target = block.jump
            if (
                target is not None
                and instrs[block.end - 1].op in V.CONDITIONAL_JUMPS
                and blocks[target].jump == header
                and self._lone_jump(target)
            ):
                return True
        return False

    def while_loop(
        self, header: int, body: set, ctx: Context, stack: List[Any], end: Optional[int] = None
    ) -> Optional[int]:
        """The ``while`` loop at *header* whose natural loop is *body* (laid out before offset *end*)."""
        head = self.blocks[header]
        # handler code of the body (3.12+ places it after the function) does not extend the body
        reach = self._reach_set(header)
        normal = [b for b in body if b in reach]
        last_source = max(self.blocks[b].offset for b in normal)
        test_exit = head.jump if self.instrs[head.end - 1].op in V.CONDITIONAL_JUMPS else None
        if test_exit is not None and self.blocks[test_exit].offset > last_source:
            # statements after the last jump back that only leave (``break``) are laid out
            # before where the test leaves
            last_source = self.blocks[test_exit].offset - 1
        hi = min(ctx.hi, last_source + 1, end if end is not None else ctx.hi)
        body |= {
            b.id
            for b in self.blocks_within(max(ctx.lo, head.offset), hi)
            if b.id in reach and self.instrs[b.start].op != "PUSH_EXC_INFO"
        }
        # a try body whose handler goes on with the loop belongs to it, also where its own end
        # leaves the loop (``try: ...; break``), with the jumps that only it reaches; where the
        # loop goes on only from except clauses, also the tries that only a clause reaches
        # (``while True: try: return f() except E: pass`` twice)
        # (before 3.11 no block has a try handler of its own: see _try_handler_blocks, _tries_inside)
        if V.HAS_EXCEPTION_TABLE:
            if not any(b in reach and b != header for b in body):
                reach = self._reach_set(header, raising=True)
            tried = {
                b.id
                for b in self.blocks_within(max(ctx.lo, head.offset + 1), ctx.hi)
                if b.id in reach and any(h in body for h in self._try_handler_blocks(b.id))
            }
            body |= tried
            inside, with_ends = self._tries_inside(head, body, ctx)
            body |= inside | self._only_after(inside, body) | with_ends
            body |= {  # (such a block follows one of them)
                b.id
                for b in {self.blocks[s] for t in tried for s in self.blocks[t].succs}
                if all(p in tried for p in b.preds)
                and b.end - b.start == 1
                and self.instrs[b.start].op == "JUMP"
            }
        body |= self._straight_line_ends(body)
        # where the test leaves when that is not its jump: the end of a chained comparison, or
        # (3.12 - 3.13) the lone jump back that an inverted test falls through to
        test_exit = self._exit_by_jump_back(head, body)
        if test_exit is None:
            test_exit = self._chain_exit(head)
        if V.DUPLICATES_WHILE_CONDITION:
            body -= self._jumps_before(head, body)
        outs = self._exits(body, None) or self._handler_exits(head, body)
        # where ``break`` goes on, rather than an exit that only raises (3.14+ lay out the
        # ``else: raise`` of an if in the body before the code after the loop)
        exit_b = next((b for b in outs if not self._only_raises(b)), outs[0]) if outs else None
        last = self.instrs[head.end - 1]
        break_to, else_b = exit_b, None
        if last.op in V.CONDITIONAL_JUMPS and (head.jump in outs or test_exit in outs):
            # where the test leaves (past a chained comparison's cleanup); an earlier exit is a
            # ``break`` written before it
            exit_b = head.jump if test_exit is None else test_exit
            break_to, else_b = self._while_else(frozenset(body), exit_b, ctx)
        info = Loop(header, header, break_to, frozenset(body))
        inner = ctx.loop_body(info)
        test: ast.expr = ast.Constant(value=True)
        start: Optional[int] = head.start
        if (
            last.op in V.CONDITIONAL_JUMPS
            and exit_b is not None
            and not (V.KEEPS_DEAD_CODE and self.legacy_threaded_last_break(head, body, exit_b))
        ):
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
                chain = None
                if isinstance(expr, ast.Compare) and work and work[-1] is expr.comparators[-1]:
                    chain = self.compare_chain(header, expr, False, work)  # ``while a < b < c``
                    if chain is None:
                        raise self.fail(head.end - 1, "comparison chain")
                node, fall = chain[:2] if chain else self._node(header, expr, head.end - 1, False)
                node.last, node.entry = node.entry, header
                node, top, fall = self._while_condition(node, fall, header, body, exit_b, stack)
                if node.false == exit_b:
                    test, start = node.expr, self.start_of(node.true)
                elif node.true == exit_b:
                    test, start = negate(node.expr), self.start_of(node.false)
                copied = self.bottom_test(header, node, fall, top) if V.DUPLICATES_WHILE_CONDITION else None
                if copied is not None and start == self.start_of(copied[1]):
                    # ``continue`` jumps back to this test, the end of the body to its copy
                    self._bottom_cuts[header] = copied[3]
                    self._copied_test_jumps[header] = (self.block_of[copied[3]], copied[1])
                    inner = inner._replace(until=copied[3])
                    stmts = self.walk(start, inner, list(stack), entering=True)
                    return self._emit_while(test, stmts, True, break_to, else_b, ctx, stack)
        stmts = self.walk(start, inner, list(stack), entering=start == head.start)
        if V.LAYOUT_IN_SOURCE_ORDER:
            self.legacy_mark_written_continues(stmts, header)
        # the end of the body would repeat the test there: a jump back to the test is ``continue``
        explicit = V.DUPLICATES_WHILE_CONDITION and start != head.start
        after = self._emit_while(test, stmts, explicit, break_to, else_b, ctx, stack)
        if after is None and V.KEEPS_DEAD_CODE:
            after = self.legacy_dead_code_after(body, ctx)  # statements after an endless loop
        return after

    def _exit_by_jump_back(self, head: Any, body: Set[int]) -> Optional[int]:
        """Where a ``while`` test inside an enclosing loop leaves, when the compiler inverted it
        (3.12, 3.13): the test jumps into the body on true and falls through to a block that only
        jumps back to the enclosing loop's header (laid out before the body); None otherwise."""
        if not V.DUPLICATES_WHILE_CONDITION or self.instrs[head.end - 1].op not in V.CONDITIONAL_JUMPS:
            return None
        fall = head.fall
        if (
            fall is None
            or head.jump not in body
            or not self._lone_jump(fall)
            or self.blocks[fall].preds != [head.id]
        ):
            return None
        to = self.blocks[fall].jump
        return fall if to is not None and self.blocks[to].offset < head.offset else None

    def _jumps_before(self, head: Any, body: Set[int]) -> Set[int]:
        """The blocks laid out in a loop's body that only jump back to before its header (to an
        enclosing loop's header: ``break``, or the test's exit): they leave the loop (3.10+, whose
        while loops jump back to their body's start from a copy of the test at the bottom)."""
        return {
            b
            for b in body
            if b != head.id
            and self._lone_jump(b)
            and self.blocks[b].jump is not None
            and self.blocks[self.blocks[b].jump].offset < head.offset
        }

    def _only_raises(self, block_id: int) -> bool:
        block = self.blocks[block_id]
        return not block.succs and self.instrs[block.end - 1].op in ("RAISE_VARARGS", "RERAISE")

    def _chain_exit(self, head: Any) -> Optional[int]:
        """Where a ``while`` test that is a chained comparison leaves the loop (None: the header
        tests no chain).

        The header's test jumps to the chain's cleanup (``POP_TOP`` of the kept operand, then a
        jump to the exit or a copy of it); the last link jumps to the exit itself.
        """
        cleanup = self.blocks[head.jump] if head.jump is not None else None
        if (
            cleanup is None
            or self.instrs[head.end - 2].op != "COMPARE_OP"
            or self.instrs[cleanup.start].op != "POP_TOP"
            or cleanup.preds != [head.id]
            or not (cleanup.end - cleanup.start == 2 and self.instrs[cleanup.end - 1].op == "JUMP")
            and self.instrs[cleanup.end - 1].op not in ENDS_PATH
        ):
            return None
        link = head.fall
        while link is not None and self.blocks[link].jump == cleanup.id:
            link = self.blocks[link].fall
        if link is None or self.instrs[self.blocks[link].end - 1].op not in V.CONDITIONAL_JUMPS:
            return None
        return self.blocks[link].jump

    def _straight_line_ends(self, body: Set[int]) -> Set[int]:
        """Blocks that end the function (``return``, ``raise``) run straight on from a body block
        (split from it where a try's range ends: ``while True: try: return f() ...``)."""
        found = set()
        for b in [self.blocks[x + 1] for x in body if x + 1 < len(self.blocks)]:
            if b.succs or b.id in body or b.preds != [b.id - 1]:
                continue
            before = self.blocks[b.id - 1]
            if before.fall == b.id and self.instrs[before.end - 1].target is None:
                found.add(b.id)
        return found

    def _tries_inside(self, head: Any, body: set, ctx: Context) -> Tuple[Set[int], Set[int]]:
        """The blocks of the try bodies that start inside a loop body: a try statement lies
        inside the loop, also where the rest of its body only leaves the loop (``while True:
        try: (if c: continue); rest finally: ...; break``, the rest laid out after the jump back);
        and the blocks of the with statements there, with their ends (:meth:`_with_end_inside`):
        the code a with body runs on into may be a ``break``'s, so no more is taken for them."""
        found: Set[int] = set()
        with_blocks: Set[int] = set()
        if not V.HAS_EXCEPTION_TABLE:
            return found, with_blocks
        targets = {
            entry.target for entry in map(self.handler_of, (self.blocks[b].offset for b in body)) if entry
        }
        at_header = self.handler_of(head.offset)
        holding = self._try_at_header(head, at_header) if at_header is not None else None
        for target in sorted(targets):
            entry = next(e for e in self.handlers if e.target == target)
            is_with = self.is_with_handler(entry)
            if not (is_with or self.is_try_handler(entry)):
                continue
            lo, hi = self.span(target, ("POP_EXCEPT",))
            if lo < head.offset or (holding is not None and holding.target == target):
                continue  # a try around the loop
            covered = {
                b.id
                for b in self.blocks_within(max(lo, ctx.lo), min(hi, ctx.hi))
                if self.instrs[b.start].op != "PUSH_EXC_INFO" and self._reach_normal(head.id, b.id)
            }
            if is_with:
                with_blocks |= covered - body | self._with_end_inside(target, covered, body)
            else:
                found |= covered - body
        return found, with_blocks

    def _with_end_inside(self, handler: int, covered: Set[int], body: set) -> Set[int]:
        """``while True: with l: (if c: continue) ...; return x``: the normal end of a with in a
        loop body whose code after it ends the function (no jump back: the loop's only one is
        the ``continue``), that is, the exit calls that the with body runs on into and go on
        there, and that code, where the with also goes on when its exit swallows the exception
        (3.12+: a copy of it after the exit calls). Where the code after the with goes on, it
        may be the code after the loop: left out."""
        resume = self._with_resumes_at(handler)
        after: Optional[int] = None
        if resume is not None:
            after = self.block_of[resume]
            block = self.blocks[after]
            if after in body or block.succs or self.instrs[block.start].offset != self.instrs[resume].offset:
                after = None
        ends: Set[int] = set()
        for b in {s for c in covered for s in self.blocks[c].succs} - body - covered:
            block = self.blocks[b]
            n = self.exit_call_at(block.start)
            if not n:
                continue
            if after is not None and self.block_of[self._through_jump(block.start + n)] == after:
                ends |= {b, after}
            elif (
                not block.succs and self.instrs[block.end - 1].op in ENDS_PATH and block.start + n < block.end
            ):
                ends.add(b)  # (3.12+ copy the code that ends the function to the with's end)
        return ends

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
            start = self.blocks[fall].start
            pure = self._pure(fall, start, stack) or self._pure_chain(fall, start, stack)  # type: ignore[attr-defined]
            if pure is None or pure[1] not in ("cond", "chain-cond"):
                break
            if pure[1] == "chain-cond":  # ``while x and a < b < c``
                new, fall = pure[0], pure[2]
            else:
                new, fall = self._node(fall, pure[0], pure[2], False)
            nodes.append(new)
            falls.append(fall)
        if len(nodes) == 1:
            return node, list(range(header, node.last + 1)), falls[0]
        reduced, sizes = reduce_nodes(nodes)
        head = reduced[0]
        if (
            isinstance(head.true, tuple)
            or isinstance(head.false, tuple)
            or exit_b not in (head.true, head.false)
        ):
            return node, [header], falls[0]
        return head, [n.entry for n in nodes[: sizes[0]]], falls[sizes[0] - 1]
