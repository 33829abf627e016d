"""Behaviour: match statements with every pattern kind (3.10+).

PYTEST_DONT_REWRITE: pytest must not rewrite the asserts of these cases (their bytecode is the input).
"""

from __future__ import annotations

import pytest

from uncompile.verification.behaviour import Cases

cases = Cases()

MATCH_SOURCE = """
class Point:
    __match_args__ = ("x", "y")

    def __init__(self, x, y):
        self.x, self.y = x, y


def classify(subject):
    match subject:
        case 0 | 1:
            return "bit"
        case None:
            return "none"
        case True:
            return "true"
        case "text" as word:
            return "literal " + word
        case [first, *rest] if first == "list":
            return "list with %d more" % len(rest)
        case (a, b):
            return "pair %r %r" % (a, b)
        case {"kind": "dict", **others}:
            return "dict %r" % sorted(others)
        case Point(x=0, y=0):
            return "origin"
        case Point(x, y) if x == y:
            return "diagonal"
        case Point():
            return "point"
        case str() | bytes():
            return "string"
        case int(n) if n < 0:
            return "negative"
        case -1.5:
            return "minus one and a half"
        case _:
            return "other"


def main(subjects):
    return [classify(subject) for subject in subjects]
"""
SUBJECTS = [0, 1, None, True, "text", ["list", 1, 2], (3, 4), {"kind": "dict", "a": 1}, -1.5, "s", -3, 7.5]

cases.from_source((3, 10), MATCH_SOURCE, "classify", *[(subject,) for subject in SUBJECTS])
if cases.items[-1][1] is not None:
    point = cases.items[-1][1].__globals__["Point"]
    cases.add("classify_points", cases.items[-1][1], tuple((point(*xy),) for xy in ((0, 0), (2, 2), (1, 3))))

cases.from_source(
    (3, 10),
    "def sequences_and_values(subject):\n"
    "    match subject:\n"
    "        case []:\n"
    "            return 'empty'\n"
    "        case [x]:\n"
    "            return 'one %r' % (x,)\n"
    "        case [1, 2, *_]:\n"
    "            return 'starts 1 2'\n"
    "        case [[a, b], c]:\n"
    "            return a + b + c\n"
    "        case {'a': 1, 'b': value}:\n"
    "            return value\n"
    "    return 'fell through'\n",
    "sequences_and_values",
    ([],),
    ([5],),
    ([1, 2, 3],),
    ([[1, 2], 3],),
    ({"a": 1, "b": 9},),
    ("str",),
)


@pytest.mark.parametrize("name,function,calls", cases.items, ids=cases.ids())
def test_match(name, function, calls, behaves_the_same):
    behaves_the_same(function, calls)
