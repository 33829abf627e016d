"""Check decompiled source: recompile it and compare the bytecode with the original.

:func:`verify_code` is the verdict other parts of uncompile (the torch dump, the debugger)
use to decide whether decompiled source can stand in for the original code. It never
raises for a failure of the decompiler: the failure is recorded in the result.
"""

from __future__ import annotations

import traceback
from types import CodeType
from typing import Callable, Optional

from ..errors import DecompileError, RecompileError
from .compare import Difference, compare_code

__all__ = ["Difference", "Verification", "compare_code", "verify_code"]


class Verification:
    """The outcome of decompiling, recompiling and comparing one code object.

    * ``source``: the decompiled source, or None when decompiling failed;
    * ``compiles``: the source compiled back into a code object laid out like the original;
    * ``identical``: that code object has the same bytecode as the original;
    * ``difference``: the first :class:`~uncompile.verification.compare.Difference` otherwise;
    * ``error``: one line naming what failed (a ``DecompileError``, a ``RecompileError``
      or, with ``crashed`` set, any other exception), or None.
    """

    def __init__(
        self,
        source: Optional[str] = None,
        compiles: bool = False,
        identical: bool = False,
        difference: Optional[Difference] = None,
        error: Optional[str] = None,
        crashed: bool = False,
        recompiled: Optional[CodeType] = None,
    ) -> None:
        self.source = source
        self.compiles = compiles
        self.identical = identical
        self.difference = difference
        self.error = error
        self.crashed = crashed
        self.recompiled = recompiled

    @property
    def outcome(self) -> str:
        """One word: ``identical``, ``different``, ``uncompilable``, ``decompile-error`` or ``crash``."""
        if self.identical:
            return "identical"
        if self.compiles:
            return "different"
        if self.crashed:
            return "crash"
        if self.source is None:
            return "decompile-error"
        return "uncompilable"

    def __bool__(self) -> bool:
        return self.identical

    def __str__(self) -> str:
        if self.identical:
            return "identical"
        if self.difference is not None:
            return "different: %s" % (self.difference,)
        return "%s: %s" % (self.outcome, self.error)

    def __repr__(self) -> str:
        return "<Verification %s>" % self


def _one_line(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return "%s: %s" % (type(error).__name__, text[0] if text else "")


def _crash_line(error: BaseException) -> str:
    frames = traceback.extract_tb(error.__traceback__)
    where = ""
    if frames:
        last = frames[-1]
        where = " (%s:%d in %s)" % (
            last.filename.replace("\\", "/").rsplit("/", 1)[-1],
            last.lineno or 0,
            last.name,
        )
    return _one_line(error) + where


def _default_decompiler() -> Callable[[CodeType], str]:
    from ..decompiler import decompile_code

    return decompile_code


def verify_code(
    code: CodeType,
    *,
    qualname: Optional[str] = None,
    decompile: Optional[Callable[[CodeType], str]] = None,
) -> Verification:
    """Decompile *code*, recompile the source in the original's context and compare bytecode.

    *qualname* gives the qualified name on 3.8-3.10 (where code objects lack it), so that
    methods and nested functions are recompiled in the right context. *decompile* replaces
    :func:`uncompile.decompiler.decompile_code` (the tests check the checker with it).
    """
    from .recompile import recompile

    if decompile is None:
        decompile = _default_decompiler()
    try:
        source = decompile(code)
    except DecompileError as error:
        return Verification(error=_one_line(error))
    except Exception as error:  # noqa: BLE001 - a crash of the decompiler is a result here
        return Verification(error=_crash_line(error), crashed=True)
    try:
        recompiled = recompile(code, source=source, qualname=qualname)
    except RecompileError as error:
        return Verification(source=source, error=_one_line(error))
    except Exception as error:  # noqa: BLE001
        return Verification(source=source, error=_crash_line(error), crashed=True)
    difference = compare_code(code, recompiled, qualname)
    return Verification(
        source=source,
        compiles=True,
        identical=difference is None,
        difference=difference,
        recompiled=recompiled,
    )
