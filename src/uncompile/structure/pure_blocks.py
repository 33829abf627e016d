"""Blocks without statements, evaluated tentatively: the pieces of boolean values and conditions.

A mixin of :class:`~uncompile.structure.walker.Walker`. :meth:`PureBlocks._pure` runs a block
that only computes a value (no store, call of a statement's kind, or jump inside) on a copy
of the stack and says how it ends; :meth:`PureBlocks._pure_chain` does the same for a chained
comparison used as a value inside ``and``/``or``. The walker joins these pieces into
``and``/``or``/ternary expressions (:mod:`uncompile.expressions.conditions`); the loop
structurer compares the pure tails of blocks to find a ``while`` test copied to the bottom.
"""

from __future__ import annotations

import ast
import dis
from typing import Any, Dict, Iterable, List, Optional, Sequence, Set, SupportsIndex, Tuple

from ..bytecode import versions as V
from ..errors import DecompileError
from ..expressions import values as M

_PURE_FORBIDDEN = frozenset(
    {
        "STORE_FAST",
        "STORE_NAME",
        "STORE_GLOBAL",
        "STORE_DEREF",
        "STORE_ATTR",
        "STORE_SUBSCR",
        "STORE_SLICE",
        "DELETE_FAST",
        "DELETE_NAME",
        "DELETE_GLOBAL",
        "DELETE_DEREF",
        "DELETE_ATTR",
        "DELETE_SUBSCR",
        "POP_TOP",
        "RETURN_VALUE",
        "RAISE_VARARGS",
        "RERAISE",
        "FOR_ITER",
        "BEFORE_WITH",
        "SETUP_WITH",
        "PUSH_EXC_INFO",
        "POP_EXCEPT",
        "LIST_APPEND",
        "SET_ADD",
        "MAP_ADD",
        "IMPORT_STAR",
        "UNPACK_SEQUENCE",
        "UNPACK_EX",
        "YIELD_VALUE",
        "SETUP_FINALLY",
        "POP_BLOCK",
        "CALL_INTRINSIC_1",
        "GET_ITER",
        "CHECK_EXC_MATCH",
    }
)

#: What a comprehension's loop does with each item (nothing else does that).
_COMPREHENSION_ITEMS = frozenset(("LIST_APPEND", "SET_ADD", "MAP_ADD"))

#: The ``CALL_INTRINSIC_1`` operations (3.12+) that compute a value: ``f(a, *b)``'s argument
#: tuple and unary ``+`` (the others are statements' work: ``import *``, ``StopIteration``...).
_VALUE_INTRINSICS = frozenset(("INTRINSIC_LIST_TO_TUPLE", "INTRINSIC_UNARY_POSITIVE"))


def _value_intrinsic(ins: Any) -> bool:
    return ins.op == "CALL_INTRINSIC_1" and ins.arg in _VALUE_INTRINSICS


#: The instructions of statements and stores (with the exceptions of :func:`_value_after_all`).
_NO_VALUE = _PURE_FORBIDDEN | frozenset(name for name in dis.opmap if name.startswith("STORE"))

#: Those of :data:`_NO_VALUE` that :func:`_value_after_all` may find computing a value, and the rest.
_NAMED_STORES = frozenset(("STORE_FAST", "STORE_NAME", "STORE_DEREF", "STORE_GLOBAL"))
_VALUE_AT_TIMES = frozenset(("GET_ITER", "CALL_INTRINSIC_1")) | _NAMED_STORES
_NEVER_VALUE = _NO_VALUE - _VALUE_AT_TIMES


def _value_after_all(instrs: List[Any], i: int, end: int) -> bool:
    """Whether instruction *i* (one of :data:`_NO_VALUE`, in a block ending at *end*) computes a
    value: a generator expression's ``GET_ITER`` before its call (``f(x for x in y)``), an
    intrinsic of a value, or the store of ``(x := v)`` (``COPY 1`` before it, the copy used on;
    ``x = y = v`` ends in a store without one, which stays a statement's)."""
    ins = instrs[i]
    if ins.op in _NAMED_STORES:
        return i > 0 and instrs[i - 1].op == "COPY" and instrs[i - 1].arg == 1
    return (ins.op == "GET_ITER" and i < end and instrs[i + 1].op == "CALL") or _value_intrinsic(ins)


class PureBlocks:
    """Tentative evaluation of blocks for the walker; uses its graph and simulator."""

    blocks: Any
    block_of: Any
    compare_chain: Any
    exit: Any
    instrs: Any
    sim: Any
    walk: Any

    #: (block, start) -> :meth:`_statement_free`'s answer, filled as asked
    _statement_free_at: Dict[Tuple[int, int], bool]

    def _pure(
        self, block_id: int, start: int, stack: List[Any], operands: Sequence[Any] = ()
    ) -> Optional[Tuple[Any, str, int]]:
        """Evaluate a block without statements: (value, how it ends, end index) or None.

        *operands* are values pushed on *stack* before the block that the block consumes (the
        value of ``b or c`` that ``not (b or c)`` negates where the two meet)."""
        if not self._statement_free(block_id, start):
            return None  # known before running it: most blocks a branch goes to make statements
        sizes = display_sizes(stack)
        pure = self._evaluated(block_id, start, stack, operands)
        if pure is None and sizes:
            restore_displays(sizes)
        return pure

    def _evaluated(
        self, block_id: int, start: int, stack: List[Any], operands: Sequence[Any]
    ) -> Optional[Tuple[Any, str, int]]:
        """:meth:`_pure`'s run of the block (which may have added items to displays on *stack*)."""
        block = self.blocks[block_id]
        work = list(stack) + list(operands)
        try:
            with self.sim.scratch():
                self.sim.run(self.instrs[start : block.end - 1], work)
                last = self.instrs[block.end - 1]
                if last.op in V.CONDITIONAL_JUMPS:
                    kind = "cond"
                elif last.op == "JUMP":
                    kind = "jump"
                else:
                    self.sim.step(last, work)
                    kind = "fall"
                if self.sim.out:
                    return None
                if (
                    len(work) == len(stack) + 1
                    and isinstance(work[-1], M.FunctionValue)
                    and work[-1].code.co_name == "<lambda>"
                ):
                    work[-1] = self.sim.expr(work[-1], last)  # ``x or (lambda: y)``
        except DecompileError:
            return None
        extra = len(work) - len(stack)
        if work[: len(stack)] != stack and any(a is not b for a, b in zip(work, stack)):
            return None
        if kind == "cond" and extra == 2 and work[-1] is work[-2]:
            return work[-1], "value-cond", block.end - 1
        if extra != 1 or M.is_marker(work[-1]):
            return None
        return work[-1], kind, block.end - 1

    def _statement_free(self, block_id: int, start: int) -> bool:
        """Whether the instructions of block *block_id* from *start* hold no store, jump inside
        or statement's instruction (a generator expression's ``GET_ITER`` before its call is one
        of a value) before a last jump or one more such instruction: what :meth:`_pure` can
        evaluate. Decided once per place from the instructions alone."""
        known = self._statement_free_at.get((block_id, start))
        if known is not None:
            return known
        instrs = self.instrs
        end = self.blocks[block_id].end - 1
        last = instrs[end].op
        stop = end if last in V.CONDITIONAL_JUMPS or last == "JUMP" else end + 1
        free = True
        for ins in instrs[start if start < end else end : stop]:
            op = ins.op
            if (
                ins.target is not None
                or op in _NEVER_VALUE
                or (op in _VALUE_AT_TIMES and not _value_after_all(instrs, ins.index, end))
            ):
                free = False
                break
        self._statement_free_at[(block_id, start)] = free
        return free

    def _copied_return(self, i: int, block_id: int) -> bool:
        """Whether the instructions from *i* to the end of its block are a copy of block
        *block_id*, which returns (3.10+ copy a small exit into the paths that reach it)."""
        block = self.blocks[block_id]
        end = block_end_of(self, i)
        if end - i != block.end - 1 - block.start or self.instrs[end].op != "RETURN_VALUE":
            return False
        copy, original = self.instrs[i : end + 1], self.instrs[block.start : block.end]
        return all(a.op == b.op and a.arg == b.arg for a, b in zip(copy, original))

    def _pure_chain(self, block_id: int, start: int, stack: List[Any]) -> Optional[Tuple[Any, str, int]]:
        """A chained comparison inside ``and``/``or``: used as a value, (value, "chain", the
        block its value goes to) (or "chain-return" and the index of a copy of the merge's
        ``return``); tested as a condition, (its condition node, "chain-cond", the block its
        last test falls through to)."""
        block = self.blocks[block_id]
        last = self.instrs[block.end - 1]
        if last.op not in V.CONDITIONAL_JUMPS or not self._statement_free(block_id, start):
            return None
        work = list(stack)
        try:
            with self.sim.scratch():
                for i in range(start, block.end - 1):
                    ins = self.instrs[i]
                    if ins.op in _NO_VALUE or ins.target is not None:
                        return None
                    self.sim.step(ins, work)
                expr = self.sim.pop(work, last)
                if not isinstance(expr, ast.Compare) or not work:
                    return None
                if work[-1] is expr.comparators[-1]:  # a chain tested as a condition
                    tested = self.compare_chain(block_id, expr, False, work)
                    if tested is None or tested[1] is None or self.sim.out:
                        return None
                    node, after = tested[0], tested[1]
                    if len(work) != len(stack) or any(a is not b for a, b in zip(work, stack)):
                        return None
                    node.last, node.entry = node.entry, block_id
                    return node, "chain-cond", after
                if work[-1] is not expr:
                    return None
                work.pop()
                if not work or work[-1] is not expr.comparators[-1]:
                    return None
                chain = self.compare_chain(block_id, expr, True, work)
                if chain is None or chain[2] is None or self.sim.out:
                    return None
                if chain[2] < 0:  # the chain goes on with a copy of the merge point's ``return ...``
                    after = -1 - chain[2]
                    end = block_end_of(self, after)
                    if self.instrs[end].op != "RETURN_VALUE" or end - after >= V.LONGEST_COPIED_EXIT:
                        return None
                    return chain[0], "chain-return", after
        except DecompileError:
            return None
        if len(work) != len(stack) or any(a is not b for a, b in zip(work, stack)):
            return None
        return chain[0], "chain", chain[2]

    def _pure_then_return(
        self, block_id: int, start: int, merges: Set[Any], stack: List[Any]
    ) -> Optional[Tuple[Any, str, int]]:
        """``return a and (b if c else d)``: an operand that goes on with a copy of the merge
        point's ``return`` (3.10+ copy a small exit into the paths that reach it); (its value,
        "chain-return", index where the copy starts) or None."""
        block = self.blocks[block_id]
        if self.instrs[block.end - 1].op != "RETURN_VALUE":
            return None
        for merge in merges:
            if not isinstance(merge, int):
                continue
            size = self.blocks[merge].end - self.blocks[merge].start
            copy = block.end - size
            if not start < copy or not _copyable(size) or not self._copied_return(copy, merge):
                continue
            value = pure_value(self, start, copy, stack)
            return None if value is None else (value, "chain-return", copy)
        return None

    def _walked_value(
        self, fall: int, test: Any, ctx: Any, stack: List[Any]
    ) -> Optional[Tuple[Any, str, int]]:
        """``{k: f(v) for k, v in d} if d else None``, ``f(a or b) if c else d``: the value of a
        ternary's first branch (block *fall*, after the condition node *test*) when it holds an
        inlined comprehension (a loop; 3.12+) or a boolean value of its own, walked up to its
        jump past the other branch; (value, "jump", index of that jump) or None."""
        start = self.blocks[fall]
        later = [
            e for e in (test.true, test.false) if isinstance(e, int) and self.blocks[e].offset > start.offset
        ]
        if not later:
            return None
        other = min(later, key=lambda e: self.blocks[e].offset)
        jump = self.blocks[other].start - 1
        if jump <= start.start or self.instrs[jump].op != "JUMP":
            return None
        ops = {ins.op for ins in self.instrs[start.start : jump]}
        if "FOR_ITER" in ops:
            if ops.isdisjoint(_COMPREHENSION_ITEMS):
                return None  # no comprehension (a ``for`` statement's loop never adds an item: no value)
        elif ops.isdisjoint(V.CONDITIONAL_JUMPS):
            return None  # (straight code: a value there is a pure block's)
        value = self._walked_to(start.start, ctx._replace(until=jump, stops=frozenset({other})), stack, jump)
        return None if value is None else (value, "jump", jump)

    def _walked_operand(
        self, fall: int, start: int, merges: Set[Any], ctx: Any, stack: List[Any]
    ) -> Optional[Tuple[Any, str, int]]:
        """``a or any(w for w in (b or ()))``: an operand of ``and``/``or`` that holds a boolean
        value of its own, walked from instruction *start* of block *fall* up to the nearest later
        merge point of the operands before it; (value, "walked", that merge block) or None."""
        offset = self.blocks[fall].offset
        later = [m for m in merges if m is not None and self.blocks[m].offset > offset]
        if not later:
            return None
        merge = min(later, key=lambda m: self.blocks[m].offset)
        value = self._walked_to(start, ctx.stop_at(merge), stack, self.blocks[merge].start)
        return None if value is None else (value, "walked", merge)

    def _walked_to(self, start: int, ctx: Any, stack: List[Any], end: int) -> Any:
        """Walk from instruction *start* in *ctx* as a side run (nothing is emitted): the one value
        it leaves on top of *stack* when it makes no statement and stops at instruction *end*;
        else None."""
        work = list(stack)
        saved_exit = self.exit
        sizes = display_sizes(stack)
        try:
            with self.sim.scratch():
                # (the walk ends at its first statement: the run gives no value then)
                body = self.walk(start, ctx, work, out=_NoStatements())
                reached = self.exit
        except DecompileError:
            restore_displays(sizes)
            return None
        finally:
            self.exit = saved_exit
        if (
            body
            or reached != end
            or len(work) != len(stack) + 1
            or any(a is not b for a, b in zip(work, stack))
            or M.is_marker(work[-1])
        ):
            restore_displays(sizes)
            return None
        return work[-1]

    def _pure_suffix(self, a: int, b: int) -> int:
        """How many pure instructions before the final jumps of blocks *a* and *b* match."""
        x, y = self.blocks[a].end - 2, self.blocks[b].end - 2
        n = 0
        while x - n >= self.blocks[a].start and y - n >= self.blocks[b].start:
            p, q = self.instrs[x - n], self.instrs[y - n]
            walrus = p.op.startswith("STORE_") and x - n - 1 >= 0 and self.instrs[x - n - 1].op == "COPY"
            if p.op != q.op or p.arg != q.arg or p.target is not None or (not walrus and p.op in _NO_VALUE):
                break
            n += 1
        return n


class _StatementInValue(DecompileError):
    """A side run that must give one value made a statement (raised by :class:`_NoStatements`)."""


class _NoStatements(list):
    """The statements of a side run's walk, which is to make none (:meth:`PureBlocks._walked_to`):
    the first one ends the walk at once, not after the rest of the code it would have walked
    (a value's operands are short; the code up to where a value would end may be long)."""

    __slots__ = ()

    def append(self, stmt: ast.stmt) -> None:
        raise _StatementInValue("statement where a value is walked")

    def extend(self, stmts: Iterable[ast.stmt]) -> None:
        if list(stmts):
            raise _StatementInValue("statement where a value is walked")

    def insert(self, index: SupportsIndex, stmt: ast.stmt) -> None:
        raise _StatementInValue("statement where a value is walked")


def _copyable(size: int) -> bool:
    """Whether an exit of *size* instructions is one the compiler may have copied into an
    operand of ``a or b`` that runs into it (3.10: one without a line of its own, of any size)."""
    return size < V.LONGEST_COPIED_EXIT or V.COPIES_LINELESS_EXITS_OF_ANY_SIZE


def pure_value(walker: Any, start: int, end: int, stack: List[Any]) -> Optional[Any]:
    """The one value that instructions *start* to *end* (no statement, store or jump) push
    above *stack*, leaving it as it was; None if they do anything else."""
    sizes = display_sizes(stack)
    value = _run_value(walker, start, end, stack)
    if value is None:
        restore_displays(sizes)
    return value


def _run_value(walker: Any, start: int, end: int, stack: List[Any]) -> Optional[Any]:
    """:func:`pure_value`'s run (which may have added items to displays on *stack*)."""
    work = list(stack)
    try:
        with walker.sim.scratch():
            for ins in walker.instrs[start:end]:
                if ins.op in _NO_VALUE or ins.target is not None:
                    return None
                walker.sim.step(ins, work)
            if walker.sim.out:
                return None
    except DecompileError:
        return None
    if len(work) != len(stack) + 1 or any(a is not b for a, b in zip(work, stack)) or M.is_marker(work[-1]):
        return None
    return work[-1]


_DISPLAYS = (ast.Dict, ast.List, ast.Set)


def display_sizes(stack: List[Any]) -> List[Tuple[Any, int]]:
    """The item lists of the displays on *stack* (a dict's keys and values, a list's or set's
    items) with their lengths: a tentative run that adds items to them (``MAP_ADD``, 3.10's
    keyword arguments built one by one) is undone by :func:`restore_displays`."""
    sizes: List[Tuple[Any, int]] = []
    for value in stack:
        if isinstance(value, _DISPLAYS):
            if isinstance(value, ast.Dict):
                sizes.append((value.keys, len(value.keys)))
                sizes.append((value.values, len(value.values)))
            else:
                sizes.append((value.elts, len(value.elts)))
    return sizes


def restore_displays(sizes: List[Tuple[Any, int]]) -> None:
    """Drop the items a failed tentative run added to the displays of :func:`display_sizes`."""
    for items, size in sizes:
        del items[size:]


def block_end_of(walker: Any, index: int) -> int:
    """The index of the last instruction of the block holding instruction *index*."""
    return walker.blocks[walker.block_of[index]].end - 1
