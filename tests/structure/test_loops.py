"""Loops (``uncompile.structure.loops``): ``while`` tests and their exits, ``continue``/``break``
written in the loop body, and loops whose body repeats only through a handler, or never."""

from __future__ import annotations

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


LOOPS = """\
def first_of_inner(rows, cols):
    for row in rows:
        for col in cols:
            cell = row[col]
            return cell
    raise LookupError('empty')


def first_that_opens(names, suffixes):
    for name in names:
        for suffix in suffixes:
            try:
                handle = open(name + suffix)
            except OSError:
                continue
            return handle
    raise OSError('none')


def first_parsed(items):
    for item in items:
        try:
            value = int(item)
        except ValueError:
            continue
        return value
    return None


def first_retry(connect, wait):
    while True:
        try:
            handle = connect()
            break
        except OSError as exc:
            if exc.errno != 5:
                raise
        wait()
    return len(handle)


def first_try_in_while(work, tidy):
    while True:
        try:
            work()
        except ValueError:
            pass
        tidy()
"""


def _snippets():
    return [
        pytest.param(snippet, id=snippet.split("(")[0][4:])
        for snippet in ["def " + part for part in LOOPS.split("def ")[1:]]
    ]


@pytest.mark.parametrize("snippet", _snippets())
def test_loops_that_repeat_only_through_a_handler_or_never(snippet):
    namespace: dict = {}
    exec(compile(snippet, "<test>", "exec", dont_inherit=True), namespace)
    function = next(v for k, v in namespace.items() if k.startswith("first"))
    result = verify_code(function.__code__)
    assert result.identical, result
    assert result.source is not None
    for keyword in ("for ", "while ", "try:", "raise"):
        assert result.source.count(keyword) == snippet.count(keyword), keyword
