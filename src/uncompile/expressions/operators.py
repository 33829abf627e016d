"""Operator tables: bytecode operator text to ``ast`` operator nodes."""

from __future__ import annotations

import ast
from typing import Callable, Dict, Type

BINARY_OPERATORS: Dict[str, Type[ast.operator]] = {
    "+": ast.Add,
    "-": ast.Sub,
    "*": ast.Mult,
    "/": ast.Div,
    "//": ast.FloorDiv,
    "%": ast.Mod,
    "**": ast.Pow,
    "<<": ast.LShift,
    ">>": ast.RShift,
    "&": ast.BitAnd,
    "|": ast.BitOr,
    "^": ast.BitXor,
    "@": ast.MatMult,
}

#: Neutral opcodes that are a binary operator of their own (none left after normalizing).
BINARY: Dict[str, str] = {}

UNARY: Dict[str, Callable[[], ast.unaryop]] = {
    "UNARY_NEGATIVE": ast.USub,
    "UNARY_POSITIVE": ast.UAdd,
    "UNARY_INVERT": ast.Invert,
}

COMPARE: Dict[str, Callable[[], ast.cmpop]] = {
    "<": ast.Lt,
    "<=": ast.LtE,
    "==": ast.Eq,
    "!=": ast.NotEq,
    ">": ast.Gt,
    ">=": ast.GtE,
}


def binary(sign: str, left: ast.expr, right: ast.expr) -> ast.BinOp:
    """``left <sign> right``."""
    return ast.BinOp(left, BINARY_OPERATORS[sign](), right)


def compare(op: ast.cmpop, left: ast.expr, right: ast.expr) -> ast.Compare:
    """``left <op> right``; *op* is an instance or an ``ast.cmpop`` class."""
    if isinstance(op, type):
        op = op()
    return ast.Compare(left, [op], [right])
