"""f-strings and t-strings print so that the running Python compiles them to the same tree."""

from __future__ import annotations

import ast
import sys
from typing import Any, Dict

import pytest

from uncompile.source.printer import to_source

NAMES: Dict[str, Any] = {"x": 3.14159, "w": 12, "a": {"b": 1, "#": 2}, "b": True, "c": "c", "d": [1, 2]}


def evaluated(tree: ast.Expression) -> Any:
    return eval(compile(tree, "<tree>", "eval"), dict(NAMES))


def check(source: str) -> str:
    """Print the f-string *source*; the printed text has the same tree and the same value."""
    tree = ast.parse(source, mode="eval")
    text = to_source(tree).rstrip("\n")
    assert ast.dump(ast.parse(text, mode="eval")) == ast.dump(tree), text
    assert eval(text, dict(NAMES)) == evaluated(tree)
    return text


@pytest.mark.parametrize(
    "source",
    [
        "f'plain'",
        "f''",
        "f'{x}'",
        "f'{x!r} {x!s} {x!a}'",
        "f'{x:>10.3f}'",
        "f'{x:>{w}.{w}}'",
        "f'{x!r:^{w}}'",
        "f'{{literal}} braces {x}'",
        "f'{a[\"b\"]}'",
        "f\"{a['#']}\"",
        "f'{ {1: 2}[1] }'",
        "f'{(lambda: 1)()}'",
        "f'{(y := 5)}'",
        "f'{x if b else w}'",
        "f'{x=}'",
        "f'{x = :>{w}}'",
        "f'{w:{\"<\"}{w}}'",
        "f\"{f'{x}'}\"",
        "f'{c!r}' f\"{c}\" 'tail'",
        "f'line\\nbreak\\t{x}\\\\'",
        "f'quote \\' \" {x}'",
        "f'{d[0]:{\"\"}}'",
    ],
)
def test_parsed_fstrings_round_trip(source: str) -> None:
    check(source)


def formatted(value: ast.expr) -> ast.Expression:
    field = ast.FormattedValue(value=value, conversion=-1, format_spec=None)
    return ast.Expression(ast.JoinedStr(values=[field]))


def test_strings_with_both_quotes_inside_a_field_choose_triple_quotes() -> None:
    tree = formatted(ast.Tuple(elts=[ast.Constant("it's"), ast.Constant('say "x"')], ctx=ast.Load()))
    text = to_source(tree).rstrip("\n")
    assert eval(text) == evaluated(ast.fix_missing_locations(tree))
    if sys.version_info < (3, 12):
        assert text.startswith("f'''") or text.startswith('f"""')


def test_nested_fstrings_three_deep() -> None:
    innermost = ast.JoinedStr(values=[ast.FormattedValue(ast.Name("x", ast.Load()), -1, None)])
    middle = ast.JoinedStr(values=[ast.Constant("<"), ast.FormattedValue(innermost, -1, None)])
    tree = formatted(ast.BinOp(middle, ast.Add(), ast.Constant("!")))
    text = to_source(ast.fix_missing_locations(tree)).rstrip("\n")
    assert eval(text, dict(NAMES)) == evaluated(ast.fix_missing_locations(tree))


def test_line_feeds_in_a_field_are_written_without_backslash() -> None:
    # Python 3.11 compiles "... %s ..." % ("\n" * 3,) to f-string bytecode; the field has a line feed.
    repeated = ast.BinOp(ast.Constant("\n\t'\""), ast.Mult(), ast.Constant(3))
    tree = ast.Expression(
        ast.JoinedStr(
            values=[
                ast.Constant("head\n"),
                ast.FormattedValue(value=repeated, conversion=ord("s"), format_spec=None),
            ]
        )
    )
    text = to_source(ast.fix_missing_locations(tree))
    assert eval(text) == "head\n" + "\n\t'\"" * 3


def test_join_with_line_feed_inside_a_field() -> None:
    join = ast.Attribute(ast.Constant("\n"), "join", ast.Load())
    tree = formatted(ast.Call(join, [ast.List([ast.Constant("a"), ast.Constant("b")], ast.Load())], []))
    assert eval(to_source(ast.fix_missing_locations(tree))) == "a\nb"


@pytest.mark.skipif(sys.version_info >= (3, 12), reason="PEP 701 allows backslashes in fields")
def test_backslash_in_a_field_has_no_spelling_before_312() -> None:
    join = ast.Attribute(ast.Constant("\\"), "join", ast.Load())
    tree = formatted(ast.Call(join, [ast.Name("d", ast.Load())], []))
    text = to_source(ast.fix_missing_locations(tree))
    with pytest.raises(SyntaxError):
        compile(text, "<printed>", "eval")


@pytest.mark.skipif(sys.version_info < (3, 12), reason="PEP 701 syntax")
def test_pep701_nesting_of_same_quotes_and_backslashes() -> None:
    for source in ["f'{'\\n'.join(['a', 'b'])}'", "f'{f'{f'{f'{f'{x}'}'}'}'}'", "f'{x # comment\n}'"]:
        check(source)


@pytest.mark.skipif(sys.version_info < (3, 14), reason="template strings")
@pytest.mark.parametrize(
    "source",
    [
        "t'plain'",
        "t'{x}'",
        "t'{ x + 1 !r:>{w}} and {b = }'",
        "t'{x:{w}}' t\"{c}\"",
    ],
)
def test_template_strings_keep_interpolation_text(source: str) -> None:
    tree = ast.parse(source, mode="eval")
    text = to_source(tree).rstrip("\n")
    assert ast.dump(ast.parse(text, mode="eval")) == ast.dump(tree), text
    assert interpolation_texts(ast.parse(text, mode="eval")) == interpolation_texts(tree)


def interpolation_texts(tree: ast.AST) -> list:
    return [node.str for node in ast.walk(tree) if type(node).__name__ == "Interpolation"]
