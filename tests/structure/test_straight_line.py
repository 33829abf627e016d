"""Straight-line code is simulated in order, without a graph: same statements as the walk gives."""

from __future__ import annotations

import ast
import sys

import pytest
from snippets import define, round_trip

from uncompile.expressions.stack_shuffles import simulator_for
from uncompile.structure.definitions import Nested
from uncompile.structure.straight_line import is_straight_line, straight_line_statements
from uncompile.structure.walker import Walker, read_code

STRAIGHT = {
    "arithmetic": "def f(a, b):\n    return a + b * 2\n",
    "statements": (
        "def f(a, b):\n"
        "    global g\n"
        "    x = y = a.b[1:2]\n"
        "    a, b = b, a\n"
        "    g = x, y\n"
        "    del a\n"
        "    print(b, *x, key=y)\n"
    ),
    "nested_definitions": (
        "def f(a):\n    def g(b=a):\n        return b\n    h = lambda c: c + a\n    return g, h\n"
    ),
    "imports": "def f(a):\n    import os.path as p\n    from os import sep\n    return p.join(a, sep)\n",
    "implicit_return": "def f(a):\n    a.append(1)\n",
}

NOT_STRAIGHT = {
    "if": "def f(a):\n    if a:\n        a()\n",
    "boolean_value": "def f(a, b):\n    return a or b\n",
    "loop": "def f(a):\n    for x in a:\n        x()\n",
    "try": "def f(a):\n    try:\n        a()\n    except E:\n        pass\n",
    "with": "def f(a):\n    with a:\n        pass\n",
}
RAISES = "def f(a):\n    x = a()\n    raise ValueError(x)\n"
if sys.version_info < (3, 10):  # the dead ``return None`` kept after it is walked (and known dead)
    NOT_STRAIGHT["raises"] = RAISES
else:
    STRAIGHT["raises"] = RAISES


def _code(source: str):  # type: ignore[no-untyped-def]
    return define(source).__code__


@pytest.mark.parametrize("name", sorted(STRAIGHT))
def test_straight_line_code_is_recognized(name):
    assert is_straight_line(read_code(_code(STRAIGHT[name])))


@pytest.mark.parametrize("name", sorted(NOT_STRAIGHT))
def test_code_that_branches_is_walked(name):
    assert not is_straight_line(read_code(_code(NOT_STRAIGHT[name])))


@pytest.mark.parametrize("name", sorted(STRAIGHT))
def test_straight_line_statements_are_the_walked_ones(name):
    code = _code(STRAIGHT[name])
    walker = Walker(code, Nested(code))
    walked = walker.run()
    parts = read_code(code)
    sim = simulator_for(code, Nested(code), parts.instrs)
    direct = straight_line_statements(sim, parts.instrs)
    assert [ast.dump(s) for s in direct] == [ast.dump(s) for s in walked]
    assert [s.uncompile_offsets for s in direct] == [s.uncompile_offsets for s in walked]  # type: ignore[attr-defined]
    assert sim.globals_declared == walker.sim.globals_declared


@pytest.mark.parametrize("name", sorted(STRAIGHT))
def test_straight_line_code_round_trips(name):
    round_trip(STRAIGHT[name])


def test_class_body_round_trips():
    round_trip(
        "def f(base):\n"
        "    class C(base):\n"
        "        '''doc'''\n"
        "        x = 1\n"
        "        y: int = x\n"
        "    return C\n"
    )
