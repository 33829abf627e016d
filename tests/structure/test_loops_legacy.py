"""Loop layout rules of 3.8 - 3.10 (``uncompile.structure.loops_legacy``).

Every case must decompile and recompile to identical bytecode on every version.
"""

from __future__ import annotations

import pytest
from snippets import round_trip, with_known_failures

CASES = {
    # 3.8 - 3.9 keep the statements after a loop that never ends, unreachable
    "statements_after_endless_loop": """
        def f(read, g, caps):
            while 1:
                key = read()
                if not key:
                    continue
                g(key)
            return caps
    """,
    # a continue ending the body keeps the loop's own jump back after it, dead
    "continue_ending_body": """
        def f(read, g):
            for key in read():
                g(key)
                continue
    """,
    # 3.8 - 3.9: a body that never reaches its end keeps the loop's jump back and the break
    # before it, both dead; the test of the if before the break, threaded past it to the loop's
    # exit, is no ``while`` test (it was written ``while c: return 1``)
    "break_after_an_if_that_returns": """
        def f(x):
            while True:
                if x:
                    return 1
                break
            return 2
    """,
    "break_after_an_if_of_two_tests_that_returns": """
        def f(x, y):
            while True:
                if x and y:
                    return 1
                break
            return 2
    """,
    # 3.8 - 3.9: a body that never reaches its end keeps no jump back at all after a return:
    # the loop is where the breaks (absolute jumps forward) jump out of (its body was written
    # as the statements alone, the break as the end of an if or a pass, the code after the
    # loop dropped)
    "break_in_an_except_clause_and_no_jump_back": """
        def f(x, y):
            while True:
                try:
                    y()
                except ValueError:
                    break
                return 1
            return 2
    """,
    "break_in_an_if_and_no_jump_back": """
        def f(x):
            while True:
                if x:
                    break
                return 1
            return 2
    """,
    "break_in_an_if_and_no_jump_back_ending_a_for_body": """
        def f(x, y):
            for a in x:
                while True:
                    if a:
                        break
                    return 1
                y()
            return 2
    """,
    "break_in_an_if_and_no_jump_back_inside_an_if": """
        def f(x, c):
            if c:
                x()
                while True:
                    try:
                        x()
                    except ValueError:
                        break
                    return 1
                x(2)
            return 2
    """,
    "break_after_an_if_that_returns_ending_a_for_body": """
        def f(x, y):
            for a in x:
                while True:
                    if a:
                        return 1
                    break
                y()
            return 2
    """,
}


#: 3.11 keeps the NOP of a ``while True`` line whose loop has no jump back, before a try's own
_LOST_LOOP_NOP = ({(3, 11)}, "3.11: the loop without a jump back leaves only its NOP, which is not read")
NOT_YET = {
    "break_in_an_except_clause_and_no_jump_back": _LOST_LOOP_NOP,
    "break_in_an_if_and_no_jump_back_inside_an_if": _LOST_LOOP_NOP,
}


@pytest.mark.parametrize("name", with_known_failures(CASES, NOT_YET))
def test_round_trip(name: str) -> None:
    round_trip(CASES[name])
