"""Printing the patterns of ``match`` statements (Python 3.10+).

Patterns have three binding levels: ``p as name`` (loosest), ``p | q``, and closed
patterns (literals, captures, sequences, mappings, class patterns). An alternative of
an or-pattern that is itself an as- or or-pattern needs parentheses, and so does the
subject of ``as`` when it is an as-pattern.
"""

from __future__ import annotations

import ast
from typing import List, Tuple

from .expressions import ExpressionPrinter
from .precedence import Precedence

AS_LEVEL = 0
OR_LEVEL = 1
CLOSED_LEVEL = 2


def pattern_source(printer: ExpressionPrinter, node: ast.AST, minimum: int = AS_LEVEL) -> str:
    """*node* (an ``ast.pattern``) as source, parenthesized when looser than *minimum*."""
    kind = type(node).__name__
    level = CLOSED_LEVEL
    if kind == "MatchValue":
        text = printer.expression(node.value)  # type: ignore[attr-defined]
    elif kind == "MatchSingleton":
        text = repr(node.value)  # type: ignore[attr-defined]
    elif kind == "MatchSequence":
        text = "[%s]" % _join(printer, node.patterns)  # type: ignore[attr-defined]
    elif kind == "MatchStar":
        text = "*" + (getattr(node, "name", None) or "_")
    elif kind == "MatchMapping":
        text = "{%s}" % _mapping_items(printer, node)
    elif kind == "MatchClass":
        text = "%s(%s)" % (printer.expression(node.cls, Precedence.ATOM), _class_arguments(printer, node))  # type: ignore
    elif kind == "MatchAs":
        text, level = _as_pattern(printer, node)
    elif kind == "MatchOr":
        alternatives = node.patterns  # type: ignore[attr-defined]
        text = " | ".join(pattern_source(printer, item, CLOSED_LEVEL) for item in alternatives)
        level = OR_LEVEL
    else:
        raise ValueError("cannot print pattern node %s" % kind)
    return "(%s)" % text if level < minimum else text


def _as_pattern(printer: ExpressionPrinter, node: ast.AST) -> Tuple[str, int]:
    pattern = getattr(node, "pattern", None)
    name = getattr(node, "name", None)
    if pattern is None:
        return (name or "_"), CLOSED_LEVEL
    return "%s as %s" % (pattern_source(printer, pattern, OR_LEVEL), name), AS_LEVEL


def _join(printer: ExpressionPrinter, patterns: List[ast.AST]) -> str:
    return ", ".join(pattern_source(printer, item) for item in patterns)


def _mapping_items(printer: ExpressionPrinter, node: ast.AST) -> str:
    items = [
        "%s: %s" % (printer.expression(key), pattern_source(printer, pattern))
        for key, pattern in zip(node.keys, node.patterns)  # type: ignore[attr-defined]
    ]
    rest = getattr(node, "rest", None)
    if rest is not None:
        items.append("**" + rest)
    return ", ".join(items)


def _class_arguments(printer: ExpressionPrinter, node: ast.AST) -> str:
    items = [pattern_source(printer, item) for item in node.patterns]  # type: ignore[attr-defined]
    for name, pattern in zip(node.kwd_attrs, node.kwd_patterns):  # type: ignore[attr-defined]
        items.append("%s=%s" % (name, pattern_source(printer, pattern)))
    return ", ".join(items)
