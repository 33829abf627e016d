"""``if``/``elif``/``else`` statements (and ``assert``) from a conditional jump.

A mixin of :class:`~uncompile.structure.walker.Walker`. :class:`~.conditionals.Conditionals`
rebuilds the test; when it is not kept as a value, :meth:`IfStatements.if_statement` chooses the
branches (the body and the else) and where they end: the immediate post-dominator inside the
enclosing region (:mod:`.branch_follow`), adjusted for layouts where that is not where the
branches meet (3.8 - 3.10 keep the source order, loops, copied exits), and walks both.
"""

from __future__ import annotations

import ast
from typing import Any, List, Optional

from ..bytecode import versions as V
from ..expressions.conditions import Node, negate
from ..flow.cfg import ENDS_PATH
from .branch_follow import (
    TERMINAL,
    falls_to_outer_follow,
    first_shared_follow,
    is_added_jump_back,
    is_lone_continue,
    joined_before_continue,
    meets_at_next_iteration,
    past_forward_jumps,
    region_follow,
    returning_branch_follow,
)
from .cleanup import assertion_message
from .context import Context
from .copied_exits import exit_after_chain_cleanup
from .statements import same_tree


class IfStatements:
    """The ``if`` statements of the walker; uses the walker's graph, simulator and helpers."""

    _bottom_cuts: Any
    _pdoms: Any
    clause_tails: Any
    clause_exit_copies: Any
    _lone_jump: Any
    blocks: Any
    continue_ends_with_body: Any
    continues_from_with: Any
    exit: Any
    instrs: Any
    legacy_dead_jump: Any
    legacy_else_end: Any
    _legacy_lone_jump: Any
    legacy_body_ends_in_clauses: Any
    legacy_if_follow: Any
    legacy_if_jump: Any
    legacy_jumps_to_written_break: Any
    legacy_resume: Any
    legacy_threaded_jump: Any
    reaches: Any
    sim: Any
    skips_else: Any
    start_of: Any
    walk: Any

    def if_statement(
        self, block_id: int, head: Node, fall: Optional[int], ctx: Context, stack: List[Any]
    ) -> Optional[int]:
        if head.false == fall:
            test, then_b, else_b = negate(head.expr), head.false, head.true
        else:
            test, then_b, else_b = head.expr, head.true, head.false
        # (3.8 - 3.10) a jump threaded past a test, or the body of ``if c: continue``: inside a
        # loop, where the test falls into a block that only jumps
        threads = (
            V.LAYOUT_IN_SOURCE_ORDER
            and ctx.loop is not None
            and fall is not None
            and self._legacy_lone_jump(fall)
        )
        if threads and self.legacy_threaded_jump(fall, then_b, ctx):
            then_b = fall  # the ``continue``/``break`` written after the test, which it skips
        elif threads and self.legacy_threaded_jump(fall, else_b, ctx):
            # ``if not (a and b): continue``: the first test's jump went past the ``continue``
            test, then_b, else_b = negate(test), fall, then_b
        if threads and then_b == fall and else_b is not None:
            jumped = self.legacy_if_jump(test, then_b, else_b, ctx, stack)
            if jumped != -1:  # ``if c: continue`` / ``if c: break`` kept as written
                return jumped
        pdoms = self._pdoms.get(ctx.region)  # (region_follow's, once computed: no call)
        follow = region_follow(self, block_id, ctx) if pdoms is None else pdoms.get(block_id)
        if follow is not None:
            follow = past_forward_jumps(self, follow)
        if follow is not None and follow in (then_b, else_b) and not V.LAYOUT_IN_SOURCE_ORDER:
            other = else_b if follow == then_b else then_b
            if other is not None and not self.reaches(other, follow, ctx):
                follow = None  # post-dominating only because the other branch raises or returns
        if V.LAYOUT_IN_SOURCE_ORDER:
            follow = self.legacy_if_follow(block_id, then_b, else_b, fall, follow, ctx)
            if follow is not None and follow in self.clause_tails:
                follow = None  # (a clause's block past its end, which only raises: an else)
        elif follow is not None:
            follow = joined_before_continue(self, block_id, then_b, else_b, follow, ctx)
        if (
            (follow is None or (ctx.loop is not None and meets_at_next_iteration(self, follow, else_b, ctx)))
            and then_b is not None
            and else_b is not None
            and self.reaches(then_b, else_b, ctx)
        ):
            follow = else_b  # the body goes on there (also by a loop's break when its else continues)
        elif follow is None:
            follow = self.jump_past_else(block_id, else_b, ctx)
            if follow is None and not V.LAYOUT_IN_SOURCE_ORDER:
                # the body ends in an if that returns: the branches meet where both go on
                follow = returning_branch_follow(self, then_b, else_b, ctx)
                if follow is None:
                    # the body never falls through but leaves a loop of its own to where the else
                    # goes on too (its other paths return): no block post-dominates the test
                    follow = first_shared_follow(self, block_id, then_b, else_b, ctx)
            elif follow is None and self.legacy_body_ends_in_clauses(else_b):
                # (3.10) the body ends in a try whose clauses go on past the else, which no jump
                # past the else follows, and its body returns: no block post-dominates the test
                follow = first_shared_follow(self, block_id, then_b, else_b, ctx)
        loop = ctx.loop
        if (
            follow is None
            and loop is not None
            and V.LAYOUT_IN_SOURCE_ORDER
            and else_b in (loop.break_to, loop.continue_to)
            and then_b not in (loop.break_to, loop.continue_to)
            and not (V.LAYOUT_IN_SOURCE_ORDER and self.legacy_dead_jump(then_b, else_b))
            and not self.legacy_jumps_to_written_break(block_id, then_b, else_b, fall, ctx)
            and self._bottom_cuts.get(loop.header) != self.start_of(else_b)  # (3.10) the body's end
        ):
            test, then_b, else_b = negate(test), else_b, then_b
        if follow is None and not V.LAYOUT_IN_SOURCE_ORDER and is_added_jump_back(self, then_b, else_b, ctx):
            test, then_b, else_b = negate(test), else_b, then_b  # ``if c: return`` ends a loop body
        if follow is None:
            body_ctx = ctx.stop_at(else_b) if V.LAYOUT_IN_SOURCE_ORDER else ctx  # dead jumps lead there
            body = self.walk(self.start_of(then_b), body_ctx, list(stack))
            stopped = self.exit
            dead = self.legacy_else_end(then_b, else_b, ctx) if V.LAYOUT_IN_SOURCE_ORDER else None
            if dead is not None:
                orelse = self.walk(self.start_of(else_b), ctx.stop_at(dead), list(stack))
                self.sim.emit(_assert_or_if(test, body, orelse))
                return self.legacy_resume(dead)
            # (an enclosing statement's follow is one of the walk's stops)
            if else_b is not None and ctx.stops and falls_to_outer_follow(self, body, stopped, else_b, ctx):
                # the body goes on to an enclosing statement's follow: the other branch is an else
                orelse = self.walk(self.start_of(else_b), ctx, list(stack))
                self.sim.emit(_assert_or_if(test, body, orelse))
                return stopped
            if V.COPIES_EXITS_WITH_LINES and exit_after_chain_cleanup(self, else_b):
                # both branches end in the statement after the if: copied into the body, fallen into
                # from the else (``if a < b < c: x() else: y()`` then ``return``)
                orelse = self.walk(self.start_of(else_b), ctx, list(stack))
                shared = _shared_last(body, orelse)
                self.sim.emit(
                    _assert_or_if(test, body[: len(body) - len(shared)], orelse[: len(orelse) - len(shared)])
                )
                self.sim.out.extend(shared)
                return self.exit
            if else_b is not None and self.skips_else(body, else_b):
                orelse = self.walk(self.start_of(else_b), ctx, list(stack))
                self.sim.emit(_assert_or_if(test, body, orelse))
                return self.exit
            if else_b is not None and self._else_that_ends(body, stopped, else_b):
                orelse = self.walk(self.start_of(else_b), ctx, list(stack))
                self.sim.emit(_assert_or_if(test, body, orelse))
                return stopped
            self.sim.emit(_assert_or_if(test, body, []))
            return self.start_of(else_b)
        inner = ctx.stop_at(follow)
        # (the branches' starts looked up here, not by start_of calls: every if takes this path)
        then_start = None if then_b is None else self.blocks[then_b].start
        else_start = None if else_b is None else self.blocks[else_b].start
        body = self.walk(then_start, inner, list(stack)) if then_b != follow else []
        if not body and then_b != follow and self.continue_ends_with_body(then_b, ctx):
            body = [ast.Continue()]
        if (
            V.LAYOUT_IN_SOURCE_ORDER
            and then_b != follow
            and else_b == follow
            and ctx.stops
            and falls_to_outer_follow(self, body, self.exit, else_b, ctx)
        ):
            # 3.8 - 3.10: the body goes on to an enclosing statement's follow; the else raises
            stopped = self.exit
            orelse = self.walk(else_start, ctx, list(stack))
            self.sim.emit(_assert_or_if(test, body, orelse))
            return stopped
        orelse = self.walk(else_start, inner, list(stack)) if else_b != follow else []
        after = self._after_if(follow, self.exit if else_b != follow else None, ctx)
        if orelse and (
            (not body and is_lone_continue(self, then_b, follow, ctx))
            or self.continues_from_with(body, then_b)
        ):
            # ``if c: continue`` written before the rest of the loop body (leaving with blocks)
            self.sim.emit(ast.If(test=test, body=[ast.Continue()], orelse=[]))
            self.sim.out.extend(orelse)
            return after
        if not body and not (orelse and then_b != follow and self._passes_over_else(then_b, follow)):
            test, body, orelse = negate(test), orelse, []  # else: the body was ``pass``
        self.sim.emit(_assert_or_if(test, body, orelse))
        return after

    def _after_if(self, follow: int, stopped: Optional[int], ctx: Context) -> Optional[int]:
        """Where the walk goes on after an if whose branches meet at *follow*: where the else
        branch's walk *stopped* when the branches meet only past the region being walked (the
        else ran to its end: a with's exit, the next iteration after it)."""
        if stopped is not None and not ctx.lo <= self.blocks[follow].offset < ctx.hi:
            return stopped
        return self.blocks[follow].start

    def _passes_over_else(self, then_b: Optional[int], follow: int) -> bool:
        """Whether the if's body *then_b* (walked to nothing) is a ``pass`` kept as its jump past the else."""
        if V.LAYOUT_IN_SOURCE_ORDER or then_b is None:
            return V.LAYOUT_IN_SOURCE_ORDER
        block = self.blocks[then_b]
        return self._lone_jump(then_b) and block.jump == follow and self.blocks[follow].offset > block.offset

    def _else_that_ends(self, body: List[ast.stmt], stopped: Optional[int], else_b: int) -> bool:
        """Whether *else_b*, a block that ends the path (a ``raise``, a ``return``), is the if's
        ``else``: the body, walked, goes on elsewhere (an except clause's body to the clause's
        end: ``if a: (if b: x else: raise) else: raise``), so it is no code after the if."""
        block = self.blocks[else_b]
        return (
            stopped is not None
            and stopped != block.start
            and not (body and isinstance(body[-1], TERMINAL))
            and not block.succs
            and self.instrs[block.end - 1].op in ENDS_PATH
        )

    def jump_past_else(self, block_id: int, else_b: Optional[int], ctx: Context) -> Optional[int]:
        """Where the jump that ends the body of the if at *block_id* goes, past *else_b*; or None."""
        if else_b is None or else_b <= 0:
            return None
        before = self.blocks[else_b - 1]
        last = self.instrs[before.end - 1]
        # (3.10, 3.12+) a copy of an except clause's exit ends the body: it goes where its last
        # copy is, the clause's end, also in a loop where that copy leaves it (a return)
        copied = before.id in self.clause_exit_copies
        jump = self.clause_exit_copies[before.id] if copied else before.jump
        if (
            (last.op == "JUMP" or copied)
            and [ins.op for ins in self.instrs[before.start : before.end - 1]]
            != ["POP_TOP"]  # a chain's cleanup
            and jump is not None
            and before.offset >= self.blocks[block_id].offset
            and self.blocks[jump].offset > self.blocks[else_b].offset
            and (
                ctx.loop is None
                or copied
                or jump in ctx.loop.body
                and jump != ctx.loop.header
                or self._ends_clause_walked(jump, ctx)
            )
        ):
            return jump
        return None

    def _ends_clause_walked(self, b: int, ctx: Context) -> bool:
        """Whether block *b* starts with the ``POP_EXCEPT`` that ends the except clause being
        walked (3.11+: the clause's walk is cut just past it, see ExceptClauses._clause_body): a
        jump there ends an if's body, also in a loop that the code after the try leaves (a return)."""
        start = self.blocks[b].start
        return start + 1 == ctx.until and self.instrs[start].op == "POP_EXCEPT"


def _assert_or_if(test: ast.expr, body: List[ast.stmt], orelse: List[ast.stmt]) -> ast.stmt:
    """``if not x: raise AssertionError(msg)`` (from ``LOAD_ASSERTION_ERROR``) is ``assert x, msg``."""
    if len(body) == 1 and not orelse and isinstance(body[0], ast.Raise) and body[0].cause is None:
        is_assertion, msg = assertion_message(body[0].exc)
        if is_assertion:
            node = ast.Assert(test=negate(test), msg=msg)
            node.uncompile_offsets = getattr(body[0], "uncompile_offsets", ())  # type: ignore[attr-defined]
            return node
    return ast.If(test, body or [ast.Pass()], orelse)


def _shared_last(body: List[ast.stmt], orelse: List[ast.stmt]) -> List[ast.stmt]:
    """The last statement of *body* if *orelse* ends with the same one (and both hold more)."""
    if len(body) < 2 or len(orelse) < 2 or not same_tree(body[-1], orelse[-1]):
        return []
    return body[-1:]
