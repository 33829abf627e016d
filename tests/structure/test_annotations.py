"""Deferred annotations (3.14+) come back as ordinary annotations (``uncompile.structure.annotations``)."""

from __future__ import annotations

import ast
import sys

import pytest

from uncompile.decompiler import decompile_code
from uncompile.structure.annotations import (
    AnnotateFunction,
    _annotate_function,
    annotate_entries,
    is_lazy_evaluator,
)
from uncompile.verification import verify_code

PEP649 = pytest.mark.skipif(sys.version_info < (3, 14), reason="PEP 649 annotations are 3.14+")

MODULE = """
import os
x: int = 3
y: "str"
if os:
    z: list[int] = []


def k(a: int, *b: x, c: "q" = 2, **d: os.path) -> str:
    pass


class C:
    a: int
    if x:
        b: str = 3

    def m(self) -> C:
        pass


def outer():
    T = int

    class K:
        v: T

    return K
"""


def _module():
    return compile(MODULE, "<test>", "exec", dont_inherit=True)


@PEP649
def test_module_round_trips_with_its_annotations():
    result = verify_code(_module())
    assert result.identical, result
    source = result.source
    for text in (
        "x: int = 3",
        "y: 'str'",
        "z: list[int] = []",
        "def k(a: int, *b: x, c: 'q'=2",
        "-> str:",
        "    a: int",
        "        b: str = 3",
        "def m(self) -> C:",
        "v: T",
    ):
        assert text.replace("=2", " = 2") in source or text in source, text
    assert "__annotate__" not in source and "__conditional_annotations__" not in source


@PEP649
def test_function_annotate_entries():
    code = next(
        c
        for c in _module().co_consts
        if getattr(c, "co_name", "") == "__annotate__" and "return" in c.co_consts
    )
    names = [entry.name for entry in annotate_entries(code)]
    assert names == ["a", "b", "c", "d", "return"]


@PEP649
def test_type_alias_value_is_a_type_statement():
    module = compile("type Pair = tuple[int, int]\n", "<test>", "exec", dont_inherit=True)
    value = next(c for c in module.co_consts if getattr(c, "co_name", "") == "Pair")
    assert is_lazy_evaluator(value)
    assert decompile_code(value).strip() == "type Pair = tuple[int, int]"
    assert verify_code(value, qualname="Pair").identical


FUTURE = """
from __future__ import annotations


class C:
    def f(self, a: int, b: "x" = 1, *c: list[int]) -> C | None:
        pass
"""


def test_stringified_annotations_come_back_as_expressions():
    result = verify_code(compile(FUTURE, "<test>", "exec", dont_inherit=True))
    assert result.identical, result
    assert "def f(self, a: int, b: 'x' = 1, *c: list[int]) -> C | None:" in (result.source or "")


CLASS_AND_MODULE = """\
import os
x: int = 1
y: "str"


class C:
    \"\"\"Doc.\"\"\"
    a: int
    if os:
        b: str = 3
    c: list[int] = []
"""


@pytest.mark.parametrize("future", ["", "from __future__ import annotations\n"])
def test_module_and_class_annotations_on_every_version(future):
    result = verify_code(compile(future + CLASS_AND_MODULE, "<test>", "exec", dont_inherit=True))
    assert result.identical, result
    for text in ("x: int = 1", "y: 'str'", "    a: int", "        b: str = 3", "    c: list[int] = []"):
        assert text in (result.source or ""), text


def test_only_a_body_that_stores_an_annotate_function_is_searched_for_one():
    unannotated = compile("class C:\n    a = 1\n", "<test>", "exec", dont_inherit=True)
    marker = AnnotateFunction(unannotated)
    # the body's code stores no __annotate__: the statement is not looked for
    assert _annotate_function([marker], unannotated.co_consts[0]) is None
    assert _annotate_function([marker], None) is marker  # (no code: every statement is looked at)


@PEP649
def test_a_class_body_that_stores_its_annotate_function_is_searched():
    code = compile("class C:\n    a: int\n", "<test>", "exec", dont_inherit=True).co_consts[0]
    marker = AnnotateFunction(code)
    assert _annotate_function([ast.Pass(), marker], code) is marker


# annotations whose values jump: a ternary (its store copied into each branch, 3.14+), ``or``
ANNOTATIONS_THAT_JUMP = """\
def f(self):
    class S:
        a: M[self.d if self.d is not None else I, 3]
        b: int
    return S


class T:
    x: (1 if y else 2)
    z: a or b


def g(a: (b or c), d: e if f else h) -> (x and y):
    pass
"""


@pytest.mark.parametrize("future", ["", "from __future__ import annotations\n"])
def test_annotations_whose_values_jump(future):
    result = verify_code(compile(future + ANNOTATIONS_THAT_JUMP, "<test>", "exec", dont_inherit=True))
    assert result.identical, result
    for text in (
        "a: M[self.d if self.d is not None else I, 3]",
        "x: 1 if y else 2",
        "z: a or b",
        "-> x and y",
    ):
        assert text in (result.source or ""), (text, result.source)
