"""Private names written unmangled (``uncompile.structure.private_names``)."""

from __future__ import annotations

import sys
from types import CodeType

import pytest

from uncompile.structure.private_names import mangling_class
from uncompile.verification import verify_code

QUALNAMES = pytest.mark.skipif(sys.version_info < (3, 11), reason="co_qualname is 3.11+")

CLASS = """\
class _Account:
    def __init__(self, owner, __limit=10):
        self.__owner = owner
        self.__limit = __limit

    def describe(self):
        def label():
            return self.__owner
        return [label() for _ in range(self.__limit)]

    class __Audit:
        def check(self, __entry):
            return self.__seen, __entry
"""


def _class_body() -> CodeType:
    module = compile(CLASS, "<test>", "exec", dont_inherit=True)
    return next(const for const in module.co_consts if isinstance(const, CodeType))


@QUALNAMES
def test_private_names_come_back_unmangled():
    result = verify_code(_class_body(), qualname="_Account")
    assert result.identical, result
    source = result.source or ""
    for text in (
        "self.__owner = owner",
        "__limit=10",
        "self.__limit",
        "class __Audit",
        "self.__seen, __entry",
    ):
        assert text in source, text
    assert "_Account__" not in source and "_Audit__" not in source


@QUALNAMES
def test_the_mangling_class_is_the_innermost_one():
    body = _class_body()
    codes = {c.co_qualname: c for c in _walk(body)}
    assert mangling_class(body) == "_Account"
    assert mangling_class(codes["_Account.describe.<locals>.label"]) == "_Account"
    assert mangling_class(codes["_Account.__Audit.check"]) == "__Audit"


def _walk(code: CodeType):
    yield code
    for const in code.co_consts:
        if isinstance(const, CodeType):
            yield from _walk(const)
