"""Calls, displays and class creation on the symbolic stack (``uncompile.expressions.calls``)."""

from __future__ import annotations

import pytest
from snippets import round_trip

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
    result = round_trip(CLASSES_WITH_UNPACKED_BASES[name])
    assert result.source is not None and "*bases" in result.source


DISPLAYS_OF_CONSTANTS = {
    "set_of_constants": "def f():\n    return {1, 2, 3}\n",
    "unpacked_constants_then_item": "def f():\n    return [*(1, 2, 3), 4]\n",
    "unpacked_constants_then_unpacked": "def f(rest):\n    return [*(1, 2, 3), *rest], {*(1, 2, 3), *rest}\n",
    "constants_then_unpacked": "def f(rest):\n    return [1, 2, 3, *rest]\n",
    "short_unpacked_constants": "def f(rest):\n    return [*(), 1], (*(1, 2), *rest)\n",
    "call_with_unpacked_constants": "def f(g, rest):\n    return g(*(1, 2, 3), 4), g(*(1, 2, 3), *rest)\n",
    "call_with_constants_and_kwargs": "def f(g, options):\n    return g(1, 2, 3, **options)\n",
}


@pytest.mark.parametrize("name", sorted(DISPLAYS_OF_CONSTANTS))
def test_displays_and_calls_with_constants(name: str) -> None:
    round_trip(DISPLAYS_OF_CONSTANTS[name])
