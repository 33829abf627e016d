"""Constants print as literals that compile back to equal constants of the same type."""

from __future__ import annotations

import ast
import math
import sys
from typing import Any

import pytest

from uncompile.source.literals import (
    SHORT_INT_BOUND,
    cleaned_docstring,
    docstring_compiles_to,
    docstring_literal,
    escape_text,
    quote_allowed,
    quoted,
    string_literal,
)
from uncompile.source.printer import to_source


def assigned(value: Any) -> Any:
    """Print ``x = <Constant value>``, run it, and return what ``x`` became."""
    tree = ast.Module(
        body=[ast.Assign(targets=[ast.Name("x", ast.Store())], value=ast.Constant(value))], type_ignores=[]
    )
    namespace: dict = {}
    exec(compile(to_source(tree), "<printed>", "exec"), namespace)
    return namespace["x"]


VALUES = [
    None,
    True,
    False,
    Ellipsis,
    0,
    1,
    -1,
    2**100,
    -(2**100),
    0.0,
    -0.0,
    0.1,
    -2.5,
    1e-300,
    1e300,
    float("inf"),
    float("-inf"),
    2j,
    -2j,
    1 + 2j,
    1 - 2j,
    -1.5 + 0.5j,
    complex(0, float("inf")),
    complex(1, float("-inf")),
    "",
    "plain",
    "it's",
    'say "hi"',
    "both ' and \"",
    "back\\slash",
    "line\nbreak\r\t",
    "\x00\x7f\x85\u2028",
    "\ud800",
    "üñïçødé ✓",
    "{braces}",
    b"",
    b"bytes",
    bytes(range(256)),
    b'it\'s "quoted"',
    (),
    (1,),
    (1, 2),
    ((1, 2), (3,), ()),
    ("a", b"b", 1.5, None, (-1, -2.0)),
    frozenset(),
    frozenset({1, 2, 3}),
    frozenset({"a", ("b", 1)}),
    (frozenset({1}), 2),
]


@pytest.mark.parametrize("value", VALUES, ids=repr)
def test_constant_round_trips(value: Any) -> None:
    result = assigned(value)
    assert type(result) is type(value)
    assert result == value or (value != value and result != result)
    if isinstance(value, float):
        assert math.copysign(1.0, result) == math.copysign(1.0, value)


def test_huge_integer_beyond_the_repr_limit() -> None:
    value = 7**20000  # about 17000 digits, over the 4300-digit repr limit of 3.11+
    assert assigned(value) == value


@pytest.mark.parametrize("value", [SHORT_INT_BOUND - 1, SHORT_INT_BOUND, 10**640 - 1, 10**640])
def test_integers_around_the_short_bound_print_under_the_lowest_repr_limit(value: int) -> None:
    """Ints below SHORT_INT_BOUND are printed with ``repr`` directly: that must hold even
    with the digit limit at its lowest (640, 3.11+); the ones above fall back to hex."""
    set_limit = getattr(sys, "set_int_max_str_digits", None)
    if set_limit is None:
        assert assigned(value) == value
        return
    previous = sys.get_int_max_str_digits()  # type: ignore[attr-defined]
    set_limit(640)
    try:
        assert assigned(value) == value
    finally:
        set_limit(previous)


def test_values_without_a_literal_are_refused() -> None:
    with pytest.raises(ValueError):
        assigned(float("nan"))
    with pytest.raises(ValueError):
        assigned(object())


def test_frozenset_tested_with_in_prints_as_a_set_display() -> None:
    compare = ast.Compare(
        left=ast.Name("a", ast.Load()), ops=[ast.In()], comparators=[ast.Constant(frozenset({1, 2}))]
    )
    text = to_source(ast.Expression(compare))
    assert text == "a in {1, 2}\n"
    code = compile(text, "<printed>", "eval")
    assert frozenset({1, 2}) in code.co_consts


def test_frozenset_iterated_by_for_prints_as_a_set_display() -> None:
    loop = ast.parse("for a in b:\n    pass").body[0]
    loop.iter = ast.Constant(frozenset({"x", "y"}))  # type: ignore[attr-defined]
    text = to_source(loop)
    assert text.startswith("for a in {'x', 'y'}:")


def test_tuple_constant_in_a_return_reads_like_a_tuple() -> None:
    function = ast.parse("def f():\n    return 0").body[0]
    function.body[0].value = ast.Constant((1, 2))  # type: ignore[attr-defined]
    text = to_source(function)
    namespace: dict = {}
    exec(text, namespace)
    assert namespace["f"]() == (1, 2)
    assert "return 1, 2" in text


@pytest.mark.parametrize("quotes", [["'"], ['"'], ["'", '"'], ["'", '"', "'''"]])
def test_string_literal_avoids_forbidden_quotes(quotes: list) -> None:
    for text in ["a'b", 'a"b', "plain", "a'''b"]:
        literal = string_literal(text, quotes)
        assert ast.literal_eval(literal) == text
        opening = literal[:3] if literal[:3] in ("'''", '"""') else literal[:1]
        assert quote_allowed(opening, quotes) or all(not quote_allowed(q, quotes) for q in ("'", '"'))


QUOTED = [
    # (text, literal): repr's choice unless the text holds more ' than "
    ("plain", "'plain'"),
    ("it's", '"it\'s"'),
    ('say "hi"', "'say \"hi\"'"),
    ("'\"'\"'", '"\'\\"\'\\"\'"'),
    ("'\"'", '"\'\\"\'"'),
    ("'\"", "'\\'\"'"),
    ("'\"\\", "'\\'\"\\\\'"),
    ("\\''\"", '"\\\\\'\'\\""'),
    ("''\"\t\x00\n\u20ac\ud800", '"\'\'\\"\\t\\x00\\n\u20ac\\ud800"'),
]


@pytest.mark.parametrize("text, literal", QUOTED, ids=repr)
def test_quoted_picks_the_quote_with_fewer_escapes(text: str, literal: str) -> None:
    assert quoted(text) == literal
    assert ast.literal_eval(literal) == text
    assert to_source(ast.parse("x = " + literal)) == "x = %s\n" % literal
    assert string_literal(text) == literal


ESCAPED = [
    "plain",
    "back\\slash \\n",
    'it\'s "quoted"',
    "{braces} and }{",
    "a\\'b\\\"c{\\}",
    "two\nlines",
    "tab\tnul\x00",
]


@pytest.mark.parametrize("text", ESCAPED, ids=repr)
@pytest.mark.parametrize("quote", ["'", '"', "'''", '"""'])
def test_escape_text_reads_back(text: str, quote: str) -> None:
    """Backslashes are escaped first, then the quote (its escape adds one), braces, line feeds."""
    escaped = escape_text(text, quote)
    assert ast.literal_eval(quote + escaped + quote) == text
    assert "\n" not in escaped
    formatted = "f" + quote + escape_text(text, quote, braces=True) + quote
    assert eval(compile(formatted, "<f-string>", "eval")) == text
    if len(quote) == 3 and not text.endswith(quote[0]):
        kept = escape_text(text, quote, keep_newlines=True)
        assert ast.literal_eval(quote + kept + quote) == text
        assert ("\n" in kept) == ("\n" in text)  # line feeds stay raw in triple quotes


DOCSTRINGS = [
    "One line.",
    "Summary.\n\n    Details, indented.\n    ",
    'Ends with a quote"',
    'Has """ inside',
    "Has ''' and \"\"\" inside",
    "Back\\slash and \\n literal",
    "Carriage\rreturn, tab\t, nul\x00",
    "Ünïcode ✓",
    "",
]


@pytest.mark.parametrize("text", DOCSTRINGS, ids=repr)
def test_docstring_literal(text: str) -> None:
    literal = docstring_literal(text)
    assert literal.startswith(('"""', "'''"))
    assert ast.literal_eval(literal) == text


@pytest.mark.parametrize("text", DOCSTRINGS, ids=repr)
def test_docstring_in_function_compiles_to_same_doc(text: str) -> None:
    source = "def f():\n    %s\n    return 1\n" % docstring_literal(text)
    original = ast.parse(source)
    namespace: dict = {}
    exec(compile(source, "<original>", "exec"), namespace)
    expected = namespace["f"].__doc__
    exec(compile(to_source(original), "<printed>", "exec"), namespace)
    assert namespace["f"].__doc__ == expected


@pytest.mark.skipif(sys.version_info < (3, 13), reason="the compiler strips docstring indentation from 3.13")
def test_docstring_read_back_from_bytecode_is_reindented() -> None:
    source = 'class C:\n    def f(self):\n        """Summary.\n\n        Details.\n        """\n'
    namespace: dict = {}
    exec(source, namespace)
    cleaned = namespace["C"].f.__doc__
    assert "\n        Details" not in cleaned  # the compiler stripped the indentation
    tree = ast.parse(source)
    tree.body[0].body[0].body[0].value.value = cleaned  # type: ignore[attr-defined]
    text = to_source(tree)
    assert "\n        Details.\n" in text
    exec(text, namespace)
    assert namespace["C"].f.__doc__ == cleaned


#: Docstrings whose indentation the 3.13+ compiler treats in every way it can: tabs expanded,
#: lines of spaces only (in the middle and at the end) not counted in the margin but cut by it,
#: other whitespace counted as text, leading spaces of the first line removed.
INDENTED_DOCSTRINGS = DOCSTRINGS + [
    "  Summary.\n    body\n      deeper\n    ",
    "Summary.\n\tTabbed\n        spaces\n",
    "a\n  \t b\n    c",
    "a\n      \n    b\n  ",
    "a\n\x0c    b\n    c",
    "a\n\u3000  b\n  c",
    "a\n    b\r\n    c",
    "\n\n    only later lines\n    ",
    "no margin\nat all\n  but here",
    "   \n   ",
]


@pytest.mark.skipif(sys.version_info < (3, 13), reason="the compiler strips docstring indentation from 3.13")
@pytest.mark.parametrize("text", INDENTED_DOCSTRINGS, ids=repr)
def test_cleaned_docstring_is_what_the_compiler_keeps(text: str) -> None:
    for indent in ("", "    ", "\t"):
        indented = text.replace("\n", "\n" + indent)
        assert cleaned_docstring(indented) == docstring_compiles_to(docstring_literal(indented))
