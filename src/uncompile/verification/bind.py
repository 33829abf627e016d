"""Bind placeholder names in recompiled code back to the constants they stand for.

The decompiler writes a constant without a source form (a tensor, a module, an arbitrary
object) as a name ``__uc_<Type>_<index>`` (see :mod:`uncompile.expressions.placeholders`),
where *index* is the constant's position in the ``co_consts`` of the original code object.
Compiled, such a name becomes ``LOAD_GLOBAL`` (in a function) or ``LOAD_NAME`` (in a module
or class body). This module rewrites each of those loads, in place, into ``LOAD_CONST`` of
the original object, so the recompiled code uses the very same object.

The rewrite never moves an instruction: the new instructions are written into the space of
the old one (its ``EXTENDED_ARG`` prefixes, the instruction and, on 3.11+, its inline
``CACHE`` entries); whatever space is left becomes ``NOP``. Jump offsets, the exception
table and the line table therefore stay valid. On 3.11+ a ``LOAD_GLOBAL`` whose low bit
asks for a ``NULL`` becomes ``PUSH_NULL; LOAD_CONST`` (3.11, 3.12) or ``LOAD_CONST;
PUSH_NULL`` (3.13+, where the NULL goes above the callable). ``LOAD_CONST`` and
``PUSH_NULL`` have no inline caches on any supported version.
"""

from __future__ import annotations

import dis
import sys
from types import CodeType
from typing import Any, Dict, List, Optional, Tuple

from ..errors import RecompileError
from ..expressions.placeholders import placeholder_index
from .compare import nested_code

_EXTENDED_ARG = dis.opmap["EXTENDED_ARG"]
_LOAD_CONST = dis.opmap["LOAD_CONST"]
_NOP = dis.opmap["NOP"]
_PUSH_NULL = dis.opmap.get("PUSH_NULL")
_NAME_LOADS = ("LOAD_GLOBAL", "LOAD_NAME")
_NULL_BIT_IN_LOAD_GLOBAL = sys.version_info >= (3, 11)
_NULL_ABOVE_CALLABLE = sys.version_info >= (3, 13)


def encode(opcode: int, arg: int) -> List[Tuple[int, int]]:
    """The (opcode, argument byte) units of one instruction, ``EXTENDED_ARG`` prefixes first."""
    units = [(opcode, arg & 0xFF)]
    arg >>= 8
    while arg:
        units.insert(0, (_EXTENDED_ARG, arg & 0xFF))
        arg >>= 8
    return units


def _replacement(const_index: int, push_null: bool) -> List[Tuple[int, int]]:
    units = encode(_LOAD_CONST, const_index)
    if push_null:
        assert _PUSH_NULL is not None
        if _NULL_ABOVE_CALLABLE:
            units.append((_PUSH_NULL, 0))
        else:
            units.insert(0, (_PUSH_NULL, 0))
    return units


def instruction_slots(code: CodeType) -> List[Tuple[int, int, dis.Instruction]]:
    """(start, end, instruction) for each instruction: the bytes it owns, prefixes and caches included."""
    instructions = list(dis.get_instructions(code))
    slots = []
    prefix_start: Optional[int] = None
    for position, instruction in enumerate(instructions):
        if instruction.opname == "EXTENDED_ARG":
            if prefix_start is None:
                prefix_start = instruction.offset
            continue
        start = instruction.offset if prefix_start is None else prefix_start
        prefix_start = None
        end = instructions[position + 1].offset if position + 1 < len(instructions) else len(code.co_code)
        slots.append((start, end, instruction))
    return slots


def _demangled(name: str) -> str:
    """*name* without the ``_Class`` prefix that a class body's private-name mangling adds.

    Placeholder names start with two underscores, so inside a class ``__uc_Tensor_3`` is
    compiled as ``_Model__uc_Tensor_3``.
    """
    start = name.find("__uc_", 1)
    return name[start:] if name.startswith("_") and start > 0 else name


def _bind_one(original: Optional[CodeType], code: CodeType, path: str) -> CodeType:
    """Rewrite the placeholder loads of *code* itself (not of its nested code)."""
    consts = list(code.co_consts)
    added: Dict[int, int] = {}
    raw = bytearray(code.co_code)
    for start, end, instruction in instruction_slots(code):
        if instruction.opname not in _NAME_LOADS or not isinstance(instruction.argval, str):
            continue
        index = placeholder_index(_demangled(instruction.argval))
        if index is None:
            continue
        if original is None or index >= len(original.co_consts):
            raise RecompileError(
                "%s: placeholder %s names no constant of the original code" % (path, instruction.argval)
            )
        if index not in added:
            added[index] = len(consts)
            consts.append(original.co_consts[index])
        push_null = (
            _NULL_BIT_IN_LOAD_GLOBAL
            and instruction.opname == "LOAD_GLOBAL"
            and bool((instruction.arg or 0) & 1)
        )
        units = _replacement(added[index], push_null)
        if 2 * len(units) > end - start:
            raise RecompileError("%s: no room to bind placeholder %s" % (path, instruction.argval))
        units += [(_NOP, 0)] * ((end - start) // 2 - len(units))
        raw[start:end] = bytes(byte for unit in units for byte in unit)
    if not added:
        return code
    return code.replace(co_code=bytes(raw), co_consts=tuple(consts))


def bind_placeholders(original: Optional[CodeType], code: CodeType, path: Optional[str] = None) -> CodeType:
    """Return *code* with every placeholder load bound to the constant it names in *original*.

    Nested code objects are paired with the original's in the order of ``co_consts``, by
    name (so one the source leaves out, such as a 3.14 ``__annotate__``, does not shift the
    rest); a placeholder in a nested code object names a constant of its own original.
    """
    if path is None:
        path = code.co_name
    originals: List[Any] = nested_code(original) if original is not None else []
    replaced: Dict[int, CodeType] = {}
    next_original = 0
    for child in nested_code(code):
        child_original = None
        for position in range(next_original, len(originals)):
            if originals[position].co_name == child.co_name:
                child_original, next_original = originals[position], position + 1
                break
        bound = bind_placeholders(child_original, child, path + "." + child.co_name)
        if bound is not child:
            replaced[id(child)] = bound
    if replaced:
        code = code.replace(co_consts=tuple(replaced.get(id(const), const) for const in code.co_consts))
    return _bind_one(original, code, path)
