"""Behaviour: yield, yield from, send, return values of generators, generator expressions.

PYTEST_DONT_REWRITE: pytest must not rewrite the asserts of these cases (their bytecode is the input).
"""

from __future__ import annotations

import pytest

from uncompile.verification.behaviour import Cases

cases = Cases()


@cases(
    (3,),
)
def simple_generator(n):
    for i in range(n):
        yield i * 2
    yield "end"


@cases(
    (3,),
)
def yield_from_and_return_value(n):
    def inner():
        yield 1
        yield 2
        return "inner result"

    result = yield from inner()
    yield result
    yield from range(n)


@cases(
    (2,),
)
def yield_expression_values(n):
    def echo():
        received = None
        while True:
            received = yield received
            if received is None:
                return

    generator = echo()
    next(generator)
    return [generator.send(i) for i in range(n)]


@cases(
    (5,),
)
def generator_with_try_finally(n):
    try:
        for i in range(n):
            if i == 3:
                return
            yield i
    finally:
        yield "cleanup"


@cases(
    ([1, 2, 3],),
)
def generator_expressions(values):
    total = sum(v * 2 for v in values if v > 1)
    gen = (v for v in values)
    return total, next(gen), list(gen)


@pytest.mark.parametrize("name,function,calls", cases.items, ids=cases.ids())
def test_generator(name, function, calls, behaves_the_same):
    behaves_the_same(function, calls)
