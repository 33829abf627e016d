"""What the tests share: a function defined from a source snippet, its round trip checked, or a
function defined from decompiled code."""

from __future__ import annotations

import textwrap
from typing import Any


def define(source: str, name: str = "f") -> Any:
    """The function *name* that *source* (dedented) defines, compiled without this module's
    ``__future__`` flags, so that the snippet's bytecode is what the snippet alone gives."""
    namespace: dict = {}
    exec(compile(textwrap.dedent(source), "<snippet>", "exec", dont_inherit=True), namespace)
    return namespace[name]


def round_trip(source: str, name: str = "f") -> Any:
    """The verification of the function *name* that *source* defines (decompiled, recompiled,
    compared), failing the test with the first difference and the source unless identical."""
    from uncompile.verification import verify_code

    result = verify_code(define(source, name).__code__, qualname=name)
    assert result.identical, "%s\n%s" % (result.difference or result.error, result.source)
    return result


def decompiled(function: Any) -> Any:
    """*function* again, defined by the decompiled source of its code (in a fresh namespace)."""
    from uncompile.decompiler import decompile_code

    namespace: dict = {}
    exec(decompile_code(function.__code__), namespace)
    return namespace[function.__code__.co_name]
