"""Behaviour: calls with positional, keyword, star and double-star arguments, methods, chained calls.

PYTEST_DONT_REWRITE: pytest must not rewrite the asserts of these cases (their bytecode is the input).
"""

from __future__ import annotations

import pytest

from uncompile.verification.behaviour import Cases

cases = Cases()


def target(*args, **kwargs):
    return args, sorted(kwargs.items())


@cases(
    (3,),
)
def lambdas_passed_in_calls_that_are_statements(n):
    # a call whose one argument is a lambda is no decorator where its result is dropped
    done = []
    done.append(lambda: n)
    done.extend([lambda: n + 1])
    done.append(lambda: done)
    return [f() if f() is not done else "done" for f in done]


@cases(
    (1, 2),
)
def positional_and_keyword(a, b):
    return target(a, b), target(a, key=b), target(a, *[b, b], key=1), target(**{"x": a}, y=b)


@cases(
    ([1, 2], {"k": 1}),
)
def star_and_double_star(args, kwargs):
    return target(*args), target(*args, **kwargs), target(0, *args, 3, *args), target(**kwargs, **{"z": 2})


@cases(
    ("a b c",),
)
def method_calls(text):
    return text.split(), text.replace(" ", "-").upper(), " ".join(reversed(text.split()))


@cases(
    (3,),
)
def nested_calls(n):
    return max(min(n, 10), abs(-n)), list(map(str, range(n))), dict(zip("abc", range(n)))


@cases(
    (1, 2, 3),
)
def many_arguments(a, b, c):
    return target(a, b, c, a, b, c, a, b, c, a, b, c, k1=a, k2=b, k3=c, k4=a, k5=b)


@cases((5,), (5, {"step": 2}))
def keyword_only_and_defaults(n, *, step=1):
    def inner(x, y=10, /, z=20, *, w=30):
        return x + y + z + w

    return list(range(0, n, step)), inner(1), inner(1, 2, z=3, w=4)


@pytest.mark.parametrize("name,function,calls", cases.items, ids=cases.ids())
def test_call(name, function, calls, behaves_the_same):
    behaves_the_same(function, calls)
