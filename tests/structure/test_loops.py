"""Loops whose body holds a try: back edges and exits that go through an except clause (3.11+).

Each function recompiles to identical bytecode; on 3.8 - 3.10 (no exception table) they are
checked the same way, since the constructs exist there too.
"""

from __future__ import annotations

import sys

import pytest

from uncompile.decompiler import decompile_code
from uncompile.verification import verify_code


def break_from_except(source, sink):
    while True:
        try:
            item = source.get()
        except LookupError:
            break
        if item is not None:
            sink.append(item)
    sink.append(None)


def break_from_except_in_with(lock, source, sink, flag):
    with lock:
        if flag:
            while True:
                try:
                    item = source.get()
                except LookupError:
                    break
                sink.append(item)
        sink.append(None)


def break_from_try_body(read, done):
    while True:
        line = read()
        try:
            int(line)
            break
        except ValueError:
            pass
    done()


def except_continue_then_more(names, cache, stat):
    for name in names:
        entry = cache[name]
        if entry is None:
            continue
        try:
            size = stat(name)
        except OSError:
            cache.pop(name)
            continue
        if size != entry:
            cache.pop(name)


def except_if_else_at_loop_end(items, out, quiet):
    for item in items:
        try:
            out.append(int(item))
        except ValueError as error:
            if quiet:
                out.append(None)
            else:
                out.append(str(error))


def while_test_with_except(expected, actual):
    missing = []
    while expected:
        item = expected.pop()
        try:
            actual.remove(item)
        except ValueError:
            missing.append(item)
    return missing, actual


def retry_until_break(pairs, table, tail):
    for key, value in pairs:
        while True:
            try:
                if key is None:
                    table[value] = 1
                else:
                    tail.append(key)
            except IndexError:
                if len(table) < 4:
                    table.append(0)
                    continue
                tail.append(value)
            break


def with_in_endless_loop(manager, lock, poll):
    with manager:
        while True:
            with lock:
                if poll():
                    return True
                poll()
            poll()


CASES = [
    break_from_except,
    break_from_except_in_with,
    break_from_try_body,
    except_continue_then_more,
    except_if_else_at_loop_end,
    while_test_with_except,
    retry_until_break,
    with_in_endless_loop,
]


_LEGACY_OPEN = (
    {break_from_try_body, while_test_with_except}
    if sys.version_info[:2] == (3, 10)
    else {break_from_try_body}
)


@pytest.mark.parametrize("function", CASES, ids=lambda f: f.__name__)
def test_recompiles_identically(function):
    if sys.version_info < (3, 11) and function in _LEGACY_OPEN:
        pytest.xfail("3.8 - 3.10: %s is not structured like the source yet" % function.__name__)
    result = verify_code(function.__code__)
    assert result.identical, (result.difference, result.error, result.source)


class _Source:
    def __init__(self, items):
        self.items = list(items)

    def get(self):
        return self.items.pop(0)


def test_break_from_except_behaves_the_same():
    namespace: dict = {}
    exec(decompile_code(break_from_except.__code__), namespace)
    for function in (break_from_except, namespace["break_from_except"]):
        sink: list = []
        function(_Source([1, None, 2]), sink)
        assert sink == [1, 2, None]
