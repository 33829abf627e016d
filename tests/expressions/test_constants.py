"""Constants as expressions (``uncompile.expressions.constants``): plain ``ast.Constant`` nodes,
literals tagged as constants, placeholders."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest
from snippets import round_trip

from uncompile.expressions.constants import constant_expr


@pytest.mark.parametrize("value", [None, True, 3, "s", b"b", ..., (lambda: 0).__code__, ("a", 1, None), ()])
def test_a_plain_constant_is_a_bare_constant_node(value: object) -> None:
    node = constant_expr(value, 0)
    assert type(node) is ast.Constant and node.value is value
    assert not hasattr(node, "uncompile_const")  # nothing reads the tag of a plain constant


def test_a_frozenset_literal_is_tagged_as_a_constant() -> None:
    node = constant_expr(frozenset({1, 2}), 0)
    assert isinstance(node, ast.Set) and getattr(node, "uncompile_const", False)


_SET_TEST = """
def platform_kind(name):
    if name in {'win32', 'cygwin', 'darwin', 'linux', 'aix', 'freebsd7', 'sunos5'}:
        return 1
    return name not in {3, 'a', 2.5, ('t', 1), 1, b'b'}
"""

_DECOMPILE = (
    "import sys; from uncompile.decompiler import decompile_code; "
    "print(decompile_code(compile(sys.argv[1], 's', 'exec')))"
)


def test_a_frozenset_constant_is_written_in_the_same_order_whatever_the_string_hashes() -> None:
    # its items iterate in hash order, which PYTHONHASHSEED changes: the text must not
    src = str(Path(__file__).resolve().parents[2] / "src")
    texts = set()
    for seed in ("0", "1", "2", "3"):
        environment = dict(os.environ, PYTHONHASHSEED=seed, PYTHONPATH=src)
        run = subprocess.run(
            [sys.executable, "-c", _DECOMPILE, _SET_TEST],
            env=environment,
            capture_output=True,
            text=True,
            check=True,
        )
        texts.add(run.stdout)
    assert len(texts) == 1
    (text,) = texts
    assert "{'aix', 'cygwin', 'darwin', 'freebsd7', 'linux', 'sunos5', 'win32'}" in text
    assert "{b'b', 2.5, 1, 3, 'a', ('t', 1)}" in text  # by type name (bytes, float, int...), then text


def test_a_constant_without_a_literal_is_a_placeholder_name() -> None:
    assert isinstance(constant_expr(object(), 0), ast.Name)


@pytest.mark.parametrize("value", [(1, 2.5), (1, (2, 3)), (1, frozenset({2}))])
def test_a_tuple_of_other_constants_takes_the_generic_checks(value: tuple) -> None:
    node = constant_expr(value, 0)
    assert getattr(node, "uncompile_const", False)  # literal()'s node, not the plain path's
    assert not isinstance(node, ast.Name)


def test_a_tuple_holding_a_nan_is_a_placeholder() -> None:
    assert isinstance(constant_expr((1, float("nan")), 0), ast.Name)


CASES = {
    "membership_in_a_set_of_constants": """
        def f(x):
            return x in {1, 2, 3}
    """,
    "set_display_of_constants": """
        def f():
            return {1, 2, 3}
    """,
    "set_display_extended": """
        def f(a):
            return {*a, 1, 2, 3}
    """,
    "plain_constants": """
        def f(x):
            x = None
            return (x, 1, "two", b"three", True)
    """,
    "plain_tuple_constants": """
        def f(x, y=(1, "a", None), *, z=...):
            g(x, key=y, other=z)
            return ("a", b"b", 2, True, ...), (1, 2.5), (1, (2, 3))
    """,
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_constants_recompile_identically(name: str) -> None:
    round_trip(CASES[name])
