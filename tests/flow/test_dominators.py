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


def test_a_loop_needs_more_than_one_pass():
    # 1 -> 2 -> 1 (back edge); both leave the loop, by 4 and by 3, and meet at 5: the first
    # pass, which meets 2's successors before 1 is known, would say that 2 always goes on to 3
    succs = {0: [1], 1: [2, 4], 2: [1, 3], 3: [5], 4: [5], 5: []}
    assert immediate_postdominators(succs, succs) == {0: 1, 1: 5, 2: 5, 3: 5, 4: 5, 5: None}


def test_a_loop_that_never_ends_has_no_postdominator():
    succs = {0: [1, 3], 1: [2], 2: [1], 3: []}  # 1 <-> 2 forever
    assert immediate_postdominators(succs, succs) == {0: 3, 1: None, 2: None, 3: None}
