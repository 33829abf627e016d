"""Walking the statements of a tree without visiting its expressions.

Statements only ever sit in statement lists (``body``, ``orelse``, ``finalbody``, the bodies
of ``except`` handlers and ``match`` cases); expressions never hold statements. So a pass
that looks only at statements (tidying loops, tagging offsets) need not visit the many
expression nodes :func:`ast.walk` goes through: :func:`iter_statements` yields every
statement :func:`ast.walk` would (each time it occurs, nested definitions included), in
depth-first order.
"""

from __future__ import annotations

import ast
from typing import Dict, Iterable, Iterator, List, Tuple

__all__ = ["iter_statements"]

#: Nodes that are not statements but hold a statement list in ``body``.
_BODY_HOLDERS = (ast.excepthandler,) + ((ast.match_case,) if hasattr(ast, "match_case") else ())


#: Fields that can hold a statement list (on statements, handlers and match cases).
_LIST_FIELDS = ("body", "orelse", "finalbody", "handlers", "cases")

#: Per node class: which of its ``_fields`` can hold statements (what :func:`ast.walk` reads).
_fields_of: Dict[type, Tuple[str, ...]] = {}


def _child_statements(node: ast.AST) -> List[ast.stmt]:
    """The statements directly inside *node* (a statement, handler or match case)."""
    kind = type(node)
    fields = _fields_of.get(kind)
    if fields is None:
        fields = _fields_of[kind] = tuple(name for name in _LIST_FIELDS if name in kind._fields)
    found: List[ast.stmt] = []
    for field in fields:
        value = getattr(node, field, None)
        if not isinstance(value, list):
            continue
        for item in value:
            if isinstance(item, ast.stmt):
                found.append(item)
            elif isinstance(item, _BODY_HOLDERS):
                found.extend(_child_statements(item))
    return found


_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def iter_statements(stmts: Iterable[ast.stmt], into_definitions: bool = True) -> Iterator[ast.stmt]:
    """Every statement in *stmts* and, recursively, inside them (children listed before use);
    without *into_definitions*, not the bodies of nested ``def`` and ``class`` statements."""
    stack = list(stmts)
    stack.reverse()
    while stack:
        node = stack.pop()
        if not into_definitions and isinstance(node, _DEFINITIONS):
            yield node
            continue
        children = _child_statements(node)
        yield node
        children.reverse()
        stack.extend(children)
