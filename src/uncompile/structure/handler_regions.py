"""Facts about exception-handler regions (3.11+ exception table) that structuring asks.

Which instructions a handler protects (:meth:`HandlerRegions.span`) and which a try's body
spans (:meth:`HandlerRegions.try_body_span`), whether a handler starts a ``try``
(``PUSH_EXC_INFO`` not followed by ``WITH_EXCEPT_START``), whether it is a chain of ``except``
clauses or a ``finally`` body, and which instructions of a ``finally`` body its copies on the
normal path repeat; and the patterns of code the compiler copies onto exits
(``__exit__(None, None, None)`` calls of with blocks, a loaded value returned).

A finally body whose ``if`` ends a branch in a jump to the body's ``RERAISE 0`` ends that branch
in a copy of it: :func:`finally_reraises` finds those copies (each becomes a block of its own)
and :meth:`HandlerRegions.link_finally_reraises` gives each a jump to the last one, so that
the branches meet there in the graph as they did in the source.
"""

from __future__ import annotations

from typing import Any, Dict, FrozenSet, List, Optional, Set, Tuple

from ..bytecode import versions as V
from ..bytecode.exception_table import handler_at
from ..flow.cfg import ENDS_PATH

# what leaving enclosing except clauses on the way to a return runs
_LEAVING_CLAUSES = ("POP_EXCEPT", "SWAP", "POP_TOP")
_EXIT_CALL = ("LOAD_CONST", "LOAD_CONST", "LOAD_CONST", "CALL")
#: How a return leaves a finally handler (3.9 - 3.10), without and with a value to keep.
_LEAVING_HANDLER = (
    ("POP_TOP", "POP_TOP", "POP_TOP", "POP_EXCEPT"),
    ("ROT_FOUR", "POP_TOP", "POP_TOP", "POP_TOP", "ROT_FOUR", "POP_EXCEPT"),
)

_INVERSE_JUMP = {
    "POP_JUMP_IF_FALSE": "POP_JUMP_IF_TRUE",
    "POP_JUMP_IF_TRUE": "POP_JUMP_IF_FALSE",
    "POP_JUMP_IF_NONE": "POP_JUMP_IF_NOT_NONE",
    "POP_JUMP_IF_NOT_NONE": "POP_JUMP_IF_NONE",
}


def finally_reraises(instrs: List[Any], handlers: List[Any], at: Dict[int, int]) -> List[List[int]]:
    """The ``RERAISE 0``s of each finally body (3.11+) that has more than one: copies at the
    ends of its branches, then its own last (indices, in layout order). *at*: the index of
    the first instruction at each offset."""
    if not handlers:
        return []
    candidates = [ins for ins in instrs if ins.op == "RERAISE" and ins.arg == 0]
    if len(candidates) < 2:
        return []  # (most code with handlers: a group has two at least)
    groups: Dict[int, List[int]] = {}
    for ins in candidates:
        entry = handler_at(handlers, ins.offset)
        if entry is not None:
            groups.setdefault(entry.target, []).append(ins.index)
    found: List[List[int]] = []
    several = {target: reraises for target, reraises in groups.items() if len(reraises) >= 2}
    if not several:
        return found
    for target, reraises in several.items():
        cleanup = at.get(target)
        if cleanup is None or not _is_cleanup_at(instrs, cleanup):
            continue
        handler = at[min(e.start for e in handlers if e.target == target)]
        if (
            instrs[handler].op == "PUSH_EXC_INFO"
            and instrs[handler + 1].op != "WITH_EXCEPT_START"
            and not _is_except_at(instrs, handler)
        ):
            # not the ends of nested handlers' clauses, which also leave the body for its end
            reached = _reached(instrs, at, handler, set(reraises))
            own = [k for k in reraises if k in reached]
            if len(own) >= 2:
                found.append(own)
    return found


def _reached(instrs: List[Any], at: Dict[int, int], start: int, goals: Set[int]) -> Set[int]:
    """Which of the instructions *goals* the normal flow from *start* reaches (no handler)."""
    seen = {start}
    work = [start]
    while work:
        i = work.pop()
        ins = instrs[i]
        if ins.op in ENDS_PATH:
            continue
        nexts = [] if ins.op == "JUMP" else [i + 1]
        if ins.target is not None:
            nexts.append(at[ins.target])
        for k in nexts:
            if k not in seen and k < len(instrs):
                seen.add(k)
                work.append(k)
    return seen & goals


def _is_cleanup_at(instrs: List[Any], i: int) -> bool:
    """``COPY 3; POP_EXCEPT; RERAISE 1`` at *i*: a handler's cleanup (or *i* past the end)."""
    return [ins.op for ins in instrs[i : i + 3]] == ["COPY", "POP_EXCEPT", "RERAISE"] or i >= len(instrs)


def _is_except_at(instrs: List[Any], handler_index: int) -> bool:
    """Whether the handler at *handler_index* (its ``PUSH_EXC_INFO``) tests except clauses.

    The first clause's type may hold jumps forward (``except E if c else ():``); a statement
    (a finally body's) comes first otherwise."""
    i = handler_index + 1
    while i < len(instrs):
        ins = instrs[i]
        op = ins.op
        if op == "CHECK_EXC_MATCH" or (op == "POP_TOP" and i == handler_index + 1):
            return True
        if (
            op in _STATEMENT_OPS
            or op.startswith(("STORE_", "DELETE_"))
            or (ins.target is not None and ins.target <= ins.offset)
        ):
            return False
        i += 1
    return False


#: What ends the search for a clause's test: a statement's instruction.
_STATEMENT_OPS = frozenset(
    ("RERAISE", "POP_EXCEPT", "RETURN_VALUE", "RAISE_VARARGS", "POP_TOP", "PUSH_EXC_INFO", "FOR_ITER")
)


class HandlerRegions:
    """Mixin of :class:`~uncompile.structure.walker.Walker`: queries on the exception table."""

    instrs: List[Any]
    blocks: List[Any]
    handlers: List[Any]
    block_of: List[int]
    cfg: Any
    fail: Any
    handler_of: Any
    reraise_joins: FrozenSet[int]
    #: the first copy of a finally body's ``RERAISE 0`` -> the body's own (its end)
    last_reraise: Dict[int, int]

    # -- facts about handlers -----------------------------------------------------------

    def link_finally_reraises(self, groups: List[List[int]]) -> None:
        """Give each copy of a finally body's ``RERAISE 0`` a jump to the last (see
        :func:`finally_reraises`); the body's end is the last."""
        for reraises in groups:
            last = self.blocks[self.block_of[reraises[-1]]]
            for k in reraises[:-1]:
                copy = self.blocks[self.block_of[k]]
                copy.jump = last.id
                copy.succs.append(last.id)
                last.preds.append(copy.id)
                self.reraise_joins = self.reraise_joins | {copy.id, last.id}  # they meet: see region_follow
            self.last_reraise[reraises[0]] = reraises[-1]

    def span(self, target: int, tails: Tuple[str, ...] = ("POP_EXCEPT", "COPY")) -> Tuple[int, int]:
        """Offsets ``[lo, hi)`` covered by handler entries that go to *target*.

        Entries covering only nested handlers' tails that start with one of *tails* are left
        out. A ``finally`` body, and the test whether a try holds a loop, keep the ``COPY 3;
        POP_EXCEPT; RERAISE 1`` cleanups of the tries inside: their clauses, laid out after
        the loop or body, are inside the region. The span goes on over a nested region's body
        that follows (3.12+ leave a nested try's ``NOP`` uncovered, and a nested try at the end
        falls through to the code after the region without a covered jump)."""
        entries = [e for e in self.handlers if e.target == target]
        # 3.12+ place an ``await``'s CLEANUP_THROW out of line, after the code that follows
        # (and handler tails of nested constructs, which start with POP_EXCEPT/PUSH_EXC_INFO)
        inline = [
            e
            for e in entries
            if self._op_at(e.start) not in ("CLEANUP_THROW", "PUSH_EXC_INFO")
            and not self._tail(e, tails)
            and not (V.INLINED_COMPREHENSIONS and self._comprehension_cleanup(e))
        ]
        inline = inline or entries
        hi = self._past_nested(target, max(e.end for e in inline))
        if "COPY" not in tails:
            # the cleanups of nested tries kept: they follow the body where the clauses are laid
            # out inline (3.11); past code of an enclosing try's cover first (3.12+: the normal
            # exit's copy of an enclosing finally body, before all handlers) they are cold code
            own = [e for e in inline if not self._tail(e, ("COPY",))]
            if own and len(own) < len(inline):
                body_hi = self._past_nested(target, max(e.end for e in own))
                if body_hi < hi and self._enclosing_cover_between(target, body_hi):
                    hi = body_hi
        return min(e.start for e in inline), hi

    def _enclosing_cover_between(self, target: int, hi: int) -> bool:
        """Whether code from offset *hi* up to the next handler is covered by the handler of a
        try around the one whose handler is at *target* (its own code after the inner try)."""
        instrs = self.instrs
        around = self.handler_of(target)
        if around is None:
            return False
        i = self.index_at(hi)
        while i < len(instrs) and instrs[i].op != "PUSH_EXC_INFO":
            entry = self.handler_of(instrs[i].offset)
            if entry is not None and entry.target != target and self.nested_in(around, entry.target):
                return True
            i += 1
        return False

    def _past_nested(self, target: int, hi: int) -> int:
        """Where the region of *target* ends when its covered range ends at *hi*: past the
        bodies of nested regions that follow (the ``NOP`` before them, which is dropped, is
        left uncovered)."""
        start = i = self.index_at(hi)
        instrs = self.instrs
        while i < len(instrs) and instrs[i].op != "PUSH_EXC_INFO":
            entry = self.handler_of(instrs[i].offset)
            if entry is None and i > start:
                # a ``return`` inside a nested body leaves every cover before it returns: the
                # nested body goes on after it (``try: (try: while 1: (if c: return) ...)``)
                k = i
                while (
                    k < len(instrs)
                    and self.handler_of(instrs[k].offset) is None
                    and instrs[k].op != "RETURN_VALUE"
                ):
                    k += 1
                after = self.handler_of(instrs[k + 1].offset) if k + 1 < len(instrs) else None
                if k < len(instrs) and k - i < 3 and after is not None and self.nested_in(after, target):
                    i = k + 1
                    continue
            if entry is None or not self.nested_in(entry, target):
                break
            i += 1
        if i == start:
            return hi
        return self.instrs[i].offset if i < len(self.instrs) else self.instrs[-1].offset + 1

    def nested_in(self, entry: Any, target: int) -> bool:
        """Whether the handler of *entry* is inside the region of the handler at *target*
        (following the handlers that cover each handler's code)."""
        seen = set()
        while entry is not None and entry.target not in seen:
            if entry.target == target:
                return True
            seen.add(entry.target)
            entry = self.handler_of(entry.target)
        return False

    def _tail(self, entry: Any, first: Tuple[str, ...]) -> bool:
        """An entry covering only a nested handler's exit (``POP_EXCEPT; POP_TOP...; JUMP``,
        with the clear of an ``except ... as name``) or cleanup (``COPY 3; POP_EXCEPT; RERAISE
        1``) that starts with an op in *first*."""
        i = self.index_at(entry.start)
        if i >= len(self.instrs) or self.instrs[i].op not in first:
            return False
        while i < len(self.instrs) and self.instrs[i].offset < entry.end:
            op = self.instrs[i].op
            if self._clears_name(i):
                i += 3
            elif op == "COPY" and "COPY" not in first:
                # (3.13+) one entry covers an exit and the cleanup after it, kept without *first*
                return False
            elif op in ("POP_EXCEPT", "POP_TOP", "JUMP", "RERAISE", "COPY", "SWAP"):
                i += 1
            else:
                return False
        return True

    def _comprehension_cleanup(self, entry: Any) -> bool:
        """An entry covering only an inlined comprehension's cleanup (3.12+: ``SWAP 2; POP_TOP;
        SWAP 2; STORE_FAST x; RERAISE 0``, which puts the loop variable back when the loop
        raises), laid out after the code that follows the construct it is in."""
        i = self.index_at(entry.start)
        if not any(e.target == entry.start for e in self.handlers):
            return False  # (the cleanup is the comprehension's own handler)
        ops = []
        while i < len(self.instrs) and self.instrs[i].offset < entry.end:
            ops.append(self.instrs[i].op)
            i += 1
        return bool(ops) and set(ops) <= {"SWAP", "POP_TOP", "STORE_FAST", "RERAISE"} and ops[0] == "SWAP"

    def _clears_name(self, i: int) -> bool:
        """Whether ``name = None; del name`` (the end of an ``except ... as name``) is at *i*."""
        load, store, delete = (self.instrs[i : i + 3] + [None, None])[:3]
        return (
            load.op == "LOAD_CONST"
            and load.arg[0] is None
            and store is not None
            and delete is not None
            and store.op.startswith("STORE_")
            and delete.op.startswith("DELETE_")
            and store.arg == delete.arg
        )

    def _op_at(self, offset: int) -> str:
        index = self.index_at(offset)
        return self.instrs[index].op if index < len(self.instrs) else ""

    def try_body_span(self, pos: int, target: int, tails: Tuple[str, ...]) -> Tuple[int, int]:
        """Offsets ``[lo, hi)`` of the body of the try at *pos* whose handler is at *target*.

        A try whose body starts with a try/except may cover only that try's except clauses
        (and what follows it): its body starts at *pos* and, where the inner try's normal path
        leaves the handler's cover, ends there."""
        lo, hi = self.span(target, tails)
        start = self.instrs[pos].offset
        if lo <= start:
            return lo, hi
        inner = self.handler_of(start)
        if inner is None:
            return start, hi
        inner_lo, inner_hi = self.span(inner.target)
        exit = self.index_at(inner_hi)  # where the inner body's last range ends
        last = self.instrs[exit - 1]
        if last.op == "JUMP" and not inner_lo <= last.target < inner_hi:
            exit = self.index_at(last.target)  # (a jump back inside the body repeats a loop there)
        elif last.op in ENDS_PATH:
            return start, hi
        if exit < len(self.instrs) and self.instrs[exit].op != "PUSH_EXC_INFO":
            covering = self.handler_of(self.instrs[exit].offset)
            if covering is None or covering.target != target:
                hi = min(hi, self.instrs[exit].offset)
        return start, hi

    def covering_try(self, entry: Any) -> Optional[Any]:
        """The entry of the handler that covers the cleanup of *entry*'s handler: a try whose
        body is or starts with *entry*'s try (its handler covers only the inner clauses), or
        holds it; None if there is none."""
        outer = self.handler_of(self.instrs[self.index_at(entry.target)].offset)
        around = self.handler_of(outer.target) if outer is not None else None
        return around if around is not None and around.target != entry.target else None

    def index_at(self, offset: int) -> int:
        return self.cfg.index_for(offset)

    def is_try_handler(self, entry: Any) -> bool:
        i = self.index_at(entry.target)
        if i >= len(self.instrs) or self.instrs[i].op != "PUSH_EXC_INFO":
            return False
        return not (i + 1 < len(self.instrs) and self.instrs[i + 1].op == "WITH_EXCEPT_START")

    def is_with_handler(self, entry: Any) -> bool:
        """Whether *entry* goes to a ``with`` statement's exit (``PUSH_EXC_INFO; WITH_EXCEPT_START``)."""
        i = self.index_at(entry.target)
        return (
            i + 1 < len(self.instrs)
            and self.instrs[i].op == "PUSH_EXC_INFO"
            and self.instrs[i + 1].op == "WITH_EXCEPT_START"
        )

    def _finally_template(self, handler_index: int) -> Tuple[int, int]:
        """``[start, end)`` of a finally handler's body (after PUSH_EXC_INFO, before RERAISE 0).

        The body's own ``RERAISE 0`` is the first one protected by the handler's cleanup (the
        ``RERAISE`` of a nested try's finally is protected by that try's cleanup)."""
        cleanup = self.handler_of(self.instrs[handler_index].offset)
        if cleanup is not None:
            for i in range(handler_index + 1, len(self.instrs)):
                ins = self.instrs[i]
                if ins.op == "RERAISE" and ins.arg == 0:
                    entry = self.handler_of(ins.offset)
                    if entry is not None and entry.target == cleanup.target:
                        return handler_index + 1, self.last_reraise.get(i, i)
        i = handler_index + 1
        depth = 0
        while i < len(self.instrs):
            ins = self.instrs[i]
            if ins.op == "PUSH_EXC_INFO":
                depth += 1
            if ins.op == "RERAISE" and ins.arg == 0 and self._is_cleanup(i + 1):
                if depth == 0:
                    return handler_index + 1, i
                depth -= 1
            i += 1
        raise self.fail(handler_index, "finally handler without RERAISE")

    def _normal_copy(self, start: int, end: int) -> List[Any]:
        """The instructions of a finally body ``[start, end)`` that its copies on the normal path
        repeat: those its normal flow reaches (not nested handlers, which the copies lay out
        elsewhere), without a last jump to the ``RERAISE`` and without ``RERAISE``s (3.12+ copy
        the exits of nested handlers)."""
        seen = {self.block_of[start]}
        work = [self.block_of[start]]
        while work:
            for succ in self.blocks[work.pop()].succs:
                if succ not in seen and start <= self.blocks[succ].start < end:
                    seen.add(succ)
                    work.append(succ)
        copy = [
            ins
            for ins in self.instrs[start:end]
            if self.block_of[ins.index] in seen
            and (
                ins.op != "RERAISE" or self.blocks[self.block_of[ins.index]].jump is not None
            )  # a branch's end
        ]
        if copy and copy[-1].op == "RERAISE":
            copy.pop()  # the last branch ends there: the copy goes on after it
        if copy and copy[-1].op == "JUMP" and self.index_at(copy[-1].target) == end:
            copy.pop()
        return copy

    def _is_cleanup(self, i: int) -> bool:
        return _is_cleanup_at(self.instrs, i)

    def _is_except(self, handler_index: int) -> bool:
        return _is_except_at(self.instrs, handler_index)

    # -- code patterns ------------------------------------------------------------------

    def exit_call_at(self, i: int) -> int:
        """The length of the ``__exit__(None, None, None)`` call (awaited in an ``async with``,
        its result dropped) at *i*; 0 when there is none."""
        ins = self.instrs[i] if i < len(self.instrs) else None
        if ins is None or ins.op != "LOAD_CONST" or ins.arg[0] is not None:
            return 0
        if tuple(x.op for x in self.instrs[i : i + 4]) != _EXIT_CALL:
            return 0
        if self.instrs[i + 3].arg[0] != V.WITH_EXIT_ARGC:
            return 0
        n = 4
        if i + n < len(self.instrs) and self.instrs[i + n].op == "AWAIT":
            n += 1
        if i + n < len(self.instrs) and self.instrs[i + n].op == "POP_TOP":
            n += 1
        return n

    def past_swaps(self, i: int) -> int:
        """Past the ``SWAP``s at *i*."""
        while i < len(self.instrs) and self.instrs[i].op == "SWAP":
            i += 1
        return i

    def _past_exit_calls(self, i: int) -> int:
        """Skip the exit calls at *i* of the with blocks that a ``return`` leaves (each after
        the ``SWAP``s that move the returned value under the exit)."""
        while i < len(self.instrs):
            call = self.past_swaps(i)
            n = self.exit_call_at(call)
            if not n:
                break
            i = call + n
        return i

    def _matches(self, i: int, template: List[Any]) -> bool:
        return self.copy_length(i, template) > 0

    def copy_length(self, i: int, template: List[Any]) -> int:
        """How many instructions from *i* are a copy of the finally body *template* (0: none).

        The copy repeats the body's instructions (jump targets aside), with three changes: (3.10)
        a branch that ends the body in a copy of its ``RERAISE`` jumps on instead, (3.12+)
        a test whose jump goes back (to a loop's header) is inverted over a jump back, and (3.9 -
        3.10) a jump to the body's end (3.10: a ``RERAISE`` there) is the ``return`` that follows
        the copy (on the path of a ``return``, or 3.10's copy of a short exit): the copy ends there.
        """
        instrs = self.instrs
        n = len(instrs)
        if i + len(template) > n:
            return 0
        k = i
        exits: List[Tuple[int, int]] = []  # branch ends that are copies of a small exit after the copy
        j = -1
        while j + 1 < len(template):
            j += 1
            b = template[j]
            if k >= n:
                return 0
            a = instrs[k]
            over = (
                b.op == "JUMP" and j + 1 < len(template) and self.index_at(b.target) == template[j + 1].index
            )
            if over and a.op == "JUMP" and self.index_at(a.target) > k:
                k = self.index_at(a.target)  # over the nested handler, which the copy has too (3.11)
            elif a.op == b.op and (a.target is not None or a.arg == b.arg):
                k += 1
            elif a.op == "JUMP" and b.op == "RERAISE":
                k += 1
            elif not V.HAS_EXCEPTION_TABLE and self._leaves_copy(b, template) and self._returns_at(k):
                return k - i
            elif not V.HAS_EXCEPTION_TABLE and b.op in ("POP_TOP", "ROT_FOUR"):
                # (3.9 - 3.10) the handler's return first pops the exception; the copy has nothing to pop
                skipped = self._leaving_handler_length(b.index)
                if not skipped:
                    return 0
                j = min(j + skipped, len(template) - 1)
                b = template[j]
                if a.op != b.op or (a.target is None and a.arg != b.arg):
                    return 0
                k += 1
            elif over:
                pass  # a jump over a nested handler, which the copy lays out elsewhere (3.12+)
            elif (
                a.op == _INVERSE_JUMP.get(b.op)
                and k + 2 < n
                and instrs[k + 1].op == "JUMP"
                and self.index_at(a.target) == k + 2
            ):
                k += 2
            elif b.op == "RERAISE" and V.COPIES_SMALL_EXITS and self._small_exit_length(k):
                exits.append((k, self._small_exit_length(k)))
                k += exits[-1][1]
            else:
                return 0
        for start, size in exits:  # each a copy of the exit that the whole copy goes on to
            if k + size > n or any(
                p.op != q.op or p.arg != q.arg
                for p, q in zip(instrs[start : start + size], instrs[k : k + size])
            ):
                return 0
        return k - i

    def _leaving_handler_length(self, j: int) -> int:
        """The length of the instructions at *j* that leave a finally handler on a ``return``
        (3.9 - 3.10): the exception popped (the value returned moved below it), then the handler."""
        instrs = self.instrs
        for pattern in _LEAVING_HANDLER:
            if tuple(ins.op for ins in instrs[j : j + len(pattern)]) == pattern:
                return len(pattern)
        return 0

    def _leaves_copy(self, ins: Any, template: List[Any]) -> bool:
        """Whether *ins* of the finally body *template* ends it: a ``RERAISE`` or a jump past it."""
        if ins.op == "RERAISE":
            return True
        return ins.op == "JUMP" and self.index_at(ins.target) > template[-1].index

    def _small_exit_length(self, k: int) -> int:
        """The length of the small exit block (a ``return``, ``raise``) at *k*; 0 if none."""
        for j in range(k, min(k + V.LONGEST_COPIED_EXIT, len(self.instrs))):
            ins = self.instrs[j]
            if ins.op in ENDS_PATH:
                return j + 1 - k
            if ins.target is not None:
                return 0
        return 0

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

    def copies_of_one_return(self, a: int, b: int) -> bool:
        """Whether the code at *a* and at *b* are copies of one ``return`` (after leaving the
        enclosing except clauses: their ``POP_EXCEPT`` and the deletion of their names)."""
        while a < len(self.instrs) and b < len(self.instrs):
            x, y = self.instrs[a], self.instrs[b]
            if x.op != y.op or x.arg != y.arg or x.target is not None:
                return False
            if x.op == "RETURN_VALUE":
                return True
            if x.op not in _LEAVING_CLAUSES and not x.op.startswith(("LOAD_", "STORE_", "DELETE_")):
                return False
            a, b = a + 1, b + 1
        return False
