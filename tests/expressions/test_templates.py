"""Template strings (3.14+) on the symbolic stack (``uncompile.expressions.templates``)."""

from __future__ import annotations

import sys

import pytest

from uncompile.verification import verify_code

pytestmark = pytest.mark.skipif(sys.version_info < (3, 14), reason="t-strings are 3.14+")


@pytest.mark.parametrize(
    "expression",
    ['t"a{x}b"', 't""', 't"{x!r:>{w}}"', 't"{x=}"', 't"{x:{w}.{w}}"', 't"{x!a}{w!s}"'],
)
def test_template_round_trips(expression):
    namespace: dict = {}
    source = "def f(x, w):\n    return %s\n" % expression
    exec(compile(source, "<test>", "exec", dont_inherit=True), namespace)
    result = verify_code(namespace["f"].__code__)
    assert result.identical, result
    assert "t'" in (result.source or "")
