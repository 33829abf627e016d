"""Tests of uncompile.verification.closure: recompiled code takes the original's closure layout."""

from __future__ import annotations

import types
from types import CodeType, FunctionType
from typing import Any, Tuple

from uncompile.verification.compare import compare_code, nested_code
from uncompile.verification.recompile import recompile


def inner_code(source: str) -> CodeType:
    outer = nested_code(compile(source, "<closure>", "exec"))[0]
    return nested_code(outer)[0]


def cell(value: Any) -> Any:
    return types.CellType(value) if hasattr(types, "CellType") else (lambda: value).__closure__[0]  # type: ignore


def call(code: CodeType, cells: Tuple[Any, ...], *args: Any) -> Any:
    return FunctionType(code, {}, code.co_name, None, cells)(*args)


OUTER = """
def outer(first, second):
    alpha = first * 10
    beta = second
    def combine(x):
        nonlocal beta
        beta += 1
        return alpha - beta + x + first
    return combine
"""


def test_free_variables_in_an_order_the_compiler_would_not_choose() -> None:
    code = inner_code(OUTER)
    assert code.co_freevars == ("alpha", "beta", "first")
    # A Dynamo-like original: the same instructions, the free variables listed in another order.
    shuffled = code.replace(co_freevars=("first", "beta", "alpha"))
    # What those instructions now compute, written as source: slot names follow the new order.
    source = "def combine(x):\n    nonlocal beta\n    beta += 1\n    return first - beta + x + alpha\n"
    new = recompile(shuffled, source=source, qualname="outer.<locals>.combine")
    assert new.co_freevars == shuffled.co_freevars
    assert compare_code(shuffled, new) is None
    cells = (cell(1), cell(2), cell(30))
    expected = call(shuffled, cells, 5)
    cells = (cell(1), cell(2), cell(30))
    assert call(new, cells, 5) == expected


def test_unused_free_variable_is_kept() -> None:
    def plain(x):
        return x + 1

    original = plain.__code__.replace(co_freevars=("__class__",))
    new = recompile(original, source="def plain(x):\n    return x + 1\n", qualname="plain")
    assert new.co_freevars == ("__class__",)
    assert compare_code(original, new) is None
    assert call(new, (cell(object),), 1) == 2


def test_argument_that_is_a_cell() -> None:
    source = "def outer(a, b):\n    def inner():\n        return a + b\n    return inner\n"
    outer = nested_code(compile(source, "<closure>", "exec"))[0]
    assert outer.co_cellvars == ("a", "b")
    new = recompile(outer, source=source)
    assert compare_code(outer, new) is None
    assert FunctionType(new, {})(1, 2)() == 3
