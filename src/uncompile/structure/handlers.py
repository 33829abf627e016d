"""``try``/``except``/``finally`` and ``with`` from exception-handler regions (3.11+ layout).

A ``try`` body is the span of instructions whose handler is one target; the handler code
starts with ``PUSH_EXC_INFO`` and is either a chain of ``except`` clauses
(``CHECK_EXC_MATCH``) or a ``finally`` body ending in ``RERAISE 0``. The normal path of a
``finally`` runs a copy of its body, and so does every ``return``/``break`` inside the
``try``: :meth:`HandlerStructurer.skip_copies` recognizes those copies and skips them, as it
skips the ``__exit__(None, None, None)`` calls of ``with`` blocks. The facts about the
exception table these ask are in :mod:`.handler_regions`.
"""

from __future__ import annotations

import ast
from typing import Any, List, Optional, Set, Tuple, cast

from ..bytecode import versions as V
from ..expressions import values as M
from .context import Context
from .handler_regions import HandlerRegions

_EXIT_CALL = ("LOAD_CONST", "LOAD_CONST", "LOAD_CONST", "CALL")


class HandlerStructurer(HandlerRegions):
    """Mixin of :class:`~uncompile.structure.walker.Walker` for exception constructs."""

    sim: Any
    exit: Optional[int]
    walk: Any
    finally_exits: Set[int]  # where the copy of a finally body that its try falls through to starts

    # -- copies on the normal path -----------------------------------------------------

    def skip_copies(self, i: int, ctx: Context, stack: List[Any]) -> int:
        """How many instructions at *i* are a with-exit call or a finally copy (0: none)."""
        ins = self.instrs[i]
        if ins.op == "LOAD_CONST" and ins.arg[0] is None and any(isinstance(v, M.WithExit) for v in stack):
            ops = tuple(x.op for x in self.instrs[i : i + 4])
            if ops == _EXIT_CALL and self.instrs[i + 3].arg[0] == V.WITH_EXIT_ARGC:
                n = 4
                if i + n < len(self.instrs) and self.instrs[i + n].op == "AWAIT":
                    n += 1
                if i + n < len(self.instrs) and self.instrs[i + n].op == "POP_TOP":
                    n += 1
                for k in range(len(stack) - 1, -1, -1):
                    if isinstance(stack[k], M.WithExit):
                        del stack[k]
                        if k < len(stack) and isinstance(stack[k], M.WithSelf):  # 3.14+
                            del stack[k]
                        break
                return n
        if ctx.except_name is not None and ins.op == "LOAD_CONST" and i + 2 < len(self.instrs):
            store, delete = self.instrs[i + 1], self.instrs[i + 2]
            if (
                store.op.startswith("STORE_")
                and delete.op.startswith("DELETE_")
                and store.arg == delete.arg == ctx.except_name
                and ins.arg[0] is None
            ):
                return 3
        for template in ctx.finally_bodies[:1]:
            if template and ins.op == template[0].op and self._matches(i, template):
                return len(template)
        return 0

    def starts_finally_copy(self, i: int, ctx: Context) -> bool:
        """Whether a copy of the innermost finally body starts at *i* (its nested try is part
        of the copy, not a statement)."""
        return any(template and self._matches(i, template) for template in ctx.finally_bodies[:1])

    def returns_from_body(self, block: Any, ctx: Context) -> bool:
        """Whether *block*, outside the region, is a ``return <constant>`` of the try body.

        A return leaves the handler's cover before it returns; where a test at the end of the
        body goes there on one side and out of the body on the other, the other side is the
        code after the try (unless it is the same return: the function's end, copied)."""
        if not V.HAS_EXCEPTION_TABLE or not ctx.active or not self._constant_return(block.id):
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
                    self._constant_return(other) and self._same_return(block.start, self.blocks[other].start)
                )
            ):
                return True
        return False

    def _constant_return(self, block_id: int) -> bool:
        block = self.blocks[block_id]
        ops = [ins.op for ins in self.instrs[block.start : block.end]]
        return ops == ["LOAD_CONST", "RETURN_VALUE"]

    def continues_through_finally(self, i: int, ctx: Context) -> bool:
        """Whether a finally copy at *i* is followed by a jump to the loop's next iteration
        (``continue`` inside the try)."""
        loop = ctx.loop
        if i in self.finally_exits:  # the copy the body falls through to: the try ends there
            return False
        for template in ctx.finally_bodies[:1]:
            end = i + len(template)
            if loop is None or not template or end >= len(self.instrs) or not self._matches(i, template):
                continue
            jump = self.instrs[end]
            if jump.op == "JUMP" and self.block_of[self.index_at(jump.target)] == loop.continue_to:
                return True
        return False

    def _matches(self, i: int, template: List[Any]) -> bool:
        if i + len(template) > len(self.instrs):
            return False
        for a, b in zip(self.instrs[i : i + len(template)], template):
            if a.op != b.op or (a.target is None and a.arg != b.arg):
                return False
        return True

    # -- with ---------------------------------------------------------------------------

    def with_statement(self, i: int, ctx: Context, stack: List[Any]) -> Optional[int]:
        if not V.HAS_EXCEPTION_TABLE:
            return self.legacy_with(i, ctx, stack)  # type: ignore[attr-defined]
        ins = self.instrs[i]
        self.sim.pending.append(ins.offset)
        manager = self.sim.pop_expr(stack, ins)
        is_async = i + 1 < len(self.instrs) and self.instrs[i + 1].op == "AWAIT"
        exit_marker = M.WithExit(manager, is_async)
        stack.append(exit_marker)
        stack.extend(M.WithSelf() for _ in range(V.WITH_EXIT_SLOTS - 1))
        j = i + 1 + (1 if is_async else 0)
        target: Optional[ast.expr] = None
        after = self.instrs[j]
        if after.op == "POP_TOP":
            j += 1
        else:
            slot = M.LoopTarget()
            saved = self.sim.out
            self.sim.out = []
            k = j
            work = [slot]
            while slot.target is None and k < len(self.instrs):
                self.sim.step(self.instrs[k], work)
                k += 1
            extra = self.sim.out
            self.sim.out = saved
            if extra:
                raise self.fail(j, "with target")
            target, j = slot.target, k
        # the handler that covers the target's store (or the POP_TOP) is the with's own: the
        # first body instruction may already be inside a nested try
        entry = self.handler_of(after.offset) or self.handler_of(self.instrs[j].offset)
        if entry is None:
            raise self.fail(j, "with body without handler")
        lo, hi = self.span(entry.target)
        body = self.walk(j, ctx.inside(lo, hi, entry.target), list(stack), entering=True)
        del stack[len(stack) - V.WITH_EXIT_SLOTS :]
        after_index = self.exit
        item = ast.withitem(context_expr=manager, optional_vars=target)
        node_type = ast.AsyncWith if is_async else ast.With
        self.sim.emit(node_type(items=[item], body=body or [ast.Pass()], type_comment=None))
        if after_index is None:
            return None
        ops = tuple(x.op for x in self.instrs[after_index : after_index + 4])
        if ops != _EXIT_CALL:
            return None
        n = 4 + (1 if is_async else 0)
        if self.instrs[after_index + n].op == "POP_TOP":
            n += 1
        return after_index + n

    # -- try ------------------------------------------------------------------------------

    def try_statement(self, pos: int, entry: Any, ctx: Context, stack: List[Any]) -> Optional[int]:
        around = self.covering_try(entry)
        if around is not None and around.target not in ctx.active and self.is_try_handler(around):
            # an enclosing try covers the except clauses (and maybe no instruction of the body)
            entry = around
        if self._is_except(self.index_at(entry.target)):
            return self.try_except(pos, entry, ctx, stack)
        return self.try_finally(pos, entry, ctx, stack)

    def try_finally(self, pos: int, entry: Any, ctx: Context, stack: List[Any]) -> Optional[int]:
        handler_index = self.index_at(entry.target)
        start, end = self._finally_template(handler_index)
        template = self._normal_copy(start, end)
        lo, hi = self.try_body_span(pos, entry.target, ("POP_EXCEPT",))
        self.finally_exits.add(self.index_at(hi))
        inner = ctx.inside(lo, hi, entry.target)._replace(finally_bodies=(template,) + ctx.finally_bodies)
        body_stack = list(stack)
        body = self.walk(pos, inner, body_stack, entering=True)
        after = self.exit
        carry = getattr(self.sim, "carry_stack", None)  # Dynamo's code: values live across the region
        if carry is not None and after is not None:
            body += carry(body_stack, stack)
        final_ctx = ctx._replace(active=ctx.active | {entry.target})
        self.sim.pending.append(self.instrs[handler_index].offset)
        final = self._walk_until(start, end, final_ctx, stack + [M.Discard(), M.ExceptionValue()])
        self.sim.emit(with_finally(body, final))
        if after is None:
            return None
        if template and self._matches(after, template):
            return after + len(template)
        return after

    def _walk_until(self, start: int, end: int, ctx: Context, stack: List[Any]) -> List[ast.stmt]:
        """Statements of instructions ``[start, end)`` (a handler body)."""
        body = self.walk(start, ctx._replace(until=end, lo=-1, hi=1 << 60), stack, entering=True)
        return body

    def try_except(self, pos: int, entry: Any, ctx: Context, stack: List[Any]) -> Optional[int]:
        lo, hi = self.try_body_span(pos, entry.target, ("POP_EXCEPT", "COPY"))
        body = self.walk(pos, ctx.inside(lo, hi, entry.target), list(stack), entering=True)
        after = self.exit
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
        clauses, follow = self._clauses(handler_index + 1, clause_ctx, stack)
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
            after is not None
            and after != follow
            and self._returns_at(after)
            and (
                lo <= self.instrs[after].offset < hi
                or (
                    self.instrs[after].op in ("LOAD_CONST", "RETURN_CONST")
                    and not self._same_return(after, follow)
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
        placed before that one."""
        if not V.HANDLERS_IN_COMPILE_ORDER:
            return False
        start = self.instrs[i].offset
        cold = min(e.target for e in self.handlers)  # the handlers follow all other code
        return any(start <= e.start < cold and e.target < target for e in self.handlers)

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
        if b is None or not self._returns_at(b):
            return False
        while self.instrs[a].op == self.instrs[b].op and self.instrs[a].arg == self.instrs[b].arg:
            if self.instrs[a].op == "RETURN_VALUE":
                return True
            a, b = a + 1, b + 1
        return False

    def _returns_at(self, i: int) -> bool:
        """Whether instructions from *i* only load a value and return it (a ``return x``)."""
        while i < len(self.instrs):
            op = self.instrs[i].op
            if op == "RETURN_VALUE":
                return True
            if not op.startswith("LOAD_") or self.instrs[i].target is not None:
                return False
            i += 1
        return False

    def _clauses(
        self, i: int, ctx: Context, stack: List[Any]
    ) -> Tuple[List[ast.excepthandler], Optional[int]]:
        clauses: List[ast.excepthandler] = []
        follow: Optional[int] = None
        base = stack + [M.Discard()]
        while i < len(self.instrs):
            ins = self.instrs[i]
            if ins.op == "RERAISE":
                break
            work = base + [M.ExceptionValue()]
            type_expr: Optional[ast.expr] = None
            name: Optional[str] = None
            next_clause: Optional[int] = None
            if ins.op == "POP_TOP":
                i += 1
            else:
                while self.instrs[i].op != "CHECK_EXC_MATCH":
                    self.sim.step(self.instrs[i], work)
                    i += 1
                type_expr = self.sim.pop_expr(work, self.instrs[i])
                jump = self.instrs[i + 1]
                next_clause = self.index_at(jump.target)
                i += 2
                store = self.instrs[i]
                if store.op.startswith("STORE_"):
                    name = store.arg
                i += 1
            work.pop()
            self.sim.pending = []
            clause_body, exit_index = self._clause_body(i, ctx, work, name, next_clause)
            if exit_index is not None and follow is None:
                follow = exit_index
            clauses.append(ast.ExceptHandler(type=type_expr, name=name, body=clause_body or [ast.Pass()]))
            if next_clause is None:
                break
            i = next_clause
        return clauses, follow

    def _clause_body(
        self, i: int, ctx: Context, stack: List[Any], name: Optional[str], next_clause: Optional[int]
    ) -> Tuple[List[ast.stmt], Optional[int]]:
        """Walk an except clause's body until its ``POP_EXCEPT`` on the normal path.

        The next clause's test (at *next_clause*) follows the clause: one that gets there
        without a ``POP_EXCEPT`` only raises or returns. A ``POP_EXCEPT`` of a ``return`` in the
        clause may come first: a later one that jumps on is the clause's end."""
        limit = len(self.instrs) if next_clause is None else next_clause
        end = self._clause_pop(i, limit)
        exit_index = self._clause_end(end + 1, name, ctx) if end < limit else None
        later = end
        while exit_index is None and later < limit:
            later = self._clause_pop(later + 1, limit)
            if later < limit and self.instrs[later + 1].op == "JUMP":
                end, exit_index = later, self._clause_end(later + 1, name, ctx)
        loop = ctx.loop
        if (
            exit_index is not None
            and loop is not None
            and exit_index < len(self.instrs)
            and self.block_of[exit_index] in (loop.continue_to, loop.break_to)
            and self.blocks[self.block_of[exit_index]].start == exit_index
        ):
            exit_index = None
        # a clause laid out past a bottom-tested loop's copied test still ends at its own end
        if exit_index is not None:
            until = end + 1
        else:  # the clause leaves by a return or raise: walked to its end
            until = ctx.until if ctx.until > i else max(limit, end + 1)
        body = self.walk(
            i, ctx._replace(until=until, except_name=name, lo=-1, hi=1 << 60), stack, entering=True
        )
        return body, exit_index

    def _clause_pop(self, i: int, limit: int) -> int:
        """The first ``POP_EXCEPT`` of the clause from *i* on (*limit*: none before it), nested
        handlers' own skipped."""
        depth = 0
        while i < limit:
            op = self.instrs[i].op
            if op == "PUSH_EXC_INFO":
                depth += 1
            elif op == "POP_EXCEPT" and self.instrs[i - 1].op != "COPY":
                if depth == 0:
                    return i
                depth -= 1
            i += 1
        return limit

    def _clause_end(self, k: int, name: Optional[str], ctx: Context) -> Optional[int]:
        """Where the normal path goes after a clause's ``POP_EXCEPT`` at ``k - 1``."""
        if name is not None:
            ops = [x.op for x in self.instrs[k : k + 3]]
            if len(ops) == 3 and ops[0] == "LOAD_CONST" and ops[2].startswith("DELETE_"):
                k += 3
        past = self._past_outer_handlers(k)
        if past != k and self._returns_at(past):
            return None  # a return from inside enclosing clauses
        for template in ctx.finally_bodies[:1]:  # a jump out of the clause runs the finally first
            if template and self.instrs[k].op == template[0].op and self._matches(k, template):
                if self._returns_at(k + len(template)):
                    return None  # a return from the clause, after the finally's copy
                if self.instrs[k + len(template)].op == "JUMP":
                    k += len(template)
        if k < len(self.instrs) and self.instrs[k].op == "JUMP":
            return self.index_at(self.instrs[k].target)
        after = k
        while after < len(self.instrs) and self.instrs[after].op == "SWAP":
            # a return from inside loops drops their iterators (SWAP n, n - 1 POP_TOPs) under the value
            dropped = self.instrs[after].arg - 1
            if [x.op for x in self.instrs[after + 1 : after + 1 + dropped]] != ["POP_TOP"] * dropped:
                break
            after += 1 + dropped
        if after == k and self._reraises_outer(k):
            return k  # the statement after the try (a small exit, copied to the clause's end)
        if after < len(self.instrs) and self.instrs[after].op in ("RETURN_VALUE", "RAISE_VARARGS"):
            return None
        if (
            k + 1 < len(self.instrs)
            and self.instrs[k].op == "LOAD_CONST"
            and self.instrs[k + 1].op == "RETURN_VALUE"
        ):
            return None
        return k if V.VERSION >= (3, 11) else None

    def _reraises_outer(self, k: int) -> bool:
        """A bare ``raise`` at *k*, after a clause's ``POP_EXCEPT``: it raises the exception of an
        enclosing clause, so it is code after the try."""
        ins = self.instrs[k] if k < len(self.instrs) else None
        return ins is not None and ins.op == "RAISE_VARARGS" and ins.arg == 0

    def _past_outer_handlers(self, k: int) -> int:
        """Skip the ``POP_EXCEPT`` of enclosing clauses that a ``return`` leaves (``SWAP 2;
        POP_EXCEPT`` when the returned value is on the stack)."""
        ops = [ins.op for ins in self.instrs]
        while k < len(ops):
            if ops[k] == "POP_EXCEPT":
                k += 1
            elif ops[k] == "SWAP" and ops[k + 1 : k + 2] == ["POP_EXCEPT"]:
                k += 2
            else:
                break
        return k


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
