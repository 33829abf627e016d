"""Layout rules of CPython 3.8 - 3.10 for branches and loops.

Before 3.11 the compiler lays statements out in source order and keeps some dead code, so
the layout itself says what was written: an unreachable jump after a branch shows an
``else``, a dead final ``return None`` shows where a body ended, a jump back to a loop's
header is a ``continue`` and one past its exit a ``break``. A mixin of
:class:`~uncompile.structure.walker.Walker`, beside :class:`.loops_legacy.LegacyLoopLayout`
(which blocks a loop holds) and :class:`.blocks_legacy.LegacyBlocks` (``try``/``with`` from the
block instructions).
"""

from __future__ import annotations

import ast
from typing import Any, List, Optional, Tuple

from ..bytecode import versions as V
from .branch_follow import first_shared_follow, joined_before_break
from .context import Context

#: ``with``'s exit call on leaving its body (``None`` three times) and the pop of its result.
_EXIT_CALL_AND_POP = ("LOAD_CONST", "COPY", "COPY", "CALL", "POP_TOP")


class LegacyLayout:
    """Branch layout rules for 3.8 - 3.10 (and the jumps of ``continue``/``break``); uses the
    walker's graph and helpers."""

    block_of: Any
    block_stacks: Any
    cfg: Any
    blocks: Any
    instrs: Any
    jump_past_else: Any
    legacy_final_return_at: int
    legacy_is_except: Any
    _legacy_setups: Any
    _matches: Any
    reaches: Any
    sim: Any
    walk: Any

    def legacy_loop_jump(self, pos: int, ctx: Context, stack: List[Any]) -> bool:
        """At a jump out of a block to the enclosing loop's header or exit: emit continue/break.

        Block bodies are walked up to their normal exit (``until``); a ``break`` or
        ``continue`` inside them jumps past it and must not end the walk silently.
        """
        if pos == self.legacy_final_return_at and self._legacy_dead_final_return(pos) and ctx != Context():
            return True  # inside a branch; at the top level it is the function's own end
        loop = ctx.loop
        if loop is None or (pos == ctx.until and self.block_of[pos] != loop.break_to):
            return False  # (a loop inside a block may end where the block's body does: a break)
        ident = self.block_of[pos]
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

    def legacy_copied_break(self, i: int, ctx: Context) -> bool:
        """Whether instruction *i* starts a ``break`` whose jump to the loop's exit was replaced by a copy.

        3.10 replaces a jump to a small block that returns by a copy of it: ``break`` out of a
        ``for`` loop becomes ``POP_TOP`` (the iterator) and the code after the loop; out of a
        ``while`` loop, that code right after leaving the blocks the ``break`` is in (or after
        the ``NOP`` that keeps its line). A ``return`` written there computes its value before
        popping the iterator or leaving the blocks (a constant's, loaded after, stays a return).
        """
        loop = ctx.loop
        if not V.RETURN_COPIED_TO_BRANCHES or loop is None or loop.break_to is None:
            return False
        end = self.blocks[self.block_of[i]].end
        if self.instrs[end - 1].op != "RETURN_VALUE":
            return False
        if self.instrs[self.blocks[loop.header].start].op == "FOR_ITER":
            if self.instrs[i].op != "POP_TOP":
                return False
            start = i + 1
        elif self._legacy_leaves_blocks_before(i, ctx.finally_bodies) and self.instrs[i].op != "LOAD_CONST":
            start = i
        else:
            return False
        exit_start = self.blocks[loop.break_to].start
        n = end - start
        if n < 1 or exit_start + n > len(self.instrs):
            return False
        return all(
            a.op == b.op and a.arg == b.arg and a.target is None
            for a, b in zip(self.instrs[start:end], self.instrs[exit_start : exit_start + n])
        )

    def _legacy_leaves_blocks_before(self, i: int, templates: Tuple[List[Any], ...]) -> bool:
        """Whether the instructions before *i* in its block leave ``try``/``with`` blocks (or are a ``NOP``).

        Leaving: ``POP_BLOCK``, ``POP_EXCEPT``, a clause's ``name = None; del name``, a
        ``with``'s exit call and the copies of enclosing ``finally`` bodies, *templates*.
        """
        instrs = self.instrs
        first = self.blocks[self.block_of[i]].start
        k = i
        left = False
        while k > first:
            if instrs[k - 1].op in ("POP_BLOCK", "POP_EXCEPT", "NOP"):
                k -= 1
                left = True
            elif k - 3 >= first and self._legacy_name_cleanup(k - 3):
                k -= 3
            elif k - 5 >= first and tuple(x.op for x in instrs[k - 5 : k]) == _EXIT_CALL_AND_POP:
                k -= 5
            else:
                copy = next(
                    (t for t in templates if t and k - len(t) >= first and self._matches(k - len(t), t)), None
                )
                if copy is None:
                    break
                k -= len(copy)
        return left

    def _legacy_name_cleanup(self, k: int) -> bool:
        """Whether ``name = None; del name`` (the end of ``except ... as name``) starts at *k*."""
        load, store, delete = self.instrs[k : k + 3]
        return (
            load.op == "LOAD_CONST"
            and load.arg[0] is None
            and store.op.startswith("STORE_")
            and delete.op.startswith("DELETE_")
            and store.arg == delete.arg
        )

    def legacy_jumps_to_written_break(
        self, block_id: int, then_b: Optional[int], else_b: Optional[int], fall: Optional[int], ctx: Context
    ) -> bool:
        """Whether the test of block *block_id* jumps straight to a ``break`` written after the if.

        3.10 keeps the jump of ``if not c: break`` (the ``break`` has a line of its own) but
        turns a ``break`` that only falls into the loop's exit into a line-numbered ``NOP``:
        a test that jumps straight to the exit past a body of its own is ``if c: body``
        followed by that ``break``.
        """
        loop = ctx.loop
        return (
            V.RETURN_COPIED_TO_BRANCHES
            and loop is not None
            and else_b == loop.break_to
            and then_b == fall
            and self.blocks[block_id].jump == else_b
            and loop.header is not None
            and self.instrs[self.blocks[loop.header].start].op != "FOR_ITER"
        )

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
            if (
                block.offset > start
                and not block.preds
                and block.end - block.start == 1
                and self.instrs[block.start].op == "JUMP"
                and block.jump == else_b
            ):
                return True
        return False

    def _legacy_lone_jump(self, block_id: int) -> bool:
        block = self.blocks[block_id]
        return block.end - block.start == 1 and self.instrs[block.start].op == "JUMP"

    def legacy_thread_exits(self, nodes: List[Any]) -> List[Tuple[Any, str, int, int]]:
        """Point condition exits at a lone jump block to that jump's target, when shared.

        ``if a or not b: break`` compiles ``b``'s false exit to the ``break`` (a block that
        only jumps to the loop exit) while the peephole optimizer sends ``a`` straight to
        the loop exit; seen through the jump, both exits are the same. Returns the exits changed
        (node, side, the lone jump it went to, the jump's target), for the caller to undo where
        they do not help.
        """
        blocks, instrs = self.blocks, self.instrs
        lone_jumps = []  # (node, side's name, the jump's target)
        for node in nodes:
            for name, side in (("true", node.true), ("false", node.false)):
                if not isinstance(side, int):
                    continue
                block = blocks[side]
                if (
                    block.end - block.start == 1
                    and len(block.preds) == 1
                    and instrs[block.start].op == "JUMP"
                ):
                    lone_jumps.append((node, name, block.jump))
        if not lone_jumps:
            return []  # (most conditions)
        exits = {side for node in nodes for side in (node.true, node.false) if isinstance(side, int)}
        changed = []
        for node, name, target in lone_jumps:
            if target in exits:
                changed.append((node, name, getattr(node, name), target))
                setattr(node, name, target)
        return changed

    def legacy_if_follow(
        self,
        block_id: int,
        then_b: Optional[int],
        else_b: Optional[int],
        fall: Optional[int],
        follow: Optional[int],
        ctx: Context,
    ) -> Optional[int]:
        """Where an ``if`` ends, given the post-dominator *follow*, by the 3.8 - 3.10 layout."""
        if then_b is None or else_b is None:
            return follow
        # (the dead jump past an else only matters where the paths meet at one of the branches)
        dead = self.legacy_dead_after(then_b, else_b, ctx) if follow in (then_b, else_b) else None
        if follow is not None and follow == then_b == fall and not self.reaches(else_b, follow, ctx):
            # the fall-through body is the if's body: it ends in return/raise (the jump target
            # comes after the if), or jumps past the else
            if self.legacy_passes(then_b, else_b):
                return self.legacy_join_after(then_b, else_b)
            # the body's own jump past the else stays behind, dead, after return/raise/continue
            return else_b if dead is None else self.blocks[dead].jump
        if follow == else_b and dead is not None:  # an else after a body ending in return/raise
            return self.blocks[dead].jump
        loop = ctx.loop
        if loop is not None and follow == loop.continue_to:
            # the branches meet only at the loop's header (some end in ``continue``): the
            # body's jump past the else shows where the if ends; without one, an else that
            # is the enclosing statement's follow is no else
            jumped = self.jump_past_else(block_id, else_b, ctx)
            if jumped is not None:
                return jumped
            if self.legacy_body_ends_in_clauses(else_b):
                # (3.10) the body ends in a try whose body continues, whose clauses go on past
                # the else: the branches meet there first
                shared = first_shared_follow(self, block_id, then_b, else_b, ctx)
                if shared is not None:
                    return shared
            if else_b in ctx.stops or self._legacy_goes_on_to_until(then_b, else_b, ctx):
                return else_b
            if self._legacy_continues(else_b - 1, ctx):
                return None  # the body ends in ``continue``: the if has no else
        if loop is not None and follow is not None and follow == loop.break_to:
            return joined_before_break(self, then_b, else_b, follow, ctx)
        return follow

    def legacy_body_ends_in_clauses(self, else_b: Optional[int]) -> bool:
        """Whether the body of an if, laid out before *else_b*, ends in a try's except clauses: the
        block before *else_b* is only the ``RERAISE`` of an exception that none of them matches (3.10).

        3.10 drops the body's jump past the else after such a try, unreachable: the clauses jump
        past the else themselves, and the handler, laid out last, ends the body. The branches
        meet where the clauses and the else go on, though that need not post-dominate the test
        (the try body returns or continues): the code after the if, once, not in each branch.
        """
        if V.KEEPS_DEAD_CODE or else_b is None or else_b < 1:
            return False
        block = self.blocks[else_b - 1]
        if block.end - block.start != 1 or self.instrs[block.start].op != "RERAISE":
            return False
        stack = self.block_stacks()[block.start]
        return bool(stack) and stack[-1][0] == "exc" and self.legacy_is_except(stack[-1][1])

    def _legacy_goes_on_to_until(self, then_b: int, else_b: int, ctx: Context) -> bool:
        """Whether only the code from *else_b* reaches where the walk ends (the end of a ``try``
        body, whose exit leads on): the body from *then_b* leaves (``continue`` through a ``finally``)."""
        if ctx.until >= len(self.instrs):
            return False
        until = self.block_of[ctx.until]
        return else_b == until or (self.reaches(else_b, until, ctx) and not self.reaches(then_b, until, ctx))

    def _legacy_continues(self, block_id: int, ctx: Context) -> bool:
        """Whether block *block_id* ends in a jump to a ``while`` loop's top that only ``continue`` makes.

        3.10 no longer sends a jump to the back edge of a ``while`` loop (which carries the
        ``while`` statement's line) straight to the loop's top, as 3.8 - 3.9 do.
        """
        loop = ctx.loop
        if V.THREADS_JUMPS_TO_WHILE_BACK_EDGE or loop is None:
            return False
        last = self.instrs[self.blocks[block_id].end - 1]
        return (
            last.op == "JUMP"
            and self.blocks[block_id].jump == loop.continue_to
            and self.instrs[self.blocks[loop.header].start].op != "FOR_ITER"
        )

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

    def legacy_threaded_jump(self, fall: Optional[int], then_b: Optional[int], ctx: Context) -> bool:
        """Whether block *fall*, after a test, is a ``continue``/``break`` that the test's jump to
        *then_b* was sent past (see :meth:`legacy_thread_exits`: ``if a or b: continue``)."""
        loop = ctx.loop
        if loop is None or fall is None or then_b is None or fall == then_b:
            return False
        block = self.blocks[fall]
        return (
            then_b in (loop.continue_to, loop.break_to)
            and self._legacy_lone_jump(fall)
            and block.jump == then_b
            and len(block.preds) == 1
        )

    def legacy_if_jump(
        self, test: ast.expr, then_b: int, else_b: int, ctx: Context, stack: List[Any]
    ) -> Optional[int]:
        """``if test: continue``/``break`` whose body is block *then_b*; -1 if it is not that.

        An ``else`` was written when an unreachable jump past it follows the body: the
        ``else`` is the code from *else_b*, or only a ``continue``/``break`` when the test
        jumps straight to the loop (its own jump then stays behind, dead, too).
        """
        jump_stmt = self.legacy_loop_jump_statement(then_b, ctx)
        if jump_stmt is None:
            return -1
        # an else ending the loop body: 3.8 - 3.9 send the dead jump past it to the header
        dead = self.legacy_dead_after(then_b, else_b, ctx if else_b > then_b else None)
        orelse: List[ast.stmt] = []
        resume = else_b
        if dead is not None:
            orelse = self.walk(self.blocks[else_b].start, ctx.stop_at(self.blocks[dead].jump), list(stack))
            resume = dead
            jump_stmt.uncompile_written = True  # type: ignore[attr-defined]  # an else follows it
        elif else_b < then_b:
            dead = self.legacy_dead_after(then_b, None)
            loop = ctx.loop
            if dead is not None and loop is not None and else_b in (loop.continue_to, loop.break_to):
                jump: ast.stmt = ast.Continue() if else_b == loop.continue_to else ast.Break()
                jump.uncompile_written = True  # type: ignore[attr-defined]  # its own jump stays, dead
                orelse = [jump]
                resume = dead
        self.sim.emit(ast.If(test=test, body=[jump_stmt], orelse=orelse))
        return self.blocks[resume].start

    def legacy_dead_after(
        self, then_b: int, else_b: Optional[int], ctx: Optional[Context] = None
    ) -> Optional[int]:
        """The unreachable jump past an ``else`` right after block *then_b* (see :meth:`legacy_else_end`).

        With *else_b*, the jump must lead past that block; with None, anywhere forward. With
        *ctx*, a jump to the loop's header counts too: 3.8 - 3.9 send the jump past an
        ``else`` that ends the loop's body straight to the header.
        """
        ident = then_b + 1
        if ident >= len(self.blocks) or (else_b is not None and ident >= else_b):
            return None
        block = self.blocks[ident]
        if (
            block.preds
            or block.end - block.start != 1
            or self.instrs[block.start].op != "JUMP"
            or block.jump is None
        ):
            return None
        to_header = ctx is not None and ctx.loop is not None and block.jump == ctx.loop.continue_to
        if block.jump <= (ident if else_b is None else else_b) and not to_header:
            return None
        return ident

    def legacy_else_end(self, then_b: Optional[int], else_b: Optional[int], ctx: Context) -> Optional[int]:
        """The dead ``JUMP`` block that ends an ``else`` starting at block *else_b*, or None.

        When an ``if``/``else`` whose branches both end in ``return``/``raise``/jumps closes
        the body of an outer ``if``, 3.8 - 3.10 keep the outer body's jump past its own
        ``else`` although nothing reaches it. Its presence shows the inner ``else`` was
        written (without one, the jump follows the return in one block and is removed).
        At the end of a function the dead block is the compiler's own ``return None``. An
        ``else`` that ends a loop body after a body ending in ``break``/``return`` is followed
        by the body's jump past it sent on to the loop's header, dead, right after the body.
        """
        if else_b is None or then_b is None or else_b <= then_b:
            return None
        loop = ctx.loop
        if loop is not None and else_b in (loop.break_to, loop.continue_to):
            return None  # the test leaves the loop: no else, and what follows is outside the body
        dead = self.legacy_dead_after(then_b, else_b, ctx)
        if dead is not None and loop is not None and self.blocks[dead].jump == loop.continue_to:
            return dead  # the else ends the loop body: the jump past it goes to the header (3.8 - 3.9)
        final_return = self.legacy_final_return_at
        for ident in range(else_b + 1, len(self.blocks)):
            block = self.blocks[ident]
            preds = block.preds
            if block.start >= ctx.until or (preds and (min(preds) < else_b or max(preds) >= ident)):
                return None  # (the walk ends before it: the end of a finally body, say)
            if not block.preds and block.end - block.start == 1 and self.instrs[block.start].op == "JUMP":
                if not self._legacy_skips_to(else_b, ident + 1) and not else_b <= block.jump < ident:
                    return ident
                continue  # it ends an inner ``if``'s body, or a loop in the else jumps back
            if block.start == final_return and self._legacy_dead_final_return(block.start):
                return ident
        return None

    def _legacy_skips_to(self, first: int, target: int) -> bool:
        """Whether a conditional jump in blocks *first* .. *target* - 1 goes to block *target*."""
        return any(
            self.blocks[b].jump == target and self.instrs[self.blocks[b].end - 1].op in V.CONDITIONAL_JUMPS
            for b in range(first, target)
        )

    def legacy_resume(self, dead: int) -> Optional[int]:
        """Where the walk goes after an ``else`` ended by the dead block *dead* (see above)."""
        start = self.blocks[dead].start
        return None if self._legacy_dead_final_return(start) else start

    def _legacy_dead_final_return(self, pos: int) -> bool:
        """Whether *pos* starts the implicit ``return None`` at the end of the code, unreached.

        3.8 - 3.9 keep it after an ``if``/``else`` whose branches all return; written out it
        would land in the last branch and compile to a second, reachable copy.
        """
        if pos != self.legacy_final_return_at:
            return False
        block = self.blocks[self.block_of[pos]]
        if V.KEEPS_DEAD_CODE and not self._legacy_setups:
            # (3.8, 3.9) without SETUP_* the block stacks only tell what the graph reaches, and
            # whether it reaches this return was found when the walk began: the stacks of every
            # instruction are not needed for it
            return block.start == pos and self.sim.explicit_final_return
        return block.start == pos and self.block_stacks()[pos] is None
