"""``match_frame_layout``: recompiled code gets the original's local, cell and free variable slots."""

from __future__ import annotations

from types import CodeType

from snippets import define

from uncompile.expressions.stack_shuffles import cell_tuple, is_dynamo_code
from uncompile.verification.frame_layout import match_frame_layout


def _function(source: str, name: str) -> CodeType:
    return define(source, name).__code__


def test_unused_locals_keep_their_slots() -> None:
    original = _function("def f(a, b):\n    unused = 1\n    later = a\n    return later + b\n", "f")
    recompiled = _function("def f(a, b):\n    later = a\n    return later + b\n", "f")
    matched = match_frame_layout(original, recompiled)
    assert matched.co_varnames == original.co_varnames
    assert matched.co_nlocals == len(original.co_varnames)
    namespace: dict = {}
    exec("def f(a, b): pass", namespace)
    function = namespace["f"]
    function.__code__ = matched
    assert function(2, 3) == 5


def test_extra_names_come_after_the_originals() -> None:
    original = _function("def f(a):\n    return a\n", "f")
    recompiled = _function("def f(a):\n    stack_1 = a * 2\n    return stack_1 - a\n", "f")
    matched = match_frame_layout(original, recompiled)
    assert matched.co_varnames == ("a", "stack_1")


def test_cell_variables_follow_the_original() -> None:
    original = _function("def f(a):\n    c = a\n    def g():\n        return c\n    return a\n", "f")
    recompiled = _function("def f(a):\n    return a\n", "f")
    matched = match_frame_layout(original, recompiled)
    assert matched.co_cellvars == original.co_cellvars == ("c",)
    namespace: dict = {}
    exec("def f(a): pass", namespace)
    function = namespace["f"]
    function.__code__ = matched
    assert function(4) == 4


def test_dynamo_code_is_recognised_by_its_names() -> None:
    plain = _function("def f(x):\n    return g(x)\n", "f")
    dynamo = _function("def f(x):\n    graph_out_0 = __compiled_fn_1(x)\n    return graph_out_0[0]\n", "f")
    name = "torch_dynamo_resume_in_f_at_3"
    resume = _function("def %s(x):\n    return x\n" % name, name)
    assert not is_dynamo_code(plain)
    assert is_dynamo_code(dynamo) and is_dynamo_code(resume)


def test_cell_tuple_gives_the_cells() -> None:
    import ast

    import pytest

    if not hasattr(ast, "unparse"):
        pytest.skip("ast.unparse is 3.9+")
    for order in (["model", "optimizer"], ["optimizer", "model"]):
        expression = ast.unparse(ast.fix_missing_locations(ast.Expression(body=cell_tuple(order))))
        source = (
            "def outer():\n"
            "    model, optimizer = 'm', 'o'\n"
            "    def keep():\n"
            "        return model, optimizer\n"
            "    return keep.__closure__, %s\n" % expression
        )
        namespace: dict = {}
        exec(compile(source, "<test>", "exec"), namespace)
        closure, cells = namespace["outer"]()
        by_name = dict(zip(["model", "optimizer"], closure))
        assert [cell is by_name[name] for name, cell in zip(order, cells)] == [True, True]
