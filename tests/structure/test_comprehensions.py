"""Tests of uncompile.structure.comprehensions: comprehensions rebuilt from the loops that build them."""

from __future__ import annotations

from snippets import decompiled, define

from uncompile import verify

# the condition spread over two lines: 3.8 - 3.10 give the first test its own jump back, so
# the walker sees ``if x: (if y: item; else: continue)`` followed by a ``continue``
CONDITION_OVER_LINES = """
def f(words):
    return [w for w in words
                if w and w != '.']
"""

NESTED_WITH_CONDITIONS = """
def f(rows):
    return {(i, c) for i, row in enumerate(rows) if row for c in row if c != ' '}
"""


# 3.9+: a one-item loop (``for y in [v]``) is compiled as the store ``y = v``
ONE_ITEM_LOOPS = """
def f(values):
    return [s for v in values for s in [v * v] if s > 1], {a: b for v in values if v for a, b in [(v, -v)]}
"""


def test_one_item_loops_round_trip() -> None:
    result = verify(define(ONE_ITEM_LOOPS))
    assert result.identical, result
    assert result.source is not None and "for s in " in result.source and "for a, b in " in result.source


def test_condition_over_lines_is_a_condition() -> None:
    function = define(CONDITION_OVER_LINES)
    again = decompiled(function)
    for words in (["a", "", ".", "b"], [], ["."]):
        assert again(words) == function(words)


def test_nested_comprehension_with_conditions_round_trips() -> None:
    result = verify(define(NESTED_WITH_CONDITIONS))
    assert result.identical, result
