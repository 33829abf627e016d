"""``async for`` headers read as ``FOR_ITER`` loops (``uncompile.bytecode.awaits``): the neutral
instructions, the exception entries left, and loops that decompile to identical bytecode."""

from __future__ import annotations

import pytest
from snippets import define, round_trip

from uncompile.bytecode.awaits import ASYNC
from uncompile.bytecode.exception_table import exception_handlers
from uncompile.bytecode.instructions import read_instructions

ASYNC_FOR = """
async def f(items):
    async for item in items:
        use(item)
    return 1
"""


def test_header_is_one_async_for_iter():
    code = define(ASYNC_FOR).__code__
    instrs = read_instructions(code)
    ops = [ins.op for ins in instrs]
    assert "GET_ANEXT" not in ops and "END_ASYNC_FOR" not in ops and "CLEANUP_THROW" not in ops
    (header,) = [ins for ins in instrs if ins.op == "FOR_ITER"]
    assert header.arg == ASYNC
    back = [ins for ins in instrs if ins.op == "JUMP" and ins.target == header.offset]
    assert back, "the body jumps back to the header"
    after = next(ins for ins in instrs if ins.offset == header.target)
    assert after.op == "LOAD_CONST" and after.arg[0] == 1  # the loop's exit is the code after it
    # no handler is left for the END_ASYNC_FOR: the header is covered as a plain loop's is
    kept = {ins.offset for ins in instrs}
    assert all(entry.target in kept for entry in exception_handlers(code, instrs))


LOOPS = {
    "else": """
async def f(items):
    async for item in items:
        use(item)
    else:
        done()
    return 1
""",
    "break": """
async def f(items):
    async for item in items:
        if item:
            break
        use(item)
    return 1
""",
    "continue": """
async def f(items):
    async for item in items:
        if item:
            continue
        use(item)
""",
    "nested": """
async def f(rows, cols):
    async for row in rows:
        async for col in cols:
            use(row, col)
        for other in row:
            use(other)
""",
    "in_try": """
async def f(items):
    try:
        async for item in items:
            use(item)
    except ValueError:
        failed()
""",
    "try_in_body": """
async def f(items):
    async for item in items:
        try:
            use(item)
        except ValueError:
            continue
        done()
""",
    "return_in_try_finally": """
async def f(items):
    try:
        async for item in items:
            if item:
                return item
    finally:
        done()
""",
    "in_with": """
async def f(items, manager):
    with manager:
        async for item in items:
            use(item)
""",
    "in_async_with": """
async def f(items, manager):
    async with manager as log:
        async for item in items:
            if item == 2:
                continue
            log.append(item)
        else:
            log.append(0)
    return log
""",
    "async_with_in_body": """
async def f(items, manager):
    async for item in items:
        async with manager(item) as value:
            use(value)
""",
    "await_in_body": """
async def f(items):
    total = 0
    async for item in items:
        total += await item
    return total
""",
}


@pytest.mark.parametrize("source", LOOPS.values(), ids=list(LOOPS))
def test_async_for_recompiles_identically(source):
    result = round_trip(source)
    assert result.source is not None and "async for " in result.source


AWAITS = {
    # 3.12+: each await's CLEANUP_THROW jumps back to the end of its send loop; kept, that jump
    # would join the code after the await (here the while test copied to the bottom)
    "while_await": """
async def f(ready, step):
    while await ready():
        step()
    return 1
""",
    "await_in_try": """
async def f(job, log):
    try:
        value = await job()
    except ValueError:
        value = await log()
    return value
""",
    "await_in_condition": """
async def f(check, a, b):
    return a if await check(a) else await check(b)
""",
}


def test_await_is_one_instruction():
    code = define(AWAITS["while_await"]).__code__
    instrs = read_instructions(code)
    ops = [ins.op for ins in instrs]
    assert "AWAIT" in ops  # (3.10 - 3.13 copy the test to the bottom: twice)
    assert not {"SEND", "END_SEND", "YIELD_VALUE", "CLEANUP_THROW"} & set(ops)
    kept = {ins.offset for ins in instrs}
    assert all(entry.target in kept for entry in exception_handlers(code, instrs))


@pytest.mark.parametrize("source", AWAITS.values(), ids=list(AWAITS))
def test_awaits_recompile_identically(source):
    result = round_trip(source)
    assert result.source is not None and result.source.count("await ") == source.count("await ")
