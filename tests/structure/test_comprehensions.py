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


def test_condition_over_lines_is_a_condition() -> None:
    function = define(CONDITION_OVER_LINES)
    again = decompiled(function)
    for words in (["a", "", ".", "b"], [], ["."]):
        assert again(words) == function(words)


def test_nested_comprehension_with_conditions_round_trips() -> None:
    result = verify(define(NESTED_WITH_CONDITIONS))
    assert result.identical, result
