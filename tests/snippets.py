"""What the tests share: a function defined from a source snippet."""

from __future__ import annotations

import textwrap
from typing import Any


def define(source: str, name: str = "f") -> Any:
    """The function *name* that *source* (dedented) defines, compiled without this module's
    ``__future__`` flags, so that the snippet's bytecode is what the snippet alone gives."""
    namespace: dict = {}
    exec(compile(textwrap.dedent(source), "<snippet>", "exec", dont_inherit=True), namespace)
    return namespace[name]
