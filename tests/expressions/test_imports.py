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
    # each submodule is read in turn (IMPORT_FROM of IMPORT_FROM), the values left dropped
    "dotted_as_deep": """
        def f():
            import xml.etree.ElementTree as ET
            import a.b.c.d as abcd
            return ET, abcd
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


def test_deep_dotted_import_at_module_level_recompiles_identically() -> None:
    from uncompile.verification import verify_code

    source = "import xml.etree.ElementTree as ET\nimport a.b.c.d\nx = ET\n"
    result = verify_code(compile(source, "<test>", "exec", dont_inherit=True))
    assert result.identical, result
    assert result.source == source


def _stored_statement(module: str, attributes: list) -> object:
    """The statement a simulator makes of ``IMPORT_NAME module`` (no from-list), ``IMPORT_FROM``
    each of *attributes* in turn (each of the last), then a store of the last one."""
    from uncompile.expressions.simulator import Simulator

    sim = Simulator((lambda: None).__code__, nested=None)
    stack: list = []
    steps = [("LOAD_CONST", (0, 1)), ("LOAD_CONST", (None, 0)), ("IMPORT_NAME", module)]
    steps += [("IMPORT_FROM", name) for name in attributes] + [("STORE_FAST", "x")]
    for offset, (op, arg) in enumerate(steps):
        sim.step(instruction(2 * offset, op, arg), stack)
    (statement,) = sim.out
    return statement


def test_submodule_reads_that_name_the_module_path_store_an_import() -> None:
    import ast

    statement = _stored_statement("a.b.c", ["b", "c"])
    assert isinstance(statement, ast.Import)
    assert [(alias.name, alias.asname) for alias in statement.names] == [("a.b.c", "x")]


@pytest.mark.parametrize("attributes", [["b"], ["b", "d"], ["c", "b"]])
def test_submodule_reads_off_the_module_path_store_the_value(attributes: list) -> None:
    import ast

    # (no ``import`` statement binds these: the value itself is stored)
    statement = _stored_statement("a.b.c", attributes)
    assert isinstance(statement, ast.Assign), ast.dump(statement)
    assert "__import__" in ast.dump(statement.value)
