"""Definitions from nested code objects (``uncompile.structure.definitions``)."""

from __future__ import annotations

import ast
from types import CodeType

import pytest
from snippets import define

from uncompile.structure.definitions import is_private_name_stored_as
from uncompile.verification import verify_code

PRIVATE_DEFINITIONS = """\
class Outer:
    def __helper(self, x):
        return x + 1

    class __Inner:
        pass

    def run(self):
        return self.__helper(2), self.__Inner


class _Underscored:
    def __hidden(self):
        return 1
"""


def _class_bodies(source: str) -> list:
    module = compile(source, "<test>", "exec", dont_inherit=True)
    return [const for const in module.co_consts if isinstance(const, CodeType)]


def test_private_definitions_in_a_class_body_keep_their_own_names():
    bodies = _class_bodies(PRIVATE_DEFINITIONS)
    assert len(bodies) == 2
    for body in bodies:
        result = verify_code(body, qualname=body.co_name)
        assert result.identical, result
        assert result.source is not None and "def __h" in result.source
    source = verify_code(bodies[0], qualname="Outer").source
    assert source is not None and "class __Inner" in source


def test_mangled_store_names():
    assert is_private_name_stored_as("__helper", "_Outer__helper")
    assert is_private_name_stored_as("__helper", "_Underscored__helper")
    assert not is_private_name_stored_as("__helper", "__helper")
    assert not is_private_name_stored_as("__init__", "_Outer__init__")
    assert not is_private_name_stored_as("helper", "_Outer_helper")
    assert not is_private_name_stored_as("__helper", "other")


LAMBDAS = """\
ratio = lambda pair: pair[0] / pair[1] if pair[1] > 0 else 0
sign = lambda x: 1 if x > 0 else -1 if x < 0 else 0
"""


def test_lambdas_whose_body_is_a_ternary():
    module = compile(LAMBDAS, "<test>", "exec", dont_inherit=True)
    result = verify_code(module)
    assert result.identical, result
    assert result.source is not None and result.source.count("lambda") == 2


ASYNC_COMPREHENSIONS = {
    "list": "async def f(items):\n    return [item * 2 async for item in items if item]\n",
    "set_of_awaits": "async def f(items):\n    return {await item for item in items}\n",
    "dict": "async def f(pairs):\n    return {key: value async for key, value in pairs}\n",
    "await_and_async_for": "async def f(items):\n    return [await item async for item in items]\n",
    "async_for_second": "async def f(rows, cols):\n    return [r + c for r in rows async for c in cols]\n",
    "nested": "async def f(rows):\n    return [[c async for c in row] async for row in rows]\n",
    "generator": "async def f(items):\n    return (item async for item in items)\n",
    "generator_of_awaits": "def f(items):\n    return (await item for item in items)\n",
    "then_await": "async def f(items, w):\n    found = [i async for i in items]\n    return await w(found)\n",
}


@pytest.mark.parametrize("name", sorted(ASYNC_COMPREHENSIONS))
def test_async_comprehensions_recompile_identically(name):
    # <= 3.11: the comprehension is a coroutine that the function awaits; no ``await`` is written
    function = define(ASYNC_COMPREHENSIONS[name])
    result = verify_code(function.__code__)
    assert result.identical, (result.difference, result.error, result.source)
    assert result.source is not None
    assert result.source.count("await ") == ASYNC_COMPREHENSIONS[name].count("await ")


SIGNATURES = {
    "plain": "def f(a, b):\n    return a\n",
    "none": "def f():\n    return 1\n",
    "defaults": "def f(a, b=1, c=(2, 3)):\n    return a\n",
    "star_args": "def f(a, *rest, **options):\n    return rest\n",
    "keyword_only": "def f(a, *, b, c=2, d):\n    return a\n",
    "keyword_only_after_star": "def f(a, *rest, b=1, **options):\n    return rest\n",
    "positional_only": "def f(a, b=1, /, c=2, *, d, **e):\n    return a\n",
    "annotated": "def f(a: int, *rest: str, b: 'x' = 1, **options: float) -> bool:\n    return a\n",
    "lambda": "def f():\n    return lambda a, /, b=2, *c, d, **e: a\n",
}


@pytest.mark.parametrize("name", sorted(SIGNATURES))
def test_signatures_of_every_parameter_kind_recompile_identically(name):
    module = compile(SIGNATURES[name], "<test>", "exec", dont_inherit=True)
    result = verify_code(module)
    assert result.identical, (result.difference, result.error, result.source)
    tree = ast.parse(result.source or "")
    assert ast.dump(tree.body[0].args) == ast.dump(ast.parse(SIGNATURES[name]).body[0].args)
