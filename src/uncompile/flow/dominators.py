"""Post-dominators over a region of the control-flow graph.

``immediate_postdominators(succs, nodes)`` treats every edge that leaves *nodes* (and every
node without successors) as an edge to a virtual exit, and returns for each node the
nearest node that every path from it to the exit passes through (None: the exit itself).
"""

from __future__ import annotations

from typing import Dict, Iterable, List, Optional, Tuple


def immediate_postdominators(
    succs: Dict[int, List[int]], nodes: Iterable[int], terminal: Iterable[int] = ()
) -> Dict[int, Optional[int]]:
    """See the module docstring. Bitsets are Python ints; bit *k* stands for ``order[k]``.

    Paths into *terminal* nodes (``return``/``raise``) are ignored: they never merge back,
    so the post-dominator of an ``if`` is where its non-returning paths meet.
    """
    order = sorted(set(nodes))
    bit = dict(zip(order, map((1).__lshift__, range(len(order)))))
    everything = (1 << len(order)) - 1
    ends = set(terminal)
    pdom: Dict[int, int] = {}
    # the nodes whose set is computed, last first (each meets the sets of its successors inside)
    computed: List[Tuple[int, int, List[int]]] = []
    is_inside = bit.__contains__
    for node in reversed(order):
        out = succs.get(node, ())
        if node in ends:
            pdom[node] = everything
            continue
        inside = list(filter(is_inside, out))
        if len(inside) < len(out) or not out:  # a leaf: leaves the nodes or ends the code
            pdom[node] = bit[node]
        else:
            pdom[node] = everything
            computed.append((node, bit[node], inside))
    # one pass in that order is enough when no edge goes back to a node computed later
    changed = False
    for node, own, inside in computed:
        meet = everything
        for succ in inside:
            meet &= pdom[succ]
            if succ < node:
                changed = True
        pdom[node] = meet | own
    while changed:
        changed = False
        for node, own, inside in computed:
            meet = everything
            for succ in inside:
                meet &= pdom[succ]
            new = meet | own
            if new != pdom[node]:
                pdom[node] = new
                changed = True
    # Below the virtual exit the sets form a tree: the immediate post-dominator of a node is
    # the one whose set is the node's own without it (the fallback below finds the same).
    node_with_set: Dict[int, int] = {}
    for node in reversed(order):
        node_with_set[pdom[node]] = node  # the first in order among equal sets
    size: Dict[int, int] = {}
    result: Dict[int, Optional[int]] = {}
    for node in order:
        if pdom[node] == everything:
            result[node] = None
            continue
        strict = pdom[node] & ~bit[node]
        parent = node_with_set.get(strict)
        if parent is not None:
            result[node] = parent
            continue
        # the immediate post-dominator is the strict post-dominator with the most post-dominators
        # (the first in order among equals)
        best: Optional[int] = None
        best_size = -1
        while strict:
            low = strict & -strict
            other = order[low.bit_length() - 1]
            other_size = size.get(other)
            if other_size is None:
                other_size = size[other] = bin(pdom[other]).count("1")
            if other_size > best_size:
                best, best_size = other, other_size
            strict ^= low
        result[node] = best
    return result
