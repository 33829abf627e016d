"""Behaviour: coroutines, await, async for, async with, async comprehensions, async generators.

PYTEST_DONT_REWRITE: pytest must not rewrite the asserts of these cases (their bytecode is the input).
"""

from __future__ import annotations

import asyncio

import pytest

from uncompile.verification.behaviour import Cases

cases = Cases()


class AsyncRange:
    def __init__(self, n):
        self.n = n

    def __aiter__(self):
        self.i = 0
        return self

    async def __anext__(self):
        if self.i >= self.n:
            raise StopAsyncIteration
        self.i += 1
        await asyncio.sleep(0)
        return self.i


class AsyncContext:
    def __init__(self, log):
        self.log = log

    async def __aenter__(self):
        self.log.append("enter")
        return self

    async def __aexit__(self, *exc):
        self.log.append("exit")
        return False


@cases(
    (2,),
)
async def awaiting(n):
    await asyncio.sleep(0)
    values = []
    for i in range(n):
        values.append(await asyncio.sleep(0, result=i))
    return values


@cases(
    (3,),
)
async def async_for_and_with(n):
    log = []
    async with AsyncContext(log) as context:
        async for value in AsyncRange(n):
            if value == 2:
                continue
            log.append(value)
        else:
            log.append("else")
    return log, context is not None


@cases(
    (4,),
)
async def async_comprehensions(n):
    squares = [value * value async for value in AsyncRange(n) if value % 2]
    awaited = [await asyncio.sleep(0, result=i) for i in range(n)]
    return squares, awaited


@cases(
    (3,),
)
async def async_generator(n):
    for i in range(n):
        yield i
        await asyncio.sleep(0)


@cases(
    (4,),
    (0,),
)
async def async_set_dict_and_generator_expressions(n):
    odd = {value async for value in AsyncRange(n) if value % 2}
    squares = {value: value * value async for value in AsyncRange(n)}
    doubled = (value * 2 async for value in AsyncRange(n))
    pairs = [(a, b) async for a in AsyncRange(n) for b in range(a) if b]
    return odd, squares, [item async for item in doubled], pairs


@cases(
    (5, 3),
    (2, 9),
    (3, None),
)
async def async_for_break_and_try(n, stop):
    seen = []
    async for value in AsyncRange(n):
        if value == stop:
            break
        try:
            seen.append(10 // (value - 2))
        except ZeroDivisionError:
            seen.append("zero")
            continue
        seen.append(value)
    try:
        async for value in AsyncRange(stop or 0):
            seen.append(value - n)
    except TypeError:
        seen.append("failed")
    return seen


@cases(
    (4,),
    (1,),
)
async def async_generator_over_async_for(n):
    log = []
    async with AsyncContext(log):
        async for value in AsyncRange(n):
            received = yield value
            if received is not None:
                return
            yield [await asyncio.sleep(0, result=value + i) for i in range(value)]
    yield log


@pytest.mark.parametrize("name,function,calls", cases.items, ids=cases.ids())
def test_async(name, function, calls, behaves_the_same):
    behaves_the_same(function, calls)
