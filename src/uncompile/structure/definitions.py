"""Definitions from nested code objects: ``def``, ``class``, ``lambda``, comprehensions.

:class:`Nested` is what the simulator calls when a ``MAKE_FUNCTION`` result is stored,
called or used as a value. It decompiles the nested code object (recursively, through
:func:`body_of`) and builds the definition with its arguments, defaults, annotations and
decorators (a generic one, 3.12+, through :mod:`uncompile.structure.generics`).
:func:`signature` rebuilds ``ast.arguments`` from a code object.
"""

from __future__ import annotations

import ast
import inspect
from types import CodeType
from typing import Any, Dict, List, Optional

from ..errors import DecompileError
from ..expressions import values as M
from .annotations import annotation_mapping, evaluator_statement, unstringified
from .cleanup import tidy_body
from .comprehensions import loop_to_comprehension
from .generics import generic_definition, stored_generic
from .private_names import demangle_private_names
from .straight_line import walked_statements

#: Whether definitions have ``type_params`` (3.12+; generic ones fill them, see generics).
HAS_TYPE_PARAMS = hasattr(ast, "TypeAlias")
#: The flags of an ``async def``'s code.
_ASYNC = inspect.CO_COROUTINE | inspect.CO_ASYNC_GENERATOR
_VARARGS = inspect.CO_VARARGS
_VARKEYWORDS = inspect.CO_VARKEYWORDS


def give_type_params(node: ast.stmt, value: Any = None) -> None:
    """Give the definition *node* its ``type_params`` field (3.12+; absent before): those of
    *value*, the function or class value it is made from (only a generic one has them)."""
    if HAS_TYPE_PARAMS:
        params = getattr(value, "type_params", ())
        setattr(node, "type_params", list(params))  # noqa: B010 - the field is new in 3.12


def _const_items(node: Any) -> Optional[List[ast.expr]]:
    if isinstance(node, ast.Tuple):
        return list(node.elts)
    if isinstance(node, ast.Constant) and isinstance(node.value, tuple):
        return [ast.Constant(value=v) for v in node.value]
    return None


def _annotations(node: Any) -> Dict[Any, ast.expr]:
    if node is None:
        return {}
    if isinstance(node, M.FunctionValue):  # 3.14+: an __annotate__ function
        return annotation_mapping(node.code)
    if isinstance(node, ast.Dict):
        return {k.value: v for k, v in zip(node.keys, node.values) if isinstance(k, ast.Constant)}
    items = _const_items(node)
    if items is None:
        return {}
    return {k.value: v for k, v in zip(items[0::2], items[1::2]) if isinstance(k, ast.Constant)}


def function_annotations(value: M.FunctionValue) -> Dict[Any, ast.expr]:
    """The annotations that *value* gives its parameters (and ``"return"``), as written."""
    if value.annotations is None:  # (most functions)
        return {}
    return unstringified(_annotations(value.annotations), value.code)


def signature(
    code: CodeType, value: Optional[M.FunctionValue] = None, notes: Optional[Dict[Any, ast.expr]] = None
) -> ast.arguments:
    """The parameters of *code*, with defaults and annotations from *value* (*notes*: its
    :func:`function_annotations`, when the caller has them)."""
    flags = code.co_flags
    npos = code.co_argcount
    nkw = code.co_kwonlyargcount
    kwonly_end = npos + nkw
    count = kwonly_end + (1 if flags & _VARARGS else 0) + (1 if flags & _VARKEYWORDS else 0)
    names = code.co_varnames[:count]
    if notes is None:
        notes = function_annotations(value) if value is not None else {}
    new_arg = ast.arg  # (arg, annotation, type_comment): one per parameter, in the order of *names*
    if notes:
        note = notes.get
        params = [new_arg(name, note(name), None) for name in names]
    else:  # (most functions)
        params = [new_arg(name, None, None) for name in names]
    if ".0" in names:  # a comprehension's iterator
        params[names.index(".0")].arg = "_0_"
    vararg = params[kwonly_end] if flags & _VARARGS else None
    kwarg = params[-1] if flags & _VARKEYWORDS else None
    posonly = code.co_posonlyargcount
    defaults: Optional[List[ast.expr]] = None
    kw_defaults: List[Optional[ast.expr]] = [None] * nkw
    if value is not None:
        if value.defaults is not None:
            defaults = _const_items(value.defaults)
        if isinstance(value.kwdefaults, ast.Dict):
            given = {
                k.value: v
                for k, v in zip(value.kwdefaults.keys, value.kwdefaults.values)
                if isinstance(k, ast.Constant)
            }
            kw_defaults = [given.get(n) for n in names[npos:kwonly_end]]
    positional, kwonly = params[:npos], params[npos:kwonly_end]
    # (posonlyargs, args, vararg, kwonlyargs, kw_defaults, kwarg, defaults)
    return ast.arguments(
        positional[:posonly], positional[posonly:], vararg, kwonly, kw_defaults, kwarg, defaults or []
    )


def is_private_name_stored_as(name: str, stored: str) -> bool:
    """True when *stored* is the ``__private`` *name* as a class body mangles it (``_Class__name``).

    A ``def __name`` or ``class __name`` inside a class keeps *name* as its own name but is
    bound to the mangled one, so compiling ``def __name`` there gives back the same store.
    """
    if not name.startswith("__") or name.endswith("__") or "." in name:
        return False
    prefix = stored[: -len(name)] if stored.endswith(name) else ""
    return prefix.startswith("_") and len(prefix) > 1 and not prefix.startswith("__")


def returned_expression(body: List[ast.stmt]) -> Optional[ast.expr]:
    """The expression that *body* returns: ``return x``, or ``if c: return x`` then ``return y``
    (a ternary whose branches each return, as 3.12+ lay it out), else None."""
    if not body:
        return None
    first = body[0]
    if len(body) == 1 and isinstance(first, ast.Return):
        return first.value
    if not isinstance(first, ast.If) or (first.orelse and len(body) > 1):
        return None
    then = returned_expression(first.body)
    orelse = returned_expression(first.orelse or body[1:])
    if then is None or orelse is None:
        return None
    return ast.IfExp(test=first.test, body=then, orelse=orelse)


def body_of(code: CodeType, arguments: Optional[Dict[str, ast.expr]] = None) -> List[ast.stmt]:
    """The statements of *code* (a function, class or module body), tidied; *arguments* are the
    values of its hidden parameters (a generic definition's function defaults)."""
    stmts, sim = walked_statements(code, Nested(code, arguments))
    stmts = tidy_body(stmts, code, sim)
    demangle_private_names(stmts, code)
    return stmts


class Nested:
    """Builds definitions for code objects nested in *parent* (see the module docstring)."""

    def __init__(self, parent: CodeType, arguments: Optional[Dict[str, ast.expr]] = None) -> None:
        self.parent = parent
        self.arguments = arguments or {}

    def _argument(self, node: Any) -> Any:
        """*node*, or the value passed for it when it is a hidden parameter of *parent*."""
        if isinstance(node, ast.Name) and node.id in self.arguments:
            return self.arguments[node.id]
        return node

    def generic(self, value: M.FunctionValue, args: List[ast.expr]) -> Any:
        return generic_definition(value, args)

    def stored_generic(self, value: M.GenericDefinition, name: str) -> ast.stmt:
        return stored_generic(value, name)

    def evaluated(self, value: M.FunctionValue) -> ast.expr:
        """The expression a lazily evaluated value's function (a type parameter's bound) returns."""
        return getattr(evaluator_statement(value.code), "value")  # noqa: B009

    def definition(self, value: Any, name: str) -> ast.stmt:
        if isinstance(value, M.ClassValue):
            return self.class_def(value, name)
        code = value.code
        own_name = code.co_name == name or is_private_name_stored_as(code.co_name, name)
        if not own_name or code.co_name == "<lambda>":
            return ast.Assign(
                targets=[ast.Name(id=name, ctx=ast.Store())], value=self.expression(value), type_comment=None
            )
        return self.function_def(value)

    def function_def(self, value: M.FunctionValue) -> ast.stmt:
        code = value.code
        if self.arguments:
            value.defaults = self._argument(value.defaults)
            value.kwdefaults = self._argument(value.kwdefaults)
        body = body_of(code)
        notes = function_annotations(value)
        node_type = ast.AsyncFunctionDef if code.co_flags & _ASYNC else ast.FunctionDef
        # (name, args, body, decorator_list, returns, type_comment): fields given by position
        # are set faster than by keyword (3.12+: type_params given below)
        args = signature(code, value, notes)
        node = node_type(
            code.co_name, args, body or [ast.Pass()], list(value.decorators), notes.get("return"), None
        )
        give_type_params(node, value)
        return node

    def class_def(self, value: M.ClassValue, name: str) -> ast.stmt:
        body = body_of(value.body.code)
        # (name, bases, keywords, body, decorator_list): by position, see function_def
        node = ast.ClassDef(
            value.name, value.bases, value.keywords, body or [ast.Pass()], list(value.decorators)
        )
        give_type_params(node, value)
        if name != value.name and not is_private_name_stored_as(value.name, name):
            raise DecompileError("class %s stored as %s" % (value.name, name), construct="class")
        return node

    def type_alias(self, evaluator: M.FunctionValue, name: str) -> ast.stmt:
        """``type name = value``, whose value *evaluator* computes."""
        if evaluator.code.co_name != name:
            raise DecompileError(
                "type alias %s evaluated by %s" % (name, evaluator.code.co_name), construct="type"
            )
        return evaluator_statement(evaluator.code)

    def expression(self, value: M.FunctionValue) -> ast.expr:
        code = value.code
        if code.co_name != "<lambda>":
            raise DecompileError("function %s used as a value" % code.co_name, construct="def")
        body = body_of(code)
        expr: Optional[ast.expr]
        if len(body) == 1 and isinstance(body[0], ast.Expr) and code.co_flags & inspect.CO_GENERATOR:
            expr = body[0].value
        else:
            expr = returned_expression(body)
        if expr is None:
            raise DecompileError(
                "lambda body is not an expression", function=code.co_name, construct="lambda"
            )
        node: ast.expr = ast.Lambda(args=signature(code, value), body=expr)
        for decorator in reversed(value.decorators):
            node = ast.Call(func=decorator, args=[node], keywords=[])
        return node

    def comprehension(self, value: M.FunctionValue, iterable: ast.expr) -> ast.expr:
        code = value.code
        body = body_of(code)
        expr: Optional[ast.expr] = None
        if code.co_name == "<genexpr>":
            loops = [s for s in body if isinstance(s, (ast.For, ast.AsyncFor))]
            if loops:
                expr = loop_to_comprehension(loops[0], "generator")
        elif body and isinstance(body[-1], ast.Return):
            expr = body[-1].value
        if expr is None or not hasattr(expr, "generators"):
            raise DecompileError("comprehension body", function=code.co_name, construct="comprehension")
        first = getattr(expr, "generators")[0]  # noqa: B009
        if isinstance(first.iter, ast.Name) and first.iter.id == "_0_":
            first.iter = iterable
        if code.co_flags & inspect.CO_COROUTINE:
            # a list/set/dict comprehension with ``async for``/``await`` (<= 3.11): its call makes
            # a coroutine that the next instruction awaits, written as the comprehension itself
            expr.uncompile_awaited = True  # type: ignore[attr-defined]
        return expr
