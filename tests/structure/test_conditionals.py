"""Conditions and boolean values of several tests (``uncompile.structure.conditionals``, with
the pieces :mod:`uncompile.structure.pure_blocks` evaluates)."""

from __future__ import annotations

import pytest
from snippets import round_trip

CHAINS_AFTER_OTHER_TESTS = {
    # the chain's last test falls through to a copy of the body's return (3.10+)
    "or_then_chain": """
        def f(x, a, b, c):
            if x or a < b < c:
                return 1
            return 2
    """,
    "and_chain_or": """
        def f(a, b, c, d, e):
            if a and b < c < d or e:
                return 1
            return 2
    """,
    "not_of_or_chain": """
        def f(x, a, b, c, y):
            if not (x or a < b < c):
                y = 1
            return y
    """,
    # the chain's last test jumps to a block that only jumps on to the body
    "in_a_loop": """
        def f(items, a, c):
            for item in items:
                if item or a < item < c:
                    g(item)
    """,
    # the chain's cleanup jumps on to the next iteration just before the kept item (3.12+)
    "in_a_comprehension": """
        def f(items, a, c):
            return [item for item in items if item or a < item < c]
    """,
    "assert": """
        def f(x, a, b, c, message):
            assert x or a < b < c, message
    """,
    "chain_then_statements": """
        def f(x, a, b, c):
            if x and a <= b < c:
                x = g(x)
            else:
                x = h(x)
            return x
    """,
}


@pytest.mark.parametrize("name", sorted(CHAINS_AFTER_OTHER_TESTS))
def test_chain_after_other_tests_in_a_condition(name: str) -> None:
    result = round_trip(CHAINS_AFTER_OTHER_TESTS[name])
    assert result.source is not None and " < c" in result.source


CHAIN_VALUES_AFTER_OTHER_TESTS = {
    # the chain's value is tested again by the ``or`` (3.14+ send ``a``'s false value past it)
    "and_chain_or": "def f(a, b, c, d, e):\n    return a and b < c < d or e\n",
    "or_chain_and": "def f(x, a, b, c, y):\n    return (x or a < b < c) and y\n",
    "between_tests": "def f(x, a, b, c, y):\n    z = x or a < b < c or y\n    return z\n",
    # the rest of the returned call is copied after the chain (3.10+)
    "call_argument": "def f(x, a, b, c):\n    return g(x and a == b == c, 1)\n",
}


@pytest.mark.parametrize("name", sorted(CHAIN_VALUES_AFTER_OTHER_TESTS))
def test_chain_value_after_other_tests(name: str) -> None:
    round_trip(CHAIN_VALUES_AFTER_OTHER_TESTS[name])


TERNARY_CONDITIONS = """\
def filtered(items):
    return [x for x in items if (x.first if x.second is None else x.second)]


def looped(items, flag):
    for x in items:
        if (x if flag else -x):
            print(x)


def anded(items, flag, other):
    if (items if flag else other) and other:
        return 1
    return 0


def two_ifs(items, flag, first, second):
    for x in items:
        if flag is None:
            if not x.startswith(first):
                continue
        else:
            if not x.startswith(first) and x.endswith(second):
                continue
        print(x)
"""


@pytest.mark.parametrize("name", ["filtered", "looped", "anded", "two_ifs"])
def test_ternary_tested_as_a_condition_stays_one_condition(name):
    """``if (a if c else b):``: the branches' tests jump to the same two blocks (one of them
    by a jump past the other branch); no if statement duplicates the body. An if/else whose
    branches are ``if t: continue`` jumps the same way but past the else to another block."""
    round_trip(TERNARY_CONDITIONS, name)


VALUES_COMPUTED_WHERE_OPERANDS_MEET = """\
def negated_or(a, b, c):
    return a and not (b or c)


def negated_chain(c, low, high):
    return c == low or not (low <= c <= high)


def chains_in_or(c, low, high):
    return c is None or (0 <= c <= low) or (high <= c <= 2 * high)


def negated_or_tested(a, b, c, d):
    x = a and not (b or c) or d
    return x
"""


@pytest.mark.parametrize("name", ["negated_or", "negated_chain", "chains_in_or", "negated_or_tested"])
def test_value_computed_where_inner_operands_meet(name):
    """``a and not (b or c)``: the inner value meets at the ``not``, whose result goes on to the
    outer merge point (or is tested again): one boolean value, not a mix of value and condition."""
    round_trip(VALUES_COMPUTED_WHERE_OPERANDS_MEET, name)


JUMPS_BACK_COPIED_TO_EACH_TEST = {
    # 3.12+: each test that leaves for the next iteration has a jump back of its own, which the
    # test jumps over (conditional jumps only go forward)
    "or_of_and_in_a_loop": """
        def f(items, names, ready):
            for item in items:
                if ready or (item and names):
                    print(item)
    """,
    "or_of_and_in_a_while_loop": """
        def f(items, names):
            while items:
                item = items.pop()
                if item > 3 or (item and names):
                    print(item)
    """,
    "or_of_and_in_a_comprehension": """
        def f(items, names, ready):
            return [item for item in items if ready or (item and names)]
    """,
    "or_of_and_twice_in_a_comprehension": """
        def f(items, known, names):
            return [item for item in items if item not in known or (item in known and item in names)]
    """,
    # the first test's jump back, on its line, is the compiler's: the condition goes on past it
    # (the ``not`` is kept: ``t not in a`` would be another CONTAINS_OP)
    "not_of_or_in_a_loop": """
        def f(items, a, b, out):
            for t in items:
                if not (t in a or t in b):
                    out.append(t)
                out.append(a)
    """,
    "not_of_or_in_a_comprehension": """
        def f(items, a, b):
            return [t for t in items if not (t in a or t in b)]
    """,
    "not_of_or_of_identities_in_a_comprehension": """
        def f(items, a, b):
            return [t for t in items if not (t is a or t is b)]
    """,
}


@pytest.mark.parametrize("name", sorted(JUMPS_BACK_COPIED_TO_EACH_TEST))
def test_condition_whose_jump_back_is_copied_to_each_test(name: str) -> None:
    result = round_trip(JUMPS_BACK_COPIED_TO_EACH_TEST[name])
    # one condition (3.14+ may print the tests of ``not (a or b)`` as ``not a and not b``)
    assert result.source is not None and (" or " in result.source or " and " in result.source)
    assert "continue" not in result.source, result.source


RETURNS_COPIED_TO_EACH_TEST = {
    # 3.10+: the tests that skip the body each jump to a copy of the function's return None
    "or_of_and": (
        """
        def f(a, b, c, out):
            if a or (b and c):
                out.append(a)
        """,
        "if a or b and c:",
    ),
    "and_of_or": (
        """
        def f(a, b, c, out):
            if a and (b or c):
                out.append(a)
        """,
        "if a and (b or c):",
    ),
    "written_return": (
        """
        def f(a, b, c, out):
            out.clear()
            if not (a or (b and c)):
                out.append(b)
            return out
        """,
        "if not a and (not b or not c):",
    ),
    "ending_an_else": (
        """
        def f(x, a, b, c, out):
            if x:
                out.append(x)
            else:
                if a or (b and c):
                    out.append(a)
        """,
        "if a or b and c:",
    ),
    # 3.11+: the handlers are laid out after the copies
    "after_a_try": (
        """
        def f(a, b, c, out):
            try:
                out.append(1)
            except KeyError:
                pass
            if a or (b and c):
                out.append(3)
        """,
        "if a or b and c:",
    ),
}


@pytest.mark.parametrize("name", sorted(RETURNS_COPIED_TO_EACH_TEST))
def test_condition_whose_exit_is_copied_to_each_test(name: str) -> None:
    source, line = RETURNS_COPIED_TO_EACH_TEST[name]
    result = round_trip(source)
    assert line in result.source, result.source


#: A condition inside a branch whose tests each jump to a copy of the function's final return:
#: the copies are the branch's returns, not one exit (the conditions keep their own copies).
RETURNS_COPIED_INSIDE_BRANCHES = {
    "and_not_in_elif_chain": """
        def f(x, a, b, out):
            if x == 1:
                out.append(1)
            elif x == 2:
                if a and not b:
                    out.append(3)
            elif x == 3:
                out.append(4)
            else:
                raise ValueError(x)
    """,
    # 3.11+: the second test is inside a try, the first before it: no one condition
    "test_inside_a_try_after_a_test": """
        def f(a, b, out):
            if a is not None:
                try:
                    if b(a) == out:
                        out = a
                except ValueError:
                    pass
            return out
    """,
    "and_inside_nested_ifs_with_else": """
        def f(a, b, c, d, out):
            if a:
                if b:
                    out.append(1)
                    if c and d:
                        out.append(2)
            else:
                out.append(3)
    """,
}


@pytest.mark.parametrize("name", sorted(RETURNS_COPIED_INSIDE_BRANCHES))
def test_condition_inside_a_branch_keeps_its_copied_returns(name: str) -> None:
    round_trip(RETURNS_COPIED_INSIDE_BRANCHES[name])


TERNARIES_INSIDE_AND = {
    # the ternary's first branch holds a loop (an inlined comprehension, 3.12+)
    "branch_with_a_loop": """
        def f(ready, strict, left, right):
            return ready and ([k for k in left] == right if strict else left is right) and ready.x
    """,
    # the compiler copies the return into the ternary's first branch
    "branch_returns_a_copy": """
        def f(ready, strict, left, right):
            return ready and (left if strict else right)
    """,
    # the operand compares two ternaries: it tests again after the first one's merge
    "two_ternaries_compared": """
        def f(ready, left, right):
            return ready and ((tuple(left) if left else None) == (tuple(right) if right else None))
    """,
}


@pytest.mark.parametrize("name", sorted(TERNARIES_INSIDE_AND))
def test_ternary_operand_of_and(name: str) -> None:
    result = round_trip(TERNARIES_INSIDE_AND[name])
    assert result.source is not None and " if " in result.source and " and " in result.source


TERNARY_BRANCHES_HOLDING_BOOLEAN_VALUES = {
    # the ``or`` jumps straight to the jump past the second branch, the end of the first
    "or_as_first_branch": """
        def f(c, num):
            y = (c or num) if num else 1
            return y
    """,
    "or_as_first_branch_in_a_loop": """
        def f(c):
            for num in c:
                y = (c or num) if num else 1
    """,
    # the first branch computes with the value where its operands meet: walked whole
    "call_of_or_as_first_branch": """
        def f(c, num):
            y = g(c or num) if num else 1
            return y
    """,
    "call_of_and_as_first_branch_in_a_loop": """
        def f(c):
            for num in c:
                y = g(c and num, h(num or c)) if num in c else 1
                g(y)
    """,
    "both_branches_hold_values": """
        def f(a, b, c):
            y = g(a or b) if c else g(b and a)
            return y
    """,
    # the first branch computes with the value where its operands meet, then jumps past the second
    "operation_on_or_as_first_branch": """
        def f(x, y):
            z = (x or y) + 1 if x else 0
            return z
    """,
    "operation_on_a_ternary_as_first_branch": """
        def f(x, y, n):
            z = (x if n else y) + 1 if x else 0
            return z
    """,
    # ... as an argument of a call, the attribute (subscript) of the operands' meeting point
    "attribute_of_or_as_first_branch_in_a_call": """
        def f(g, x, c, y):
            return g(x, (x or c).real if c else y)
    """,
    "attribute_of_and_as_first_branch_in_a_call": """
        def f(g, x, c, y):
            return g(x, (x and c).real if c else y)
    """,
    "subscript_of_or_as_first_branch_in_a_call": """
        def f(g, x, c, y):
            return g(x, (x or c)[0] if c else y)
    """,
    "attribute_of_or_as_first_branch_in_a_call_stored": """
        def f(g, x, c, y):
            r = g(x, (x or c).real if c else y)
            return r
    """,
    "comparison_of_a_ternary_as_first_branch_in_a_loop": """
        def f(xs, n):
            for x, y in xs:
                z = (x if n else y) is not None if x else not (x if n else y)
            return z
    """,
    # the first branch's ``or`` starts with a named expression: its store is part of the value
    "or_of_a_named_expression_as_first_branch": """
        def f(k):
            z = (val := k) or val if k else k
            return z
    """,
    "or_of_a_call_of_a_named_expression_in_a_comprehension": """
        def f(xs, o):
            return [o(val := k) or val if k else k for k in xs]
    """,
    "named_expressions_in_both_branches_and_the_test_of_a_dict_comprehension": """
        def f(graphs, o, l):
            return {
                o.add(val := k[:-1]) or val
                if (last := k[-1]) == "?"
                else l.add(val := k[1:-1]) or val
                if last == "]"
                else k: v
                for k, v in graphs.items()
            }
    """,
    "comparison_of_a_ternary_as_first_branch_in_a_comprehension": """
        def f(args, kwargs, m, n):
            return any(
                (args[p] if n > p else kwargs.get(a)) is not None
                if not a.startswith("not ")
                else not (args[p] if n > p else kwargs.get(a[4:], True))
                for a, p in m.items()
            )
    """,
}


@pytest.mark.parametrize("name", sorted(TERNARY_BRANCHES_HOLDING_BOOLEAN_VALUES))
def test_ternary_whose_first_branch_holds_a_boolean_value(name: str) -> None:
    result = round_trip(TERNARY_BRANCHES_HOLDING_BOOLEAN_VALUES[name])
    assert result.source is not None and " if " in result.source and " else " in result.source


# 3.10 - 3.11: the tests are on lines of their own, so the jump back at the loop's bottom keeps a
# line (and a block) of its own: all tests but the last go there, the last jumps back itself
CONDITION_OVER_LINES_IN_A_LOOP = """
def f(items, r):
    for k, v in items:
        if (
            (not isinstance(v, list) and v is not None)
            or (isinstance(v, list) and len(v) > 0)
        ):
            r[k] = v
    return {
        k: v
        for k, v in items
        if (
            (not isinstance(v, list) and v is not None)
            or (isinstance(v, list) and len(v) > 0)
        )
    }
"""


def test_condition_over_lines_leaving_for_the_next_iteration_is_one_condition() -> None:
    from snippets import define

    from uncompile.verification import verify_code

    function = define(CONDITION_OVER_LINES_IN_A_LOOP)
    result = verify_code(function.__code__)
    # (one line each: the recompiled tests jump back directly, so the bytecode may differ)
    assert result.error is None and result.source is not None, result
    assert result.source.count(" or ") == 2, result.source
    again = uncompile_recompiled(function)
    for items in ([("a", 1), ("b", None), ("c", []), ("d", [1])], []):
        assert again(items, {}) == function(items, {})


def uncompile_recompiled(function):  # type: ignore[no-untyped-def]
    import types

    import uncompile

    return types.FunctionType(uncompile.recompile(function.__code__), function.__globals__)


PASS_THEN_ELIF = {
    # 3.8 - 3.10: the ``pass`` is a lone jump past the elif, to where the elif's test goes too
    "elif_raises": """
        def f(key, known, value):
            if key in {"a", "b"}:
                pass
            elif key not in known:
                raise AttributeError(key)
            if not value:
                raise TypeError(key)
            return value
    """,
    "elif_returns_after": """
        def f(key, known):
            if key in known:
                pass
            elif key:
                known.append(key)
            return key
    """,
}


@pytest.mark.parametrize("name", sorted(PASS_THEN_ELIF))
def test_pass_then_elif_keeps_the_test(name: str) -> None:
    result = round_trip(PASS_THEN_ELIF[name])
    # (3.10+ may copy the return after the if into the first branch: ``if key in known: return key``)
    assert result.source is not None and ("pass" in result.source or name != "elif_raises"), result.source
