"""What 3.14's borrowed loads tell about the source structure around a ``try``.

3.14 compiles a load of a local as ``LOAD_FAST_BORROW`` when its analysis proves the
reference short-lived. That analysis treats the code after a ``try`` whose ``except``
clauses all leave (``return``/``raise``) differently depending on where the source put it:
in the ``else:`` block its loads are borrowed, after the whole statement they stay plain
``LOAD_FAST``. Both forms compile to the same instructions otherwise, so the first block
after the ``try`` body tells which one to write.

The structurer marks such a ``try`` (:func:`mark_else_next`); :func:`move_into_else` then
moves the statement that follows it into its ``else:`` (the first is enough: the loads
after a ``try ... else`` are borrowed again).
"""

from __future__ import annotations

import ast
import dis
from types import CodeType
from typing import List, Optional

from ..bytecode import versions as V
from ..bytecode.reader import read_raw

_ENDS_BLOCK = frozenset({"RETURN_VALUE", "RAISE_VARARGS", "RERAISE"})


def else_block_follows(code: CodeType, offset: int) -> bool:
    """Whether the code at *offset*, reached after a ``try`` body whose handlers all leave,
    was written as the ``try``'s ``else:`` block (3.14 only; False elsewhere)."""
    if not V.BORROW_SHOWS_TRY_ELSE:
        return False
    return _first_load_borrowed(code, offset) is True


def _first_load_borrowed(code: CodeType, offset: int) -> Optional[bool]:
    """Whether the local loads of the block at *offset* are borrowed (None: it loads none)."""
    for ins in read_raw(code):
        if ins.offset < offset:
            continue
        name = ins.opname
        if name.startswith("LOAD_FAST_BORROW"):
            return True
        if name in ("LOAD_FAST", "LOAD_FAST_LOAD_FAST"):
            return False
        if name in _ENDS_BLOCK or ins.opcode in dis.hasjrel or ins.opcode in dis.hasjabs:
            return None
    return None


def mark_else_next(node: ast.Try) -> ast.Try:
    """Mark *node* as a ``try`` whose next statement belongs in its ``else:``."""
    node.uncompile_else_next = True  # type: ignore[attr-defined]
    return node


def _statement_lists(node: ast.AST) -> List[List[ast.stmt]]:
    lists = []
    for field in ("body", "orelse", "finalbody"):
        value = getattr(node, field, None)
        if isinstance(value, list) and value and isinstance(value[0], ast.stmt):
            lists.append(value)
    for handler in getattr(node, "handlers", None) or []:
        lists.append(handler.body)
    for case in getattr(node, "cases", None) or []:
        lists.append(case.body)
    return lists


def move_into_else(stmts: List[ast.stmt]) -> None:
    """Move the statement after each marked ``try`` into its ``else:``, at every depth."""
    k = 0
    while k < len(stmts):
        stmt = stmts[k]
        if getattr(stmt, "uncompile_else_next", False) and k + 1 < len(stmts):
            assert isinstance(stmt, ast.Try)
            stmt.orelse.append(stmts.pop(k + 1))
            stmt.uncompile_else_next = False  # type: ignore[attr-defined]
        for inner in _statement_lists(stmt):
            move_into_else(inner)
        k += 1
