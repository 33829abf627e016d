"""Behaviour: if/elif/else, while/else, for/else, break and continue in any nesting, early returns.

PYTEST_DONT_REWRITE: pytest must not rewrite the asserts of these cases (their bytecode is the input).
"""

from __future__ import annotations

import pytest

from uncompile.verification.behaviour import Cases

cases = Cases()

#: Cases that cannot pass yet, with the versions where they fail (see conftest.py).
EXPECTED_FAILURES: dict = {}


@cases((-5,), (0,), (3,), (50,))
def if_elif_else(n):
    if n < 0:
        kind = "negative"
    elif n == 0:
        kind = "zero"
    elif n < 10:
        kind = "small"
    else:
        kind = "large"
    if n:
        pass
    return kind


@cases((10,), (0,))
def while_with_else_break_continue(n):
    seen = []
    i = 0
    while i < n:
        i += 1
        if i % 2:
            continue
        if i > 6:
            break
        seen.append(i)
    else:
        seen.append("done")
    return seen


@cases(
    ([[1, 2], [5, 1], []], 3),
)
def while_else_continues_outer_loop(rows, limit):
    out = []
    for row in rows:
        i = 0
        while i < len(row):
            if row[i] > limit:
                break
            i += 1
        else:
            out.append("all")
            continue
        out.append(i)
    return out


@cases((6, 4), (3, 1), (0, 0))
def nested_while_else(n, m):
    out = []
    a = 0
    while a < n:
        a += 1
        b = 0
        while b < m:
            b += 1
            if a * b == 6:
                break
        else:
            out.append((a, "full"))
            continue
        if a > 4:
            break
        out.append((a, b))
    else:
        out.append("done")
    return out


@cases(([1, 2, 3],), ([4, 5, 6],), ([],))
def for_with_else(values):
    for value in values:
        if value == 2:
            found = value
            break
    else:
        found = None
    return found


@cases(
    (4,),
)
def nested_loops_with_break_and_continue(n):
    pairs = []
    for i in range(n):
        for j in range(n):
            if j > i:
                break
            if (i + j) % 2:
                continue
            pairs.append((i, j))
        else:
            pairs.append("inner done")
        if i == 2:
            continue
    return pairs


@cases(([3, -1, 4],), ([1, 2],))
def return_from_loop(values):
    for value in values:
        while value > 0:
            if value == 3:
                return "three"
            value -= 1
        if value < 0:
            return "negative"
    return "none"


@cases((0,), (1,), (7,))
def while_true_with_return(n):
    while True:
        if n > 5:
            return n
        n += 3


@cases(
    (3,),
)
def loop_over_range_with_enumerate(n):
    total = 0
    for index, value in enumerate(range(n)):
        if index and value:
            total += index * value
        elif not index:
            total -= 1
    return total


@pytest.mark.parametrize("name,function,calls", cases.items, ids=cases.ids())
def test_control_flow(name, function, calls, behaves_the_same):
    behaves_the_same(function, calls)
