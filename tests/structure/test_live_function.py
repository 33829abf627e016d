"""Defaults and annotations that a live function adds to its decompiled ``def``."""

from __future__ import annotations

import ast
import collections
import sys

import pytest

import uncompile
from uncompile.source.printer import to_source
from uncompile.structure.live_function import value_expression


def _defined(source: str, name: str, namespace: dict):
    exec(compile(source, "<decompiled>", "exec"), namespace)
    return namespace[name]


def test_literal_defaults_come_back_equal():
    def sample(a, b=3, *args, c=[1, {"x": (2.5, None)}], d=frozenset(), e=b"\x00", **kw):  # noqa: B006
        return a

    source = uncompile.decompile(sample)
    again = _defined(source, "sample", {})
    assert again.__defaults__ == sample.__defaults__
    assert again.__kwdefaults__ == sample.__kwdefaults__
    assert again.__code__.co_code == sample.__code__.co_code


def test_defaults_naming_classes_and_functions_use_their_dotted_names():
    def sample(factory=collections.OrderedDict, measure=len, default=object()):  # noqa: B008
        return factory

    header = uncompile.decompile(sample).splitlines()[0]
    assert header == "def sample(factory=collections.OrderedDict, measure=len, default=__uc_object):"


def test_annotations_are_written_back():
    def sample(count: int, names: "list[str]" = (), *rest: float, flag: bool = False) -> dict:
        return {}

    header = uncompile.decompile(sample).splitlines()[0]
    # this module's annotations are strings (``from __future__ import annotations``), so the
    # string annotation "list[str]" stays a string literal
    assert header == (
        "def sample(count: int, names: 'list[str]' = (), *rest: float, flag: bool = False) -> dict:"
    )


def test_lambda_defaults():
    assert uncompile.decompile(lambda x, y=2, *, z=None: x).strip() == "lambda x, y=2, *, z=None: x"


def test_methods_and_static_methods():
    class Holder:
        def method(self, step=1):
            return step

        @staticmethod
        def helper(text="a"):
            return text

    assert uncompile.decompile(Holder().method).splitlines()[0] == "def method(self, step=1):"
    assert uncompile.decompile(Holder.__dict__["helper"]).splitlines()[0] == "def helper(text='a'):"


def test_a_code_object_has_no_defaults_to_show():
    def sample(a=1):
        return a

    assert uncompile.decompile(sample.__code__).splitlines()[0] == "def sample(a):"


def test_value_expression_of_nested_and_empty_containers():
    value = {"k": [set(), (1,)], 2: {3}, "f": frozenset({4})}
    node = ast.fix_missing_locations(value_expression(value))
    assert to_source(ast.Module(body=[ast.Expr(value=node)], type_ignores=[])).strip() == (
        "{'k': [set(), (1,)], 2: {3}, 'f': frozenset({4})}"
    )
    assert eval(compile(ast.Expression(node), "<value>", "eval")) == value


@pytest.mark.skipif(sys.version_info < (3, 14), reason="3.14+ evaluate annotations only when asked")
def test_deferred_annotations_naming_undefined_names_are_kept():
    source = "def sample(a: Later, b: NotYetDefined.x | None = None) -> 'list[Later]':\n    return a\n"
    namespace: dict = {}
    exec(compile(source, "<snippet>", "exec", dont_inherit=True), namespace)
    header = uncompile.decompile(namespace["sample"]).splitlines()[0]
    assert header == "def sample(a: Later, b: NotYetDefined.x | None = None) -> list[Later]:"
