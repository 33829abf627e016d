"""Behaviour: operators, precedence, comparisons, boolean logic, conditional expressions, walrus, slices.

PYTEST_DONT_REWRITE: pytest must not rewrite the asserts of these cases (their bytecode is the input).
"""

from __future__ import annotations

import pytest

from uncompile.verification.behaviour import Cases

cases = Cases()


@cases((3, 4), (-2, 7), (0, 1))
def arithmetic(a, b):
    return a + b * 2 - (a - b) ** 2 // 3 % 5, -(a**2), (-a) ** 2, a / b, ~a, +b, a << 2 >> 1


@cases((5, 3), (0, 0), (-1, 8))
def bitwise(a, b):
    return a & b | a ^ b, a | b & a, (a | b) & a, a ^ (b | 1)


@cases((1, 2, 3), (3, 2, 1), (2, 2, 2))
def chained_comparisons(a, b, c):
    return a < b < c, a <= b != c, a == b == c, not a < b, a is not None, a in (b, c), a not in [b]


@cases((0, 1, 2), (1, 0, 0), (None, "", [1]))
def boolean_logic(a, b, c):
    first = a and b or c
    second = a or (b and c)
    third = not (a or b) and c
    fourth = (a or b) and (b or c) and not c
    return first, second, third, fourth


@cases((0, 1, 2), (1, 0, 0), (5, 5, 5))
def conditions_with_and_or(a, b, c):
    result = []
    if a and (b or c):
        result.append(1)
    if (a or b) and not c:
        result.append(2)
    if not a and not b or c:
        result.append(3)
    return result


@cases((1,), (0,), (-3,))
def conditional_expressions(a):
    nested = "pos" if a > 0 else "zero" if a == 0 else "neg"
    inner = (a if a else -1) + (1 if a > 0 and a < 5 else 2)
    return nested, inner


@cases(([1, 2, 3, 4],), ([],))
def walrus(values):
    if (count := len(values)) > 2:
        return count, [y for x in values if (y := x * 2) > 2], y
    return count


@cases(("abcdefgh",), ([1, 2, 3, 4, 5],))
def slices(seq):
    return seq[1:], seq[:-1], seq[::2], seq[1:4:2], seq[-1], seq[:], seq[::-1]


@cases(({"a": 1},), ({},))
def subscripts_and_attributes(mapping):
    mapping["b"] = mapping.get("a", 0) + 1
    keys = sorted(mapping.keys())
    return keys, mapping["b"], (1, 2)[0], "x".upper().lower()


@cases(([1, 2], {"k": 3}), ([], {}))
def displays_with_unpacking(items, mapping):
    return [*items, 0], (*items,), {*items}, {**mapping, "z": 1}, [[1, *items], {"a": 1, **mapping}]


@cases(
    (2,),
)
def lambdas(n):
    add = lambda a, b=n, *rest, key=None, **extra: a + b + len(rest)  # noqa: E731
    return add(1), add(1, 2, 3, 4), (lambda: n * 2)(), sorted([3, 1, 2], key=lambda v: -v)


@pytest.mark.parametrize("name,function,calls", cases.items, ids=cases.ids())
def test_expression(name, function, calls, behaves_the_same):
    behaves_the_same(function, calls)
