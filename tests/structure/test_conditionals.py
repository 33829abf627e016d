"""Tests of uncompile.structure.conditionals: conditional jumps made boolean values or ifs."""

from __future__ import annotations

import pytest
from snippets import define

from uncompile.verification import verify_code

TERNARY_CONDITIONS = """\
def filtered(items):
    return [x for x in items if (x.first if x.second is None else x.second)]


def looped(items, flag):
    for x in items:
        if (x if flag else -x):
            print(x)


def anded(items, flag, other):
    if (items if flag else other) and other:
        return 1
    return 0


def two_ifs(items, flag, first, second):
    for x in items:
        if flag is None:
            if not x.startswith(first):
                continue
        else:
            if not x.startswith(first) and x.endswith(second):
                continue
        print(x)
"""


@pytest.mark.parametrize("name", ["filtered", "looped", "anded", "two_ifs"])
def test_ternary_tested_as_a_condition_stays_one_condition(name):
    """``if (a if c else b):``: the branches' tests jump to the same two blocks (one of them
    by a jump past the other branch); no if statement duplicates the body. An if/else whose
    branches are ``if t: continue`` jumps the same way but past the else to another block."""
    result = verify_code(define(TERNARY_CONDITIONS, name).__code__)
    assert result.identical, (result.difference, result.source)


VALUES_COMPUTED_WHERE_OPERANDS_MEET = """\
def negated_or(a, b, c):
    return a and not (b or c)


def negated_chain(c, low, high):
    return c == low or not (low <= c <= high)


def chains_in_or(c, low, high):
    return c is None or (0 <= c <= low) or (high <= c <= 2 * high)


def negated_or_tested(a, b, c, d):
    x = a and not (b or c) or d
    return x
"""


@pytest.mark.parametrize("name", ["negated_or", "negated_chain", "chains_in_or", "negated_or_tested"])
def test_value_computed_where_inner_operands_meet(name):
    """``a and not (b or c)``: the inner value meets at the ``not``, whose result goes on to the
    outer merge point (or is tested again): one boolean value, not a mix of value and condition."""
    result = verify_code(define(VALUES_COMPUTED_WHERE_OPERANDS_MEET, name).__code__)
    assert result.identical, (result.difference, result.source)
