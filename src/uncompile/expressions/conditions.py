"""Boolean expressions rebuilt from short-circuit jumps.

A run of blocks that each compute one value and end in a conditional jump is a set of
*nodes*, each with a truthy exit and a falsy exit. An exit is another node, a block outside
the run, or ``VALUE`` (the value itself reaches the merge point, as in ``x = a or b``).
Adjacent nodes are merged until no rule applies:

* ``A.true is B and A.false == B.false``  ->  ``A and B``
* ``A.false is B and A.true == B.true``   ->  ``A or B``
* the same with ``not A`` when A's exits are blocks (the compiler folds ``not`` into jumps)
* ``A.true is B, A.false is C``, B and C values  ->  ``B if A else C``
* the same when B and C are conditions with the same two exits (``if (b if a else c):``);
  exits are compared by where they lead (a caller may see through blocks that only jump)

What is left in front is an ``if`` condition (exits are blocks) or a value.
"""

from __future__ import annotations

import ast
from typing import Any, Callable, List, Optional, Tuple

from ..bytecode import versions as V

#: Exit kind for "the node's value reaches the merge point".
VALUE = "value"

Exit = Any  # a block id (int), ("value", merge block id), or a Node

#: Where an exit leads: the exit itself, or for a block that only jumps, where it jumps to.
Leads = Callable[[Exit], Exit]


class Node:
    """One condition node; ``entry`` is the block where its evaluation starts, ``last`` the
    block whose jump ends it (a chained comparison's last test; else the entry)."""

    def __init__(self, entry: int, expr: ast.expr, true: Exit, false: Exit) -> None:
        self.entry = entry
        self.last = entry
        self.expr = expr
        self.true = true
        self.false = false

    def is_value(self) -> bool:
        return _is_value(self.true) and _is_value(self.false)

    def __repr__(self) -> str:
        return "<Node %s t=%r f=%r>" % (self.entry, self.true, self.false)


def tested_blocks(nodes: List[Node]) -> List[int]:
    """The blocks that test *nodes*, in layout order (a chained comparison's links are
    consecutive blocks)."""
    return [block for node in nodes for block in range(node.entry, node.last + 1)]


def _is_value(exit: Exit) -> bool:
    return isinstance(exit, tuple) and exit[0] == VALUE


_FLIPPED = {ast.Is: ast.IsNot, ast.IsNot: ast.Is, ast.In: ast.NotIn, ast.NotIn: ast.In}


def negate(expr: ast.expr) -> ast.expr:
    """``not expr``, undoing an existing ``not`` instead of doubling it."""
    if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.Not):
        return expr.operand
    if isinstance(expr, ast.BoolOp) and not _keeps_not(expr):
        # De Morgan: the compiler threads jumps of this form best; but where the leaf
        # comparisons have their operators from the bytecode, ``not`` would change those
        # (``is`` -> ``is not``), not the jumps. Where the only such leaves are fused None
        # tests, either form compiles alike: the one with fewer ``not`` is printed.
        flipped: ast.boolop = ast.Or() if isinstance(expr.op, ast.And) else ast.And()
        de_morgan = ast.BoolOp(flipped, [negate(value) for value in expr.values])
        if _has_fused_leaf(expr) and _nots(de_morgan) > 1 + _nots(expr):
            return ast.UnaryOp(ast.Not(), expr)
        return de_morgan
    if _flips(expr):
        assert isinstance(expr, ast.Compare)
        node = ast.Compare(expr.left, [_FLIPPED[type(expr.ops[0])]()], expr.comparators)
        node.uc_flipped = not getattr(expr, "uc_flipped", False)  # type: ignore[attr-defined]
        node.uc_fused = getattr(expr, "uc_fused", False)  # type: ignore[attr-defined]
        return node
    return ast.UnaryOp(ast.Not(), expr)


def _flips(expr: ast.expr) -> bool:
    """Whether :func:`negate` turns *expr* into another comparison (its operator would change).

    3.14+ compile ``not a in b`` in a condition as a reversed jump, so only ``is (not) None``
    (one jump instruction either way) is flipped there.
    """
    if not (isinstance(expr, ast.Compare) and len(expr.ops) == 1 and type(expr.ops[0]) in _FLIPPED):
        return False
    right = expr.comparators[0]
    return V.FOLDS_NOT_INTO_COMPARISON or (
        isinstance(right, ast.Constant)
        and right.value is None
        and isinstance(expr.ops[0], (ast.Is, ast.IsNot))
    )


def none_test(expr: ast.expr, is_none: bool) -> ast.Compare:
    """``expr is None`` (or ``is not``) read from a jump that tests for None itself (3.11+
    fuse the comparison into the jump): both operators compile to that one jump, negated or
    not, so :func:`negate` may flip it in a De Morgan."""
    op: ast.cmpop = ast.Is() if is_none else ast.IsNot()
    node = ast.Compare(left=expr, ops=[op], comparators=[ast.Constant(value=None)])
    node.uc_fused = True  # type: ignore[attr-defined]
    return node


def _flipping_leaves(expr: ast.expr) -> List[ast.expr]:
    """The comparisons in *expr* whose operator the bytecode has, which negating would flip."""
    if isinstance(expr, ast.BoolOp):
        return [leaf for value in expr.values for leaf in _flipping_leaves(value)]
    return [expr] if _flips(expr) and not getattr(expr, "uc_fused", False) else []


def _has_fused_leaf(expr: ast.expr) -> bool:
    if isinstance(expr, ast.BoolOp):
        return any(_has_fused_leaf(value) for value in expr.values)
    return getattr(expr, "uc_fused", False)


def _nots(expr: ast.expr) -> int:
    """How many ``not`` the boolean structure of *expr* has."""
    if isinstance(expr, ast.BoolOp):
        return sum(_nots(value) for value in expr.values)
    if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.Not):
        return 1 + _nots(expr.operand)
    return 0


def _keeps_not(expr: ast.BoolOp) -> bool:
    """Whether ``not`` stays outside *expr*: it has comparisons that negating would flip, all
    with the operator the bytecode has (none flipped by an earlier :func:`negate`, none read
    from a fused None test)."""
    leaves = _flipping_leaves(expr)
    return bool(leaves) and not any(getattr(leaf, "uc_flipped", False) for leaf in leaves)


def _boolop(op: ast.boolop, left: ast.expr, right: ast.expr) -> ast.BoolOp:
    values: List[ast.expr] = []
    for side in (left, right):
        if isinstance(side, ast.BoolOp) and type(side.op) is type(op) and not getattr(side, "uc_par", False):
            values.extend(side.values)
        else:
            values.append(side)
    node = ast.BoolOp(op, values)
    return node


def _same(a: Exit, b: Exit) -> bool:
    if isinstance(a, Node) or isinstance(b, Node):
        return a is b
    return a == b


def _merge_pair(a: Node, b: Node) -> Optional[Node]:
    a_true_is_b = a.true is b or a.true == b.entry
    a_false_is_b = a.false is b or a.false == b.entry
    if a_true_is_b and _same(a.false, b.false):
        return Node(a.entry, _boolop(ast.And(), a.expr, b.expr), b.true, b.false)
    if a_false_is_b and _same(a.true, b.true):
        return Node(a.entry, _boolop(ast.Or(), a.expr, b.expr), b.true, b.false)
    if _is_value(a.true) or _is_value(a.false):
        return None
    if a_false_is_b and _same(a.true, b.false):
        return Node(a.entry, _boolop(ast.And(), negate(a.expr), b.expr), b.true, b.false)
    if a_true_is_b and _same(a.false, b.true):
        if V.LAYOUT_IN_SOURCE_ORDER and _flips(a.expr) and not _flips(b.expr):
            # the same jumps as ``not a or b``; negating a's comparison would change its operator
            return Node(a.entry, _boolop(ast.And(), a.expr, negate(b.expr)), b.false, b.true)
        return Node(a.entry, _boolop(ast.Or(), negate(a.expr), b.expr), b.true, b.false)
    return None


def _is_block(exit: Exit) -> bool:
    return isinstance(exit, int)


def _branch_exits(b: Node, c: Node, leads: Leads) -> Optional[Tuple[Exit, Exit]]:
    """The exits of a ternary whose branches are *b* and *c*: both values going to one merge
    point, or both conditions whose exits lead to the same blocks (the last branch's exits)."""
    if b.is_value() and c.is_value():
        return (b.true, b.false) if _same(b.true, c.true) else None
    if all(_is_block(side) for side in (b.true, b.false, c.true, c.false)) and (
        leads(b.true) == leads(c.true) and leads(b.false) == leads(c.false)
    ):
        return c.true, c.false
    return None


def _merge_ternary(a: Node, b: Node, c: Node, leads: Leads) -> Optional[Node]:
    if _is_value(a.true) or _is_value(a.false):
        return None
    exits = _branch_exits(b, c, leads)
    if exits is None:
        return None
    if (a.true is b or a.true == b.entry) and (a.false is c or a.false == c.entry):
        return Node(a.entry, ast.IfExp(a.expr, b.expr, c.expr), *exits)
    if (a.false is b or a.false == b.entry) and (a.true is c or a.true == c.entry):
        return Node(a.entry, ast.IfExp(negate(a.expr), b.expr, c.expr), *exits)
    return None


def _entered_from_elsewhere(nodes: List[Node], k: int) -> bool:
    """Whether a node other than ``nodes[k]`` goes to the branches ``nodes[k + 1]``/``nodes[k + 2]``.

    ``1 if x and not w else 2`` jumps to the ``else`` value from both tests: the tests merge
    first, then the ternary.
    """
    branches = nodes[k + 1 : k + 3]
    for i, node in enumerate(nodes):
        if k <= i <= k + 2:
            continue
        for side in (node.true, node.false):
            for branch in branches:  # (a loop: a generator per side costs more on 3.8-3.10)
                if side is branch or side == branch.entry:
                    return True
    return False


def _itself(exit: Exit) -> Exit:
    return exit


def reduce_nodes(nodes: List[Node], leads: Leads = _itself) -> Tuple[List[Node], List[int]]:
    """Merge adjacent nodes (rules in the module docstring) until none applies; *leads* says
    where a block exit leads (default: the block itself).

    Returns the remaining nodes and, for each, how many original nodes it absorbed.
    """
    nodes = list(nodes)
    sizes = [1] * len(nodes)
    changed = True
    while changed and len(nodes) > 1:
        changed = False
        for k in range(len(nodes) - 2):
            if _entered_from_elsewhere(nodes, k):
                continue
            merged = _merge_ternary(nodes[k], nodes[k + 1], nodes[k + 2], leads)
            if merged is not None:
                nodes[k : k + 3] = [merged]
                sizes[k : k + 3] = [sum(sizes[k : k + 3])]
                changed = True
                break
        if changed:
            continue
        for k in range(len(nodes) - 1):
            merged = _merge_pair(nodes[k], nodes[k + 1])
            if merged is not None:
                nodes[k : k + 2] = [merged]
                sizes[k : k + 2] = [sizes[k] + sizes[k + 1]]
                changed = True
                break
    return nodes, sizes
