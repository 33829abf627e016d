"""Fixtures for the verifier's tests: a stand-in decompiler that returns the original source.

The verifier must be trustworthy before the decompiler is: compiled the verifier's way, the
original source of a function must compare identical to the original code object. The
oracle finds, for a code object compiled from a file, the definition it came from and
returns that definition's source text.
"""

from __future__ import annotations

import ast
import io
import textwrap
import tokenize
from types import CodeType
from typing import Callable, Dict, Tuple, Union

import pytest

from uncompile.errors import DecompileError

Definition = Union[ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef]


def _first_line(node: Definition) -> int:
    return min([node.lineno] + [decorator.lineno for decorator in node.decorator_list])


def _has_multiline_string(text: str) -> bool:
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(textwrap.dedent(text)).readline))
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return True
    return any(token.type == tokenize.STRING and token.start[0] != token.end[0] for token in tokens)


def _segment(lines: list, node: Definition) -> str:
    """The source of *node* without its decorators, dedented; DecompileError if that is unsafe."""
    end = getattr(node, "end_lineno", None)
    if end is None:
        raise DecompileError("no end line")
    chunk = lines[node.lineno - 1 : end]
    if _has_multiline_string("".join(chunk)):
        raise DecompileError("cannot dedent (multi-line string)")
    indent = node.col_offset
    for line in chunk:
        if line.strip() and not line.startswith(" " * indent):
            raise DecompileError("cannot dedent (multi-line string)")
    return "".join(line[indent:] if line.strip() else "\n" for line in chunk)


def make_oracle(text: str) -> Callable[[CodeType], str]:
    """A ``decompile`` function for code objects compiled from *text*."""
    tree = ast.parse(text)
    lines = [line + "\n" for line in text.split("\n")]  # as ast counts lines
    definitions: Dict[Tuple[str, int], Definition] = {}
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            definitions[(node.name, _first_line(node))] = node

    def decompile(code: CodeType) -> str:
        if code.co_name == "<module>":
            return text
        node = definitions.get((code.co_name, code.co_firstlineno))
        if node is None:
            raise DecompileError("the oracle knows only definitions", function=code.co_name)
        return _segment(lines, node)

    return decompile


@pytest.fixture
def oracle() -> Callable[[str], Callable[[CodeType], str]]:
    """``oracle(text)`` -> a stand-in decompiler for code compiled from *text*."""
    return make_oracle
