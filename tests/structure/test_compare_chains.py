"""Chained comparisons (``uncompile.structure.compare_chains``)."""

from __future__ import annotations

import pytest

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
