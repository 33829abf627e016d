"""Behaviour: chained, tuple, star and nested unpacking; attribute and subscript targets; augmented,
annotated assignment; del; global and nonlocal.

PYTEST_DONT_REWRITE: pytest must not rewrite the asserts of these cases (their bytecode is the input).
"""

from __future__ import annotations

import pytest

from uncompile.verification.behaviour import Cases

cases = Cases()
COUNTER = 0


class Box:
    pass


@cases(
    (1, 2),
)
def chained_and_tuples(a, b):
    x = y = z = a
    a, b = b, a
    (c, d), e = (a, b), x + y + z
    return a, b, c, d, e


@cases(([1, 2, 3, 4, 5],), ([1, 2],))
def star_unpacking(values):
    first, *middle, last = values
    *init, tail = values
    head, *_ = values
    return first, middle, last, init, tail, head


@cases(
    (5,),
)
def attribute_and_subscript_targets(n):
    box = Box()
    box.value = n
    box.items = [0] * 3
    box.items[1] = box.value
    box.items[-1], box.other = n * 2, n * 3
    table = {}
    table["a"] = table["b"] = n
    return box.value, box.items, box.other, sorted(table.items())


@cases(
    (5,),
)
def augmented(n):
    total = n
    total += 2
    total *= 3
    total //= 2
    total **= 2
    total -= 1
    total %= 1000
    total <<= 1
    total |= 1
    items = [1, 2]
    items += [3]
    items[0] += 10
    box = Box()
    box.count = 1
    box.count += n
    return total, items, box.count


@cases(
    (3,),
)
def annotated(n):
    value: int = n
    other: "list[int]"  # noqa: F842 - an annotation without value is a case
    box = Box()
    box.field: int = 4
    return value, box.field


@cases(
    (4,),
)
def deletion(n):
    items = list(range(n))
    del items[0]
    del items[-1:]
    box = Box()
    box.a = 1
    del box.a
    local = 1
    del local
    return items, hasattr(box, "a")


@cases(
    (2,),
)
def global_statement(n):
    global COUNTER
    COUNTER += n
    return COUNTER > 0


@cases(
    (2,),
)
def nonlocal_statement(n):
    count = 0

    def bump():
        nonlocal count
        count += n
        return count

    bump()
    return bump(), count


@pytest.mark.parametrize("name,function,calls", cases.items, ids=cases.ids())
def test_assignment(name, function, calls, behaves_the_same):
    behaves_the_same(function, calls)
