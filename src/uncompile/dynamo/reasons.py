"""Graph-break and recompilation reasons, from the structured trace's texts."""

from __future__ import annotations

import re
from typing import List, Optional, Tuple

from .model import EventRecord

_BREAK_AT = re.compile(r"Graph break in user code at (.+):(\d+)")
_TRACEBACK_FRAME = re.compile(r'File "(.+)", line (\d+), in ')


def _user_location(text: str) -> Tuple[Optional[str], Optional[int]]:
    match = _BREAK_AT.search(text)
    if match:
        return match.group(1), int(match.group(2))
    frames = _TRACEBACK_FRAME.findall(text.split("User code traceback:")[-1])
    if frames:
        return frames[-1][0], int(frames[-1][1])
    return None, None


def graph_break(compile_id: str, code_name: str, text: str) -> EventRecord:
    """A graph break: the user's file:line and PyTorch's explanation (no internal traceback)."""
    user_file, user_line = _user_location(text)
    explanation = text.split("\nUser code traceback:")[0]
    explanation = re.sub(r"^Graph break in user code at .+\n", "", explanation).strip()
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


def recompiles(compile_id: str, code_name: str, reasons: List[str]) -> List[EventRecord]:
    """Why *compile_id* was compiled: the guard of an earlier entry that failed, old vs new."""
    records: List[EventRecord] = []
    for reason in reasons:
        for line in reason.splitlines() or [reason]:
            if line.strip():
                records.append(EventRecord(compile_id, code_name, line.strip()))
    return records
