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

import ast
from typing import Any, Callable, List, cast

from . import values as M
from .targets import LOAD

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

    def legacy_swap_assignment(self, count: int, stack: Stack) -> bool:
        """``a, b = x, y`` (and three names): values rotated then stored, no tuple built.

        For two targets the compiler emits ``ROT_TWO``, for three ``ROT_THREE; ROT_TWO``.
        The top *count* plain values become the slots of one unpacking assignment of the
        tuple of them; the ``ROT_TWO`` after a ``ROT_THREE`` then has nothing left to do.
        """
        top = stack[-count:] if count <= len(stack) else []
        if (
            count == 2
            and len(top) == 2
            and all(isinstance(v, M.TargetSlot) for v in top)
            and top[0].owner is top[1].owner
            and getattr(top[0].owner, "legacy_rotations", 0) == 1
        ):
            top[0].owner.legacy_rotations = 0
            return True
        if len(top) != count or not all(_plain(v) for v in top):
            return False
        if any(a is b for k, a in enumerate(top) for b in top[k + 1 :]):
            return False
        unpack = M.Unpack(ast.Tuple(list(top), LOAD), count)
        unpack.legacy_rotations = 1 if count == 3 else 0  # type: ignore[attr-defined]
        del stack[-count:]
        for position in reversed(range(count)):
            stack.append(M.TargetSlot(unpack, position))
        return True


def _plain(value: Any) -> bool:
    """An ordinary value: not a marker, not half of an augmented assignment or an import."""
    return (
        isinstance(value, ast.expr)
        and not M.is_marker(value)
        and not getattr(value, "uncompile_inplace", False)
        and not hasattr(value, "uncompile_import")
        and not hasattr(value, "uncompile_import_from")
    )


def _plain_groups(parts: List[Any], is_group: Callable[[Any], bool]) -> List[bool]:
    """Which operands of a 3.8 ``BUILD_*_UNPACK`` are the compiler's groups of plain items.

    The compiler puts each run of plain items (``1, x`` in ``[*a, 1, x, *b]``) in one display
    (a tuple, a set or a dict, as *is_group* tells) and each unpacked value (``*a``, ``**d``)
    on its own. A run is never empty and ends only at an unpacked value, so a display right
    after a group, an empty display and the only operand were unpacked in the source
    (``[*(), 1]``, ``{**{}, 'a': 1}``, ``{**{'a': 1}}``).
    """
    plain: List[bool] = []
    for part in parts:
        plain.append(is_group(part) and not (plain and plain[-1]))
    return plain if len(parts) > 1 else [False] * len(parts)


def _tuple_group(part: Any) -> bool:
    """A tuple of plain items: a display, or a constant the peephole optimizer folded one into."""
    if isinstance(part, ast.Constant):
        return isinstance(part.value, tuple) and bool(part.value)
    return isinstance(part, ast.Tuple) and _plain_items(part.elts)


def _set_group(part: Any) -> bool:
    return (
        isinstance(part, ast.Set)
        and not getattr(part, "uncompile_comprehension", None)
        and _plain_items(part.elts)
    )


def _dict_group(part: Any) -> bool:
    return (
        isinstance(part, ast.Dict)
        and not getattr(part, "uncompile_comprehension", None)
        and bool(part.keys)
        and None not in part.keys
    )


def _plain_items(items: List[ast.expr]) -> bool:
    """Items a display of plain items can hold: at least one, none unpacked."""
    return bool(items) and not any(isinstance(item, ast.Starred) for item in items)


def _sequence_items(parts: List[Any], is_group: Callable[[Any], bool]) -> List[ast.expr]:
    """The items of a 3.8 ``BUILD_{TUPLE,LIST,SET}_UNPACK``: each group's own, or ``*part``."""
    items: List[ast.expr] = []
    for part, plain in zip(parts, _plain_groups(parts, is_group)):
        if not plain:
            items.append(ast.Starred(part, LOAD))
        elif isinstance(part, ast.Constant):
            items.extend(ast.Constant(item) for item in cast(tuple, part.value))
        else:
            items.extend(part.elts)
    return items


class LegacyUnpackOps:
    """3.8's ``BUILD_*_UNPACK`` (3.9+ build displays with ``LIST_EXTEND``/``DICT_UPDATE``...)."""

    def _unpack_parts(self, ins: Any, stack: Stack) -> List[Any]:
        return self.pop_n(stack, ins.arg, ins)  # type: ignore[attr-defined]

    def op_BUILD_TUPLE_UNPACK(self, ins: Any, stack: Stack) -> None:
        items = _sequence_items(self._unpack_parts(ins, stack), _tuple_group)
        stack.append(ast.Tuple(items, LOAD))

    op_BUILD_TUPLE_UNPACK_WITH_CALL = op_BUILD_TUPLE_UNPACK

    def op_BUILD_LIST_UNPACK(self, ins: Any, stack: Stack) -> None:
        items = _sequence_items(self._unpack_parts(ins, stack), _tuple_group)
        stack.append(ast.List(items, LOAD))

    def op_BUILD_SET_UNPACK(self, ins: Any, stack: Stack) -> None:
        items = _sequence_items(self._unpack_parts(ins, stack), _set_group)
        stack.append(ast.Set(items))

    def op_BUILD_MAP_UNPACK(self, ins: Any, stack: Stack) -> None:
        keys: List[Any] = []
        values: List[ast.expr] = []
        parts = self._unpack_parts(ins, stack)
        for part, plain in zip(parts, _plain_groups(parts, _dict_group)):
            if plain:
                keys.extend(part.keys)
                values.extend(part.values)
            else:
                keys.append(None)
                values.append(part)
        node = ast.Dict(keys, values)
        if ins.op == "BUILD_MAP_UNPACK_WITH_CALL":
            node.uncompile_call_kwargs = True  # type: ignore[attr-defined]
        stack.append(node)

    op_BUILD_MAP_UNPACK_WITH_CALL = op_BUILD_MAP_UNPACK
