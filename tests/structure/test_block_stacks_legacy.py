"""The block stack of 3.8 - 3.10 code (``uncompile.structure.block_stacks_legacy``)."""

from __future__ import annotations

import sys

import pytest


@pytest.mark.skipif(not (3, 8) <= sys.version_info[:2] < (3, 11), reason="the block stack is 3.8 - 3.10's")
def test_block_stack_before_each_instruction():
    """The block stack before each instruction, straight runs followed without the work list:
    a ``SETUP_*`` pushes its block for the next instruction and its handler's for the handler,
    ``POP_BLOCK`` pops it, and every instruction reached has one."""
    from snippets import define

    from uncompile.structure.definitions import Nested
    from uncompile.structure.walker import Walker

    code = define(
        "def f(items, lock):\n"
        "    for item in items:\n"
        "        try:\n"
        "            with lock:\n"
        "                item.run()\n"
        "        except ValueError:\n"
        "            continue\n"
        "        finally:\n"
        "            item.close()\n"
        "    return items\n"
    ).__code__
    walker = Walker(code, Nested(code))
    stacks = walker.block_stacks()
    instrs = walker.instrs
    assert stacks[0] == ()
    setups = [ins for ins in instrs if ins.op in ("SETUP_FINALLY", "SETUP_WITH")]
    assert len(setups) >= 3
    for ins in setups:
        here = stacks[ins.index]
        kind = "with" if ins.op == "SETUP_WITH" else "try"
        assert stacks[ins.index + 1] == here + ((kind, ins.index),)
        handler = walker.cfg.index_for(ins.target)
        assert stacks[handler][:-1] == here and stacks[handler][-1][1] == handler
    for ins in instrs:
        if ins.op == "POP_BLOCK" and stacks[ins.index] is not None:
            assert stacks[ins.index + 1] == stacks[ins.index][:-1]
    assert stacks[-1] == ()  # the final return, after the loop


@pytest.mark.skipif(not (3, 8) <= sys.version_info[:2] < (3, 11), reason="the block stack is 3.8 - 3.10's")
def test_block_stacks_read_only_when_asked():
    """Setting up the walk of code without a ``try``/``with`` reads no block stacks (3.10 links the
    copies of a finally body's ``RERAISE`` from them: only code with a finally needs them then);
    the set-ups are the instructions that end graph blocks."""
    from snippets import define

    from uncompile.structure.definitions import Nested
    from uncompile.structure.walker import Walker

    plain = define(
        "def f(items):\n    for item in items:\n        if item:\n            return item\n"
    ).__code__
    walker = Walker(plain, Nested(plain))
    assert walker._legacy_stacks is None and walker._legacy_setups == []
    guarded = define(
        "def g(lock, item):\n"
        "    with lock:\n"
        "        try:\n"
        "            item.run()\n"
        "        finally:\n"
        "            item.close()\n",
        "g",
    ).__code__
    walker = Walker(guarded, Nested(guarded))
    assert [ins.op for ins in walker._legacy_setups] == ["SETUP_WITH", "SETUP_FINALLY"]


@pytest.mark.skipif(not (3, 8) <= sys.version_info[:2] < (3, 11), reason="the block stack is 3.8 - 3.10's")
def test_block_stacks_without_set_ups_are_reachability():
    """Without ``SETUP_*`` every block stack is empty where the code is reached, and None in the
    dead code 3.8 - 3.9 keep (here after a loop that never ends): read from the graph, as the
    full walk of the instructions gives them."""
    from snippets import define

    from uncompile.structure.block_stacks_legacy import LegacyBlockStacks
    from uncompile.structure.definitions import Nested
    from uncompile.structure.walker import Walker

    code = define(
        "def f(items):\n"
        "    while True:\n"
        "        for item in items:\n"
        "            if item:\n"
        "                return item\n"
        "    return None\n"
    ).__code__
    walker = Walker(code, Nested(code))
    stacks = walker.block_stacks()
    assert set(stacks) <= {(), None} and stacks[0] == ()
    if sys.version_info < (3, 10):
        assert stacks[-1] is None  # the dead ``return None`` after the endless loop
    walker._legacy_stacks, walker._legacy_setups = None, [None]  # the full walk, for the comparison
    assert LegacyBlockStacks.block_stacks(walker) == stacks


@pytest.mark.skipif(not (3, 8) <= sys.version_info[:2] < (3, 11), reason="the block stack is 3.8 - 3.10's")
def test_code_without_set_ups_is_known_from_its_raw_opcodes():
    """Whether code may push a block is read once from its raw opcodes: none in code without a
    ``try``/``with`` (an operand equal to a ``SETUP_*`` opcode is no set-up), one in each of
    the others (an ``async for``'s ``SETUP_FINALLY`` too, a conservative yes); the walk of code
    without one links no handlers and skips the set-up work."""
    import dis

    from snippets import define

    from uncompile.structure.block_stacks_legacy import has_block_setups
    from uncompile.structure.definitions import Nested
    from uncompile.structure.walker import Walker

    opcode = dis.opmap["SETUP_FINALLY"]
    names = ", ".join("a%d" % k for k in range(opcode + 1))  # LOAD_FAST with SETUP_FINALLY's opcode
    plain = define("def f(%s):\n    if a0:\n        return a%d\n    return a0\n" % (names, opcode)).__code__
    assert opcode in plain.co_code[1::2] and not has_block_setups(plain)
    assert Walker(plain, Nested(plain))._legacy_setups == []
    for source in (
        "def f(a):\n    try:\n        a()\n    except E:\n        pass\n",
        "def f(a):\n    try:\n        a()\n    finally:\n        a()\n",
        "def f(a):\n    with a:\n        a()\n",
        "async def f(a):\n    async with a:\n        a()\n",
        "async def f(a):\n    async for x in a:\n        a(x)\n",
    ):
        assert has_block_setups(define(source).__code__), source
