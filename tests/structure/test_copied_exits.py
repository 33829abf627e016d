"""Jumps the compiler replaced by a copy of the small exit they go to: ``break`` out of a
``for`` or ``while`` loop, a ternary inside a returned expression."""

import contextlib
import sys

import pytest
from snippets import decompiled, known_failure, round_trip

from uncompile.verification import verify_code


def break_then_return(items, limit):
    total = 0
    for item in items:
        total += item
        if total >= limit:
            break
    return total


def break_skips_else(left, right):
    for a, b in zip(left, right):
        if a is not b:
            right = tuple(right)
            break
    else:
        right = left
    return right


def break_skips_else_call(items, lookup):
    for item in items:
        name = lookup(item)
        if name:
            break
    else:
        name = "none"
    return len(name)


def return_in_loop(items, wanted):
    for item in items:
        if item == wanted:
            return item
    return wanted


def return_in_loop_then_return_in_if_in_try(items, more):
    # the return in the loop (the iterator popped, then POP_BLOCK; return 1) is no copied break:
    # the same return in the if after the loop is a branch of the code after the loop, not all
    # of it (3.10: read as one, the return became a break and the code after the if was lost)
    try:
        for item in items:
            if item:
                return 1
        if more:
            return 1
        more = int(more) + len(items)
    except ValueError:
        return 3
    return more


def ternary_argument_returned(box, flag):
    if box is None:
        return None
    return box.get("x" if flag else "y")


def ternary_operand_returned(total, flag):
    return total + (1 if flag else -1)


def ternary_in_raise(kind, flag):
    raise ValueError(kind, "a" if flag else "b")


def ternary_returned_from_try(items, flag):
    # the try's range ends before each copy's return: the copies run on into blocks of their own
    try:
        return (len(items), [items[0]] if flag else [])
    except ValueError:
        return None


def while_break_from_clause(items):
    out = []
    while items:
        try:
            value = int(items.pop())
        except ValueError:
            out.append(0)
            break
        out.append(value)
    return items


def while_break_from_named_clause(items):
    while items:
        try:
            value = int(items.pop())
        except ValueError as error:
            if error:
                break
            print(error)
        if value > 1:
            items.append(value - 1)
    return items


def while_break_from_with(items, manager):
    while items:
        with manager:
            if items[-1] == "stop":
                break
            items.pop()
    return items


def while_break_through_finally(items, seen):
    while items:
        try:
            if items[-1] == "stop":
                break
            items.pop()
        finally:
            seen.append(len(items))
    return items


def while_break_from_try_body(items):
    while items:
        try:
            if items[-1] == "stop":
                items.append(1)
                break
            int(items.pop())
        except ValueError:
            items.append("x")
    return items


def chain_ternary_returned(low, value, high):
    # the chain's cleanup falls into the second branch: no copy of a follow
    return "in" if low < value < high else "out"


def chain_ternary_stored(low, value, high):
    where = value if low < value < high else low
    return where


def chain_ternary_argument(low, value, high):
    return str(value if low < value < high else high)


def chain_if_else_then_return(low, value, high, seen):
    if low < value < high:
        seen.append(value)
    else:
        seen.append(low)
    return seen


CASES = [
    chain_ternary_returned,
    chain_ternary_stored,
    chain_ternary_argument,
    chain_if_else_then_return,
    while_break_from_clause,
    while_break_from_named_clause,
    while_break_from_with,
    while_break_through_finally,
    while_break_from_try_body,
    break_then_return,
    break_skips_else,
    break_skips_else_call,
    return_in_loop,
    return_in_loop_then_return_in_if_in_try,
    ternary_argument_returned,
    ternary_operand_returned,
    ternary_in_raise,
    ternary_returned_from_try,
]
INPUTS = {
    chain_ternary_returned: [(1, 2, 3), (1, 0, 3), (1, 5, 3)],
    chain_ternary_stored: [(1, 2, 3), (1, 0, 3), (1, 5, 3)],
    chain_ternary_argument: [(1, 2, 3), (1, 0, 3), (1, 5, 3)],
    chain_if_else_then_return: [(1, 2, 3, []), (1, 0, 3, []), (1, 5, 3, [])],
    while_break_from_clause: [(["1", "x", "2"],), ([],), (["3"],)],
    while_break_from_named_clause: [(["1", "x", "2"],), (["3"],)],
    while_break_from_with: [
        (["stop", "a", "b"], contextlib.nullcontext()),
        (["a"], contextlib.nullcontext()),
    ],
    while_break_through_finally: [(["stop", "a"], []), (["a", "b"], [])],
    while_break_from_try_body: [(["stop", "3"],), (["1", "2"],)],
    break_then_return: [([1, 2, 3], 2), ([], 1), ([1], 5)],
    break_skips_else: [([1, 2], [1, 2]), ([1, 2], [1, 3])],
    break_skips_else_call: [(["", "ab", "c"], str), ([], str), ([""], str)],
    return_in_loop: [([1, 2], 2), ([], 0)],
    return_in_loop_then_return_in_if_in_try: [([0, 1], 0), ([0], "x"), ([0], 0), ([], "")],
    ternary_argument_returned: [({"x": 1}, True), ({"y": 2}, False), (None, True)],
    ternary_operand_returned: [(1, True), (1, False)],
    ternary_in_raise: [("k", True), ("k", False)],
    ternary_returned_from_try: [([1, 2], True), ([1], False)],
}


def _call(function, args):
    try:
        return function(*args)
    except ValueError as error:
        return ("raised", error.args)


@pytest.mark.parametrize("function", CASES, ids=lambda f: f.__name__)
def test_recompiles_identically(function):
    result = verify_code(function.__code__)
    assert result.identical, (result.difference, result.error, result.source)


@pytest.mark.parametrize("function", CASES, ids=lambda f: f.__name__)
def test_behaves_the_same(function):
    again = decompiled(function)
    for args in INPUTS[function]:
        assert _call(again, args) == _call(function, args)


#: an ``if`` whose every branch runs on into the statement that ends the function: 3.10 and 3.12+
#: copy that statement into the branches, printed once after the ``if`` as written (with the
#: text each must print and the statement that stands once)
EXITS_AFTER_IFS = {
    "if_else_then_return": (
        """
        def f(x):
            if x:
                y = abs(x)
            else:
                y = -x
            return y
        """,
        ["else:"],
        "return y",
    ),
    "elif_chain_then_raise": (
        """
        def f(x):
            if x < 0:
                kind = "negative"
            elif x > 0:
                kind = "positive"
            else:
                kind = "zero"
            raise ValueError(kind)
        """,
        ["elif x > 0:", "else:"],
        "raise ValueError(kind)",
    ),
    "elif_without_else_then_return": (
        """
        def f(x):
            s = 0
            if x < 0:
                s = -1
            elif x > 0:
                s = 1
            return s
        """,
        ["elif x > 0:"],
        "return s",
    ),
    "else_holding_a_loop_then_return": (
        """
        def f(x, items):
            if x:
                n = 0
            else:
                n = 1
                for item in items:
                    n += item
            return n
        """,
        ["else:", "for item in items:"],
        "return n",
    ),
    "ternary_stored_then_returned": (
        """
        def f(a, b, c):
            y = a if c else b
            return y
        """,
        ["y = a if c else b"],
        "return y",
    ),
    "nested_ternary_stored_then_returned": (
        """
        def f(a, b, c, d):
            y = a if c else b if d else None
            return y
        """,
        ["y = a if c else b if d else None"],
        "return y",
    ),
    "ternary_stored_in_attribute_then_returned": (
        """
        def f(box, a, c):
            box.value = a if c else 0
            return box
        """,
        ["box.value = a if c else 0"],
        "return box",
    ),
}


@pytest.mark.parametrize("name", sorted(EXITS_AFTER_IFS))
def test_exit_copied_into_branches_stands_once_after_the_if(name):
    source, fragments, exit = EXITS_AFTER_IFS[name]
    result = round_trip(source)
    for fragment in fragments:
        assert fragment in result.source, result.source
    assert result.source.count(exit) == 1, result.source


def test_else_pass_before_a_copied_return_is_kept(request):
    """The body jumps over the ``pass`` (a ``NOP`` of its line) to the return: copied (3.10, 3.12+)."""
    if sys.version_info < (3, 10) or sys.version_info[:2] == (3, 11):
        known_failure(request, "3.8, 3.9, 3.11: the else's NOP before the return after the if is not read")
    result = round_trip(
        """
        def f(c, x):
            if c:
                x = 1
            else:
                pass
            return x
        """
    )
    assert "else:" in result.source and result.source.count("return x") == 1, result.source


def test_implicit_return_copied_into_branches_is_not_printed():
    """The function's own ``return None`` copied into each branch of an if/elif/else at its end
    (3.8 - 3.9: shared by the branches, the last statement)."""
    result = round_trip(
        """
        def f(c, d):
            if c:
                g(c)
            elif d:
                g(d)
            else:
                g(None)
        """
    )
    assert "elif d:" in result.source and "else:" in result.source, result.source
    assert "return" not in result.source, result.source


def test_returns_written_in_each_branch_stay_there():
    """Two ``return y`` of their own (each on its line) are no copies of one: kept as written."""
    result = round_trip(
        """
        def f(x):
            if x:
                y = 1
                return y
            y = 2
            return y
        """
    )
    assert result.source.count("return y") == 2, result.source


def test_bare_returns_written_in_each_branch_in_a_loop_stay_there():
    """Two ``return`` of their own in a for loop (each pops the iterator): no copies of one (3.10
    prints them as ``break``: the implicit return after the loop, copied, compiles alike)."""
    result = round_trip(
        """
        def f(items, c):
            for item in items:
                if item:
                    if c:
                        g(item)
                        return
                    g(None)
                    return
        """
    )
    assert result.source.count("return") + result.source.count("break") == 2, result.source


def _keywords_call(middle: str) -> str:
    """``return g.m(k0=x, ..., s=<middle>, j0=x, ...)``: more keywords than 3.10 passes on the
    stack, so it builds them into a dict one by one (``MAP_ADD``)."""
    before = ", ".join("k%d=x" % i for i in range(10))
    after = ", ".join("j%d=x" % i for i in range(10))
    return "def f(g, x, c):\n    return g.m(%s, s=%s, %s)\n" % (before, middle, after)


@pytest.mark.parametrize("middle", ["None if c else x", "x if c else g(x)"])
def test_ternary_among_many_keywords_whose_rest_is_copied(middle: str) -> None:
    # 3.10 copies the rest of the call and its return to each branch of the ternary (an exit
    # without a line of its own); the first branch jumps to its copy
    result = round_trip(_keywords_call(middle))
    assert result.source is not None and result.source.count("s=") == 1, result.source


# 3.12+: the ternary's branches each end with their own copy of the rest of the f-string (its
# FORMAT_VALUE, BUILD_STRING and the return): the ternary is of what the field formats
TERNARY_FIELDS_OF_A_RETURNED_FSTRING = {
    "plain": "def f(a, c):\n    return f\"x{a} argument{'s' if c else ''}\"\n",
    "with_a_spec": "def f(a, c):\n    return f\"x{a} argument{'s' if c else '':>3}\"\n",
    "with_a_conversion_and_more_after": "def f(a, c):\n    return f\"x{a}{'s' if c else ''!r}{a}\"\n",
    "a_formatted_branch": 'def f(c, x, y):\n    return f"{x}" if c else f"{y!r}"\n',
}


@pytest.mark.parametrize("name", sorted(TERNARY_FIELDS_OF_A_RETURNED_FSTRING))
def test_ternary_field_of_a_returned_fstring(name: str) -> None:
    result = round_trip(TERNARY_FIELDS_OF_A_RETURNED_FSTRING[name])
    assert result.identical, (str(result), result.source)


@pytest.mark.skipif(sys.version_info < (3, 14), reason="t-strings are 3.14+")
def test_ternary_field_of_a_returned_tstring() -> None:
    result = round_trip("def f(a, c):\n    return t\"x{a} argument{'s' if c else ''}\"\n")
    assert result.identical, (str(result), result.source)


#: 16 keywords before the one tested: more than the call passes on the stack, so (3.9+) it builds
#: them into a dict one by one (``MAP_ADD``, then ``CALL_FUNCTION_EX``)
_MANY = ", ".join("a%d=%d" % (i, i) for i in range(1, 17))
_MANY_ITEMS = ", ".join("'a%d': %d" % (i, i) for i in range(1, 17))

# a ternary inside a returned (or raised) expression whose branches test values of their own: each
# branch, and on 3.10 each operand of its ``or``/``and``, ends in its own copy of the rest of the
# expression, or jumps to one laid out after the second branch (3.10: a longer rest)
TERNARIES_WITH_TESTED_BRANCHES = {
    "or_first_among_many_keywords": "return g(%s, s=(x or c) if c else g(x))" % _MANY,
    "plain_among_many_keywords": "return g(%s, s=x if c else y)" % _MANY,
    "and_first_among_many_keywords": "return g(%s, s=(x and c) if c else y)" % _MANY,
    "or_second_among_many_keywords": "return g(%s, s=y if c else (x or c))" % _MANY,
    "in_two_keywords": "return g(%s, s=(x or c) if c else g(x), t=y if x else (c and y))" % _MANY,
    "both_tested_in_two_keywords": "return g(%s, s=(x or c) if c else g(x), t=(x and c) if c else y)" % _MANY,
    "among_many_keywords_and_double_star": "return g(%s, s=(x or c) if c else g(x), **k)" % _MANY,
    "among_many_keywords_after_star": "return g(x, *k, %s, s=(x or c) if c else g(x))" % _MANY,
    "both_tested_before_more_keywords": "return g(%s, s=(x or c) if c else (y and x), t=1, u=2)" % _MANY,
    "or_second_before_more_keywords": "return g(%s, s=y if c else (x or c), t=1, u=2)" % _MANY,
    "compound_test_among_many_keywords": "return g(%s, s=(x or c) if c and y else g(x))" % _MANY,
    "dict_display": "return {%s, 's': (x or c) if c else g(x)}" % _MANY_ITEMS,
    "dict_display_two": "return {%s, 's': x if c else y, 't': (x and c) if c else y}" % _MANY_ITEMS,
    "call_argument": "return g(x, (x or c) if c else g(x))",
    "keyword": "return g(s=(x or c) if c else g(x))",
    "list_display": "return [x, (x or c) if c else g(x)]",
    "or_second": "return g(x, y if c else (x or c))",
    "both_tested": "return g(x, (x or c) if c else (y and x))",
    "nested_ternary_first": "return g(x, (x if y else c) if c else y)",
    "raised": "raise g(x, (x or c) if c else y)",
    "compound_and_test": "return g(x if c and y else c)",
    "compound_or_test": "return g(x if c or y else c)",
    # (no ternary: 3.10 copies the long rest into the ``or``'s last operand)
    "or_before_more_keywords": "return g(%s, s=x or c, t=1, u=2)" % _MANY,
    # 3.10 gives each operand that jumps a copy of the rest of its own (merge points of one value)
    "three_operand_or_among_many_keywords": "return g(%s, s=(x or y or c) if c else g(x))" % _MANY,
    "four_operand_or_among_many_keywords": "return g(%s, s=(x or y or c or k) if c else g(x))" % _MANY,
    "or_of_an_and_among_many_keywords": "return g(%s, s=(x or (y and c)) if c else g(x))" % _MANY,
    "three_operand_and_among_many_keywords": "return g(%s, s=(x and y and c) if c else g(x))" % _MANY,
    "three_operand_or_second_among_many_keywords": "return g(%s, s=g(x) if c else (x or y or c))" % _MANY,
    "three_operand_or_before_more_keywords": "return g(%s, s=(x or y or c) if c else g(x), t=1)" % _MANY,
    "three_operand_or_in_a_dict_display": "return {%s, 's': (x or y or c) if c else g(x)}" % _MANY_ITEMS,
    "three_operand_or_among_many_keywords_no_ternary": "return g(%s, s=x or y or c, t=1, u=2)" % _MANY,
}


@pytest.mark.parametrize("name", sorted(TERNARIES_WITH_TESTED_BRANCHES))
def test_ternary_whose_branches_test_before_their_copies_of_the_rest(name: str) -> None:
    source = "def f(g, x, c, y, k):\n    %s\n" % TERNARIES_WITH_TESTED_BRANCHES[name]
    result = round_trip(source)
    assert result.source is not None and result.source.count("return") + result.source.count("raise") == 1, (
        result.source
    )
    assert result.identical, (str(result), result.source)


@pytest.mark.parametrize("middle", ["(x or c) if c else g(x)", "g(x) if c else (x and c)"])
def test_ternary_testing_a_branch_among_many_keywords_whose_rest_is_copied(middle: str) -> None:
    # the keywords after the ternary make the rest longer: 3.10 copies it for the first
    # branch's jump past the second all the same (a rest without a line of its own)
    result = round_trip(_keywords_call(middle))
    assert result.source is not None and result.source.count("s=") == 1, result.source


# a returned (or raised) ternary whose second branch holds a ternary of its own: that ternary's
# first branch jumps past the second to where they meet, the rest of the branch and the return
# after the outer ternary (3.10, 3.12+ copy the outer ternary's lone return into its first
# branch). The rest was no exit of its own when the jump was made: it is not copied there, as it
# would be for ``if c: return 0`` followed by ``return (a if b else c) + 1``
SECOND_BRANCHES_MEETING_PAST_A_COPY = {
    "operation": "return 0 if x else (x if n else y) + 1",
    "unary": "return 0 if x else -(x if n else y)",
    "attribute": "return 0 if x else (x if n else y).real",
    "nested_in_the_inner_second_branch": "return 0 if x else (x if n else (y if x else n)) + 1",
    "second_ternary_in_the_second_branch": "return 0 if x else 1 if n else (x if y else n) + 1",
    "compound_test": "return 0 if x and n else (x if n else y) + 1",
    "compound_inner_test": "return 0 if x else (x if n and y else y) + 1",
    "raised": "raise (0 if x else (x if n else y) + 1)",
    "longer_rest": "return 0 if x else (x if n else y) + n + y + x + 1",
    "in_a_loop": "for i in y:\n        return 0 if x else (x if n else y) + 1",
    "in_a_try": "try:\n        return 0 if x else (x if n else y) + 1\n    except ValueError:\n        pass",
    "in_a_with": "with y:\n        return 0 if x else (x if n else y) + 1",
}


@pytest.mark.parametrize("name", sorted(SECOND_BRANCHES_MEETING_PAST_A_COPY))
def test_returned_ternary_whose_second_branch_meets_past_a_copy(name: str) -> None:
    result = round_trip("def f(x, n, y):\n    %s\n" % SECOND_BRANCHES_MEETING_PAST_A_COPY[name])
    assert result.identical, (str(result), result.source)


@pytest.mark.parametrize(
    "body",
    [
        "if x:\n        return 0\n    return (x if n else y) + 1",
        "if x:\n        return 0\n    return (x if n else y) + n + y + x + 1",
        "if x:\n        return 0\n    if n:\n        return x + 1\n    return y + 1",
        "if x:\n        return 0\n    return g(n, (x if n else y))",
    ],
)
def test_if_returning_then_a_returned_ternary_stays_an_if(body: str) -> None:
    # the statement after the if, a ternary's rest copied into its first branch (or too long to
    # copy): the code after the if is no second branch of a ternary
    result = round_trip("def f(g, x, n, y):\n    %s\n" % body)
    assert result.identical, (str(result), result.source)
