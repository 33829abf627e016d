"""Post-dominators over a region of the control-flow graph.

``immediate_postdominators(succs, nodes)`` treats every edge that leaves *nodes* (and every
node without successors) as an edge to a virtual exit, and returns for each node the
nearest node that every path from it to the exit passes through (None: the exit itself).

Most regions are *forward*: every edge inside goes to a node laid out later (the jumps back
of the loop being walked end at the region's edge). Their post-dominator tree is made in one
pass from the last node up (:func:`_forward_postdominators`); other regions solve the
dataflow equations over bitsets.
"""

from __future__ import annotations

from typing import Dict, Iterable, List, Optional, Set, Tuple

_NO_EXIT = -1  # (in _forward_postdominators) a node whose paths all end in terminal nodes


def immediate_postdominators(
    succs: Dict[int, List[int]], nodes: Iterable[int], terminal: Iterable[int] = ()
) -> Dict[int, Optional[int]]:
    """See the module docstring.

    Paths into *terminal* nodes (``return``/``raise``) are ignored: they never merge back,
    so the post-dominator of an ``if`` is where its non-returning paths meet.
    """
    order = sorted(set(nodes))
    ends = set(terminal)
    forward = _forward_postdominators(succs, order, ends)
    return forward if forward is not None else _dataflow_postdominators(succs, order, ends)


def _dataflow_postdominators(
    succs: Dict[int, List[int]], order: List[int], ends: Set[int]
) -> Dict[int, Optional[int]]:
    """:func:`immediate_postdominators` of any region (*order*: its nodes, ascending; *ends*:
    the terminal ones): the post-dominator sets solved as dataflow equations, then the tree.
    Bitsets are Python ints; bit *k* stands for ``order[k]``."""
    bit = dict(zip(order, map((1).__lshift__, range(len(order)))))
    # the set of a node that reaches no exit (its paths all end in terminal nodes): every node,
    # and one bit more, which no set of a node that reaches it has
    no_exit = (1 << (len(order) + 1)) - 1
    pdom = dict.fromkeys(order, no_exit)  # (terminal nodes keep it)
    # the nodes whose set is computed, last first (each meets the sets of its successors, all
    # inside: a node with an edge out of the nodes, or none, is a leaf, whose set is its own)
    computed: List[Tuple[int, int, List[int]]] = []
    is_inside = bit.__contains__
    for node in reversed(order):
        if node in ends:
            continue
        out = succs.get(node)
        if out and all(map(is_inside, out)):
            computed.append((node, bit[node], out))
        else:
            pdom[node] = bit[node]
    # one pass in that order is enough when no edge goes back to a node computed later
    changed = False
    for node, own, inside in computed:
        meet = no_exit
        for succ in inside:
            meet &= pdom[succ]
            if succ < node:
                changed = True
        pdom[node] = meet | own
    while changed:
        changed = False
        for node, own, inside in computed:
            meet = no_exit
            for succ in inside:
                meet &= pdom[succ]
            new = meet | own
            if new != pdom[node]:
                pdom[node] = new
                changed = True
    # Below the virtual exit the sets form a tree: the immediate post-dominator of a node is
    # the one whose set is the node's own without it (the fallback below finds the same).
    backwards = order[::-1]
    node_with_set: Dict[int, Optional[int]] = dict(zip(map(pdom.__getitem__, backwards), backwards))
    # (the first in order among equal sets; a node that reaches no exit, and a leaf, whose strict
    # set is empty, have the exit, None)
    node_with_set[no_exit] = node_with_set[0] = None
    size: Dict[int, int] = {}
    result: Dict[int, Optional[int]] = {}
    for node in order:
        strict = pdom[node]
        if strict != no_exit:
            strict &= ~bit[node]
        parent = node_with_set.get(strict, -1)
        if parent != -1:
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


def _forward_postdominators(
    succs: Dict[int, List[int]], order: List[int], ends: Set[int]
) -> Optional[Dict[int, Optional[int]]]:
    """:func:`immediate_postdominators` of a forward region (None when an edge inside goes back).

    Taken from the last node up, every successor of a node already has its place in the tree:
    the node's immediate post-dominator is the nearest common ancestor of its successors
    (the exit when an edge leaves the region). A node's ancestors lie after it, so the two
    chains climb, the earlier first, until they meet. Terminal nodes, and nodes whose paths
    all end in them, reach no exit and take no part in that meet.
    """
    at_exit = len(order)  # the virtual exit's position, past every node
    position = dict(zip(order, range(at_exit)))
    parent = [_NO_EXIT] * at_exit  # the position of each node's immediate post-dominator
    for k in range(at_exit - 1, -1, -1):
        node = order[k]
        if node in ends:
            continue
        out = succs.get(node)
        if not out:
            parent[k] = at_exit
            continue
        meet = _NO_EXIT
        for succ in out:
            j = position.get(succ)
            if j is None:  # leaves the region
                meet = at_exit
                break
            if j <= k:
                return None
            if parent[j] == _NO_EXIT:
                continue
            if meet == _NO_EXIT:
                meet = j
                continue
            while j != meet:
                if j < meet:
                    j = parent[j]
                else:
                    meet = parent[meet]
        parent[k] = meet
    # the node at each position, None at the exit's (at_exit) and for no exit (_NO_EXIT, the last)
    node_at: List[Optional[int]] = [*order, None]
    return dict(zip(order, map(node_at.__getitem__, parent)))
