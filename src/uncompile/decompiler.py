"""The decompiler's entry points: a code object in, an ``ast.Module`` or source text out.

The work is done by the parts named in the file tree: :mod:`uncompile.bytecode` reads
instructions, :mod:`uncompile.flow` builds the control-flow graph,
:mod:`uncompile.expressions` executes instructions symbolically and
:mod:`uncompile.structure` rebuilds statements. Every statement produced carries
``uncompile_offsets``, the offsets of the instructions it came from.
"""

from __future__ import annotations

import ast
import functools
import gc
import inspect
from types import CodeType, FunctionType
from typing import Any, Callable, Optional, TypeVar

from .errors import DecompileError
from .source.printer import to_source
from .structure.annotations import evaluator_statement, is_lazy_evaluator
from .structure.definitions import Nested, body_of, give_type_params, signature
from .structure.live_function import complete_definition
from .structure.private_names import demangle_private_names
from .structure.statements import iter_statements

_COMPREHENSIONS = ("<listcomp>", "<setcomp>", "<dictcomp>", "<genexpr>")

_Entry = TypeVar("_Entry", bound=Callable[..., Any])


def _collector_paused(entry: _Entry) -> _Entry:
    """Run *entry* with the cyclic garbage collector paused (as it was afterwards).

    A decompilation allocates many small objects (instructions, values, syntax nodes) and
    keeps most of them until it ends; the collector would walk them again and again and
    find next to nothing to free. Cycles made meanwhile are collected when it runs again.
    """

    @functools.wraps(entry)
    def paused(*args: Any, **kwargs: Any) -> Any:
        if not gc.isenabled():
            return entry(*args, **kwargs)
        gc.disable()
        try:
            return entry(*args, **kwargs)
        finally:
            gc.enable()

    return paused  # type: ignore[return-value]


def _tag_all(tree: ast.Module) -> ast.Module:
    """Give every statement ``uncompile_offsets``: none for those not made from instructions."""
    for node in iter_statements(tree.body):
        if not hasattr(node, "uncompile_offsets"):
            node.uncompile_offsets = ()  # type: ignore[attr-defined]
    return tree


@_collector_paused
def decompile_to_ast(code: CodeType) -> ast.Module:
    """Decompile *code* into a module (see the package docs for the shape per code kind)."""
    return _tag_all(_module(code))


def _module(code: CodeType) -> ast.Module:
    """The module :func:`decompile_to_ast` returns, before its statements are all tagged (source
    text needs no offsets)."""
    if not isinstance(code, CodeType):
        raise DecompileError("not a code object: %r" % type(code).__name__)
    try:
        module = ast.Module(body=_decompile(code), type_ignores=[])
    except RecursionError:
        raise DecompileError("nesting too deep", function=code.co_name) from None
    except DecompileError:
        raise
    except (IndexError, KeyError, AttributeError, TypeError, ValueError, AssertionError) as exc:
        raise DecompileError(
            "internal error %s: %s" % (type(exc).__name__, exc), function=code.co_name, construct="decompiler"
        ) from exc
    return module


def _decompile(code: CodeType) -> list:
    name = code.co_name
    if name == "<module>":
        return body_of(code)
    if name == "<lambda>":
        from .expressions.values import FunctionValue

        return [ast.Expr(value=Nested(code).expression(FunctionValue(code)))]
    if name in _COMPREHENSIONS:
        from .expressions.values import FunctionValue

        expr = Nested(code).comprehension(FunctionValue(code), ast.Name(id="_0_", ctx=ast.Load()))
        return [ast.Expr(value=expr)]
    if is_lazy_evaluator(code):  # 3.14+: the value of a ``type`` statement, a bound...
        return [evaluator_statement(code)]
    body = body_of(code)
    if not code.co_flags & inspect.CO_NEWLOCALS:  # a class body
        node = ast.ClassDef(name=name, bases=[], keywords=[], body=body or [ast.Pass()], decorator_list=[])
        give_type_params(node)
        return [node]
    is_async = bool(code.co_flags & (inspect.CO_COROUTINE | inspect.CO_ASYNC_GENERATOR))
    node_type = ast.AsyncFunctionDef if is_async else ast.FunctionDef
    func = node_type(
        name=name,
        args=signature(code),
        body=body or [ast.Pass()],
        decorator_list=[],
        returns=None,
        type_comment=None,
    )
    demangle_private_names([func.args], code)
    give_type_params(func)
    return [func]


def _print(tree: ast.Module) -> str:
    """Source text for *tree* (the project's printer: ``ast.unparse`` is absent on 3.8)."""
    return to_source(tree)


@_collector_paused
def decompile_code(code: CodeType) -> str:
    """Python source for *code*."""
    return _print(_module(code))


@_collector_paused
def decompile_function(function: FunctionType) -> str:
    """Python source for a live *function*: its code, with the defaults and annotations it holds."""
    tree = _module(function.__code__)
    node: Optional[ast.AST] = tree.body[0] if tree.body else None
    if isinstance(node, ast.Expr):  # a lambda
        node = node.value
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
        complete_definition(node, function)
    return _print(tree)
