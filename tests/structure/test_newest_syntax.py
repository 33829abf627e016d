"""3.15 syntax: ``lazy import`` and unpacking in comprehensions; 3.14 ``except A, B``."""

from __future__ import annotations

import sys

import pytest
from snippets import define, round_trip

from uncompile.verification import verify_code

PY315 = pytest.mark.skipif(sys.version_info < (3, 15), reason="3.15 syntax")

LAZY = """\
lazy import os
lazy import a.b.c
lazy import a.b as ab
lazy import a.b.c.d as abcd
lazy from os import sep
"""

UNPACKING = """\
def f(y):
    return [*x for x in y], {*x for x in y}, {**d for d in y}, list(*x for x in y if x)
"""

EXCEPT_LIST = """\
def f():
    try:
        x = 1
    except ValueError, TypeError:
        x = 2
    y = x + 1
    return y
"""


@PY315
def test_lazy_imports():
    result = verify_code(compile(LAZY, "<test>", "exec", dont_inherit=True))
    assert result.identical, result
    assert result.source is not None and result.source.count("lazy ") == 5


@PY315
def test_unpacking_in_comprehensions():
    round_trip(UNPACKING)


@pytest.mark.skipif(sys.version_info < (3, 14), reason="3.14 syntax")
def test_except_without_parentheses():
    assert verify_code(define(EXCEPT_LIST).__code__).identical
