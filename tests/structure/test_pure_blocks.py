"""Tests of uncompile.structure.pure_blocks: blocks evaluated as pieces of boolean values."""

from __future__ import annotations

import pytest
from snippets import round_trip

OPERANDS_WITH_VALUES_OF_THEIR_OWN = """\
def generator_of_or(self):
    return self.count == 0 or any(not w.done() for w in (self.waiting or ()))


def call_of_and(a, b, c):
    return a and len(b and c)
"""


@pytest.mark.parametrize("name", ["generator_of_or", "call_of_and"])
def test_operand_holding_a_boolean_value_is_walked_to_the_merge(name):
    """An operand of ``or`` whose call holds an ``or`` of its own is walked up to where the
    outer operands meet: one value, not a block the boolean chain stops at."""
    round_trip(OPERANDS_WITH_VALUES_OF_THEIR_OWN, name)
