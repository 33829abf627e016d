"""How each raw opcode is read into neutral instructions (see :mod:`uncompile.bytecode.instructions`).

Every raw opcode gets one *reading*, chosen once at import time (:func:`reading_table`). Most
readings are done by the reader's loop itself; the others call a method of :class:`Readings`,
which reads one raw instruction as zero or more neutral ones through the reader's ``emit``.
A method whose reading depends on the operand alone, for every operand below 256, is asked
once per operand at import time instead: its readings are *tabulated* (:func:`_tabulate`).
"""

from __future__ import annotations

import dis
from typing import Any, Callable, Dict, List, Optional, Tuple

from . import reader as R
from . import versions as V

#: The readings, by the neutral instruction they make: ``arg`` is the entry of the table of the
#: code object the operand indexes (locals, constants, names, cells: :data:`INDEXED`),
#: ``(value, index)`` of a constant (:data:`CONSTANT`; 3.14+ ``LOAD_SMALL_INT``: ``(operand,
#: operand)``, :data:`SMALL_INT`), ``(name, flag)`` of a name load (:data:`NAME_AND_FLAG`: the
#: flag by the operand's low bit, from the reading's detail, :func:`_name_flags`), None
#: (:data:`NONE`), the integer operand (:data:`INT_ARG`), a ``CALL``'s ``(argc, kwnames,
#: null_slot)`` (:data:`CALL`, the detail says whether it has a ``NULL``/self slot), the
#: ``argval`` of :func:`uncompile.bytecode.reader.operand_value` (:data:`OPERAND_VALUE`); or a
#: jump, no ``arg`` and the target ``origin * offset + base + scale * operand`` (:data:`JUMP`, the
#: detail ``(origin, base, scale)``); or the ``(op, arg)`` of the operand in the detail's table
#: (:data:`TABULATED`). Nothing is made of a no-op (:data:`NO_OP`), of ``EXTENDED_ARG``
#: (:data:`EXTENDED`: it prefixes the next operand) and of 3.11 - 3.12 ``KW_NAMES``
#: (:data:`KEYWORD_NAMES`: the constant is the next call's ``kwnames``); a :data:`HANDLER` is
#: the method of the detail. A return or a raise read in the loop (:data:`ENDS_PATH`) is a
#: :data:`PATH_END`: its integer operand (None: it has none), and the reader notes where it is.
(
    INDEXED,
    CONSTANT,
    SMALL_INT,
    NAME_AND_FLAG,
    NONE,
    INT_ARG,
    CALL,
    JUMP,
    TABULATED,
    NO_OP,
    EXTENDED,
    KEYWORD_NAMES,
    OPERAND_VALUE,
    HANDLER,
    PATH_END,
) = range(15)

#: The neutral instructions after which no path goes on (a return, a raise): the reader keeps
#: where they are (:data:`PATH_END`, and any emitted).
ENDS_PATH = frozenset({"RETURN_VALUE", "RAISE_VARARGS", "RERAISE", "RAISE_WITH_TRACEBACK"})


class Readings:
    """The readings done by a method: each reads one raw instruction at *offset* with operand
    *arg* (None: it has none) and ``argval`` *argval* as neutral instructions named after
    *name* (its neutral name, :data:`uncompile.bytecode.versions.RENAMED`), through ``emit``.
    They read nothing else (no state of the reader), so that they can be tabulated."""

    __slots__ = ()

    def emit(self, offset: int, op: str, arg: Any = None, target: Optional[int] = None) -> None:
        raise NotImplementedError

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

    def constant(self, offset: int, arg: Optional[int], argval: Any, name: str) -> None:
        """A constant whose operand is no index into the constants."""
        self.emit(offset, name, (argval, arg))

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

    def load_super_attr(self, offset: int, arg: Optional[int], argval: Any, name: str) -> None:
        oparg = arg or 0
        self.emit(offset, "LOAD_SUPER_ATTR", (argval, bool(oparg & 1), bool(oparg & 2)))

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


#: How neutral instruction names are read when not as most are (see :func:`_reading_name`).
_NAMED_READINGS: Dict[str, str] = {
    "CALL_FINALLY": "arg_value",  # 3.8: runs a finally body and comes back; no edge of its own
    "RETURN_CONST": "return_const",
    "LOAD_CONST": "constant",
    "POP_ITER": "pop_iter",
    "LOAD_COMMON_CONSTANT": "common_constant",
    "IMPORT_NAME": "import_name",
    "LOAD_GLOBAL": "name_and_flag",  # (3.8: see legacy_assertion_errors)
    "LOAD_ATTR": "name_and_flag",
    "LOAD_SUPER_ATTR": "load_super_attr",
    "KW_NAMES": "keyword_names",
    **dict.fromkeys(("CALL", "CALL_FUNCTION", "CALL_METHOD"), "call"),
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

_JUMP_OPCODES = frozenset(dis.hasjrel) | frozenset(dis.hasjabs)


def _reading_name(opcode: int, opname: str, name: str) -> str:
    """How raw *opname* (neutral *name*) is read: one of :data:`_LOOP_READINGS` or a
    :class:`Readings` method."""
    if opname == "EXTENDED_ARG":
        return "extended"
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
    if name in _NAMED_READINGS:
        return _NAMED_READINGS[name]
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

#: The readings the reader's loop does itself, by the name :func:`_reading_name` gives.
_LOOP_READINGS = {
    "constant": CONSTANT,
    "name_and_flag": NAME_AND_FLAG,
    "int_arg": INT_ARG,
    "call": CALL,
    "jump": JUMP,
    "no_op": NO_OP,
    "extended": EXTENDED,
    "keyword_names": KEYWORD_NAMES,
}


def _name_flags(opname: str) -> Tuple[bool, bool]:
    """The flag of a ``(name, flag)`` load by the low bit of its operand: ``LOAD_GLOBAL`` pushes a
    ``NULL`` (3.11+: the bit says), ``LOAD_ATTR`` loads a method (3.12+: the bit says; before,
    ``LOAD_METHOD`` does)."""
    if opname == "LOAD_METHOD":
        return (True, True)
    flagged = V.VERSION >= ((3, 11) if opname == "LOAD_GLOBAL" else (3, 12))
    return (False, flagged)


def _reading(opcode: int, opname: str, how: str, kind: int) -> Tuple[int, Any]:
    """The reading named *how* of a raw *opcode* (operand *kind*) and its detail: the handler
    method's name, the flags of a name load, the jump form of a jump, whether a call has a
    ``NULL``/self slot."""
    if how == "arg_value":  # what the operand means: read in the loop where it is quick
        if kind <= R.CELL:
            return INDEXED, None
        if kind == R.NO_ARG:
            return NONE, None
        return (INT_ARG, None) if kind == R.PLAIN else (OPERAND_VALUE, None)
    if how == "constant" and kind != R.CONST:  # 3.14+ LOAD_SMALL_INT: the operand is the value
        return (SMALL_INT, None) if kind == R.PLAIN else (HANDLER, "constant")
    if how == "jump" and kind == R.NO_ARG:  # SETUP_ANNOTATIONS (its name only looks like one)
        return NONE, None
    if how == "int_arg" and kind == R.NO_ARG:  # (3.8 - 3.10: an opcode below HAVE_ARGUMENT)
        return NONE, None
    reading = _LOOP_READINGS.get(how, HANDLER)
    if reading == HANDLER:
        return reading, how
    if reading == NAME_AND_FLAG:
        return reading, _name_flags(opname)
    if reading == JUMP:
        assert kind in (R.JUMP_FORWARD, R.JUMP_BACKWARD, R.JUMP_ABSOLUTE), opname
        return reading, R.DECODING[opcode][3]
    if reading == CALL:
        return reading, V.CALL_HAS_NULL_SLOT or opname == "CALL_METHOD"
    return reading, None


#: Operand kinds whose ``argval`` needs nothing of a code object (no table, no offset).
_SELF_CONTAINED_KINDS = frozenset(
    {R.NO_ARG, R.PLAIN, R.COMPARE, R.FORMAT_VALUE, R.CONVERT_VALUE, R.COMMON_CONSTANT}
)


class _Recorder:
    """Stands for the reader while a method is tabulated: keeps what it emits."""

    def __init__(self) -> None:
        self.emitted: List[Tuple[str, Any, Optional[int]]] = []

    def emit(self, offset: int, op: str, arg: Any = None, target: Optional[int] = None) -> None:
        self.emitted.append((op, arg, target))


def _tabulate(
    method: Callable[..., None], opcode: int, name: str, kind: int
) -> Optional[List[Tuple[str, Any]]]:
    """The ``(op, arg)`` *method* reads each operand of *opcode* (neutral *name*) as, by operand,
    when that is one neutral instruction without a target and depends on the operand alone
    (*kind* is self-contained), and the operands it reads are those below some bound under
    256 (those at and above it raise :class:`IndexError`/:class:`KeyError`, so a larger operand
    made with ``EXTENDED_ARG`` is no valid one either). None for the other methods."""
    if kind not in _SELF_CONTAINED_KINDS:
        return None
    table: List[Tuple[str, Any]] = []
    past_bound = False
    for arg in (None,) if kind == R.NO_ARG else range(256):
        recorder = _Recorder()
        try:
            method(recorder, 0, arg, R.operand_value(opcode, arg, 0, ()), name)
        except (IndexError, KeyError):
            past_bound = True
            continue
        if past_bound or len(recorder.emitted) != 1 or recorder.emitted[0][2] is not None:
            return None
        table.append(recorder.emitted[0][:2])
    if kind == R.NO_ARG:
        return table * 256 if table else None  # (what follows the opcode is no operand)
    return table if past_bound else None  # (every operand read: larger ones may be too)


Entry = Tuple[str, int, Any, Optional[Tuple[Callable[..., Optional[int]], Any]], int, int, int]


def reading_table(reader: type, sequence_readers: Dict[str, Tuple[str, Optional[frozenset]]]) -> List[Entry]:
    """Per raw opcode: ``(name, reading, detail, sequence, kind, shift, step)``: its neutral name,
    its reading and the reading's detail (for :data:`HANDLER`, the method of *reader*; for
    :data:`TABULATED`, the table), the method of *reader* that reads the sequences that may start
    with it and the opcodes that may follow it in such a sequence (None: any), from
    *sequence_readers* (by raw name, the method's name and the names of those opcodes; None for
    most), and how its operand is decoded (:data:`uncompile.bytecode.reader.DECODING`: operand
    kind, flag bits of a name, bytes to the next instruction)."""
    table: List[Entry] = []
    for opcode, opname in enumerate(dis.opname[:256]):  # (pseudo instructions, 256 on, are never in code)
        name = V.RENAMED.get(opname, opname)
        kind, shift, step, _jump = R.DECODING[opcode]
        reading, detail = _reading(opcode, opname, _reading_name(opcode, opname, name), kind)
        if reading == HANDLER:
            detail = getattr(reader, detail)
            readings = _tabulate(detail, opcode, name, kind)
            if readings is not None:
                reading, detail = TABULATED, readings
        elif reading == CALL:
            name = "CALL"
        if name in ENDS_PATH and reading in (NONE, INT_ARG):
            reading = PATH_END
        # (the reader notes a path end made in its loop by this reading only, emitted ones in emit)
        assert reading in (PATH_END, HANDLER, TABULATED) or name not in ENDS_PATH, opname
        assert reading != TABULATED or not any(op in ENDS_PATH for op, _ in detail), opname
        assert reading != INDEXED or not shift, (
            opname
        )  # (the reader's loop indexes with the operand as it is)
        sequence: Any = None
        if opname in sequence_readers:
            method, followers = sequence_readers[opname]
            opcodes = (
                None if followers is None else frozenset(dis.opmap[f] for f in followers if f in dis.opmap)
            )
            sequence = (getattr(reader, method), opcodes)
        table.append((name, reading, detail, sequence, kind, shift, step))
    return table


def legacy_assertion_errors(out: List[Any]) -> None:
    """3.8: an ``assert`` loads ``AssertionError`` as a global: such loads of *out* (neutral
    instructions of a code object) become ``LOAD_ASSERTION_ERROR``, as 3.9+ read. A load is one
    when it follows the ``POP_JUMP_IF_TRUE`` of the test (also after a chain's cleanup, ``SWAP;
    POP_TOP``). (The reader asks only for code that names ``AssertionError``.)"""
    for index, ins in enumerate(out):
        if ins.op != "LOAD_GLOBAL" or ins.arg[0] != "AssertionError" or index == 0:
            continue
        before = [x.op for x in out[max(0, index - 2) : index]]
        if before[-1] == "POP_JUMP_IF_TRUE" or before == ["SWAP", "POP_TOP"]:
            ins.op = "LOAD_ASSERTION_ERROR"
            ins.arg = None
