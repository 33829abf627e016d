"""Exception-handler regions of a code object, the same shape on every version.

3.11+ read ``co_exceptiontable``: entries ``(start, end, target, depth, lasti)`` mean that an
exception raised by an instruction at ``start <= offset < end`` jumps to ``target`` with the
value stack cut to ``depth`` items. Older versions describe the same thing with block
set-up instructions; :func:`legacy_regions` simulates their block stack into entries.
"""

from __future__ import annotations

from types import CodeType
from typing import Iterator, List, NamedTuple, Optional

from . import versions as V
from .instructions import Instr


class Handler(NamedTuple):
    """Instructions with ``start <= offset < end`` jump to ``target`` on an exception."""

    start: int
    end: int
    target: int
    depth: int
    lasti: bool


def _varints(data: bytes) -> Iterator[int]:
    i = 0
    while i < len(data):
        byte = data[i]
        value = byte & 63
        while byte & 64:
            i += 1
            byte = data[i]
            value = (value << 6) | (byte & 63)
        i += 1
        yield value


def parse_exception_table(table: bytes) -> List[Handler]:
    """The entries of a 3.11+ ``co_exceptiontable`` (offsets in bytes, ``end`` exclusive)."""
    numbers = list(_varints(table))
    out = []
    for k in range(0, len(numbers) - 3, 4):
        start, length, target, depth_lasti = numbers[k : k + 4]
        out.append(
            Handler(start * 2, (start + length) * 2, target * 2, depth_lasti >> 1, bool(depth_lasti & 1))
        )
    return out


def legacy_regions(instrs: List[Instr]) -> List[Handler]:
    """Handler entries for <= 3.10 bytecode, from ``SETUP_*``/``POP_BLOCK`` pairs.

    Each ``SETUP_*`` opens a region at the next instruction that ends at its ``POP_BLOCK``
    (layout order, nested blocks matched like brackets).
    """
    out: List[Handler] = []
    stack: List[Instr] = []
    for ins in instrs:
        if ins.op.startswith("SETUP_") and ins.target is not None:
            stack.append(ins)
        elif ins.op == "POP_BLOCK" and stack:
            setup = stack.pop()
            assert setup.target is not None  # only SETUP_* with a target are pushed
            out.append(Handler(setup.offset + 2, ins.offset, setup.target, 0, False))
    return out


def exception_handlers(code: CodeType, instrs: List[Instr]) -> List[Handler]:
    """The handler regions of *code*, innermost first for overlapping ones."""
    if V.HAS_EXCEPTION_TABLE:
        return parse_exception_table(code.co_exceptiontable)  # type: ignore[attr-defined]
    return legacy_regions(instrs)


def handler_at(handlers: List[Handler], offset: int) -> Optional[Handler]:
    """The handler that covers *offset*, or None."""
    for entry in handlers:
        if entry.start <= offset < entry.end:
            return entry
    return None
