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


# 3.10 - 3.12 thread a test's jump to the jump back after the element only when both stand on one
# line: tests on a line of their own jump to that jump, and are printed below the element
TESTS_ON_THEIR_OWN_LINE = {
    "dict": """
def f(cls):
    return {
        a: getattr(cls, a)
        for a in dir(cls)
        if not a.startswith("_") and a != "as_dict"
    }
""",
    "generator": """
def f(nodes, succ, u):
    return (
        min(
            nodes[v]["height"]
            for v, attr in succ[u].items()
            if attr["flow"] < attr["capacity"]
        )
        + 1
    )
""",
    "nested_in_a_loop": """
def f(rows, out):
    for row in rows:
        if row:
            out.append([cell for cell in row
                        if cell])
    return out
""",
}
TESTS_ON_THE_ITEM_LINE = """
def f(rows):
    return [cell for row in rows for cell in row if cell], (r for r in rows if r)
"""


def test_tests_on_their_own_line_are_printed_below_the_element() -> None:
    import sys

    for name, source in sorted(TESTS_ON_THEIR_OWN_LINE.items()):
        result = verify(define(source))
        assert result.identical, (name, result)
        assert result.source is not None
        # (3.10 - 3.12 only: elsewhere the bytecode does not tell, and the tests stay on the element's line)
        below = [
            line for line in result.source.splitlines() if line.lstrip().startswith("if ") and line[-1] != ":"
        ]
        # (3.12 tells each time; 3.10 - 3.11 only for a test before the last, which jumps back itself)
        if sys.version_info[:2] == (3, 12) or (name == "dict" and sys.version_info[:2] >= (3, 10)):
            assert bool(below) == (sys.version_info[:2] <= (3, 12)), (name, result.source)
        else:
            assert not below or (3, 10) <= sys.version_info[:2] <= (3, 12), (name, result.source)


def test_tests_on_the_element_line_stay_there() -> None:
    result = verify(define(TESTS_ON_THE_ITEM_LINE))
    assert result.identical, result
    assert result.source is not None and result.source.count("\n") == 2, result.source
