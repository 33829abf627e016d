"""The walks of :mod:`uncompile.expressions.held_lists` over held lists and expressions."""

from __future__ import annotations

import ast
from typing import Any

import pytest

from uncompile.expressions.computation_order import ComputationOrder
from uncompile.expressions.dynamo_effects import NODE_FIELDS
from uncompile.expressions.held_lists import held, held_in, hold, leaves, parts, references, release, unshare


def _name(name: str) -> ast.Name:
    return ast.Name(id=name, ctx=ast.Load())


def _held(*items: Any) -> ast.List:
    node = ast.List(elts=list(items), ctx=ast.Load())
    hold(node)
    return node


def test_parts_are_depth_first_each_object_once() -> None:
    a, b, c = _name("a"), _name("b"), _name("c")
    inner = _held(b, a)
    outer = _held(a, inner, ast.Starred(value=c, ctx=ast.Load()))
    plain = ast.List(elts=[c], ctx=ast.Load())  # not held: a leaf, not looked into
    stack = [outer, a, inner, plain]
    assert parts(stack) == [outer, a, inner, b, c, plain]
    assert leaves(stack) == [a, b, c, plain]


def test_references_count_every_place_below_the_roots() -> None:
    shared = _name("x")
    call = ast.Call(func=_name("f"), args=[shared, shared], keywords=[])
    stack = [shared, call, _held(shared)]
    assert references(stack, shared) == 4
    assert references(stack, call) == 1
    assert references([call, call], shared) == 2  # an expression met twice is looked into once


@pytest.mark.parametrize(
    "source",
    [
        "x = [[a], f([b, [c]]), {'k': [d]}]",
        "g([e], *[h], k=[i])[[j]] = [l]",
    ],
)
def test_held_in_finds_held_lists_in_ast_walk_order(source: str) -> None:
    statement = ast.parse(source).body[0]
    for node in ast.walk(statement):
        if isinstance(node, ast.List):
            hold(node)
    assert held_in(statement) == [node for node in ast.walk(statement) if isinstance(node, ast.List)]


def test_node_fields_leave_out_no_field_that_holds_a_node() -> None:
    tree = ast.parse(
        "async def f(a, *b, c=1, **d):\n    global g\n    return [x async for x in y], f'{a!r:{b}}'"
    )
    for node in ast.walk(tree):
        for field, value in ast.iter_fields(node):
            holds = isinstance(value, ast.AST) and not isinstance(value, ast.expr_context)
            if holds or (isinstance(value, list) and any(isinstance(item, ast.AST) for item in value)):
                assert field in NODE_FIELDS[type(node)], (type(node).__name__, field)


def test_unshare_copies_held_lists_once_and_keeps_the_rest() -> None:
    a = _name("a")
    inner = _held(a)
    outer = _held(inner, a)
    plain = ast.List(elts=[a], ctx=ast.Load())
    stack = [outer, inner, plain, a]
    unshare(stack, ComputationOrder())
    assert stack[0] is not outer and stack[1] is not inner and stack[2:] == [plain, a]
    assert stack[0].elts[0] is stack[1] and stack[1].elts == [a]  # one copy per held list
    assert held(stack[0]) and held(stack[1])


def test_release_ends_holding() -> None:
    node = _held(_name("a"))
    release(node)
    assert not held(node)
