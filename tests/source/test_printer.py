"""Statements print correctly, and ``emit`` reports the exact output lines of each one."""

from __future__ import annotations

import ast
import os
import sys
import sysconfig
import textwrap
from typing import Tuple

import pytest
from snippets import cyclic_garbage_of

from uncompile.source.printer import emit, to_source

EVERY_STATEMENT = '''
"""Module docstring."""
from __future__ import annotations
import os, os.path as osp
from . import sibling
from ..parent.module import (a as b, c)
from os import *


@decorator
@decorator.attribute(argument, keyword=1)
class Example(Base, metaclass=Meta):
    """Class docstring
    on two lines.
    """
    attribute: int = 0
    (parenthesized): int
    plain: str

    def method(self, a, b=1, *args, c, d=2, **kwargs) -> "Example":
        global g
        x = y = z = a
        x += 1
        x.y[0] -= 2
        del x, y[0]
        assert x, "message"
        return x

    @staticmethod
    async def coroutine(*, only):
        async with a() as b, c():
            await b
        async for item in b:
            yield item
        else:
            pass


def outer():
    value = 0

    def inner():
        nonlocal value
        value = yield from range(3)
    return inner


for i in range(3):
    if i == 0:
        continue
    elif i == 1:
        break
    else:
        pass
else:
    pass
while condition:
    pass
else:
    pass
if a:
    pass
else:
    if b:
        pass
    x = 1
try:
    pass
except ValueError as error:
    raise RuntimeError("x") from error
except (TypeError, KeyError):
    raise
except:
    pass
else:
    pass
finally:
    pass
try:
    pass
finally:
    pass
with open(f) as handle, lock:
    pass
'''


def test_every_statement_round_trips() -> None:
    tree = ast.parse(EVERY_STATEMENT)
    text = to_source(tree)
    assert ast.dump(ast.parse(text)) == ast.dump(tree)
    assert "elif i == 1:" in text
    assert "else:\n    if b:" in text  # an else block with more than the if stays a block


def test_printing_makes_no_reference_cycles() -> None:
    """Printed trees are freed when the last reference goes, not left to the cyclic collector
    (which, run after each decompilation, cost a sixth of the decompiler's time)."""
    tree = ast.parse(EVERY_STATEMENT)
    assert cyclic_garbage_of(lambda: (emit(tree), to_source(tree))) == []


def expected_span(node: ast.AST) -> Tuple[int, int]:
    """The lines the parser says *node* occupies, decorators included."""
    if type(node).__name__ == "match_case":
        return node.pattern.lineno, node.body[-1].end_lineno  # type: ignore[attr-defined]
    first = node.lineno  # type: ignore[attr-defined]
    for decorator in getattr(node, "decorator_list", []):
        first = min(first, decorator.lineno)
    return first, node.end_lineno  # type: ignore[attr-defined]


def assert_spans_match_parser(source: str) -> int:
    tree = ast.parse(source)
    emitted = emit(tree)
    reparsed = ast.parse(emitted.text)
    checked = 0
    for original, again in zip(ast.walk(tree), ast.walk(reparsed)):
        assert type(original) is type(again)
        if isinstance(original, (ast.stmt, ast.excepthandler)) or type(original).__name__ == "match_case":
            assert emitted.spans[original] == expected_span(again), ast.dump(original)[:200]
            checked += 1
    assert checked == len(emitted.spans)
    return checked


def test_spans_cover_exactly_each_statement() -> None:
    assert assert_spans_match_parser(EVERY_STATEMENT) > 60


def test_spans_on_stdlib_modules() -> None:
    root = sysconfig.get_paths()["stdlib"]
    for name in ["argparse.py", "dataclasses.py", "json/decoder.py", "textwrap.py"]:
        with open(os.path.join(root, name), encoding="utf-8") as handle:
            assert assert_spans_match_parser(handle.read()) > 50


def test_spans_of_nested_statements_lie_inside_their_parents() -> None:
    emitted = emit(ast.parse(EVERY_STATEMENT))
    lines = emitted.text.split("\n")
    for node, (first, last) in emitted.spans.items():
        assert 1 <= first <= last <= len(lines)
        for child in ast.iter_child_nodes(node):
            if child in emitted.spans:
                child_first, child_last = emitted.spans[child]
                assert first <= child_first <= child_last <= last


def test_emit_single_statement_and_expression() -> None:
    statement = ast.parse("if a:\n    b = 1\n").body[0]
    emitted = emit(statement)
    assert emitted.text == "if a:\n    b = 1\n"
    assert emitted.spans[statement] == (1, 2)
    assert emitted.spans[statement.body[0]] == (2, 2)  # type: ignore[attr-defined]
    assert to_source(ast.parse("a + b", mode="eval")) == "a + b\n"
    assert to_source(ast.parse("", mode="exec")) == ""


def test_to_source_writes_the_text_of_emit() -> None:
    """``to_source`` skips the spans but not a character of the text: multi-line docstrings
    and strings, blank lines, elif chains and handlers included."""
    source = (
        EVERY_STATEMENT
        + 'def g():\n    """one\n\n    two\n    """\n    try:\n        pass\n    except E:\n        pass\n'
    )
    tree = ast.parse(source)
    text = to_source(tree)
    assert text == emit(tree).text
    assert '    """one\n\n    two\n    """\n' in text
    assert ast.dump(ast.parse(text)) == ast.dump(tree)


def test_spans_count_the_lines_of_multi_line_literals() -> None:
    source = 'def f():\n    """a\n    b"""\n    x = 1\n\n\ny = 2\n'
    tree = ast.parse(source)
    emitted = emit(tree)
    function = tree.body[0]
    assert emitted.text == source
    assert emitted.spans[function] == (1, 4)
    assert emitted.spans[function.body[0]] == (2, 3)  # type: ignore[attr-defined]
    assert emitted.spans[function.body[1]] == (4, 4)  # type: ignore[attr-defined]
    assert emitted.spans[tree.body[1]] == (7, 7)


def test_blank_lines_separate_definitions() -> None:
    text = to_source(ast.parse("x = 1\ndef f():\n    a = 1\n    def g(): pass\n    return g\ny = 2\n"))
    assert text == textwrap.dedent("""\
        x = 1


        def f():
            a = 1

            def g():
                pass

            return g


        y = 2
        """)


@pytest.mark.skipif(sys.version_info < (3, 10), reason="match statement")
def test_match_statement_spans() -> None:
    source = "match c:\n    case [x]:\n        pass\n    case _ if y:\n        a = 1\n        b = 2\n"
    assert assert_spans_match_parser(source) == 6  # match, two cases, three statements


@pytest.mark.skipif(sys.version_info < (3, 11), reason="except*")
def test_try_star() -> None:
    source = "try:\n    pass\nexcept* ValueError as group:\n    pass\nexcept* (TypeError, KeyError):\n    a\n"
    assert to_source(ast.parse(source)) == source
    assert_spans_match_parser(source)


@pytest.mark.skipif(sys.version_info < (3, 12), reason="type parameters")
def test_type_parameters_and_aliases() -> None:
    source = textwrap.dedent("""\
        type Alias = int
        type Pair[T] = tuple[T, T]


        class Box[T: (int, str), *Ts, **P](Base):
            pass


        def first[T: Sequence[int]](items: list[T], *args: *Ts) -> T:
            return items[0]
        """)
    assert to_source(ast.parse(source)) == source


@pytest.mark.skipif(sys.version_info < (3, 13), reason="type parameter defaults")
def test_type_parameter_defaults() -> None:
    source = "type A[T = int, *Ts = *tuple[int], **P = [int]] = T\n"
    assert to_source(ast.parse(source)) == source


@pytest.mark.skipif(sys.version_info < (3, 15), reason="lazy imports")
def test_lazy_imports() -> None:
    source = "lazy import json\nlazy from os import path as p\n"
    assert to_source(ast.parse(source)) == source


def test_nodes_built_without_optional_fields() -> None:
    # Before 3.13 an optional field left out of the constructor is not even an attribute.
    arguments = ast.arguments(
        posonlyargs=[], args=[ast.arg(arg="a")], kwonlyargs=[], kw_defaults=[], defaults=[]
    )
    loop = ast.For(target=ast.Name("i"), iter=ast.Name("a"), body=[ast.Expr(ast.Yield())])
    handler = ast.ExceptHandler(body=[ast.Raise()])
    call = ast.Expr(ast.Call(func=ast.Name("g"), args=[ast.Name("a")]))  # (no keywords)
    body = [loop, ast.Try(body=[ast.Pass()], handlers=[handler]), call, ast.Return()]
    function = ast.FunctionDef(name="f", args=arguments, body=body)
    text = to_source(function)
    assert (
        text == "def f(a):\n    for i in a:\n        yield\n    try:\n        pass\n    except:\n"
        "        raise\n    g(a)\n    return\n"
    )


def test_long_elif_chain() -> None:
    chain = ast.If(test=ast.Name("last"), body=[ast.Pass()], orelse=[ast.Pass()])
    for index in range(3000):  # deeper than the recursion limit
        chain = ast.If(test=ast.Name("c%d" % index), body=[ast.Pass()], orelse=[chain])
    emitted = emit(chain)
    lines = emitted.text.splitlines()
    assert lines[0] == "if c2999:" and lines[2] == "elif c2998:" and lines[-2:] == ["else:", "    pass"]
    assert emitted.spans[chain] == (1, len(lines))
    assert emitted.spans[chain.orelse[0]] == (3, len(lines))


def test_list_of_statements() -> None:
    body = ast.parse("a = 1\nif a:\n    b = 2\n").body
    emitted = emit(body)
    assert emitted.text == "a = 1\nif a:\n    b = 2\n"
    assert [emitted.spans[node] for node in body] == [(1, 1), (2, 3)]


def test_unknown_node_is_refused() -> None:
    with pytest.raises(ValueError):
        emit(ast.alias(name="x", asname=None))


def test_unknown_statement_and_expression_nodes_are_named() -> None:
    class Unknown(ast.stmt):
        _fields = ()

    class Strange(ast.expr):
        _fields = ()

    with pytest.raises(ValueError, match="cannot print statement node Unknown"):
        emit([Unknown()])
    with pytest.raises(ValueError, match="cannot print expression node Strange"):
        emit(ast.Expr(value=Strange()))


def test_node_class_made_outside_ast_is_printed_by_its_name() -> None:
    # The printer finds a node's method by the node class's name, so a class of that name
    # made elsewhere (as the decompiler's internal nodes are) prints like the ``ast`` one.
    Name = type("Name", (ast.expr,), {"_fields": ("id", "ctx")})
    Pass = type("Pass", (ast.stmt,), {"_fields": ()})
    body = [Pass(), ast.Expr(value=ast.Call(func=Name(id="f", ctx=ast.Load()), args=[], keywords=[]))]
    assert emit(body).text == "pass\nf()\n"


def test_comprehension_tests_marked_below_the_element_go_on_a_line_of_their_own() -> None:
    # (the decompiler marks them where the bytecode shows the tests stood on another line)
    tree = ast.parse(
        "def f(rows):\n    if rows:\n        return [r for r in rows if r if r > 1]\n    y = 2\n"
    )
    comprehension = tree.body[0].body[0].body[0].value.generators[0]  # type: ignore[attr-defined]
    comprehension.uncompile_ifs_below = True
    emitted = emit(tree)
    assert emitted.text == (
        "def f(rows):\n"
        "    if rows:\n"
        "        return [r for r in rows\n"
        "            if r\n"
        "            if r > 1]\n"
        "    y = 2\n"
    )
    assert ast.dump(ast.parse(emitted.text)) == ast.dump(
        ast.parse("def f(rows):\n    if rows:\n        return [r for r in rows if r if r > 1]\n    y = 2\n")
    )
    function = tree.body[0]
    assert emitted.spans[function.body[0].body[0]] == (3, 5)  # type: ignore[attr-defined]
    assert emitted.spans[function.body[1]] == (6, 6)  # type: ignore[attr-defined]
