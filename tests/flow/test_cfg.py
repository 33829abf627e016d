"""The control-flow graph: a try's handler joins the flow where its body is entered."""

from __future__ import annotations

import sys

import pytest
from snippets import stdlib_code_objects

from uncompile.bytecode.exception_table import exception_handlers
from uncompile.bytecode.instructions import read_code_instructions, read_instructions
from uncompile.flow.cfg import ControlFlowGraph
from uncompile.verification import verify_code

# both branches of the if/else go on to the try: the if ends there, the try is written once
TRY_AFTER_IF_ELSE = """
def f(reader, doc):
    if doc is not None and "x" in doc:
        reader.bind("a")
    else:
        reader.bind("b")
    try:
        reader.load()
    except OSError:
        pass
    if reader.count() == 0:
        reader.reset()
"""


def _function(source):
    namespace: dict = {}
    exec(compile(source, "<test>", "exec", dont_inherit=True), namespace)
    return namespace["f"]


@pytest.mark.skipif(sys.version_info < (3, 11), reason="exception tables from 3.11 on")
def test_the_handler_edge_of_a_try_at_a_join_leaves_from_its_first_block():
    code = _function(TRY_AFTER_IF_ELSE).__code__
    instrs = read_instructions(code)
    handlers = exception_handlers(code, instrs)
    cfg = ControlFlowGraph(instrs, handlers)
    first = cfg.block_of_offset(handlers[0].start)
    assert len(first.preds) == 2
    handler = cfg.block_of_offset(handlers[0].target).id
    assert [b.id for b in cfg.blocks if handler in b.handlers] == [first.id]


def test_try_after_if_else_recompiles_identically():
    result = verify_code(compile(TRY_AFTER_IF_ELSE, "<test>", "exec", dont_inherit=True))
    assert result.identical, (str(result), result.source)


# 3.13+ leave the last jump of the 'or' test uncovered by the comprehension's handler range
COMPREHENSION_WITH_OR_CONDITION = """
def f(values):
    return [v for v in values if v != 2 or v == 6]
"""


def test_uncovered_conditional_jump_stays_in_its_block():
    code = _function(COMPREHENSION_WITH_OR_CONDITION).__code__
    instrs = read_instructions(code)
    cfg = ControlFlowGraph(instrs, exception_handlers(code, instrs))
    for block in cfg.blocks:
        if instrs[block.start].op in ("POP_JUMP_IF_TRUE", "POP_JUMP_IF_FALSE"):
            assert cfg.blocks[block.id - 1].succs == [block.id], "a test's jump split from its test"
    result = verify_code(compile(COMPREHENSION_WITH_OR_CONDITION, "<test>", "exec", dont_inherit=True))
    assert result.identical, (str(result), result.source)


def _ends_in_return(a):
    if a:
        return 1
    return 2


def test_reaches_follows_the_edges_and_block_of_maps_every_instruction():
    instrs = read_instructions(_ends_in_return.__code__)
    cfg = ControlFlowGraph(instrs, [])
    assert len(cfg.block_of) == len(instrs)
    for block in cfg.blocks:
        assert cfg.block_of[block.start : block.end] == [block.id] * (block.end - block.start)
    assert cfg.reaches(len(instrs) - 1)
    # no edge leads into a block that nothing jumps or falls to
    unreached = [b for b in cfg.blocks if b.id and not b.preds]
    assert all(not cfg.reaches(b.start) for b in unreached)


def test_the_readers_branches_make_the_graph_a_scan_makes():
    """The graph starts from the jumps and path ends the reader found, as from a scan of all."""
    for function in (_ends_in_return, verify_code, pytest.raises):
        reading = read_code_instructions(function.__code__)
        handlers = exception_handlers(function.__code__, reading.instrs)
        scanned = ControlFlowGraph(reading.instrs, handlers)
        read = ControlFlowGraph(reading.instrs, handlers, index_of=reading.first_at, branches=reading[2:])
        assert [repr(b) for b in read.blocks] == [repr(b) for b in scanned.blocks]
        assert [(b.succs, b.preds, b.handlers) for b in read.blocks] == [
            (b.succs, b.preds, b.handlers) for b in scanned.blocks
        ]


def _searched(cfg, index):
    """Whether a search of the graph's edges from the first block reaches the one holding *index*."""
    seen, todo = {0}, [0]
    while todo:
        for succ in cfg.blocks[todo.pop()].succs:
            if succ not in seen:
                seen.add(succ)
                todo.append(succ)
    return cfg.block_of[index] in seen


def test_reaches_is_what_a_search_finds_over_stdlib_code():
    """The chain of earliest predecessors (the shortcut of ``reaches``) finds only real paths."""
    for relative, code in stdlib_code_objects(8):
        reading = read_code_instructions(code)
        handlers = exception_handlers(code, reading.instrs)
        cfg = ControlFlowGraph(reading.instrs, handlers, index_of=reading.first_at, branches=reading[2:])
        for block in cfg.blocks:
            assert cfg.reaches(block.start) == _searched(cfg, block.start), (relative, code.co_name)
