"""Tests of uncompile.verification.behaviour with stand-in decompilers (honest, lying, failing).

PYTEST_DONT_REWRITE: the functions checked here are inputs; their asserts must stay plain.
"""

from __future__ import annotations

import inspect
import sys
import textwrap
import types
from types import CodeType
from typing import Callable, Dict

import pytest

from uncompile.errors import DecompileError
from uncompile.verification.behaviour import Cases, check_behaviour, check_module_behaviour, observe


def scale_all(values, factor=2):
    total = 0

    def scaled(value):
        return value * factor

    for value in values:
        total += scaled(value)
    assert total >= 0, "negative total"
    return total


def countdown(n):
    while n > 0:
        yield n
        n -= 1


def drain_queue(queue):
    out = []
    while queue:
        out.append(queue.pop())
    return out


SOURCES: Dict[str, str] = {
    "scale_all": textwrap.dedent(inspect.getsource(scale_all)),
    "countdown": textwrap.dedent(inspect.getsource(countdown)),
    "drain_queue": textwrap.dedent(inspect.getsource(drain_queue)),
}


def install(monkeypatch: pytest.MonkeyPatch, decompile: Callable[[CodeType], str]) -> None:
    fake = types.ModuleType("uncompile.decompiler")
    fake.decompile_code = decompile  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "uncompile.decompiler", fake)


def honest(code: CodeType) -> str:
    if code.co_name == "<module>":
        raise DecompileError("no modules here")
    return SOURCES[code.co_name]


def test_honest_source_behaves_the_same(monkeypatch: pytest.MonkeyPatch) -> None:
    install(monkeypatch, honest)
    result = check_behaviour(scale_all, [(([1, 2],), {}), (([-5],), {})])
    assert result.status == "same" and result.identical
    assert check_behaviour(countdown, [((3,), {})]).status == "same"


def test_each_run_gets_arguments_of_its_own(monkeypatch: pytest.MonkeyPatch) -> None:
    # the original empties the list it is given: the copy must not meet an emptied one
    install(monkeypatch, honest)
    queue = [1, 2, 3]
    result = check_behaviour(drain_queue, [((queue,), {})])
    assert result.status == "same", result.detail
    assert queue == [1, 2, 3]


def test_wrong_source_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    install(monkeypatch, lambda code: SOURCES[code.co_name].replace("value * factor", "value + factor"))
    result = check_behaviour(scale_all, [(([1, 2],), {})])
    assert result.status == "different" and result.identical is False
    assert "expected" in result.detail


def test_failures_are_reported_not_raised(monkeypatch: pytest.MonkeyPatch) -> None:
    def failing(code: CodeType) -> str:
        raise DecompileError("cannot", function=code.co_name)

    install(monkeypatch, failing)
    assert check_behaviour(scale_all, [(([1],), {})]).status == "decompile-error"
    install(monkeypatch, lambda code: "def scale_all(:\n")
    assert check_behaviour(scale_all, [(([1],), {})]).status == "uncompilable"
    install(monkeypatch, lambda code: [][1])
    assert check_behaviour(scale_all, [(([1],), {})]).status == "crash"
    assert check_module_behaviour("x = 1\n").status == "crash"


def test_module_behaviour(monkeypatch: pytest.MonkeyPatch) -> None:
    source = "import os\nvalue = os.sep * 2\n"
    install(monkeypatch, lambda code: source)
    assert check_module_behaviour(source).status == "same"
    install(monkeypatch, lambda code: source.replace("2", "3"))
    assert check_module_behaviour(source).status == "different"


def test_observe_drains_generators_and_exceptions() -> None:
    assert observe(countdown, ((2,), {})) == ("returned", ("generator", [2, 1]))
    assert observe(scale_all, (([-3],), {}))[0] == "raised"


def test_cases_registry() -> None:
    cases = Cases()

    @cases((1,), (2, {"factor": 3}))
    def double(value, factor=2):
        return value * factor

    cases.from_source((3, 99), "def future(): pass\n", "future")
    cases.from_source((3, 0), "def past(x):\n    return x\n", "past", (1,))
    assert cases.ids() == ["double", "future", "past"]
    assert cases.items[0][2] == [((1,), {}), ((2,), {"factor": 3})]
    assert cases.items[1][1] is None
    assert cases.items[2][1](5) == 5
