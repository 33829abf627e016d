"""What evaluating a value on Dynamo's stack can do, and what a statement can disturb.

:class:`~.stack_shuffles.DynamoSimulator` keeps the printed program faithful by knowing
which stack items are *stable* (evaluating them has no effect and their value changes only
when a name is rebound: names, constants, displays of such, items of a graph's outputs,
Dynamo's helpers, closure cells, resume functions made from them), which statements
*commute* with pending items, and which loads Dynamo makes only to pass to a graph.
"""

from __future__ import annotations

import ast
import functools
import re
from typing import AbstractSet, Any, Dict, List, Set, Tuple

#: Stable by their kind alone (the commonest stack items).
_PLAIN = (ast.Name, ast.Constant)
_GRAPH_OUTPUT = re.compile(r"graph_out_\d+$")
#: The module Dynamo's generated code loads its helpers from.
HELPERS_MODULE = "__import_torch_dot__dynamo_dot_utils"


#: Fields that hold a name, a flag or a load/store context, never an expression: walks skip them.
_SCALAR_FIELDS = frozenset(
    {"ctx", "id", "attr", "kind", "conversion", "type_comment", "is_async", "level", "module"}
)


class _FieldsByKind(Dict[Any, Tuple[str, ...]]):
    """Node class -> the fields of its nodes that can hold nodes (filled as classes are met)."""

    def __missing__(self, kind: Any) -> Tuple[str, ...]:
        fields = self[kind] = tuple(field for field in kind._fields if field not in _SCALAR_FIELDS)
        return fields


#: ``NODE_FIELDS[type(node)]``: the fields of *node* that can hold nodes (the walks here run per step).
NODE_FIELDS = _FieldsByKind()


def is_helper(node: Any) -> bool:
    """``__import_torch_dot__dynamo_dot_utils.<name>``: one of Dynamo's helper functions."""
    return (
        isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id == HELPERS_MODULE
    )


def stable(node: Any) -> bool:
    """Items whose evaluation has no effect and whose value only changes when a name is rebound."""
    if isinstance(node, _PLAIN) or not isinstance(node, ast.AST):
        return True  # markers (the interpreter's own items) included
    if getattr(node, "uncompile_cells", False) or getattr(node, "uncompile_fixed", False):
        return True
    if isinstance(node, ast.Attribute):
        return is_helper(node)
    if isinstance(node, ast.Subscript):
        value = node.value  # an item of the outputs of a graph: a tuple only Dynamo's code holds
        return (
            isinstance(value, ast.Name) and isinstance(node.slice, ast.Constant) and _graph_output(value.id)
        )
    if isinstance(node, ast.Call):
        func = node.func
        if isinstance(func, ast.Name) and func.id.startswith("__resume_at_"):
            return not node.keywords and all(stable(arg) for arg in node.args)  # makes a closure
        return False
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):  # a fresh list is one only the stack holds
        return all(stable(item) for item in node.elts)
    if isinstance(node, ast.Dict):
        return all(stable(item) for item in node.keys + node.values if item is not None)
    if isinstance(node, ast.Starred):
        return stable(node.value)
    if isinstance(node, ast.Slice):
        return all(stable(part) for part in (node.lower, node.upper, node.step) if part is not None)
    return False


@functools.lru_cache(maxsize=256)
def _graph_output(name: str) -> bool:
    """A local holding the outputs of a graph (``graph_out_0``)."""
    return bool(_GRAPH_OUTPUT.match(name))


def mutable(node: Any) -> bool:
    """A display of a mutable object: two copies on the stack must stay one object."""
    return isinstance(node, (ast.List, ast.Set, ast.Dict))


def reads(node: Any, names: AbstractSet[str]) -> bool:
    """Whether the expression *node* has a name of *names* in it (a ``Name`` that ``ast.walk``
    finds; this runs per statement and stack item, so it stops at the first)."""
    if isinstance(node, ast.Name):
        return node.id in names
    if not names or not isinstance(node, ast.AST):
        return False
    todo = [node]
    while todo:
        current = todo.pop()
        if isinstance(current, _PLAIN):
            if isinstance(current, ast.Name) and current.id in names:
                return True
            continue
        for field in NODE_FIELDS[type(current)]:
            value = getattr(current, field, None)
            if isinstance(value, ast.AST):
                todo.append(value)
            elif isinstance(value, list):
                for item in value:
                    if isinstance(item, ast.AST):
                        todo.append(item)
    return False


def names_bound(statement: ast.stmt) -> Set[str]:
    targets: List[ast.AST] = []
    if isinstance(statement, ast.Assign):
        targets = list(statement.targets)
    elif isinstance(statement, ast.AugAssign):
        targets = [statement.target]
    elif isinstance(statement, ast.Delete):
        targets = list(statement.targets)
    names: Set[str] = set()
    for target in targets:
        if isinstance(target, ast.Name):
            names.add(target.id)
        elif isinstance(target, (ast.Tuple, ast.List)):
            names |= {
                sub.id
                for sub in ast.walk(target)
                if isinstance(sub, ast.Name) and isinstance(sub.ctx, (ast.Store, ast.Del))
            }
    return names


def commutes(statement: ast.stmt) -> bool:
    """A statement that evaluates nothing with an effect: it may move past unstable items."""
    if isinstance(statement, ast.Delete):
        return all(isinstance(target, ast.Name) for target in statement.targets)
    if isinstance(statement, ast.Assign):
        return all(isinstance(target, ast.Name) for target in statement.targets) and stable(statement.value)
    return False


def loads_only(node: Any, helpers: AbstractSet[str] = frozenset()) -> bool:
    """Names, constants and attribute/item loads of them: what Dynamo loads to pass to a graph.

    Such loads are taken to have no effect (module attributes, parameter dicts), so they
    commute with each other and with assignments of such loads. Calls of Dynamo's own
    helpers (:func:`is_bookkeeping`, e.g. ``call_size(x, 0)``) with such arguments count too.
    """
    if isinstance(node, (ast.Name, ast.Constant)):
        return True
    if isinstance(node, ast.Attribute):
        return loads_only(node.value, helpers)
    if isinstance(node, ast.Subscript):
        return loads_only(node.value, helpers) and loads_only(node.slice, helpers)
    if isinstance(node, ast.Tuple):
        return all(loads_only(item, helpers) for item in node.elts)
    if isinstance(node, ast.Call):
        return (
            is_bookkeeping(node.func, helpers)
            and not node.keywords
            and all(loads_only(arg, helpers) for arg in node.args)
        )
    return False


def loads_only_assignment(statement: ast.stmt, helpers: AbstractSet[str]) -> bool:
    return (
        isinstance(statement, ast.Assign)
        and loads_only(statement.value, helpers)
        and all(isinstance(target, ast.Name) for target in statement.targets)
    )


def empty_insert(key: Any, value: Any) -> bool:
    """``[k:k]`` with an empty list display as the value."""
    if not (isinstance(value, ast.List) and not value.elts and isinstance(key, ast.Slice)):
        return False
    lower, upper = key.lower, key.upper
    return (
        key.step is None
        and isinstance(lower, ast.Constant)
        and isinstance(upper, ast.Constant)
        and lower.value == upper.value
    )


def is_bookkeeping(func: Any, names: AbstractSet[str]) -> bool:
    """A helper of Dynamo's own (``__import_torch_dot__dynamo_dot_utils.record_...``/``call_size``...)
    or a name holding one of those: calls of them have no effect on the program's values."""
    if isinstance(func, ast.Name):
        return func.id in names
    return is_helper(func)
