"""Source emission: Python text from ``ast`` trees, with the output lines of each statement.

:func:`emit` and :func:`to_source` live in :mod:`uncompile.source.printer`; they work on
the ASTs of Python 3.8 through 3.15 without ``ast.unparse``.
"""

from __future__ import annotations

from .printer import Emitted, emit, to_source

__all__ = ["Emitted", "emit", "to_source"]
