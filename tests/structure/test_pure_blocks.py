"""Tests of uncompile.structure.pure_blocks: blocks evaluated as pieces of boolean values."""

from __future__ import annotations

import sys

import pytest
from snippets import round_trip

OPERANDS_WITH_VALUES_OF_THEIR_OWN = """\
def generator_of_or(self):
    return self.count == 0 or any(not w.done() for w in (self.waiting or ()))


def call_of_and(a, b, c):
    return a and len(b and c)
"""


@pytest.mark.parametrize("name", ["generator_of_or", "call_of_and"])
def test_operand_holding_a_boolean_value_is_walked_to_the_merge(name):
    """An operand of ``or`` whose call holds an ``or`` of its own is walked up to where the
    outer operands meet: one value, not a block the boolean chain stops at."""
    round_trip(OPERANDS_WITH_VALUES_OF_THEIR_OWN, name)


BRANCH_MAKING_STATEMENTS = """\
def f(a, b, c):
    if a:
        b.items[c] = len(b.items) + c
    return b
"""


def test_block_making_a_statement_is_not_run_tentatively():
    """The block an ``if`` goes on to stores a value: no piece of a boolean value, decided
    from its instructions before anything is executed (each instruction runs once, in the
    real walk)."""
    from snippets import define

    from uncompile.structure.definitions import Nested
    from uncompile.structure.walker import Walker

    code = define(BRANCH_MAKING_STATEMENTS).__code__
    walker = Walker(code, Nested(code))
    stores = [
        b for b in walker.blocks if any(i.op.startswith("STORE_") for i in walker.instrs[b.start : b.end])
    ]
    assert stores
    block = stores[0]
    steps = []
    walker.sim.step = lambda ins, stack: steps.append(ins)  # type: ignore[method-assign]
    assert walker._pure(block.id, block.start, []) is None
    assert walker._pure_chain(block.id, block.start, []) is None
    assert steps == []
    round_trip(BRANCH_MAKING_STATEMENTS)


# a ternary operand whose call spreads arguments (3.12+: the argument tuple is made by
# CALL_INTRINSIC_1 INTRINSIC_LIST_TO_TUPLE, an intrinsic that computes a value), stored before a test
TERNARY_WITH_SPREAD_CALL = """
def f(self, path, paths, g, h):
    self.raw = g(path, *paths) if paths else +path
    if not h(self.raw):
        raise TypeError(self.raw)
    self.done = False
"""


def test_ternary_operand_with_a_value_intrinsic_is_a_value():
    round_trip(TERNARY_WITH_SPREAD_CALL)


# a branch of an if holding a for statement, then an else: no ternary's branch (nothing adds an item
# to a comprehension in it), and one whose value is an inlined comprehension (3.12+)
BRANCHES_HOLDING_LOOPS = """\
def loop_statement(items, seen, done):
    if items:
        for item in items:
            seen.add(item)
    else:
        done()
    for item in seen:
        done(item)


def comprehension_value(ready, strict, left, right):
    return ready and ([k for k in left] == right if strict else left is right) and ready.x
"""


@pytest.mark.parametrize("name", ["loop_statement", "comprehension_value"])
def test_branch_walked_as_a_value_only_where_a_comprehension_adds_items(name, monkeypatch):
    """A ternary's first branch is walked as a side run (it holds a loop) only where it can be a
    value: before 3.12 comprehensions are functions of their own, and from 3.12 on the loop
    of a comprehension inlined there adds each item (a ``for`` statement's never does). The
    branch of an if holding a for statement is walked once, for real."""
    from uncompile.structure.pure_blocks import PureBlocks

    walked = []
    real = PureBlocks._walked_to

    def side_run(self, *args):  # type: ignore[no-untyped-def]
        walked.append(args[0])
        return real(self, *args)

    monkeypatch.setattr(PureBlocks, "_walked_to", side_run)
    round_trip(BRANCHES_HOLDING_LOOPS, name)
    inlined = sys.version_info >= (3, 12) and name == "comprehension_value"
    assert bool(walked) == inlined


BLOCKS_WITH_A_STORE_INSIDE = """\
def f(a, b, c):
    if a:
        x = b
        if x.y(c):
            return c
    if b.get(x for x in c):
        return b
    return a
"""


def test_statement_free_blocks_are_read_from_any_of_their_instructions():
    """A block holding a store before its last test is no piece of a value (the store, not its
    last instructions, says so); one testing a call with a generator expression can be one."""
    from snippets import define

    from uncompile.structure.definitions import Nested
    from uncompile.structure.walker import Walker

    code = define(BLOCKS_WITH_A_STORE_INSIDE).__code__
    walker = Walker(code, Nested(code))
    instrs = walker.instrs
    store = next(i for i in instrs if i.op == "STORE_FAST" and i.arg == "x")
    block = walker.blocks[walker.block_of[store.index]]
    assert walker._statement_free(block.id, block.start) is False
    assert walker._statement_free(block.id, store.index + 1) is True  # past the store: the test
    # (3.15 moves the generator expression's GET_ITER into its code)
    call = next(b for b in walker.blocks if any(i.op == "MAKE_FUNCTION" for i in instrs[b.start : b.end]))
    assert walker._statement_free(call.id, call.start) is True
    round_trip(BLOCKS_WITH_A_STORE_INSIDE)


def test_a_failed_tentative_run_leaves_the_displays_on_the_stack_as_they_were():
    import ast

    from uncompile.structure.pure_blocks import display_sizes, restore_displays

    mapping = ast.Dict(keys=[ast.Constant("a")], values=[ast.Constant(1)])
    items = ast.List(elts=[ast.Constant(2)], ctx=ast.Load())
    sizes = display_sizes([ast.Name("x", ast.Load()), mapping, items])
    mapping.keys.append(ast.Constant("b"))
    mapping.values.append(ast.Constant(3))
    items.elts.append(ast.Constant(4))
    restore_displays(sizes)
    assert [k.value for k in mapping.keys] == ["a"] and [v.value for v in mapping.values] == [1]
    assert [e.value for e in items.elts] == [2]


STATEMENTS_BEFORE_A_VALUE = """\
def f(a, b):
    a.x = b
    a.y = b
    a.z = b
    return a
"""


def test_a_side_walk_for_a_value_ends_at_its_first_statement():
    """A walk that is to give one value (a ternary's branch, an operand holding a value of its
    own) gives none as soon as it makes a statement: the code after that is not walked."""
    from snippets import define

    from uncompile.structure.context import Context
    from uncompile.structure.definitions import Nested
    from uncompile.structure.walker import Walker

    code = define(STATEMENTS_BEFORE_A_VALUE).__code__
    walker = Walker(code, Nested(code))
    shared = walker.sim._handlers
    executed = []

    class Counted(dict):
        def __missing__(self, op):
            def handler(sim, ins, stack, run=shared[op]):
                executed.append(ins.op)
                return run(sim, ins, stack)

            self[op] = handler
            return handler

    walker.sim._handlers = Counted()
    assert walker._walked_to(0, Context(), [], len(walker.instrs)) is None
    assert executed.count("STORE_ATTR") == 1  # the first statement ended the walk
    walker.sim._handlers = shared
    assert walker.sim.out == [] and walker.exit is None
    round_trip(STATEMENTS_BEFORE_A_VALUE)
