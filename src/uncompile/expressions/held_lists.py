"""Held lists: list displays that only the value stack refers to, and the walks over them.

Dynamo's frame-value lists (:mod:`.frame_lists`) are built on the value stack and edited
there. A list display built by ``BUILD_LIST`` is *held* (:func:`held`, :func:`hold`, :func:`release`) as long
as nothing but the stack refers to it, directly or as an item of another held list. This
module finds held lists and the values in them (:func:`parts`, :func:`leaves`,
:func:`held_below`, :func:`held_in`), counts and replaces references to a node
(:func:`references`, :func:`replace`), and gives a branch's stack its own copies of them
(:func:`unshare`).
"""

from __future__ import annotations

import ast
from typing import Any, Dict, Iterable, List, Set

from .computation_order import ComputationOrder
from .dynamo_effects import NODE_FIELDS

Stack = List[Any]

_HELD = "uncompile_frame_list"
#: Nodes with no nodes below them (the commonest leaves, skipped early by the walks).
_NO_CHILDREN = (ast.Name, ast.Constant)


def held(node: Any) -> bool:
    """A list display that only the value stack (or another held list) refers to."""
    return (
        isinstance(node, ast.List)
        and getattr(node, _HELD, False)
        and not getattr(node, "uncompile_comprehension", None)
    )


def hold(node: Any) -> None:
    setattr(node, _HELD, True)


def release(node: Any) -> None:
    """*node* is held no longer (it became part of another expression or of a statement)."""
    setattr(node, _HELD, False)


def parts(items: Iterable[Any]) -> List[Any]:
    """The held lists and the leaves (their items that are no held list) of *items*, depth first,
    each object once. A starred item stands for its value."""
    found: List[Any] = []
    _collect(items, found, set(), True)
    return found


def leaves(items: Iterable[Any]) -> List[Any]:
    """The items of *items* that are no held list, looking inside held lists."""
    found: List[Any] = []
    _collect(items, found, set(), False)
    return found


def _collect(items: Iterable[Any], found: List[Any], seen: Set[int], lists: bool) -> None:
    """Add the parts of *items* not in *seen* to *found* (the held lists too when *lists*)."""
    for node in items:
        if isinstance(node, ast.Starred):
            node = node.value
        key = id(node)
        if key in seen:
            continue
        seen.add(key)
        if isinstance(node, ast.List) and held(node):
            if lists:
                found.append(node)
            _collect(node.elts, found, seen, lists)
        else:
            found.append(node)


def references(roots: Iterable[Any], node: Any) -> int:
    """How many places in *roots* (stack items and everything below them) refer to *node*."""
    seen: Set[int] = set()
    pending = list(roots)
    count = pending.count(node)  # identity: no stack item defines ``==``
    while pending:
        current = pending.pop()
        if isinstance(current, _NO_CHILDREN) or id(current) in seen or not isinstance(current, ast.AST):
            continue
        seen.add(id(current))
        for field in NODE_FIELDS[type(current)]:
            value = getattr(current, field, None)
            if isinstance(value, list):
                for item in value:
                    if isinstance(item, ast.AST):
                        count += item is node
                        pending.append(item)
            elif isinstance(value, ast.AST) and not isinstance(value, ast.expr_context):
                count += value is node
                pending.append(value)
    return count


def held_below(item: ast.AST, settled: Dict[int, Any]) -> List[Any]:
    """The held lists in *item*, not looking into settled expressions (they hold none)."""
    found: List[Any] = []
    pending = [item]
    while pending:
        node = pending.pop()
        if held(node):
            found.append(node)
        pending.extend(child for child in _children(node) if settled.get(id(child)) is not child)
    return found


def held_in(statement: ast.AST) -> List[Any]:
    """The held lists in *statement*, in ``ast.walk`` order (breadth first)."""
    found: List[Any] = []
    pending = [statement]
    for node in pending:  # grows as it goes: each node's children are visited after the nodes before
        if isinstance(node, ast.List) and held(node):
            found.append(node)
        pending.extend(_children(node))
    return found


def _children(node: ast.AST) -> List[Any]:
    """The nodes right below *node* (``ast.iter_child_nodes`` without the load/store contexts)."""
    found: List[Any] = []
    for field in NODE_FIELDS[type(node)]:
        value = getattr(node, field, None)
        if isinstance(value, list):
            for item in value:
                if isinstance(item, ast.AST):
                    found.append(item)
        elif isinstance(value, ast.AST) and not isinstance(value, ast.expr_context):
            found.append(value)
    return found


def replace(roots: List[Any], old: Any, new: Any, deep: bool = False) -> None:
    """Make every reference to *old* in *roots* (stack items, or with *deep* statements and all
    below them) refer to *new*. On a stack only held lists are looked into: the expressions below
    other items may be shared with the stack of another branch, and do not hold the item."""
    seen: Set[int] = set()
    for position, root in enumerate(roots):
        if root is old:
            roots[position] = new
    pending = list(roots)
    while pending:
        current = pending.pop()
        within = deep or held(current) or isinstance(current, ast.Starred)  # ``*x`` in a held list
        if id(current) in seen or not isinstance(current, ast.AST) or not within:
            continue
        seen.add(id(current))
        for field, value in ast.iter_fields(current):
            if isinstance(value, list):
                value[:] = [new if item is old else item for item in value]
                pending.extend(value)
            elif value is old:
                setattr(current, field, new)
            elif isinstance(value, ast.AST):
                pending.append(value)


def unshare(stack: Stack, order: ComputationOrder) -> None:
    """Give *stack* its own copies of the held lists on it (the stack of a branch or a body starts
    as a copy of the stack before it: edits on one way must not show on the other); each copy
    is computed when its list was, in *order*."""
    copies: Dict[int, ast.List] = {}

    def copy(node: Any) -> Any:
        if isinstance(node, ast.Starred) and held(node.value):
            return ast.Starred(value=copy(node.value), ctx=ast.Load())
        if not held(node):
            return node
        if id(node) not in copies:
            twin = copies[id(node)] = ast.List(elts=[], ctx=ast.Load())
            hold(twin)
            order.same_as(twin, node)
            twin.elts = [copy(item) for item in node.elts]
        return copies[id(node)]

    stack[:] = [copy(item) for item in stack]
