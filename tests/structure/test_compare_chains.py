"""Chained comparisons (``uncompile.structure.compare_chains``)."""

from __future__ import annotations

import pytest
from snippets import with_known_failures

from uncompile.verification import verify_code

CHAINS = """\
def both_none(first, second):
    if first is second is None:
        return 1
    return 2


def guarded_both_none(first, second):
    if READY is not None and first is second is None:
        return 1
    return 2
"""


@pytest.mark.parametrize("name", ["both_none", "guarded_both_none"])
def test_chain_ending_in_is_none(name):
    namespace: dict = {}
    exec(compile(CHAINS, "<test>", "exec", dont_inherit=True), namespace)
    result = verify_code(namespace[name].__code__)
    assert result.identical, result
    assert result.source is not None and "first is second is None" in result.source


IN_LOOPS = """\
def raise_unless_between(values):
    for value in values:
        if not (0 < value < 64):
            raise ValueError(value)


def raise_if_between(values):
    for value in values:
        if 0 < value < 64:
            raise ValueError(value)


def raise_unless_between_in_else(text, values):
    try:
        data = text.encode()
    except ValueError:
        return None
    else:
        for value in values:
            if not (0 < len(value) < 64):
                raise ValueError(value)
        return data
"""


@pytest.mark.parametrize(
    "name",
    with_known_failures(
        ["raise_unless_between", "raise_if_between", "raise_unless_between_in_else"],
        {
            "raise_unless_between_in_else": (
                {(3, 11)},
                "3.11: the try's else, ending in a return, is taken for code after the try",
            )
        },
    ),
)
def test_chain_whose_true_exit_is_the_next_iteration(name):
    # 3.12+: the chain's last test jumps to the raise or goes on by a jump back to the loop's
    # header: that jump is the if's other branch (the next iteration), not the chain's exit
    namespace: dict = {}
    exec(compile(IN_LOOPS, "<test>", "exec", dont_inherit=True), namespace)
    result = verify_code(namespace[name].__code__)
    assert result.identical, result
    assert (
        result.source is not None
        and "pass" not in result.source
        and "else" not in result.source.split("for")[1]
    )
