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


def body_text(node: FunctionNode) -> str:
    """The printed body of the function *node*."""
    return to_source(node.body)


def decompiled_body_text(source: str) -> str:
    """The printed body of the single function that decompiled *source* defines."""
    for node in ast.parse(source).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return body_text(node)
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
        decompiled = decompiled_body_text(decompile_code(code))
    except Exception as error:  # noqa: BLE001 - any failure is reported as the difference
        decompiled = "<%s: %s>" % (type(error).__name__, error)
    return source_difference(body_text(node), decompiled, label)
