"""Where values go: stores, unpacking assignments and deletes.

A mixin of :class:`~uncompile.expressions.simulator.Simulator`: ``STORE_*`` instructions
hand a target and the value to :meth:`Simulator.assign`; ``UNPACK_SEQUENCE``/``UNPACK_EX``
push one :class:`~uncompile.expressions.values.TargetSlot` per target, and the stores into
them fill an :class:`~uncompile.expressions.values.Unpack` until the tuple target is whole.
``DELETE_*`` emit ``del`` statements.
"""

from __future__ import annotations

import ast
import copy
from typing import Any, Dict, List, Optional

from ..bytecode.instructions import Instr
from . import values as M
from .constants import literal

Stack = List[Any]

#: The contexts of loads and stores, shared: a store replaces a node's context, never changes it.
LOAD = ast.Load()
STORE = ast.Store()

_bare = ast.AST.__new__  # a node of the given class with no fields set
_Name = ast.Name


def name_node(ident: str, ctx: Optional[ast.expr_context] = None) -> ast.Name:
    """``ast.Name`` of *ident* (a comprehension's ``.0`` shows as ``_0_``).

    Made for every load and store of a name, so without ``ast.Name(...)``: the node class's
    ``__init__`` checks its arguments against the fields (on 3.13+ it also fills in defaults),
    which costs more than setting the two fields on a bare node (the same node results)."""
    node = _bare(_Name)
    node.id = "_0_" if ident == ".0" else ident
    node.ctx = ctx or LOAD
    return node


def slice_node(start: Optional[ast.expr], stop: Optional[ast.expr], step: Optional[ast.expr]) -> ast.Slice:
    """``start:stop:step`` with ``None`` constants left out."""

    def part(node: Optional[ast.expr]) -> Optional[ast.expr]:
        if isinstance(node, ast.Constant) and node.value is None:
            return None
        return node

    return ast.Slice(part(start), part(stop), part(step))


def subscript_key(key: ast.expr) -> ast.expr:
    """The key of a subscript; a constant slice (3.14+ fold ``a[1:2]``'s) as ``start:stop:step``."""
    value = getattr(key, "uncompile_slice", None)
    if value is None:
        return key
    return slice_node(literal(value.start), literal(value.stop), literal(value.step))


class TargetOps:
    """``op_*`` handlers for stores, unpacking and deletes (see the module docstring)."""

    assign: Any
    code: Any
    emit: Any
    globals_declared: Dict[str, None]
    nonlocals_declared: Dict[str, None]
    pop: Any
    pop_expr: Any
    underflow: Any

    # stores

    def op_STORE_FAST(self, ins: Instr, stack: Stack) -> None:
        name = ins.arg
        if name == ".0":
            target = name_node(name, STORE)
        else:  # name_node(name, STORE), without the call: the commonest store
            target = _bare(_Name)
            target.id = name
            target.ctx = STORE
        self.assign(target, stack.pop() if stack else self.underflow(ins), stack, ins)

    op_STORE_NAME = op_STORE_FAST

    def op_STORE_GLOBAL(self, ins: Instr, stack: Stack) -> None:
        self.globals_declared[ins.arg] = None
        self.op_STORE_FAST(ins, stack)

    def op_STORE_DEREF(self, ins: Instr, stack: Stack) -> None:
        if ins.arg in self.code.co_freevars:
            self.nonlocals_declared[ins.arg] = None
        self.op_STORE_FAST(ins, stack)

    def op_STORE_ATTR(self, ins: Instr, stack: Stack) -> None:
        obj = self.pop_expr(stack, ins)
        value = self.pop(stack, ins)
        self.assign(ast.Attribute(obj, ins.arg, STORE), value, stack, ins)

    def op_STORE_SUBSCR(self, ins: Instr, stack: Stack) -> None:
        key = self.pop_expr(stack, ins)
        obj = self.pop_expr(stack, ins)
        value = self.pop(stack, ins)
        self.assign(ast.Subscript(obj, subscript_key(key), STORE), value, stack, ins)

    def op_STORE_SLICE(self, ins: Instr, stack: Stack) -> None:
        stop = self.pop_expr(stack, ins)
        start = self.pop_expr(stack, ins)
        obj = self.pop_expr(stack, ins)
        value = self.pop(stack, ins)
        target = ast.Subscript(obj, slice_node(start, stop, None), STORE)
        self.assign(target, value, stack, ins)

    def op_UNPACK_SEQUENCE(self, ins: Instr, stack: Stack) -> None:
        self._unpack(M.Unpack(self.pop(stack, ins), ins.arg), stack)

    def op_UNPACK_EX(self, ins: Instr, stack: Stack) -> None:
        before, after = ins.arg & 0xFF, ins.arg >> 8
        self._unpack(M.Unpack(self.pop(stack, ins), before + 1 + after, before), stack)

    def _unpack(self, unpack: M.Unpack, stack: Stack) -> None:
        for position in reversed(range(len(unpack.targets))):
            stack.append(M.TargetSlot(unpack, position))

    # deletes

    def op_DELETE_FAST(self, ins: Instr, stack: Stack) -> None:
        self.emit(ast.Delete([name_node(ins.arg, ast.Del())]))

    op_DELETE_NAME = op_DELETE_FAST

    def op_DELETE_GLOBAL(self, ins: Instr, stack: Stack) -> None:
        self.globals_declared[ins.arg] = None
        self.op_DELETE_FAST(ins, stack)

    def op_DELETE_DEREF(self, ins: Instr, stack: Stack) -> None:
        if ins.arg in self.code.co_freevars:
            self.nonlocals_declared[ins.arg] = None
        self.op_DELETE_FAST(ins, stack)

    def op_DELETE_ATTR(self, ins: Instr, stack: Stack) -> None:
        obj = self.pop_expr(stack, ins)
        self.emit(ast.Delete([ast.Attribute(obj, ins.arg, ast.Del())]))

    def op_DELETE_SUBSCR(self, ins: Instr, stack: Stack) -> None:
        key = self.pop_expr(stack, ins)
        obj = self.pop_expr(stack, ins)
        self.emit(ast.Delete([ast.Subscript(obj, subscript_key(key), ast.Del())]))

    def _fill_slot(self, slot: M.TargetSlot, target: ast.expr, stack: Stack, ins: Instr) -> None:
        owner = slot.owner
        if slot.position == owner.star:
            target = ast.Starred(target, STORE)
        owner.targets[slot.position] = target
        owner.filled += 1
        before = slot.position - 1
        while before in owner.dropped:  # the same name, stored again before this store
            owner.targets[before] = copy.deepcopy(target)
            owner.filled += 1
            before -= 1
        if owner.filled < len(owner.targets):
            return
        whole = ast.Tuple([t for t in owner.targets if t is not None], STORE)
        self.assign(whole, owner.value, stack, ins)
