"""End-to-end decompiler tests: real functions decompile to source that recompiles identically."""

from __future__ import annotations

import ast

import pytest

from uncompile.decompiler import decompile_code, decompile_to_ast
from uncompile.errors import DecompileError
from uncompile.verification import verify_code
from uncompile.verification.stdlib_sample import sample_units


def straight_line(a, b=2, *args, c, **kwargs):
    """A docstring."""
    x = a + b * 2
    y = x = a
    a.b.c = x[1:2]
    del kwargs["k"]
    return print(x, *args, key=y, **kwargs)


def branches(a, b):
    if a and b or not a:
        print(a)
    elif b:
        return 3
    else:
        a += 1
    return a if b else -a


def loops(items):
    total = 0
    for item in items:
        if item is None:
            continue
        if item > 10:
            break
        total += item
    else:
        total = 1
    while total < 100:
        total *= 2
    return total


def handlers(path):
    try:
        handle = open(path)
    except OSError as error:
        print(error)
        return None
    with handle as stream:
        return stream.read()


def comprehensions(items):
    squares = [x * x for x in items if x]
    table = {k: v + 1 for k, v in items}
    return squares, table, lambda q: q + 1


CASES = [straight_line, branches, loops, handlers, comprehensions]


@pytest.mark.parametrize("function", CASES, ids=lambda f: f.__name__)
def test_round_trip_is_identical(function):
    result = verify_code(function.__code__)
    assert result.compiles, result.error
    assert result.identical, result.difference


def test_statements_carry_offsets():
    tree = decompile_to_ast(branches.__code__)
    offsets = [node.uncompile_offsets for node in ast.walk(tree) if isinstance(node, ast.stmt)]
    assert offsets and all(isinstance(item, tuple) for item in offsets)
    real = {offset for item in offsets for offset in item}
    assert real, "no statement points back at an instruction"


def test_function_shape_and_behaviour():
    source = decompile_code(loops.__code__)
    namespace: dict = {}
    exec(source, namespace)
    for data in ([1, 2, 3], [None, 5, 20], []):
        assert namespace["loops"](data) == loops(data)


def test_not_a_code_object_is_a_clear_error():
    with pytest.raises(DecompileError):
        decompile_to_ast("not code")  # type: ignore[arg-type]


def test_stdlib_sample_round_trips():
    units = sample_units(120, seed=1)
    outcomes = [verify_code(code, qualname=qualname).outcome for _, qualname, code in units]
    identical = outcomes.count("identical") / len(outcomes)
    assert identical >= 0.6, outcomes


def test_decompiling_a_module_makes_no_reference_cycles():
    """What one decompilation builds is freed by reference counting as soon as it is done with:
    cyclic garbage would be walked by the collector after each call (slow on large modules)."""
    import json.decoder

    from snippets import cyclic_garbage_of

    with open(json.decoder.__file__, encoding="utf-8") as handle:
        code = compile(handle.read(), json.decoder.__file__, "exec")
    decompile_code(code)  # imports and per-class tables are made on first use
    assert cyclic_garbage_of(lambda: decompile_code(code)) == []
