"""Behaviour: try/except/else/finally with ``as``, nesting, raise ... from, assert, except*.

PYTEST_DONT_REWRITE: pytest must not rewrite the asserts of these cases (their bytecode is the input).
"""

from __future__ import annotations

import contextlib

import pytest

from uncompile.verification.behaviour import Cases

cases = Cases()

#: Cases that cannot pass yet, with the versions where they fail (see conftest.py).
EXPECTED_FAILURES: dict = {
    "if_then_break_in_a_clause_in_a_loop_in_a_with": (
        {(3, 10)},
        "3.10: the break ending the outer except clause is lost (the clause falls out of the try)",
    ),
}


@cases((0,), (1,), ("x",))
def try_except_else_finally(value):
    log = []
    try:
        result = 10 / value
    except ZeroDivisionError as error:
        log.append(type(error).__name__)
        result = None
    except (TypeError, ValueError):
        log.append("type")
        result = -1
    else:
        log.append("else")
    finally:
        log.append("finally")
    return result, log


@cases((0,), (2,))
def nested_try(value):
    try:
        try:
            if value:
                raise KeyError(value)
            return "no error"
        finally:
            value += 1
    except KeyError as error:
        return "caught %r %d" % (error.args, value)


@cases((1,), (-1,))
def raise_from(value):
    try:
        try:
            if value < 0:
                raise ValueError("negative")
            return value
        except ValueError as error:
            raise RuntimeError("wrapped") from error
    except RuntimeError as error:
        return repr(error.__cause__)


@cases((1,), (-1,))
def assert_statement(value):
    assert value > 0, "must be positive"
    assert value
    return value


@cases(
    ([1, 0, 2],),
)
def break_and_continue_in_try(values):
    out = []
    for value in values:
        try:
            if value == 0:
                continue
            if value == 2:
                break
            out.append(1 / value)
        finally:
            out.append("f")
    return out


@cases((0,), (3,))
def return_in_finally_path(value):
    try:
        if value:
            return "early"
    finally:
        value = -1
    return value


@cases((True,), (False,))
def bare_except_and_reraise(fail):
    try:
        try:
            if fail:
                raise OSError(2, "missing")
        except:  # noqa: E722
            raise
    except OSError as error:
        return error.errno
    return 0


@cases((True,), (False,))
def finally_around_finally_around_if(stream):
    # 3.12+: the inner try's cleanup, cold code, comes after the outer finally's normal copy
    log = ["acquire"]
    try:
        try:
            if stream:
                try:
                    log.append("flush")
                finally:
                    log.append("closed")
        finally:
            log.append("close")
    finally:
        log.append("release")
    return log


@cases(([[1, 2], [3]], 9), ([[1, 2], [3]], 2), ([], 0))
def break_after_for_else_continue_in_try_finally(tasks, stop):
    log = []
    for taskseq in tasks:
        try:
            for task in taskseq:
                if task == stop:
                    break
                log.append(task)
            else:
                continue
            break
        finally:
            log.append(None)
    return log


@cases(([[1, 2], [3]], 9), ([[1, 2], [3]], 2), ([], 0))
def return_after_for_else_continue_in_try_finally(tasks, stop):
    log = []
    for taskseq in tasks:
        try:
            for task in taskseq:
                if task == stop:
                    break
                log.append(task)
            else:
                continue
            return log
        finally:
            log.append(None)
    return None


@cases(([3, 2], 5), ([3, 1], 2), ([], 1))
def while_else_continue_in_try_finally(queue, stop):
    log, queue = [], list(queue)
    while queue:
        try:
            n = queue.pop()
            while n:
                if n == stop:
                    break
                log.append(n)
                n -= 1
            else:
                continue
            break
        finally:
            log.append(None)
    return log


@cases((True,), (False,))
def with_ending_in_return_or_raise_in_try_finally(done):
    log = []
    try:
        with contextlib.suppress(KeyError):
            if done:
                return log
            else:
                raise TimeoutError()
    finally:
        log.append("finally")
    return None


@cases(([1, 2],), ([1, "x", 3],), ([],))
def if_then_break_in_a_clause_in_a_loop_in_a_with(items):
    log, failed = [], False
    source = iter(items)
    with contextlib.suppress(KeyError):
        while True:
            try:
                try:
                    entry = next(source)
                except StopIteration:
                    break
                if isinstance(entry, str):
                    raise OSError(entry)
            except OSError as error:
                if items:
                    log.append(str(error))
                failed = True
                break
            log.append(entry)
    return log, failed


@cases(([1, (2,), 0, 4],), ([],))
def continue_from_a_clause_in_a_while_generator(items):
    stack = list(items)
    while stack:
        top = stack.pop()
        if isinstance(top, tuple):
            yield top
            continue
        try:
            found = 10 // top
        except ZeroDivisionError:
            continue
        yield found


@cases(("1",), ("x",))
def finally_ending_try_body_before_return(value):
    # 3.10: the finally handler, laid out after the copy of the return, was lost
    log = []
    try:
        try:
            log.append(int(value))
        finally:
            log.append("finally")
    except ValueError:
        log.append("error")
    return log


@cases(("1",), ("x",))
def clause_ending_try_body_before_return(value):
    # 3.10: the except clause, laid out after the copy of the return, was lost
    log = []
    try:
        try:
            log.append(int(value))
        except ValueError as error:
            log.append(len(error.args))
            raise
    except ValueError:
        log.append("error")
    return log


@cases(([0, 1], True), ([0], True), ([0], False))
def return_in_loop_then_return_in_if_in_try(values, more):
    # 3.10: the return in the loop, read as a copy of the if's return after it, became a break,
    # and what follows the if was lost
    try:
        for value in values:
            if value:
                yield value
                return
        if more:
            yield "more"
            return
        yield "after"
    except ValueError:
        yield "error"


@cases(([1, 0, "x"], 0), ([0, 2], 5), ([], 1))
def branches_go_on_from_except_clauses_in_loop(values, other):
    # each branch of the if goes on after it only from an except clause or an elif that does not
    # continue (3.10 structured the code after the if into both branches)
    log = []
    for value in values:
        if value:
            try:
                log.append(10 // value)
                continue
            except TypeError:
                log.append("type")
        elif other:
            log.append(other)
            continue
        log.append("after")
    return log


@cases((["1", "x", "2"],), ([],))
def clause_continues_past_else_in_if(values):
    # 3.10: the clause's jump to the next iteration, where the if ends, was no continue:
    # the else ran after the clause
    log = []
    for value in values:
        if value:
            try:
                number = int(value)
            except ValueError:
                log.append("error")
            else:
                log.append(number)
    return log


cases.from_source(
    (3, 11),
    "def except_star(n):\n"
    "    seen = []\n"
    "    try:\n"
    "        raise ExceptionGroup('g', [ValueError(n), TypeError(n)])\n"
    "    except* ValueError as group:\n"
    "        seen.append(len(group.exceptions))\n"
    "    except* TypeError:\n"
    "        seen.append('type')\n"
    "    return seen\n",
    "except_star",
    (1,),
)
cases.from_source(
    (3, 14),
    "def except_without_parentheses(n):\n"
    "    try:\n"
    "        return 1 / n\n"
    "    except ZeroDivisionError, TypeError:\n"
    "        return None\n",
    "except_without_parentheses",
    (0,),
    (2,),
)


@pytest.mark.parametrize("name,function,calls", cases.items, ids=cases.ids())
def test_exceptions(name, function, calls, behaves_the_same):
    behaves_the_same(function, calls)
