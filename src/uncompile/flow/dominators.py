"""Post-dominators over a region of the control-flow graph.

``immediate_postdominators(succs, nodes)`` treats every edge that leaves *nodes* (and every
node without successors) as an edge to a virtual exit, and returns for each node the
nearest node that every path from it to the exit passes through (None: the exit itself).
"""

from __future__ import annotations

from typing import Dict, Iterable, List, Optional


def immediate_postdominators(
    succs: Dict[int, List[int]], nodes: Iterable[int], terminal: Iterable[int] = ()
) -> Dict[int, Optional[int]]:
    """See the module docstring. Bitsets are Python ints; bit *k* stands for ``order[k]``.

    Paths into *terminal* nodes (``return``/``raise``) are ignored: they never merge back,
    so the post-dominator of an ``if`` is where its non-returning paths meet.
    """
    order = sorted(set(nodes))
    bit = {node: 1 << k for k, node in enumerate(order)}
    everything = (1 << len(order)) - 1
    ends = set(terminal)
    inside = {node: [s for s in succs.get(node, []) if s in bit] for node in order}
    leaves = {node for node in order if len(inside[node]) < len(succs.get(node, [])) or not succs.get(node)}
    pdom = {
        node: (everything if node in ends else bit[node] if node in leaves else everything) for node in order
    }
    changed = True
    while changed:
        changed = False
        for node in reversed(order):
            if node in leaves or node in ends:
                continue
            meet = everything
            for succ in inside[node]:
                meet &= pdom[succ]
            new = meet | bit[node]
            if new != pdom[node]:
                pdom[node] = new
                changed = True
    size = {node: bin(pdom[node]).count("1") for node in order}
    result: Dict[int, Optional[int]] = {}
    for node in order:
        if pdom[node] == everything:
            result[node] = None
            continue
        # the immediate post-dominator is the strict post-dominator with the most post-dominators
        # (the first in order among equals)
        best: Optional[int] = None
        strict = pdom[node] & ~bit[node]
        while strict:
            low = strict & -strict
            other = order[low.bit_length() - 1]
            if best is None or size[other] > size[best]:
                best = other
            strict ^= low
        result[node] = best
    return result
