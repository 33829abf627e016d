"""Give recompiled code the original's frame layout: the same local variable slots, in order.

Dynamo runs its transformed code in a frame whose local variables it copies, slot by
slot, from the frame it intercepted (and checks that the cell variables match). Its code
lists every local of the original function, in the original's order, including locals the
transformed code never touches, and every cell variable. Code compiled from the
decompiled source only has the locals the source mentions, in the order it first mentions
them. :func:`match_frame_layout` renumbers the recompiled code's locals so that
``co_varnames`` starts with the original's (the source's extra names, such as spilled stack
values, come after) and ``co_cellvars``/``co_freevars`` are the original's.

The renumbering keeps every instruction in place (an argument that would need another
``EXTENDED_ARG`` gives up and returns the code unchanged), as
:mod:`uncompile.verification.closure` does for closure variables.
"""

from __future__ import annotations

import dis
import inspect
import sys
from types import CodeType
from typing import List, Optional

from .bind import encode, instruction_slots

_FRAME_SLOTS = sys.version_info >= (3, 11)
_NOFREE = getattr(inspect, "CO_NOFREE", 0)
_LOCAL_OPS = frozenset(dis.haslocal)
_FREE_OPS = frozenset(dis.hasfree)
_PACKED = frozenset(op for op in _LOCAL_OPS | _FREE_OPS if dis.opname[op].count("FAST") == 2)


def _layout(varnames: tuple, cellvars: tuple, freevars: tuple) -> tuple:
    """(names indexed by the local ops, names indexed by the cell/free ops)."""
    if _FRAME_SLOTS:
        slots = list(varnames) + [name for name in cellvars if name not in varnames] + list(freevars)
        return slots, slots
    return list(varnames), list(cellvars) + list(freevars)


def _renumber(arg: int, old: List[str], new: List[str], packed: bool) -> Optional[int]:
    if packed:
        first = _renumber(arg >> 4, old, new, False)
        second = _renumber(arg & 15, old, new, False)
        if first is None or second is None or first > 15 or second > 15:
            return None
        return first << 4 | second
    if arg >= len(old) or old[arg] not in new:
        return None
    return new.index(old[arg])


def match_frame_layout(original: CodeType, code: CodeType) -> CodeType:
    """*code* with the local, cell and free variable slots of *original* (see the module docstring)."""
    if not set(code.co_freevars) <= set(original.co_freevars):
        return code
    if not set(code.co_cellvars) <= set(original.co_cellvars):
        return code
    varnames = tuple(original.co_varnames) + tuple(
        name for name in code.co_varnames if name not in original.co_varnames
    )
    if (
        code.co_varnames[: code.co_argcount + code.co_kwonlyargcount]
        != varnames[: code.co_argcount + code.co_kwonlyargcount]
    ):
        return code
    if (varnames, original.co_cellvars, original.co_freevars) == (
        code.co_varnames,
        code.co_cellvars,
        code.co_freevars,
    ):
        return code
    old_local, old_free = _layout(code.co_varnames, code.co_cellvars, code.co_freevars)
    new_local, new_free = _layout(varnames, original.co_cellvars, original.co_freevars)
    raw = bytearray(code.co_code)
    for start, _, instruction in instruction_slots(code):
        opcode = instruction.opcode
        if dis.opname[opcode] == "COPY_FREE_VARS":
            units = encode(opcode, len(original.co_freevars))
        elif instruction.arg is not None and (opcode in _LOCAL_OPS or opcode in _FREE_OPS):
            old, new = (old_local, new_local) if opcode in _LOCAL_OPS else (old_free, new_free)
            renumbered = _renumber(instruction.arg, old, new, opcode in _PACKED)
            if renumbered is None:
                return code
            units = encode(opcode, renumbered)
        else:
            continue
        own_end = instruction.offset + 2
        if 2 * len(units) > own_end - start:
            return code
        units = [(dis.opmap["NOP"], 0)] * ((own_end - start) // 2 - len(units)) + units
        raw[start:own_end] = bytes(byte for unit in units for byte in unit)
    flags = code.co_flags & ~_NOFREE if original.co_freevars or original.co_cellvars else code.co_flags
    try:
        return code.replace(
            co_code=bytes(raw),
            co_varnames=varnames,
            co_nlocals=len(varnames),
            co_cellvars=original.co_cellvars,
            co_freevars=original.co_freevars,
            co_flags=flags,
        )
    except (ValueError, TypeError):
        return code
