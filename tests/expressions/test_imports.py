"""Imports on the symbolic stack (``uncompile.expressions.imports``): ``import`` and
``from ... import`` statements rebuilt from the stores of their results."""

from __future__ import annotations

import pytest
from snippets import instruction, round_trip

CASES = {
    "plain": """
        def f():
            import os
            return os
    """,
    "dotted": """
        def f():
            import os.path
            return os
    """,
    "dotted_as": """
        def f():
            import os.path as p
            return p
    """,
    "renamed": """
        def f():
            import json as j
            return j
    """,
    "from_several_names": """
        def f():
            from os import path, sep as s
            return path, s
    """,
    "relative": """
        def f():
            from . import a
            from ..b import c as d
            return a, d
    """,
    # stores before the first import are no imports; an import inside a branch still is one
    "import_after_stores_and_in_a_branch": """
        def f(flag):
            x = __import__
            y = x("os").path
            if flag:
                import os.path as y
            return x, y
    """,
    "from_twice_with_a_statement_between": """
        def f():
            from os import path
            x = 1
            from os import sep
            return path, x, sep
    """,
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_imports_recompile_identically(name: str) -> None:
    source = CASES[name]
    result = round_trip(source)
    assert result.source is not None and result.source.count("import ") == source.count("import ")


def test_only_a_simulator_that_ran_an_import_asks_about_imported_stores() -> None:
    from uncompile.expressions.simulator import Simulator

    sim = Simulator((lambda: None).__code__, nested=None)
    assert not sim.imported
    stack: list = []
    sim.step(instruction(0, "LOAD_CONST", (0, 1)), stack)
    sim.step(instruction(2, "LOAD_CONST", (None, 0)), stack)
    sim.step(instruction(4, "IMPORT_NAME", "os"), stack)
    assert sim.imported
