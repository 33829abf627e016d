"""Post-dominators on small graphs and on real control-flow graphs."""

from __future__ import annotations

from uncompile.bytecode.exception_table import exception_handlers
from uncompile.bytecode.instructions import read_instructions
from uncompile.flow.cfg import ControlFlowGraph
from uncompile.flow.dominators import immediate_postdominators


def test_diamond_joins_at_the_merge():
    succs = {0: [1, 2], 1: [3], 2: [3], 3: []}
    assert immediate_postdominators(succs, succs) == {0: 3, 1: 3, 2: 3, 3: None}


def test_paths_into_terminal_nodes_are_ignored():
    succs = {0: [1, 2], 1: [3], 2: [], 3: []}  # 2 raises
    assert immediate_postdominators(succs, succs, terminal=[2])[0] == 1


def branchy(a):
    if a:
        a = 1
    else:
        a = 2
    return a


def test_cfg_of_a_function():
    code = branchy.__code__
    instrs = read_instructions(code)
    cfg = ControlFlowGraph(instrs, exception_handlers(code, instrs))
    assert cfg.blocks[0].start == 0
    assert all(b.start < b.end for b in cfg.blocks)
    assert len(cfg.blocks[0].succs) == 2
    for block in cfg.blocks:
        for succ in block.succs:
            assert block.id in cfg.blocks[succ].preds
