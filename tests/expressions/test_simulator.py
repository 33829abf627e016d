"""The simulator's ``await`` (``uncompile.expressions.simulator``): an ``async with``'s awaited
exit call and an async comprehension's coroutine have no ``await`` of their own in the source."""

from __future__ import annotations

import pytest
from snippets import round_trip

CASES = {
    # 3.10: the with body ends at its loop's exit, so its exit call is walked with the body
    "loop_in_async_with": """
        async def f(items, manager):
            async with manager as log:
                for item in items:
                    log.append(item)
    """,
    # 3.8: ``WITH_CLEANUP_START`` leaves the exit's result, which is awaited
    "async_with_in_loop": """
        async def f(items, manager):
            for item in items:
                async with manager(item) as value:
                    use(value)
    """,
    "awaited_comprehension": """
        async def f(items):
            return [await item for item in items]
    """,
    "await_of_awaited": """
        async def f(make):
            return await (await make())
    """,
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_awaits_recompile_identically(name: str) -> None:
    source = CASES[name]
    result = round_trip(source)
    assert result.source is not None and result.source.count("await ") == source.count("await ")
