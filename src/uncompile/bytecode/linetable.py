"""Line tables: give an existing code object the line numbers you choose.

CPython stores, next to the instructions, a table saying which source line each
instruction belongs to; ``dis``, tracebacks, ``sys.settrace`` line events and
therefore pdb and IDE debuggers all read it. Its encoding changed three times:

* 3.8, 3.9: ``co_lnotab``, pairs of (bytes advanced, signed line delta); every
  instruction has a line.
* 3.10: ``co_linetable``, pairs of (bytes covered, signed line delta), where the
  delta ``-128`` means "no line".
* 3.11 and later: the location table, entries of up to 8 code units each; we
  write the "line only" form (no columns) and the "no location" form.

:func:`with_lines` hides that: give it a code object and a mapping from
instruction offset (as :mod:`dis` reports offsets) to line number, and it returns
the same code object with only its line table and ``co_firstlineno`` changed.
An instruction missing from the mapping (or mapped to ``None``) gets no line
where the format can say so, otherwise the line of the instruction before it.
Inline cache entries (3.11+) share the line of the instruction they belong to.
"""

from __future__ import annotations

import sys
from types import CodeType
from typing import Dict, List, Mapping, Optional, Sequence, Tuple

from .reader import instruction_starts

__all__ = ["with_lines", "encode_line_table", "lines_by_offset"]

# A run of code units (2 bytes each) sharing one line (None: no line).
_Run = Tuple[int, Optional[int]]


def with_lines(
    code: CodeType,
    lines: Mapping[int, Optional[int]],
    firstlineno: Optional[int] = None,
    starts: Optional[Sequence[int]] = None,
) -> CodeType:
    """Return *code* with line numbers taken from *lines* (instruction offset -> line).

    Instructions, constants, names, arguments and cells are untouched. Line deltas
    in the table are relative to *firstlineno* (default: the smallest line given,
    or the code's own ``co_firstlineno`` when no line is given). *starts*: the offsets
    of *code*'s instructions in order, when the caller has read them already.
    """
    if firstlineno is None:
        given = [line for line in lines.values() if line is not None]
        firstlineno = min(given) if given else code.co_firstlineno
    table = encode_line_table(code, lines, firstlineno, starts)
    if sys.version_info >= (3, 10):
        return code.replace(co_linetable=table, co_firstlineno=firstlineno)
    return code.replace(co_lnotab=table, co_firstlineno=firstlineno)


def lines_by_offset(code: CodeType) -> Dict[int, Optional[int]]:
    """The line of every instruction start of *code*, as the interpreter reports it."""
    result: Dict[int, Optional[int]] = {}
    starts = _instruction_starts(code)
    if sys.version_info >= (3, 10):
        ranges = list(code.co_lines())
        for offset in starts:
            result[offset] = None
            for start, end, line in ranges:
                if start <= offset < end:
                    result[offset] = line
                    break
        return result
    import dis

    current: Optional[int] = code.co_firstlineno
    table = dict(dis.findlinestarts(code))
    for offset in starts:
        current = table.get(offset, current)
        result[offset] = current
    return result


def encode_line_table(
    code: CodeType,
    lines: Mapping[int, Optional[int]],
    firstlineno: int,
    starts: Optional[Sequence[int]] = None,
) -> bytes:
    """Encode *lines* for *code* in the running interpreter's line-table format (*starts*:
    as for :func:`with_lines`)."""
    runs = _runs(code, lines, _instruction_starts(code) if starts is None else starts)
    if sys.version_info >= (3, 11):
        return _encode_locations(runs, firstlineno)
    if sys.version_info >= (3, 10):
        return _encode_310(runs, firstlineno)
    return _encode_lnotab(runs, firstlineno)


def _instruction_starts(code: CodeType) -> List[int]:
    """Offsets of the instructions :mod:`dis` shows (EXTENDED_ARG included, caches not)."""
    return [offset for offset, _ in instruction_starts(code)]


def _runs(code: CodeType, lines: Mapping[int, Optional[int]], starts: Sequence[int]) -> List[_Run]:
    """Group the code units of *code* (its instructions at *starts*, in order) into runs of
    equal line, in order."""
    ends = list(starts[1:]) + [len(code.co_code)]
    runs: List[_Run] = [(starts[0] // 2, None)] if starts and starts[0] >= 2 else []
    for start, end in zip(starts, ends):
        length, line = end // 2 - start // 2, lines.get(start)
        if length <= 0:
            continue
        if runs and runs[-1][1] == line:
            runs[-1] = (runs[-1][0] + length, line)
        else:
            runs.append((length, line))
    return runs


def _fill_missing(runs: List[_Run], firstlineno: int) -> List[Tuple[int, int]]:
    """Formats without "no line": a run without a line takes the line before it."""
    filled: List[Tuple[int, int]] = []
    previous = firstlineno
    for length, line in runs:
        if line is None:
            line = previous
        previous = line
        if filled and filled[-1][1] == line:
            filled[-1] = (filled[-1][0] + length, line)
        else:
            filled.append((length, line))
    return filled


def _encode_lnotab(runs: List[_Run], firstlineno: int) -> bytes:
    """3.8/3.9 ``co_lnotab``: (byte increment 0..255, line increment -128..127) pairs."""
    out = bytearray()
    previous_length = 0  # code units from the previous run's start to this run's start
    line = firstlineno
    for length, run_line in _fill_missing(runs, firstlineno):
        byte_delta = previous_length * 2
        line_delta = run_line - line
        while byte_delta > 255:
            out += bytes((255, 0))
            byte_delta -= 255
        while line_delta > 127 or line_delta < -128:
            step = 127 if line_delta > 0 else -128
            out += bytes((byte_delta, step & 0xFF))
            byte_delta = 0
            line_delta -= step
        if byte_delta or line_delta:
            out += bytes((byte_delta, line_delta & 0xFF))
        line = run_line
        previous_length = length
    return bytes(out)


def _encode_310(runs: List[_Run], firstlineno: int) -> bytes:
    """3.10 ``co_linetable``: (bytes covered 0..254, line delta, -128 = no line) pairs."""
    out = bytearray()
    line = firstlineno
    for length, run_line in runs:
        byte_count = length * 2
        if run_line is None:
            delta = -128
        else:
            delta = run_line - line
            line = run_line
            while delta > 127 or delta < -127:
                step = 127 if delta > 0 else -127
                out += bytes((0, step & 0xFF))
                delta -= step
        while byte_count > 254:
            out += bytes((254, delta & 0xFF))
            byte_count -= 254
            delta = -128 if run_line is None else 0
        out += bytes((byte_count, delta & 0xFF))
    return bytes(out)


_NO_LOCATION = 15
_NO_COLUMNS = 13


def _encode_locations(runs: List[_Run], firstlineno: int) -> bytes:
    """3.11+ location table, using only the "no columns" and "no location" entry kinds."""
    out = bytearray()
    line = firstlineno
    for length, run_line in runs:
        while length:
            chunk = min(length, 8)
            length -= chunk
            if run_line is None:
                out.append(0x80 | (_NO_LOCATION << 3) | (chunk - 1))
                continue
            out.append(0x80 | (_NO_COLUMNS << 3) | (chunk - 1))
            out += _signed_varint(run_line - line)
            line = run_line
    return bytes(out)


def _varint(value: int) -> bytes:
    """Unsigned varint of the location table: 6-bit groups, low first, bit 6 = more."""
    out = bytearray()
    while value >= 64:
        out.append(0x40 | (value & 63))
        value >>= 6
    out.append(value)
    return bytes(out)


def _signed_varint(value: int) -> bytes:
    """Signed varint: magnitude shifted left once, sign in the lowest bit."""
    return _varint(((-value) << 1) | 1 if value < 0 else value << 1)
