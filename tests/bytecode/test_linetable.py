"""The line-table encoder gives code objects exactly the lines asked for, on every version."""

from __future__ import annotations

import dis
import random
import sys
from types import CodeType
from typing import Any, Dict, List, Optional, Tuple

import pytest

from uncompile.bytecode.linetable import lines_by_offset, with_lines

NO_LINE_SUPPORTED = sys.version_info >= (3, 10)


def _sample_code() -> CodeType:
    """A function long enough for runs over 254 bytes and 8 code units."""
    body = "\n".join(f"    x{i} = a * {i} + b - x{i - 1}" if i else "    x0 = a + b" for i in range(60))
    source = f"def sample(a, b):\n{body}\n    return x59\n"
    namespace: Dict[str, object] = {}
    exec(compile(source, "<sample>", "exec"), namespace)
    return namespace["sample"].__code__  # type: ignore[attr-defined]


def _starts(code: CodeType) -> List[int]:
    return [instruction.offset for instruction in dis.get_instructions(code)]


def _expected(code: CodeType, wanted: Dict[int, Optional[int]]) -> Dict[int, Optional[int]]:
    """What the interpreter should report: without "no line", the previous line carries on."""
    if NO_LINE_SUPPORTED:
        return {offset: wanted.get(offset) for offset in _starts(code)}
    result: Dict[int, Optional[int]] = {}
    current = None
    for offset in _starts(code):
        line = wanted.get(offset)
        current = line if line is not None else current
        result[offset] = current
    return result


def _mappings(code: CodeType) -> List[Tuple[str, Dict[int, Optional[int]], int]]:
    starts = _starts(code)
    rng = random.Random(1234)
    cases: List[Tuple[str, Dict[int, Optional[int]], int]] = []
    cases.append(("one line", dict.fromkeys(starts, 7), 7))
    cases.append(("ascending", {offset: 10 + index // 3 for index, offset in enumerate(starts)}, 10))
    jumps: Dict[int, Optional[int]] = {}
    for index, offset in enumerate(starts):
        jumps[offset] = [5, 400, 3, 70000, 6, 1000][(index // 7) % 6]
    cases.append(("big jumps both ways", jumps, 3))
    sparse: Dict[int, Optional[int]] = {}
    for offset in starts:
        sparse[offset] = rng.choice([None, None, rng.randint(1, 300)])
    first = min(line for line in sparse.values() if line is not None)
    cases.append(("random with gaps", sparse, first))
    head_gap = {offset: (None if index < 40 else 50 + index) for index, offset in enumerate(starts)}
    cases.append(("long run without a line", head_gap, 20))
    return cases


@pytest.mark.parametrize("case", range(5))
def test_lines_reported_are_the_lines_asked_for(case: int) -> None:
    code = _sample_code()
    name, wanted, firstlineno = _mappings(code)[case]
    relabeled = with_lines(code, wanted, firstlineno)
    assert relabeled.co_code == code.co_code
    assert relabeled.co_consts == code.co_consts
    assert relabeled.co_firstlineno == firstlineno
    got = lines_by_offset(relabeled)
    expected = _expected(code, wanted)
    if not NO_LINE_SUPPORTED and expected[_starts(code)[0]] is None:
        # 3.8/3.9 cannot say "no line": leading instructions get the first line.
        expected = {k: (firstlineno if v is None else v) for k, v in expected.items()}
    assert got == expected, name


@pytest.mark.parametrize("case", range(5))
def test_starts_given_by_the_caller_give_the_same_table(case: int) -> None:
    code = _sample_code()
    _name, wanted, firstlineno = _mappings(code)[case]
    given = with_lines(code, wanted, firstlineno, _starts(code))
    read = with_lines(code, wanted, firstlineno)
    table = "co_linetable" if sys.version_info >= (3, 10) else "co_lnotab"
    assert getattr(given, table) == getattr(read, table)


def test_dis_line_starts_follow_the_table() -> None:
    code = _sample_code()
    starts = _starts(code)
    wanted: Dict[int, Optional[int]] = {offset: 100 + 2 * (index // 4) for index, offset in enumerate(starts)}
    relabeled = with_lines(code, wanted)
    reported = dict(dis.findlinestarts(relabeled))
    firsts: Dict[Optional[int], int] = {}
    for offset in starts:
        firsts.setdefault(wanted[offset], offset)
    assert {line: offset for offset, line in reported.items() if line is not None} == firsts


def test_trace_line_events_use_the_new_lines() -> None:
    def target(a: int, b: int) -> int:
        c = a + b
        d = c * 2
        return c + d

    code = target.__code__
    starts = _starts(code)
    # Give each original statement line a far-away line: 1000 + original line offset * 10.
    original = lines_by_offset(code)
    wanted = {
        offset: (
            None if line is None or line == code.co_firstlineno else 1000 + 10 * (line - code.co_firstlineno)
        )
        for offset, line in original.items()
    }
    relabeled = with_lines(code, wanted, 1000).replace(co_filename="<relabeled>")
    assert set(starts) == set(wanted)
    target.__code__ = relabeled
    events: List[Tuple[str, int]] = []

    def tracer(frame: Any, event: str, arg: Any) -> Any:
        if frame.f_code is relabeled and event == "line":
            events.append((frame.f_code.co_filename, frame.f_lineno))
        return tracer

    sys.settrace(tracer)
    try:
        result = target(2, 3)
    finally:
        sys.settrace(None)
    assert result == 15
    assert events == [("<relabeled>", 1010), ("<relabeled>", 1020), ("<relabeled>", 1030)]


@pytest.mark.skipif(not hasattr(sys, "monitoring"), reason="sys.monitoring exists from 3.12")
def test_monitoring_line_events_use_the_new_lines() -> None:
    def target(a: int, b: int) -> int:
        c = a + b
        d = c * 2
        return c + d

    code = target.__code__
    original = lines_by_offset(code)
    wanted = {
        offset: (None if line is None or line == code.co_firstlineno else 2000 + (line - code.co_firstlineno))
        for offset, line in original.items()
    }
    relabeled = with_lines(code, wanted, 2000).replace(co_filename="<monitored>")
    target.__code__ = relabeled
    monitoring: Any = vars(sys)["monitoring"]
    tool = next(i for i in range(6) if monitoring.get_tool(i) is None)
    events: List[Tuple[str, int]] = []

    def on_line(line_code: CodeType, line: int) -> Any:
        if line_code is relabeled:
            events.append((line_code.co_filename, line))
        return None

    monitoring.use_tool_id(tool, "uncompile-test")
    try:
        monitoring.register_callback(tool, monitoring.events.LINE, on_line)
        monitoring.set_local_events(tool, relabeled, monitoring.events.LINE)
        assert target(1, 2) == 9
    finally:
        monitoring.set_local_events(tool, relabeled, 0)
        monitoring.register_callback(tool, monitoring.events.LINE, None)
        monitoring.free_tool_id(tool)
    assert events == [("<monitored>", 2001), ("<monitored>", 2002), ("<monitored>", 2003)]
