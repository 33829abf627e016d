"""Template strings (``t"..."``, PEP 750, 3.14+) on the symbolic stack.

``BUILD_INTERPOLATION flags`` pops the value, the source text of its expression and, when
``flags & 1``, the format spec; ``flags >> 2`` is the conversion (as ``CONVERT_VALUE``'s
operand). ``BUILD_TEMPLATE`` pops the tuple of literal strings and the tuple of
interpolations and interleaves them into an ``ast.TemplateStr``.
"""

from __future__ import annotations

import ast
from typing import Any, List

from ..bytecode import versions as V
from ..bytecode.instructions import Instr


def _node(kind: str, **fields: Any) -> ast.expr:
    return getattr(ast, kind)(**fields)  # TemplateStr/Interpolation exist on 3.14+ only


def _spec(spec: ast.expr) -> ast.expr:
    return spec if isinstance(spec, ast.JoinedStr) else ast.JoinedStr(values=[spec])


def build_interpolation(sim: Any, ins: Instr, stack: List[Any]) -> None:
    """Execute ``BUILD_INTERPOLATION`` (see the module docstring)."""
    flags = ins.arg or 0
    spec = sim.pop_expr(stack, ins) if flags & 1 else None
    text = sim.pop_expr(stack, ins)
    value = sim.pop_expr(stack, ins)
    conversion = V.FORMAT_CONVERSIONS.get(flags >> 2, -1)
    source = text.value if isinstance(text, ast.Constant) and isinstance(text.value, str) else ""
    stack.append(
        _node(
            "Interpolation",
            value=value,
            str=source,
            conversion=conversion,
            format_spec=_spec(spec) if spec is not None else None,
        )
    )


def _items(node: ast.expr) -> List[ast.expr]:
    if isinstance(node, ast.Tuple):
        return list(node.elts)
    if isinstance(node, ast.Constant) and isinstance(node.value, tuple):
        return [ast.Constant(value=item) for item in node.value]
    raise ValueError("template part is not a tuple")


def build_template(sim: Any, ins: Instr, stack: List[Any]) -> None:
    """Execute ``BUILD_TEMPLATE``: literal strings and interpolations, alternating."""
    interpolations = _items(sim.pop_expr(stack, ins))
    strings = _items(sim.pop_expr(stack, ins))
    values: List[ast.expr] = []
    for k, text in enumerate(strings):
        if not (isinstance(text, ast.Constant) and text.value == ""):
            values.append(text)
        if k < len(interpolations):
            values.append(interpolations[k])
    values.extend(interpolations[len(strings) :])
    stack.append(_node("TemplateStr", values=values))
