"""Stores, unpacking and deletes (``uncompile.expressions.targets``)."""

from __future__ import annotations

import pytest

from uncompile.verification import verify_code

UNPACKING = """\
def in_comprehension(rows):
    return [(op, arg) for _, _, op, arg in rows if op != 5]


def in_for(rows):
    for _, _, last in rows:
        print(last)


def trailing(value):
    first, _, _ = value
    return first


def repeated(rows):
    return sum(calls for _, calls, _, _, _ in rows)


def leading(value):
    _, _, last = value
    return last
"""


@pytest.mark.parametrize("name", ["in_comprehension", "in_for", "trailing", "repeated", "leading"])
def test_a_name_stored_twice_in_one_unpacking(name):
    namespace: dict = {}
    exec(compile(UNPACKING, "<test>", "exec", dont_inherit=True), namespace)
    result = verify_code(namespace[name].__code__)
    assert result.identical, result
    assert result.source is not None and "_, _" in result.source
