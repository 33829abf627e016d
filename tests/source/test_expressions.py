"""Expressions print with the fewest parentheses that keep the tree the same."""

from __future__ import annotations

import ast
import os
import sys
import tokenize

import pytest

from uncompile.source.expressions import ExpressionPrinter
from uncompile.source.precedence import Precedence
from uncompile.source.printer import to_source


def printed(source: str) -> str:
    """Print *source*'s tree and check it parses back to the same tree."""
    tree = ast.parse(source)
    text = to_source(tree)
    assert ast.dump(ast.parse(text)) == ast.dump(tree), text
    return text.rstrip("\n")


MINIMAL = [
    # (written with extra or missing parentheses, minimal form)
    ("x = (-1) ** 2", "x = (-1) ** 2"),
    ("x = -1 ** 2", "x = -1 ** 2"),
    ("x = 2 ** -1", "x = 2 ** -1"),
    ("x = (a ** b) ** c", "x = (a ** b) ** c"),
    ("x = a ** (b ** c)", "x = a ** b ** c"),
    ("x = (a - b) - c", "x = a - b - c"),
    ("x = a - (b - c)", "x = a - (b - c)"),
    ("x = (a * b) + (c * d)", "x = a * b + c * d"),
    ("x = (a + b) * c", "x = (a + b) * c"),
    ("x = a | (b ^ (c & (d << e)))", "x = a | b ^ c & d << e"),
    ("x = ((a | b) ^ c) & d", "x = ((a | b) ^ c) & d"),
    ("x = -(-a)", "x = --a"),
    ("x = ~(a + b)", "x = ~(a + b)"),
    ("x = not (a == b)", "x = not a == b"),
    ("x = (not a) == b", "x = (not a) == b"),
    ("x = a < b < c", "x = a < b < c"),
    ("x = (a < b) < c", "x = (a < b) < c"),
    ("x = a < (b < c)", "x = a < (b < c)"),
    ("x = a is not b not in c", "x = a is not b not in c"),
    ("x = (a and b) or c", "x = a and b or c"),
    ("x = a and (b or c)", "x = a and (b or c)"),
    ("x = a and (b and c)", "x = a and (b and c)"),
    ("x = (a if b else c) if d else e", "x = (a if b else c) if d else e"),
    ("x = a if b else (c if d else e)", "x = a if b else c if d else e"),
    ("x = a if (b if c else d) else e", "x = a if (b if c else d) else e"),
    ("x = (lambda: 1)()", "x = (lambda: 1)()"),
    ("x = f() + a.b() + (f())() + a[0]()", "x = f() + a.b() + f()() + a[0]()"),  # calls without arguments
    ("x = lambda: (yield)", "x = lambda: (yield)"),
    ("x = a if b else lambda: c", "x = a if b else lambda: c"),
    ("x = (lambda: a) if b else c", "x = (lambda: a) if b else c"),
    ("x = yield", "x = yield"),
    ("x = yield a, b", "x = yield a, b"),
    ("def f():\n    return (yield)", "def f():\n    return (yield)"),
    ("f((yield))", "f((yield))"),
    ("x = (yield) + 1", "x = (yield) + 1"),
    ("x = yield (yield)", "x = yield (yield)"),
    ("await (a + b)", "await (a + b)"),
    ("x = (await a) ** 2", "x = await a ** 2"),
    ("x = (await a).b", "x = (await a).b"),
    ("x = await (-a)", "x = await (-a)"),
    ("(x := 1)", "(x := 1)"),
    ("if (x := 1):\n    pass", "if x := 1:\n    pass"),
    ("f((x := 1), y)", "f(x := 1, y)"),
    ("f(a=(x := 1))", "f(a=(x := 1))"),
    ("x = [(y := 1)]", "x = [(y := 1)]"),
    ("x = (y := (z := 1))", "x = (y := (z := 1))"),
    ("if (a, b):\n    pass", "if (a, b):\n    pass"),
    ("x = (1).real", "x = (1).real"),
    ("x = (-1).real", "x = (-1).real"),
    ("x = 1.5.real", "x = 1.5.real"),
    ("x = (a + b).c", "x = (a + b).c"),
    ("x = (a + b)[c]", "x = (a + b)[c]"),
    ("x = (a, b)", "x = a, b"),
    ("x = (a,)", "x = (a,)"),
    ("x = ()", "x = ()"),
    ("x = ((a, b), c)", "x = (a, b), c"),
    ("(a, b) = c", "a, b = c"),
    ("[a, *b] = c", "[a, *b] = c"),
    ("x = *a, *b", "x = *a, *b"),
    ("x = [*a, *(b or c)]", "x = [*a, *(b or c)]"),
    ("f(*(a or b), **(c or d))", "f(*a or b, **c or d)"),
    ("x = {**a, 'b': 1, **(c or d)}", "x = {**a, 'b': 1, **(c or d)}"),
    ("x = a[1:2, ::3]", "x = a[1:2, ::3]"),
    ("x = a[(1, 2)]", "x = a[1, 2]"),
    ("x = a[()]", "x = a[()]"),
    ("x = a[b:(c := d)]", "x = a[b:(c := d)]"),
    ("x = a[lambda: 1:]", "x = a[lambda: 1:]"),
    ("f(x for x in y)", "f(x for x in y)"),
    ("f((x for x in y), z)", "f((x for x in y), z)"),
    (
        "x = [y for y in (a if b else c) if (d if e else f)]",
        "x = [y for y in (a if b else c) if (d if e else f)]",
    ),
    ("x = [y for y in a or b if c or d]", "x = [y for y in a or b if c or d]"),
    ("x = {k: v for k, v in a}", "x = {k: v for k, v in a}"),
    ("x = {*()}", "x = {*()}"),
    ("del (a, b), c", "del (a, b), c"),
    ("for (a, b) in c:\n    pass", "for a, b in c:\n    pass"),
    ("for x in (*a, b):\n    pass", "for x in (*a, b):\n    pass"),
    ("for x in (a, b):\n    pass", "for x in a, b:\n    pass"),
    (
        "with (a, b):\n    pass" if sys.version_info < (3, 9) else "with ((a, b)):\n    pass",
        "with ((a, b)):\n    pass",
    ),
    ("with a as (b, c), d as [e]:\n    pass", "with a as (b, c), d as [e]:\n    pass"),
    (
        "@(a or b)\ndef f():\n    pass" if sys.version_info >= (3, 9) else "@a.b(c)\ndef f():\n    pass",
        "@a or b\ndef f():\n    pass" if sys.version_info >= (3, 9) else "@a.b(c)\ndef f():\n    pass",
    ),
    ("raise (a or b) from (c if d else e)", "raise a or b from c if d else e"),
    ("assert (a, b), (c, d)", "assert (a, b), (c, d)"),
    ("x: int = (1, 2)", "x: int = 1, 2"),
    ("(x): int", "(x): int"),
    ("x.y: int", "x.y: int"),
    ("x += (yield)", "x += yield"),
    ("x = f'{a}'.join(b)", "x = f'{a}'.join(b)"),
    ("x = 'a' 'b'", "x = 'ab'"),
    ("x = u'a'", "x = u'a'"),
    ("x = ...", "x = ..."),
    ("x = 1j + 2", "x = 1j + 2"),
    ("x = 1e309", "x = 1e309"),
    # atoms the printer writes without looking up a method: names, attributes of names,
    # None, True, False, strings and non-negative ints
    ("x = a.b.c(d.e, None, True, False)", "x = a.b.c(d.e, None, True, False)"),
    ("x = None.__class__, True.real, (-1).real, 'a'.b", "x = None.__class__, True.real, (-1).real, 'a'.b"),
    ("x = f'{None}{True}{a.b}{\"c\"}'", "x = f'{None}{True}{a.b}{\"c\"}'"),
    ("x = y = z.w = 0", "x = y = z.w = 0"),
]


@pytest.mark.parametrize("source, expected", MINIMAL)
def test_minimal_parentheses(source: str, expected: str) -> None:
    assert printed(source) == expected


def test_long_operator_chains_do_not_recurse_too_deep() -> None:
    source = "x = " + " + ".join("a%d" % index for index in range(300))
    assert printed(source) == source
    terms = ast.parse("a").body[0].value  # type: ignore[attr-defined]
    for index in range(5000):  # deeper than the recursion limit
        terms = ast.BinOp(terms, ast.Sub() if index % 2 else ast.Add(), ast.Name("b%d" % index))
    text = to_source(ast.Expression(terms))
    assert text.startswith("a + b0 - b1 + b2") and text.endswith(" - b4999\n")


def test_lambda_parameters() -> None:
    source = "f = lambda a, /, b=1, *c, d, e=2, **g: (a, b, c, d, e, g)"
    assert printed(source) == source
    assert printed("f = lambda *, a: a") == "f = lambda *, a: a"
    assert printed("f = lambda: 0") == "f = lambda: 0"
    headers = ["def f(a, *, b, c=1):", "def f(*a, b):", "def f(*a, **b):", "def f(a, b=2, /):"]
    headers.append("def f(a: int, b: int = 1, /, c=2, *d: str, e: int = 3, g, **h: bool) -> None:")
    for header in headers:
        assert printed(header + "\n    pass") == header + "\n    pass"


def test_comprehension_forms() -> None:
    source = (
        "async def f():\n"
        "    return [x async for x in y if x if not x], {x for x in y for z in x}, "
        "(await x for x in y), {x: await y async for x in z}"
    )
    assert printed(source) == source


@pytest.mark.skipif(sys.version_info < (3, 11), reason="star expressions in subscripts")
def test_starred_subscript_is_written_portably() -> None:
    assert printed("x = a[*b]") == "x = a[(*b,)]"


@pytest.mark.skipif(sys.version_info < (3, 15), reason="3.15 unpacking in comprehensions")
def test_unpacking_in_comprehensions() -> None:
    source = "x = [*a for a in b], {**d for d in e}"
    assert printed(source) == source


def test_constructed_trees_without_source_counterpart() -> None:
    # A Set with no elements has no display; it becomes ``{*()}``.
    tree = ast.Module(body=[ast.Expr(ast.Set(elts=[]))], type_ignores=[])
    assert to_source(tree) == "{*()}\n"
    # An empty body still prints as a block.
    function = ast.parse("def f():\n    pass").body[0]
    function.body = []  # type: ignore[attr-defined]
    assert to_source(function) == "def f():\n    pass\n"


def test_subscripts_print_as_the_general_path_does_on_stdlib_code() -> None:
    """_Subscript writes most subscripts without subscript(): the same text as through it,
    also for 3.8's slices unwrapped from their Index, as the decompiler builds them."""
    from uncompile.verification.stdlib_sample import stdlib_files, stdlib_root

    files = stdlib_files()
    printer = ExpressionPrinter()
    seen = 0
    for relative in files[:: max(1, len(files) // 20)]:
        with tokenize.open(os.path.join(stdlib_root(), relative)) as file:
            tree = ast.parse(file.read())
        for node in ast.walk(tree):
            if not isinstance(node, ast.Subscript):
                continue
            index = node.slice
            forms = [index, index.value] if type(index).__name__ == "Index" else [index]
            for form in forms:
                node.slice = form
                value = printer.expression(node.value, Precedence.ATOM)
                general = "%s[%s]" % (value, printer.subscript(form))
                assert printer._Subscript(node) == (general, Precedence.ATOM)
                seen += 1
    assert seen > 100
