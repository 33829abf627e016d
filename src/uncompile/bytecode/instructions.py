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
from bisect import bisect_left
from types import CodeType
from typing import Any, List, Optional

from . import versions as V
from .reader import RawInstruction, read_raw
from .sequences import match_sequence


class Instr:
    """One neutral instruction: ``op`` and ``arg`` as described in the module docstring."""

    __slots__ = ("offset", "op", "arg", "target", "line", "index")

    def __init__(
        self, offset: int, op: str, arg: Any = None, target: Optional[int] = None, line: Optional[int] = None
    ) -> None:
        self.offset = offset
        self.op = op
        self.arg = arg
        self.target = target
        self.line = line
        self.index = -1

    def __repr__(self) -> str:
        where = " -> %d" % self.target if self.target is not None else ""
        return "<%d %s %r%s>" % (self.offset, self.op, self.arg, where)


_JUMP_OPCODES = frozenset(dis.hasjrel) | frozenset(dis.hasjabs)


def _is_jump(ins: RawInstruction) -> bool:
    return ins.opcode in _JUMP_OPCODES


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
    """Turns ``dis`` instructions into neutral ones (one pass, see module docstring)."""

    def __init__(self, code: CodeType) -> None:
        self.code = code
        self.raw = read_raw(code)
        self.out: List[Instr] = []
        self.kwnames: Optional[tuple] = None

    def emit(self, ins: RawInstruction, op: str, arg: Any = None, target: Optional[int] = None) -> None:
        self.out.append(Instr(ins.offset, op, arg, target, ins.line))

    def run(self) -> List[Instr]:
        raw = self.raw
        i = 0
        while i < len(raw):
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
                    i = end
                    continue
            if (
                name == "GET_ITER"
                and i + 3 < len(raw)
                and raw[i + 1].opname == "LOAD_CONST"
                and raw[i + 2].opname == "YIELD_FROM"
            ):  # 3.8 - 3.10 yield from
                self.emit(ins, "GET_YIELD_FROM_ITER")
                self.emit(ins, "YIELD_FROM")
                i += 3
                continue
            replacement = match_sequence(raw, i)
            if replacement is not None:
                for op, arg in replacement[0]:
                    self.emit(ins, op, arg)
                i = replacement[1]
                continue
            cleanup = V.FOR_EXIT_CLEANUP
            if (
                cleanup
                and name == cleanup[0]
                and all(i + k < len(raw) and raw[i + k].opname == op for k, op in enumerate(cleanup))
            ):
                i += len(cleanup)
                continue
            self.one(ins)
            i += 1
        return self.out

    def one(self, ins: RawInstruction) -> None:  # noqa: C901 - a flat dispatch table
        name = V.RENAMED.get(ins.opname, ins.opname)
        if name in V.NO_OPS:
            return
        arg: Any = ins.argval
        oparg: int = ins.arg if ins.arg is not None else 0
        if name in V.SUPERINSTRUCTIONS:
            first, second = V.SUPERINSTRUCTIONS[name]
            a, b = ins.argval
            self.emit(ins, first, a)
            self.emit(ins, second, b)
            return
        if ins.opname in ("DUP_TOP", "ROT_TWO"):
            self.emit(ins, name, 1 if ins.opname == "DUP_TOP" else 2)
            return
        if name == "CALL_FINALLY":  # 3.8: runs a finally body and comes back; no edge of its own
            self.emit(ins, name, ins.argval)
            return
        if _is_jump(ins) and name not in (
            "FOR_ITER",
            "SEND",
            "SETUP_FINALLY",
            "SETUP_WITH",
            "SETUP_ASYNC_WITH",
            "SETUP_CLEANUP",
        ):
            target = ins.argval
            if name in ("JUMP_IF_FALSE_OR_POP", "JUMP_IF_TRUE_OR_POP"):
                self.emit(ins, "COPY", 1)
                self.emit(ins, "POP_JUMP_IF_" + name.split("_")[2], None, target)
                self.emit(ins, "POP_TOP")
                return
            if name == "JUMP_IF_NOT_EXC_MATCH":  # 3.9 - 3.10, as 3.8 COMPARE_OP exception match
                self.emit(ins, "EXC_MATCH")
                self.emit(ins, "POP_JUMP_IF_FALSE", None, target)
                return
            self.emit(ins, name, None, target)
            return
        if name in ("FOR_ITER", "SEND") or name.startswith("SETUP_"):
            self.emit(ins, name, None, ins.argval)
            return
        if name == "RETURN_CONST":
            self.emit(ins, "LOAD_CONST", (arg, ins.arg))
            self.emit(ins, "RETURN_VALUE")
            return
        if name == "LOAD_CONST":
            self.emit(ins, "LOAD_CONST", (arg, ins.arg))
            return
        if name == "POP_ITER":  # 3.14+: leaving a for loop early pops its iterator
            for _ in range(V.ITERATOR_SLOTS):
                self.emit(ins, "POP_TOP")
            return
        if name == "LOAD_COMMON_CONSTANT":  # 3.14+
            self._common_constant(ins)
            return
        if name == "IMPORT_NAME" and oparg & V.IMPORT_NAME_LAZY_FLAG:
            self.emit(ins, "IMPORT_NAME_LAZY", arg)
            return
        if (
            name == "LOAD_GLOBAL"
            and V.ASSERT_LOADS_GLOBAL
            and arg == "AssertionError"
            and self.out
            and (
                self.out[-1].op == "POP_JUMP_IF_TRUE"  # 3.8 ``assert``, also after a chain's cleanup
                or [x.op for x in self.out[-2:]] == ["SWAP", "POP_TOP"]
            )
        ):
            self.emit(ins, "LOAD_ASSERTION_ERROR")
            return
        if name == "LOAD_GLOBAL":
            null = bool(oparg & 1) if V.VERSION >= (3, 11) else False
            self.emit(ins, "LOAD_GLOBAL", (arg, null))
            return
        if name == "LOAD_ATTR":
            method = ins.opname == "LOAD_METHOD" or (V.VERSION >= (3, 12) and bool(oparg & 1))
            self.emit(ins, "LOAD_ATTR", (arg, method))
            return
        if name == "LOAD_SUPER_ATTR":
            self.emit(ins, "LOAD_SUPER_ATTR", (arg, bool(oparg & 1), bool(oparg & 2)))
            return
        if name == "KW_NAMES":
            self.kwnames = self.code.co_consts[oparg]
            return
        if name in ("CALL", "CALL_FUNCTION", "CALL_METHOD"):
            null_slot = V.CALL_HAS_NULL_SLOT or name == "CALL_METHOD"
            self.emit(ins, "CALL", (ins.arg, self.kwnames, null_slot))
            self.kwnames = None
            return
        if name in ("CALL_KW", "CALL_FUNCTION_KW"):
            self.emit(ins, "CALL_KW", (ins.arg, name == "CALL_KW"))
            return
        if name == "CALL_FUNCTION_EX":
            self.emit(ins, "CALL_FUNCTION_EX", (bool((ins.arg or 0) & 1), V.CALL_HAS_NULL_SLOT))
            return
        if name == "BINARY_OP":
            if ins.argrepr == "[]":
                self.emit(ins, "BINARY_SUBSCR")
                return
            self.emit(ins, "BINARY_OP", V.BINARY_OPERATORS[oparg])
            return
        if name in V.LEGACY_BINARY_OPCODES:
            self.emit(ins, "BINARY_OP", V.LEGACY_BINARY_OPCODES[name])
            return
        if name == "COMPARE_OP":
            text = ins.argval if isinstance(ins.argval, str) else ins.argrepr
            if text in V.LEGACY_COMPARE_OPCODES:  # 3.8: is / in / exception match
                legacy_op, legacy_arg = V.LEGACY_COMPARE_OPCODES[text]
                self.emit(ins, legacy_op, legacy_arg)
                return
            self.emit(ins, "COMPARE_OP", text.replace("bool(", "").rstrip(")"))
            return
        if name in ("IS_OP", "CONTAINS_OP"):
            self.emit(ins, name, bool(ins.arg))
            return
        if name == "CALL_INTRINSIC_1":
            self.emit(ins, name, V.INTRINSIC_1[oparg])
            return
        if name == "CALL_INTRINSIC_2":
            self.emit(ins, name, V.INTRINSIC_2[oparg])
            return
        if name == "FORMAT_VALUE":
            self.emit(ins, name, (V.FORMAT_CONVERSIONS[oparg & 3], bool(oparg & 4)))
            return
        if name == "CONVERT_VALUE":
            self.emit(ins, name, V.FORMAT_CONVERSIONS[oparg])
            return
        self.emit(ins, name, ins.arg if name in _INT_ARG_OPS else arg)

    def _common_constant(self, ins: RawInstruction) -> None:
        """``LOAD_COMMON_CONSTANT``: a literal is a ``LOAD_CONST``, a builtin a ``LOAD_BUILTIN`` name."""
        value = V.COMMON_CONSTANTS[ins.arg or 0]
        if value is AssertionError:
            self.emit(ins, "LOAD_ASSERTION_ERROR")
        elif isinstance(value, type) or callable(value):
            self.emit(ins, "LOAD_BUILTIN", getattr(value, "__name__", repr(value)))
        else:
            self.emit(ins, "LOAD_CONST", (value, None))


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


def read_instructions(code: CodeType) -> List[Instr]:
    """The neutral instructions of *code* (not of nested code objects), ``index`` filled in."""
    reader = _Reader(code)
    out = reader.run()
    # Jumps to a dropped instruction go to the next instruction that was kept.
    kept = sorted({ins.offset for ins in out})
    raw_offsets = {ins.offset for ins in reader.raw}
    for index, ins in enumerate(out):
        ins.index = index
        target = ins.target
        if target is not None and target in raw_offsets:
            k = bisect_left(kept, target)
            ins.target = kept[k] if k < len(kept) else target
    return out
