"""Symbolic effects of the block-stack instructions of CPython 3.8 - 3.10.

Before exception tables, ``try``/``with`` push blocks at run time (``SETUP_FINALLY``,
``SETUP_WITH``) and the compiler emits instructions that manage them on every path out of
a block: ``POP_BLOCK``, 3.8's ``BEGIN_FINALLY``/``CALL_FINALLY``/``POP_FINALLY``/
``END_FINALLY`` and ``WITH_CLEANUP_START``/``WITH_CLEANUP_FINISH``. The structurer
(:mod:`uncompile.structure.blocks_legacy`) decides where blocks begin and end; on the
paths it walks these instructions have no source form, and this mixin of the
:class:`~uncompile.expressions.simulator.Simulator` gives them the stack effects the
structurer's model needs (the value stack holds no ``NULL`` of a ``BEGIN_FINALLY``).
"""

from __future__ import annotations

from typing import Any, List

from . import values as M

Stack = List[Any]


class LegacyBlockOps:
    """``op_*`` handlers for the 3.8 - 3.10 block instructions (see the module docstring)."""

    def op_POP_BLOCK(self, ins: Any, stack: Stack) -> None:
        pass

    def op_BEGIN_FINALLY(self, ins: Any, stack: Stack) -> None:
        pass

    def op_CALL_FINALLY(self, ins: Any, stack: Stack) -> None:
        pass

    def op_POP_FINALLY(self, ins: Any, stack: Stack) -> None:
        pass

    def op_END_FINALLY(self, ins: Any, stack: Stack) -> None:
        pass

    def op_WITH_CLEANUP_START(self, ins: Any, stack: Stack) -> None:
        """3.8: calls the ``__exit__`` of the innermost ``with``, on the normal path."""
        for k in range(len(stack) - 1, -1, -1):
            if isinstance(stack[k], M.WithExit):
                stack[k] = M.Discard()
                return

    def op_WITH_CLEANUP_FINISH(self, ins: Any, stack: Stack) -> None:
        if stack and isinstance(stack[-1], M.Discard):
            stack.pop()
