"""Generic definitions (PEP 695, 3.12+): ``def f[T]``, ``class C[T]``, ``type A[T] = ...``.

The compiler wraps such a definition in a hidden function ``<generic parameters of NAME>``
that makes the type parameters, builds the definition with them and returns it; the
enclosing code calls it at once (with the function's defaults as arguments) and stores the
result. :func:`generic_definition` decompiles the hidden function, whose simulation ends in
the definition statement itself (see :mod:`uncompile.expressions.type_params`), and gives
back the value the call stands for.
"""

from __future__ import annotations

import ast
from typing import Any, List

from ..bytecode import versions as V
from ..errors import DecompileError
from ..expressions import values as M

_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def generic_definition(value: M.FunctionValue, args: List[ast.expr]) -> Any:
    """What calling *value* (a ``<generic parameters of NAME>`` function) with *args* makes:
    a :class:`~uncompile.expressions.values.GenericDefinition` or a ``type`` alias value."""
    from .definitions import body_of

    code = value.code
    name = code.co_name[len(V.GENERIC_PARAMETERS_PREFIX) : -1]
    if len(args) != code.co_argcount:
        raise DecompileError("generic parameters called with %d arguments" % len(args), construct="def")
    arguments = dict(zip(code.co_varnames, args))
    body = body_of(code, arguments)
    if len(body) != 1:
        raise DecompileError("generic definition of %s" % name, function=code.co_name, construct="def")
    statement = body[0]
    if hasattr(ast, "TypeAlias") and isinstance(statement, getattr(ast, "TypeAlias")):  # noqa: B009
        return M.TypeAliasValue(statement, name)
    if not isinstance(statement, _DEFINITIONS):
        raise DecompileError("generic definition of %s" % name, function=code.co_name, construct="def")
    return M.GenericDefinition(statement)


def stored_generic(value: M.GenericDefinition, name: str) -> ast.stmt:
    """The statement of *value* stored under *name*, with the decorators applied to it."""
    from .definitions import is_private_name_stored_as

    statement = value.statement
    if statement.name != name and not is_private_name_stored_as(statement.name, name):
        raise DecompileError("generic %s stored as %s" % (statement.name, name), construct="def")
    statement.decorator_list = list(value.decorators) + statement.decorator_list
    return statement
