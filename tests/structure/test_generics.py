"""Generic definitions (PEP 695, 3.12+) come back with their type parameters
(``uncompile.structure.generics``)."""

from __future__ import annotations

import sys

import pytest

from uncompile.decompiler import decompile_code
from uncompile.verification import verify_code

PEP695 = pytest.mark.skipif(sys.version_info < (3, 12), reason="type parameters are 3.12+")
PEP696 = pytest.mark.skipif(sys.version_info < (3, 13), reason="type parameter defaults are 3.13+")

#: Compiled from strings, so that older versions can import this module.
GENERICS = {
    "function": (
        "def first[T: int, U: (int, str), *Ts, **P](xs: list[T], y=1, *, z=2) -> T:\n    return xs[0]\n"
    ),
    "decorated": "@a\n@b(1)\ndef g[T](*, k: T = None, **kw):\n    return [T for _ in kw]\n",
    "async": "async def am[T](x: T) -> T:\n    return x\n",
    "class": ("class Box[T](Base, metaclass=Meta):\n    def get(self) -> T:\n        return self.item\n"),
    "bare class": "class Empty[T]:\n    pass\n",
    "alias": "type Pair[K: int] = tuple[K, K]\n",
    "recursive alias": "type Rec[T] = list[Rec[T]] | T\n",
    "in a class": (
        "class Outer:\n"
        "    def meth[S](self, s: S) -> S:\n"
        "        return s\n"
        "\n"
        "    class Inner[K: Outer](dict[K, int]):\n"
        "        attr: K\n"
        "\n"
        "    type Local[V] = dict[V, Outer]\n"
    ),
    "nested": (
        "def outer(z):\n"
        "    def h[T](q=z) -> T:\n"
        "        def inner(y: T) -> T:\n"
        "            return y\n"
        "        return lambda: (T, inner)\n"
        "    class K[T](metaclass=type):\n"
        "        x = T\n"
        "    type A[T] = list[T]\n"
        "    return h, K, A\n"
    ),
}

DEFAULTS = {
    "function": "def first[T = int, **P = [int, str]](xs: list[T] = []) -> T:\n    return xs[0]\n",
    "bound and default": "async def am[T: (bytes, str) = str](x: T) -> T:\n    return x\n",
    "starred default": "class C[*Ts = *tuple[int, ...]]:\n    pass\n",
    "alias": "type Pair[K = int] = tuple[K, K]\n",
}


def _round_trip(source: str) -> None:
    code = compile(source, "<test>", "exec", dont_inherit=True)
    result = verify_code(code)
    assert result.identical, (decompile_code(code), result)


@PEP695
@pytest.mark.parametrize("name", sorted(GENERICS))
def test_generic_definition_round_trips(name):
    _round_trip(GENERICS[name])


@PEP696
@pytest.mark.parametrize("name", sorted(DEFAULTS))
def test_type_parameter_default_round_trips(name):
    _round_trip(DEFAULTS[name])


@PEP695
def test_generic_definition_reads_as_written():
    source = GENERICS["function"] + "\n\n" + GENERICS["alias"]
    text = decompile_code(compile(source, "<test>", "exec", dont_inherit=True))
    assert text.strip() == source.strip()
