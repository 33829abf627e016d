"""The order the simulator computed its values in (``uncompile.expressions.computation_order``),
and the constructs that need it: ``a, b = x, y`` in source order, ``x = y = v``, ``(x := v)``."""

from __future__ import annotations

import ast

import pytest
from snippets import round_trip

from uncompile.expressions.computation_order import ComputationOrder
from uncompile.expressions.values import Discard


def _name(name: str) -> ast.Name:
    return ast.Name(id=name, ctx=ast.Load())


def test_a_value_is_computed_by_the_first_step_that_leaves_it_on_top() -> None:
    order = ComputationOrder()
    a, b, never = _name("a"), _name("b"), _name("c")
    marker = Discard()
    for top in (a, marker, b, a):  # a is on top again later: computed before b all the same
        order.tops.append(top)
    assert order.number(a) == 1 and order.number(b) == 3
    assert order.number(never) == 0 and order.number(marker) == 0  # no ast node: never numbered
    statement = order.now()
    order.tops.append(never)
    assert order.number(a) <= statement < order.number(never)


def test_a_node_standing_for_another_has_its_number() -> None:
    order = ComputationOrder()
    a, b = _name("a"), _name("b")
    order.tops.extend([a, b])
    named = ast.NamedExpr(target=_name("x"), value=a)
    order.same_as(named, a)
    order.tops.append(named)  # on top later: still computed when a was
    assert order.number(named) == order.number(a) < order.number(b)


CASES = {
    "swap": """
        def f(a, b):
            a, b = b, a
            return a, b
    """,
    "rotate_three": """
        def f(a, b, c):
            a, b, c = c, a, b
            return a, b, c
    """,
    "calls_into_targets": """
        def f(o, g, h):
            o.x, o[0] = g(), h()
    """,
    "after_a_statement": """
        def f(g):
            g()
            x, y = 1, g
            return x, y
    """,
    "chained": """
        def f(v):
            x = y = v
            return x, y
    """,
    "named": """
        def f(g, v):
            g(x := v)
            return x
    """,
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_stores_in_computation_order_recompile_identically(name: str) -> None:
    round_trip(CASES[name])
