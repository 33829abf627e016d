"""Graph-break and recompilation reasons, from the structured trace's texts."""

from __future__ import annotations

import re
from typing import List, Optional, Tuple

from .model import EventRecord

_BREAK_AT = re.compile(r"Graph break in user code at (.+):(\d+)")
_TRACEBACK_FRAME = re.compile(r'File "(.+)", line (\d+), in ')
#: A line of ``^`` (and ``~``) under a quoted source line, and runs of blank lines.
_UNDERLINE = re.compile(r"^[ \t]*[~^]*\^[~^]*[ \t]*$\n?", re.MULTILINE)
_BLANK_RUN = re.compile(r"\n(?:[ \t]*\n){2,}")
#: ``<compile id>: <guard>``: the guard of that earlier cache entry failed.
_FAILED_ENTRY = re.compile(r"^(\S+/\d+): (.*)$", re.DOTALL)
#: The comment PyTorch pads a failed guard with (``# <source line>  # <file>:<line> in <function>``).
_GUARD_COMMENT = re.compile(r"\s{2,}#.*$")


def _user_location(text: str) -> Tuple[Optional[str], Optional[int]]:
    match = _BREAK_AT.search(text)
    if match:
        return match.group(1), int(match.group(2))
    frames = _TRACEBACK_FRAME.findall(text.split("User code traceback:")[-1])
    if frames:
        return frames[-1][0], int(frames[-1][1])
    return None, None


def graph_break(compile_id: str, code_name: str, text: str) -> EventRecord:
    """A graph break: the user's file:line and PyTorch's explanation (no internal traceback,
    and without the lines of ``^``/``~`` that underline the source lines it quotes)."""
    user_file, user_line = _user_location(text)
    explanation = text.split("\nUser code traceback:")[0]
    explanation = re.sub(r"^Graph break in user code at .+\n", "", explanation)
    explanation = _BLANK_RUN.sub("\n\n", _UNDERLINE.sub("", explanation)).strip()
    return EventRecord(compile_id, code_name, explanation, user_file, user_line)


def graph_breaks(compile_id: str, code_name: str, texts: List[str]) -> List[EventRecord]:
    """Every distinct graph break reported for one compile id."""
    seen = set()
    records: List[EventRecord] = []
    for text in texts:
        record = graph_break(compile_id, code_name, text)
        key = (record.user_file, record.user_line, record.reason)
        if key not in seen:
            seen.add(key)
            records.append(record)
    return records


def recompile(compile_id: str, code_name: str, text: str) -> EventRecord:
    """One cache entry whose guard failed, from one of PyTorch's recompile reasons.

    PyTorch writes ``<compile id of the entry>: <failed guard>``, the guard padded with a
    comment (the guarded source line and an abbreviated file name), and, for a guard made
    from a user line, ``User stack trace:`` with that line's frames. The record says which
    entry's guard failed and why, at the user's file and line when known.
    """
    head, _, stack = text.partition("User stack trace:")
    lines = [_GUARD_COMMENT.sub("", line).strip() for line in head.strip().splitlines()]
    reason = "\n".join(line for line in lines if line) or text.strip()
    entry = _FAILED_ENTRY.match(reason)
    if entry:
        reason = "guard of entry %s failed: %s" % (entry.group(1), entry.group(2))
    frames = _TRACEBACK_FRAME.findall(stack)
    user_file, user_line = (frames[-1][0], int(frames[-1][1])) if frames else (None, None)
    return EventRecord(compile_id, code_name, reason, user_file, user_line)


def recompiles(compile_id: str, code_name: str, reasons: List[str]) -> List[EventRecord]:
    """Why *compile_id* was compiled: for each earlier cache entry, the guard that failed."""
    return [recompile(compile_id, code_name, reason) for reason in reasons if reason.strip()]
