"""``try``/``except``/``finally`` and ``with`` from exception-handler regions (3.11+ layout).

A ``try`` body is the span of instructions whose handler is one target; the handler code
starts with ``PUSH_EXC_INFO`` and is either a chain of ``except`` clauses
(``CHECK_EXC_MATCH``) or a ``finally`` body ending in ``RERAISE 0``. The normal path of a
``finally`` runs a copy of its body, and so does every ``return``/``break`` inside the
``try``: :meth:`HandlerStructurer.skip_copies` recognizes those copies and skips them, as it
skips the ``__exit__(None, None, None)`` calls of ``with`` blocks. The facts about the
exception table these ask are in :mod:`.handler_regions`, the except clauses in
:mod:`.except_clauses`, ``with`` statements in :mod:`.with_statements`.
"""

from __future__ import annotations

import ast
from typing import Any, Dict, List, Optional, Set, Tuple, cast

from ..bytecode import versions as V
from ..bytecode.exception_table import parse_exception_table
from ..expressions import values as M
from .context import Context
from .except_clauses import ExceptClauses
from .except_star import ExceptStar
from .with_statements import WithStatements

#: Where :meth:`HandlerStructurer.skip_copies` can find something outside a finally body's copy
#: (the walker's hot loop asks it only there): a with-exit call and a clause's name cleanup start
#: with ``LOAD_CONST None``, an ``except*`` clause's exit (3.11+) is ``LIST_APPEND``.
COPY_START_OPS = frozenset({"LOAD_CONST", "LIST_APPEND"} if V.HAS_EXCEPTION_TABLE else {"LOAD_CONST"})


class HandlerStructurer(ExceptClauses, ExceptStar, WithStatements):
    """Mixin of :class:`~uncompile.structure.walker.Walker` for exception constructs."""

    code: Any
    sim: Any
    exit: Optional[int]
    walk: Any
    start_of: Any
    empty_tries: Dict[int, Any]  # tries with an empty body, by where they stand
    finally_exits: Set[int]  # where the copy of a finally body that its try falls through to starts

    # -- copies on the normal path -----------------------------------------------------

    def skip_copies(self, i: int, ctx: Context, stack: List[Any]) -> int:
        """How many instructions at *i* are a with-exit call or a finally copy (0: none)."""
        ins = self.instrs[i]
        if ins.op != "LOAD_CONST":
            return self.star_clause_exit(i) or self._finally_copy_length(i, ctx)
        if ins.arg[0] is not None:  # exit calls and clause name cleanups load None
            return self._finally_copy_length(i, ctx)
        if any(isinstance(v, M.WithExit) for v in stack):
            n = self.exit_call_at(i)
            if n:
                for k in range(len(stack) - 1, -1, -1):
                    if isinstance(stack[k], M.WithExit):
                        del stack[k]
                        if k < len(stack) and isinstance(stack[k], M.WithSelf):  # 3.14+
                            del stack[k]
                        break
                return n
        if ctx.except_name is not None and i + 2 < len(self.instrs):
            store, delete = self.instrs[i + 1], self.instrs[i + 2]
            if (
                store.op.startswith("STORE_")
                and delete.op.startswith("DELETE_")
                and store.arg == delete.arg == ctx.except_name
            ):
                return 3
        return self._finally_copy_length(i, ctx)

    def _finally_copy_length(self, i: int, ctx: Context) -> int:
        """The length of the copy of the innermost finally body starting at *i* (0: none)."""
        template = ctx.finally_bodies[0] if ctx.finally_bodies else None
        if template and self.instrs[i].op == template[0].op:
            return self.copy_length(i, template)
        return 0

    def starts_finally_copy(self, i: int, ctx: Context) -> bool:
        """Whether a copy of the innermost finally body starts at *i* (its nested try is part
        of the copy, not a statement)."""
        return any(template and self._matches(i, template) for template in ctx.finally_bodies[:1])

    def returns_from_body(self, block: Any, ctx: Context) -> bool:
        """Whether *block*, outside the region, is a ``return <constant>`` of the try (or with) body.

        A return leaves the handler's cover before it returns; where a test at the end of the
        body goes there on one side and out of the body on the other, the other side is the
        code after the try (unless it is the same return: the function's end, copied, or a
        ``continue``)."""
        if not V.HAS_EXCEPTION_TABLE or not ctx.active or not self._constant_return(block.id, ctx):
            return False
        for p in block.preds:
            pred = self.blocks[p]
            if not ctx.lo <= pred.offset < ctx.hi or self.instrs[pred.end - 1].op not in V.CONDITIONAL_JUMPS:
                continue
            other = pred.jump if pred.fall == block.id else pred.fall
            if (
                other is not None
                and not ctx.lo <= self.blocks[other].offset < ctx.hi
                and not (
                    self._constant_return(other, ctx)
                    and self._same_return(block.start, self.blocks[other].start)
                )
                # (nor a ``continue``, which leaves the with blocks for the next iteration)
                and not self.jumps_to_next_iteration(self._past_exit_calls(self.blocks[other].start), ctx)
            ):
                return True
        return False

    def _constant_return(self, block_id: int, ctx: Context) -> bool:
        """Whether the block is a ``return <constant>``, after the exits of the with blocks it
        leaves and the copy of the innermost finally body where it leaves a ``try``/``finally``
        (the constant is loaded after the copy)."""
        block = self.blocks[block_id]
        start = self._past_exit_calls(block.start)
        for template in ctx.finally_bodies[:1]:
            if template:
                start += self.copy_length(start, template)
        ops = [ins.op for ins in self.instrs[start : block.end]]
        return ops == ["LOAD_CONST", "RETURN_VALUE"]

    def continues_through_finally(self, i: int, ctx: Context) -> bool:
        """Whether a finally copy at *i* is followed by a jump to the loop's next iteration
        (``continue`` inside the try)."""
        loop = ctx.loop
        if i in self.finally_exits:  # the copy the body falls through to: the try ends there
            return False
        for template in ctx.finally_bodies[:1]:
            n = self.copy_length(i, template) if template else 0
            end = i + n
            if loop is None or not n or end >= len(self.instrs):
                continue
            jump = self.instrs[end]
            if jump.op == "JUMP" and self.block_of[self.index_at(jump.target)] == loop.continue_to:
                return True
        return False

    # -- try ------------------------------------------------------------------------------

    def try_statement(self, pos: int, entry: Any, ctx: Context, stack: List[Any]) -> Optional[int]:
        self._take_empty_try(entry)
        around = self.covering_try(entry)
        if around is not None and around.target not in ctx.active and self.is_try_handler(around):
            # an enclosing try covers the except clauses (and maybe no instruction of the body)
            entry = around
        if self.is_except_star(self.index_at(entry.target)):
            return self.try_except_star(pos, entry, ctx, stack)
        if self._is_except(self.index_at(entry.target)):
            return self.try_except(pos, entry, ctx, stack)
        return self.try_finally(pos, entry, ctx, stack)

    def _take_empty_try(self, entry: Any) -> None:
        """A try with an empty body is one statement: once walked, its place starts no other."""
        start: int = entry.start
        if self.empty_tries.get(start) is entry:
            del self.empty_tries[start]

    def try_finally(self, pos: int, entry: Any, ctx: Context, stack: List[Any]) -> Optional[int]:
        handler_index = self.index_at(entry.target)
        start, end = self._finally_template(handler_index)
        template = self._normal_copy(start, end)
        lo, hi = self.try_body_span(pos, entry.target, ("POP_EXCEPT",))
        if self._body_goes_past_region(lo, hi, entry.target, template):
            hi = entry.target  # it leaves the try only by jumps: its last copies are its own
        else:
            self.finally_exits.add(self._normal_exit_copy(lo, hi, template))
        inner = ctx.inside(lo, hi, entry.target)._replace(finally_bodies=(template,) + ctx.finally_bodies)
        body_stack = list(stack)
        body, after = self._try_body(pos, inner, body_stack)
        carry = getattr(self.sim, "carry_stack", None)  # Dynamo's code: values live across the region
        if carry is not None and after is not None:
            body += carry(body_stack, stack)
        final_ctx = ctx._replace(active=ctx.active | {entry.target})
        if self.blocks[self.block_of[end]].start == end:  # the branches of an if meet there
            final_ctx = final_ctx.stop_at(self.block_of[end])
        self.sim.pending.append(self.instrs[handler_index].offset)
        final = self._walk_until(start, end, final_ctx, stack + [M.Discard(), M.ExceptionValue()])
        self.sim.emit(with_finally(body, final))
        if after is None:
            return None
        if template:
            return after + self.copy_length(after, template)
        return after

    def _normal_exit_copy(self, lo: int, hi: int, template: List[Any]) -> int:
        """Where the copy of the finally body on the try body's normal exit starts.

        The copy the body falls through to, unless the body ends in a test that jumps past
        that copy to another: then the test's body, laid out first, leaves the try through
        the finally (``if c: continue``, whose copy leads to the loop's next iteration) and
        the other copy is where the rest of the body ends.
        """
        fall = self.index_at(hi)
        if not template or fall == 0 or fall >= len(self.instrs):
            return fall
        test = self.instrs[fall - 1]
        if test.op in V.CONDITIONAL_JUMPS and test.target is not None and test.target > hi:
            target = self.index_at(test.target)
            if self.copy_length(fall, template) and self.copy_length(target, template):
                return target
        return fall

    def _body_goes_past_region(self, lo: int, hi: int, handler: int, template: List[Any]) -> bool:
        """Whether a try body never falls through, so that the copy of the finally body at its
        region's end is not its normal exit but a ``continue``'s or a ``break``'s, statements of
        the body laid out between the region and the *handler* (uncovered: the region ends).

        * The copy leads to the loop's next iteration, and a jump out of the body leads to a
          later copy: a for loop whose else continues, then ``break`` or ``return``; the loop's
          breaks go on past the else to the rest of the body.
        * (3.11) The copy pops a for loop's iterator and jumps: a ``break``. The code after a
          try follows its handler there, so the normal exit's copy is followed by a jump.
        """
        fall = self.index_at(hi)
        n = self.copy_length(fall, template) if template and fall < len(self.instrs) else 0
        if not n:
            return False
        after = fall + n
        if self._jumps_back(after):
            later = self._later_copy(lo, hi, template)
            return later is not None and later < handler
        instrs = self.instrs
        return (
            not V.HANDLERS_IN_COMPILE_ORDER
            and after + 1 < len(instrs)
            and instrs[after].op == "POP_TOP"
            and instrs[after + 1].op == "JUMP"
            and instrs[after + 1].target is not None
            and instrs[after + 1].target > handler
        )

    def _jumps_back(self, i: int) -> bool:
        """Whether the instruction at *i* is a jump backward (a loop's next iteration)."""
        if i >= len(self.instrs):
            return False
        jump = self.instrs[i]
        return jump.op == "JUMP" and jump.target is not None and jump.target < jump.offset

    def _later_copy(self, lo: int, hi: int, template: List[Any]) -> Optional[int]:
        """The offset of the first copy of the finally body past the one at the region's end
        that a jump out of the body ``[lo, hi)`` leads to (None: none does)."""
        fall = self.index_at(hi)
        found: Optional[int] = None
        for k in range(self.index_at(lo), fall):
            ins = self.instrs[k]
            if ins.op == "JUMP" or (ins.op in V.CONDITIONAL_JUMPS and k < fall - 1):
                # (a test ending the region that jumps past the copy there: _normal_exit_copy)
                if ins.target is not None and ins.target > hi:
                    target = self.index_at(ins.target)
                    if self.copy_length(target, template) and (found is None or ins.target < found):
                        found = ins.target
        return found

    def _try_body(self, pos: int, inner: Context, stack: List[Any]) -> Tuple[List[ast.stmt], Optional[int]]:
        """The statements of a try body from *pos* (in the region *inner*), and where it goes
        on; an empty body (``try: pass``, a region of no instruction) goes on at *pos*."""
        if inner.lo >= inner.hi:
            return [], pos
        body = self.walk(pos, inner, stack, entering=True)
        return body, self.exit

    def _walk_until(self, start: int, end: int, ctx: Context, stack: List[Any]) -> List[ast.stmt]:
        """Statements of instructions ``[start, end)`` (a handler body)."""
        body = self.walk(start, ctx._replace(until=end, lo=-1, hi=1 << 60), stack, entering=True)
        return body

    def try_except(self, pos: int, entry: Any, ctx: Context, stack: List[Any]) -> Optional[int]:
        lo, hi = self.try_body_span(pos, entry.target, ("POP_EXCEPT", "COPY"))
        body, after = self._try_body(pos, ctx.inside(lo, hi, entry.target), list(stack))
        handler_index = self.index_at(entry.target)
        loop = ctx.loop
        clause_ctx = ctx
        if loop is not None and after is not None:
            # a clause's jump to the loop header (or exit) where the try's own end goes too is
            # the end of the try; to the header past statements after the try, a ``continue``
            ends = {self.block_of[after], self._jump_target(after)}
            if loop.continue_to in ends:
                clause_ctx = ctx.stop_at(loop.continue_to)
            else:
                clause_ctx = ctx._replace(stops=ctx.stops - {loop.continue_to})
            if loop.break_to in ends:
                clause_ctx = clause_ctx.stop_at(loop.break_to)
        loop_end = (
            loop.continue_to
            if loop is not None and after is not None and self._compiled_before_handler(after, entry.target)
            else None
        )
        if loop_end is not None:
            clause_ctx = clause_ctx.stop_at(loop_end)
        clauses, follow, continues = self._clauses(handler_index + 1, clause_ctx, stack)
        if (
            follow is None
            and continues
            and loop is not None
            and after is not None
            and self._breaks_at(after, loop)
        ):
            # the clauses go on to the next iteration, the body leaves the loop: its ``break``
            body.append(ast.Break())
            self.sim.emit(ast.Try(body=body, handlers=cast(Any, clauses), orelse=[], finalbody=[]))
            return self.start_of(loop.continue_to)
        if loop_end is not None and follow is None:
            # the clauses end the loop body; the code the body goes on to was compiled before
            # them: the try's ``else``, up to the end of the loop body
            else_body = self.walk(after, ctx.stop_at(loop_end), list(stack))
            self.sim.emit(
                ast.Try(
                    body=body or [ast.Pass()], handlers=cast(Any, clauses), orelse=else_body, finalbody=[]
                )
            )
            return self.exit
        if (
            loop is None
            and follow is None
            and after is not None
            and self._compiled_before_handler(after, entry.target)
        ):
            # (3.12+) no clause falls through, and the code the body goes on to has handlers laid
            # out before this try's: it was compiled before them, in the try's ``else`` (code after
            # the try would be compiled after the handlers)
            else_body = self.walk(after, ctx, list(stack))
            self.sim.emit(
                ast.Try(
                    body=body or [ast.Pass()], handlers=cast(Any, clauses), orelse=else_body, finalbody=[]
                )
            )
            return self.exit
        # a return leaving enclosing except clauses (and with blocks around them) first ends
        # them; a with's exit call right after the body is where the body falls through to
        ret = self._past_leaving_clauses(after) if after is not None else None
        if (
            after is not None
            and ret is not None
            and after != follow
            and self._returns_at(ret)
            and (
                lo <= self.instrs[after].offset < hi
                or (
                    self.instrs[ret].op in ("LOAD_CONST", "RETURN_CONST")
                    and not self._same_return(ret, follow)
                )
            )
        ):
            # the body's own ``return`` (a constant is loaded after the region ends, any other
            # value inside it); the same return after the clauses is the statement after the
            # try, copied into the body's exit, and a ``return name`` outside the body's range
            # (e.g. the statement after an enclosing ``if``, copied to the end of the branch
            # holding the try) stays after the try
            body = body + self.walk(after, ctx, list(stack), entering=True)
            after = None
        orelse: List[ast.stmt] = []
        if (
            follow is None
            and after is not None
            and V.VERSION[:2] == (3, 11)
            and after < handler_index
            and self.instrs[after].op != "JUMP"
            and not lo <= self.instrs[after].offset < hi
        ):
            # no clause falls through, yet the body's normal exit is laid out before the handlers:
            # an ``else`` (code after the try would follow the handlers)
            orelse = self.walk(after, ctx._replace(until=min(ctx.until, handler_index)), list(stack))
            after = follow = self.exit
            if orelse and not (len(orelse) == 1 and _implicit_return(orelse[0])):
                self.sim.emit(
                    ast.Try(
                        body=body or [ast.Pass()], handlers=cast(Any, clauses), orelse=orelse, finalbody=[]
                    )
                )
                return follow
            body_node = ast.Try(
                body=body or [ast.Pass()], handlers=cast(Any, clauses), orelse=[], finalbody=[]
            )
            self.sim.emit(body_node)
            for stmt in orelse:
                self.sim.emit(stmt)
            return follow
        if follow is None:
            follow = after
        if (
            after is not None
            and follow is not None
            and self._reraises_outer(after)
            and self._reraises_outer(follow)
        ):
            follow = after  # the body and the clauses go on to copies of one ``raise``
        if after is not None and follow is not None and after != follow:
            follow_block = self.block_of[follow]
            orelse = self.walk(after, ctx.stop_at(follow_block), list(stack))
        self.sim.emit(
            ast.Try(body=body or [ast.Pass()], handlers=cast(Any, clauses), orelse=orelse, finalbody=[])
        )
        return follow

    def _compiled_before_handler(self, i: int, target: int) -> bool:
        """Whether code from instruction *i* on (a try body's exit) was compiled before the try's
        handler at *target*: a handler of its own (a nested try, with or comprehension) is
        placed before that one.

        The table's own entries are read: an await's (``yield from``'s) ``CLEANUP_THROW``
        handler, which the instructions read away, is placed so too."""
        if not V.HANDLERS_IN_COMPILE_ORDER:
            return False
        start = self.instrs[i].offset
        entries = parse_exception_table(self.code.co_exceptiontable)
        cold = min(e.target for e in entries)  # the handlers follow all other code
        return any(start <= e.start < cold and e.target < target for e in entries)

    def _breaks_at(self, i: int, loop: Any) -> bool:
        """Whether the block starting at instruction *i* leaves *loop* (or only jumps there, or is a
        copy of the ``return`` after it)."""
        b = self.block_of[i]
        if self.blocks[b].start != i:
            return False
        target = self.blocks[b].jump if self._lone_jump(b) else None  # type: ignore[attr-defined]
        if self.is_break(b, loop) or (target is not None and self.is_break(target, loop)):  # type: ignore[attr-defined]
            return True
        # (3.12+) the jump to a small exit after the loop became a copy of it
        exit_block = loop.break_to
        return (
            V.COPIES_SMALL_EXITS
            and exit_block is not None
            and exit_block != b
            and self.copies_of_one_return(i, self.blocks[exit_block].start)
        )

    def _jump_target(self, i: int) -> int:
        """The block that instruction *i* leads to, through a block that only jumps."""
        block = self.blocks[self.block_of[i]]
        if (
            block.start == i
            and block.end - block.start == 1
            and self.instrs[i].op == "JUMP"
            and block.jump is not None
        ):
            return block.jump
        return block.id

    def _same_return(self, a: int, b: Optional[int]) -> bool:
        """Whether the ``return`` at *a* is a copy of the one at *b*."""
        return b is not None and self._returns_at(b) and self.copies_of_one_return(a, b)


def _implicit_return(stmt: ast.stmt) -> bool:
    """A bare ``return``/``return None`` (the function's end, copied into an exit)."""
    if not isinstance(stmt, ast.Return):
        return False
    value = stmt.value
    return value is None or (isinstance(value, ast.Constant) and value.value is None)


def with_finally(body: List[ast.stmt], final: List[ast.stmt]) -> ast.Try:
    """``try: body finally: final``; a body that is one try without ``finally`` takes it on
    (``try/except/finally`` is one statement in source)."""
    if len(body) == 1 and isinstance(body[0], ast.Try) and not body[0].finalbody:
        body[0].finalbody = final or [ast.Pass()]
        return body[0]
    return ast.Try(body=body or [ast.Pass()], handlers=[], orelse=[], finalbody=final or [ast.Pass()])
