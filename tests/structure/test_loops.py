"""Loops: ``while`` tests, their exits, and ``continue``/``break`` written in the loop body."""

import sys

import pytest

from uncompile.decompiler import decompile_code
from uncompile.verification import verify_code


def continue_then_break(items, low, pos):
    while pos > low:
        item = items[pos]
        if item < pos:
            pos = item
            continue
        break
    return pos


def break_then_trailing_continue(items, low, pos):
    while pos > low:
        item = items[pos]
        if not item < pos:
            break
        pos = item
        continue
    return pos


CASES = [continue_then_break, break_then_trailing_continue]
INPUTS = {
    continue_then_break: [([0, 0, 1, 1, 3], 0, 4), ([5, 5], 0, 1), ([], 3, 1)],
    break_then_trailing_continue: [([0, 0, 1, 1, 3], 0, 4), ([5, 5], 0, 1), ([], 3, 1)],
}


@pytest.mark.parametrize("function", CASES, ids=lambda f: f.__name__)
def test_recompiles_identically(function):
    if function is break_then_trailing_continue and sys.version_info < (3, 10):
        pytest.xfail("3.8 - 3.9: a trailing continue before the loop's own jump back is dropped")
    result = verify_code(function.__code__)
    assert result.identical, (result.difference, result.error, result.source)


@pytest.mark.parametrize("function", CASES, ids=lambda f: f.__name__)
def test_behaves_the_same(function):
    namespace: dict = {}
    exec(decompile_code(function.__code__), namespace)
    for args in INPUTS[function]:
        assert namespace[function.__name__](*args) == function(*args)
