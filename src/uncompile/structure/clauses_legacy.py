"""``except`` clauses of a ``try`` from the block instructions of CPython 3.8 - 3.10.

A mixin of :class:`~uncompile.structure.blocks_legacy.LegacyBlocks` (the block stack and
the walk up to a body's normal exit). The handler of a ``try``/``except`` is a chain of
clauses: ``DUP_TOP; <type>; exception match; POP_JUMP_IF_FALSE next`` (or three
``POP_TOP`` for a bare ``except``), the clause body, and its normal exit, ``POP_EXCEPT``
(3.9+: then ``name = None; del name`` after ``except ... as name``) and a jump past the
statement. A clause that leaves with ``break``/``continue``/``return`` jumps elsewhere; on
3.8 - 3.9 its own normal exit stays behind, dead, and shows where the statement ends.
"""

from __future__ import annotations

import ast
from typing import Any, Callable, Dict, FrozenSet, List, Optional, Tuple

from ..bytecode import versions as V
from ..expressions import values as M
from .context import Context


def copied_clause_exit_leaders(
    instrs: List[Any], ends: List[int], line_of: Callable[[int], Optional[int]]
) -> FrozenSet[int]:
    """The ``POP_EXCEPT``s of 3.10 code that start a copy of an except clause's exit, each of
    which starts a block of its own (among *ends*, the indices of the instructions that end a path).

    3.10 copies the small exit after a try (``return x``, ``raise E``) into a clause's exit, and
    that exit into each branch of the clause that jumps there (V.COPIES_CLAUSE_EXITS_THAT_END_PATH):
    two or more ``POP_EXCEPT``s followed by the same code that ends the path. A ``return`` written
    in the clause computes its value first (``ROT_FOUR`` moves it under the exception) or, for a
    constant, loads it after the ``POP_EXCEPT`` on the same line; a copy's code keeps the line of
    the statement after the try. Not a return from inside a ``for`` loop, which drops the iterator
    first (``POP_TOP``): the walk reads those copies as returns of the clause, as the loop's.
    """
    if not V.COPIES_CLAUSE_EXITS_THAT_END_PATH or V.HAS_EXCEPTION_TABLE:
        return frozenset()
    runs: Dict[Tuple[Tuple[str, Any], ...], List[int]] = {}
    for end in ends:
        k = end - 1
        while end - k <= V.LONGEST_COPIED_EXIT and k > 0 and instrs[k].target is None:
            if instrs[k].op == "POP_EXCEPT":
                if k < end - 1 and instrs[k - 1].op != "ROT_FOUR" and instrs[k + 1].op != "POP_TOP":
                    run = tuple((ins.op, ins.arg) for ins in instrs[k + 1 : end + 1])
                    runs.setdefault(run, []).append(k)
                break
            if instrs[k].op in _NOT_IN_COPIED_EXITS:
                break
            k -= 1
    leaders = [
        k
        for group in runs.values()
        if len(group) > 1
        for k in group
        if line_of(instrs[k].offset) != line_of(instrs[k + 1].offset)
    ]
    return frozenset(leaders)


#: Instructions that the small exit after a try (copied into a clause's exit) does not hold.
_NOT_IN_COPIED_EXITS = frozenset({"POP_BLOCK", "SETUP_FINALLY", "SETUP_WITH", "SETUP_ASYNC_WITH", "RERAISE"})


class LegacyExceptClauses:
    """``try``/``except``/``else`` for 3.8 - 3.10 on the block stack (see :mod:`.blocks_legacy`)."""

    instrs: List[Any]
    blocks: List[Any]
    block_of: Any
    sim: Any
    exit: Optional[int]
    _bottom_cuts: Any
    _clause_type: Any
    _clause_tails: Any
    clause_tails: Any
    clause_exit_copies: Dict[int, int]
    _pdoms: Any
    line_of: Any
    _legacy_body_end: Any
    cfg: Any
    _legacy_last: Any
    _legacy_returns_after: Any
    _legacy_same_return: Any
    _legacy_walk_to: Any
    _legacy_walk_handler: Any
    block_stacks: Any

    def _legacy_try_except(self, i: int, h: int, ctx: Context, stack: List[Any]) -> Optional[int]:
        instrs = self.instrs
        normal = self._legacy_body_end(i, h, ctx.finally_bodies)
        if normal is not None and self._legacy_dead_exit(i, h):
            normal = h - 2  # the body ends in break/continue: its own exit stays behind, dead
        body = self._legacy_walk_to(i + 1, h if normal is None else normal, ctx, list(stack))
        body_exit: Optional[int] = None
        if normal is not None:
            k = normal + 1
            body_exit = self.cfg.index_for(instrs[k].target) if instrs[k].op == "JUMP" else k
        clauses, afters, dead_afters = self._legacy_clauses(
            h, self._legacy_clause_context(body_exit, ctx), stack
        )
        if self._legacy_body_breaks(body_exit, afters, ctx):
            body.append(ast.Break())
            body_exit = None
        follow = body_exit
        orelse: List[ast.stmt] = []
        if body_exit is not None and V.RETURN_COPIED_TO_BRANCHES:
            afters = [self._legacy_original_return(a, body_exit) for a in afters]
            if afters and all(a < body_exit and self._legacy_same_return(a, a) for a in afters):
                # the clauses end in the only copy left of the return after the try: the else
                # ends in return/raise, so the original became unreachable and was dropped
                orelse = self._legacy_walk_to(body_exit, None, ctx, list(stack))
                if self.exit is None:
                    self.sim.emit(
                        ast.Try(body=body or [ast.Pass()], handlers=clauses, orelse=orelse, finalbody=[])
                    )
                    return afters[0]
        # (3.8 - 3.9: a clause ending in ``continue`` keeps its dead exit, which shows where the
        # try statement ends: past an ``else``, at the loop's next iteration)
        ends = afters or (dead_afters if V.KEEPS_DEAD_CODE else [])
        header = self._legacy_next_iteration(body_exit, ends, ctx)
        if header is not None and body_exit is not None:
            # the clauses' jumps past the else go on to the loop's next iteration: the else ends
            # the loop body
            orelse = self._legacy_walk_to(body_exit, None, ctx.stop_at(self.block_of[header]), list(stack))
            follow = header
        elif body_exit is not None and (afters or dead_afters) and body_exit not in afters:
            later = [a for a in afters + dead_afters if a > body_exit]
            if later and V.RETURN_COPIED_TO_BRANCHES and self._legacy_same_return(min(later), body_exit):
                later = []  # the clauses end in copies of the return after the try: no else
            if later:
                follow = min(later)
                stop = self.blocks[self.block_of[follow]]
                inner = ctx.stop_at(stop.id) if stop.start == follow else ctx  # else: a copied return
                orelse = self._legacy_walk_to(body_exit, follow, inner, list(stack))
        elif body_exit is None and afters:
            follow = afters[0]
        self.sim.emit(ast.Try(body=body or [ast.Pass()], handlers=clauses, orelse=orelse, finalbody=[]))
        return follow

    def _legacy_clause_context(self, body_exit: Optional[int], ctx: Context) -> Context:
        """The context the clauses are walked in: a jump to the loop's next iteration is a
        ``continue`` there, also where that is where the enclosing statement ends, when the
        try body goes on elsewhere (``if c: try: ... / except E: continue``, then the rest of
        the if's body, or the try's else: the jump skips it; as the if's end, the clause's
        ``continue`` was dropped and what it skips ran after the clause)."""
        loop = ctx.loop
        if loop is None or body_exit is None or loop.continue_to not in ctx.stops:
            return ctx
        if self.block_of[body_exit] == loop.continue_to:
            return ctx  # the try ends the loop body: its clauses fall off its end there too
        return ctx._replace(stops=ctx.stops - {loop.continue_to})

    def _legacy_body_breaks(self, body_exit: Optional[int], afters: List[int], ctx: Context) -> bool:
        """Whether the ``try`` body's exit to *body_exit* is a ``break`` that ends it (3.10).

        3.10 drops the unreachable exit after a body that ends in ``break``: the body's last
        jump goes to the loop's exit where no clause goes (an ``else: break`` keeps a jump of
        its own after the body's).
        """
        loop = ctx.loop
        return (
            not V.KEEPS_DEAD_CODE
            and body_exit is not None
            and loop is not None
            and loop.break_to is not None
            and body_exit == self.blocks[loop.break_to].start
            and body_exit not in afters
        )

    def _legacy_next_iteration(
        self, body_exit: Optional[int], afters: List[int], ctx: Context
    ) -> Optional[int]:
        """Where the loop's next iteration starts when every clause goes on there, past the
        ``else`` at *body_exit* (None otherwise).

        The jump past a ``try``'s ``else`` that ends a loop body is sent on to the loop's header;
        a clause ending in ``continue`` is no normal end (3.8 - 3.9: its own exit stays behind,
        dead; 3.10: a jump to the header is taken for one).
        """
        loop = ctx.loop
        if loop is None or body_exit is None or not afters:
            return None
        header = self.blocks[loop.continue_to].start
        if header < body_exit and all(a == header for a in afters):
            return header
        return None

    def _legacy_original_return(self, after: int, body_exit: int) -> int:
        """Where a clause that goes on at *after*, before the ``else`` at *body_exit*, really goes.

        3.10 copies a ``return`` that follows a ``try``/``except``/``else`` into the clause's
        exit; the original comes after the ``else``: the first copy of the same code there.
        """
        if after >= body_exit:
            return after
        for b in range(body_exit + 1, len(self.instrs)):
            if self.instrs[b].op == self.instrs[after].op and self._legacy_same_return(after, b):
                return b
        return after

    def _legacy_dead_exit(self, i: int, h: int) -> bool:
        """Whether the ``try`` body set up at *i* ends in an unreachable ``POP_BLOCK; JUMP`` (3.8, 3.9)."""
        return (
            V.KEEPS_DEAD_CODE
            and i < h - 2
            and self.instrs[h - 2].op == "POP_BLOCK"
            and self.instrs[h - 1].op == "JUMP"
            and self.block_stacks()[h - 2] is None
        )

    def _legacy_clauses(
        self, h: int, ctx: Context, stack: List[Any]
    ) -> Tuple[List[ast.ExceptHandler], List[int], List[int]]:
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
                j = self._clause_type(k + 1, ctx, work)
                type_expr = self.sim.pop_expr(work, instrs[j])
                next_k = self.cfg.index_for(instrs[j + 1].target)
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
            last = self._legacy_last(j, limit, "POP_EXCEPT", ("exc", h))
            end = None
            q = self._legacy_skip_name_cleanup(last + 1, name) if last is not None else len(instrs)
            copied_break = self._legacy_copied_loop_exit(q, ctx)
            copies = self._legacy_exit_copies(j, last, h) if last is not None else []
            if last is not None and (copied_break or copies or self._legacy_clause_ends(q, ctx, limit, name)):
                end = last
                self._legacy_take_exit_copies(copies, last)
                self.clause_tails |= self._clause_tails(j, end, limit)  # (an ``else: raise`` past the end)
            clause_body = self._legacy_walk_handler(
                j,
                limit if end is None else end,
                ctx,
                stack + [M.Discard(), M.Discard(), M.Discard()],
                except_name=name,
            )
            if copied_break:
                clause_body.append(ast.Break())
            elif end is not None:
                jumps = q < len(instrs) and instrs[q].op == "JUMP"
                afters.append(self.cfg.index_for(instrs[q].target) if jumps else q)
            else:
                dead_afters.extend(self._legacy_dead_clause_ends(j, limit, name))
            clauses.append(ast.ExceptHandler(type=type_expr, name=name, body=clause_body or [ast.Pass()]))
            if next_k is None:
                break
            k = next_k
        return clauses, afters, dead_afters

    def _legacy_exit_copies(self, start: int, last: int, h: int) -> List[int]:
        """The blocks of the copies of a clause's exit before its last ``POP_EXCEPT`` at *last*,
        when that is one too (3.10: the code after the try that ends the path, copied into each
        branch of the clause that jumps to its exit, see :func:`copied_clause_exit_leaders`):
        the clause ends at *last* also where that code is a ``return`` of a constant."""
        blocks, block_of, instrs = self.blocks, self.block_of, self.instrs
        if not self._legacy_copied_exit_at(last):
            return []
        run = [(ins.op, ins.arg) for ins in instrs[last + 1 : blocks[block_of[last]].end]]
        stacks = self.block_stacks()
        return [
            block_of[k]
            for k in range(start, last)
            if self._legacy_copied_exit_at(k)
            and [(ins.op, ins.arg) for ins in instrs[k + 1 : blocks[block_of[k]].end]] == run
            and stacks[k]
            and stacks[k][-1] == ("exc", h)
        ]

    def _legacy_copied_exit_at(self, k: int) -> bool:
        """Whether a copy of a clause's exit starts at *k* (3.10): a ``POP_EXCEPT`` that starts a
        block (see :func:`copied_clause_exit_leaders`), whose next instruction, the first of the
        code after the try copied there, has a line of its own."""
        instrs = self.instrs
        return (
            instrs[k].op == "POP_EXCEPT"
            and self.blocks[self.block_of[k]].start == k
            and k + 1 < len(instrs)
            and self.line_of(instrs[k].offset) != self.line_of(instrs[k + 1].offset)
        )

    def _legacy_take_exit_copies(self, copies: List[int], last: int) -> None:
        """Take the copies of a clause's exit, *copies*, for jumps to its last one at *last*: the
        walker goes on there (clause_exit_copies), where the clause ends."""
        own = self.block_of[last]
        known = self.clause_exit_copies
        if copies and any(known.get(b) != own for b in copies):
            known.update((b, own) for b in copies)
            self._pdoms.clear()  # (the copies now lead to the last one: see region_follow)

    def _legacy_chain_end(self, start: int) -> int:
        """Index just past the last (bare) clause starting at *start*: its dead re-raise (3.8, 3.9)."""
        stacks = self.block_stacks()
        if V.KEEPS_DEAD_CODE:
            for k in range(start, len(self.instrs)):
                if self.instrs[k].op in ("END_FINALLY", "RERAISE") and stacks[k] is None:
                    return k + 1
        return len(self.instrs)

    def _legacy_dead_clause_ends(self, start: int, limit: int, name: Optional[str]) -> List[int]:
        """Where an unreachable ``POP_EXCEPT; JUMP`` left after a clause's ``break``/``return`` goes.

        The compiler still emits a clause's normal exit after its last statement; when that
        statement leaves (``break``), the exit stays, dead, and shows where the ``try``
        statement ends (past an ``else``), or, after a ``continue``, a jump back to the loop's
        header like the ``continue``'s own. The exit of a clause ``except ... as name``
        clears the name between the two (3.9).
        """
        stacks, instrs = self.block_stacks(), self.instrs
        for k in range(min(limit, len(instrs)) - 2, start - 1, -1):
            if instrs[k].op != "POP_EXCEPT" or stacks[k] is not None:
                continue
            jump = instrs[self._legacy_skip_name_cleanup(k + 1, name)]
            if jump.op == "JUMP" and jump.target is not None:
                return [self.cfg.index_for(jump.target)]
        return []

    def _legacy_clause_ends(self, q: int, ctx: Context, limit: int, name: Optional[str]) -> bool:
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
            return not self._legacy_dead_clause_ends(q, limit, name)
        ins = self.instrs[q]
        if ins.op in ("POP_BLOCK", "CALL_FINALLY", "POP_FINALLY", "BEGIN_FINALLY"):
            return False
        loop = ctx.loop
        if ins.op == "JUMP" and loop is not None:
            target = self.cfg.index_for(ins.target)
            if self._bottom_cuts.get(loop.header) == target:
                return (
                    True  # the test copied to the loop body's end (3.10): a written continue jumps to the top
                )
            return self.block_of[target] not in (loop.continue_to, loop.break_to)
        return True

    def _legacy_copied_loop_exit(self, q: int, ctx: Context) -> bool:
        """Whether the code at *q*, after a clause's ``POP_EXCEPT``, is a copy of its loop's exit.

        3.10 replaces the jump of a ``break`` to a small block that returns by a copy of the
        block; a ``return`` written in the clause computes its value before the ``POP_EXCEPT``.
        """
        loop = ctx.loop
        if not V.RETURN_COPIED_TO_BRANCHES or loop is None or loop.break_to is None:
            return False
        exit_start = self.blocks[loop.break_to].start
        return q != exit_start and self._legacy_same_return(q, exit_start)

    def _legacy_skip_name_cleanup(self, k: int, name: Optional[str]) -> int:
        """Past ``name = None; del name`` after an ``except ... as name`` clause (3.9+)."""
        instrs = self.instrs
        if (
            name is not None
            and k + 2 < len(instrs)
            and instrs[k].op == "LOAD_CONST"
            and instrs[k + 1].op.startswith("STORE_")
            and instrs[k + 2].op.startswith("DELETE_")
            and instrs[k + 1].arg == name
        ):
            return k + 3
        return k
