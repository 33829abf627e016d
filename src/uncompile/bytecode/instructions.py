"""A version-neutral view of a code object's instructions.

:func:`read_instructions` reads ``code.co_code`` once (:mod:`uncompile.bytecode.reader`) and returns a
list of :class:`Instr` whose ``op`` names and ``arg`` values mean the same on every
supported version (see :mod:`uncompile.bytecode.versions` for the facts used):

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
from types import CodeType
from typing import Any, Callable, Dict, FrozenSet, List, Optional, Tuple, cast

from . import versions as V
from .awaits import ASYNC, async_for_header, await_end, ends_send, send_ends
from .reader import decode
from .sequences import SEQUENCE_STARTS, match_sequence


class Instr:
    """One neutral instruction: ``op`` and ``arg`` as described in the module docstring."""

    __slots__ = ("offset", "op", "arg", "target", "index")

    def __init__(
        self, offset: int, op: str, arg: Any = None, target: Optional[int] = None, index: int = -1
    ) -> None:
        self.offset = offset
        self.op = op
        self.arg = arg
        self.target = target
        self.index = index

    def __repr__(self) -> str:
        where = " -> %d" % self.target if self.target is not None else ""
        return "<%d %s %r%s>" % (self.offset, self.op, self.arg, where)


#: Makes an :class:`Instr` without the Python-level call of its ``__init__`` (the fields are set after).
_new_instr = object.__new__

_JUMP_OPCODES = frozenset(dis.hasjrel) | frozenset(dis.hasjabs)


class _Reader:
    """Turns raw instructions into neutral ones (one pass, see module docstring).

    Each raw opcode has a reading chosen once (:data:`_READINGS`, by :func:`_handler_name`): most
    instructions are read in :meth:`run` itself (the argument value, the integer argument, a jump
    target, or nothing); the others by a handler method. The few sequences that read as other
    instructions are matched first, by the method of :data:`_SEQUENCE_READERS` for the raw
    instruction they can start with.
    """

    def __init__(self, code: CodeType) -> None:
        self.code = code
        self.out: List[Instr] = []
        self.first_at: Dict[int, int] = {}  # the index of the first instruction at each offset
        self.jumps: List[Instr] = []  # the instructions of out with a target
        self.kwnames: Optional[tuple] = None
        self.raw = decode(code)
        self._send_ends: Optional[FrozenSet[int]] = None
        self._handlers: Optional[List[Any]] = None

    def emit(self, offset: int, op: str, arg: Any = None, target: Optional[int] = None) -> None:
        out = self.out
        ins = _new_instr(Instr)  # as Instr(offset, op, arg, target, len(out)), without the call of __init__
        ins.offset = offset
        ins.op = op
        ins.arg = arg
        ins.target = target
        ins.index = index = len(out)
        self.first_at.setdefault(offset, index)
        out.append(ins)
        if target is not None:
            self.jumps.append(ins)

    def run(self) -> List[Instr]:
        out = self.out
        append = out.append
        add_jump = self.jumps.append
        first_at = self.first_at
        readings = _READINGS
        new = _new_instr
        resume = 0  # the index of the next raw instruction to read (past a sequence)
        for i, (offset, opcode, arg, argval) in enumerate(self.raw.fields):
            if i < resume:
                continue
            name, reading, detail, sequence = readings[opcode]
            if sequence is not None:
                end = sequence(self, i)
                if end is not None:
                    resume = end
                    continue
            target = None
            if reading == _ARG_VALUE:  # the readings by how often they come
                value = argval
            elif reading == _CONSTANT:
                value = (argval, arg)
            elif reading == _NO_OP:
                continue
            elif reading == _INT_ARG:
                value = arg
            elif reading == _NAME_AND_FLAG:
                value = (argval, detail[arg & 1])  # type: ignore[operator]  # (name loads have an operand)
            elif reading == _HANDLER:
                detail(self, offset, arg, argval, name)
                continue
            elif reading == _PLAIN_CALL:
                value = (arg, None, detail)
            else:  # _JUMP
                value = None
                target = argval
            ins = new(Instr)  # as in emit
            ins.offset = offset
            ins.op = name
            ins.arg = value
            ins.target = target
            ins.index = first_at[offset] = len(out)  # the only instruction from this raw one
            append(ins)
            if target is not None:
                add_jump(ins)
        return out

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
    # -- at a raw instruction its sequences can start with (:data:`_SEQUENCE_READERS`), emits the
    # -- neutral form of the sequence starting at index *i* and returns the index after it, or None

    def async_for(self, i: int) -> Optional[int]:
        """``SETUP_FINALLY`` (3.8 - 3.10) or ``GET_ANEXT`` (3.11+) starting an ``async for`` header."""
        header = async_for_header(self.raw, i, self.handler_target)
        if header is None:
            return None
        after, exit_offset = header
        self.emit(self.raw.fields[i][0], "FOR_ITER", ASYNC, exit_offset)
        return after

    def async_for_end(self, i: int) -> Optional[int]:
        """``END_ASYNC_FOR``: the loop's exit is the code after it."""
        return i + 1

    def cleanup_throw(self, i: int) -> Optional[int]:
        """3.12+: an await's ``CLEANUP_THROW; JUMP`` back to the end of its send loop."""
        return i + 2 if ends_send(self.raw, i, self.send_ends) else None

    def send_loop(self, i: int) -> Optional[int]:
        """``GET_AWAITABLE``/``GET_YIELD_FROM_ITER`` and the send loop after it: one ``AWAIT``
        (``GET_YIELD_FROM_ITER; YIELD_FROM``)."""
        end = await_end(self.raw, i)
        if end is None:
            return None
        offset = self.raw.fields[i][0]
        if self.raw.opname(i) == "GET_AWAITABLE":
            self.emit(offset, "AWAIT")
        else:
            self.emit(offset, "GET_YIELD_FROM_ITER")
            self.emit(offset, "YIELD_FROM")
        return end

    def get_iter(self, i: int) -> Optional[int]:
        """A ``yield from``: 3.15 ``GET_ITER`` with its operand saying so and its send loop, or
        3.8 - 3.10 ``GET_ITER; LOAD_CONST; YIELD_FROM``."""
        raw = self.raw
        offset, _opcode, arg, _argval = raw.fields[i]
        if V.GET_ITER_YIELD_FROM is not None:
            end = await_end(raw, i) if arg == V.GET_ITER_YIELD_FROM else None
        elif i + 3 < len(raw) and raw.opname(i + 1) == "LOAD_CONST" and raw.opname(i + 2) == "YIELD_FROM":
            end = i + 3
        else:
            end = None
        if end is not None:
            self.emit(offset, "GET_YIELD_FROM_ITER")
            self.emit(offset, "YIELD_FROM")
        return end

    def known_sequence(self, i: int) -> Optional[int]:
        """3.12+ sequences of :mod:`.sequences` (a ``with`` entry, a builtin's guard, a ``type``)."""
        replacement = match_sequence(self.raw, i, self.raw.opname(i))
        if replacement is None:
            return None
        offset = self.raw.fields[i][0]
        for op, value in replacement[0]:
            self.emit(offset, op, value)
        return replacement[1]

    def for_exit_cleanup(self, i: int) -> Optional[int]:
        """3.12+: the ``END_FOR`` (``POP_TOP``/``POP_ITER``) a finished for loop runs: dropped."""
        raw, cleanup = self.raw, V.FOR_EXIT_CLEANUP
        if all(i + k < len(raw) and raw.opname(i + k) == op for k, op in enumerate(cleanup)):
            return i + len(cleanup)
        return None

    # -- one raw instruction read by a method: *name* is its neutral name (versions.RENAMED) --

    def without_arg(self, offset: int, arg: Optional[int], argval: Any, name: str) -> None:
        """An argument that only says where the instruction is (a yield's stack depth, 3.12)."""
        self.emit(offset, name)

    def superinstruction(self, offset: int, arg: Optional[int], argval: Any, name: str) -> None:
        first, second = V.SUPERINSTRUCTIONS[name]
        a, b = argval
        self.emit(offset, first, a)
        self.emit(offset, second, b)

    def legacy_shuffle(self, offset: int, arg: Optional[int], argval: Any, name: str) -> None:
        """``DUP_TOP``/``ROT_TWO`` are ``COPY 1``/``SWAP 2``."""
        self.emit(offset, name, 1 if name == "COPY" else 2)

    def jump_or_pop(self, offset: int, arg: Optional[int], argval: Any, name: str) -> None:
        """``JUMP_IF_X_OR_POP`` is ``COPY 1; POP_JUMP_IF_X; POP_TOP``."""
        self.emit(offset, "COPY", 1)
        self.emit(offset, "POP_JUMP_IF_" + name.split("_")[2], None, argval)
        self.emit(offset, "POP_TOP")

    def jump_if_not_exc_match(self, offset: int, arg: Optional[int], argval: Any, name: str) -> None:
        """3.9 - 3.10, as 3.8 ``COMPARE_OP`` exception match and a jump."""
        self.emit(offset, "EXC_MATCH")
        self.emit(offset, "POP_JUMP_IF_FALSE", None, argval)

    def return_const(self, offset: int, arg: Optional[int], argval: Any, name: str) -> None:
        self.emit(offset, "LOAD_CONST", (argval, arg))
        self.emit(offset, "RETURN_VALUE")

    def pop_iter(self, offset: int, arg: Optional[int], argval: Any, name: str) -> None:
        """3.14+: leaving a for loop early pops its iterator."""
        for _ in range(V.ITERATOR_SLOTS):
            self.emit(offset, "POP_TOP")

    def common_constant(self, offset: int, arg: Optional[int], argval: Any, name: str) -> None:
        """3.14+ ``LOAD_COMMON_CONSTANT``: a literal is ``LOAD_CONST``, a builtin ``LOAD_BUILTIN`` name."""
        value = V.COMMON_CONSTANTS[arg or 0]
        if value is AssertionError:
            self.emit(offset, "LOAD_ASSERTION_ERROR")
        elif isinstance(value, type) or callable(value):
            self.emit(offset, "LOAD_BUILTIN", getattr(value, "__name__", repr(value)))
        else:
            self.emit(offset, "LOAD_CONST", (value, None))

    def import_name(self, offset: int, arg: Optional[int], argval: Any, name: str) -> None:
        if (arg or 0) & V.IMPORT_NAME_LAZY_FLAG:
            self.emit(offset, "IMPORT_NAME_LAZY", argval)
        else:
            self.emit(offset, name, argval)

    def legacy_load_global(self, offset: int, arg: Optional[int], argval: Any, name: str) -> None:
        """3.8: ``assert`` loads ``AssertionError`` as a global."""
        if (
            argval == "AssertionError"
            and self.out
            and (
                self.out[-1].op == "POP_JUMP_IF_TRUE"  # 3.8 ``assert``, also after a chain's cleanup
                or [x.op for x in self.out[-2:]] == ["SWAP", "POP_TOP"]
            )
        ):
            self.emit(offset, "LOAD_ASSERTION_ERROR")
            return
        self.emit(offset, "LOAD_GLOBAL", (argval, False))

    def load_super_attr(self, offset: int, arg: Optional[int], argval: Any, name: str) -> None:
        oparg = arg or 0
        self.emit(offset, "LOAD_SUPER_ATTR", (argval, bool(oparg & 1), bool(oparg & 2)))

    def kw_names(self, offset: int, arg: Optional[int], argval: Any, name: str) -> None:
        self.kwnames = self.code.co_consts[arg or 0]

    def call(self, offset: int, arg: Optional[int], argval: Any, name: str) -> None:
        """3.11 - 3.12: a call takes the keyword names of the ``KW_NAMES`` before it."""
        null_slot = V.CALL_HAS_NULL_SLOT or name == "CALL_METHOD"
        self.emit(offset, "CALL", (arg, self.kwnames, null_slot))
        self.kwnames = None

    def call_kw(self, offset: int, arg: Optional[int], argval: Any, name: str) -> None:
        self.emit(offset, "CALL_KW", (arg, name == "CALL_KW"))

    def call_function_ex(self, offset: int, arg: Optional[int], argval: Any, name: str) -> None:
        self.emit(offset, "CALL_FUNCTION_EX", (bool((arg or 0) & 1), V.CALL_HAS_NULL_SLOT))

    def binary_op(self, offset: int, arg: Optional[int], argval: Any, name: str) -> None:
        if V.BINARY_OPERATORS[arg or 0] == "[]":
            self.emit(offset, "BINARY_SUBSCR")
        else:
            self.emit(offset, "BINARY_OP", V.BINARY_OPERATORS[arg or 0])

    def legacy_binary_op(self, offset: int, arg: Optional[int], argval: Any, name: str) -> None:
        self.emit(offset, "BINARY_OP", V.LEGACY_BINARY_OPCODES[name])

    def compare_op(self, offset: int, arg: Optional[int], argval: Any, name: str) -> None:
        text = argval  # the operator (3.13+: without the ``bool(...)`` of its text)
        if text in V.LEGACY_COMPARE_OPCODES:  # 3.8: is / in / exception match
            legacy_op, legacy_arg = V.LEGACY_COMPARE_OPCODES[text]
            self.emit(offset, legacy_op, legacy_arg)
            return
        self.emit(offset, "COMPARE_OP", text)

    def flag_op(self, offset: int, arg: Optional[int], argval: Any, name: str) -> None:
        """``IS_OP``/``CONTAINS_OP``: the argument says whether the test is negated."""
        self.emit(offset, name, bool(arg))

    def intrinsic_1(self, offset: int, arg: Optional[int], argval: Any, name: str) -> None:
        intrinsic = V.INTRINSIC_1[arg or 0]
        if intrinsic not in V.NO_OP_INTRINSICS:
            self.emit(offset, name, intrinsic)

    def intrinsic_2(self, offset: int, arg: Optional[int], argval: Any, name: str) -> None:
        self.emit(offset, name, V.INTRINSIC_2[arg or 0])

    def format_value(self, offset: int, arg: Optional[int], argval: Any, name: str) -> None:
        oparg = arg or 0
        self.emit(offset, name, (V.FORMAT_CONVERSIONS[oparg & 3], bool(oparg & 4)))

    def convert_value(self, offset: int, arg: Optional[int], argval: Any, name: str) -> None:
        self.emit(offset, name, V.FORMAT_CONVERSIONS[arg or 0])


#: How neutral instruction names are read when not as most are (see :func:`_handler_name`).
_NAMED_HANDLERS: Dict[str, str] = {
    "CALL_FINALLY": "arg_value",  # 3.8: runs a finally body and comes back; no edge of its own
    "RETURN_CONST": "return_const",
    "LOAD_CONST": "constant",
    "POP_ITER": "pop_iter",
    "LOAD_COMMON_CONSTANT": "common_constant",
    "IMPORT_NAME": "import_name",
    "LOAD_GLOBAL": "legacy_load_global" if V.ASSERT_LOADS_GLOBAL else "name_and_flag",
    "LOAD_ATTR": "name_and_flag",
    "LOAD_SUPER_ATTR": "load_super_attr",
    "KW_NAMES": "kw_names",
    **dict.fromkeys(
        ("CALL", "CALL_FUNCTION", "CALL_METHOD"), "call" if "KW_NAMES" in dis.opmap else "plain_call"
    ),
    "CALL_KW": "call_kw",
    "CALL_FUNCTION_KW": "call_kw",
    "CALL_FUNCTION_EX": "call_function_ex",
    "BINARY_OP": "binary_op",
    "COMPARE_OP": "compare_op",
    "IS_OP": "flag_op",
    "CONTAINS_OP": "flag_op",
    "CALL_INTRINSIC_1": "intrinsic_1",
    "CALL_INTRINSIC_2": "intrinsic_2",
    "FORMAT_VALUE": "format_value",
    "CONVERT_VALUE": "convert_value",
    "YIELD_VALUE": "without_arg",
}

#: Jumps whose target is an exception handler, a loop exit or a send loop's end, not a branch.
_TARGET_OPS = frozenset(
    {"FOR_ITER", "SEND", "SETUP_FINALLY", "SETUP_WITH", "SETUP_ASYNC_WITH", "SETUP_CLEANUP"}
)


def _handler_name(opcode: int, opname: str, name: str) -> str:
    """How raw *opname* (neutral *name*) is read: one of :data:`_INLINE_READINGS` or a
    :class:`_Reader` method."""
    if name in V.NO_OPS:
        return "no_op"
    if name in V.SUPERINSTRUCTIONS:
        return "superinstruction"
    if opname in ("DUP_TOP", "ROT_TWO"):
        return "legacy_shuffle"
    if opname == "LOAD_METHOD":
        return "name_and_flag"
    if name == "CALL_FINALLY":
        return "arg_value"
    if opcode in _JUMP_OPCODES and name not in _TARGET_OPS:
        if name in ("JUMP_IF_FALSE_OR_POP", "JUMP_IF_TRUE_OR_POP"):
            return "jump_or_pop"
        if name == "JUMP_IF_NOT_EXC_MATCH":
            return "jump_if_not_exc_match"
        return "jump"
    if name in ("FOR_ITER", "SEND") or name.startswith("SETUP_"):
        return "jump"  # the target is the handler, the loop's exit or the send loop's end
    if name in _NAMED_HANDLERS:
        return _NAMED_HANDLERS[name]
    if name in V.LEGACY_BINARY_OPCODES:
        return "legacy_binary_op"
    return "int_arg" if name in _INT_ARG_OPS else "arg_value"


#: Instructions whose useful argument is the raw integer (counts, flags, depths).
_INT_ARG_OPS = frozenset(
    {
        "BUILD_TUPLE",
        "BUILD_LIST",
        "BUILD_SET",
        "BUILD_MAP",
        "BUILD_STRING",
        "BUILD_SLICE",
        "BUILD_CONST_KEY_MAP",
        "UNPACK_SEQUENCE",
        "UNPACK_EX",
        "COPY",
        "SWAP",
        "RAISE_VARARGS",
        "MAKE_FUNCTION",
        "SET_FUNCTION_ATTRIBUTE",
        "LIST_APPEND",
        "SET_ADD",
        "MAP_ADD",
        "LIST_EXTEND",
        "SET_UPDATE",
        "DICT_UPDATE",
        "DICT_MERGE",
        "RERAISE",
        "GET_AWAITABLE",
        "BUILD_TUPLE_UNPACK",
        "BUILD_LIST_UNPACK",
        "BUILD_MAP_UNPACK",
        "MATCH_CLASS",
        "ROT_N",
        "LOAD_CLOSURE_INDEX",
        "RESUME",
        "BUILD_INTERPOLATION",
        "BUILD_TEMPLATE",
    }
)


Handler = Callable[[_Reader, int, Optional[int], Any, str], None]

#: The readings :meth:`_Reader.run` does itself: the neutral instruction's ``arg`` is the raw
#: argument value, ``(value, index)`` of a constant, the integer argument, ``(name, flag)``
#: of a name load whose flag (pushes a ``NULL``/is a method load) :func:`_name_flags` gives,
#: or a ``CALL``'s ``(argc, None, null_slot)`` (no ``KW_NAMES`` on this version); a jump's
#: ``target`` is the raw argument value; a no-op gives nothing. Others call a handler.
_ARG_VALUE, _CONSTANT, _INT_ARG, _JUMP, _NO_OP, _NAME_AND_FLAG, _PLAIN_CALL, _HANDLER = range(8)
_INLINE_READINGS = {
    "arg_value": _ARG_VALUE,
    "constant": _CONSTANT,
    "int_arg": _INT_ARG,
    "jump": _JUMP,
    "no_op": _NO_OP,
    "name_and_flag": _NAME_AND_FLAG,
    "plain_call": _PLAIN_CALL,
}


def _name_flags(opname: str) -> Tuple[bool, bool]:
    """The flag of a ``(name, flag)`` load by the low bit of its operand: ``LOAD_GLOBAL`` pushes a
    ``NULL`` (3.11+: the bit says), ``LOAD_ATTR`` loads a method (3.12+: the bit says; before,
    ``LOAD_METHOD`` does)."""
    if opname == "LOAD_METHOD":
        return (True, True)
    flagged = V.VERSION >= ((3, 11) if opname == "LOAD_GLOBAL" else (3, 12))
    return (False, flagged)


#: The :class:`_Reader` method that reads the sequences a raw instruction can start (by its name).
_SEQUENCE_READERS: Dict[str, str] = {
    "SETUP_FINALLY": "async_for",
    "GET_ANEXT": "async_for",
    "END_ASYNC_FOR": "async_for_end",
    "CLEANUP_THROW": "cleanup_throw",
    "GET_AWAITABLE": "send_loop",
    "GET_YIELD_FROM_ITER": "send_loop",
    **dict.fromkeys(SEQUENCE_STARTS, "known_sequence"),
    **dict.fromkeys(V.FOR_EXIT_CLEANUP[:1], "for_exit_cleanup"),
    # a ``yield from``: GET_ITER; LOAD_CONST; YIELD_FROM (3.8 - 3.10), or 3.15 GET_ITER's own operand
    **({"GET_ITER": "get_iter"} if "YIELD_FROM" in dis.opmap or V.GET_ITER_YIELD_FROM is not None else {}),
}

SequenceReader = Callable[[_Reader, int], Optional[int]]


def _reading_table() -> List[Tuple[str, int, Any, Optional[SequenceReader]]]:
    """Per raw opcode: its neutral name, its reading, a detail of the reading (the handler method
    for :data:`_HANDLER`, the flags of :func:`_name_flags` for :data:`_NAME_AND_FLAG`, whether a
    :data:`_PLAIN_CALL` has a ``NULL``/self slot), and the method that reads the sequences that may
    start with it (None for most)."""
    table = []
    for opcode, opname in enumerate(dis.opname):
        name = V.RENAMED.get(opname, opname)
        how = _handler_name(opcode, opname, name)
        reading = _INLINE_READINGS.get(how, _HANDLER)
        detail: Any = None
        if reading == _HANDLER:
            detail = cast(Handler, getattr(_Reader, how))
        elif reading == _NAME_AND_FLAG:
            detail = _name_flags(opname)
        elif reading == _PLAIN_CALL:
            name, detail = "CALL", V.CALL_HAS_NULL_SLOT or opname == "CALL_METHOD"
        sequence = _SEQUENCE_READERS.get(opname)
        table.append((name, reading, detail, None if sequence is None else getattr(_Reader, sequence)))
    return table


_READINGS = _reading_table()


def read_instructions(code: CodeType) -> List[Instr]:
    """The neutral instructions of *code* (not of nested code objects), ``index`` filled in."""
    return read_indexed_instructions(code)[0]


def read_indexed_instructions(code: CodeType) -> Tuple[List[Instr], Dict[int, int]]:
    """:func:`read_instructions` and the index of the first instruction at each offset kept."""
    reader = _Reader(code)
    out = reader.run()
    first_at = reader.first_at
    kept: Optional[List[int]] = None
    for ins in reader.jumps:
        if ins.target not in first_at:  # a dropped instruction: go to the next one kept
            if kept is None:
                kept = sorted(first_at)
            following = bisect_right(kept, ins.target)  # type: ignore[type-var]
            if following < len(kept):
                ins.target = kept[following]
    return out, first_at
