"""What the Dynamo simulator knows about expressions (:mod:`uncompile.expressions.dynamo_effects`)."""

from __future__ import annotations

import ast

import pytest

from uncompile.expressions.dynamo_effects import names_read


@pytest.mark.parametrize(
    "source",
    [
        "f(a, *b, k=c, **d)[e:g, ::h].attr",
        "[x for x in y if z] + {p: q for p in r}",
        "lambda m, n=o: m + n + s",
        "(t := u) and not v or w if cond else f'{fmt!r:{spec}}'",
        "1 + 2",
    ],
)
def test_names_read_finds_every_name_ast_walk_finds(source: str) -> None:
    node = ast.parse(source, mode="eval").body
    assert names_read(node) == {sub.id for sub in ast.walk(node) if isinstance(sub, ast.Name)}


def test_names_read_of_a_non_expression_is_empty() -> None:
    assert names_read(object()) == set()
