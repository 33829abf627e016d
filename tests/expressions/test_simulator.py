"""The simulator's ``await`` (``uncompile.expressions.simulator``): an ``async with``'s awaited
exit call and an async comprehension's coroutine have no ``await`` of their own in the source."""

from __future__ import annotations

import ast

import pytest
from snippets import instruction, round_trip

from uncompile.errors import DecompileError
from uncompile.expressions import values as M
from uncompile.expressions.constants import constant_expr
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


def _trace(sim: Simulator) -> tuple:
    """What stepping left in *sim*: its statements (as source), their offsets, the pending
    offsets and the tops recorded for the computation order."""
    return (
        [ast.dump(stmt) for stmt in sim.out],
        [stmt.uncompile_offsets for stmt in sim.out],
        list(sim.pending),
        [ast.dump(top) if isinstance(top, ast.AST) else type(top).__name__ for top in sim.order.tops],
    )


def test_run_leaves_what_stepping_each_instruction_leaves() -> None:
    instrs = [
        instruction(0, "LOAD_FAST", "a"),
        instruction(2, "LOAD_CONST", (1, 0)),
        instruction(4, "BINARY_OP", "+"),
        instruction(6, "STORE_FAST", "b"),
        instruction(8, "LOAD_GLOBAL", ("g", False)),
        instruction(10, "LOAD_FAST", "b"),
        instruction(12, "CALL", (1, (), False)),
        instruction(14, "POP_TOP", None),
        instruction(16, "LOAD_FAST", ".0"),
        instruction(18, "LOAD_CONST", ((1.5, 2), 1)),
    ]
    stepped, ran = _simulator(), _simulator()
    stepped_stack: list = []
    for ins in instrs:
        stepped.step(ins, stepped_stack)
    ran_stack: list = []
    ran.run(instrs, ran_stack)
    assert _trace(ran) == _trace(stepped) and len(ran.out) == 2
    assert [ast.dump(v) for v in ran_stack] == [ast.dump(v) for v in stepped_stack]
    assert ran_stack[0].id == "_0_"  # the comprehension argument's load takes name_node's path


class _CountingSteps(Simulator):
    """A simulator whose class has a ``step`` of its own (as Dynamo's has), counting its calls."""

    def step(self, ins: object, stack: list) -> None:
        self.steps = getattr(self, "steps", 0) + 1
        Simulator.step(self, ins, stack)  # type: ignore[arg-type]


def test_run_steps_each_instruction_of_a_simulator_with_its_own_step() -> None:
    sim = _CountingSteps((lambda: None).__code__, nested=None)
    sim.run([instruction(0, "LOAD_FAST", "a"), instruction(2, "POP_TOP", None)], [])
    assert sim.steps == 2 and len(sim.out) == 1


@pytest.mark.parametrize("value", [None, True, 3, "s", b"b", ..., (1, 2), (1.5, 2), frozenset({1}), 2.5])
def test_load_const_pushes_what_constant_expr_makes(value: object) -> None:
    stack: list = []
    _simulator().step(instruction(0, "LOAD_CONST", (value, 0)), stack)
    assert ast.dump(stack[0]) == ast.dump(constant_expr(value, 0))
    assert getattr(stack[0], "uncompile_const", None) == getattr(
        constant_expr(value, 0), "uncompile_const", None
    )


def _stdlib_codes() -> list:
    """Code objects of real code: those of a few stdlib modules, nested ones included."""
    import string
    import textwrap
    import tokenize

    found = []
    for module in (ast, string, textwrap):
        with tokenize.open(module.__file__) as handle:
            todo = [compile(handle.read(), module.__file__, "exec")]
        while todo:
            current = todo.pop()
            found.append(current)
            todo.extend(const for const in current.co_consts if hasattr(const, "co_code"))
    return found


def _dumped(stack: list) -> list:
    return [ast.dump(item) if isinstance(item, ast.AST) else type(item).__name__ for item in stack]


@pytest.mark.parametrize("stops", [frozenset(), frozenset({"LOAD_CONST", "POP_TOP"}), frozenset({"CALL"})])
def test_run_until_stops_where_stepping_would_and_leaves_what_it_leaves(stops: frozenset) -> None:
    from uncompile.bytecode.instructions import read_instructions

    compared = 0
    for code in _stdlib_codes():
        instrs = read_instructions(code)
        # straight-line runs only: each instruction up to the first jump, as the walker's blocks have
        end = next((ins.index for ins in instrs if ins.target is not None), len(instrs))
        stepped, ran = Simulator(code, nested=None), Simulator(code, nested=None)
        stepped_stack: list = []
        expected = end
        try:
            for k in range(end):
                ins = instrs[k]
                if ins.op in stops and (ins.op != "LOAD_CONST" or ins.arg[0] is None):
                    expected = k
                    break
                stepped.step(ins, stepped_stack)
        except (DecompileError, AttributeError):
            continue  # (a run that needs the walker's context or a nested decompiler: none here)
        ran_stack: list = []
        assert ran.run_until(instrs, 0, end, stops, ran_stack) == expected
        assert _trace(ran) == _trace(stepped)
        assert _dumped(ran_stack) == _dumped(stepped_stack)
        compared += 1
    assert compared > 30


def test_run_until_steps_each_instruction_of_a_simulator_with_its_own_step() -> None:
    sim = _CountingSteps((lambda: None).__code__, nested=None)
    instrs = [
        instruction(0, "LOAD_FAST", "a"),
        instruction(2, "POP_TOP", None),
        instruction(4, "LOAD_CONST", (None, 0)),
    ]
    assert sim.run_until(instrs, 0, 3, {"LOAD_CONST"}, []) == 2
    assert sim.steps == 2 and len(sim.out) == 1


def test_nodes_made_without_their_constructors_are_what_the_constructors_make() -> None:
    sim = _simulator()
    stack: list = []
    for ins in [
        instruction(0, "LOAD_FAST", "a"),
        instruction(2, "LOAD_ATTR", ("b", False)),
        instruction(4, "CALL", (0, (), False)),
        instruction(6, "POP_TOP", None),
        instruction(8, "LOAD_FAST", "x"),
        instruction(10, "STORE_FAST", "y"),
        instruction(12, "LOAD_FAST", "y"),
        instruction(14, "RETURN_VALUE", None),
    ]:
        sim.step(ins, stack)
    load, store = ast.Load(), ast.Store()
    call = ast.Call(ast.Attribute(ast.Name("a", load), "b", load), [], [])
    expected = [
        ast.Expr(call),
        ast.Assign([ast.Name("y", store)], ast.Name("x", load), None),
        ast.Return(ast.Name("y", load)),
    ]
    assert [ast.dump(stmt, include_attributes=True) for stmt in sim.out] == [
        ast.dump(stmt, include_attributes=True) for stmt in expected
    ]


@pytest.mark.parametrize("name", ["f", "__classdict__", ".type_params", ".generic_base", "__annotate__"])
def test_stored_definitions_skip_only_checks_that_would_not_take_them(name: str, monkeypatch) -> None:
    from uncompile.expressions import simulator

    function = M.FunctionValue((lambda: None).__code__)
    for value in (function, M.ClassValue(function, "C", [], [])):
        if type(value) not in simulator._DEFINITIONS:
            continue  # (3.14+ functions: the general checks)
        target = ast.Name(name, ast.Store())
        fast = _simulator()._stored_marker(target, value, [], instruction(0, "STORE_NAME", name))
        monkeypatch.setattr(simulator, "_DEFINITIONS", ())
        general = _simulator()._stored_marker(target, value, [], instruction(0, "STORE_NAME", name))
        monkeypatch.undo()
        assert fast is general is False


PARALLEL_COMPREHENSIONS = {
    # 3.12+: the first comprehension's value is stored last, after the second's and after the
    # restore of the comprehensions' variable (the compiler moved those stores past the swaps)
    "two_lists": """
        def f(a, b):
            x, y = [n for n in a], [n for n in b]
            return x, y
    """,
    "with_tests_and_calls": """
        def f(log, a, b):
            x, y = [log.append(n) or n for n in a if n], {log.append(-n) or n for n in b if n}
            return x, y, log
    """,
}


@pytest.mark.parametrize("name", sorted(PARALLEL_COMPREHENSIONS))
def test_comprehensions_assigned_in_parallel_stay_in_their_order(name: str) -> None:
    from snippets import decompiled, define

    result = round_trip(PARALLEL_COMPREHENSIONS[name])
    assert result.source is not None and "x, y = " in result.source, result.source
    function = define(PARALLEL_COMPREHENSIONS[name])
    if name == "with_tests_and_calls":
        assert decompiled(function)([], [1, 2], [3]) == function([], [1, 2], [3])
