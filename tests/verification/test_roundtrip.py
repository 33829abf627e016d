"""Tests of the round-trip harness and the stdlib sample, with a stand-in decompiler."""

from __future__ import annotations

import sys
import time
from pathlib import Path
from types import CodeType
from typing import Callable

from uncompile.errors import DecompileError
from uncompile.verification.compare import nested_code
from uncompile.verification.roundtrip import (
    OUTCOMES,
    check_file,
    check_unit,
    compile_file,
    format_table,
    iter_units,
    summarize,
    top_failures,
)
from uncompile.verification.stdlib_sample import sample_units, stdlib_files

EXAMPLE = """\
import os


def top(a, b=1):
    return os.path.join(a, str(b))


class Shape(object):
    sides = 0

    def area(self):
        return 0

    def describe(self):
        return "%s with %d sides" % (type(self).__name__, self.sides)


class Square(Shape):
    sides = 4

    def __init__(self, size):
        self.size = size

    def area(self):
        return self.size ** 2 + super().area()


def outer(values):
    total = 0

    def add(value):
        nonlocal total
        total += value
        return total

    for value in values:
        add(value)
    return [total for _ in values], (lambda: total)
"""


def write_example(tmp_path: Path) -> str:
    path = tmp_path / "example.py"
    path.write_text(EXAMPLE)
    return str(path)


def test_units_are_found_with_their_qualified_names(tmp_path: Path) -> None:
    names = [name for name, _ in iter_units(compile_file(write_example(tmp_path)))]
    for expected in ("<module>", "top", "Shape", "Shape.area", "Square.area", "outer.<locals>.add"):
        assert expected in names
    assert "outer.<locals>.<lambda>" in names
    if sys.version_info >= (3, 11):
        for name, code in iter_units(compile_file(write_example(tmp_path)), include_module=False):
            assert name == code.co_qualname


def test_every_definition_round_trips_with_the_original_source(
    tmp_path: Path, oracle: Callable[[str], Callable[[CodeType], str]]
) -> None:
    results = check_file(write_example(tmp_path), decompile=oracle(EXAMPLE))
    by_name = {result.qualname: result for result in results}
    for name in (
        "<module>",
        "top",
        "Shape",
        "Shape.describe",
        "Square",
        "Square.area",
        "outer",
        "outer.<locals>.add",
    ):
        assert by_name[name].outcome == "identical", (name, by_name[name].detail)
    # The oracle knows no lambdas: a DecompileError is a clean failure, not a crash.
    assert by_name["outer.<locals>.<lambda>"].outcome == "decompile-error"


def test_wrong_source_is_reported_different(
    tmp_path: Path, oracle: Callable[[str], Callable[[CodeType], str]]
) -> None:
    honest = oracle(EXAMPLE)

    def off_by_one(code: CodeType) -> str:
        return honest(code).replace("** 2", "** 3")

    results = check_file(write_example(tmp_path), decompile=off_by_one)
    square = [result for result in results if result.qualname == "Square.area"][0]
    assert square.outcome == "different" and "Square.area" in square.detail


def test_crashes_and_timeouts_are_crashes() -> None:
    code = compile("def f():\n    return 1\n", "<t>", "exec").co_consts[0]

    def crashing(code: CodeType) -> str:
        raise IndexError("tuple index out of range")

    def hanging(code: CodeType) -> str:
        while True:
            time.sleep(0.01)

    def clean_failure(code: CodeType) -> str:
        raise DecompileError("cannot structure", function="f", offset=2, construct="loop")

    outcome, detail, _ = check_unit(code, "f", decompile=crashing)
    assert outcome == "crash" and "IndexError" in detail
    started = time.perf_counter()
    outcome, detail, _ = check_unit(code, "f", time_limit=0.2, decompile=hanging)
    assert outcome == "crash" and "timeout" in detail
    assert time.perf_counter() - started < 5
    outcome, detail, _ = check_unit(code, "f", decompile=clean_failure)
    assert outcome == "decompile-error" and "offset 2" in detail
    outcome, detail, _ = check_unit(code, "f", decompile=lambda code: "def f(:\n")
    assert outcome == "uncompilable"


def test_summary_table_and_failure_reasons(
    tmp_path: Path, oracle: Callable[[str], Callable[[CodeType], str]]
) -> None:
    results = check_file(write_example(tmp_path), decompile=oracle(EXAMPLE))
    summary = summarize(results)
    assert summary.total == len(results) and sum(summary.counts.values()) == len(results)
    assert set(summary.counts) == set(OUTCOMES)
    table = format_table([("%d.%d" % sys.version_info[:2], summary)])
    assert "identical" in table and "%d.%d" % sys.version_info[:2] in table
    reasons = top_failures(results)
    assert reasons and reasons[0][0] >= 1 and "decompile-error" in reasons[0][1]


def test_stdlib_sample_is_fixed_and_skips_tests() -> None:
    files = stdlib_files()
    assert files == sorted(files) and files
    assert not [name for name in files if "/test/" in "/" + name or name.startswith("idlelib/")]
    first = [(path, name) for path, name, _ in sample_units(40)]
    second = [(path, name) for path, name, _ in sample_units(40)]
    assert first == second and len(first) == 40
    assert first != [(path, name) for path, name, _ in sample_units(40, seed=1)]


def test_units_below_a_function() -> None:
    source = "class C:\n    def m(self):\n        def inner():\n"
    source += "            return lambda: 1\n        return inner\n"
    body = nested_code(compile(source, "<t>", "exec"))[0]
    method = [code for code in nested_code(body) if code.co_name == "m"][0]
    names = [name for name, _ in iter_units(method, qualname="C.m")]
    assert names == ["C.m", "C.m.<locals>.inner", "C.m.<locals>.inner.<locals>.<lambda>"]


def test_a_difference_that_leaves_code_out_names_what_is_lost():
    from uncompile.verification.roundtrip import UnitResult, failure_reason

    code = compile("def f(y, done):\n    done.append(y)\n    return y\n", "<test>", "exec").co_consts[0]

    def leaves_the_call_out(_code: CodeType) -> str:
        return "def f(y, done):\n    return y\n"

    def lays_it_out_otherwise(_code: CodeType) -> str:
        return "def f(y, done):\n    done.append(y)\n    return y if y else y\n"

    outcome, detail, _ = check_unit(code, "f", decompile=leaves_the_call_out)
    assert outcome == "different" and detail.startswith("names lost: append; "), detail
    result = UnitResult("<test>", "f", "function", outcome, detail, 0.0)
    assert failure_reason(result) == "different: names lost (code left out)"
    outcome, detail, _ = check_unit(code, "f", decompile=lays_it_out_otherwise)
    assert outcome == "different" and not detail.startswith("names lost"), detail
