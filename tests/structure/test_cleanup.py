"""Implicit statements taken out again (``uncompile.structure.cleanup``).

Every case must decompile and recompile to identical bytecode.
"""

from __future__ import annotations

import textwrap

import pytest

from uncompile.verification import verify_code

CASES = {
    # 3.10+: the implicit ``return None`` is copied to the try body's exit, after the finally copy
    "return_none_after_try_finally": """
        def f(self, make):
            try:
                with make() as sel:
                    while not self.done:
                        sel.select()
            finally:
                self.done = False
    """,
}


def _function(source: str):
    namespace: dict = {}
    exec(compile(textwrap.dedent(source), "<case>", "exec"), namespace)
    return namespace["f"]


@pytest.mark.parametrize("name", sorted(CASES))
def test_round_trip(name: str) -> None:
    result = verify_code(_function(CASES[name]).__code__, qualname="f")
    assert result.identical, "%s\n%s" % (result.difference or result.error, result.source)
