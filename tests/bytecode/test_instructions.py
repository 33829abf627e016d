"""The neutral instruction form: no-ops gone, jumps absolute, superinstructions split."""

from __future__ import annotations

import dis
import inspect
import json
import sys

import pytest
from snippets import known_failure

from uncompile.bytecode import versions as V
from uncompile.bytecode.instructions import read_code_instructions, read_instructions
from uncompile.bytecode.readings import ENDS_PATH
from uncompile.verification import verify_code


def sample(a, b):
    x = a and b
    for item in a:
        if item:
            break
    return x


def test_no_ops_are_dropped_and_offsets_are_real():
    instrs = read_instructions(sample.__code__)
    real = {ins.offset for ins in dis.get_instructions(sample.__code__)}
    assert instrs and all(ins.offset in real for ins in instrs)
    assert not any(ins.op in V.NO_OPS for ins in instrs)
    assert [ins.index for ins in instrs] == list(range(len(instrs)))


def test_jump_targets_are_offsets_of_kept_instructions():
    for function in (sample, json.dumps, inspect.getsource):
        instrs = read_instructions(function.__code__)
        kept = {ins.offset for ins in instrs}
        for ins in instrs:
            if ins.target is not None:
                assert ins.target in kept, (function, ins)


def test_names_are_version_neutral():
    ops = {ins.op for ins in read_instructions(json.dumps.__code__)}
    assert not ops & {
        "LOAD_FAST_LOAD_FAST",
        "RETURN_CONST",
        "JUMP_FORWARD",
        "JUMP_BACKWARD",
        "POP_JUMP_FORWARD_IF_FALSE",
        "JUMP_IF_FALSE_OR_POP",
        "LOAD_METHOD",
    }
    assert "RETURN_VALUE" in ops


def name_loads(a):
    return print(a.attribute, a.method())


def test_name_loads_and_calls_carry_their_flags():
    """``LOAD_GLOBAL``/``LOAD_ATTR`` are ``(name, flag)``: the global pushes a ``NULL`` for the call
    (3.11+), the attribute is a method load (``LOAD_METHOD`` before 3.12, a flag bit after)."""
    loads = [
        ins.arg for ins in read_instructions(name_loads.__code__) if ins.op in ("LOAD_GLOBAL", "LOAD_ATTR")
    ]
    assert loads == [("print", sys.version_info >= (3, 11)), ("attribute", False), ("method", True)]
    # calls are (argc, keyword names, whether a NULL/self slot lies under the callable)
    calls = [ins.arg for ins in read_instructions(name_loads.__code__) if ins.op == "CALL"]
    assert calls == [(0, None, True), (2, None, sys.version_info >= (3, 11))]
    result = verify_code(name_loads.__code__)
    assert result.identical, (result.difference, result.error, result.source)


def yield_in_finally(n):
    try:
        for i in range(n):
            if i == 3:
                return
            yield i
    finally:
        yield "cleanup"


def test_yields_carry_no_stack_depth(request):
    """A yield's argument (3.12: its stack depth) differs between a finally body and its copies;
    the neutral yield has none, so the copies are recognized."""
    assert all(
        ins.arg is None for ins in read_instructions(yield_in_finally.__code__) if ins.op == "YIELD_VALUE"
    )
    if sys.version_info[:2] == (3, 10):
        known_failure(request, "3.10: the return inside the loop inside the try comes out as break")
    result = verify_code(yield_in_finally.__code__)
    assert result.identical, (result.difference, result.error, result.source)


async def async_generator(items, wait):
    async for item in items:
        received = yield item
        await wait(received)
    yield


def test_async_generator_yields_are_plain_yields():
    # 3.11 ``ASYNC_GEN_WRAP``, 3.12+ ``CALL_INTRINSIC_1 INTRINSIC_ASYNC_GEN_WRAP`` before each yield
    instrs = read_instructions(async_generator.__code__)
    ops = [ins.op for ins in instrs]
    assert "ASYNC_GEN_WRAP" not in ops
    assert not [ins for ins in instrs if ins.op == "CALL_INTRINSIC_1" and ins.arg in V.NO_OP_INTRINSICS]
    assert ops.count("YIELD_VALUE") == 2
    result = verify_code(async_generator.__code__)
    assert result.identical, (result.difference, result.error, result.source)


async def awaits(x):
    return await x


def test_raw_instructions_are_decoded_only_for_sequences():
    """The reader decodes a code object's raw instructions (all of them, for the sequence readers)
    only when the opcodes that follow a sequence's first one say it may be one."""
    from uncompile.bytecode.instructions import _Reader

    plain = _Reader(sample.__code__)
    assert [ins.op for ins in plain.run()] == [ins.op for ins in read_instructions(sample.__code__)]
    assert plain._raw is None
    awaiting = _Reader(awaits.__code__)
    assert "AWAIT" in [ins.op for ins in awaiting.run()]
    # (3.8 - 3.10: an await's plain LOAD_CONST None; YIELD_FROM is seen in the opcodes)
    assert (awaiting._raw is None) == ("YIELD_FROM" in dis.opmap)


def test_the_send_loops_seen_in_the_opcodes_end_where_the_decoded_ones_do():
    from uncompile.bytecode.awaits import await_end
    from uncompile.bytecode.instructions import _Reader

    def yields_from(x):
        yield from x
        return (yield from x)

    for code in (awaits.__code__, yields_from.__code__):
        reader = _Reader(code)
        starts = [ins.offset for ins in dis.get_instructions(code) if ins.opname.startswith("GET_")]
        assert starts, code
        for offset in starts:
            decoded = await_end(reader.raw, reader.raw_index(offset))
            after = reader.following(offset)
            assert reader._yield_from_end(after) in (None, reader.offset_of(decoded)), (code, offset)
            assert (reader._yield_from_end(after) is None) == ("YIELD_FROM" not in dis.opmap)


def test_instructions_are_made_without_a_python_level_init():
    """The reader makes an instruction per raw one: ``Instr()`` is the interpreter's own call only
    while the class defines no ``__init__`` (a Python-level one is a frame per instruction)."""
    from uncompile.bytecode.instructions import Instr

    assert Instr.__init__ is object.__init__
    first = read_instructions(sample.__code__)[0]
    assert first.index == 0 and first.target is None
    assert first.offset in {ins.offset for ins in dis.get_instructions(sample.__code__)}


def test_only_instructions_with_a_target_hold_one():
    """An instruction with a target is a ``JumpInstr`` (its slot holds the target); any other is a
    plain ``Instr``, whose target is the class's None, and cannot be given one."""
    from uncompile.bytecode.instructions import Instr, JumpInstr

    def branchy(x):  # type: ignore[no-untyped-def]
        for item in x:
            if item:
                return item
        return None

    instrs = read_instructions(branchy.__code__)
    jumps = [ins for ins in instrs if isinstance(ins, JumpInstr)]
    assert {ins.op for ins in jumps} >= {"FOR_ITER", "JUMP"}
    assert all(type(ins.target) is int for ins in jumps)
    plain = [ins for ins in instrs if type(ins) is Instr]
    assert plain and all(ins.target is None for ins in plain)
    with pytest.raises(AttributeError):
        plain[0].target = 0


def test_jumps_to_an_extended_arg_prefix_go_to_the_instruction_it_prefixes():
    """A loop whose first instruction needs ``EXTENDED_ARG`` (a local numbered past 255): the jump
    back goes to the prefix, which is dropped, so the neutral jump goes to the instruction."""
    names = ["v%d" % k for k in range(300)]
    source = "def many_locals(%s):\n    while v299:\n        v299 = v299 + v0\n    return v1\n" % ", ".join(
        names
    )
    namespace: dict = {}
    exec(compile(source, "<many_locals>", "exec"), namespace)
    code = namespace["many_locals"].__code__
    prefixes = {ins.offset for ins in dis.get_instructions(code) if ins.opname == "EXTENDED_ARG"}
    raw_targets = {
        ins.argval for ins in dis.get_instructions(code) if ins.opcode in dis.hasjabs + dis.hasjrel
    }
    assert raw_targets & prefixes  # (the construct this test is about)
    instrs = read_instructions(code)
    kept = {ins.offset: ins for ins in instrs}
    jumps = [ins for ins in instrs if ins.target is not None]
    assert jumps and all(ins.target in kept for ins in jumps)
    assert any(kept[ins.target].arg == "v299" for ins in jumps)
    result = verify_code(code)
    assert result.identical, (result.difference, result.error, result.source)


def _branchy(a, b):
    try:
        if a:
            return 1
        for item in b:
            if item is None:
                raise ValueError(item)
            while a and item:
                a -= 1
        return [x for x in b if x or a]
    except KeyError:
        raise
    finally:
        b.clear()


def test_the_reader_finds_every_jump_and_path_end():
    """What the control-flow graph and the straight-line check start from, found while reading."""
    for function in (sample, _branchy, json.dumps, inspect.getsource, dis.findlabels):
        reading = read_code_instructions(function.__code__)
        instrs = reading.instrs
        assert reading.jumps == [k for k, ins in enumerate(instrs) if ins.target is not None], function
        assert reading.ends == [k for k, ins in enumerate(instrs) if ins.op in ENDS_PATH], function
        assert reading.ends and reading.first_at == {ins.offset: ins.index for ins in reversed(instrs)}


def test_every_raw_instruction_but_a_cache_entry_is_read_once_in_order():
    """The reader's loop takes the raw instructions from an iterator (cache entries left out on
    3.11+) and starts a new one after a sequence read as other instructions (an await, a
    ``yield from``, an ``async for``): each raw instruction is read where dis decodes one."""
    from snippets import stdlib_code_objects

    from uncompile.bytecode.instructions import _words

    checked = 0
    for _, code in stdlib_code_objects(20):
        raw = [(i.offset, i.opcode) for i in dis.get_instructions(code) if i.opname != "CACHE"]
        words = [(offset, opcode) for offset, opcode, _ in _words(code.co_code, 0)]
        assert words == raw, code
        later = raw[len(raw) // 2][0]  # the words from an instruction on, as after a sequence
        assert [(o, op) for o, op, _ in _words(code.co_code, later)] == [w for w in raw if w[0] >= later]
        checked += 1
    assert checked > 100


async def _awaits_between(x, y):
    a = await x
    async for item in y:
        a += item
    return a + await y


def _yields_from_between(x):
    a = yield from x
    b = yield from a
    return a, b


def test_the_instructions_after_a_sequence_are_all_read():
    for function in (_awaits_between, _yields_from_between):
        instrs = read_instructions(function.__code__)
        ops = [ins.op for ins in instrs]
        assert ops.count("AWAIT") + ops.count("YIELD_FROM") == 2
        assert ("FOR_ITER" in ops) == (function is _awaits_between)
        assert "RETURN_VALUE" in ops
        result = verify_code(function.__code__)
        assert result.identical, result
