"""Walking the statements of a tree without visiting its expressions.

Statements only ever sit in statement lists (``body``, ``orelse``, ``finalbody``, the bodies
of ``except`` handlers and ``match`` cases); expressions never hold statements. So a pass
that looks only at statements (tidying loops, tagging offsets) need not visit the many
expression nodes :func:`ast.walk` goes through: :func:`iter_statements` yields every
statement :func:`ast.walk` would (each time it occurs, nested definitions included), in
depth-first order; :func:`statement_lists` gives the lists directly inside one statement.
"""

from __future__ import annotations

import ast
from typing import Dict, Iterable, Iterator, List, Tuple, Type

__all__ = ["iter_statements", "statement_lists"]

#: Fields of a statement that hold statements, and those that hold handlers or ``match`` cases
#: (each with a ``body`` of statements).
_STATEMENT_FIELDS = ("body", "orelse", "finalbody")
_HOLDER_FIELDS = ("handlers", "cases")

_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


class _ListFields(Dict[type, Tuple[Tuple[str, bool], ...]]):
    """Per statement class: (field, holds handlers/cases) for each of its ``_fields`` above, in
    order (none for a simple statement); worked out on first use."""

    def __missing__(self, kind: Type[ast.AST]) -> Tuple[Tuple[str, bool], ...]:
        names = [name for name in _STATEMENT_FIELDS + _HOLDER_FIELDS if name in kind._fields]
        fields = self[kind] = tuple((name, name in _HOLDER_FIELDS) for name in names)
        return fields


_list_fields = _ListFields()


def statement_lists(node: ast.stmt) -> List[List[ast.stmt]]:
    """The statement lists directly inside *node*: its bodies, then its handlers' or cases' bodies.

    A field left unset (before 3.13 a node built without ``orelse`` has none) holds no list."""
    lists: List[List[ast.stmt]] = []
    for field, holds_bodies in _list_fields[type(node)]:
        value = getattr(node, field, None)
        if value:
            if holds_bodies:
                lists.extend(holder.body for holder in value)
            else:
                lists.append(value)
    return lists


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
        if _list_fields[type(node)]:  # a compound statement
            for inner in reversed(statement_lists(node)):
                stack.extend(reversed(inner))
        yield node
