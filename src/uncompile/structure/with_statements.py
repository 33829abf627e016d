"""``with`` statements from exception-handler regions (3.11+ layout), and how a loop's
``continue`` leaves them.

The ``with`` body is the region whose handler is the exit's (``PUSH_EXC_INFO``,
``WITH_EXCEPT_START``); its normal end calls ``__exit__(None, None, None)``, which
:meth:`~uncompile.structure.handlers.HandlerStructurer.skip_copies` skips. A ``continue`` that
leaves with blocks runs their exit calls first, then jumps back to the loop.
"""

from __future__ import annotations

import ast
import dis
from typing import Any, List, Optional

from ..bytecode import versions as V
from ..expressions import values as M
from .context import Context

_NOP = dis.opmap["NOP"]


class WithStatements:
    """Mixin of :class:`~uncompile.structure.walker.Walker` for ``with`` statements."""

    code: Any
    sim: Any
    exit: Optional[int]
    entered_with: bool
    walk: Any
    instrs: Any
    blocks: Any
    block_of: Any
    fail: Any
    handler_of: Any
    span: Any
    index_at: Any
    exit_call_at: Any
    _past_exit_calls: Any
    _through_jump: Any

    def with_statement(self, i: int, ctx: Context, stack: List[Any]) -> Optional[int]:
        if not V.HAS_EXCEPTION_TABLE:
            return self.legacy_with(i, ctx, stack)  # type: ignore[attr-defined]
        ins = self.instrs[i]
        self.sim.pending.append(ins.offset)
        manager = self.sim.pop_expr(stack, ins)
        is_async = i + 1 < len(self.instrs) and self.instrs[i + 1].op == "AWAIT"
        exit_marker = M.WithExit(manager, is_async)
        self.entered_with = True
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
        node = node_type(items=[item], body=body or [ast.Pass()], type_comment=None)
        node.uncompile_handler = entry.target  # type: ignore[union-attr]
        self.sim.emit(node)
        if after_index is None:
            # the body never goes on (``with suppress(E): return x``): the code after the with
            # is where its exit goes on when it swallows the exception, when only that path
            # goes there (else it is an enclosing statement's follow: ``if c: (with ...:
            # return x)`` then more)
            resume = self._with_resumes_at(entry.target)
            if resume is None:
                return None
            block = self.blocks[self.block_of[resume]]
            if block.start != resume:  # (3.11: in the block of the path that swallows it)
                return resume if block.offset > entry.target else None
            if block.preds and all(self.blocks[p].offset > entry.target for p in block.preds):
                return resume
            return None
        n = self.exit_call_at(after_index)
        return after_index + n if n else None

    def skips_else(self, body: List[ast.stmt], else_b: int) -> bool:
        """Whether *body* (an if's, which does not reach *else_b*) ends with a with whose exit
        may swallow an exception and go on elsewhere than *else_b*: past an ``else``."""
        handler = getattr(body[-1], "uncompile_handler", None) if body else None
        if handler is None:
            return False
        resume = self._with_resumes_at(handler)
        return resume is not None and resume != self.blocks[else_b].start

    def _with_resumes_at(self, handler: int) -> Optional[int]:
        """Where the code after a with goes on when its exit at *handler* swallows the exception
        (a copy of a small exit stands in for a jump to it)."""
        i = self._suppressed_path(handler)
        if i is not None and self.instrs[i].op == "JUMP":
            return self.index_at(self.instrs[i].target)
        return i

    def _suppressed_path(self, handler: int) -> Optional[int]:
        """Where the with's exit at *handler* goes on when it swallows the exception, past the
        pops of the exception and the exit."""
        i = self.index_at(handler)
        while i < len(self.instrs) and self.instrs[i].op != "POP_JUMP_IF_TRUE":
            i += 1
        if i >= len(self.instrs):
            return None
        i = self.index_at(self.instrs[i].target)
        while i < len(self.instrs) and self.instrs[i].op in ("POP_TOP", "POP_EXCEPT"):
            i += 1
        return i if i < len(self.instrs) else None

    def jumps_to_next_iteration(self, i: int, ctx: Context) -> bool:
        """Whether a jump to the loop's next iteration is at *i*: after the exit calls of the
        with blocks it leaves, a ``continue``."""
        loop = ctx.loop
        if loop is None or i >= len(self.instrs) or self.instrs[i].op != "JUMP":
            return False
        return self.block_of[self.index_at(self.instrs[i].target)] == loop.continue_to

    def continues_from_body(self, block: Any, ctx: Context) -> bool:
        """Whether *block*, outside the region, leaves the with blocks (their exit calls) for the
        loop's next iteration where the with's own end does not go: a ``continue`` written last
        in the with body (the branch that runs on leaves by the with's exit too)."""
        loop = ctx.loop
        if loop is None or not ctx.active or not self.exit_call_at(block.start):
            return False
        past = self._past_exit_calls(block.start)
        if not self.jumps_to_next_iteration(past, ctx):
            return False
        target = self.index_at(self.instrs[past].target)
        for handler in ctx.active:
            resume = self._with_resumes_at(handler)
            if resume is not None and (resume == past or self._through_jump(resume) == target):
                return False  # the with's end goes there as well
        return True

    def continues_from_with(self, body: List[ast.stmt], block: Optional[int]) -> bool:
        """Whether *body*, walked from *block*, is only a ``continue`` leaving with blocks."""
        if block is None or len(body) != 1 or not isinstance(body[0], ast.Continue):
            return False
        return self.exit_call_at(self.blocks[block].start) > 0

    def continue_ends_with_body(self, block: Optional[int], ctx: Context) -> bool:
        """Whether *block*, past the with body being walked, is a ``continue`` written as the
        body's last statement (3.11+): the ``NOP`` on the continue's line stays the last
        instruction the with covers; the exit call and the jump back follow it, outside."""
        loop = ctx.loop
        if block is None or loop is None:
            return False
        start = self.blocks[block].start
        n = self.exit_call_at(start)
        if not n or start + n >= len(self.instrs) or self.instrs[start + n].op != "JUMP":
            return False
        jump = self.blocks[self.block_of[start + n]].jump
        nop = self.instrs[start].offset - 2
        if jump != loop.continue_to or nop < 0 or self.code.co_code[nop] != _NOP:
            return False
        entry = self.handler_of(nop)
        return entry is not None and entry.target in ctx.active
