"""Chained comparisons used as values, and compound ``while`` conditions, round-trip."""

from __future__ import annotations

import itertools
import types

import pytest

import uncompile
from uncompile.verification import verify_code


def chain_return(a, b, c):
    return a < b < c


def chain_assign(a, b, c):
    x = a < b <= c
    return x


def chain_or(a, b, c, d):
    return d or a < b < c


def chain_and(a, b, c, d):
    return a and b < c < d


def chains_and_chain(a, b, c, d):
    return (a < b < c) and (b < c < d)


def chain_or_assign(a, b, c, d):
    x = a < b < c or d < a
    return x


def while_and(a, b, c, d):
    n = 0
    while a > n and b > n:
        n += 1
    return n


def while_or(a, b, c, d):
    n = 0
    while a > n or b > n:
        n += 1
    return n


def while_and_or(a, b, c, d):
    n = 0
    while (a > n or b > n) and c > n:
        n += 1
    return n


CHAINS = [chain_return, chain_assign]
BOOL_CHAINS = [chain_or, chain_and, chains_and_chain, chain_or_assign]
WHILES = [while_and, while_or, while_and_or]


def _check(func):
    result = verify_code(func.__code__)
    assert result.identical, (result.difference, result.source)
    rebuilt = types.FunctionType(uncompile.recompile(func.__code__), func.__globals__)
    arity = func.__code__.co_argcount
    for args in itertools.product((0, 1, 2, 3), repeat=arity):
        assert rebuilt(*args) == func(*args), args


@pytest.mark.parametrize("func", CHAINS, ids=lambda f: f.__name__)
def test_chained_comparison_value(func):
    _check(func)


@pytest.mark.parametrize("func", BOOL_CHAINS, ids=lambda f: f.__name__)
def test_chained_comparison_inside_and_or(func):
    _check(func)


@pytest.mark.parametrize("func", WHILES, ids=lambda f: f.__name__)
def test_compound_while_condition(func):
    _check(func)
