"""``try``/``except*`` (3.11+): each snippet comes back with the same bytecode."""

from __future__ import annotations

import sys

import pytest

from uncompile.verification import verify_code

pytestmark = pytest.mark.skipif(sys.version_info < (3, 11), reason="except* is 3.11+ syntax")

SNIPPETS = {
    "one_clause_with_name": """
def f(a, b):
    try:
        a()
    except* ValueError as e:
        b(e)
""",
    "several_clauses_and_a_tuple": """
def f(a, m):
    try:
        a()
    except* (ValueError, KeyError):
        pass
    except* m.Error as e:
        a(e)
    except* Exception:
        a(0)
    a(1)
""",
    "raise_in_a_clause": """
def f(a):
    try:
        a()
    except* ValueError as e:
        raise TypeError('x') from e
    except* OSError:
        raise
""",
    "return_from_the_body_else_and_finally": """
def f(a, b):
    try:
        if a:
            return b()
        b(1)
    except* ValueError:
        b(2)
    else:
        b(3)
    finally:
        b(4)
    return 8
""",
    "branches_ending_a_clause": """
def f(a, b):
    try:
        a()
    except* ValueError as e:
        if b:
            b(e)
        else:
            a(e)
    except* KeyError:
        if b:
            b()
    return 5
""",
    "inside_loops": """
def f(xs, g):
    for x in xs:
        try:
            g(x)
        except* KeyError:
            g(None)
        g(2)
    else:
        g(3)
    while xs:
        try:
            g(xs.pop())
        except* KeyError as k:
            g(k)
""",
    "tries_nested_in_a_clause": """
def f(a, b):
    try:
        a()
    except* ValueError:
        try:
            b()
        except KeyError:
            pass
        try:
            b(1)
        except* KeyError as k:
            b(k)
    b(3)
""",
    "inside_an_except_clause": """
def f(a, b):
    try:
        a()
    except OSError as o:
        try:
            b(o)
        except* ValueError:
            b()
""",
    "with_and_loop_in_a_clause": """
async def f(a, b):
    try:
        await a()
    except* ValueError as e:
        with b as c:
            for x in e.exceptions:
                await c(x)
    return 1
""",
    "loop_starting_a_clause": """
def f(a, b):
    try:
        a()
    except* ValueError as e:
        while b():
            a(e)
    except* TypeError:
        while b():
            a()
    else:
        a(3)
    b(4)
""",
    "module_level": """
try:
    a()
except* ValueError as e:
    print(e)
print(2)
""",
}


@pytest.mark.parametrize("name", sorted(SNIPPETS))
def test_except_star_round_trips(name):
    result = verify_code(compile(SNIPPETS[name], "<test>", "exec", dont_inherit=True))
    assert result.identical, (str(result), result.source)
