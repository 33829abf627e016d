"""Conditions and boolean values of several tests (``uncompile.structure.conditionals``, with
the pieces :mod:`uncompile.structure.pure_blocks` evaluates)."""

from __future__ import annotations

import pytest
from snippets import define

from uncompile.verification import verify_code

CHAINS_AFTER_OTHER_TESTS = {
    # the chain's last test falls through to a copy of the body's return (3.10+)
    "or_then_chain": """
        def f(x, a, b, c):
            if x or a < b < c:
                return 1
            return 2
    """,
    "and_chain_or": """
        def f(a, b, c, d, e):
            if a and b < c < d or e:
                return 1
            return 2
    """,
    "not_of_or_chain": """
        def f(x, a, b, c, y):
            if not (x or a < b < c):
                y = 1
            return y
    """,
    # the chain's last test jumps to a block that only jumps on to the body
    "in_a_loop": """
        def f(items, a, c):
            for item in items:
                if item or a < item < c:
                    g(item)
    """,
    # the chain's cleanup jumps on to the next iteration just before the kept item (3.12+)
    "in_a_comprehension": """
        def f(items, a, c):
            return [item for item in items if item or a < item < c]
    """,
    "assert": """
        def f(x, a, b, c, message):
            assert x or a < b < c, message
    """,
    "chain_then_statements": """
        def f(x, a, b, c):
            if x and a <= b < c:
                x = g(x)
            else:
                x = h(x)
            return x
    """,
}


@pytest.mark.parametrize("name", sorted(CHAINS_AFTER_OTHER_TESTS))
def test_chain_after_other_tests_in_a_condition(name: str) -> None:
    result = verify_code(define(CHAINS_AFTER_OTHER_TESTS[name]).__code__, qualname="f")
    assert result.identical, result
    assert result.source is not None and " < c" in result.source


CHAIN_VALUES_AFTER_OTHER_TESTS = {
    # the chain's value is tested again by the ``or`` (3.14+ send ``a``'s false value past it)
    "and_chain_or": "def f(a, b, c, d, e):\n    return a and b < c < d or e\n",
    "or_chain_and": "def f(x, a, b, c, y):\n    return (x or a < b < c) and y\n",
    "between_tests": "def f(x, a, b, c, y):\n    z = x or a < b < c or y\n    return z\n",
    # the rest of the returned call is copied after the chain (3.10+)
    "call_argument": "def f(x, a, b, c):\n    return g(x and a == b == c, 1)\n",
}


@pytest.mark.parametrize("name", sorted(CHAIN_VALUES_AFTER_OTHER_TESTS))
def test_chain_value_after_other_tests(name: str) -> None:
    result = verify_code(define(CHAIN_VALUES_AFTER_OTHER_TESTS[name]).__code__, qualname="f")
    assert result.identical, result
