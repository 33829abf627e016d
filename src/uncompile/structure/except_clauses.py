"""The ``except`` clauses of a try (3.11+ layout): each clause's type, name and body.

The handler code of a try with clauses is a chain of tests (``CHECK_EXC_MATCH``); each clause's
body ends on its normal path with a ``POP_EXCEPT`` that the handler around the whole try covers
(the ``POP_EXCEPT``s of nested tries' clauses are under the clause's own cleanup). A clause
that leaves (``return``, ``break``, ``continue``) first pops the handlers it is inside and
calls the exits of the with blocks it leaves; :meth:`ExceptClauses._clause_end` tells where
the normal path goes after the clause. 3.13+ copy the clause's exit into each branch that jumps
there, 3.12 where it ends the path (:meth:`ExceptClauses._last_exit_copy`): the clause ends at
the last copy, and the walk of a branch that reaches an earlier one goes on there.
"""

from __future__ import annotations

import ast
from typing import Any, Dict, List, Optional, Set, Tuple

from ..bytecode import versions as V
from ..expressions import values as M
from ..flow.cfg import ENDS_PATH
from .context import Context
from .copied_exits import while_exit_copy
from .handler_regions import HandlerRegions


class ExceptClauses(HandlerRegions):
    """Mixin of :class:`~uncompile.structure.walker.Walker`: the clauses of a try/except."""

    _walked_to: Any
    clause_tails: Set[int]  # the walker's: blocks its walks take in past where they are cut
    clause_exit_copies: Dict[int, int]  # the walker's: copies of a clause's exit -> its last copy
    line_of: Any
    _pdoms: Any
    sim: Any
    walk: Any

    def _clauses(
        self, i: int, ctx: Context, stack: List[Any]
    ) -> Tuple[List[ast.excepthandler], Optional[int], bool]:
        """The clauses of the handler whose first test is at *i*, where the first clause that
        goes on after the try goes, and whether one goes on to the loop's next iteration."""
        clauses: List[ast.excepthandler] = []
        continues = False
        # the handler around the clauses' cleanup also covers each clause's own POP_EXCEPT
        cleanup = self.handler_of(self.instrs[i - 1].offset)
        owner_entry = self.handler_of(cleanup.target) if cleanup is not None else None
        owner = owner_entry.target if owner_entry is not None else None
        # the last clause's code ends at the cleanup (other handlers may follow it)
        chain_end = self.index_at(cleanup.target) if cleanup is not None else len(self.instrs)
        if chain_end < i:
            chain_end = len(self.instrs)
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
                i = self._clause_type(i, ctx, work)
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
            limit = chain_end if next_clause is None else next_clause
            clause_body, exit_index, to_next = self._clause_body(i, ctx, work, name, owner, limit)
            continues = continues or to_next
            if exit_index is not None and follow is None:
                follow = exit_index
            clauses.append(ast.ExceptHandler(type=type_expr, name=name, body=clause_body or [ast.Pass()]))
            if next_clause is None:
                break
            i = next_clause
        return clauses, follow, continues

    def _clause_type(self, i: int, ctx: Context, work: List[Any]) -> int:
        """Push the type of the clause whose test starts at *i* on *work*; the index of its
        exception match (``CHECK_EXC_MATCH``, ``EXC_MATCH`` before 3.11). A type with jumps of
        its own (``except E if c else ():``) is walked as a value."""
        check = i
        while self.instrs[check].op not in ("CHECK_EXC_MATCH", "EXC_MATCH"):
            check += 1
        if all(ins.target is None for ins in self.instrs[i:check]):
            for ins in self.instrs[i:check]:
                self.sim.step(ins, work)
            return check
        value = self._walked_to(i, ctx._replace(until=check, lo=-1, hi=1 << 60), work, check)
        if value is None:
            raise self.fail(i, "except clause: type")
        work.append(value)
        return check

    def _clause_body(
        self,
        i: int,
        ctx: Context,
        stack: List[Any],
        name: Optional[str],
        owner: Optional[int],
        limit: int,
    ) -> Tuple[List[ast.stmt], Optional[int], bool]:
        """Walk an except clause's body until its ``POP_EXCEPT`` on the normal path.

        The next clause's test (or after the last clause the handler's cleanup) at *limit*
        follows the clause: one that gets there without a ``POP_EXCEPT`` only raises or returns."""
        end = self._clause_exit(i, limit, name, ctx, owner)
        exit_index = self._clause_end(end + 1, name, ctx) if end < limit else None
        if (V.COPIES_JUMP_TARGETS_WITHOUT_LINES or V.COPIES_CLAUSE_EXITS_THAT_END_PATH) and end < limit:
            end, exit_index = self._past_exit_copies(end, exit_index, limit, name, ctx, owner)
        loop = ctx.loop
        to_next = False  # the clause goes on to the loop's next iteration
        breaks = False  # the clause jumps to the loop's exit: ``break``
        if (
            exit_index is not None
            and loop is not None
            and exit_index < len(self.instrs)
            and (
                self.block_of[exit_index] == loop.continue_to
                or self.is_break(self.block_of[exit_index], loop)  # type: ignore[attr-defined]
            )
            and self.blocks[self.block_of[exit_index]].start == exit_index
        ):
            to_next = self.block_of[exit_index] == loop.continue_to and self._last_exit(end, limit, owner)
            breaks = self.block_of[exit_index] != loop.continue_to
            exit_index = None
        # a clause laid out past a bottom-tested loop's copied test still ends at its own end
        # (past its jump to the loop's exit, a ``break``), or with the ``return`` that leaves
        # enclosing clauses too
        until = end + 1 if exit_index is not None or ctx.until <= i else ctx.until
        if breaks and until == end + 1:
            until = self._past_name_cleanup(end + 1, name) + 1
        if until == end + 1:
            self.clause_tails |= self._clause_tails(i, end, limit)
        if exit_index is None and until <= end + 1:
            until = (
                self._outer_return_end(end + 1)
                or self._loop_exit_copy_end(end + 1, name, ctx)
                or self._return_end(end + 1, name)
                or until
            )
        clause_ctx = ctx._replace(until=until, except_name=name, lo=-1, hi=1 << 60)
        region = ctx.region
        if region is not None and self.block_of[i] not in region and i <= end < len(self.instrs):
            # a clause laid out past the loop it is in (3.11+): its ifs meet inside it, a region
            # of the loop body and its own blocks, up to its exit
            own = range(self.block_of[i], self.block_of[end] + 1)
            clause_ctx = clause_ctx._replace(region=region | frozenset(own))
        body = self.walk(i, clause_ctx, stack, entering=True)
        if to_next and loop is not None and loop.continue_to not in ctx.stops and until == end + 1:
            # the clause goes on to the next iteration, the try to statements after it: a
            # ``continue`` (the walk stopped at the clause's exit, the jump not read)
            body.append(ast.Continue())
        return body, exit_index, to_next

    def _past_exit_copies(
        self,
        end: int,
        exit_index: Optional[int],
        limit: int,
        name: Optional[str],
        ctx: Context,
        owner: Optional[int],
    ) -> Tuple[int, Optional[int]]:
        """The clause's normal exit and where it goes on, when the ``POP_EXCEPT`` at *end* is the
        first of several copies of its exit (3.12+): the last copy, and where it goes on; the code
        after the try that ends the path (a ``return``, a ``raise``), copied into each copy as it
        is into the exit (COPIES_SMALL_EXITS), follows its name cleanup."""
        last = self._last_exit_copy(end, limit, owner)
        if last == end:
            return end, exit_index
        goes_to = self._clause_end(last + 1, name, ctx)
        after = self._past_name_cleanup(last + 1, name)
        if goes_to is None and not self._loop_exit_copy_at(after, ctx):
            goes_to = after  # (no return written in the clause: it would have its own line)
        return last, goes_to

    def _last_exit_copy(self, end: int, limit: int, owner: Optional[int]) -> int:
        """The last copy before *limit* of the clause's exit whose first copy is the
        ``POP_EXCEPT`` at *end* (3.13+: each branch that jumps to the exit ends with its own copy
        of it, the last one falls into the original, see V.COPIES_JUMP_TARGETS_WITHOUT_LINES; 3.12
        where the exit ends the path, V.COPIES_CLAUSE_EXITS_THAT_END_PATH);
        the walker takes the earlier ones for it (clause_exit_copies); *end* if there is none."""
        first = self.block_of[end]
        shape = self._exit_shape(first)
        if (
            shape is None
            or self.blocks[first].start != end
            or limit > len(self.instrs)
            or not self._copied_exit(first)
        ):
            return end
        copies = [first]
        for b in range(first + 1, self.block_of[limit - 1] + 1):
            block = self.blocks[b]
            if (
                self.instrs[block.start].op == "POP_EXCEPT"
                and self._own_pop_except(block.start, owner)
                and self._exit_shape(b) == shape
                and self._copied_exit(b)
            ):
                copies.append(b)
        if len(copies) == 1:
            return end
        known = self.clause_exit_copies
        if any(known.get(b) != copies[-1] for b in copies[:-1]):  # (a clause may be walked again)
            known.update((b, copies[-1]) for b in copies[:-1])
            self._pdoms.clear()  # (the copies now lead to the last one: see region_follow)
        return self.blocks[copies[-1]].start

    def _exit_shape(self, b: int) -> Optional[Tuple[Tuple[str, Any, Optional[int]], ...]]:
        """The instructions of block *b* (an except clause's exit from its ``POP_EXCEPT``), to
        compare with its copies: the compiler copies a block that does not fall through (it
        jumps on or ends the path; 3.12 only one that ends the path); None for one it does not copy."""
        block = self.blocks[b]
        if block.fall is not None:
            return None
        if not V.COPIES_JUMP_TARGETS_WITHOUT_LINES and self.instrs[block.end - 1].op not in ENDS_PATH:
            return None
        return tuple((ins.op, ins.arg, ins.target) for ins in self.instrs[block.start : block.end])

    def _copied_exit(self, b: int) -> bool:
        """Whether block *b*, which starts with a ``POP_EXCEPT``, may be the compiler's copy of the
        clause's exit: the normal path enters it with nothing on the stack above the exception (a
        ``return x`` swaps its value under the exception first, ``SWAP 2``), and it has no source
        line of its own: a copy takes the line of the code it is copied into, or none (a ``return``
        or ``continue`` written in the clause, the same instructions, has its own line)."""
        preds = self.blocks[b].preds
        ends = [self.instrs[self.blocks[p].end - 1] for p in preds]
        if any(ins.op == "SWAP" for ins in ends):
            return False
        line = self.line_of(self.instrs[self.blocks[b].start].offset)
        return line is None or any(self.line_of(ins.offset) == line for ins in ends)

    def _clause_tails(self, i: int, end: int, limit: int) -> Set[int]:
        """The blocks of the clause whose body starts at *i* that are laid out past its normal
        exit (the ``POP_EXCEPT`` at *end* and the code after the try the compiler copied there,
        3.12+) and before *limit*: each ends the path and only the body jumps there (``else:
        raise`` last in the clause). Its walk, cut after *end*, takes them in all the same."""
        tails: Set[int] = set()
        if end + 1 >= limit or limit > len(self.instrs):
            return tails
        own = self.block_of[end + 1]
        for b in range(own + 1, self.block_of[limit - 1] + 1):
            block = self.blocks[b]
            if (
                not block.succs
                and block.preds
                and self.instrs[block.end - 1].op in ENDS_PATH
                and all(i <= self.blocks[p].end - 1 <= end for p in block.preds)  # (each jumps from the body)
            ):
                tails.add(b)
        return tails

    def _clause_exit(
        self, i: int, limit: int, name: Optional[str], ctx: Context, owner: Optional[int]
    ) -> int:
        """The ``POP_EXCEPT`` before *limit* of the clause whose body starts at *i* on its normal
        path: the first one outside nested handlers that goes on after the try (the ones before
        it may leave the clause, with a ``return`` inside a nested try or with, or a return of
        the clause itself when a later one jumps on); the first one if none does; *limit* if
        there is none."""
        end = i
        first: Optional[int] = None
        plain: Optional[int] = None  # the first POP_EXCEPT of a return that leaves no with
        depth = 0  # handlers entered since (other tries' clauses end with their own POP_EXCEPT)
        while end < limit:
            op = self.instrs[end].op
            if op == "PUSH_EXC_INFO":
                depth += 1
            elif op == "POP_EXCEPT" and self.instrs[end - 1].op != "COPY":
                own = self._own_pop_except(end, owner)
                if depth > 0 and not own:  # (a nested clause that raises has no POP_EXCEPT)
                    depth -= 1
                    if self._outer_return_end(end + 1) is not None:
                        # a nested clause's return: the POP_EXCEPTs after it are this clause's too
                        end = self._past_outer_handlers(end + 1)
                        continue
                elif own:
                    if first is None:
                        first = end
                    goes_to = self._clause_end(end + 1, name, ctx)
                    if goes_to is not None and not self._breaks_loop(goes_to, ctx):
                        # after a return of the clause, only a jump on ends the clause (copies
                        # of a small exit after it are other branches' ends)
                        jumps = self.instrs[self._past_name_cleanup(end + 1, name)].op == "JUMP"
                        return end if plain is None or jumps else plain
                    if plain is None and goes_to is None and not self._leaves_with(end + 1):
                        plain = end
            end += 1
        if plain is not None:
            return plain
        return first if first is not None else limit

    def _last_exit(self, end: int, limit: int, owner: Optional[int]) -> bool:
        """Whether the clause's ``POP_EXCEPT`` at *end* is its last before *limit* (no
        ``continue`` written inside the clause, which goes where the normal path does)."""
        return not any(
            self.instrs[k].op == "POP_EXCEPT"
            and self.instrs[k - 1].op != "COPY"
            and self._own_pop_except(k, owner)
            for k in range(end + 1, limit)
        )

    def _breaks_loop(self, k: int, ctx: Context) -> bool:
        """Whether a clause that goes on at *k* leaves the loop being walked (a ``break``)."""
        loop = ctx.loop
        return (
            loop is not None
            and k < len(self.instrs)
            and self.blocks[self.block_of[k]].start == k
            and self.is_break(self.block_of[k], loop)  # type: ignore[attr-defined]
        )

    def _own_pop_except(self, i: int, owner: Optional[int]) -> bool:
        """Whether the ``POP_EXCEPT`` at *i* may end a clause whose handler code the handler at
        *owner* covers (the clauses of nested tries end under the clause's own cleanup)."""
        entry = self.handler_of(self.instrs[i].offset)
        return (entry.target if entry is not None else None) == owner

    def _past_leaving_clauses(self, k: int) -> int:
        """Past the ``POP_EXCEPT``s at *k* of enclosing clauses that a return leaves, and the
        exit calls of the with blocks around them."""
        past = self._past_outer_handlers(k)
        return past if past == k else self._past_exit_calls(past)

    def _leaves_with(self, k: int) -> bool:
        """Whether a return (or break, continue) leaves with blocks at *k*, after a clause's
        ``POP_EXCEPT``."""
        past = self._past_outer_handlers(k)
        return self._past_exit_calls(past) != past

    def _clause_end(self, k: int, name: Optional[str], ctx: Context) -> Optional[int]:
        """Where the normal path goes after a clause's ``POP_EXCEPT`` at ``k - 1``."""
        k = self._past_name_cleanup(k, name)
        if self._starts_clause_exit_copy(k):
            return k  # the end of the clause around this one's try
        past = self._past_outer_handlers(k)
        if self._past_exit_calls(past) != past:
            return None  # a return, break or continue leaves with blocks, calling their exits
        if past != k and self._returns_at(past):
            return None  # a return from inside enclosing clauses
        for template in ctx.finally_bodies[:1]:  # a jump out of the clause runs the finally first
            n = self.copy_length(k, template) if template and self.instrs[k].op == template[0].op else 0
            if n:
                if self._returns_at(k + n):
                    return None  # a return from the clause, after the finally's copy
                if self.instrs[k + n].op == "JUMP":
                    k += n
        if k < len(self.instrs) and self.instrs[k].op == "JUMP":
            return self.index_at(self.instrs[k].target)
        if self._loop_exit_copy_at(k, ctx):
            return None  # a ``break``: see copied_exits
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

    def _starts_clause_exit_copy(self, k: int) -> bool:
        """Whether one of the copies of an enclosing clause's exit starts at *k* (3.13+, see
        _last_exit_copy): a try nested in that clause goes on there, to the clause's end (not a
        ``return`` that leaves both, which the code after the outer try copied there looks like)."""
        copies = self.clause_exit_copies
        if not copies or k >= len(self.instrs) or self.blocks[self.block_of[k]].start != k:
            return False
        return self.block_of[k] in copies or self.block_of[k] in copies.values()

    def _past_name_cleanup(self, k: int, name: Optional[str]) -> int:
        """Past ``name = None; del name`` at *k*, after the ``POP_EXCEPT`` of ``except ... as name``."""
        if name is not None:
            ops = [x.op for x in self.instrs[k : k + 3]]
            if len(ops) == 3 and ops[0] == "LOAD_CONST" and ops[2].startswith("DELETE_"):
                return k + 3
        return k

    def _loop_exit_copy_at(self, k: int, ctx: Context) -> bool:
        """Whether a copy of the exit of the ``while`` loop being walked starts at *k*."""
        return k < len(self.instrs) and while_exit_copy(self, self.blocks[self.block_of[k]], ctx) == k

    def _loop_exit_copy_end(self, k: int, name: Optional[str], ctx: Context) -> Optional[int]:
        """Past the copy of the loop's exit at *k*, after a clause's ``POP_EXCEPT`` (and the
        clearing of its *name*): a ``break``; None if there is none."""
        k = self._past_name_cleanup(k, name)
        if not self._loop_exit_copy_at(k, ctx):
            return None
        return self.blocks[self.block_of[k]].end

    def _return_end(self, k: int, name: Optional[str]) -> Optional[int]:
        """Past the ``return`` of the clause at *k*, after its ``POP_EXCEPT`` (and the clearing of
        its *name*): also one copied there from the code after the loop, a ``break``; None if
        there is none."""
        k = self._past_name_cleanup(k, name)
        if not self._returns_at(k):
            return None
        while self.instrs[k].op != "RETURN_VALUE":
            k += 1
        return k + 1

    def _reraises_outer(self, k: int) -> bool:
        """A bare ``raise`` at *k*, after a clause's ``POP_EXCEPT``: it raises the exception of an
        enclosing clause, so it is code after the try."""
        ins = self.instrs[k] if k < len(self.instrs) else None
        return ins is not None and ins.op == "RAISE_VARARGS" and ins.arg == 0

    def _outer_return_end(self, k: int) -> Optional[int]:
        """Past the ``return`` at *k* that leaves enclosing except clauses (their ``POP_EXCEPT``
        first); None if *k* starts no such return."""
        past = self._past_outer_handlers(k)
        if past == k or not self._returns_at(past):
            return None
        while self.instrs[past].op != "RETURN_VALUE":
            past += 1
        return past + 1

    def _past_outer_handlers(self, k: int) -> int:
        """Skip the ``POP_EXCEPT`` of enclosing clauses that a ``return`` leaves (``SWAP 2;
        POP_EXCEPT`` when the returned value is on the stack)."""
        instrs = self.instrs
        while k < len(instrs):
            if instrs[k].op == "POP_EXCEPT":
                k += 1
            elif instrs[k].op == "SWAP" and k + 1 < len(instrs) and instrs[k + 1].op == "POP_EXCEPT":
                k += 2
            else:
                break
        return k
