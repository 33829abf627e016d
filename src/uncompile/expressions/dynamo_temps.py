"""Dynamo's own temporaries (``tmp_<n>``) that the decompiled code does without.

Before calling a graph, Dynamo's code generator (``PyCodegen.add_cache`` and
``clear_tempvars`` in ``torch/_dynamo/codegen.py``) stores values it may load again in new
locals and deletes them after the call. Two kinds of them carry nothing a reader needs:

* a value stored while a copy stays on the stack (``COPY 1; STORE_FAST tmp``) in a local that
  no instruction reads, only deletes: the store and the ``del`` are left out, the value
  stays where it is used (``record_pregraph_bytecode_enter()`` instead of
  ``tmp_1 = ...record_pregraph_bytecode_enter`` and ``tmp_2 = tmp_1()``);
* a local stored once with another name that nothing rebinds (a parameter) or one of
  Dynamo's helpers (``__import_torch_dot__dynamo_dot_utils.call_size``): each load of the
  local is written as that value, and its store and ``del`` are left out.

Temporaries that hold something computed (``tmp_3 = model._modules['layers']._modules``
read several times) stay: they name a value used more than once.
"""

from __future__ import annotations

import ast
import copy
import inspect
from collections import Counter
from typing import Any, Dict, FrozenSet, Iterable, List, Set

from ..bytecode.instructions import Instr
from .computation_order import ComputationOrder
from .dynamo_effects import is_helper
from .held_lists import references

Stack = List[Any]

_LOADS = frozenset(
    {"LOAD_FAST", "LOAD_DEREF", "LOAD_CLOSURE", "LOAD_NAME", "LOAD_CLASSDEREF", "LOAD_FAST_AND_CLEAR"}
)
_STORES = frozenset({"STORE_FAST", "STORE_DEREF", "STORE_NAME"})
_DELETES = frozenset({"DELETE_FAST", "DELETE_DEREF", "DELETE_NAME"})


def _count(instrs: Iterable[Instr], *kinds: FrozenSet[str]) -> List["Counter[str]"]:
    """Per set of ops in *kinds*: how often each name is the argument of one of them."""
    counts: List["Counter[str]"] = [Counter() for _ in kinds]
    counter_of = {op: count for ops, count in zip(kinds, counts) for op in ops}
    for ins in instrs:
        count = counter_of.get(ins.op)
        if count is not None and isinstance(ins.arg, str):
            count[ins.arg] += 1
    return counts


class DynamoTemporaries:
    """Mixin of :class:`~.stack_shuffles.DynamoSimulator`; see the module docstring."""

    code: Any
    order: ComputationOrder

    def init_temporaries(self, instrs: List[Instr]) -> None:
        self._loads, self._stores, self._deletes = _count(instrs, _LOADS, _STORES, _DELETES)
        self._unread: Set[str] = set()
        self._aliases: Dict[str, ast.expr] = {}

    def _fixed(self, name: str) -> bool:
        """A local that no instruction rebinds or deletes (a parameter Dynamo passes on)."""
        code = self.code
        return (
            name in code.co_varnames
            and name not in code.co_cellvars
            and not self._stores[name]
            and not self._deletes[name]
        )

    def drop_store(self, target: ast.expr, value: Any, stack: Stack, ins: Instr) -> bool:
        """Whether the store of *value* into *target* is one of the temporaries left out."""
        if ins.op != "STORE_FAST" or not isinstance(target, ast.Name) or self._stores[target.id] != 1:
            return False
        name = target.id
        if not self._loads[name] and self._deletes[name] and references(stack, value):
            self._unread.add(name)
            return True
        if (isinstance(value, ast.Name) and self._fixed(value.id)) or is_helper(value):
            self._aliases[name] = value
            return True
        return False

    def op_BINARY_SUBSCR(self, ins: Instr, stack: Stack) -> None:
        super().op_BINARY_SUBSCR(ins, stack)  # type: ignore[misc]
        item = stack[-1]
        code = self.code
        if code.co_flags & inspect.CO_VARARGS and isinstance(item, ast.Subscript):
            varargs = code.co_varnames[code.co_argcount + code.co_kwonlyargcount]
            if (
                isinstance(item.value, ast.Name)
                and item.value.id == varargs
                and self._fixed(varargs)
                and isinstance(item.slice, ast.Constant)
            ):
                item.uncompile_fixed = True  # type: ignore[attr-defined]  # an item of a tuple no one rebinds

    def op_LOAD_FAST(self, ins: Instr, stack: Stack) -> None:
        alias = self._aliases.get(ins.arg)
        if alias is not None:
            value = copy.deepcopy(alias)
            self.order.same_as(value, alias)  # the copy stands for the alias, computed then
            stack.append(value)
            return
        super().op_LOAD_FAST(ins, stack)  # type: ignore[misc]

    def op_DELETE_FAST(self, ins: Instr, stack: Stack) -> None:
        if ins.arg in self._unread or ins.arg in self._aliases:
            return
        super().op_DELETE_FAST(ins, stack)  # type: ignore[misc]
