"""``try``/``except``/``finally`` and ``with`` from the block instructions of CPython 3.8 - 3.10.

Before exception tables, a ``try`` body starts with ``SETUP_FINALLY handler`` and a
``with`` body with ``SETUP_WITH handler``; every path out of the body pops the block with
``POP_BLOCK``. The compiler lays a statement out in source order: the body, its normal
exit (the *last* ``POP_BLOCK`` of the block in layout, followed by a jump or by the
``finally`` code), then the handler. Handlers are either a chain of ``except`` clauses
(``DUP_TOP; <type>; exception match; POP_JUMP_IF_FALSE next`` or three ``POP_TOP`` for a
bare ``except``), a ``finally`` body (ending in ``END_FINALLY`` on 3.8, ``RERAISE`` later),
or a ``with`` cleanup.

:meth:`LegacyBlocks.block_stacks` computes the interpreter's block stack before every
instruction by following the control flow (the first path to reach an instruction, in
layout order, decides), which tells which ``POP_BLOCK``/``POP_EXCEPT``/``END_FINALLY``/
``RERAISE`` closes which block. The body of each construct is then walked up to its
normal exit with the ordinary walker.
"""

from __future__ import annotations

import ast
import heapq
from typing import Any, List, Optional, Tuple

from ..bytecode import versions as V
from ..expressions import values as M
from ..flow.cfg import ENDS_PATH
from .context import Context
from .handlers import with_finally

Block = Tuple[str, int]  # (kind, index): "try"/"with" at a SETUP, "exc"/"fin"/"wexc" at a handler
Stacks = List[Optional[Tuple[Block, ...]]]

_EXIT_CALL_LEGACY = ("LOAD_CONST", "COPY", "COPY", "CALL")
#: Instructions that only leave blocks on the way to a ``return``.
_LEAVING = frozenset({
    "CALL_FINALLY", "POP_FINALLY", "POP_BLOCK", "POP_EXCEPT", "BEGIN_FINALLY", "WITH_CLEANUP_START",
    "WITH_CLEANUP_FINISH", "SWAP", "ROT_THREE", "ROT_FOUR", "POP_TOP", "AWAIT",
})


class LegacyBlocks:
    """Mixin of :class:`~uncompile.structure.walker.Walker` for 3.8 - 3.10 blocks."""

    instrs: List[Any]
    blocks: List[Any]
    sim: Any
    exit: Optional[int]
    _legacy_stacks: Optional[Stacks] = None

    # -- the block stack ----------------------------------------------------------------

    def _legacy_index(self, offset: int) -> int:
        return self.cfg.index_for(offset)  # type: ignore[attr-defined]

    def block_stacks(self) -> Stacks:
        """The block stack before each instruction (None where unreachable)."""
        if self._legacy_stacks is not None:
            return self._legacy_stacks
        instrs = self.instrs
        n = len(instrs)
        stacks: Stacks = [None] * n
        heap: List[int] = []

        def give(j: int, value: Tuple[Block, ...]) -> None:
            if 0 <= j < n and stacks[j] is None:
                stacks[j] = value
                heapq.heappush(heap, j)

        give(0, ())
        while heap:
            i = heapq.heappop(heap)
            here = stacks[i] or ()
            ins = instrs[i]
            op = ins.op
            if op in ("SETUP_FINALLY", "SETUP_WITH") and ins.target is not None:
                h = self._legacy_index(ins.target)
                if op == "SETUP_WITH":
                    give(h, here + (("wexc", h),))
                    give(i + 1, here + (("with", i),))
                else:
                    give(h, here + (("exc" if self.legacy_is_except(h) else "fin", h),))
                    give(i + 1, here + (("try", i),))
                continue
            after = here
            if op in ("POP_BLOCK", "POP_EXCEPT") or (
                    op == "END_FINALLY" and here and here[-1][0] in ("exc", "fin", "wexc")):
                after = here[:-1]
            if ins.target is not None:
                give(self._legacy_index(ins.target), after)
            if op in ENDS_PATH or op == "JUMP":
                continue
            give(i + 1, after)
        self._legacy_stacks = stacks
        return stacks

    def legacy_link_handlers(self) -> None:
        """Give each block ending in ``SETUP_*`` its handler as a successor.

        The handler is entered from anywhere in the body, but for the graph's purposes
        (reachability, loops, where statements merge) one edge from the set-up suffices
        and leaves the body's own branches alone.
        """
        for block in self.blocks:
            last = self.instrs[block.end - 1]
            if last.op.startswith("SETUP_") and last.target is not None:
                target = self.cfg.block_of_offset(last.target)  # type: ignore[attr-defined]
                if target is not None and target.id not in block.succs:
                    block.succs.append(target.id)
                    target.preds.append(block.id)

    def legacy_final_return_dead(self) -> bool:
        """Whether the code ends in an unreachable ``return None`` the compiler added (3.8, 3.9).

        Then a ``return None`` the walk produces last was written in the source.
        """
        n = len(self.instrs)
        if not V.KEEPS_DEAD_CODE or n < 3 or self.instrs[n - 1].op != "RETURN_VALUE" \
                or self.instrs[n - 2].op != "LOAD_CONST" or self.instrs[n - 2].arg[0] is not None:
            return False
        return self.block_stacks()[n - 2] is None

    def _legacy_top_is(self, i: int, block: Block) -> bool:
        stack = self.block_stacks()[i]
        return bool(stack) and stack[-1] == block  # type: ignore[index]

    def legacy_is_except(self, h: int) -> bool:
        """Whether the handler at index *h* is a chain of ``except`` clauses."""
        instrs = self.instrs
        if h + 2 < len(instrs) and all(instrs[h + k].op == "POP_TOP" for k in range(3)):
            return True
        if h < len(instrs) and instrs[h].op == "COPY" and instrs[h].arg == 1:
            for ins in instrs[h + 1:]:
                if ins.op == "EXC_MATCH":
                    return True
                if ins.target is not None or ins.op.startswith("STORE_") or ins.op in ENDS_PATH:
                    return False
        return False

    def _legacy_last(self, lo: int, hi: int, op: str, block: Block) -> List[int]:
        """Indices in ``[lo, hi)`` of *op* instructions that close *block*, last first."""
        return [k for k in range(hi - 1, lo - 1, -1)
                if self.instrs[k].op == op and self._legacy_top_is(k, block)]

    def _legacy_first(self, lo: int, op: str, block: Block) -> Optional[int]:
        """The first *op* instruction from index *lo* on that closes *block*, or None."""
        for k in range(lo, len(self.instrs)):
            if self.instrs[k].op == op and self._legacy_top_is(k, block):
                return k
        return None

    def _legacy_returns_after(self, k: int, templates: Tuple[List[Any], ...] = ()) -> bool:
        """Whether the instructions from *k* only finish a ``return`` (after leaving blocks).

        Leaving blocks: the block bookkeeping, ``with`` exit calls, moving the return value
        below what is popped, and (3.9+) copies of enclosing ``finally`` bodies, *templates*.
        """
        instrs = self.instrs
        while k < len(instrs):
            op = instrs[k].op
            if op in _LEAVING:
                k += 1
            elif tuple(x.op for x in instrs[k:k + 4]) == _EXIT_CALL_LEGACY:
                k += 4
            else:
                copy = next((t for t in templates if t and self._matches(k, t)), None)  # type: ignore[attr-defined]
                if copy is None:
                    break
                k += len(copy)
        if k < len(instrs) and instrs[k].op == "RETURN_VALUE":
            return True
        # a constant is loaded after leaving the blocks, any other value before (3.10 copies
        # a short tail like ``return x`` after a body's POP_BLOCK: that is no return inside)
        return k + 1 < len(instrs) and instrs[k].op == "LOAD_CONST" and instrs[k + 1].op == "RETURN_VALUE"

    # -- walking ----------------------------------------------------------------------

    def legacy_loop_jump(self, pos: int, ctx: Context, stack: List[Any]) -> bool:
        """At a jump out of a block to the enclosing loop's header or exit: emit continue/break.

        Block bodies are walked up to their normal exit (``until``); a ``break`` or
        ``continue`` inside them jumps past it and must not end the walk silently.
        """
        if ctx != Context() and self._legacy_dead_final_return(pos):
            return True  # inside a branch; at the top level it is the function's own end
        loop = ctx.loop
        if loop is None or pos == ctx.until:
            return False
        ident = self.block_of[pos]  # type: ignore[attr-defined]
        if self.blocks[ident].start != pos or ident in ctx.stops:
            return False
        if pos < ctx.until and ctx.lo <= self.blocks[ident].offset < ctx.hi:
            return False
        if ident == loop.continue_to:
            self.sim.emit(ast.Continue())
            return True
        if ident == loop.break_to:
            self.sim.emit(ast.Break())
            return True
        return False

    def legacy_dead_jump(self, then_b: Optional[int], else_b: int) -> bool:
        """Whether an unreachable ``JUMP`` to *else_b* follows the code from *then_b*.

        3.8 - 3.10 keep the jump of a ``break``/``continue`` written after an ``if`` whose
        body ends in a jump (``if c: ...; continue`` then ``break``): the test jumps
        straight to the loop exit and the statement's own jump stays behind, dead.
        """
        if then_b is None:
            return False
        start = self.blocks[then_b].offset
        for block in self.blocks:
            if block.offset > start and not block.preds and block.end - block.start == 1 \
                    and self.instrs[block.start].op == "JUMP" and block.jump == else_b:
                return True
        return False

    def legacy_loop_span(self, header: int, body: Any) -> Any:
        """The blocks laid out between a loop's header and its last block (3.8 - 3.10 layout).

        Code that leaves the loop with ``break``/``return`` (an ``except`` clause ending in
        ``break``) never reaches the back edge, yet sits inside the loop's span.
        """
        last = max(body)
        stacks = self.block_stacks()
        return {b for b in range(header, last + 1) if stacks[self.blocks[b].start] is not None}

    def legacy_loop_exits(self, body: Any, outs: Any) -> Any:
        """The blocks of *outs* a loop can really exit to: those with the header's block stack.

        A ``break`` leaves the blocks it is in before jumping, so a loop's exits have the
        block stack of its header; handler code reached only by an exception does not.
        Code after a loop is reached by a jump (the test, ``break``), never by falling
        through from the body (that is an ``if`` inside it ending in ``raise``/``return``).
        """
        if not body:
            return outs
        stacks = self.block_stacks()
        header = min(body, key=lambda b: self.blocks[b].offset)
        expected = stacks[self.blocks[header].start]
        return {s for s in outs if stacks[self.blocks[s].start] == expected
                and self.instrs[self.blocks[s].end - 1].op != "RERAISE"
                and any(self.blocks[p].jump == s for p in self.blocks[s].preds if p in body)}

    def legacy_thread_exits(self, nodes: List[Any]) -> None:
        """Point condition exits at a lone jump block to that jump's target, when shared.

        ``if a or not b: break`` compiles ``b``'s false exit to the ``break`` (a block that
        only jumps to the loop exit) while the peephole optimizer sends ``a`` straight to
        the loop exit; seen through the jump, both exits are the same.
        """
        exits = {side for node in nodes for side in (node.true, node.false) if isinstance(side, int)}
        for node in nodes:
            for name in ("true", "false"):
                side = getattr(node, name)
                if not isinstance(side, int):
                    continue
                block = self.blocks[side]
                if block.end - block.start == 1 and self.instrs[block.start].op == "JUMP" \
                        and len(block.preds) == 1 and block.jump in exits:
                    setattr(node, name, block.jump)

    def legacy_passes(self, start: int, limit: int) -> bool:
        """Whether the code from block *start* reaches a block laid out after block *limit*."""
        seen = {start}
        work = [start]
        while work:
            b = work.pop()
            if b > limit:
                return True
            for succ in self.blocks[b].succs:
                if succ not in seen and succ > start:
                    seen.add(succ)
                    work.append(succ)
        return False

    def legacy_join_after(self, then_b: int, else_b: int) -> Optional[int]:
        """The first block after *else_b* that the body from *then_b* jumps to: where the if ends."""
        seen = {then_b}
        work = [then_b]
        best: Optional[int] = None
        while work:
            b = work.pop()
            if b > else_b:
                best = b if best is None else min(best, b)
                continue
            for succ in self.blocks[b].succs:
                if succ not in seen and succ > then_b:
                    seen.add(succ)
                    work.append(succ)
        return best

    def legacy_loop_jump_statement(self, block_id: Optional[int], ctx: Context) -> Optional[ast.stmt]:
        """``continue``/``break`` when block *block_id* is nothing but a jump to the loop's header/exit."""
        loop = ctx.loop
        if loop is None or block_id is None:
            return None
        block = self.blocks[block_id]
        if block.end - block.start != 1 or self.instrs[block.start].op != "JUMP" or len(block.preds) != 1:
            return None
        if block.jump == loop.continue_to:
            return ast.Continue()
        if block.jump == loop.break_to:
            return ast.Break()
        return None

    def legacy_if_jump(self, test: ast.expr, then_b: int, else_b: int, ctx: Context,
                       stack: List[Any]) -> Optional[int]:
        """``if test: continue``/``break`` whose body is block *then_b*; -1 if it is not that.

        An ``else`` was written when an unreachable jump past it follows the body: the
        ``else`` is the code from *else_b*, or only a ``continue``/``break`` when the test
        jumps straight to the loop (its own jump then stays behind, dead, too).
        """
        jump_stmt = self.legacy_loop_jump_statement(then_b, ctx)
        if jump_stmt is None:
            return -1
        dead = self.legacy_dead_after(then_b, else_b)
        orelse: List[ast.stmt] = []
        resume = else_b
        if dead is not None:
            orelse = self.walk(self.blocks[else_b].start, ctx.stop_at(self.blocks[dead].jump),  # type: ignore
                               list(stack))
            resume = dead
        elif else_b < then_b:
            dead = self.legacy_dead_after(then_b, None)
            loop = ctx.loop
            if dead is not None and loop is not None and else_b in (loop.continue_to, loop.break_to):
                orelse = [ast.Continue() if else_b == loop.continue_to else ast.Break()]
                resume = dead
        self.sim.emit(ast.If(test=test, body=[jump_stmt], orelse=orelse))
        return self.blocks[resume].start

    def legacy_dead_after(self, then_b: int, else_b: Optional[int]) -> Optional[int]:
        """The unreachable jump past an ``else`` right after block *then_b* (see :meth:`legacy_else_end`).

        With *else_b*, the jump must lead past that block; with None, anywhere forward.
        """
        ident = then_b + 1
        if ident >= len(self.blocks) or (else_b is not None and ident >= else_b):
            return None
        block = self.blocks[ident]
        if block.preds or block.end - block.start != 1 or self.instrs[block.start].op != "JUMP" \
                or block.jump is None or block.jump <= (ident if else_b is None else else_b):
            return None
        return ident

    def legacy_else_end(self, then_b: Optional[int], else_b: Optional[int]) -> Optional[int]:
        """The dead ``JUMP`` block that ends an ``else`` starting at block *else_b*, or None.

        When an ``if``/``else`` whose branches both end in ``return``/``raise``/jumps closes
        the body of an outer ``if``, 3.8 - 3.10 keep the outer body's jump past its own
        ``else`` although nothing reaches it. Its presence shows the inner ``else`` was
        written (without one, the jump follows the return in one block and is removed).
        At the end of a function the dead block is the compiler's own ``return None``.
        """
        if else_b is None or then_b is None or else_b <= then_b:
            return None
        for ident in range(else_b + 1, len(self.blocks)):
            block = self.blocks[ident]
            if any(p < else_b or p >= ident for p in block.preds):
                return None
            if not block.preds and block.end - block.start == 1 and self.instrs[block.start].op == "JUMP":
                return ident
            if self._legacy_dead_final_return(block.start):
                return ident
        return None

    def legacy_resume(self, dead: int) -> Optional[int]:
        """Where the walk goes after an ``else`` ended by the dead block *dead* (see above)."""
        start = self.blocks[dead].start
        return None if self._legacy_dead_final_return(start) else start

    def _legacy_dead_final_return(self, pos: int) -> bool:
        """Whether *pos* starts the implicit ``return None`` at the end of the code, unreached.

        3.8 - 3.9 keep it after an ``if``/``else`` whose branches all return; written out it
        would land in the last branch and compile to a second, reachable copy.
        """
        instrs = self.instrs
        if pos == 0 or pos + 2 != len(instrs) or instrs[pos].op != "LOAD_CONST" \
                or instrs[pos].arg[0] is not None or instrs[pos + 1].op != "RETURN_VALUE":
            return False
        block = self.blocks[self.block_of[pos]]  # type: ignore[attr-defined]
        return block.start == pos and self.block_stacks()[pos] is None

    def _legacy_walk_to(self, start: int, end: Optional[int], ctx: Context, stack: List[Any],
                 **changes: Any) -> List[ast.stmt]:
        until = ctx.until if end is None else min(ctx.until, end)
        # not ``entering``: a body may start with a loop, whose header is the first block
        return self.walk(start, ctx._replace(until=until, **changes), stack)  # type: ignore[attr-defined]

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
        h = self._legacy_index(instrs[s].target)
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
        ends = self._legacy_last(s + 1, h, "POP_BLOCK", ("with", s))
        normal = ends[0] if ends and not self._legacy_returns_after(ends[0] + 1, ctx.finally_bodies) else None
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
            if tuple(x.op for x in instrs[k:k + 4]) == _EXIT_CALL_LEGACY:
                k += 4 + (1 if is_async else 0)
                if k < len(instrs) and instrs[k].op == "POP_TOP":
                    k += 1
            if k < len(instrs) and instrs[k].op == "JUMP":
                return self._legacy_index(instrs[k].target)
            return k
        closer = self._legacy_first(h, "POP_EXCEPT", ("wexc", h))
        return None if closer is None else closer + 2

    # -- try ------------------------------------------------------------------------------

    def legacy_try(self, i: int, ctx: Context, stack: List[Any]) -> Optional[int]:
        setup = self.instrs[i]
        self.sim.pending.append(setup.offset)
        h = self._legacy_index(setup.target)
        if i + 1 < len(self.instrs) and self.instrs[i + 1].op == "GET_ANEXT":
            raise self.fail(i, "async for")  # type: ignore[attr-defined]
        if self.legacy_is_except(h):
            return self._legacy_try_except(i, h, ctx, stack)
        return self._legacy_try_finally(i, h, ctx, stack)

    def _legacy_body_end(self, i: int, h: int, templates: Tuple[List[Any], ...]) -> Optional[int]:
        ends = self._legacy_last(i + 1, h, "POP_BLOCK", ("try", i))
        if not ends or self._legacy_returns_after(ends[0] + 1, templates):
            return None
        return ends[0]

    def _legacy_try_finally(self, i: int, h: int, ctx: Context, stack: List[Any]) -> Optional[int]:
        instrs = self.instrs
        closer = "END_FINALLY" if V.VERSION < (3, 9) else "RERAISE"
        found = self._legacy_first(h, closer, ("fin", h))
        if found is None:
            raise self.fail(h, "finally without its end")  # type: ignore[attr-defined]
        end = found
        template = instrs[h:end] if V.VERSION >= (3, 9) else []
        normal = self._legacy_body_end(i, h, (template,) + ctx.finally_bodies)
        bodies = (template,) + ctx.finally_bodies if template else ctx.finally_bodies
        body = self._legacy_walk_to(i + 1, h if normal is None else normal, ctx, list(stack),
                                    finally_bodies=bodies)
        self.sim.pending.append(instrs[h].offset)
        final = self._legacy_walk_to(h, end, ctx, list(stack))
        self.sim.emit(with_finally(body, final))
        if normal is None or V.VERSION < (3, 9):
            return end + 1
        k = normal + 1
        if template and self._matches(k, template):  # type: ignore[attr-defined]
            k += len(template)
        if k < len(instrs) and instrs[k].op == "JUMP":
            return self._legacy_index(instrs[k].target)
        return k

    def _legacy_try_except(self, i: int, h: int, ctx: Context, stack: List[Any]) -> Optional[int]:
        instrs = self.instrs
        normal = self._legacy_body_end(i, h, ctx.finally_bodies)
        body = self._legacy_walk_to(i + 1, h if normal is None else normal, ctx, list(stack))
        body_exit: Optional[int] = None
        if normal is not None:
            k = normal + 1
            body_exit = self._legacy_index(instrs[k].target) if instrs[k].op == "JUMP" else k
        clauses, afters, dead_afters = self._legacy_clauses(h, ctx, stack)
        follow = body_exit
        orelse: List[ast.stmt] = []
        if body_exit is not None and (afters or dead_afters) and body_exit not in afters:
            later = [a for a in afters + dead_afters if a > body_exit]
            if later:
                follow = min(later)
                stop = self.block_of[follow]  # type: ignore[attr-defined]
                orelse = self.walk(body_exit, ctx.stop_at(stop), list(stack))  # type: ignore[attr-defined]
        elif body_exit is None and afters:
            follow = afters[0]
        self.sim.emit(ast.Try(body=body or [ast.Pass()], handlers=clauses, orelse=orelse, finalbody=[]))
        return follow

    def _legacy_clauses(self, h: int, ctx: Context,
                        stack: List[Any]) -> Tuple[List[ast.ExceptHandler], List[int], List[int]]:
        instrs = self.instrs
        clauses: List[ast.ExceptHandler] = []
        afters: List[int] = []
        dead_afters: List[int] = []
        k = h
        while k < len(instrs):
            type_expr: Optional[ast.expr] = None
            name: Optional[str] = None
            next_k: Optional[int] = None
            if instrs[k].op == "COPY" and instrs[k].arg == 1:
                work = list(stack)
                j = k + 1
                while instrs[j].op != "EXC_MATCH":
                    self.sim.step(instrs[j], work)
                    j += 1
                type_expr = self.sim.pop_expr(work, instrs[j])
                next_k = self._legacy_index(instrs[j + 1].target)
                j += 2
                store = instrs[j + 1]
                if store.op.startswith("STORE_"):
                    name = store.arg
                j += 3
            elif all(instrs[k + n].op == "POP_TOP" for n in range(3)):
                j = k + 3
            else:
                break
            if name is not None and instrs[j].op == "SETUP_FINALLY":
                j += 1
            self.sim.pending = []
            limit = next_k if next_k is not None else self._legacy_chain_end(j)
            ends = self._legacy_last(j, limit, "POP_EXCEPT", ("exc", h))
            end = None
            if ends and self._legacy_clause_ends(self._legacy_skip_name_cleanup(ends[0] + 1, name), ctx,
                                                 limit):
                end = ends[0]
            clause_body = self._legacy_walk_to(j, limit if end is None else end, ctx,
                                               stack + [M.Discard(), M.Discard(), M.Discard()],
                                               except_name=name)
            if end is not None:
                q = self._legacy_skip_name_cleanup(end + 1, name)
                jumps = q < len(instrs) and instrs[q].op == "JUMP"
                afters.append(self._legacy_index(instrs[q].target) if jumps else q)
            else:
                dead_afters.extend(self._legacy_dead_clause_ends(j, limit))
            clauses.append(ast.ExceptHandler(type=type_expr, name=name, body=clause_body or [ast.Pass()]))
            if next_k is None:
                break
            k = next_k
        return clauses, afters, dead_afters

    def _legacy_chain_end(self, start: int) -> int:
        """Index just past the last (bare) clause starting at *start*: its dead re-raise (3.8, 3.9)."""
        stacks = self.block_stacks()
        if V.KEEPS_DEAD_CODE:
            for k in range(start, len(self.instrs)):
                if self.instrs[k].op in ("END_FINALLY", "RERAISE") and stacks[k] is None:
                    return k + 1
        return len(self.instrs)

    def _legacy_dead_clause_ends(self, start: int, limit: int) -> List[int]:
        """Where an unreachable ``POP_EXCEPT; JUMP`` left after a clause's ``break``/``return`` goes.

        The compiler still emits a clause's normal exit after its last statement; when that
        statement leaves (``break``), the exit stays, dead, and shows where the ``try``
        statement ends (past an ``else``).
        """
        stacks = self.block_stacks()
        for k in range(min(limit, len(self.instrs)) - 2, start - 1, -1):
            jump = self.instrs[k + 1]
            if self.instrs[k].op == "POP_EXCEPT" and stacks[k] is None and jump.op == "JUMP" \
                    and jump.target is not None and jump.target > self.instrs[k].offset:
                return [self._legacy_index(jump.target)]
        return []

    def _legacy_clause_ends(self, q: int, ctx: Context, limit: int) -> bool:
        """Whether a clause's last ``POP_EXCEPT``, followed by the code at *q*, is its normal end.

        Not when it only leads to a ``return``, or leaves more blocks or jumps to the loop's
        header or exit (a ``break``/``continue`` as the clause's last statement). Where dead
        code stays (3.8, 3.9) that is known for sure: the clause's real exit follows, dead.
        """
        if self._legacy_returns_after(q, ctx.finally_bodies):
            return False
        if q >= len(self.instrs):
            return True
        if V.KEEPS_DEAD_CODE:
            return not self._legacy_dead_clause_ends(q, limit)
        ins = self.instrs[q]
        if ins.op in ("POP_BLOCK", "CALL_FINALLY", "POP_FINALLY", "BEGIN_FINALLY"):
            return False
        loop = ctx.loop
        if ins.op == "JUMP" and loop is not None:
            return self.block_of[self._legacy_index(ins.target)] not in (  # type: ignore[attr-defined]
                loop.continue_to, loop.break_to)
        return True

    def _legacy_skip_name_cleanup(self, k: int, name: Optional[str]) -> int:
        """Past ``name = None; del name`` after an ``except ... as name`` clause (3.9+)."""
        instrs = self.instrs
        if name is not None and k + 2 < len(instrs) and instrs[k].op == "LOAD_CONST" \
                and instrs[k + 1].op.startswith("STORE_") and instrs[k + 2].op.startswith("DELETE_") \
                and instrs[k + 1].arg == name:
            return k + 3
        return k
