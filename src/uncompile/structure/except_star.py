"""``try``/``except*`` (exception groups, 3.11+ layout).

The handler of a try with ``except*`` clauses starts a list of the exceptions its clauses
raise (``BUILD_LIST``) next to the group; each clause splits the group (``CHECK_EG_MATCH``
leaves the rest and the match) and skips its body when nothing matched
(``POP_JUMP_IF_NONE`` to a ``POP_TOP`` of the empty match). A body's normal path deletes the
clause's name and jumps on to the next clause's test; its own handler (a cleanup that adds
what the body raised to the list, ``LIST_APPEND 3``) follows it. After the last clause the
interpreter merges the unhandled rest and the raised exceptions (``PREP_RERAISE_STAR``); when
nothing is left, ``POP_EXCEPT`` ends the handler and the code after the try follows.
"""

from __future__ import annotations

import ast
from typing import Any, List, Optional, Tuple

from ..expressions import values as M
from .context import Context
from .handler_regions import HandlerRegions

# the instructions before the first clause's type: keep the group, start the list of raised ones
_GROUP_SETUP = ("COPY", "BUILD_LIST", "SWAP")


class ExceptStar(HandlerRegions):
    """Mixin of :class:`~uncompile.structure.walker.Walker`: the clauses of a try/except*."""

    sim: Any
    walk: Any
    exit: Optional[int]

    def is_except_star(self, handler_index: int) -> bool:
        """Whether the handler at *handler_index* starts ``except*`` clauses: it splits the
        group (``CHECK_EG_MATCH``) before any jump."""
        for ins in self.instrs[handler_index + 1 :]:
            if ins.op == "CHECK_EG_MATCH":
                return True
            if ins.target is not None or ins.op in ("CHECK_EXC_MATCH", "RERAISE", "POP_EXCEPT"):
                return False
        return False

    def try_except_star(self, pos: int, entry: Any, ctx: Context, stack: List[Any]) -> Optional[int]:
        lo, hi = self.try_body_span(pos, entry.target, ("POP_EXCEPT", "COPY"))
        body = self.walk(pos, ctx.inside(lo, hi, entry.target), list(stack), entering=True)
        after = self.exit
        clauses, end = self._star_clauses(self.index_at(entry.target) + 1, ctx, stack)
        follow = self._after_star_clauses(end)
        orelse: List[ast.stmt] = []
        if after is not None and follow is not None and after != follow:
            if self.copies_of_one_return(follow, self._through_jump(after)):
                follow = after  # both go on to copies of one return (the statement after the try)
            else:
                orelse = self.walk(after, ctx.stop_at(self.block_of[follow]), list(stack))
        node = ast.TryStar(  # type: ignore[attr-defined]
            body=body or [ast.Pass()], handlers=clauses, orelse=orelse, finalbody=[]
        )
        self.sim.emit(node)
        return follow if follow is not None else after

    def _star_clauses(self, i: int, ctx: Context, stack: List[Any]) -> Tuple[List[ast.excepthandler], int]:
        """The clauses whose tests start at *i*, and where the merge after the last one is."""
        clauses: List[ast.excepthandler] = []
        while self.instrs[i].op in _GROUP_SETUP:
            i += 1
        while True:
            work = list(stack)
            while i < len(self.instrs) and self.instrs[i].op != "CHECK_EG_MATCH":
                self.sim.step(self.instrs[i], work)
                i += 1
            if i + 3 >= len(self.instrs):
                raise self.fail(i - 1, "except* clause without test")
            type_expr = self.sim.pop_expr(work, self.instrs[i])
            test = self.instrs[i + 2]
            if test.op != "POP_JUMP_IF_NONE":
                raise self.fail(i, "except* test")
            no_match = self.index_at(test.target)
            i += 3
            store = self.instrs[i]
            name = store.arg if store.op.startswith("STORE_") else None
            i += 1
            self.sim.pending = []
            until = self._star_cleanup(i)
            group_stack = stack + [M.Discard() for _ in range(4)]
            body = self.walk(
                i, ctx._replace(until=until, except_name=name, lo=-1, hi=1 << 60), group_stack, entering=False
            )
            clauses.append(ast.ExceptHandler(type=type_expr, name=name, body=body or [ast.Pass()]))
            i = no_match + 1  # past the POP_TOP of the empty match
            if (
                i >= len(self.instrs) or self.instrs[i].op == "LIST_APPEND"
            ):  # the merge follows the last clause
                return clauses, i

    def star_clause_exit(self, i: int) -> int:
        """1 where a clause's normal path adds nothing raised to the list before its jump on
        (``LIST_APPEND 1; JUMP``, 3.13+: the jump is the end of the clause), else 0."""
        ins = self.instrs[i]
        if ins.op != "LIST_APPEND" or ins.arg != 1 or i + 1 >= len(self.instrs):
            return 0
        return 1 if self.instrs[i + 1].op == "JUMP" else 0

    def _star_cleanup(self, i: int) -> int:
        """The cleanup after the clause body starting at *i*: its own handler (dead code when
        the body has no instruction), which adds what the body raised to the list
        (``LIST_APPEND 3; POP_TOP``) after deleting the clause's name. Handlers of tries nested
        in the body (3.13+ lays them out before it) end with their own cleanup."""
        depth = 0
        for k in range(i, len(self.instrs) - 1):
            ins = self.instrs[k]
            if ins.op == "PUSH_EXC_INFO":
                depth += 1
            elif depth and self._is_cleanup(k):
                depth -= 1
            elif (
                not depth and ins.op == "LIST_APPEND" and ins.arg == 3 and self.instrs[k + 1].op == "POP_TOP"
            ):
                ops = [x.op for x in self.instrs[k - 3 : k]]
                if ops[:1] == ["LOAD_CONST"] and ops[1].startswith("STORE_") and ops[2].startswith("DELETE_"):
                    return k - 3
                return k
        raise self.fail(i, "except* clause without cleanup")

    def _after_star_clauses(self, end: int) -> Optional[int]:
        """Where the code after the try starts: past the ``POP_EXCEPT`` the merge reaches when
        nothing is left to raise (through a jump)."""
        k = end
        while k < len(self.instrs) and self.instrs[k].op != "POP_EXCEPT":
            k += 1
        k += 1
        if k >= len(self.instrs):
            return None
        return self._through_jump(k)

    def _through_jump(self, k: int) -> int:
        """Where the code at *k* goes on: the target of a jump there."""
        if self.instrs[k].op == "JUMP":
            return self.index_at(self.instrs[k].target)
        return k
