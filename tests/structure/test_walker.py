"""Control-flow structuring: real functions come back with the same statements and behaviour."""

from __future__ import annotations

import ast
import sys

import pytest
from snippets import decompiled, round_trip

from uncompile.decompiler import decompile_to_ast
from uncompile.errors import DecompileError
from uncompile.structure.context import Context
from uncompile.verification import verify_code


def chained(x, lo, hi):
    if lo < x <= hi:
        return "in"
    return "out" if x < lo else "above"


def nested_loops(rows):
    found = []
    for row in rows:
        for cell in row:
            if cell is None:
                continue
            if cell < 0:
                break
            found.append(cell)
        else:
            found.append("end")
    return found


def guarded(values):
    total = 0
    for value in values:
        try:
            total += int(value)
        except ValueError:
            continue
        finally:
            total += 1000
    return total


def walrus_and_swap(items):
    a, b = 1, 2
    if (n := len(items)) > 1:
        a, b = b, a
    return n, a, b


def return_from_third_nested_clause(text, parse):
    # the value returned from the inner try's body is swapped under each enclosing clause's
    # exception before its POP_EXCEPT: the stack is as deep as before, and holds the value
    try:
        return parse(text)
    except ValueError:
        try:
            return parse(text.strip())
        except ValueError:
            try:
                return parse(text + "0")
            except ValueError:
                return text


CASES = [chained, nested_loops, guarded, walrus_and_swap, return_from_third_nested_clause]
INPUTS = {
    return_from_third_nested_clause: [("1", int), (" 2 ", int), ("", int), ("x", int)],
    chained: [(1, 0, 2), (-1, 0, 2), (5, 0, 2)],
    nested_loops: [([[1, None, 2], [3, -1, 4]],), ([],)],
    guarded: [(["1", "x", "3"],), ([],)],
    walrus_and_swap: [([1, 2, 3],), ([],)],
}


@pytest.mark.parametrize("function", CASES, ids=lambda f: f.__name__)
def test_recompiles_identically(function):
    result = verify_code(function.__code__)
    assert result.identical, (result.difference, result.error, result.source)


@pytest.mark.parametrize("function", CASES, ids=lambda f: f.__name__)
def test_behaves_the_same(function):
    again = decompiled(function)
    for args in INPUTS[function]:
        assert again(*args) == function(*args)


def test_loops_and_handlers_keep_their_shape():
    tree = decompile_to_ast(guarded.__code__)
    kinds = {type(node).__name__ for node in ast.walk(tree)}
    assert {"For", "Try", "Continue", "AugAssign"} <= kinds


RETURNS_FROM_WITH = """\
def returns_in_try(opener):
    try:
        with opener() as handle:
            return handle.read()
    except OSError:
        pass


def returns_under_if(opener):
    try:
        with opener() as handle:
            data = handle.read()
            if data:
                return data.strip()
    except OSError:
        pass
"""


@pytest.mark.parametrize(
    "name, line", [("returns_in_try", "return handle.read()"), ("returns_under_if", "return data.strip()")]
)
def test_return_from_a_with_body_inside_try(name, line):
    namespace: dict = {}
    exec(compile(RETURNS_FROM_WITH, "<test>", "exec", dont_inherit=True), namespace)
    result = verify_code(namespace[name].__code__)
    assert result.identical, result
    assert result.source is not None and line in result.source


BOOLEAN_VALUES = """\
def and_or_subscript(table, flag):
    return table[flag and 'on' or 'off']


def and_or_operand(owner, name):
    return (owner and owner.name or '') + '-' + name


def or_lambda(holder, check=None):
    holder.check = check or (lambda item: True)


def comprehension_or_none(holder, items, end):
    holder.items = {key: str(value) for key, value in items.items()} if items else None
    holder.end = end


def value_tested_again(a, b, c, d):
    result = a or b and (c and d or fallback())
    return result
"""


@pytest.mark.parametrize(
    "name", ["and_or_subscript", "and_or_operand", "or_lambda", "value_tested_again", "comprehension_or_none"]
)
def test_boolean_values_of_and_or_and_lambda(name):
    namespace: dict = {}
    exec(compile(BOOLEAN_VALUES, "<test>", "exec", dont_inherit=True), namespace)
    result = verify_code(namespace[name].__code__)
    assert result.identical, result


CONTINUE_FROM_WITH = """\
def in_with(paths, opener, out):
    for path in paths:
        with opener(path) as handle:
            if not path:
                continue
            out.append(handle)


def in_with_in_try(paths, opener, out):
    for path in paths:
        try:
            with opener(path) as handle:
                if not handle:
                    continue
                out.append(handle)
        except OSError:
            continue
"""


@pytest.mark.parametrize(
    "name",
    ["in_with", "in_with_in_try"],
)
def test_continue_from_a_with_body_calls_its_exit_and_stays_a_continue(name):
    namespace: dict = {}
    exec(compile(CONTINUE_FROM_WITH, "<test>", "exec", dont_inherit=True), namespace)
    result = verify_code(namespace[name].__code__)
    assert result.identical, result
    assert result.source is not None and "continue\n" in result.source and "else" not in result.source


# the return leaves two with blocks (the value goes under each exit) and runs a copy of the
# finally, whose own try is laid out in blocks of its own
RETURN_THROUGH_WITHS_AND_FINALLY = """\
def f(outer, inner, run, paths):
    try:
        with outer as handle, inner:
            return run(handle).copy()
    finally:
        try:
            paths.remove(handle)
        except ValueError:
            pass
"""


def test_return_through_withs_and_a_finally_with_a_try_keeps_its_value():
    result = verify_code(compile(RETURN_THROUGH_WITHS_AND_FINALLY, "<test>", "exec", dont_inherit=True))
    assert result.identical, result
    assert result.source is not None and "return run(handle).copy()" in result.source


def break_from_loop_in_try(items, stop, seen):
    try:
        for item in items:
            if item == stop:
                break
            seen.append(item)
    except TypeError:
        seen.append("failed")
    return seen


def test_break_where_the_loop_and_the_try_body_end():
    # the loop's exit is where the try body ends (3.8/3.9: its POP_BLOCK, 3.11: past the
    # handler's range): a jump there from inside the loop is a break, not the body's end
    again = decompiled(break_from_loop_in_try)
    for args in (([1, 2, 3], 2), ([1, 2], 5), (None, 1)):
        assert again(*args, []) == break_from_loop_in_try(*args, [])
    result = verify_code(break_from_loop_in_try.__code__)
    assert result.source is not None and "break" in result.source
    if sys.version_info < (3, 12):  # 3.12+ copy the return into the break
        assert result.identical, (result.difference, result.error, result.source)


def test_only_instructions_a_check_can_stop_at_are_checked():
    """Outside finally copies, the walk asks whether a with-exit call or a copy starts only
    where one can: at ``LOAD_CONST None`` (what those start with) or (3.11+) ``LIST_APPEND``,
    never at another constant."""
    from snippets import define

    from uncompile.structure.definitions import Nested
    from uncompile.structure.walker import Walker

    code = define("def f(a):\n    b = a + 1\n    c = [b, 'x', 2.5]\n    return c, None\n").__code__
    walker = Walker(code, Nested(code))
    asked = []
    plain = walker.skip_copies
    walker.skip_copies = lambda i, ctx, stack: asked.append(walker.instrs[i]) or plain(i, ctx, stack)  # type: ignore[method-assign]
    walker.run()
    assert all(ins.op != "LOAD_CONST" or ins.arg[0] is None for ins in asked)


def _asked_loads(source: str) -> list:
    """The ``LOAD_CONST`` instructions the walk of ``f`` in *source* asks skip_copies about."""
    from snippets import define

    from uncompile.structure.definitions import Nested
    from uncompile.structure.walker import Walker

    code = define(source).__code__
    walker = Walker(code, Nested(code))
    asked = []
    plain = walker.skip_copies
    walker.skip_copies = lambda i, ctx, stack: asked.append(walker.instrs[i]) or plain(i, ctx, stack)  # type: ignore[method-assign]
    walker.run()
    return [ins for ins in asked if ins.op == "LOAD_CONST"]


NONES_AROUND_A_WITH_AND_A_CLAUSE = """
def f(m, g):
    x = None
    g(None, x)
    with m as v:
        if v is None:
            return None
        g(None)
    try:
        g(x)
    except ValueError as e:
        g(e, None)
    return x
"""


def test_none_is_checked_only_after_a_with_or_in_an_except_as_clause():
    # ``LOAD_CONST None`` starts a with's exit call, which only a with entered before can need,
    # or an ``except ... as name`` clause's cleanup of its name: the walk asks nowhere else
    assert _asked_loads("def f(g):\n    x = None\n    g(None, x)\n    return None\n") == []
    assert _asked_loads(NONES_AROUND_A_WITH_AND_A_CLAUSE)
    round_trip(NONES_AROUND_A_WITH_AND_A_CLAUSE)


def _attributes_outside_slots(code) -> set:
    """The names a walk of *code* left in an instance dict of its walker, simulator or call
    builder, rather than in their slots (the graph and the computation order have no dict)."""
    from uncompile.structure.definitions import Nested
    from uncompile.structure.walker import Walker

    walker = Walker(code, Nested(code))
    try:
        walker.run()
    except DecompileError:
        pass  # (what was set up to the error counts the same)
    parts = (walker, walker.sim, walker.sim.calls)
    return {"%s.%s" % (type(part).__name__, name) for part in parts for name in getattr(part, "__dict__", {})}


def test_walkers_keep_every_attribute_in_slots():
    # a slot is found faster than an instance dict's entry on 3.8 - 3.10 (as fast on 3.11+); the
    # mixins have no slots, so an attribute left out of a __slots__ still works, in a dict: none is
    from snippets import stdlib_code_objects

    sources = [
        "def f(a):\n    return a + 1\n",
        "def f(a):\n    try:\n        a()\n    except E as e:\n        pass\n    finally:\n        a()\n",
        "def f(a, b):\n    if a and b():\n        return 1\n    return 2\n",
        "def f(a):\n    import os.path as p\n    from x import y\n    with a as b, p:\n        return y\n",
        "def f(a):\n    while a:\n        for x in a:\n            if x:\n                break\n"
        "        else:\n            continue\n",
    ]
    left = set()
    walked = 0
    for source in sources:
        code = next(c for c in compile(source, "<slots>", "exec").co_consts if hasattr(c, "co_code"))
        left |= _attributes_outside_slots(code)
    for _, code in stdlib_code_objects(40):
        left |= _attributes_outside_slots(code)
        walked += 1
    assert walked > 300  # (the sample holds 600 - 1400 code objects, by version)
    assert left == set()


LOOP_WITH_CALLS_AND_A_COPIED_BREAK = """
def f(items, g):
    g(items)
    for x in items:
        g(x)
        if x:
            g(None)
            break
"""


@pytest.mark.skipif(sys.version_info < (3, 10), reason="3.10+ copy a loop's small exit into its breaks")
def test_pop_top_is_checked_only_in_a_loop_block_that_ends_the_function(monkeypatch):
    # a ``POP_TOP`` (the iterator's, a call's value) starts a copied break only where the loop's
    # exit was copied: in a block of a loop that ends the function; elsewhere it is only executed
    from snippets import define

    from uncompile.flow.cfg import ENDS_PATH
    from uncompile.structure import walker as walker_module
    from uncompile.structure.definitions import Nested

    code = define(LOOP_WITH_CALLS_AND_A_COPIED_BREAK).__code__
    walker = walker_module.Walker(code, Nested(code))
    asked = []
    plain = walker_module.is_copied_break
    monkeypatch.setattr(
        walker_module, "is_copied_break", lambda w, i, ctx, stack: asked.append(i) or plain(w, i, ctx, stack)
    )
    walker.run()
    ends = [walker.instrs[walker.blocks[walker.block_of[i]].end - 1].op for i in asked]
    assert asked and all(op in ENDS_PATH for op in ends)
    pops = [ins.index for ins in walker.instrs if ins.op == "POP_TOP"]
    assert len(pops) > len(asked)
    round_trip(LOOP_WITH_CALLS_AND_A_COPIED_BREAK)


def test_walk_and_run_block_unpack_the_context_in_its_field_order():
    # walk and run_block take the context's fields by one unpacking, by position: a field moved
    # or added must be moved or added there too
    assert Context._fields == (
        "stops",
        "lo",
        "hi",
        "loop",
        "active",
        "finally_bodies",
        "region",
        "until",
        "except_name",
    )
