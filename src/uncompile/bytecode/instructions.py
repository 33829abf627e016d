"""A version-neutral view of a code object's instructions.

:func:`read_instructions` reads ``code.co_code`` in one pass, decoding each instruction's operand
(:mod:`uncompile.bytecode.reader`) and reading it as its opcode's reading says
(:mod:`uncompile.bytecode.readings`), and returns a list of :class:`Instr` whose ``op`` names and
``arg`` values mean the same on every supported version (see :mod:`uncompile.bytecode.versions`
for the facts used):

* no-ops (``NOP``, ``RESUME``, ``CACHE``, ``PRECALL``, ...) are dropped;
* jumps are ``JUMP`` or ``POP_JUMP_IF_FALSE/TRUE/NONE/NOT_NONE`` with absolute ``target``;
  ``JUMP_IF_X_OR_POP`` becomes ``COPY 1; POP_JUMP_IF_X; POP_TOP``;
* superinstructions are split, ``RETURN_CONST c`` is ``LOAD_CONST c; RETURN_VALUE``;
* ``BINARY_OP``/``COMPARE_OP`` carry the operator text, ``LOAD_GLOBAL``/``LOAD_ATTR`` a
  ``(name, pushes_null)`` pair, calls are ``CALL (argc, kwnames, null_slot)``;
* an ``await``/``yield from`` loop (``SEND``...) is one ``AWAIT``/``YIELD_FROM``, and its 3.12+
  ``CLEANUP_THROW; JUMP`` back to the loop's end is dropped;
* an ``async for`` header (the await of ``GET_ANEXT``) is ``FOR_ITER`` with ``arg`` ``"async"``
  that targets the code after the loop's ``END_ASYNC_FOR``, which is dropped (:mod:`.awaits`);
* ``FOR_ITER`` targets the first instruction after the loop's ``END_FOR``/``POP_ITER``;
* 3.14+: a ``with`` entry (``LOAD_SPECIAL``...) is ``BEFORE_WITH`` and an inlined
  ``all``/``any``/``tuple`` call is the plain call (:mod:`.sequences`);
  ``LOAD_COMMON_CONSTANT`` is ``LOAD_CONST``, ``LOAD_ASSERTION_ERROR`` or ``LOAD_BUILTIN name``;
  a 3.15 ``lazy`` import is ``IMPORT_NAME_LAZY``.

Every ``Instr`` keeps the ``offset`` of the original instruction it came from.
"""

from __future__ import annotations

import dis
from bisect import bisect_right
from itertools import compress
from types import CodeType
from typing import Any, Dict, FrozenSet, Iterator, List, NamedTuple, Optional, Tuple, cast

from . import versions as V
from .awaits import ASYNC, async_for_header, await_end, ends_send, send_ends
from .reader import CELL, NO_ARG, PLAIN, RawInstructions, decode, operand_tables, operand_value
from .readings import (
    CALL,
    CONSTANT,
    ENDS_PATH,
    EXTENDED,
    HANDLER,
    INDEXED,
    INT_ARG,
    JUMP,
    KEYWORD_NAMES,
    NAME_AND_FLAG,
    NO_OP,
    NONE,
    PATH_END,
    SMALL_INT,
    TABULATED,
    Readings,
    legacy_assertion_errors,
    reading_table,
)
from .sequences import SEQUENCE_FOLLOWERS, match_sequence


class Instr:
    """One neutral instruction: ``op`` and ``arg`` as described in the module docstring, at
    ``offset``, jumping to ``target`` (None: no jump), ``index`` in its code object's list.

    Only the reader makes them (``Instr()``, then each field set): without an ``__init__`` of its
    own, the call is the interpreter's, with no Python-level frame (``object.__new__(Instr)``
    costs more: its arguments are checked through a wrapper).
    """

    __slots__ = ("offset", "op", "arg", "index")

    offset: int
    op: str
    arg: Any
    index: int
    #: None, the class's own: an instruction with a target is a :class:`JumpInstr`, whose slot holds it
    #: (most instructions have none: the reader sets one field fewer for them)
    target: Optional[int] = None

    def __repr__(self) -> str:
        where = " -> %d" % self.target if self.target is not None else ""
        return "<%d %s %r%s>" % (self.offset, self.op, self.arg, where)


class JumpInstr(Instr):
    """An :class:`Instr` with a target (made by the reader alone, as an ``Instr`` is)."""

    __slots__ = ("target",)

    target: Optional[int]


class _Reader(Readings):
    """Turns the raw instructions of ``co_code`` into neutral ones, in one pass (see module docstring).

    :meth:`run` decodes each raw instruction and reads it at once, as its opcode's reading says
    (:mod:`.readings`). The few sequences that read as other instructions are matched first, by
    the method of :data:`_SEQUENCE_READERS` for the raw instruction they can start with; only
    those that need more than a look at the opcodes that follow decode the raw instructions
    (:attr:`raw`, when first asked: most code objects never need them).
    """

    __slots__ = (
        "code",
        "bytes",
        "out",
        "first_at",
        "jumps",
        "ends",
        "_raw",
        "_raw_index",
        "_send_ends",
        "_handlers",
    )

    def __init__(self, code: CodeType) -> None:
        self.code = code
        self.bytes = code.co_code
        self.out: List[Instr] = []
        self.first_at: Dict[int, int] = {}  # the index of the first instruction at each offset
        self.jumps: List[int] = []  # the indices in out of the instructions with a target
        self.ends: List[int] = []  # the indices in out of the instructions that end a path (ENDS_PATH)
        # what the sequence readers read of the code object, made when first asked (most never are)
        self._raw: Optional[RawInstructions] = None
        self._raw_index: Optional[Dict[int, int]] = None
        self._send_ends: Optional[FrozenSet[int]] = None
        self._handlers: Optional[List[Any]] = None

    def emit(self, offset: int, op: str, arg: Any = None, target: Optional[int] = None) -> None:
        out = self.out
        if target is None:
            ins = Instr()
        else:
            ins = jump = JumpInstr()
            jump.target = target
        ins.offset = offset
        ins.op = op
        ins.arg = arg
        ins.index = index = len(out)
        self.first_at.setdefault(offset, index)
        out.append(ins)
        if target is not None:
            self.jumps.append(index)
        elif op in ENDS_PATH:
            self.ends.append(index)

    def run(self) -> List[Instr]:  # noqa: C901 - one flat loop, its readings in the order of how often they come
        code = self.bytes
        tables = operand_tables(self.code)
        consts = self.code.co_consts
        out = self.out
        append = out.append
        add_jump = self.jumps.append
        add_end = self.ends.append
        first_at = self.first_at
        readings = _READINGS
        new, new_jump = Instr, JumpInstr
        # the frequent readings, tested as locals (3.8 - 3.10 look a global up again at each test),
        # by identity: the table holds these very objects (reading_table), and 3.8 compares ints
        # by value through a rich comparison, several times an instruction
        indexed, constant, name_and_flag, none = INDEXED, CONSTANT, NAME_AND_FLAG, NONE
        int_arg, call, jump, path_end = INT_ARG, CALL, JUMP, PATH_END
        count = 0  # len(out), kept up to date after each method that emits
        kwnames = None  # 3.11 - 3.12: the keyword names of the next call (KW_NAMES)
        extended = 0  # the operand bits of the EXTENDED_ARG prefixes before the next instruction
        size = len(code)
        start: Optional[int] = 0  # where the words are read from (again after a sequence)
        while start is not None:
            words, start = _words(code, start), None
            for offset, opcode, arg in words:
                name, reading, detail, sequence, kind, shift, step = readings[opcode]
                if extended:
                    arg |= extended
                    extended = 0
                if sequence:  # (a method, the opcodes that may follow in a sequence; None for most)
                    after = offset + step
                    if sequence[1] is None or (after < size and code[after] in sequence[1]):
                        end = sequence[0](self, offset, after, arg)
                        if end is not None:
                            count = len(out)
                            start = end  # (the words after the sequence: read by a new loop)
                            break
                if reading is indexed:  # (no flag bits: see reading_table)
                    value = tables[kind][arg]
                elif reading is constant:
                    value = (consts[arg], arg)
                elif reading is name_and_flag:
                    value = (tables[kind][arg >> shift], detail[arg & 1])
                elif reading is none:
                    value = None
                elif reading is int_arg:
                    value = arg
                elif reading is call:
                    value = (arg, kwnames, detail)
                    kwnames = None
                elif reading is jump:  # (made here: the only instructions with a target)
                    origin, base, scale = detail
                    made = new_jump()
                    made.offset = offset
                    made.op = name
                    made.arg = None
                    made.target = origin * offset + base + scale * arg
                    made.index = first_at[offset] = count
                    add_jump(count)
                    count += 1
                    append(made)
                    continue
                elif reading is path_end:
                    value = None if kind == NO_ARG else arg
                    add_end(count)
                elif reading is NO_OP:
                    continue
                elif reading is HANDLER:  # its operand's value: the common kinds read here
                    if kind <= CELL:
                        value = tables[kind][arg >> shift]
                    elif kind == NO_ARG:
                        arg = value = None  # type: ignore[assignment]
                    elif kind == PLAIN:
                        value = arg
                    else:
                        value = operand_value(opcode, arg, offset, tables)
                    detail(self, offset, arg, value, name)
                    count = len(out)
                    continue
                elif reading is TABULATED:
                    name, value = detail[arg]
                elif reading is EXTENDED:
                    extended = arg << 8
                    continue
                elif reading is SMALL_INT:
                    value = (arg, arg)
                elif reading is KEYWORD_NAMES:
                    kwnames = consts[arg]
                    continue
                else:  # OPERAND_VALUE
                    value = operand_value(opcode, arg, offset, tables)
                ins = new()  # as in emit
                ins.offset = offset
                ins.op = name
                ins.arg = value
                ins.index = first_at[offset] = count  # the only instruction from this raw one
                count += 1
                append(ins)
        if V.ASSERT_LOADS_GLOBAL and "AssertionError" in self.code.co_names:
            legacy_assertion_errors(out)
        return out

    # -- the raw instructions, for the sequences that need more than a look at the opcodes --

    @property
    def raw(self) -> RawInstructions:
        """The raw instructions of the code object (decoded when first asked)."""
        if self._raw is None:
            self._raw = decode(self.code)
        return self._raw

    def raw_index(self, offset: int) -> int:
        """The index in :attr:`raw` of the raw instruction at *offset*."""
        if self._raw_index is None:
            self._raw_index = {fields[0]: index for index, fields in enumerate(self.raw.fields)}
        return self._raw_index[offset]

    def offset_of(self, index: int) -> int:
        """The offset of ``raw[index]`` (past the last one: the size of the code)."""
        fields = self.raw.fields
        return fields[index][0] if index < len(fields) else len(self.bytes)

    def opname_at(self, offset: int) -> Optional[str]:
        """The raw opcode name at *offset* (None past the end of the code)."""
        return dis.opname[self.bytes[offset]] if offset < len(self.bytes) else None

    def following(self, offset: int) -> int:
        """The offset of the raw instruction after the one at *offset*."""
        return offset + _READINGS[self.bytes[offset]][6]

    @property
    def send_ends(self) -> FrozenSet[int]:
        """3.12+: where each await's ``CLEANUP_THROW`` goes back to (read when first asked)."""
        if self._send_ends is None:
            self._send_ends = send_ends(self.raw)
        return self._send_ends

    def handler_target(self, offset: int) -> Optional[int]:
        """The offset of the handler that covers *offset* in the exception table (3.11+), or None."""
        if self._handlers is None:
            from .exception_table import parse_exception_table  # it reads instructions: import late

            self._handlers = parse_exception_table(self.code.co_exceptiontable)  # type: ignore[attr-defined]
        return next((e.target for e in self._handlers if e.start <= offset < e.end), None)

    # -- sequences of raw instructions read as other neutral instructions: each method is asked
    # -- at a raw instruction its sequences can start with (:data:`_SEQUENCE_READERS`), at
    # -- *offset*, the next raw instruction at *after*, its operand *arg*; it emits the neutral
    # -- form of the sequence starting there and returns the offset after it, or None

    def async_for(self, offset: int, after: int, arg: int) -> Optional[int]:
        """``SETUP_FINALLY`` (3.8 - 3.10) or ``GET_ANEXT`` (3.11+) starting an ``async for`` header."""
        header = async_for_header(self.raw, self.raw_index(offset), self.handler_target)
        if header is None:
            return None
        end, exit_offset = header
        self.emit(offset, "FOR_ITER", ASYNC, exit_offset)
        return self.offset_of(end)

    def async_for_end(self, offset: int, after: int, arg: int) -> Optional[int]:
        """``END_ASYNC_FOR``: the loop's exit is the code after it."""
        return after

    def cleanup_throw(self, offset: int, after: int, arg: int) -> Optional[int]:
        """3.12+: an await's ``CLEANUP_THROW; JUMP`` back to the end of its send loop."""
        index = self.raw_index(offset)
        return self.offset_of(index + 2) if ends_send(self.raw, index, self.send_ends) else None

    def send_loop(self, offset: int, after: int, arg: int) -> Optional[int]:
        """``GET_AWAITABLE``/``GET_YIELD_FROM_ITER`` and the send loop after it: one ``AWAIT``
        (``GET_YIELD_FROM_ITER; YIELD_FROM``)."""
        end = self._yield_from_end(after) if _YIELD_FROM >= 0 else None
        if end is None:  # (not the plain 3.8 - 3.10 loop: the raw instructions tell)
            index = await_end(self.raw, self.raw_index(offset))
            if index is None:
                return None
            end = self.offset_of(index)
        if self.opname_at(offset) == "GET_AWAITABLE":
            self.emit(offset, "AWAIT")
        else:
            self.emit(offset, "GET_YIELD_FROM_ITER")
            self.emit(offset, "YIELD_FROM")
        return end

    def _yield_from_end(self, after: int) -> Optional[int]:
        """3.8 - 3.10: the offset past a send loop ``LOAD_CONST None; YIELD_FROM`` at *after*,
        seen in the opcodes and the constant's operand (no ``EXTENDED_ARG``), without decoding
        the raw instructions as :func:`.awaits.await_end` does; None if it is not there."""
        code = self.bytes
        yield_from = self.following(after) if code[after] == _LOAD_CONST else len(code)
        if yield_from >= len(code) or code[yield_from] != _YIELD_FROM:
            return None
        return self.following(yield_from) if self.code.co_consts[code[after + 1]] is None else None

    def get_iter(self, offset: int, after: int, arg: int) -> Optional[int]:
        """A ``yield from``: 3.15 ``GET_ITER`` with its operand saying so and its send loop, or
        3.8 - 3.10 ``GET_ITER; LOAD_CONST; YIELD_FROM``."""
        end: Optional[int] = None
        if V.GET_ITER_YIELD_FROM is not None:
            if arg == V.GET_ITER_YIELD_FROM:
                index = await_end(self.raw, self.raw_index(offset))
                end = None if index is None else self.offset_of(index)
        elif self.opname_at(after) == "LOAD_CONST":
            yield_from = self.following(after)
            if self.opname_at(yield_from) == "YIELD_FROM":
                end = self.following(yield_from)
                end = end if end < len(self.bytes) else None  # (never the last instruction)
        if end is not None:
            self.emit(offset, "GET_YIELD_FROM_ITER")
            self.emit(offset, "YIELD_FROM")
        return end

    def known_sequence(self, offset: int, after: int, arg: int) -> Optional[int]:
        """3.12+ sequences of :mod:`.sequences` (a ``with`` entry, a builtin's guard, a ``type``)."""
        name = dis.opname[self.bytes[offset]]
        replacement = match_sequence(self.raw, self.raw_index(offset), name)
        if replacement is None:
            return None
        for op, value in replacement[0]:
            self.emit(offset, op, value)
        return self.offset_of(replacement[1])

    def for_exit_cleanup(self, offset: int, after: int, arg: int) -> Optional[int]:
        """3.12+: the ``END_FOR`` (``POP_TOP``/``POP_ITER``) a finished for loop runs: dropped."""
        for op in V.FOR_EXIT_CLEANUP[1:]:
            if self.opname_at(after) != op:
                return None
            after = self.following(after)
        return after


def _words(code: bytes, start: int) -> Iterator[Tuple[int, int, int]]:
    """``(offset, opcode, operand)`` of each raw instruction of *code* from *start* on, cache
    entries left out (3.11+: words whose opcode is ``CACHE``, 0); the loop over them runs in C."""
    opcodes = code[start::2]
    words = zip(range(start, len(code), 2), opcodes, code[start + 1 :: 2])
    return compress(words, opcodes) if V.INLINE_CACHES else words


_LOAD_CONST = dis.opmap["LOAD_CONST"]
_YIELD_FROM = dis.opmap.get("YIELD_FROM", -1)  # (3.8 - 3.10)

#: The :class:`_Reader` method that reads the sequences a raw instruction can start (by its
#: name), and the names of the raw instructions that can follow it in one (None: any).
_SEQUENCE_READERS: Dict[str, Tuple[str, Optional[FrozenSet[str]]]] = {
    "SETUP_FINALLY": ("async_for", frozenset({"GET_ANEXT"})),
    "GET_ANEXT": ("async_for", None),
    "END_ASYNC_FOR": ("async_for_end", None),
    "CLEANUP_THROW": ("cleanup_throw", None),
    "GET_AWAITABLE": ("send_loop", None),
    "GET_YIELD_FROM_ITER": ("send_loop", None),
    **{name: ("known_sequence", followers) for name, followers in SEQUENCE_FOLLOWERS.items()},
    **dict.fromkeys(V.FOR_EXIT_CLEANUP[:1], ("for_exit_cleanup", frozenset(V.FOR_EXIT_CLEANUP[1:2]) or None)),
    # a ``yield from``: GET_ITER; LOAD_CONST; YIELD_FROM (3.8 - 3.10), or 3.15 GET_ITER's own operand
    **(
        {"GET_ITER": ("get_iter", None if V.GET_ITER_YIELD_FROM is not None else frozenset({"LOAD_CONST"}))}
        if "YIELD_FROM" in dis.opmap or V.GET_ITER_YIELD_FROM is not None
        else {}
    ),
}

#: Per raw opcode, how :meth:`_Reader.run` reads it (:func:`uncompile.bytecode.readings.reading_table`).
_READINGS = reading_table(_Reader, _SEQUENCE_READERS)


def read_instructions(code: CodeType) -> List[Instr]:
    """The neutral instructions of *code* (not of nested code objects), ``index`` filled in."""
    return read_code_instructions(code).instrs


def read_indexed_instructions(code: CodeType) -> Tuple[List[Instr], Dict[int, int]]:
    """:func:`read_instructions` and the index of the first instruction at each offset kept."""
    reading = read_code_instructions(code)
    return reading.instrs, reading.first_at


class CodeReading(NamedTuple):
    """What the reader finds in a code object, besides its instructions: what the control-flow
    graph and the check for straight-line code would otherwise look for again in all of them."""

    instrs: List[Instr]
    first_at: Dict[int, int]  # the index of the first instruction at each offset kept
    jumps: List[int]  # the indices of the instructions with a target, in order
    ends: List[int]  # the indices of the instructions that end a path (ENDS_PATH), in order


def read_code_instructions(code: CodeType) -> CodeReading:
    """:func:`read_instructions` and where the reader found offsets, jumps and path ends."""
    reader = _Reader(code)
    out = reader.run()
    first_at = reader.first_at
    kept: Optional[List[int]] = None
    for index in reader.jumps:
        ins = out[index]
        if ins.target not in first_at:  # a dropped instruction: go to the next one kept
            if kept is None:
                kept = list(first_at)  # (ascending: instructions are read in offset order)
            following = bisect_right(kept, ins.target)  # type: ignore[type-var]
            if following < len(kept):
                cast(JumpInstr, ins).target = kept[following]
    return _new_tuple(CodeReading, (out, first_at, reader.jumps, reader.ends))


#: Makes a :class:`CodeReading` without its constructor's call (3.8's is a Python function).
_new_tuple = tuple.__new__
