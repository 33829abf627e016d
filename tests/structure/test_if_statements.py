"""``if``/``elif``/``else`` statements and ``assert`` (``uncompile.structure.if_statements``)."""

from __future__ import annotations

import pytest
from snippets import decompiled, define, round_trip

IF_SHAPES = {
    "elif_chain_with_else": """
        def f(x):
            if x < 0:
                sign = -1
            elif x > 0:
                sign = 1
            else:
                sign = 0
            return sign
    """,
    "empty_body_with_else": """
        def f(x, y):
            if x:
                pass
            else:
                y = g(y)
            return y
    """,
    "assert_with_message": """
        def f(x):
            assert x > 0, "x must be positive"
            return x
    """,
    "both_branches_return": """
        def f(x):
            if x:
                return g(x)
            else:
                return h(x)
    """,
    "nested_ifs_sharing_a_follow": """
        def f(a, b):
            if a:
                if b:
                    g(a)
                else:
                    h(b)
            g(b)
    """,
}


@pytest.mark.parametrize("name", sorted(IF_SHAPES))
def test_if_shape(name: str) -> None:
    round_trip(IF_SHAPES[name])


def test_elif_and_else_are_kept_as_written() -> None:
    """The chain prints as if/elif/else, not as nested ifs in else branches or as ifs that each
    end with a copy of the return after them (3.10, 3.12+)."""
    result = round_trip(IF_SHAPES["elif_chain_with_else"])
    assert "elif x > 0:" in result.source and "else:" in result.source
    assert "assert" not in result.source


def test_assert_stays_an_assert() -> None:
    function = define(IF_SHAPES["assert_with_message"])
    again = decompiled(function)
    assert again(3) == 3
    with pytest.raises(AssertionError, match="x must be positive"):
        again(-1)


IFS_IN_LOOPS = {
    # 3.10: the break is a copy of the return after the loop; the test jumps to the copy of the
    # while test at the bottom, the end of the body
    "break_as_copied_return_ends_bottom_tested_body": """
        def f(file):
            line = file.readline()
            while not line.strip():
                line = file.readline()
                if not line:
                    break
            return line
    """,
    # the break jumps past the code after the loop's copied test; the test's jump to that copy
    # makes no ternary with it
    "break_past_copied_test_makes_no_ternary": """
        def f(file, line):
            while not line.strip():
                line = file.readline()
                if not line:
                    break
            result = line.split()
            return result
    """,
}


@pytest.mark.parametrize("name", sorted(IFS_IN_LOOPS))
def test_if_in_a_loop(name: str) -> None:
    round_trip(IFS_IN_LOOPS[name])
