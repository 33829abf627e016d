"""Walking statements without expressions (``uncompile.structure.statements``)."""

from __future__ import annotations

import ast
import sys

from uncompile.structure.statements import iter_statements, statement_lists

SOURCE = """
import os
def outer(a):
    for x in a:
        if x:
            continue
        elif x is None:
            break
        else:
            pass
    else:
        x = 1
    try:
        y = 1
    except KeyError as e:
        y = 2
    except ValueError:
        y = 3
    else:
        y = 4
    finally:
        y = 5
    class Inner:
        z = 1
        def method(self):
            return self
    while a:
        with a as b:
            del b
    return y
"""

MATCH = """
match command:
    case [x]:
        y = x
    case _:
        y = None
"""


def _walked_statements(tree: ast.AST) -> list:
    return [node for node in ast.walk(tree) if isinstance(node, ast.stmt)]


def test_every_statement_ast_walk_finds() -> None:
    sources = [SOURCE] + ([MATCH] if sys.version_info >= (3, 10) else [])
    for source in sources:
        tree = ast.parse(source)
        found = list(iter_statements(tree.body))
        assert sorted(map(id, found)) == sorted(map(id, _walked_statements(tree)))
    tree = ast.parse(SOURCE)
    outer = tree.body[1]
    assert list(iter_statements(tree.body))[1:3] == [outer, outer.body[0]]  # depth first


def test_nested_definitions_left_out_when_asked() -> None:
    tree = ast.parse(SOURCE)
    outer = tree.body[1]
    assert isinstance(outer, ast.FunctionDef)
    found = list(iter_statements(outer.body, into_definitions=False))
    inner = next(node for node in found if isinstance(node, ast.ClassDef))
    assert not any(node in found for node in inner.body)
    assert len(found) == len(_walked_statements(ast.Module(body=outer.body, type_ignores=[]))) - 3


def test_statement_lists_of_a_try_then_its_handlers() -> None:
    tree = ast.parse(SOURCE)
    handled = next(node for node in ast.walk(tree) if isinstance(node, ast.Try))
    lists = statement_lists(handled)
    assert lists == [handled.body, handled.orelse, handled.finalbody] + [h.body for h in handled.handlers]


def test_unset_fields_hold_no_list() -> None:
    loop = ast.While(test=ast.Name(id="a", ctx=ast.Load()), body=[ast.Pass()])  # no orelse before 3.13
    assert statement_lists(loop) == [loop.body]
    assert statement_lists(ast.Pass()) == []
