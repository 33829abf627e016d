"""Behaviour: list, set, dict comprehensions and generator expressions, nested and with conditions.

PYTEST_DONT_REWRITE: pytest must not rewrite the asserts of these cases (their bytecode is the input).
"""

from __future__ import annotations

import pytest

from uncompile.verification.behaviour import Cases

cases = Cases()


@cases(([1, 2, 3, 4],), ([],))
def simple(values):
    as_list = list(v for v in values)  # noqa: C400 - a generator expression is the case
    return [v * 2 for v in values], {v % 2 for v in values}, {v: v * v for v in values}, as_list


@cases(
    ([1, 2, 3, 4, 5, 6],),
)
def with_conditions(values):
    return [v for v in values if v % 2 if v > 1], [v if v > 3 else -v for v in values if v != 2 or v == 6]


@cases(
    ([[1, 2], [3], []],),
)
def nested(matrix):
    flat = [x for row in matrix for x in row]
    pairs = [(i, j) for i in range(3) for j in range(i) if i != j]
    inner = [[x * 2 for x in row] for row in matrix]
    return flat, pairs, inner


@cases(
    (3,),
)
def closures_in_comprehensions(n):
    scale = n * 2
    funcs = [lambda x, i=i: x + i + scale for i in range(n)]
    return [f(1) for f in funcs], sum(x * scale for x in range(n))


@cases(
    ("hello",),
)
def comprehension_variable_does_not_leak(word):
    letter = "kept"
    upper = [letter.upper() for letter in word]
    return upper, letter


@cases(
    ({"a": 1, "b": 2},),
)
def dict_comprehension_over_items(mapping):
    return {value: key for key, value in mapping.items() if value > 1}, any(v > 1 for v in mapping.values())


# (the layout over lines is the case)
# fmt: off
@cases(
    ([1, [], [2], None, {}, "x"],),
)
def condition_over_lines_with_or_of_ands(values):
    # 3.10 - 3.11: each line keeps a jump of its own, so the tests that fail before the last one
    # go to the jump back at the loop's bottom, and the last one jumps back to the header itself
    kept = {
        k: v
        for k, v in enumerate(values)
        if (
            (not isinstance(v, (list, dict)) and v is not None)
            or (isinstance(v, (list, dict)) and len(v) > 0)
        )
    }
    named = tuple(
        v
        for v in values
        if v == 1
        or (
            isinstance(v, list)
            and v
            and v[0] == 2
        )
    )
    return kept, named
# fmt: on


@cases(
    ([1, 2, 3],),
)
def one_item_loops_are_assignments(values):
    # 3.9+ compile ``for y in [v]`` in a comprehension as the store ``y = v``
    squares = [s for v in values for s in [v * v] if s > 1]
    pairs = {(a, b) for v in values for a, b in [(v, -v)]}
    return squares, pairs, [t for v in values if v for t in (v + 1,)]


@pytest.mark.parametrize("name,function,calls", cases.items, ids=cases.ids())
def test_comprehension(name, function, calls, behaves_the_same):
    behaves_the_same(function, calls)
