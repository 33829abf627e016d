"""Every pattern kind of ``match`` prints back to the same tree (Python 3.10+)."""

from __future__ import annotations

import ast
import sys

import pytest

from uncompile.source.printer import to_source

pytestmark = pytest.mark.skipif(sys.version_info < (3, 10), reason="match statement")


def printed_case(pattern: str) -> str:
    source = "match subject:\n    case %s:\n        pass\n" % pattern
    tree = ast.parse(source)
    text = to_source(tree)
    assert ast.dump(ast.parse(text)) == ast.dump(tree), text
    return text.split("\n")[1].strip()[len("case ") : -1]


@pytest.mark.parametrize(
    "pattern, expected",
    [
        ("1", "1"),
        ("-1", "-1"),
        ("1 + 2j", "1 + 2j"),
        ("-1.5 - 2j", "-1.5 - 2j"),
        ("'text' 'joined'", "'textjoined'"),
        ("b'bytes'", "b'bytes'"),
        ("None", "None"),
        ("True", "True"),
        ("Color.RED", "Color.RED"),
        ("x", "x"),
        ("_", "_"),
        ("[a, *rest]", "[a, *rest]"),
        ("(a, b)", "[a, b]"),
        ("a, *_", "[a, *_]"),
        ("[]", "[]"),
        ("()", "[]"),
        ("[a]", "[a]"),
        ("{'k': v, **rest}", "{'k': v, **rest}"),
        ("{}", "{}"),
        ("{1: _, Color.RED: [x]}", "{1: _, Color.RED: [x]}"),
        ("Point()", "Point()"),
        ("Point(x, y=0)", "Point(x, y=0)"),
        ("module.Point(x=[1, 2], y=(3 | 4))", "module.Point(x=[1, 2], y=3 | 4)"),
        ("1 | 2 | 3", "1 | 2 | 3"),
        ("(1 | 2) | 3", "(1 | 2) | 3"),
        ("1 | (2 | 3)", "1 | (2 | 3)"),
        ("(1 | 2) as x", "1 | 2 as x"),
        ("((1 as a) | 2) as x", "(1 as a) | 2 as x"),
        ("(p as q) as r", "(p as q) as r"),
        ("[(1 | 2) as x, Point(x=(1 as y))]", "[1 | 2 as x, Point(x=1 as y)]"),
    ],
)
def test_pattern(pattern: str, expected: str) -> None:
    assert printed_case(pattern) == expected


def test_guard_and_subject_forms() -> None:
    source = "match a, *b:\n    case [x, *y] if (z := x):\n        pass\n"
    tree = ast.parse(source)
    text = to_source(tree)
    assert ast.dump(ast.parse(text)) == ast.dump(tree)
    assert text == "match a, *b:\n    case [x, *y] if z := x:\n        pass\n"
