"""Jumps the compiler replaced by a copy of the small exit they go to: ``break`` out of a
``for`` or ``while`` loop, a ternary inside a returned expression."""

import contextlib

import pytest
from snippets import decompiled

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
