"""Constants as expressions (``uncompile.expressions.constants``): plain ``ast.Constant`` nodes,
literals tagged as constants, placeholders."""

from __future__ import annotations

import ast

import pytest
from snippets import round_trip

from uncompile.expressions.constants import constant_expr


@pytest.mark.parametrize("value", [None, True, 3, "s", b"b"])
def test_a_plain_constant_is_a_bare_constant_node(value: object) -> None:
    node = constant_expr(value, 0)
    assert type(node) is ast.Constant and node.value is value
    assert not hasattr(node, "uncompile_const")  # nothing reads the tag of a plain constant


def test_a_frozenset_literal_is_tagged_as_a_constant() -> None:
    node = constant_expr(frozenset({1, 2}), 0)
    assert isinstance(node, ast.Set) and getattr(node, "uncompile_const", False)


def test_a_constant_without_a_literal_is_a_placeholder_name() -> None:
    assert isinstance(constant_expr(object(), 0), ast.Name)


CASES = {
    "membership_in_a_set_of_constants": """
        def f(x):
            return x in {1, 2, 3}
    """,
    "set_display_of_constants": """
        def f():
            return {1, 2, 3}
    """,
    "set_display_extended": """
        def f(a):
            return {*a, 1, 2, 3}
    """,
    "plain_constants": """
        def f(x):
            x = None
            return (x, 1, "two", b"three", True)
    """,
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_constants_recompile_identically(name: str) -> None:
    round_trip(CASES[name])
