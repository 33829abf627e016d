"""Give recompiled code the original's order of closure variables.

A function's closure is a tuple of cells matched to ``co_freevars`` by position, so code
swapped in with ``__code__`` must list its free variables in the original's order, or each
cell lands in the wrong variable. The compiler sorts them; code made otherwise (Dynamo's)
may not, and may carry free variables it never uses (``__class__`` of a method whose
resume function no longer calls ``super()``). :func:`match_closure_layout` reorders the
recompiled code's cell and free variables like the original's, appending free variables the
source never mentions, by renumbering every instruction that names one:

* 3.8-3.10: the ``*_DEREF``/``LOAD_CLOSURE`` family indexes ``co_cellvars + co_freevars``;
* 3.11+: those and the ``*_FAST`` family index the frame's slots, ``co_varnames``, then the
  cell variables that are not arguments, then ``co_freevars`` (``COPY_FREE_VARS`` gives
  their count); 3.13+ superinstructions pack two slot numbers of four bits each.

Renumbering keeps every instruction in place (an argument that would need another
``EXTENDED_ARG`` gives up). Where the layouts cannot be matched (a cell variable missing,
a free variable the original lacks) the code is returned unchanged and the comparison says
what differs.
"""

from __future__ import annotations

import dis
import inspect
import sys
from types import CodeType
from typing import List, Optional, Sequence

from .bind import encode, instruction_slots

_SLOT_INDEXED = frozenset(dis.opname[op] for op in set(dis.hasfree) | set(dis.haslocal))
_PACKED = frozenset(name for name in _SLOT_INDEXED if name.count("FAST") == 2)
_FRAME_SLOTS = sys.version_info >= (3, 11)
_NOFREE = getattr(inspect, "CO_NOFREE", 0)


def _slot_names(varnames: Sequence[str], cellvars: Sequence[str], freevars: Sequence[str]) -> List[str]:
    """The variable named by each index of the instructions that refer to closure variables."""
    if not _FRAME_SLOTS:
        return list(cellvars) + list(freevars)
    return list(varnames) + [name for name in cellvars if name not in varnames] + list(freevars)


def _renumber(arg: int, opname: str, old: List[str], new: List[str]) -> Optional[int]:
    if opname in _PACKED:
        first, second = _renumber(arg >> 4, "", old, new), _renumber(arg & 15, "", old, new)
        if first is None or second is None or first > 15 or second > 15:
            return None
        return first << 4 | second
    if arg >= len(old):
        return None
    return new.index(old[arg])


def match_closure_layout(original: CodeType, code: CodeType) -> CodeType:
    """*code* with ``co_cellvars`` and ``co_freevars`` in the order of *original*'s (see module doc)."""
    if (code.co_cellvars, code.co_freevars) == (original.co_cellvars, original.co_freevars):
        return code
    if set(code.co_cellvars) != set(original.co_cellvars) or not set(code.co_freevars) <= set(
        original.co_freevars
    ):
        return code
    old = _slot_names(code.co_varnames, code.co_cellvars, code.co_freevars)
    new = _slot_names(code.co_varnames, original.co_cellvars, original.co_freevars)
    raw = bytearray(code.co_code)
    for start, _, instruction in instruction_slots(code):
        name = instruction.opname
        if name == "COPY_FREE_VARS":
            units = encode(instruction.opcode, len(original.co_freevars))
        elif name in _SLOT_INDEXED and instruction.arg is not None:
            if not _FRAME_SLOTS and instruction.opcode not in dis.hasfree:
                continue
            if _FRAME_SLOTS and name not in _PACKED and instruction.arg < len(code.co_varnames):
                continue
            renumbered = _renumber(instruction.arg, name, old, new)
            if renumbered is None:
                return code
            units = encode(instruction.opcode, renumbered)
        else:
            continue
        own_end = instruction.offset + 2  # the instruction and its prefixes; caches stay as they are
        if 2 * len(units) > own_end - start:
            return code
        units = [(dis.opmap["NOP"], 0)] * ((own_end - start) // 2 - len(units)) + units
        raw[start:own_end] = bytes(byte for unit in units for byte in unit)
    flags = code.co_flags & ~_NOFREE if original.co_freevars or original.co_cellvars else code.co_flags
    return code.replace(
        co_code=bytes(raw), co_cellvars=original.co_cellvars, co_freevars=original.co_freevars, co_flags=flags
    )
