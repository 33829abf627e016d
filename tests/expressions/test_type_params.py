"""Type parameters (3.12+) are read from their intrinsics (``uncompile.expressions.type_params``)."""

from __future__ import annotations

import sys

import pytest

from uncompile.decompiler import decompile_code
from uncompile.verification import verify_code

#: Every kind of type parameter, with a bound, constraints and 3.13+ defaults (``*Ts = *X`` too).
KINDS = "def f[A, B: int, C: (int, str), *Ts, **P](): pass\n"
DEFAULTS = "def f[A = int, B: int = bool, *Ts = *tuple[int, ...], **P = [int]](): pass\n"


@pytest.mark.skipif(sys.version_info < (3, 12), reason="type parameters are 3.12+")
def test_each_kind_of_type_parameter():
    code = compile(KINDS, "<test>", "exec", dont_inherit=True)
    assert decompile_code(code).startswith("def f[A, B: int, C: (int, str), *Ts, **P]():")
    assert verify_code(code).identical


@pytest.mark.skipif(sys.version_info < (3, 13), reason="type parameter defaults are 3.13+")
def test_type_parameter_defaults():
    code = compile(DEFAULTS, "<test>", "exec", dont_inherit=True)
    assert decompile_code(code).startswith(
        "def f[A = int, B: int = bool, *Ts = *tuple[int, ...], **P = [int]]():"
    )
    assert verify_code(code).identical
