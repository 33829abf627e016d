"""Handler spans: a region goes on over the body of a nested try that follows its own
instructions, and leaves out the exits of nested clauses (with the clear of their ``as`` name);
each snippet comes back with the same bytecode."""

from __future__ import annotations

import pytest

from uncompile.verification import verify_code

# 3.12+ leave the nested try's set-up uncovered, and its body falls through to the with's exit
TRY_AFTER_STATEMENT_IN_WITH = """
def f(lock, first, second, recover, done):
    with lock:
        first()
        try:
            second()
        except ValueError:
            recover()
    done()
"""

TRY_AFTER_STATEMENT_IN_TRY = """
def f(first, second, recover, done):
    try:
        first()
        try:
            second()
        except ValueError:
            recover()
    except KeyError:
        pass
    done()
"""

# the exit of ``except ... as name`` that returns (``name = None; del name``) is no part of the
# with's body
RETURN_FROM_NAMED_CLAUSE_IN_WITH = """
def f(lock, load, key):
    with lock:
        try:
            load(key)
        except LookupError as error:
            return error.args
    return load(None)
"""

# the copy of the finally body on the continue's path jumps back to the loop's header: its test
# is inverted over a jump back (3.12+: also the copy on the normal exit at the loop's end)
CONTINUE_THROUGH_FINALLY_WITH_IF = """
def f(items, a, b, c):
    for x in items:
        try:
            if a(x):
                continue
        finally:
            if c:
                b()
"""

CONTINUE_THROUGH_FINALLY_WITH_IF_IN_WHILE = """
def f(items, a, b, c):
    while items:
        try:
            if a(items.pop()):
                continue
        finally:
            if not c:
                b()
    return 1
"""

# 3.11+: an empty finally body leaves a handler that only re-raises; it is no except clause
FINALLY_PASS = """
def f(items, check, report):
    for item in items:
        try:
            try:
                check(item)
            except ValueError as error:
                report(error)
        finally:
            pass
    try:
        check(None)
    finally:
        pass
    return len(items)
"""

# 3.9 - 3.10: on the return's path the copy of the finally body ends in the return itself where
# the body's own try jumps to its end
RETURN_THROUGH_FINALLY_WITH_TRY = """
def f(self, wait):
    done = False
    try:
        done = wait()
        return done
    finally:
        self.restore()
        if not done:
            try:
                self.remove()
            except ValueError:
                pass
"""

SNIPPETS = {
    "return_through_finally_with_try": RETURN_THROUGH_FINALLY_WITH_TRY,
    "continue_through_finally_with_if": CONTINUE_THROUGH_FINALLY_WITH_IF,
    "continue_through_finally_with_if_in_while": CONTINUE_THROUGH_FINALLY_WITH_IF_IN_WHILE,
    "finally_pass": FINALLY_PASS,
    "try_after_statement_in_with": TRY_AFTER_STATEMENT_IN_WITH,
    "try_after_statement_in_try": TRY_AFTER_STATEMENT_IN_TRY,
    "return_from_named_clause_in_with": RETURN_FROM_NAMED_CLAUSE_IN_WITH,
}


@pytest.mark.parametrize("name", sorted(SNIPPETS))
def test_recompiles_identically(name):
    result = verify_code(compile(SNIPPETS[name], "<test>", "exec", dont_inherit=True))
    assert result.identical, (str(result), result.source)
