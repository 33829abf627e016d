"""PEP 695 type parameters (3.12+) on the symbolic stack.

A generic ``def``/``class``/``type`` is compiled into a hidden function
``<generic parameters of NAME>`` that makes each type parameter
(``CALL_INTRINSIC_1 INTRINSIC_TYPEVAR``/``INTRINSIC_TYPEVARTUPLE``/``INTRINSIC_PARAMSPEC``, or
``CALL_INTRINSIC_2 INTRINSIC_TYPEVAR_WITH_BOUND``/``_WITH_CONSTRAINTS`` of a lazily evaluated
bound, then ``INTRINSIC_SET_TYPEPARAM_DEFAULT`` on 3.13+), binds it to its name, and builds the
definition with them (``INTRINSIC_SET_FUNCTION_TYPE_PARAMS``, or a class whose bases end with
``INTRINSIC_SUBSCRIPT_GENERIC`` of them). :class:`TypeParamOps` turns these into
:class:`~uncompile.expressions.values.TypeParam` markers carrying the ``ast`` nodes; the
definition is rebuilt by :mod:`uncompile.structure.generics`.
"""

from __future__ import annotations

import ast
from typing import Any, List

from ..bytecode.instructions import Instr
from . import values as M

Stack = List[Any]

_KINDS = {
    "INTRINSIC_TYPEVAR": "TypeVar",
    "INTRINSIC_TYPEVARTUPLE": "TypeVarTuple",
    "INTRINSIC_PARAMSPEC": "ParamSpec",
    "INTRINSIC_TYPEVAR_WITH_BOUND": "TypeVar",
    "INTRINSIC_TYPEVAR_WITH_CONSTRAINTS": "TypeVar",
}


def _param(kind: str, name: str, bound: Any = None) -> M.TypeParam:
    node = getattr(ast, kind)(name=name)
    if kind == "TypeVar":
        node.bound = bound
    if "default_value" in node._fields:  # 3.13+
        node.default_value = None
    return M.TypeParam(node)


def _name(sim: Any, stack: Stack, ins: Instr) -> str:
    node = sim.pop_expr(stack, ins)
    if not (isinstance(node, ast.Constant) and isinstance(node.value, str)):
        raise sim.fail(ins, "type parameter without a constant name")
    return node.value


class TypeParamOps:
    """The intrinsics of type parameters (a mixin of the call builder); its ``nested``
    evaluates the lazily evaluated values."""

    nested: Any

    def intrinsic_1(self, ins: Instr, stack: Stack, sim: Any) -> bool:
        """``TypeVar(name)`` and kin, or ``Generic[params]``; False for other intrinsics."""
        if ins.arg == "INTRINSIC_SUBSCRIPT_GENERIC":
            sim.pop(stack, ins)
            stack.append(M.Discard())  # stored in ``.generic_base``, a class base the compiler adds
            return True
        kind = _KINDS.get(ins.arg)
        if kind is None or ins.arg.endswith(("_BOUND", "_CONSTRAINTS")):
            return False
        stack.append(_param(kind, _name(sim, stack, ins)))
        return True

    def intrinsic_2(self, ins: Instr, stack: Stack, sim: Any) -> None:
        top = sim.pop(stack, ins)
        if ins.arg in ("INTRINSIC_TYPEVAR_WITH_BOUND", "INTRINSIC_TYPEVAR_WITH_CONSTRAINTS"):
            stack.append(_param("TypeVar", _name(sim, stack, ins), self._evaluated(top, sim, ins)))
        elif ins.arg == "INTRINSIC_SET_TYPEPARAM_DEFAULT":
            param = sim.pop(stack, ins)
            if not isinstance(param, M.TypeParam):
                raise sim.fail(ins, "type parameter default of no type parameter")
            param.node.default_value = self._evaluated(top, sim, ins)
            stack.append(param)
        elif ins.arg == "INTRINSIC_SET_FUNCTION_TYPE_PARAMS":
            function = sim.pop(stack, ins)
            if not isinstance(function, M.FunctionValue) or not isinstance(top, M.TypeParams):
                raise sim.fail(ins, "function type parameters")
            function.type_params = top.nodes  # type: ignore[attr-defined]
            stack.append(function)
        else:
            raise sim.fail(ins, "unsupported intrinsic %s" % ins.arg)

    def _evaluated(self, evaluator: Any, sim: Any, ins: Instr) -> ast.expr:
        if not isinstance(evaluator, M.FunctionValue):
            raise sim.fail(ins, "type parameter bound or default is no lazily evaluated function")
        return self.nested.evaluated(evaluator)


def type_param_tuple(items: List[Any]) -> Any:
    """The :class:`~uncompile.expressions.values.TypeParams` that ``BUILD_TUPLE`` of *items*
    makes, or None when they are not all type parameters."""
    if items and isinstance(items[0], M.TypeParam) and all(isinstance(item, M.TypeParam) for item in items):
        return M.TypeParams([item.node for item in items])
    return None
