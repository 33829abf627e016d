"""The simulator's ``await`` (``uncompile.expressions.simulator``): an ``async with``'s awaited
exit call and an async comprehension's coroutine have no ``await`` of their own in the source."""

from __future__ import annotations

import ast

import pytest
from snippets import instruction, round_trip

from uncompile.errors import DecompileError
from uncompile.expressions import values as M
from uncompile.expressions.simulator import Simulator

CASES = {
    # 3.10: the with body ends at its loop's exit, so its exit call is walked with the body
    "loop_in_async_with": """
        async def f(items, manager):
            async with manager as log:
                for item in items:
                    log.append(item)
    """,
    # 3.8: ``WITH_CLEANUP_START`` leaves the exit's result, which is awaited
    "async_with_in_loop": """
        async def f(items, manager):
            for item in items:
                async with manager(item) as value:
                    use(value)
    """,
    "awaited_comprehension": """
        async def f(items):
            return [await item for item in items]
    """,
    "await_of_awaited": """
        async def f(make):
            return await (await make())
    """,
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_awaits_recompile_identically(name: str) -> None:
    source = CASES[name]
    result = round_trip(source)
    assert result.source is not None and result.source.count("await ") == source.count("await ")


def _simulator() -> Simulator:
    return Simulator((lambda: None).__code__, nested=None)


def test_scratch_collects_apart_and_restores_the_output_after_an_error() -> None:
    sim = _simulator()
    real_out, real_pending = sim.out, sim.pending
    with pytest.raises(DecompileError):
        with sim.scratch() as out:
            assert sim.out is out and out is not real_out and sim.pending == []
            sim.emit(ast.Pass())
            sim.underflow(instruction(4, "POP_TOP", None))
    assert sim.out is real_out and sim.pending is real_pending and real_out == []


def test_an_inline_pop_of_an_empty_stack_is_the_underflow_error() -> None:
    sim = _simulator()
    with pytest.raises(DecompileError, match="value stack underflow"):
        sim.step(instruction(2, "LOAD_ATTR", ("a", False)), [])
    with pytest.raises(DecompileError, match="value stack underflow"):
        sim.step(instruction(2, "STORE_FAST", "x"), [])


def test_exprs_keeps_a_list_of_expressions_and_converts_the_rest() -> None:
    sim = _simulator()
    values = [ast.Name("a", ast.Load()), ast.Constant(1)]
    assert sim.exprs(values, instruction(0, "CALL", None)) is values
    with pytest.raises(DecompileError, match="where an expression is needed"):
        sim.exprs([values[0], M.Null()], instruction(0, "CALL", None))


def test_pop_pair_gives_a_binary_operators_operands_lower_first() -> None:
    sim = _simulator()
    left, right = ast.Name("a", ast.Load()), ast.Constant(1)
    stack = [M.Discard(), left, right]
    assert sim.pop_pair(stack, instruction(0, "COMPARE_OP", 0)) == (left, right)
    assert len(stack) == 1
    with pytest.raises(DecompileError, match="value stack underflow"):
        sim.pop_pair([left], instruction(0, "COMPARE_OP", 0))
    with pytest.raises(DecompileError, match="where an expression is needed"):
        sim.pop_pair([M.Null(), right], instruction(0, "COMPARE_OP", 0))


BINARY_CASES = {
    "comparisons_and_subscripts": """
        def f(a, b, c):
            return a[b] < c, a is not b, b in c, a[1:2] == c[b][0], a - b * c
    """,
}


@pytest.mark.parametrize("name", sorted(BINARY_CASES))
def test_binary_operators_recompile_identically(name: str) -> None:
    round_trip(BINARY_CASES[name])
