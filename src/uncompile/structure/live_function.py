"""What a live function object adds to its code: parameter defaults and annotations.

A code object does not hold its function's defaults, keyword-only defaults or annotations;
they live on the function object. :func:`complete_definition` writes them into the ``def``
(or ``lambda``) that the decompiler made from the code: as a literal or display where the
value has one, as a dotted name for a class or function that can be found by its name, and
otherwise as a name ``__uc_<Type>`` that says what kind of object stands there.
"""

from __future__ import annotations

import ast
import inspect
import math
import sys
from types import FunctionType
from typing import Any, Dict, List, Optional

_SCALARS = (type(None), bool, int, float, complex, str, bytes, type(Ellipsis))


def complete_definition(node: ast.AST, function: FunctionType) -> None:
    """Fill the defaults and annotations of *function* into *node*, a def or a lambda."""
    arguments = getattr(node, "args", None)
    if not isinstance(arguments, ast.arguments):
        return
    positional = arguments.posonlyargs + arguments.args
    defaults = function.__defaults__ or ()
    arguments.defaults = [value_expression(value) for value in defaults]
    kwdefaults = function.__kwdefaults__ or {}
    arguments.kw_defaults = [
        value_expression(kwdefaults[arg.arg]) if arg.arg in kwdefaults else None
        for arg in arguments.kwonlyargs
    ]
    if isinstance(node, ast.Lambda):
        return
    notes = _annotations(function)
    every = positional + arguments.kwonlyargs + [a for a in (arguments.vararg, arguments.kwarg) if a]
    for arg in every:
        if arg.annotation is None and arg.arg in notes:
            arg.annotation = notes[arg.arg]
    if getattr(node, "returns", None) is None and "return" in notes:
        setattr(node, "returns", notes["return"])  # noqa: B010 - def nodes only


def value_expression(value: Any, depth: int = 0) -> ast.expr:
    """An expression that reads as *value*: a literal, a display, a dotted name or ``__uc_<Type>``."""
    if depth < 8:
        shown = _literal_or_display(value, depth)
        if shown is not None:
            return shown
    dotted = _dotted_name(value)
    if dotted is not None:
        return dotted
    return ast.Name(id="__uc_%s" % (type(value).__name__.replace(".", "_") or "object"), ctx=ast.Load())


def _literal_or_display(value: Any, depth: int) -> Optional[ast.expr]:
    kind = type(value)
    if kind in _SCALARS and not (kind is float and math.isnan(value)):
        return ast.Constant(value=value, kind=None)
    if kind in (tuple, list, set):
        items = [value_expression(item, depth + 1) for item in value]
        if kind is tuple:
            return ast.Tuple(elts=items, ctx=ast.Load())
        if kind is list:
            return ast.List(elts=items, ctx=ast.Load())
        if items:
            return ast.Set(elts=items)
        return ast.Call(func=ast.Name(id="set", ctx=ast.Load()), args=[], keywords=[])
    if kind is frozenset:
        members = [value_expression(item, depth + 1) for item in value]
        inner: List[ast.expr] = [ast.Set(elts=members)] if members else []
        return ast.Call(func=ast.Name(id="frozenset", ctx=ast.Load()), args=inner, keywords=[])
    if kind is dict:
        return ast.Dict(
            keys=[value_expression(k, depth + 1) for k in value],
            values=[value_expression(v, depth + 1) for v in value.values()],
        )
    return None


def _dotted_name(value: Any) -> Optional[ast.expr]:
    """``module.Qual.name`` for a class or function found at that path; builtins bare."""
    if not (inspect.isclass(value) or inspect.isroutine(value)):
        return None
    module, qualname = getattr(value, "__module__", None), getattr(value, "__qualname__", None)
    if not isinstance(module, str) or not isinstance(qualname, str):
        return None
    found: Any = sys.modules.get(module)
    for part in qualname.split("."):
        found = getattr(found, part, None)
    if found is not value:
        return None
    parts = ([] if module == "builtins" else module.split(".")) + qualname.split(".")
    expression: ast.expr = ast.Name(id=parts[0], ctx=ast.Load())
    for part in parts[1:]:
        expression = ast.Attribute(value=expression, attr=part, ctx=ast.Load())
    return expression


def _annotations(function: FunctionType) -> Dict[str, ast.expr]:
    """The annotations of *function* as expressions; strings are parsed, failures left out."""
    try:
        given = _given_annotations(function)
    except Exception:  # evaluating the annotations may fail (a name not defined yet)
        return {}
    notes: Dict[str, ast.expr] = {}
    for name, value in given.items():
        if isinstance(value, str):
            try:
                notes[name] = ast.parse(value, mode="eval").body
            except SyntaxError:
                notes[name] = ast.Constant(value=value, kind=None)
        elif type(value).__module__ in ("typing", "types") and _dotted_name(value) is None:
            notes[name] = _parsed_repr(value)  # typing.List[int], int | None ...
        else:
            notes[name] = value_expression(value)
    return notes


def _given_annotations(function: FunctionType) -> Dict[str, Any]:
    """The annotations the function holds; from 3.14 on as their source text, so that names
    not defined when asked (imported only for type checking, defined later) do not lose them."""
    try:
        import annotationlib  # type: ignore[import-not-found,unused-ignore]  # 3.14+
    except ImportError:
        return dict(function.__annotations__)
    return dict(annotationlib.get_annotations(function, format=annotationlib.Format.STRING))


def _parsed_repr(value: Any) -> ast.expr:
    try:
        return ast.parse(repr(value), mode="eval").body
    except SyntaxError:
        return value_expression(value)
