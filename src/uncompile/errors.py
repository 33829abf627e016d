"""Exceptions raised by uncompile.

Every failure a user can provoke with bad input is one of these, with a message that
names what was wrong; the CLI prints the message as one line and exits with status 1.
"""

from __future__ import annotations

from typing import Optional


class UncompileError(Exception):
    """Base class of every error uncompile raises on purpose."""


class InputError(UncompileError):
    """The input is not something uncompile can read (wrong type, missing file...)."""


class PycError(InputError):
    """A ``.pyc`` file is truncated, corrupt, or from another Python version."""


class DecompileError(UncompileError):
    """Bytecode that the decompiler cannot turn into source.

    Names the code object, the instruction offset and the construct involved.
    """

    def __init__(
        self,
        message: str,
        *,
        function: Optional[str] = None,
        offset: Optional[int] = None,
        construct: Optional[str] = None,
    ) -> None:
        self.function = function
        self.offset = offset
        self.construct = construct
        self.reason = message
        where = []
        if function is not None:
            where.append("in %s" % function)
        if offset is not None:
            where.append("at offset %d" % offset)
        if construct is not None:
            where.append("(%s)" % construct)
        super().__init__(message + (": " + " ".join(where) if where else ""))


class RecompileError(UncompileError):
    """Decompiled source that could not be compiled back into an equivalent code object."""
