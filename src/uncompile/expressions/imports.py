"""Imports on the symbolic stack (a mixin of the simulator).

``IMPORT_NAME`` pushes a call of ``__import__`` tagged ``uncompile_import`` (module, level,
from-list), ``IMPORT_FROM`` an attribute of it tagged ``uncompile_import_from``. Storing
either under a name is an ``import`` or ``from ... import`` statement (:meth:`ImportOps.stored_import`);
the names a ``from`` import stores one after the other join one statement. ``IMPORT_STAR``
is ``from module import *``.

``import a.b.c as d`` reads each submodule in turn (``IMPORT_FROM b``, then ``IMPORT_FROM c`` of
that), dropping the values it no longer needs: an ``IMPORT_FROM`` of an ``IMPORT_FROM`` is tagged
``uncompile_submodule`` too, and dropping one is no statement.
"""

from __future__ import annotations

import ast
from typing import Any, List

from ..bytecode.instructions import Instr
from .targets import LOAD, name_node

Stack = List[Any]


class ImportOps:
    """``op_*`` handlers for imports, and their stores; see the module docstring."""

    emit: Any
    fail: Any
    #: Whether an ``IMPORT_NAME`` ran: only then can a value stored be an import's (an import
    #: value is made by this simulator's own steps), so most code never asks :meth:`stored_import`
    #: (False at first: set by the simulator's ``__init__``, a slot of its own)
    imported: bool
    out: List[ast.stmt]
    pending: List[int]
    pop: Any
    pop_expr: Any

    def op_IMPORT_NAME(self, ins: Instr, stack: Stack) -> None:
        self.imported = True
        fromlist = self.pop_expr(stack, ins)
        level = self.pop_expr(stack, ins)
        node = ast.Call(name_node("__import__"), [ast.Constant(ins.arg), fromlist, level], [])
        node.uncompile_import = (  # type: ignore[attr-defined]
            ins.arg,
            getattr(level, "value", 0),
            getattr(fromlist, "value", None),
        )
        stack.append(node)

    def op_IMPORT_FROM(self, ins: Instr, stack: Stack) -> None:
        module: Any = stack[-1] if stack else None
        node = ast.Attribute(module, ins.arg, LOAD)
        node.uncompile_import_from = ins.arg  # type: ignore[attr-defined]
        if hasattr(module, "uncompile_import_from"):  # the next submodule of ``import a.b.c as d``
            module.uncompile_submodule = node.uncompile_submodule = True  # type: ignore[attr-defined]
        stack.append(node)

    def op_IMPORT_STAR(self, ins: Instr, stack: Stack) -> None:
        module = self.pop(stack, ins)
        info = getattr(module, "uncompile_import", None)
        if info is None:
            raise self.fail(ins, "import * of something that is not an import")
        self.emit(ast.ImportFrom(info[0] or None, [ast.alias("*", None)], info[1]))

    def stored_import(self, name: str, value: Any) -> bool:
        """Emit ``import``/``from ... import`` for storing an import result; False if not one."""
        info: Any = getattr(value, "uncompile_import", None)
        if info is not None:
            module = info[0]
            asname = None if module.split(".")[0] == name else name
            if asname is None and module != name and "." not in module:
                asname = name
            self.emit(ast.Import([ast.alias(module, asname)]))
            return True
        attr = getattr(value, "uncompile_import_from", None)
        if attr is None:
            return False
        module_node = value.value
        info = getattr(module_node, "uncompile_import", None)
        if info is None or info[2] is None:  # import a.b as c, import a.b.c as d
            return self._stored_submodule(name, value)
        alias = ast.alias(attr, None if attr == name else name)
        last = self.out[-1] if self.out else None
        if (
            isinstance(last, ast.ImportFrom)
            and getattr(last, "uncompile_module", None) is module_node
            and not self.pending[:-2]
        ):  # nothing but this IMPORT_FROM and its store since
            last.names.append(alias)
            last.uncompile_offsets += tuple(self.pending)  # type: ignore[attr-defined]
            self.pending.clear()  # (in place, as emit does)
            return True
        node = ast.ImportFrom(info[0] or None, [alias], info[1])
        node.uncompile_module = module_node  # type: ignore[attr-defined]
        self.emit(node)
        return True

    def _stored_submodule(self, name: str, value: ast.Attribute) -> bool:
        """``import a.b.c as name`` for storing *value*, the last of the ``IMPORT_FROM`` reads of
        the submodules of an ``import a.b.c``; False (a plain store) when the reads do not name
        each submodule after the first in turn."""
        attributes: List[str] = []
        node: Any = value
        while hasattr(node, "uncompile_import_from"):
            attributes.append(node.attr)
            node = node.value
        info = getattr(node, "uncompile_import", None)
        if info is None or info[2] is not None or info[1] or info[0].split(".")[1:] != attributes[::-1]:
            return False
        self.emit(ast.Import([ast.alias(info[0], name)]))
        return True
