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


CONSTANT_SLICES = """\
def f(t, a):
    t[1:2] = a
    del t[::3]
    t[::2] += 1
    return t[:1], t[a:1], t['a':'b']
"""


def test_constant_slices_are_written_as_slices():
    # 3.14+ fold constant slices into co_consts; they are subscripts again, not placeholders
    result = verify_code(compile(CONSTANT_SLICES, "<test>", "exec", dont_inherit=True))
    assert result.identical, result
    assert result.source is not None and "__uc_" not in result.source
    assert "t[1:2] = a" in result.source and "del t[::3]" in result.source and "t[:1]" in result.source


@pytest.mark.parametrize("name", ["x", ".0"])
def test_store_fast_stores_into_what_name_node_makes(name):
    import ast

    from snippets import instruction

    from uncompile.expressions.simulator import Simulator
    from uncompile.expressions.targets import STORE, name_node

    sim = Simulator((lambda: None).__code__, nested=None)
    stack = [ast.Constant(1)]
    sim.step(instruction(2, "STORE_FAST", name), stack)
    assert ast.dump(sim.out[0].targets[0]) == ast.dump(name_node(name, STORE))
