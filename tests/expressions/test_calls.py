"""Calls, displays and class creation on the symbolic stack (``uncompile.expressions.calls``)."""

from __future__ import annotations

import pytest
from snippets import define

from uncompile.verification import verify_code

CLASSES_WITH_UNPACKED_BASES = {
    "bases": """
        def f(bases):
            class C(*bases):
                pass
            return C
    """,
    "base_then_bases": """
        def f(first, bases):
            class C(first, *bases):
                value = 1
            return C
    """,
    "bases_and_keywords": """
        def f(bases, meta, options):
            class C(*bases, metaclass=meta, **options):
                def method(self):
                    return __class__
            return C
    """,
}


@pytest.mark.parametrize("name", sorted(CLASSES_WITH_UNPACKED_BASES))
def test_class_with_unpacked_bases(name: str) -> None:
    result = verify_code(define(CLASSES_WITH_UNPACKED_BASES[name]).__code__, qualname="f")
    assert result.identical, result
    assert result.source is not None and "*bases" in result.source
