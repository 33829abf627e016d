"""Post-dominators on small graphs and on real control-flow graphs."""

from __future__ import annotations

import random
from typing import Dict, List

from uncompile.bytecode.exception_table import exception_handlers
from uncompile.bytecode.instructions import read_instructions
from uncompile.flow.cfg import ControlFlowGraph
from uncompile.flow.dominators import (
    _dataflow_postdominators,
    _forward_postdominators,
    immediate_postdominators,
)


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


def _random_region(rng: random.Random, size: int, back_edges: bool) -> tuple:
    """A region of *size* nodes (numbered with gaps, as block ids are), some edges leaving it."""
    nodes = sorted(rng.sample(range(3 * size), size))
    outside = 3 * size  # a block past the region
    succs: Dict[int, List[int]] = {}
    for k, node in enumerate(nodes):
        later = nodes[k + 1 :]
        targets = later + ([outside] if rng.random() < 0.2 else [])
        if back_edges:
            targets += nodes[: k + 1]
        succs[node] = rng.sample(targets, min(len(targets), rng.choice((0, 1, 2, 2, 3))))
    terminal = [n for n in nodes if rng.random() < (0.5 if not succs[n] else 0.1)]
    return succs, nodes, terminal


def test_forward_regions_take_the_one_pass_tree_and_agree_with_the_dataflow_solution():
    rng = random.Random(8)
    for _ in range(300):
        succs, nodes, terminal = _random_region(rng, rng.randint(1, 25), back_edges=False)
        forward = _forward_postdominators(succs, nodes, set(terminal))
        assert forward is not None
        assert forward == _dataflow_postdominators(succs, nodes, set(terminal))


def test_a_region_with_an_edge_back_is_no_forward_region():
    assert _forward_postdominators({0: [1], 1: [2, 0], 2: []}, [0, 1, 2], set()) is None
    assert _forward_postdominators({0: [1], 1: [1, 2], 2: []}, [0, 1, 2], set()) is None  # onto itself


def test_a_chain_is_post_dominated_by_each_next_node():
    # every node post-dominates the first one: its set holds them all, and still it reaches the exit
    succs = {1: [3], 3: [4], 4: []}
    assert immediate_postdominators(succs, succs) == {1: 3, 3: 4, 4: None}
    assert _dataflow_postdominators(succs, [1, 3, 4], set()) == {1: 3, 3: 4, 4: None}
