"""What the tests share: a function defined from a source snippet, or from decompiled code."""

from __future__ import annotations

import textwrap
from typing import Any


def define(source: str, name: str = "f") -> Any:
    """The function *name* that *source* (dedented) defines, compiled without this module's
    ``__future__`` flags, so that the snippet's bytecode is what the snippet alone gives."""
    namespace: dict = {}
    exec(compile(textwrap.dedent(source), "<snippet>", "exec", dont_inherit=True), namespace)
    return namespace[name]


def decompiled(function: Any) -> Any:
    """*function* again, defined by the decompiled source of its code (in a fresh namespace)."""
    from uncompile.decompiler import decompile_code

    namespace: dict = {}
    exec(decompile_code(function.__code__), namespace)
    return namespace[function.__code__.co_name]
