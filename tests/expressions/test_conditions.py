"""Short-circuit nodes merge into and/or/not/ternary expressions."""

from __future__ import annotations

import ast

import pytest
from snippets import round_trip

from uncompile.bytecode import versions as V
from uncompile.expressions.conditions import VALUE, Node, negate, reduce_nodes
from uncompile.verification import verify_code


def name(text):
    return ast.Name(id=text, ctx=ast.Load())


def text(node):
    return ast.dump(node)


def test_and_chain():
    # a: false -> 9, true -> b; b: false -> 9, true -> 5
    nodes = [Node(1, name("a"), 2, 9), Node(2, name("b"), 5, 9)]
    reduced, sizes = reduce_nodes(nodes)
    assert sizes == [2]
    assert isinstance(reduced[0].expr, ast.BoolOp) and isinstance(reduced[0].expr.op, ast.And)
    assert (reduced[0].true, reduced[0].false) == (5, 9)


def test_or_then_and():
    # (a or b) and c
    nodes = [Node(1, name("a"), 3, 2), Node(2, name("b"), 3, 9), Node(3, name("c"), 5, 9)]
    reduced, _ = reduce_nodes(nodes)
    assert len(reduced) == 1
    assert text(reduced[0].expr) == text(
        ast.BoolOp(op=ast.And(), values=[ast.BoolOp(op=ast.Or(), values=[name("a"), name("b")]), name("c")])
    )


def test_ternary_value():
    merge = (VALUE, 7)
    nodes = [Node(1, name("c"), 2, 3), Node(2, name("x"), merge, merge), Node(3, name("y"), merge, merge)]
    reduced, _ = reduce_nodes(nodes)
    assert isinstance(reduced[0].expr, ast.IfExp)


def test_negate_flips_comparisons_and_de_morgan():
    compare = ast.Compare(left=name("a"), ops=[ast.Is()], comparators=[name("b")])
    if V.FOLDS_NOT_INTO_COMPARISON:
        assert isinstance(negate(compare).ops[0], ast.IsNot)
    else:  # 3.14+ compile ``not a is b`` in a condition as a reversed jump, not as ``is not``
        assert isinstance(negate(compare), ast.UnaryOp) and negate(compare).operand is compare
    both = ast.BoolOp(op=ast.And(), values=[name("a"), ast.UnaryOp(op=ast.Not(), operand=name("b"))])
    flipped = negate(both)
    assert isinstance(flipped.op, ast.Or) and text(flipped.values[1]) == text(name("b"))


def test_ternary_whose_else_is_reached_from_two_tests():
    # 1 if x and not w else 2: x false -> 4, w true -> 4, else 3; 3 and 4 are values merging at 7
    merge = (VALUE, 7)
    one, two = ast.Constant(value=1), ast.Constant(value=2)
    nodes = [
        Node(1, name("x"), 2, 4),
        Node(2, name("w"), 4, 3),
        Node(3, one, merge, merge),
        Node(4, two, merge, merge),
    ]
    reduced, sizes = reduce_nodes(nodes)
    assert sizes == [4]
    assert isinstance(reduced[0].expr, ast.IfExp) and reduced[0].expr.orelse is two
    assert reduced[0].true == reduced[0].false == merge


TERNARIES = """\
def in_comprehension(words, x):
    return [1 if x and not w else 2 for w in words]


def assigned(a, b):
    prefix = 'I' if not a and b else ''
    return prefix
"""


@pytest.mark.parametrize("name", ["in_comprehension", "assigned"])
def test_ternaries_with_compound_tests_round_trip(name):
    namespace: dict = {}
    exec(compile(TERNARIES, "<test>", "exec", dont_inherit=True), namespace)
    result = verify_code(namespace[name].__code__)
    assert result.identical, result
    if name == "in_comprehension":
        assert result.source is not None and "[1 if x and not w else 2 for w in words]" in result.source


NOT_AROUND_BOOLOP = """\
def f(flags, arg, short):
    if not (flags and arg[0] is StopIteration and arg[2] is None):
        g(flags)
    if not (short is None or (isinstance(short, str) and len(short) == 1)):
        raise ValueError(short)
    if arg is None or not isinstance(arg, (list, tuple)):
        raise ValueError(arg)
    return 1
"""


def test_not_around_a_boolop_keeps_the_leaf_comparisons():
    """``not (a and b is c)``: De Morgan would turn ``is`` into ``is not`` (another opcode)."""
    namespace: dict = {}
    exec(compile(NOT_AROUND_BOOLOP, "<test>", "exec", dont_inherit=True), namespace)
    result = verify_code(namespace["f"].__code__)
    assert result.identical, (result.difference, result.source)


def test_ternary_of_conditions_merges_when_exits_lead_to_the_same_blocks():
    # if (x if c else y): c false -> 3; x true -> 4 (a jump to 6), false -> 9; y true -> 6, false -> 9
    nodes = [Node(1, name("c"), 2, 3), Node(2, name("x"), 4, 9), Node(3, name("y"), 6, 9)]
    reduced, _ = reduce_nodes(nodes)
    assert len(reduced) == 3  # block 4 is not block 6 unless the caller says where it leads
    reduced, sizes = reduce_nodes(nodes, lambda exit: 6 if exit == 4 else exit)
    assert sizes == [3]
    assert isinstance(reduced[0].expr, ast.IfExp)
    assert (reduced[0].true, reduced[0].false) == (6, 9)


FUSED_NONE_TESTS = {
    # 3.11+ fuse ``b is not None`` into one jump: the condition reads as the source's ``and``
    "and_with_none_test": (
        """
        def f(a, b):
            if a and b is not None:
                return a
            return b
        """,
        "if a and b is not None:",
    ),
    "or_with_none_test": (
        """
        def f(a, b):
            if not a or b is None:
                return a
            return b
        """,
        "if not a or b is None:",
    ),
    # De Morgan would add a ``not`` here: the ``not`` stays outside
    "not_around_or_with_none_test": (
        """
        def f(a, b):
            if not (b is None or isinstance(b, str) and a):
                return a
            return b
        """,
        "if not (b is None or isinstance(b, str) and a):",
    ),
}


@pytest.mark.parametrize("case", sorted(FUSED_NONE_TESTS))
def test_condition_with_a_fused_none_test_reads_as_written(case):
    source, line = FUSED_NONE_TESTS[case]
    result = round_trip(source)
    assert line in result.source, result.source
