"""Tests of uncompile.structure.bottom_tested_loops: while loops whose test is copied to the bottom."""

from __future__ import annotations

import pytest
from snippets import round_trip, with_known_failures

from uncompile.verification import verify_code


def else_continues_outer_loop(rows, limit):
    out = []
    for row in rows:
        i = 0
        while i < len(row):
            if row[i] > limit:
                break
            i += 1
        else:
            out.append("all")
            continue
        out.append(i)
    return out


def test_else_ending_with_continue_of_the_enclosing_loop_keeps_its_break():
    # the else ends with a written continue; the break jumps past it to the rest of the outer body
    result = verify_code(else_continues_outer_loop.__code__)
    assert result.identical, (result.difference, result.error, result.source)
    assert result.source is not None and "break" in result.source and "else:" in result.source


WHILE_ELSE_ENDING_AN_ENCLOSING_LOOP = """\
def in_for(prefix, table):
    for i in range(1, len(prefix)):
        k = table[i - 1]
        while prefix[i] != prefix[k]:
            if k == 0:
                table[i] = 0
                break
            k = table[k - 1]
        else:
            table[i] = k + 1
    return table


def in_while(stack, found):
    while True:
        print(stack)
        while stack:
            if found(stack):
                break
            stack.pop()
        else:
            break
    return stack
"""


@pytest.mark.parametrize(
    "name",
    [
        "in_for",
        "in_while",
    ],
)
def test_while_else_ending_the_enclosing_loop_body(name):
    """``break`` out of a while loop that ends an enclosing loop's body goes to that loop's next
    iteration, past the ``else``; it is no jump into the enclosing loop's header."""
    namespace: dict = {}
    exec(compile(WHILE_ELSE_ENDING_AN_ENCLOSING_LOOP, "<test>", "exec", dont_inherit=True), namespace)
    result = verify_code(namespace[name].__code__)
    assert result.identical, (result.difference, result.source)


def try_body_breaks_in_bottom_tested_while(items, a, b, c):
    while items:
        try:
            a(items.pop())
            break
        except ValueError:
            c(b)
    return items


def test_a_try_body_ending_in_break_is_part_of_the_loop():
    # 3.10: the body reaches the copied test only by an exception, yet lies inside the loop
    result = verify_code(try_body_breaks_in_bottom_tested_while.__code__)
    assert result.identical, (result.difference, result.error, result.source)


BODY_STARTS_WITH_A_LOOP = """\
def endless_loop_first(items, take):
    while items:
        while True:
            if take():
                break
        items.pop()


def else_breaks_the_inner_loop(items, stack, take):
    while items:
        while True:
            while stack:
                if take():
                    break
            else:
                break
        items.pop()


def try_in_the_innermost_loop(items, stack, take):
    while items:
        while True:
            while stack:
                try:
                    take()
                    break
                except LookupError:
                    stack.pop()
            else:
                break


def in_a_for_loop(items, stack, take):
    for item in items:
        while True:
            if item:
                return item
            while stack:
                try:
                    item = take()
                    break
                except LookupError:
                    stack.pop()
            else:
                break
    return None
"""


_LOST_ENDLESS_LOOP = (
    "the endless loop whose body is a while loop with ``else: break`` is lost (3.8, 3.9: the "
    "while test is not copied; 3.14+: a try in the inner loop), with the inner loop's break"
)


@pytest.mark.parametrize(
    "name",
    with_known_failures(
        ["endless_loop_first", "else_breaks_the_inner_loop", "try_in_the_innermost_loop", "in_a_for_loop"],
        {
            "try_in_the_innermost_loop": ({(3, 8), (3, 9), (3, 14), (3, 15)}, _LOST_ENDLESS_LOOP),
            "in_a_for_loop": ({(3, 8), (3, 9)}, _LOST_ENDLESS_LOOP),
        },
    ),
)
def test_body_starting_with_a_loop_of_its_own(name):
    """3.11+: ``while a: while True: ...``: the outer loop's copied test and the inner loop both
    jump back to the inner loop's start (the no-op between the two is not read); a while loop's
    ``else: break`` goes to the outer loop's copied test or next iteration."""
    namespace: dict = {}
    exec(compile(BODY_STARTS_WITH_A_LOOP, "<test>", "exec", dont_inherit=True), namespace)
    result = verify_code(namespace[name].__code__)
    assert result.identical, (result.difference, result.error, result.source)


# tests that go to no loop's header (ifs: some negated where they fall into the body), and a
# guarded loop whose test and guard make one chain (3.10 - 3.13 copy the loop's test to the bottom)
TESTS_OF_IFS_AND_LOOPS = """\
def ifs(a, b, out):
    if a and not b:
        out.append(a)
    if not a or b:
        out.append(b)
    return out


def guarded_loop(a, b, items, out):
    if a and b.ready:
        while items and items[-1]:
            out.append(items.pop())
    return out
"""


def test_only_tests_leaving_to_a_loop_header_are_read_as_a_copied_loop_test(monkeypatch):
    """A bottom-tested loop's test goes to the loop's body (a loop header), or leaves to it when
    inverted: tests without such an exit (most ``if`` tests) are no copy of one, known before
    their nodes are reduced or the test is negated."""
    import uncompile.structure.bottom_tested_loops as bottom_tested_loops

    negated, reduced = [], []
    negate, reduce_nodes = bottom_tested_loops.negate, bottom_tested_loops.reduce_nodes

    def counted_negate(expr):  # type: ignore[no-untyped-def]
        negated.append(expr)
        return negate(expr)

    def counted_reduce(nodes, *args):  # type: ignore[no-untyped-def]
        reduced.append(len(nodes))
        return reduce_nodes(nodes, *args)

    monkeypatch.setattr(bottom_tested_loops, "negate", counted_negate)
    monkeypatch.setattr(bottom_tested_loops, "reduce_nodes", counted_reduce)
    round_trip(TESTS_OF_IFS_AND_LOOPS, "ifs")
    assert not negated and not reduced
    result = round_trip(TESTS_OF_IFS_AND_LOOPS, "guarded_loop")
    assert "while items and items[-1]:" in result.source


# a while loop ending a for loop's body, whose ``continue`` goes back to its test at the top and
# whose ``break`` jumps straight back to the for's header; 3.12 - 3.13 invert the test there (it
# jumps into the body and falls through to a lone jump back to the for)
WHILE_ENDING_A_FOR_BODY_WITH_CONTINUE_AND_BREAK = {
    "break": """
def f(niter, ntries, G, d):
    for i in niter:
        while n < ntries:
            if d:
                continue
            if G:
                break
            n += 1
    return G
""",
    "break_in_an_else": """
def f(niter, ntries, G, c, d):
    for i in niter:
        while n < ntries:
            if d:
                continue
            if G:
                if c:
                    G.r()
                else:
                    break
            n += 1
    return G
""",
    "break_as_the_last_statement": """
def f(niter, ntries, G, d):
    for i in niter:
        while n < ntries:
            if d:
                continue
            if G:
                break
    return G
""",
    # (3.10 - 3.13 lost the else, or ran the rest of the body inside the if)
    "break_in_the_else_of_the_body": """
def f(niter, ntries, G, c, d):
    for i in niter:
        while n < ntries:
            if d:
                continue
            if c:
                G.r()
            else:
                break
            n += 1
    return G
""",
}


@pytest.mark.parametrize(
    "name",
    with_known_failures(
        WHILE_ENDING_A_FOR_BODY_WITH_CONTINUE_AND_BREAK,
        {
            "break_in_the_else_of_the_body": (
                {(3, 8), (3, 9)},
                "3.8 - 3.9: the if's test jumps to the loop's exit, past the dead break of its else:"
                " the rest of the body is written in the if, with a continue",
            )
        },
    ),
)
def test_while_ending_a_for_body_with_continue_and_break(name: str) -> None:
    # the continue jumps back to the test at the top, the body's end to its copy at the bottom:
    # that copy's jump back to the body's start is the next iteration, not a path to an else
    round_trip(WHILE_ENDING_A_FOR_BODY_WITH_CONTINUE_AND_BREAK[name])


def test_continue_to_the_top_test_and_break_in_an_else():
    # (no enclosing loop: 3.11 - 3.13 lost the else, its break run after the if)
    result = round_trip(
        """
def f(ntries, G, c, d):
    while n < ntries:
        if d:
            continue
        if G:
            if c:
                G.r()
            else:
                break
        n += 1
    return G
"""
    )
    assert "else:" in result.source


def while_else_continue_in_try_finally(queue, log, stop):
    while queue:
        try:
            while stop:
                if queue.pop() == stop:
                    break
                log(stop)
            else:
                continue
            break
        finally:
            log(None)
    return 2


def test_an_else_continuing_through_a_finally_keeps_its_break():
    # the else is a copy of the finally body, then the jump back (3.8: CALL_FINALLY, then the jump):
    # a continue whose line comes before the copy's (the break became pass, the else was lost)
    result = verify_code(while_else_continue_in_try_finally.__code__)
    assert result.identical, (result.difference, result.error, result.source)
    assert result.source is not None and "break" in result.source and "continue" in result.source
