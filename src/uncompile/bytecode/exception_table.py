"""Exception-handler regions of a code object, the same shape on every version.

3.11+ read ``co_exceptiontable``: entries ``(start, end, target, depth, lasti)`` mean that an
exception raised by an instruction at ``start <= offset < end`` jumps to ``target`` with the
value stack cut to ``depth`` items. Older versions describe the same thing with block
set-up instructions; :func:`legacy_regions` simulates their block stack into entries.
"""

from __future__ import annotations

import dis
from bisect import bisect_left
from types import CodeType
from typing import TYPE_CHECKING, List, NamedTuple, Optional

from . import versions as V
from .awaits import is_async_for_end, is_cleanup_throw
from .reader import instruction_offsets

if TYPE_CHECKING:  # the normalizer reads the table too (async for headers)
    from .instructions import Instr


class Handler(NamedTuple):
    """Instructions with ``start <= offset < end`` jump to ``target`` on an exception."""

    start: int
    end: int
    target: int
    depth: int
    lasti: bool


def parse_exception_table(table: bytes) -> List[Handler]:
    """The entries of a 3.11+ ``co_exceptiontable`` (offsets in bytes, ``end`` exclusive)."""
    numbers = []  # each a big-endian varint of 6-bit groups, bit 6 set on all but the last byte
    value = 0
    for byte in table:
        value = (value << 6) | (byte & 63)
        if not byte & 64:
            numbers.append(value)
            value = 0
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
    """The handler regions of *code*, innermost first for overlapping ones.

    An ``async for`` header is a ``FOR_ITER`` in *instrs* (:mod:`.awaits`): the entries whose
    handler is its ``END_ASYNC_FOR`` take the cover of that instruction instead, as a plain
    loop's header has; those that go to or only cover an await's ``CLEANUP_THROW`` (dropped from
    *instrs*, 3.12+) go.
    """
    if not V.HAS_EXCEPTION_TABLE:
        return legacy_regions(instrs)
    entries = parse_exception_table(code.co_exceptiontable)  # type: ignore[attr-defined]
    if not entries:
        return []
    kept = _Offsets(instrs)
    out: List[Handler] = []
    for entry in entries:
        if is_async_for_end(code, entry.target):
            cover = handler_at(entries, entry.target)
            if cover is None:
                continue
            entry = entry._replace(target=cover.target, depth=cover.depth, lasti=cover.lasti)
        elif is_cleanup_throw(code, entry.target) and not kept.between(entry.target, entry.target + 1):
            continue  # a dropped CLEANUP_THROW's: the await is one instruction
        elif is_cleanup_throw(code, entry.start) and not kept.between(entry.start, entry.end):
            continue  # covers only a dropped CLEANUP_THROW
        last = out[-1] if out else None
        if last is not None and last[2:] == entry[2:] and not kept.between(last.end, entry.start):
            out[-1] = last._replace(end=entry.end)  # one range once the dropped header parts are gone
        else:
            out.append(entry)
    return out


def empty_try_entries(code: CodeType, instrs: List[Instr], handlers: List[Handler]) -> List[Handler]:
    """Zero-length entries for the handlers of tries whose body is empty (``try: pass``, 3.11+).

    Nothing such a body holds can raise, so no entry goes to its handler, which is left in place
    unreachable. The try stood where its ``try``/``pass`` lines left ``NOP``s: the last ``NOP`` of
    a line before the handler's first (the ``except`` line); the entry starts and ends at the
    instruction after it, with the depth of the handler's own cleanup entry less the exception.
    """
    if not handlers:
        return []
    targets = {entry.target for entry in handlers}
    if all(offset in targets for offset in instruction_offsets(code, "PUSH_EXC_INFO")):
        return []  # each handler is entered from its try body (or there is none: no cleanup entry)
    dead = [
        (ins, instrs[k + 1])
        for k, ins in enumerate(instrs[:-1])
        if ins.op == "PUSH_EXC_INFO" and ins.offset not in targets and instrs[k + 1].op != "WITH_EXCEPT_START"
    ]
    if not dead:
        return []
    from .linetable import lines_by_offset  # read only for such rare code

    lines = lines_by_offset(code)
    nops = [
        (lines.get(ins.offset) or 0, ins.offset) for ins in dis.get_instructions(code) if ins.opname == "NOP"
    ]
    out: List[Handler] = []
    for handler, first in dead:
        cleanup = handler_at(handlers, first.offset)
        except_line = lines.get(first.offset)
        before = [
            nop for nop in nops if except_line is not None and nop[0] < except_line and nop[1] < first.offset
        ]
        if cleanup is None or not before:
            continue
        nop = max(before)[1]
        anchor = next((ins.offset for ins in instrs if ins.offset > nop), None)
        if anchor is not None:
            out.append(Handler(anchor, anchor, handler.offset, max(cleanup.depth - 1, 0), False))
    return out


def _offset(ins: Instr) -> int:
    return ins.offset


class _Offsets:
    """The offsets of some instructions, in the order they were read (ascending)."""

    def __init__(self, instrs: List[Instr]) -> None:
        self.instrs = instrs

    def between(self, lo: int, hi: int) -> int:
        """How many of the offsets lie in ``[lo, hi)`` (by bisection: 3.11+ only)."""
        instrs = self.instrs
        return bisect_left(instrs, hi, key=_offset) - bisect_left(instrs, lo, key=_offset)


def handler_at(handlers: List[Handler], offset: int) -> Optional[Handler]:
    """The handler that covers *offset*, or None."""
    for entry in handlers:
        if entry.start <= offset < entry.end:
            return entry
    return None
