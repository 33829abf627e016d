"""3.14's borrowed loads decide between code after a ``try`` and its ``else:`` (``structure.borrow``)."""

from __future__ import annotations

import sys

import pytest

from uncompile.decompiler import decompile_code

pytestmark = pytest.mark.skipif(sys.version_info[:2] != (3, 14), reason="3.14's borrow analysis")

WITH_ELSE = """\
def f(x):
    try:
        a()
    except E:
        return 1
    else:
        b = x.y
    return b
"""

WITHOUT_ELSE = WITH_ELSE.replace("    else:\n        b = x.y\n", "    b = x.y\n")


def _source(text: str) -> str:
    namespace: dict = {}
    exec(compile(text, "<test>", "exec", dont_inherit=True), namespace)
    return decompile_code(namespace["f"].__code__)


def test_else_block_comes_back():
    assert "    else:\n        b = x.y\n    return b" in _source(WITH_ELSE)


def test_code_after_the_try_stays_after_it():
    assert "else" not in _source(WITHOUT_ELSE)
