"""Comprehensions from the ``for`` loops that build them.

The walker structures a comprehension's loop like any loop; its innermost statement is an
internal ``ComprehensionItem`` (``LIST_APPEND``/``SET_ADD``/``MAP_ADD``) or a ``yield``
(generator expressions). :func:`loop_to_comprehension` turns such a loop nest into a
``ListComp``/``SetComp``/``DictComp``/``GeneratorExp``.
"""

from __future__ import annotations

import ast
from typing import Any, List, Optional

from ..expressions.calls import ComprehensionItem
from ..expressions.conditions import negate
from ..expressions.ops314 import UNPACKED_ITEM


def _does_more_than_continue(stmts: List[ast.stmt]) -> bool:
    """Whether *stmts*, an if's else inside a comprehension's loop, does more than go to the next item."""
    return any(not isinstance(stmt, ast.Continue) for stmt in stmts)


def _item(stmts: List[ast.stmt], generators: List[ast.comprehension]) -> Any:
    """Walk a loop body, adding generators/conditions; returns the innermost item."""
    while stmts:
        first = stmts[0]
        if isinstance(first, (ast.For, ast.AsyncFor)) and len(stmts) == 1 and not first.orelse:
            clause = ast.comprehension(
                target=first.target,
                iter=first.iter,
                ifs=[],
                is_async=int(isinstance(first, ast.AsyncFor)),
            )
            if getattr(first, "uncompile_tests_below_item", False):
                # (3.10 - 3.12) its tests stood on another line than the element: printed below it
                clause.uncompile_ifs_below = True  # type: ignore[attr-defined]
            generators.append(clause)
            stmts = first.body
            continue
        if isinstance(first, ast.If) and len(stmts) == 1 and not _does_more_than_continue(first.orelse):
            generators[-1].ifs.append(first.test)
            stmts = first.body
            continue
        if (
            isinstance(first, ast.If)
            and first.body
            and isinstance(first.body[-1], ast.Continue)
            and len(first.body) == 1
            and not first.orelse
        ):
            generators[-1].ifs.append(negate(first.test))
            stmts = stmts[1:]
            continue
        if isinstance(stmts[-1], ast.Continue):
            stmts = stmts[:-1]
            continue
        if isinstance(first, ast.Assign) and len(first.targets) == 1 and generators:
            # 3.9+: ``for y in [v]`` in a comprehension is compiled as the store ``y = v``
            one_item = ast.List(elts=[first.value], ctx=ast.Load())
            generators.append(ast.comprehension(target=first.targets[0], iter=one_item, ifs=[], is_async=0))
            stmts = stmts[1:]
            continue
        if len(stmts) == 1 and isinstance(first, ast.Expr):
            value = first.value
            if isinstance(value, ComprehensionItem):
                return value
            if isinstance(value, ast.Yield):
                return value
        return None
    return None


def loop_to_comprehension(loop: ast.stmt, kind: Optional[str]) -> Optional[ast.expr]:
    """The comprehension a loop nest builds, or None if it is not one."""
    generators: List[ast.comprehension] = []
    item = _item([loop], generators)
    if item is None or not generators:
        return None
    if isinstance(item, ast.Yield):
        if kind not in (None, "generator") or item.value is None:
            return None
        last = generators[-1]
        if (
            isinstance(last.target, ast.Name)
            and last.target.id == UNPACKED_ITEM
            and len(generators) > 1
            and not last.ifs
        ):  # 3.15: (*x for x in y)
            generators.pop()
            return ast.GeneratorExp(elt=ast.Starred(value=last.iter, ctx=ast.Load()), generators=generators)
        return ast.GeneratorExp(elt=item.value, generators=generators)
    if item.kind == "list":
        return ast.ListComp(elt=item.key, generators=generators)
    if item.kind == "set":
        return ast.SetComp(elt=item.key, generators=generators)
    return ast.DictComp(key=item.key, value=item.value, generators=generators)


def contains_item(stmts: List[ast.stmt]) -> bool:
    """True if the statements hold a comprehension item anywhere."""
    for stmt in stmts:
        for node in ast.walk(stmt):
            if isinstance(node, ComprehensionItem):
                return True
    return False
