"""f-strings and t-strings (``ast.JoinedStr``, ``ast.TemplateStr``).

Before Python 3.12 the expression inside ``{...}`` may contain neither the quote that
delimits the f-string nor a backslash (nor a comment, which the printer never writes).
The writer therefore tries the quotes ``'``, ``"``, ``'''``, ``\"\"\"`` in turn, tells
the expression printer which quotes are open (string constants inside then pick another
one), and keeps the first rendering whose replacement fields are legal. Python 3.12
(PEP 701) lifts those limits; output is still portable whenever a portable spelling exists.
"""

from __future__ import annotations

import ast
import sys
from typing import List, Optional, Protocol

from .literals import QUOTES, escape_text, quote_allowed
from .precedence import Precedence

#: Python 3.12 and later allow any quote, backslash and comment inside replacement fields.
NESTING_IS_FREE = sys.version_info >= (3, 12)

_CONVERSIONS = {-1: "", ord("s"): "!s", ord("r"): "!r", ord("a"): "!a"}


class ExpressionWriter(Protocol):
    """What the f-string writer needs from the expression printer."""

    forbidden_quotes: List[str]

    def expression(self, node: ast.expr, minimum: int = Precedence.TEST) -> str: ...


def formatted_string(printer: ExpressionWriter, values: List[ast.expr], prefix: str) -> str:
    """The literal ``<prefix>'...'`` for the parts *values* of an f-string or t-string."""
    for quote in QUOTES:
        if not quote_allowed(quote, printer.forbidden_quotes):
            continue
        printer.forbidden_quotes.append(quote)
        try:
            body = _body(printer, values, quote, strict=True)
        finally:
            printer.forbidden_quotes.pop()
        if body is not None:
            return prefix + quote + body + quote
    # No portable spelling: Python 3.12+ accepts this; older versions cannot express it.
    saved, printer.forbidden_quotes = printer.forbidden_quotes, []
    try:
        body = _body(printer, values, "'", strict=False)
    finally:
        printer.forbidden_quotes = saved
    assert body is not None
    return prefix + "'" + body + "'"


def _body(printer: ExpressionWriter, values: List[ast.expr], quote: str, strict: bool) -> Optional[str]:
    pieces: List[str] = []
    for value in values:
        if isinstance(value, ast.Constant) and isinstance(value.value, str):
            pieces.append(escape_text(value.value, quote, braces=True))
        elif isinstance(value, ast.JoinedStr):  # a nested f-string merged into this one
            inner = _body(printer, value.values, quote, strict)
            if inner is None:
                return None
            pieces.append(inner)
        else:
            field = _replacement_field(printer, value, quote, strict)
            if field is None:
                return None
            pieces.append(field)
    return "".join(pieces)


def _replacement_field(printer: ExpressionWriter, node: ast.expr, quote: str, strict: bool) -> Optional[str]:
    """``{expression!conversion:spec}`` for a FormattedValue or an Interpolation."""
    if not hasattr(node, "conversion"):
        raise ValueError("unexpected %s inside an f-string" % type(node).__name__)
    text = getattr(node, "str", None)  # Interpolation keeps the source text of its expression
    if not isinstance(text, str) or not text.strip():
        # OR level: a top-level lambda, walrus or conditional would meet the ':' of the spec.
        text = printer.expression(node.value, Precedence.OR)  # type: ignore[attr-defined]
        if text.startswith("{"):
            text = " " + text  # ``{{`` would be a literal brace
    if strict and not _legal_in_field(text, quote):
        return None
    field = "{" + text + _CONVERSIONS.get(node.conversion, "")
    spec = getattr(node, "format_spec", None)
    if spec is not None:
        spec_values = spec.values if isinstance(spec, ast.JoinedStr) else [spec]
        spec_text = _body(printer, spec_values, quote, strict)
        if spec_text is None:
            return None
        field += ":" + spec_text
    return field + "}"


def _legal_in_field(text: str, quote: str) -> bool:
    if quote in text:
        return False
    if NESTING_IS_FREE:
        return True
    return "\\" not in text and ("\n" not in text or len(quote) == 3)
