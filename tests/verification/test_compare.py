"""Tests of uncompile.verification.compare: equal code compares equal, every kind of change is found."""

from __future__ import annotations

import dis
import json.decoder
import sys
import textwrap
from types import CodeType
from typing import List, Optional

from uncompile.verification.compare import Difference, compare_code, constant_key, nested_code


def function_code(source: str, name: Optional[str] = None) -> CodeType:
    """The code object of the (first, or *name*d) function defined by *source*."""
    module = compile(textwrap.dedent(source), "<test>", "exec")
    for const in nested_code(module):
        if name is None or const.co_name == name:
            return const
    raise AssertionError("no function in source")


def test_module_compared_with_itself_recompiled_is_identical() -> None:
    path = json.decoder.__file__
    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    assert compare_code(compile(text, path, "exec"), compile(text, "elsewhere.py", "exec")) is None


def test_line_numbers_are_ignored() -> None:
    source = "def f(a):\n    if a:\n        return a + 1\n    return None\n"
    moved = "\n\n\n" + source
    shifted = "def f(a):\n    if a:\n\n\n        return a + 1\n    return None\n"
    assert compare_code(function_code(source), function_code(moved)) is None
    assert compare_code(function_code(source), function_code(shifted)) is None


def test_changed_constant_is_found() -> None:
    difference = compare_code(function_code("def f(): return 1000"), function_code("def f(): return 2000"))
    assert isinstance(difference, Difference)
    assert difference.path == "f"
    assert "1000" in difference.expected and "2000" in difference.got
    assert "1000" in str(difference) and "2000" in str(difference)


def test_constants_of_equal_value_but_other_type_differ() -> None:
    for first, second in (("1", "1.0"), ("0.0", "-0.0"), ("1", "True"), ("(1,)", "(1.0,)")):
        expected = function_code("def f(): return %s" % first)
        got = function_code("def f(): return %s" % second)
        assert compare_code(expected, got) is not None, (first, second)


def test_constant_key() -> None:
    nan = float("nan")
    assert constant_key(nan) == constant_key(float("nan"))
    assert constant_key(0.0) != constant_key(-0.0)
    assert constant_key(frozenset({1, 2})) == constant_key(frozenset({2, 1}))
    marker = object()
    assert constant_key(marker) == constant_key(marker) != constant_key(object())


def test_equal_frozensets_in_another_iteration_order_are_identical() -> None:
    # 1 and 9 share a hash slot, so the set built first from 9 iterates in the other order
    expected = function_code("def f(x): return x in {1, 9}")
    got = function_code("def f(x): return x in {9, 1}")
    assert list(expected.co_consts[-1]) != list(got.co_consts[-1])
    assert compare_code(expected, got) is None
    assert compare_code(expected, function_code("def f(x): return x in {1, 8}")) is not None


def test_extra_instruction_is_found_at_its_position() -> None:
    difference = compare_code(function_code("def f(a): return a"), function_code("def f(a): return -a"))
    assert difference is not None
    assert "UNARY_NEGATIVE" in difference.got
    assert difference.index is not None and difference.index >= 1
    longer = compare_code(
        function_code("def f(a):\n    g(a)\n"), function_code("def f(a):\n    g(a)\n    g(a)\n")
    )
    assert longer is not None


def test_missing_instruction_reports_end_of_code() -> None:
    expected = function_code("def f(a):\n    g(a)\n    g(a)\n")
    got = function_code("def f(a):\n    g(a)\n")
    difference = compare_code(expected, got)
    assert difference is not None and difference.offset is not None


def _jump_moved_by_one_instruction(code: CodeType) -> CodeType:
    """*code* with its first forward conditional jump retargeted to the next instruction."""
    instructions = [ins for ins in dis.get_instructions(code) if ins.opname != "CACHE"]
    offsets: List[int] = [ins.offset for ins in instructions]
    for instruction in instructions:
        if (
            "JUMP" in instruction.opname
            and "_IF_" in instruction.opname
            and instruction.argval > instruction.offset
        ):
            target_position = offsets.index(instruction.argval)
            step = offsets[target_position + 1] - offsets[target_position]
            unit = 1 if sys.version_info < (3, 10) else 2
            raw = bytearray(code.co_code)
            raw[instruction.offset + 1] += step // unit
            return code.replace(co_code=bytes(raw))
    raise AssertionError("no forward conditional jump")


def test_changed_jump_target_is_found() -> None:
    code = function_code("def f(a, b):\n    if a:\n        b = 1\n        b = 2\n    return b\n")
    difference = compare_code(code, _jump_moved_by_one_instruction(code))
    assert difference is not None
    assert "->" in difference.expected and "->" in difference.got
    assert difference.expected.split("->")[0] == difference.got.split("->")[0]


def test_nested_code_difference_names_the_path() -> None:
    template = """
        class C:
            def outer(self):
                def inner():
                    return %s
                return inner
    """
    expected = compile(textwrap.dedent(template % "1000"), "<test>", "exec")
    got = compile(textwrap.dedent(template % "2000"), "<test>", "exec")
    difference = compare_code(expected, got)
    assert difference is not None
    assert difference.path == "C.outer.<locals>.inner"


def test_signature_differences_are_found() -> None:
    pairs = [
        ("def f(a, b): return a", "def f(a, c): return a"),
        ("def f(a, b): return a", "def f(a, *, b): return a"),
        ("def f(a): return a", "def f(a):\n    yield a"),
        ("def f(a, *args): return a", "def f(a, **args): return a"),
    ]
    for first, second in pairs:
        difference = compare_code(function_code(first), function_code(second))
        assert difference is not None, (first, second)
    difference = compare_code(function_code(pairs[0][0]), function_code(pairs[0][1]))
    assert difference is not None and difference.index is None and "argument names" in difference.expected


def test_free_and_cell_variables_are_compared() -> None:
    closure = "def outer():\n    x = 1\n    def f():\n        return x\n    return f\n"
    plain = "def outer():\n    def f():\n        return x\n    return f\n"
    expected = compile(closure, "<test>", "exec")
    got = compile(plain, "<test>", "exec")
    difference = compare_code(expected, got)
    assert difference is not None


def test_where_a_function_is_nested_does_not_matter() -> None:
    top = function_code("def f(a):\n    return [a]\n")
    nested = function_code("def outer():\n    def f(a):\n        return [a]\n    return f\n", "outer")
    inner = nested_code(nested)[0]
    assert compare_code(top, inner) is None


def test_equal_try_statements_compare_equal() -> None:
    expected = function_code("def f():\n    try:\n        a()\n    except E:\n        pass\n    b()\n")
    got = function_code("def f():\n    try:\n        a()\n    except E:\n        pass\n    b()\n")
    assert compare_code(expected, got) is None


def test_pairs_of_local_accesses_formed_only_on_one_line_compare_equal() -> None:
    one_line = function_code("def f(a, b):\n    x, y = a, b\n    return g(a, b, x, y)\n")
    split = function_code(
        "def f(a, b):\n    x, y = (a,\n        b)\n    return g(a,\n        b,\n        x,\n        y)\n"
    )
    assert compare_code(one_line, split) is None
    other = function_code("def f(a, b):\n    x, y = a, b\n    return g(b, a, x, y)\n")
    assert compare_code(one_line, other) is not None


def test_docstring_of_a_function_is_compared() -> None:
    with_doc = function_code('def f(a):\n    "Explain."\n    return "x"\n')
    without = function_code('def f(a):\n    return "x"\n')
    other = function_code('def f(a):\n    "Other."\n    return "x"\n')
    assert compare_code(with_doc, with_doc) is None
    assert compare_code(with_doc, without) is not None
    difference = compare_code(with_doc, other)
    assert difference is not None and "Explain." in difference.expected
