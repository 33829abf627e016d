"""3.14+ instruction sequences read as neutral instructions (``uncompile.bytecode.sequences``)."""

from __future__ import annotations

import sys

import pytest

from uncompile.bytecode.instructions import read_instructions
from uncompile.verification import verify_code

NEWEST = pytest.mark.skipif(sys.version_info < (3, 14), reason="3.14+ bytecode")


def _ops(source: str) -> list:
    namespace: dict = {}
    exec(compile(source, "<test>", "exec", dont_inherit=True), namespace)
    return [ins.op for ins in read_instructions(namespace["f"].__code__)]


@NEWEST
def test_with_entry_is_one_before_with():
    ops = _ops("def f(m):\n    with m as x:\n        return x\n")
    assert "BEFORE_WITH" in ops
    assert "LOAD_SPECIAL" not in ops


@NEWEST
def test_inlined_builtin_call_keeps_only_the_plain_call():
    ops = _ops("def f(a):\n    return all(x for x in a)\n")
    assert "LOAD_BUILTIN" not in ops and "IS_OP" not in ops and "FOR_ITER" not in ops
    assert ops.count("CALL") == 2


@NEWEST
@pytest.mark.parametrize(
    "source",
    [
        "def f(a, tuple=tuple):\n    return tuple(x for x in a)\n",
        "def f(a, b, tuple=tuple):\n    return b + tuple(x for x in a)\n",
        "def outer(a):\n    all = len\n    def f():\n        return all(x for x in a)\n    return f\n"
        "f = outer(())\n",
    ],
    ids=["local", "second_of_two_loads", "free"],
)
def test_inlined_call_of_a_name_shadowing_the_builtin_keeps_only_the_plain_call(source):
    # the guard tests the local (or free) name: what the plain call calls
    ops = _ops(source)
    assert "IS_OP" not in ops and "FOR_ITER" not in ops and "COPY" not in ops
    namespace: dict = {}
    exec(compile(source, "<test>", "exec", dont_inherit=True), namespace)
    assert verify_code(namespace["f"].__code__).identical


@NEWEST
def test_common_constants():
    ops = _ops("def f(a):\n    assert a\n    return None\n")
    assert "LOAD_ASSERTION_ERROR" in ops and "LOAD_COMMON_CONSTANT" not in ops


@pytest.mark.parametrize(
    "source",
    [
        "def f(m):\n    with m as x:\n        return x.y\n",
        "def f(a):\n    return any(x > 1 for x in a), tuple(x for x in a)\n",
        "def f(a):\n    for x in a:\n        if x:\n            return x\n        if x > 2:\n"
        "            break\n",
        "def f(*a, **k):\n    return g(*a), g(*a, **k)\n",
        "def f(a):\n    yield from a\n",
    ],
)
def test_round_trip(source):
    namespace: dict = {}
    exec(compile(source, "<test>", "exec", dont_inherit=True), namespace)
    assert verify_code(namespace["f"].__code__).identical


TYPE_ALIASES = """
type Number = int | float


def f(n):
    type Pair = tuple[int, int]
    return Pair.__value__, n
"""


@pytest.mark.skipif(sys.version_info < (3, 12), reason="type statements from 3.12 on")
def test_type_alias_is_one_instruction_and_a_type_statement():
    assert "TYPE_ALIAS" in _ops(TYPE_ALIASES)
    result = verify_code(compile(TYPE_ALIASES, "<test>", "exec", dont_inherit=True))
    assert result.source is not None and "type Pair = tuple[int, int]" in result.source
    assert "type Number = int | float" in result.source
    assert result.identical, (str(result), result.source)
