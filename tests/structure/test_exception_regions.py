"""Exception regions on 3.11+: a try/with body that is a loop, and ``else`` after an except that exits."""

import queue

import pytest

from uncompile.decompiler import decompile_code
from uncompile.verification import verify_code


def try_around_while_true(q, size):
    try:
        while True:
            q.get(block=False)
    except queue.Empty:
        pass
    out = []
    for i in range(size):
        out.append(i)
    return out


def with_around_while(lock, items):
    with lock:
        while items:
            items.pop()
    return items


def else_after_returning_except(registry, key, box):
    try:
        del registry[key]
    except KeyError:
        pass
    else:
        box[0] = box[1] = None


class _Lock:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


CASES = [try_around_while_true, with_around_while, else_after_returning_except]


def _run(function, namespace):
    if function is try_around_while_true:
        q = queue.Queue()
        for k in range(3):
            q.put(k)
        return namespace[function.__name__](q, 4), q.qsize()
    if function is with_around_while:
        return namespace[function.__name__](_Lock(), [1, 2, 3])
    results = []
    for registry in ({"k": 1}, {}):
        box = [1, 2]
        results.append((namespace[function.__name__](registry, "k", box), registry, box))
    return results


@pytest.mark.parametrize("function", CASES, ids=lambda f: f.__name__)
def test_recompiles_identically(function):
    result = verify_code(function.__code__)
    assert result.identical, (result.difference, result.error, result.source)


@pytest.mark.parametrize("function", CASES, ids=lambda f: f.__name__)
def test_behaves_the_same(function):
    namespace: dict = {"queue": queue}
    exec(decompile_code(function.__code__), namespace)
    assert _run(function, namespace) == _run(function, {function.__name__: function})
