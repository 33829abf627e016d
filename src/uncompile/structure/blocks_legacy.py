"""``try``/``except``/``finally`` and ``with`` from the block instructions of CPython 3.8 - 3.10.

Before exception tables, a ``try`` body starts with ``SETUP_FINALLY handler`` and a
``with`` body with ``SETUP_WITH handler``; every path out of the body pops the block with
``POP_BLOCK``. The compiler lays a statement out in source order: the body, its normal
exit (the *last* ``POP_BLOCK`` of the block in layout, followed by a jump or by the
``finally`` code), then the handler. Handlers are either a chain of ``except`` clauses
(``DUP_TOP; <type>; exception match; POP_JUMP_IF_FALSE next`` or three ``POP_TOP`` for a
bare ``except``), a ``finally`` body (ending in ``END_FINALLY`` on 3.8, ``RERAISE`` later),
or a ``with`` cleanup.

The interpreter's block stack before every instruction (:mod:`.block_stacks_legacy`) tells
which ``POP_BLOCK``/``POP_EXCEPT``/``END_FINALLY``/``RERAISE`` closes which block. The body
of each construct is then walked up to its normal exit with the ordinary walker.
"""

from __future__ import annotations

import ast
from typing import Any, Iterator, List, Optional, Tuple

from ..bytecode import versions as V
from ..expressions import values as M
from ..flow.cfg import ENDS_PATH
from .block_stacks_legacy import Block, LegacyBlockStacks
from .clauses_legacy import LegacyExceptClauses
from .context import Context
from .handlers import with_finally

#: Instructions that only leave blocks on the way to a ``return``.
_LEAVING = frozenset(
    {
        "CALL_FINALLY",
        "POP_FINALLY",
        "POP_BLOCK",
        "POP_EXCEPT",
        "BEGIN_FINALLY",
        "WITH_CLEANUP_START",
        "WITH_CLEANUP_FINISH",
        "SWAP",
        "ROT_THREE",
        "ROT_FOUR",
        "POP_TOP",
        "AWAIT",
    }
)


def _is_exit_call(instrs: List[Any], k: int) -> bool:
    """Whether a ``with``'s exit call ``LOAD_CONST None; COPY; COPY; CALL`` starts at *k*."""
    return (
        k + 3 < len(instrs)
        and instrs[k].op == "LOAD_CONST"
        and instrs[k + 1].op == instrs[k + 2].op == "COPY"
        and instrs[k + 3].op == "CALL"
    )


class LegacyBlocks(LegacyBlockStacks, LegacyExceptClauses):
    """Mixin of :class:`~uncompile.structure.walker.Walker` for 3.8 - 3.10 blocks (``except``
    clauses in :mod:`.clauses_legacy`)."""

    instrs: List[Any]
    blocks: List[Any]
    sim: Any
    exit: Optional[int]
    entered_with: bool

    def legacy_is_except(self, h: int) -> bool:
        """Whether the handler at index *h* is a chain of ``except`` clauses."""
        instrs = self.instrs
        if h + 2 < len(instrs) and instrs[h].op == instrs[h + 1].op == instrs[h + 2].op == "POP_TOP":
            return True
        if h < len(instrs) and instrs[h].op == "COPY" and instrs[h].arg == 1:
            for k in range(h + 1, len(instrs)):
                ins = instrs[k]
                if ins.op == "EXC_MATCH":
                    return True
                if ins.op.startswith("STORE_") or ins.op in ENDS_PATH:
                    return False  # a type may have jumps of its own (``except E if c else ():``)
        return False

    def _legacy_last(self, lo: int, hi: int, op: str, block: Block) -> Optional[int]:
        """The last *op* instruction in ``[lo, hi)`` that closes *block* (its index), or None."""
        instrs, stacks = self.instrs, self.block_stacks()
        for k in range(hi - 1, lo - 1, -1):
            if instrs[k].op == op:
                stack = stacks[k]
                if stack and stack[-1] == block:
                    return k
        return None

    def _legacy_first(self, lo: int, op: str, block: Block) -> Optional[int]:
        """The first *op* instruction from index *lo* on that closes *block*, or None."""
        for k in range(lo, len(self.instrs)):
            if self.instrs[k].op == op and self._legacy_top_is(k, block):
                return k
        return None

    def _legacy_returns_after(self, k: int, templates: Tuple[List[Any], ...] = ()) -> bool:
        """Whether the instructions from *k* only finish a ``return`` (after leaving blocks).

        Leaving blocks: the block bookkeeping, ``with`` exit calls, moving the return value
        below what is popped, (3.9+) the ``name = None; del name`` that leaves an ``except ...
        as name`` clause and copies of enclosing ``finally`` bodies, *templates*.
        """
        instrs = self.instrs
        while k < len(instrs):
            op = instrs[k].op
            if op in _LEAVING:
                k += 1
            elif op == "LOAD_CONST" and _is_exit_call(instrs, k):
                k += 4
            elif op == "LOAD_CONST" and k + 3 < len(instrs) and self._legacy_name_cleanup(k):  # type: ignore[attr-defined]
                k += 3
            else:
                n = 0
                for template in templates:
                    n = self.copy_length(k, template) if template else 0  # type: ignore[attr-defined]
                    if n:
                        break
                if not n:
                    break
                k += n
        if k < len(instrs) and instrs[k].op == "RETURN_VALUE":
            return True
        # a constant is loaded after leaving the blocks, any other value before (3.10 copies
        # a short tail like ``return x`` after a body's POP_BLOCK: that is no return inside)
        return k + 1 < len(instrs) and instrs[k].op == "LOAD_CONST" and instrs[k + 1].op == "RETURN_VALUE"

    def _legacy_breaks_before_dead_end(self, k: int, ctx: Context) -> bool:
        """Whether the instructions from *k*, after a with body's last reachable ``POP_BLOCK``,
        leave the with (its exit call) for a ``break`` of the loop being walked, which an
        unreachable ``POP_BLOCK`` follows: the with's own end, after a body that never reaches
        it (``while True: with m: (if c: return x); break``), so no normal end."""
        loop, instrs = ctx.loop, self.instrs
        if loop is None:
            return False
        while k < len(instrs) and instrs[k].op in _LEAVING:
            k += 1
        if _is_exit_call(instrs, k):  # (3.9: its result popped, then a for loop's iterator)
            k += 4
            while k < len(instrs) and instrs[k].op == "POP_TOP":
                k += 1
        if k + 1 >= len(instrs) or instrs[k].op != "JUMP" or instrs[k + 1].op != "POP_BLOCK":
            return False
        target = self.block_of[self.cfg.index_for(instrs[k].target)]
        return self.is_break(target, loop) and self.block_stacks()[k + 1] is None  # type: ignore[attr-defined]

    def legacy_copied_try_exit(self, k: int) -> bool:
        """Whether the ``POP_BLOCK`` at *k* leaves a ``try`` body into a copy of the code after it.

        3.10 copies the small exit block that follows a ``try`` (the ``finally`` body and a
        ``return``) into each branch of the body that falls off its end: such a branch ends
        in its own ``POP_BLOCK`` and the copy, which repeats what follows the body's last
        ``POP_BLOCK``. A ``return`` written in the body computes its value before the
        ``POP_BLOCK`` instead.
        """
        if not V.RETURN_COPIED_TO_BRANCHES or self.instrs[k].op != "POP_BLOCK":
            return False
        stack = self.block_stacks()[k]
        if not stack or stack[-1][0] != "try":
            return False
        setup = stack[-1][1]
        end = self._legacy_last(
            setup + 1, self.cfg.index_for(self.instrs[setup].target), "POP_BLOCK", stack[-1]
        )
        return end is not None and end > k and self._legacy_same_return(k + 1, end + 1)

    def _legacy_same_return(self, a: int, b: int) -> bool:
        """Whether the code at *a* and at *b* is the same straight run that computes and returns a value."""
        instrs = self.instrs
        n = 0
        while a + n < len(instrs) and instrs[a + n].op not in ENDS_PATH:
            if instrs[a + n].target is not None:
                return False
            n += 1
        if n == 0 or a + n >= len(instrs) or instrs[a + n].op != "RETURN_VALUE" or b + n >= len(instrs):
            return False
        last = instrs[a + n - 1].op
        if last in _LEAVING or last.startswith(("STORE_", "DELETE_")):
            return False  # the value was computed before leaving the blocks: a return written there
        if last == "LOAD_CONST":
            return False  # ``return None``: the walk treats it as a return (see _legacy_returns_after)
        return all(
            x.op == y.op and x.arg == y.arg for x, y in zip(instrs[a : a + n + 1], instrs[b : b + n + 1])
        )

    # -- walking ----------------------------------------------------------------------

    def _legacy_walk_to(
        self, start: int, end: Optional[int], ctx: Context, stack: List[Any], **changes: Any
    ) -> List[ast.stmt]:
        # not ``entering``: a body may start with a loop, whose header is the first block
        return self.walk(start, ctx.ending_at(end, changes), stack)  # type: ignore[attr-defined]

    def _legacy_walk_handler(
        self, start: int, end: int, ctx: Context, stack: List[Any], **changes: Any
    ) -> List[ast.stmt]:
        """The statements of a try's handler (a finally body, an except clause) from *start* up to
        *end*, also where the handler lies past the end of the enclosing walk.

        3.10 copies the small exit after a try (``return x``) into the end of its body, and lays
        the handlers of a try nested at the end of that body out after the copy: past the
        enclosing body's normal exit, where the walk of that body ends (the handler was lost).
        """
        if start >= ctx.until:
            ctx = ctx._replace(until=end)
        return self._legacy_walk_to(start, end, ctx, stack, **changes)

    # -- with ---------------------------------------------------------------------------

    def legacy_with(self, i: int, ctx: Context, stack: List[Any]) -> Optional[int]:
        instrs = self.instrs
        ins = instrs[i]
        self.sim.pending.append(ins.offset)
        is_async = ins.op == "BEFORE_WITH"
        s = i
        if is_async:
            if i + 2 >= len(instrs) or instrs[i + 1].op != "AWAIT" or instrs[i + 2].op != "SETUP_WITH":
                raise self.fail(i, "async with")  # type: ignore[attr-defined]
            s = i + 2
        manager = self.sim.pop_expr(stack, ins)
        stack.append(M.WithExit(manager, is_async))
        self.entered_with = True
        h = self.cfg.index_for(instrs[s].target)
        j = s + 1
        target: Optional[ast.expr] = None
        if instrs[j].op == "POP_TOP":
            j += 1
        else:
            slot = M.LoopTarget()
            saved = self.sim.out
            self.sim.out = []
            work: List[Any] = [slot]
            while slot.target is None and j < h:
                self.sim.step(instrs[j], work)
                j += 1
            extra, self.sim.out = self.sim.out, saved
            if extra or slot.target is None:
                raise self.fail(j, "with target")  # type: ignore[attr-defined]
            target = slot.target
        end = self._legacy_last(s + 1, h, "POP_BLOCK", ("with", s))
        normal = (
            end
            if end is not None
            and not self._legacy_returns_after(end + 1, ctx.finally_bodies)
            and not self._legacy_breaks_before_dead_end(end + 1, ctx)
            else None
        )
        body = self._legacy_walk_to(j, h if normal is None else normal, ctx, list(stack))
        stack.pop()
        item = ast.withitem(context_expr=manager, optional_vars=target)
        node_type = ast.AsyncWith if is_async else ast.With
        self.sim.emit(node_type(items=[item], body=body or [ast.Pass()], type_comment=None))
        return self._legacy_with_continuation(normal, h, is_async)

    def _legacy_with_continuation(self, normal: Optional[int], h: int, is_async: bool) -> Optional[int]:
        instrs = self.instrs
        if V.VERSION < (3, 9):
            closer = self._legacy_first(h, "END_FINALLY", ("wexc", h))
            return None if closer is None else closer + 1
        if normal is not None:
            k = normal + 1
            if _is_exit_call(instrs, k):
                k += 4 + (1 if is_async else 0)
                if k < len(instrs) and instrs[k].op == "POP_TOP":
                    k += 1
            if k < len(instrs) and instrs[k].op == "JUMP":
                return self.cfg.index_for(instrs[k].target)
            return k
        closer = self._legacy_first(h, "POP_EXCEPT", ("wexc", h))
        return None if closer is None else closer + 2

    # -- try ------------------------------------------------------------------------------

    def legacy_try(self, i: int, ctx: Context, stack: List[Any]) -> Optional[int]:
        setup = self.instrs[i]
        self.sim.pending.append(setup.offset)
        h = self.cfg.index_for(setup.target)
        if self.legacy_is_except(h):
            return self._legacy_try_except(i, h, ctx, stack)
        return self._legacy_try_finally(i, h, ctx, stack)

    def _legacy_body_end(self, i: int, h: int, templates: Tuple[List[Any], ...]) -> Optional[int]:
        end = self._legacy_last(i + 1, h, "POP_BLOCK", ("try", i))
        if end is None or self._legacy_returns_after(end + 1, templates):
            return None
        return end

    def _legacy_dead_exit_after(self, k: int, h: int) -> bool:
        """Whether an unreachable ``POP_BLOCK`` stands between *k* and the handler at *h*
        (3.8 - 3.9 keep dead code in place: a try body's normal exit after its last jump out)."""
        stacks = self.block_stacks()
        return V.KEEPS_DEAD_CODE and any(
            self.instrs[j].op == "POP_BLOCK" and stacks[j] is None for j in range(k + 1, h)
        )

    def _legacy_breaks_from_loop(self, k: int, template: List[Any]) -> bool:
        """Whether the ``POP_BLOCK`` at *k* and the copy of the finally body after it are a break
        out of an enclosing for loop (its iterator popped, then a jump): 3.10 lays the code after
        a try out after its handler, so a normal exit's copy is followed by a jump, or nothing."""
        if V.KEEPS_DEAD_CODE or not template:
            return False
        j = k + 1 + self.copy_length(k + 1, template)  # type: ignore[attr-defined]
        instrs = self.instrs
        return j + 1 < len(instrs) and instrs[j].op == "POP_TOP" and instrs[j + 1].op == "JUMP"

    def _legacy_finally_region(self, h: int) -> Iterator[int]:
        """The reachable instructions of the finally body at *h*, in layout order, up to the code
        after the statement: those under its block, and those of a ``return`` (or jump) that
        leaves the handler (``POP_EXCEPT``, 3.8: ``POP_FINALLY``) on the way out."""
        block = ("fin", h)
        stacks = self.block_stacks()
        leaving = False
        for k in range(h, len(self.instrs)):
            stack = stacks[k]
            if stack is None:
                continue
            op = self.instrs[k].op
            if leaving:
                leaving = op not in ENDS_PATH and op != "JUMP"
            elif block not in stack:
                return
            else:
                leaving = op in ("POP_EXCEPT", "POP_FINALLY") and stack[-1] == block
            yield k

    def _legacy_finally_end(self, h: int) -> Optional[int]:
        """The ``END_FINALLY``/``RERAISE`` that ends the finally body at *h* (None: none).

        The first one that closes its block, but 3.10 copies the ``RERAISE`` to the end of each
        branch that jumped to it (of an ``if``, or each exit of a ``try`` that ends the body):
        then the last one before the code after the statement.
        """
        closer = "END_FINALLY" if V.VERSION < (3, 9) else "RERAISE"
        block = ("fin", h)
        stacks = self.block_stacks()
        found = [
            k
            for k in self._legacy_finally_region(h)
            if self.instrs[k].op == closer and stacks[k] and stacks[k][-1] == block  # type: ignore[index]
        ]
        if not found:
            return None
        if V.RETURN_COPIED_TO_BRANCHES:
            return found[-1]
        return found[0]

    def _legacy_unfinished_finally_end(self, h: int) -> Optional[int]:
        """Where a finally body at *h* that never finishes (it ends in ``raise``/``return``) ends.

        3.8 - 3.9 keep its ``END_FINALLY``/``RERAISE``, dead, right after its last reachable
        instruction (the index of that closer is returned); 3.10 removes it (the index after that
        instruction is). None where the body holds blocks of its own, whose closers may be dead too.
        """
        stacks = self.block_stacks()
        last: Optional[int] = None
        for k in self._legacy_finally_region(h):
            if self.instrs[k].op.startswith("SETUP_"):
                return None
            last = k
        if last is None or self.instrs[last].op not in ENDS_PATH:
            return None
        if not V.KEEPS_DEAD_CODE:
            return last + 1
        closer = "END_FINALLY" if V.VERSION < (3, 9) else "RERAISE"
        end = last + 1
        dead_closer = end < len(self.instrs) and self.instrs[end].op == closer and stacks[end] is None
        return end if dead_closer else None

    def _legacy_try_finally(self, i: int, h: int, ctx: Context, stack: List[Any]) -> Optional[int]:
        instrs = self.instrs
        if (
            V.VERSION < (3, 9)
            and i > 0
            and instrs[i - 1].op == "LOAD_CONST"
            and stack
            and isinstance(stack[-1], ast.Constant)
        ):
            # 3.8: a return in the finally body keeps its value in a slot loaded before the try
            # (``None``, popped after the statement), no value of the source
            stack[-1] = M.Discard()
        found = self._legacy_finally_end(h)
        unfinished = found is None
        if found is None:
            found = self._legacy_unfinished_finally_end(h)
        if found is None:
            raise self.fail(h, "finally without its end")  # type: ignore[attr-defined]
        end = found
        template = instrs[h:end] if V.VERSION >= (3, 9) else []
        closes = ("fin", h)
        while template and template[-1].op == "RERAISE" and self._legacy_top_is(template[-1].index, closes):
            template = template[:-1]  # (3.10) a branch ending the body ends in a copy of the RERAISE
        normal = self._legacy_body_end(i, h, (template,) + ctx.finally_bodies)
        if normal is not None and (
            self._legacy_dead_exit_after(normal, h) or self._legacy_breaks_from_loop(normal, template)
        ):
            # the body never falls through: its normal exit (POP_BLOCK; 3.8: BEGIN_FINALLY,
            # 3.9: a copy of the finally body) is left dead after it, and the last reachable
            # POP_BLOCK is a break's or continue's, which runs the finally body on its way out
            # (it was taken for the body's end: the break was lost, or written after the try)
            normal = None
        bodies = (template,) + ctx.finally_bodies if template else ctx.finally_bodies
        body = self._legacy_walk_to(
            i + 1, h if normal is None else normal, ctx, list(stack), finally_bodies=bodies
        )
        self.sim.pending.append(instrs[h].offset)
        # (3.9+) the handler runs above the exception and the saved one: a return pops them
        held = [M.Discard() for _ in range(6)] if V.VERSION >= (3, 9) else []
        final = self._legacy_walk_handler(h, end, ctx, stack + held)
        self.sim.emit(with_finally(body, final))
        if unfinished and not V.KEEPS_DEAD_CODE:
            return None  # (3.10) nothing follows: the statement never finishes
        if normal is None or V.VERSION < (3, 9):
            return end + 1
        k = normal + 1
        if template:
            k += self.copy_length(k, template)  # type: ignore[attr-defined]
        if k < len(instrs) and instrs[k].op == "JUMP":
            return self.cfg.index_for(instrs[k].target)
        if unfinished and instrs[k - 1].op in ENDS_PATH:
            return None  # the copy returned: its handler follows
        return k
