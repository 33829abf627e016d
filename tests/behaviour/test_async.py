"""Behaviour: coroutines, await, async for, async with, async comprehensions, async generators.

PYTEST_DONT_REWRITE: pytest must not rewrite the asserts of these cases (their bytecode is the input).
"""

from __future__ import annotations

import asyncio

import pytest

from uncompile.verification.behaviour import Cases

cases = Cases()

#: Cases that cannot pass yet, with the versions where they fail (see conftest.py).
EXPECTED_FAILURES = {
    "async_for_and_with": (
        {(3, 8), (3, 9), (3, 10), (3, 11), (3, 12), (3, 13), (3, 14), (3, 15)},
        "async for is not decompiled yet",
    ),
    "async_comprehensions": (
        {(3, 8), (3, 9), (3, 10), (3, 11), (3, 12), (3, 13), (3, 14), (3, 15)},
        "async comprehensions (async for) are not decompiled yet",
    ),
    "async_generator": (
        {(3, 11), (3, 12), (3, 13), (3, 14), (3, 15)},
        "async generators (ASYNC_GEN_WRAP; 3.12+: INTRINSIC_ASYNC_GEN_WRAP) are not decompiled yet",
    ),
}


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


@pytest.mark.parametrize("name,function,calls", cases.items, ids=cases.ids())
def test_async(name, function, calls, behaves_the_same):
    behaves_the_same(function, calls)
