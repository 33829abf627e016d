"""Readability check: does a decompiled function print as its original source does?

Bytecode that round-trips identically can still come from text that reads differently
(``else: if`` for ``elif``, a temporary the author never wrote). This module compares
texts instead: the original function's body, parsed with :mod:`ast` and printed with the
project's printer (so comments and layout do not count, docstrings do), against the body
of the decompiled function printed the same way. Only bodies are compared: a function's
decorators, defaults and annotations are evaluated by the code around it, not held in
its own code object.
"""

from __future__ import annotations

import ast
import difflib
from types import CodeType
from typing import List, Optional, Union

from ..source import to_source
from .compare import docstring_of

FunctionNode = Union[ast.FunctionDef, ast.AsyncFunctionDef]


def _first_line(node: FunctionNode) -> int:
    """The line a function's code object starts on: its first decorator's, else the ``def``'s."""
    return node.decorator_list[0].lineno if node.decorator_list else node.lineno


def find_function(tree: ast.AST, code: CodeType) -> Optional[FunctionNode]:
    """The ``def`` of *tree* that *code* was compiled from (None for lambdas, classes, ...)."""
    for node in ast.walk(tree):
        if (
            isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
            and node.name == code.co_name
            and _first_line(node) == code.co_firstlineno
        ):
            return node
    return None


def compiled_body_text(node: FunctionNode, code: CodeType) -> str:
    """The printed body of *node*, a ``def`` of *code*, with its docstring as *code* holds it:
    3.13+ compilers strip a docstring's indentation, which then depends on where the ``def``
    stands (the decompiled function stands at the top level, the original maybe in a class)."""
    body = node.body
    held = docstring_of(code)
    first = body[0] if body else None
    if (
        held is not None
        and isinstance(first, ast.Expr)
        and isinstance(first.value, ast.Constant)
        and isinstance(first.value.value, str)
    ):
        body = [ast.Expr(value=ast.Constant(value=held))] + body[1:]
    return to_source(body)


def decompiled_body_text(source: str, code: CodeType) -> str:
    """The printed body of the single function that *source*, *code* decompiled, defines."""
    for node in ast.parse(source).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return compiled_body_text(node, code)
    raise ValueError("the decompiled source defines no function")


def source_difference(original: str, decompiled: str, label: str = "") -> List[str]:
    """Unified-diff lines from the *original* body text to the *decompiled* one (empty when equal)."""
    if original == decompiled:
        return []
    return list(
        difflib.unified_diff(
            original.splitlines(),
            decompiled.splitlines(),
            "original %s" % label,
            "decompiled %s" % label,
            lineterm="",
        )
    )


def compare_function(tree: ast.AST, code: CodeType, label: str = "") -> Optional[List[str]]:
    """Diff lines between *code*'s ``def`` in *tree* and its decompiled body ([] when the same).

    None when *tree* has no ``def`` for *code*. A decompilation that fails is a difference
    (its one added line names the error).
    """
    node = find_function(tree, code)
    if node is None:
        return None
    from ..decompiler import decompile_code  # the decompiler imports verification's neighbours

    try:
        decompiled = decompiled_body_text(decompile_code(code), code)
    except Exception as error:  # noqa: BLE001 - any failure is reported as the difference
        decompiled = "<%s: %s>" % (type(error).__name__, error)
    return source_difference(compiled_body_text(node, code), decompiled, label)
