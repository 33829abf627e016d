"""Constants from ``co_consts`` as expressions (literals, or placeholder names)."""

from __future__ import annotations

import ast
import types
from typing import Any, Tuple

from .placeholders import has_source_form, placeholder_name


def display_order(item: Any) -> Tuple[str, str]:
    """The order in which a frozenset constant's items are written: the source order is lost (the
    set iterates in hash order, which varies from run to run with string hashing), so by type, then
    text, as the printer writes a frozenset constant itself (source.literals): the same code object
    decompiles to the same text in every process."""
    return type(item).__name__, repr(item)


def literal(value: Any) -> ast.expr:
    """A literal expression for *value*, which has a source form."""
    if isinstance(value, frozenset):
        return (
            ast.Set(elts=[literal(item) for item in sorted(value, key=display_order)])
            if value
            else ast.Call(func=ast.Name(id="frozenset", ctx=ast.Load()), args=[], keywords=[])
        )
    if isinstance(value, tuple) and frozenset in map(type, value):  # (co_consts hold exact types)
        return ast.Tuple(elts=[literal(item) for item in value], ctx=ast.Load())
    return ast.Constant(value)


_bare = ast.AST.__new__  # a node of the given class with no fields set
_Constant = ast.Constant

#: Constants that are their own literal (most of them: checked first), and a code object's.
PLAIN_CONSTANT_TYPES = frozenset({type(None), bool, int, str, bytes, type(Ellipsis), types.CodeType})


def constant_expr(value: Any, index: Any) -> ast.expr:
    """``co_consts[index]`` (which is *value*) as an expression.

    The literal of a constant that is no plain ``ast.Constant`` (a frozenset's set display, a
    tuple display around one) is tagged ``uncompile_const``: a display the code builds is no
    constant, and ``SET_UPDATE`` tells a frozenset folded from ``{1, 2, 3}``'s items by it.

    A *plain constant* (one of the ``PLAIN_CONSTANT_TYPES``, or a tuple of them: keyword names,
    defaults, import lists) is its own ``ast.Constant`` with no further check (the simulator's
    ``LOAD_CONST`` makes those of the types themselves without calling this).
    """
    if type(value) in PLAIN_CONSTANT_TYPES or (
        type(value) is tuple and PLAIN_CONSTANT_TYPES.issuperset(map(type, value))
    ):
        constant = _bare(_Constant)  # what literal() makes of them, built as cheaply as name_node's names
        constant.value = value
        return constant
    if not has_source_form(value):
        return _placeholder(value, index)
    node = literal(value)
    node.uncompile_const = True  # type: ignore[attr-defined]
    return node


def _placeholder(value: Any, index: Any) -> ast.expr:
    """A name standing for a constant that has no literal (a code object, a slice...)."""
    node = ast.Name(id=placeholder_name(value, index if isinstance(index, int) else 0), ctx=ast.Load())
    if type(value) is slice and all(has_source_form(part) for part in (value.start, value.stop, value.step)):
        node.uncompile_slice = value  # type: ignore[attr-defined]  # a subscript writes it as ``a:b:c``
    return node
