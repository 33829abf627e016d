"""Operator precedence of Python expressions, and the spelling of every operator.

The printer gives each expression node a precedence level (one of :class:`Precedence`)
and each operand the lowest level it may have without parentheses; an operand below
that gets parentheses. The levels follow the grammar, from the loosest binding (``:=``)
to atoms (names, literals, calls, subscripts, attribute access). They are plain ints:
the printer compares them for every node it writes, and an ``enum`` member costs a
Python-level lookup on each use before 3.12.
"""

from __future__ import annotations

import ast
from typing import Dict, Type


class Precedence:
    """Binding strength of an expression, loosest first (the levels; not instantiated)."""

    NAMED_EXPR = 1  # x := y
    YIELD = 2  # yield, yield from: bare only as an assignment's value or a statement
    TUPLE = 3  # a, b (no parentheses)
    TEST = 4  # x if c else y, lambda
    OR = 5
    AND = 6
    NOT = 7
    CMP = 8  # <, ==, in, is, ... (one level, chained)
    BOR = 9  # |
    BXOR = 10  # ^
    BAND = 11  # &
    SHIFT = 12  # <<, >>
    ARITH = 13  # +, -
    TERM = 14  # *, /, //, %, @
    FACTOR = 15  # unary +, -, ~
    POWER = 16  # **
    AWAIT = 17  # await x
    ATOM = 18  # names, literals, displays, calls, subscripts, attributes


def above(level: int) -> int:
    """The next tighter level (operands of a left-associative operator use this on the right)."""
    return min(level + 1, Precedence.ATOM)


BINARY_OPERATORS: Dict[Type[ast.operator], str] = {
    ast.Add: "+",
    ast.Sub: "-",
    ast.Mult: "*",
    ast.MatMult: "@",
    ast.Div: "/",
    ast.FloorDiv: "//",
    ast.Mod: "%",
    ast.Pow: "**",
    ast.LShift: "<<",
    ast.RShift: ">>",
    ast.BitOr: "|",
    ast.BitXor: "^",
    ast.BitAnd: "&",
}

BINARY_PRECEDENCE: Dict[Type[ast.operator], int] = {
    ast.Add: Precedence.ARITH,
    ast.Sub: Precedence.ARITH,
    ast.Mult: Precedence.TERM,
    ast.MatMult: Precedence.TERM,
    ast.Div: Precedence.TERM,
    ast.FloorDiv: Precedence.TERM,
    ast.Mod: Precedence.TERM,
    ast.Pow: Precedence.POWER,
    ast.LShift: Precedence.SHIFT,
    ast.RShift: Precedence.SHIFT,
    ast.BitOr: Precedence.BOR,
    ast.BitXor: Precedence.BXOR,
    ast.BitAnd: Precedence.BAND,
}

UNARY_OPERATORS: Dict[Type[ast.unaryop], str] = {
    ast.Not: "not ",
    ast.Invert: "~",
    ast.UAdd: "+",
    ast.USub: "-",
}

UNARY_PRECEDENCE: Dict[Type[ast.unaryop], int] = {
    ast.Not: Precedence.NOT,
    ast.Invert: Precedence.FACTOR,
    ast.UAdd: Precedence.FACTOR,
    ast.USub: Precedence.FACTOR,
}

COMPARISON_OPERATORS: Dict[Type[ast.cmpop], str] = {
    ast.Eq: "==",
    ast.NotEq: "!=",
    ast.Lt: "<",
    ast.LtE: "<=",
    ast.Gt: ">",
    ast.GtE: ">=",
    ast.Is: "is",
    ast.IsNot: "is not",
    ast.In: "in",
    ast.NotIn: "not in",
}

BOOLEAN_OPERATORS: Dict[Type[ast.boolop], str] = {ast.And: "and", ast.Or: "or"}

BOOLEAN_PRECEDENCE: Dict[Type[ast.boolop], int] = {
    ast.And: Precedence.AND,
    ast.Or: Precedence.OR,
}
