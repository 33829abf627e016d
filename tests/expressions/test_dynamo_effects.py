"""What the Dynamo simulator knows about expressions (:mod:`uncompile.expressions.dynamo_effects`)."""

from __future__ import annotations

import ast

import pytest

from uncompile.expressions.dynamo_effects import reads


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
def test_reads_finds_every_name_ast_walk_finds(source: str) -> None:
    node = ast.parse(source, mode="eval").body
    found = {sub.id for sub in ast.walk(node) if isinstance(sub, ast.Name)}
    assert all(reads(node, {name}) for name in found)
    assert reads(node, found | {"other"}) == bool(found)
    assert not reads(node, {"other", "attr", "k"})


def test_a_non_expression_reads_no_name() -> None:
    assert not reads(object(), {"a"})
