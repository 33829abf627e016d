"""Simulator operations that only 3.14+ bytecode needs (a mixin of the simulator).

* ``LOAD_BUILTIN`` (the neutral form of ``LOAD_COMMON_CONSTANT`` for a builtin) and
  ``IMPORT_NAME_LAZY`` (3.15 ``lazy import``);
* template strings, delegated to :mod:`.templates`;
* deferred annotations (:mod:`uncompile.structure.annotations`): storing a body's
  ``__annotate__`` function, ``__conditional_annotations__.add(k)`` and the class body's
  ``__classdict__`` cell.
"""

from __future__ import annotations

import ast
import inspect
from typing import Any, List

from ..bytecode import versions as V
from ..bytecode.instructions import Instr
from ..structure.annotations import CONDITIONAL_SET, AnnotateFunction, ConditionalAnnotation
from . import templates
from . import values as M

Stack = List[Any]


#: The name given to the items a 3.15 generator expression unpacks (``*x``) while structuring.
UNPACKED_ITEM = "__uc_unpacked__"


def unpacked_item(target: M.LoopTarget) -> ast.expr:
    """The value of a loop yielded without being stored (3.15 ``(*x for x in y)``): its loop gets
    the target :data:`UNPACKED_ITEM`, which the comprehension builder turns into ``*iterable``."""
    target.target = ast.Name(id=UNPACKED_ITEM, ctx=ast.Store())
    return ast.Name(id=UNPACKED_ITEM, ctx=ast.Load())


def _generated_annotate(code: Any) -> bool:
    """Whether *code* is an ``__annotate__(format, /)`` function the compiler made for a body."""
    return (
        code.co_name == "__annotate__"
        and code.co_argcount == 1
        and getattr(code, "co_posonlyargcount", 0) == 1
        and code.co_varnames[:1] == ("format",)
    )


class Ops314:
    """Mixin of :class:`~uncompile.expressions.simulator.Simulator`; see the module docstring."""

    calls: Any
    code: Any

    def op_LOAD_BUILTIN(self, ins: Instr, stack: Stack) -> None:
        stack.append(ast.Name(id=ins.arg, ctx=ast.Load()))

    def op_IMPORT_NAME_LAZY(self, ins: Instr, stack: Stack) -> None:
        self.op_IMPORT_NAME(ins, stack)  # type: ignore[attr-defined]
        stack[-1].uncompile_lazy = True

    def mark_lazy(self, value: Any) -> None:
        """After *value* (an import result) became an import statement: make it ``lazy``."""
        module = value
        while hasattr(module, "uncompile_import_from"):  # (the submodules of ``import a.b.c as d``)
            module = module.value
        out = self.out  # type: ignore[attr-defined]
        last = out[-1] if out else None
        if getattr(module, "uncompile_lazy", False) and isinstance(last, (ast.Import, ast.ImportFrom)):
            last.is_lazy = 1  # type: ignore[union-attr]

    def op_BUILD_INTERPOLATION(self, ins: Instr, stack: Stack) -> None:
        templates.build_interpolation(self, ins, stack)

    def op_BUILD_TEMPLATE(self, ins: Instr, stack: Stack) -> None:
        templates.build_template(self, ins, stack)

    def op_SET_ADD(self, ins: Instr, stack: Stack) -> None:
        holder = stack[-2] if len(stack) >= 2 else None
        if ins.arg == 1 and isinstance(holder, ast.Name) and holder.id == CONDITIONAL_SET:
            index = self.pop_expr(stack, ins)  # type: ignore[attr-defined]
            stack[-1] = M.Discard()
            self.emit(ConditionalAnnotation(getattr(index, "value", -1)))  # type: ignore[attr-defined]
            return
        self.calls.step(ins, stack, self)

    def deferred_store(self, target: ast.expr, value: Any) -> bool:
        """Stores that are bookkeeping of deferred annotations; True when handled here."""
        if not isinstance(target, ast.Name):
            return False
        if (
            target.id in V.ANNOTATE_NAMES
            and isinstance(value, M.FunctionValue)
            and _generated_annotate(value.code)
            and not self.code.co_flags & inspect.CO_OPTIMIZED
        ):
            self.emit(AnnotateFunction(value.code))  # type: ignore[attr-defined]
            return True
        return target.id == "__classdict__" and isinstance(value, M.Discard)
