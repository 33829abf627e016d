"""A fast reader of a code object's raw instructions, decoding ``co_code`` directly.

How each opcode's operand is decoded is prepared once per opcode (:data:`DECODING`: its operand
kind, the flag bits of a name operand, the bytes to the next instruction, the form of a jump);
:func:`operand_value` gives the ``argval`` of one operand. The normalizer in
:mod:`uncompile.bytecode.instructions` decodes ``co_code`` with them in its own loop.

:func:`decode` gives the instructions :func:`dis.get_instructions` gives (no ``CACHE``
entries; ``EXTENDED_ARG`` included, its ``arg`` the accumulated value) as
:class:`RawInstructions`: one ``(offset, opcode, arg, argval)`` tuple per instruction, what the
normalizer's sequence readers read (:mod:`.awaits`, :mod:`.sequences`). Indexing it makes the
:class:`RawInstruction` of one, which adds its ``opname`` and, for the few instructions whose
text is read (``BINARY_OP``, ``COMPARE_OP``, ``LOAD_SPECIAL``), its ``argrepr``; :func:`read_raw`
lists them all. It costs a fraction of :mod:`dis`, which builds named tuples, positions and the
text of every argument.

Per-version encoding facts (jump units and direction, inline caches, flag bits in name
operands, paired local operands, comparison operand layout) come from
:mod:`uncompile.bytecode.versions`; which opcodes take constants, names, locals, cells or
jump offsets comes from the interpreter's own :mod:`dis` tables.

Lines are read apart, and only when asked (:func:`instruction_lines`): what the structurer
used from :mod:`dis`, on 3.11+ the line of every instruction (``positions.lineno``), on
3.8 - 3.10 the line only where one starts (``starts_line``), ``None`` elsewhere; on 3.10+
also every instruction's when asked for (copies of one statement share it).
"""

from __future__ import annotations

import collections.abc
import dis
from bisect import bisect_right
from types import CodeType
from typing import TYPE_CHECKING, Any, Callable, Dict, Iterator, List, NamedTuple, Optional, Sequence, Tuple

from . import versions as V

__all__ = [
    "RawInstruction",
    "RawInstructions",
    "decode",
    "raw_instruction",
    "read_raw",
    "instruction_lines",
    "instruction_starts",
    "has_instruction",
    "instruction_offsets",
]


class RawInstruction(NamedTuple):
    """One raw instruction; the fields mean what they mean in :class:`dis.Instruction`."""

    offset: int
    opcode: int
    opname: str
    arg: Optional[int]
    argval: Any
    argrepr: str

    def __repr__(self) -> str:
        return "<%d %s %r>" % (self.offset, self.opname, self.argval)


#: Operand kinds: how an opcode's operand becomes its ``argval`` (the first four index a table of
#: the code object, :func:`operand_tables`).
(
    LOCAL,
    CONST,
    NAME,
    CELL,
    NO_ARG,
    PLAIN,
    JUMP_FORWARD,
    JUMP_BACKWARD,
    JUMP_ABSOLUTE,
    LOCAL_PAIR,
    COMPARE,
    FORMAT_VALUE,
    CONVERT_VALUE,
    COMMON_CONSTANT,
    EXTENDED_ARG,
    UNKNOWN,
) = range(16)

#: ``FORMAT_VALUE`` (<= 3.12) and ``CONVERT_VALUE`` (3.13+) conversion functions by operand.
_CONVERTERS = (None, str, repr, ascii)


def _operand_kind(code: int, name: str) -> int:
    """How *code*'s operand is resolved, following the interpreter's :mod:`dis` tables."""
    has_arg = code in dis.hasarg if hasattr(dis, "hasarg") else code >= dis.HAVE_ARGUMENT
    if not has_arg:
        return NO_ARG
    if name == "EXTENDED_ARG":
        return EXTENDED_ARG
    if name == "KW_NAMES" and V.VERSION < (3, 12):
        return UNKNOWN  # 3.11's dis resolves only LOAD_CONST's constant
    if code in dis.hasconst:
        return CONST
    if code in dis.hasname:
        return NAME
    if code in dis.hasjabs:
        return JUMP_ABSOLUTE
    if code in dis.hasjrel:
        return JUMP_BACKWARD if name in V.BACKWARD_JUMPS else JUMP_FORWARD
    if name in V.PAIRED_LOCAL_OPS:
        return LOCAL_PAIR
    if code in dis.haslocal:
        return LOCAL
    if code in dis.hasfree:
        return CELL
    if code in dis.hascompare:
        return COMPARE
    if name == "FORMAT_VALUE":
        return FORMAT_VALUE
    if name == "CONVERT_VALUE":
        return CONVERT_VALUE
    if name == "LOAD_COMMON_CONSTANT" and V.VERSION >= (3, 15):
        return COMMON_CONSTANT
    return PLAIN


#: Per opcode: (name, operand kind, inline cache units, flag bits of a name operand).
_OPCODES: List[Tuple[str, int, int, int]] = [
    (name, _operand_kind(code, name), V.INLINE_CACHES.get(name, 0), V.NAME_FLAG_BITS.get(name, 0))
    for code, name in enumerate(dis.opname)
]

#: Instructions whose ``argrepr`` the normalizer reads, and how to make it from the operand.
_BINARY_OP = dis.opmap.get("BINARY_OP", -1)
_LOAD_SPECIAL = dis.opmap.get("LOAD_SPECIAL", -1)
_COMPARE_OP = dis.opmap["COMPARE_OP"]
_BINARY_OP_TEXT: List[str] = [text for _, text in getattr(dis, "_nb_ops", [])]
_UNKNOWN_VALUE: Any = getattr(dis, "UNKNOWN", None)  # what 3.11's dis gives for KW_NAMES
_SPECIAL_NAMES: Sequence[str] = getattr(__import__("opcode"), "_special_method_names", ())


def _line_starts_lnotab(code: CodeType) -> Dict[int, int]:
    """3.8 - 3.9: offset -> line where a line starts, decoded from ``co_lnotab``."""
    table = code.co_lnotab
    size = len(code.co_code)
    starts: Dict[int, int] = {}
    last: Optional[int] = None
    line = code.co_firstlineno
    address = 0
    for index in range(0, len(table) - 1, 2):
        byte_step, line_step = table[index], table[index + 1]
        if byte_step:
            if line != last:
                starts[address] = line
                last = line
            address += byte_step
            if address >= size:
                return starts
        line += line_step - 256 if line_step >= 128 else line_step
    if line != last:
        starts[address] = line
    return starts


def _line_starts_co_lines(code: CodeType) -> Dict[int, int]:
    """3.10: offset -> line where a line starts, from ``co_lines()``."""
    starts: Dict[int, int] = {}
    last: Optional[int] = None
    for start, _end, line in code.co_lines():
        if line is not None and line != last:
            starts[start] = line
            last = line
    return starts


def _range_start(entry: Tuple[int, int, Optional[int]]) -> int:
    return entry[0]


def _line_ranges(code: CodeType) -> Callable[[int], Optional[int]]:
    """3.10+: the line of the instruction at an offset, found by bisection in the ranges of
    ``co_lines()`` (sorted; asked for a few offsets of a code object, not all)."""
    ranges = list(code.co_lines())

    def line_at(offset: int) -> Optional[int]:
        index = bisect_right(ranges, offset, key=_range_start) - 1
        if index < 0:
            return None
        _start, end, line = ranges[index]
        return line if offset < end else None

    return line_at


def instruction_lines(code: CodeType, every: bool = False) -> Callable[[int], Optional[int]]:
    """The line of the instruction at an offset of *code*: on 3.8 - 3.10 only where a line starts,
    unless *every* line is asked for (3.10: from ``co_lines()``; 3.8 - 3.9 copy no statements)."""
    if V.VERSION >= (3, 11) or (every and V.VERSION >= (3, 10)):
        return _line_ranges(code)
    if V.VERSION >= (3, 10):
        return _line_starts_co_lines(code).get
    return _line_starts_lnotab(code).get


if TYPE_CHECKING:
    _RawSequence = Sequence[RawInstruction]
else:  # the plain abstract class: 3.8's typing makes each instance through a Python-level __new__
    _RawSequence = collections.abc.Sequence


class RawInstructions(_RawSequence):
    """The raw instructions of a code object, decoded once (:func:`decode`).

    ``fields[i]`` is ``(offset, opcode, arg, argval)`` of the instruction at index *i*;
    ``self[i]`` makes its :class:`RawInstruction` when asked for (most readers go through the
    fields and never need one)."""

    __slots__ = ("fields",)

    def __init__(self, fields: List[Tuple[int, int, Optional[int], Any]]) -> None:
        self.fields = fields

    def __len__(self) -> int:
        return len(self.fields)

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return [self[k] for k in range(*index.indices(len(self)))]
        return raw_instruction(*self.fields[index])

    def __iter__(self) -> Iterator[RawInstruction]:
        return (raw_instruction(*fields) for fields in self.fields)

    def opname(self, index: int) -> str:
        """``self[index].opname``, without making the instruction."""
        return _OPCODES[self.fields[index][1]][0]


def operand_tables(code: CodeType) -> Tuple[Sequence[Any], ...]:
    """The tables of *code* that operands of the first four kinds index (locals, constants,
    names, cells), in that order.

    3.11+ index one table of locals and cells (``co_localsplusnames``, not exposed): the locals,
    then the cells that are not also locals (arguments), then the free variables."""
    local_names = code.co_varnames
    if not V.LOCALS_PLUS_CELLS:
        return (local_names, code.co_consts, code.co_names, code.co_cellvars + code.co_freevars)
    cells = code.co_cellvars
    if cells:
        cells = tuple([name for name in cells if name not in local_names])
    names = local_names + cells + code.co_freevars
    return (names, code.co_consts, code.co_names, names)


def _jump_form(kind: int, step: int) -> Tuple[int, int, int]:
    """How a jump operand gives the target: ``origin * offset + base + scale * arg``."""
    base = 2 + (step - 2 if V.JUMPS_SKIP_CACHES else 0)  # relative jumps count from the next
    unit = V.JUMP_OPERAND_BYTES
    if kind == JUMP_FORWARD:
        return 1, base, unit
    if kind == JUMP_BACKWARD:
        return 1, base, -unit
    return 0, 0, unit  # JUMP_ABSOLUTE


#: Per opcode: how :func:`operand_value` reads its operand: (operand kind, shift of a name
#: operand's flag bits, bytes to the next instruction, the jump form of a jump: see
#: :func:`_jump_form`).
DECODING: List[Tuple[int, int, int, Tuple[int, int, int]]] = [
    (kind, flag_bits, 2 + 2 * caches, _jump_form(kind, 2 + 2 * caches))
    for _name, kind, caches, flag_bits in _OPCODES
]


def operand_value(opcode: int, arg: Optional[int], offset: int, tables: Tuple[Sequence[Any], ...]) -> Any:
    """The ``argval`` :mod:`dis` gives an *opcode* at *offset* with operand *arg* (its
    ``EXTENDED_ARG`` prefixes applied; None for an opcode without one), *tables* those of
    :func:`operand_tables`."""
    kind, shift, _step, (origin, base, scale) = DECODING[opcode]
    if kind <= CELL:  # an index into one of the tables
        return tables[kind][arg >> shift]  # type: ignore[operator]
    if kind == NO_ARG:
        return None
    if kind in (PLAIN, EXTENDED_ARG):
        return arg
    if kind in (JUMP_FORWARD, JUMP_BACKWARD, JUMP_ABSOLUTE):
        return origin * offset + base + scale * arg  # type: ignore[operator]
    if kind == LOCAL_PAIR:
        local_names = tables[LOCAL]
        return (local_names[arg >> 4], local_names[arg & 15])  # type: ignore[operator]
    if kind == COMPARE:
        return dis.cmp_op[arg >> V.COMPARE_OPERAND_SHIFT]  # type: ignore[operator]
    if kind == FORMAT_VALUE:
        return (_CONVERTERS[arg & 3], bool(arg & 4))  # type: ignore[operator]
    if kind == CONVERT_VALUE:
        return _CONVERTERS[arg]  # type: ignore[index]
    if kind == COMMON_CONSTANT:  # 3.15
        return V.COMMON_CONSTANTS[arg]  # type: ignore[index]
    return _UNKNOWN_VALUE


def decode(code: CodeType) -> RawInstructions:
    """The raw instructions of *code*, in the order :func:`dis.get_instructions` lists them."""
    raw = code.co_code
    tables = operand_tables(code)
    decoding = DECODING
    fields: List[Tuple[int, int, Optional[int], Any]] = []
    add = fields.append
    extended = 0
    offset = 0
    size = len(raw)
    while offset < size:
        opcode = raw[offset]
        kind, shift, step, _jump = decoding[opcode]
        if kind == NO_ARG:
            add((offset, opcode, None, None))
            extended = 0
        else:
            arg = raw[offset + 1] | extended
            extended = arg << 8 if kind == EXTENDED_ARG else 0
            add((offset, opcode, arg, operand_value(opcode, arg, offset, tables)))
        offset += step
    return RawInstructions(fields)


def raw_instruction(offset: int, opcode: int, arg: Optional[int], argval: Any) -> RawInstruction:
    """The :class:`RawInstruction` of the given fields (``opname`` and ``argrepr`` filled in)."""
    argrepr = ""
    if opcode == _BINARY_OP:
        argrepr = _BINARY_OP_TEXT[arg or 0]
    elif opcode == _COMPARE_OP:
        flagged = V.COMPARE_OPERAND_SHIFT == 5 and (arg or 0) & 16
        argrepr = "bool(%s)" % argval if flagged else argval
    elif opcode == _LOAD_SPECIAL:
        argrepr = _SPECIAL_NAMES[arg or 0]
    return _new_tuple(RawInstruction, (offset, opcode, _OPCODES[opcode][0], arg, argval, argrepr))


#: Builds a :class:`RawInstruction` without its Python-level constructor call.
_new_tuple = tuple.__new__


def read_raw(code: CodeType) -> List[RawInstruction]:
    """The instructions of *code* as :func:`dis.get_instructions` lists them (fields above)."""
    return list(decode(code))


def instruction_starts(code: CodeType) -> List[Tuple[int, str]]:
    """(offset, opname) of the instructions :func:`read_raw` gives, without decoding operands."""
    raw = code.co_code
    opcodes = _OPCODES
    out: List[Tuple[int, str]] = []
    offset = 0
    size = len(raw)
    while offset < size:
        name, _kind, caches, _flag_bits = opcodes[raw[offset]]
        out.append((offset, name))
        offset += 2 + 2 * caches
    return out


def opnames_and_args(code: CodeType) -> List[Tuple[str, Optional[int]]]:
    """(opname, arg) of the instructions :func:`read_raw` gives, arguments with their
    ``EXTENDED_ARG`` prefixes applied, without line numbers or argument values."""
    raw = code.co_code
    opcodes = _OPCODES
    out: List[Tuple[str, Optional[int]]] = []
    extended = 0
    offset = 0
    size = len(raw)
    while offset < size:
        name, kind, caches, _flag_bits = opcodes[raw[offset]]
        if kind == NO_ARG:
            out.append((name, None))
            extended = 0
        else:
            arg = raw[offset + 1] | extended
            out.append((name, arg))
            extended = arg << 8 if kind == EXTENDED_ARG else 0
        offset += 2 + 2 * caches
    return out


_EXTENDED_ARG_OPCODE = dis.opmap["EXTENDED_ARG"]


def instruction_offsets(code: CodeType, opname: str) -> List[int]:
    """The offsets of *code*'s *opname* instructions, found as :func:`has_instruction` finds them."""
    opcode = dis.opmap.get(opname)
    if opcode is None:
        return []
    opcodes = code.co_code[::2]
    out: List[int] = []
    unit = opcodes.find(opcode)
    while unit >= 0:
        out.append(2 * unit)
        unit = opcodes.find(opcode, unit + 1)
    return out


def has_instruction(code: CodeType, opname: str, arg: Optional[int] = None) -> bool:
    """Whether *code* holds an *opname* instruction (with argument *arg*, ``EXTENDED_ARG``
    prefixes applied, when given), as :func:`opnames_and_args` would list it.

    Only the code units holding that opcode are looked at (with *arg*, those holding it and the
    operand's low byte): an instruction starts at an even offset, and the inline caches between
    instructions read as zeros in ``co_code``.
    """
    opcode = dis.opmap.get(opname)
    if opcode is None:
        return False
    raw = code.co_code
    if arg is None:
        return raw[::2].find(opcode) >= 0
    pattern = bytes((opcode, arg & 255))  # the instruction with the operand's low byte
    at = raw.find(pattern)
    while at >= 0:
        if not at & 1:  # (at an odd offset: an operand byte, then an opcode)
            value, shift, prefix = raw[at + 1], 8, at - 2
            while prefix >= 0 and raw[prefix] == _EXTENDED_ARG_OPCODE:
                value |= raw[prefix + 1] << shift
                shift += 8
                prefix -= 2
            if value == arg:
                return True
        at = raw.find(pattern, at + 1)
    return False
