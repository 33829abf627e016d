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
* an ``await``/``yield from`` loop (``SEND``...) is one ``AWAIT``/``YIELD_FROM``;
* ``FOR_ITER`` targets the first instruction after the loop's ``END_FOR``/``POP_ITER``;
* 3.14+: a ``with`` entry (``LOAD_SPECIAL``...) is ``BEFORE_WITH`` and an inlined
  ``all``/``any``/``tuple`` call is the plain call (:mod:`.sequences`);
  ``LOAD_COMMON_CONSTANT`` is ``LOAD_CONST``, ``LOAD_ASSERTION_ERROR`` or ``LOAD_BUILTIN name``;
  a 3.15 ``lazy`` import is ``IMPORT_NAME_LAZY``.

Every ``Instr`` keeps the ``offset`` of the original instruction it came from.
"""

from __future__ import annotations

import dis
from types import CodeType
from typing import Any, Callable, Dict, List, Optional, Set, Tuple

from . import versions as V
from .reader import RawInstruction, read_raw
from .sequences import match_sequence


class Instr:
    """One neutral instruction: ``op`` and ``arg`` as described in the module docstring."""

    __slots__ = ("offset", "op", "arg", "target", "index")

    def __init__(self, offset: int, op: str, arg: Any = None, target: Optional[int] = None) -> None:
        self.offset = offset
        self.op = op
        self.arg = arg
        self.target = target
        self.index = -1

    def __repr__(self) -> str:
        where = " -> %d" % self.target if self.target is not None else ""
        return "<%d %s %r%s>" % (self.offset, self.op, self.arg, where)


_JUMP_OPCODES = frozenset(dis.hasjrel) | frozenset(dis.hasjabs)

#: Raw instructions that may start a sequence read as other neutral instructions (:meth:`_Reader.sequence`).
_SEQUENCE_STARTS = frozenset(
    {"GET_ITER", "GET_AWAITABLE", "GET_YIELD_FROM_ITER", "GET_ANEXT", "COPY", "LOAD_GLOBAL"}
    | set(V.FOR_EXIT_CLEANUP[:1])
)


def _await_end(raw: List[RawInstruction], i: int) -> Optional[int]:
    """Index just past an ``await``/``yield from`` send loop starting at ``raw[i]``, or None."""
    j = i + 1
    while j < len(raw) and raw[j].opname in ("CACHE", "EXTENDED_ARG", "PUSH_NULL"):  # 3.15: PUSH_NULL
        j += 1
    if (
        j + 1 >= len(raw)
        or raw[j].opname not in ("LOAD_CONST", "LOAD_COMMON_CONSTANT")
        or raw[j].argval is not None
    ):
        return None
    send = raw[j + 1]
    if send.opname == "YIELD_FROM":  # 3.8 - 3.10
        return j + 2
    if send.opname != "SEND":
        return None
    k = j + 2
    while k < len(raw) and raw[k].offset < send.argval:
        k += 1
    if k < len(raw) and raw[k].opname == "END_SEND":
        k += 1
    return k


class _Reader:
    """Turns raw instructions into neutral ones (one pass, see module docstring).

    Each raw opcode has a handler method chosen once (:data:`_HANDLERS`, by :func:`_handler_name`);
    the few sequences that read as other instructions are matched first (:meth:`sequence`).
    """

    def __init__(self, code: CodeType) -> None:
        self.code = code
        self.raw = read_raw(code)
        self.out: List[Instr] = []
        self.kwnames: Optional[tuple] = None

    def emit(self, ins: RawInstruction, op: str, arg: Any = None, target: Optional[int] = None) -> None:
        self.out.append(Instr(ins.offset, op, arg, target))

    def run(self) -> List[Instr]:
        raw = self.raw
        handlers = _HANDLERS
        i = 0
        while i < len(raw):
            ins = raw[i]
            if ins.opname in _SEQUENCE_STARTS:
                end = self.sequence(i)
                if end is not None:
                    i = end
                    continue
            name, handler = handlers[ins.opcode]
            handler(self, ins, name)
            i += 1
        return self.out

    def sequence(self, i: int) -> Optional[int]:
        """Emit the neutral form of a sequence of raw instructions at *i*; the index after it, or None."""
        raw = self.raw
        ins = raw[i]
        name = ins.opname
        if name == "GET_ITER" and V.GET_ITER_YIELD_FROM is not None and ins.arg == V.GET_ITER_YIELD_FROM:
            name = "GET_YIELD_FROM_ITER"  # 3.15
        if name in ("GET_AWAITABLE", "GET_YIELD_FROM_ITER", "GET_ANEXT"):
            end = _await_end(raw, i)
            if end is not None:
                if name == "GET_ANEXT":
                    self.emit(ins, "GET_ANEXT")
                elif name == "GET_YIELD_FROM_ITER":
                    self.emit(ins, "GET_YIELD_FROM_ITER")
                    self.emit(ins, "YIELD_FROM")
                else:
                    self.emit(ins, "AWAIT")
                return end
        if (
            name == "GET_ITER"
            and i + 3 < len(raw)
            and raw[i + 1].opname == "LOAD_CONST"
            and raw[i + 2].opname == "YIELD_FROM"
        ):  # 3.8 - 3.10 yield from
            self.emit(ins, "GET_YIELD_FROM_ITER")
            self.emit(ins, "YIELD_FROM")
            return i + 3
        replacement = match_sequence(raw, i)
        if replacement is not None:
            for op, arg in replacement[0]:
                self.emit(ins, op, arg)
            return replacement[1]
        cleanup = V.FOR_EXIT_CLEANUP
        if (
            cleanup
            and name == cleanup[0]
            and all(i + k < len(raw) and raw[i + k].opname == op for k, op in enumerate(cleanup))
        ):
            return i + len(cleanup)
        return None

    # -- one raw instruction: *name* is its neutral name (versions.RENAMED) ----------------

    def plain(self, ins: RawInstruction, name: str) -> None:
        self.emit(ins, name, ins.argval)

    def int_arg(self, ins: RawInstruction, name: str) -> None:
        self.emit(ins, name, ins.arg)

    def no_op(self, ins: RawInstruction, name: str) -> None:
        pass

    def superinstruction(self, ins: RawInstruction, name: str) -> None:
        first, second = V.SUPERINSTRUCTIONS[name]
        a, b = ins.argval
        self.emit(ins, first, a)
        self.emit(ins, second, b)

    def legacy_shuffle(self, ins: RawInstruction, name: str) -> None:
        """``DUP_TOP``/``ROT_TWO`` are ``COPY 1``/``SWAP 2``."""
        self.emit(ins, name, 1 if ins.opname == "DUP_TOP" else 2)

    def jump(self, ins: RawInstruction, name: str) -> None:
        self.emit(ins, name, None, ins.argval)

    def jump_or_pop(self, ins: RawInstruction, name: str) -> None:
        """``JUMP_IF_X_OR_POP`` is ``COPY 1; POP_JUMP_IF_X; POP_TOP``."""
        self.emit(ins, "COPY", 1)
        self.emit(ins, "POP_JUMP_IF_" + name.split("_")[2], None, ins.argval)
        self.emit(ins, "POP_TOP")

    def jump_if_not_exc_match(self, ins: RawInstruction, name: str) -> None:
        """3.9 - 3.10, as 3.8 ``COMPARE_OP`` exception match and a jump."""
        self.emit(ins, "EXC_MATCH")
        self.emit(ins, "POP_JUMP_IF_FALSE", None, ins.argval)

    def return_const(self, ins: RawInstruction, name: str) -> None:
        self.emit(ins, "LOAD_CONST", (ins.argval, ins.arg))
        self.emit(ins, "RETURN_VALUE")

    def load_const(self, ins: RawInstruction, name: str) -> None:
        self.emit(ins, "LOAD_CONST", (ins.argval, ins.arg))

    def pop_iter(self, ins: RawInstruction, name: str) -> None:
        """3.14+: leaving a for loop early pops its iterator."""
        for _ in range(V.ITERATOR_SLOTS):
            self.emit(ins, "POP_TOP")

    def common_constant(self, ins: RawInstruction, name: str) -> None:
        """3.14+ ``LOAD_COMMON_CONSTANT``: a literal is ``LOAD_CONST``, a builtin ``LOAD_BUILTIN`` name."""
        value = V.COMMON_CONSTANTS[ins.arg or 0]
        if value is AssertionError:
            self.emit(ins, "LOAD_ASSERTION_ERROR")
        elif isinstance(value, type) or callable(value):
            self.emit(ins, "LOAD_BUILTIN", getattr(value, "__name__", repr(value)))
        else:
            self.emit(ins, "LOAD_CONST", (value, None))

    def import_name(self, ins: RawInstruction, name: str) -> None:
        if (ins.arg or 0) & V.IMPORT_NAME_LAZY_FLAG:
            self.emit(ins, "IMPORT_NAME_LAZY", ins.argval)
        else:
            self.emit(ins, name, ins.argval)

    def load_global(self, ins: RawInstruction, name: str) -> None:
        arg = ins.argval
        if (
            V.ASSERT_LOADS_GLOBAL
            and arg == "AssertionError"
            and self.out
            and (
                self.out[-1].op == "POP_JUMP_IF_TRUE"  # 3.8 ``assert``, also after a chain's cleanup
                or [x.op for x in self.out[-2:]] == ["SWAP", "POP_TOP"]
            )
        ):
            self.emit(ins, "LOAD_ASSERTION_ERROR")
            return
        null = bool((ins.arg or 0) & 1) if V.VERSION >= (3, 11) else False
        self.emit(ins, "LOAD_GLOBAL", (arg, null))

    def load_attr(self, ins: RawInstruction, name: str) -> None:
        method = ins.opname == "LOAD_METHOD" or (V.VERSION >= (3, 12) and bool((ins.arg or 0) & 1))
        self.emit(ins, "LOAD_ATTR", (ins.argval, method))

    def load_super_attr(self, ins: RawInstruction, name: str) -> None:
        oparg = ins.arg or 0
        self.emit(ins, "LOAD_SUPER_ATTR", (ins.argval, bool(oparg & 1), bool(oparg & 2)))

    def kw_names(self, ins: RawInstruction, name: str) -> None:
        self.kwnames = self.code.co_consts[ins.arg or 0]

    def call(self, ins: RawInstruction, name: str) -> None:
        null_slot = V.CALL_HAS_NULL_SLOT or name == "CALL_METHOD"
        self.emit(ins, "CALL", (ins.arg, self.kwnames, null_slot))
        self.kwnames = None

    def call_kw(self, ins: RawInstruction, name: str) -> None:
        self.emit(ins, "CALL_KW", (ins.arg, name == "CALL_KW"))

    def call_function_ex(self, ins: RawInstruction, name: str) -> None:
        self.emit(ins, "CALL_FUNCTION_EX", (bool((ins.arg or 0) & 1), V.CALL_HAS_NULL_SLOT))

    def binary_op(self, ins: RawInstruction, name: str) -> None:
        if ins.argrepr == "[]":
            self.emit(ins, "BINARY_SUBSCR")
        else:
            self.emit(ins, "BINARY_OP", V.BINARY_OPERATORS[ins.arg or 0])

    def legacy_binary_op(self, ins: RawInstruction, name: str) -> None:
        self.emit(ins, "BINARY_OP", V.LEGACY_BINARY_OPCODES[name])

    def compare_op(self, ins: RawInstruction, name: str) -> None:
        text = ins.argval if isinstance(ins.argval, str) else ins.argrepr
        if text in V.LEGACY_COMPARE_OPCODES:  # 3.8: is / in / exception match
            legacy_op, legacy_arg = V.LEGACY_COMPARE_OPCODES[text]
            self.emit(ins, legacy_op, legacy_arg)
            return
        self.emit(ins, "COMPARE_OP", text.replace("bool(", "").rstrip(")"))

    def flag_op(self, ins: RawInstruction, name: str) -> None:
        """``IS_OP``/``CONTAINS_OP``: the argument says whether the test is negated."""
        self.emit(ins, name, bool(ins.arg))

    def intrinsic_1(self, ins: RawInstruction, name: str) -> None:
        self.emit(ins, name, V.INTRINSIC_1[ins.arg or 0])

    def intrinsic_2(self, ins: RawInstruction, name: str) -> None:
        self.emit(ins, name, V.INTRINSIC_2[ins.arg or 0])

    def format_value(self, ins: RawInstruction, name: str) -> None:
        oparg = ins.arg or 0
        self.emit(ins, name, (V.FORMAT_CONVERSIONS[oparg & 3], bool(oparg & 4)))

    def convert_value(self, ins: RawInstruction, name: str) -> None:
        self.emit(ins, name, V.FORMAT_CONVERSIONS[ins.arg or 0])


#: Handlers of neutral instruction names read in a way of their own (others: see :func:`_handler_name`).
_NAMED_HANDLERS: Dict[str, str] = {
    "CALL_FINALLY": "plain",  # 3.8: runs a finally body and comes back; no edge of its own
    "RETURN_CONST": "return_const",
    "LOAD_CONST": "load_const",
    "POP_ITER": "pop_iter",
    "LOAD_COMMON_CONSTANT": "common_constant",
    "IMPORT_NAME": "import_name",
    "LOAD_GLOBAL": "load_global",
    "LOAD_ATTR": "load_attr",
    "LOAD_SUPER_ATTR": "load_super_attr",
    "KW_NAMES": "kw_names",
    "CALL": "call",
    "CALL_FUNCTION": "call",
    "CALL_METHOD": "call",
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
}

#: Jumps whose target is an exception handler, a loop exit or a send loop's end, not a branch.
_TARGET_OPS = frozenset(
    {"FOR_ITER", "SEND", "SETUP_FINALLY", "SETUP_WITH", "SETUP_ASYNC_WITH", "SETUP_CLEANUP"}
)


def _handler_name(opcode: int, opname: str, name: str) -> str:
    """The :class:`_Reader` method that reads raw *opname* (neutral *name*)."""
    if name in V.NO_OPS:
        return "no_op"
    if name in V.SUPERINSTRUCTIONS:
        return "superinstruction"
    if opname in ("DUP_TOP", "ROT_TWO"):
        return "legacy_shuffle"
    if name == "CALL_FINALLY":
        return "plain"
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
    return "int_arg" if name in _INT_ARG_OPS else "plain"


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


Handler = Callable[[_Reader, RawInstruction, str], None]


def _handler_table() -> List[Tuple[str, Handler]]:
    """Per raw opcode: its neutral name and the :class:`_Reader` method that reads it."""
    table = []
    for opcode, opname in enumerate(dis.opname):
        name = V.RENAMED.get(opname, opname)
        table.append((name, getattr(_Reader, _handler_name(opcode, opname, name))))
    return table


_HANDLERS = _handler_table()


def read_instructions(code: CodeType) -> List[Instr]:
    """The neutral instructions of *code* (not of nested code objects), ``index`` filled in."""
    reader = _Reader(code)
    out = reader.run()
    kept = {ins.offset for ins in out}
    moved: Optional[Dict[int, int]] = None
    for index, ins in enumerate(out):
        ins.index = index
        if ins.target is not None and ins.target not in kept:
            if moved is None:
                moved = _next_kept(reader.raw, kept)
            ins.target = moved.get(ins.target, ins.target)
    return out


def _next_kept(raw: List[RawInstruction], kept: Set[int]) -> Dict[int, int]:
    """Where jumps to dropped instructions go: the offset of the next instruction kept."""
    moved: Dict[int, int] = {}
    dropped: List[int] = []
    for ins in raw:
        if ins.offset in kept:
            for offset in dropped:
                moved[offset] = ins.offset
            dropped = []
        else:
            dropped.append(ins.offset)
    return moved
