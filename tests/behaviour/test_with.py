"""Behaviour: with statements with one or several items, ``as`` targets, exceptions and early exits.

PYTEST_DONT_REWRITE: pytest must not rewrite the asserts of these cases (their bytecode is the input).
"""

from __future__ import annotations

import pytest

from uncompile.verification.behaviour import Cases

cases = Cases()


class Recorder:
    def __init__(self, log, name, swallow=False):
        self.log, self.name, self.swallow = log, name, swallow

    def __enter__(self):
        self.log.append("enter " + self.name)
        return self.name.upper()

    def __exit__(self, kind, value, traceback):
        self.log.append("exit %s %s" % (self.name, kind.__name__ if kind else None))
        return self.swallow


@cases((False,), (True,))
def single_item(fail):
    log = []
    with Recorder(log, "a", swallow=True) as name:
        log.append(name)
        if fail:
            raise ValueError
        log.append("body")
    return log


@cases(
    (1,),
)
def several_items(n):
    log = []
    with Recorder(log, "a") as first, Recorder(log, "b"), Recorder(log, "c") as (third):
        log.append(first + third)
    return log


@cases(
    ([1, 2, 3],),
)
def return_break_continue_inside_with(values):
    log = []
    for value in values:
        with Recorder(log, str(value)):
            if value == 1:
                continue
            if value == 3:
                break
    with Recorder(log, "r"):
        return log


@cases((True,), (False,))
def with_inside_try(fail):
    log = []
    try:
        with Recorder(log, "x"):
            if fail:
                raise KeyError("k")
    except KeyError:
        log.append("caught")
    return log


cases.from_source(
    (3, 10),
    "def parenthesized(log):\n"
    "    with (\n"
    "        Recorder(log, 'p') as p,\n"
    "        Recorder(log, 'q'),\n"
    "    ):\n"
    "        log.append(p)\n"
    "    return log\n",
    "parenthesized",
    ([],),
)
if cases.items[-1][1] is not None:
    cases.items[-1][1].__globals__["Recorder"] = Recorder


@pytest.mark.parametrize("name,function,calls", cases.items, ids=cases.ids())
def test_with(name, function, calls, behaves_the_same):
    behaves_the_same(function, calls)
