"""Source text for constant values.

Every function here returns text that compiles back to an equal constant of the same
type: numbers (``inf`` is written ``1e309``), strings and bytes (with a chosen quote
when the surroundings forbid some quotes, as inside an f-string before Python 3.12),
tuples and frozensets of constants, and docstrings as triple-quoted literals.
"""

from __future__ import annotations

import ast
import math
import sys
from typing import Any, Iterable, List, Optional, Sequence, Tuple

from .precedence import Precedence

#: The quotes a string literal can use, in order of preference.
QUOTES = ("'", '"', "'''", '"""')


def quote_allowed(quote: str, forbidden: Iterable[str]) -> bool:
    """True when a literal using *quote* may appear where the quotes in *forbidden* are open.

    A triple quote contains its single quote, so ``'`` forbids ``'''`` too; a single quote
    may appear inside a triple-quoted f-string of the same kind.
    """
    for open_quote in forbidden:
        if open_quote == quote or (len(quote) == 3 and open_quote == quote[0]):
            return False
    return True


def escape_text(text: str, quote: str, *, keep_newlines: bool = False, braces: bool = False) -> str:
    """*text* escaped for the inside of a literal delimited by *quote* (``""``: none).

    Backslashes, the quote character and unprintable characters are escaped; with
    *keep_newlines* line feeds stay raw (for triple quotes); with *braces* ``{`` and ``}``
    are doubled (for the literal parts of f-strings).
    """
    quote_char = quote[:1]
    if text.replace("\n", "").isprintable():  # only the characters replaced here need escapes
        if "\\" in text:
            text = text.replace("\\", "\\\\")  # first: the escapes below add backslashes
        if quote_char and quote_char in text:
            text = text.replace(quote_char, "\\" + quote_char)
        if braces and ("{" in text or "}" in text):
            text = text.replace("{", "{{").replace("}", "}}")
        return text if keep_newlines else text.replace("\n", "\\n")
    pieces: List[str] = []
    for char in text:
        if char == "\\":
            pieces.append("\\\\")
        elif char == quote_char:
            pieces.append("\\" + char)
        elif char == "\n":
            pieces.append("\n" if keep_newlines else "\\n")
        elif braces and char in "{}":
            pieces.append(char * 2)
        elif char.isprintable():
            pieces.append(char)
        else:
            pieces.append(repr(char)[1:-1])
    return "".join(pieces)


def quoted(text: str, literal: Optional[str] = None) -> str:
    """A literal for the str *text*: ``repr(text)`` (or its *literal*, when already made),
    but delimited by ``"`` when *text* holds more ``'`` than ``"`` (fewer escapes: ``"'\\"'"``,
    not ``'\\'"\\''``). ``repr`` itself picks ``"`` only for a text without any ``"``.
    """
    if literal is None:
        literal = repr(text)
    if literal[0] == "'" and "\\'" in literal and text.count("'") > text.count('"'):
        # Inside repr's single quotes every ' is escaped and every " is bare: swap the two.
        return '"' + literal[1:-1].replace("\\'", "'").replace('"', '\\"') + '"'
    return literal


def string_literal(
    text: str, forbidden: Sequence[str] = (), prefix: str = "", without_backslash: bool = False
) -> str:
    """A literal for the str *text*, avoiding the quotes in *forbidden* where possible.

    With *without_backslash* (inside an f-string field before 3.12) line feeds and tabs
    are written raw in a triple-quoted literal, which needs no backslash.
    """
    literal = quoted(text)
    if without_backslash and "\\" in literal:
        raw = _raw_triple_quoted(text, forbidden)
        if raw is not None:
            return prefix + raw
    if not forbidden or quote_allowed(literal[0], forbidden):
        return prefix + literal
    for quote in QUOTES:
        if quote_allowed(quote, forbidden):
            return prefix + quote + escape_text(text, quote) + quote
    return prefix + literal


def _raw_triple_quoted(text: str, forbidden: Sequence[str]) -> Optional[str]:
    if "\\" in text or "\r" in text or not all(char.isprintable() or char in "\n\t" for char in text):
        return None
    for quote in QUOTES[2:]:
        if quote_allowed(quote, forbidden) and quote not in text and not text.endswith(quote[0]):
            return quote + text + quote
    return None


def bytes_literal(data: bytes, forbidden: Sequence[str] = ()) -> str:
    """A literal for *data*, avoiding the quotes in *forbidden* where possible."""
    literal = repr(data)
    if not forbidden or quote_allowed(literal[1], forbidden):
        return literal
    for quote in QUOTES:
        if quote_allowed(quote, forbidden):
            body = "".join(_escape_byte(byte, quote[0]) for byte in data)
            return "b" + quote + body + quote
    return literal


def _escape_byte(byte: int, quote_char: str) -> str:
    char = chr(byte)
    if char == "\\" or char == quote_char:
        return "\\" + char
    if 32 <= byte < 127:
        return char
    return {"\n": "\\n", "\r": "\\r", "\t": "\\t"}.get(char, "\\x%02x" % byte)


def docstring_literal(text: str, prefix: str = "") -> str:
    """A triple-quoted literal for the docstring *text*, line breaks kept as they are."""
    quote = '"""'
    if '"""' in text and "'''" not in text and not text.endswith("'"):
        quote = "'''"
    body = escape_text(text, "", keep_newlines=True)
    if body == text and quote not in text and not text.endswith(quote[0]):
        return prefix + quote + body + quote  # no backslash, no quote, nothing unprintable: reads back as is
    if quote in body or body.endswith(quote[0]):
        body = body.replace(quote[0], "\\" + quote[0])
    literal = prefix + quote + body + quote
    try:
        parsed = ast.parse(literal, mode="eval").body  # not literal_eval: its helpers make a cycle per call
        if isinstance(parsed, ast.Constant) and parsed.value == text:
            return literal
    except (SyntaxError, ValueError):  # pragma: no cover - defensive, escapes above are complete
        pass
    return prefix + repr(text)  # pragma: no cover


#: Every int of smaller magnitude has a ``repr`` (at most 600 digits: 3.11+ limits the digits
#: that ``repr`` writes to at least 640).
SHORT_INT_BOUND = 10**600


def int_literal(value: int) -> str:
    """Decimal text for *value*; hexadecimal when it is too long for ``repr`` (3.11+)."""
    try:
        return repr(value)
    except ValueError:  # int_max_str_digits
        return hex(value)


def float_literal(value: float) -> str:
    """Text for a finite or infinite float; NaN has no literal and raises ValueError."""
    if math.isnan(value):
        raise ValueError("NaN has no source form")
    if math.isinf(value):
        return "1e309" if value > 0 else "-1e309"
    return repr(value)


def complex_literal(value: complex) -> Tuple[str, int]:
    """Text and precedence for a complex constant: ``2j``, ``-2j`` or ``(1+2j)``."""
    imaginary = float_literal(value.imag)
    imaginary = (imaginary[:-2] if imaginary.endswith(".0") else imaginary) + "j"
    if value.real == 0 and math.copysign(1.0, value.real) > 0:
        return imaginary, (Precedence.FACTOR if imaginary.startswith("-") else Precedence.ATOM)
    real = float_literal(value.real)
    if imaginary.startswith("-"):
        return "(%s - %s)" % (real, imaginary[1:]), Precedence.ATOM
    return "(%s + %s)" % (real, imaginary), Precedence.ATOM


def constant_literal(
    value: Any,
    forbidden: Sequence[str] = (),
    as_set: bool = False,
    kind: Optional[str] = None,
    without_backslash: bool = False,
) -> Tuple[str, int]:
    """Text and precedence for a constant; *as_set* writes a frozenset as a set display.

    A tuple of two or more items comes back without parentheses (precedence TUPLE); the
    caller adds them where needed. Values without a literal raise ValueError.
    """
    if value is None or value is True or value is False:
        return repr(value), Precedence.ATOM
    if value is Ellipsis:
        return "...", Precedence.ATOM
    if isinstance(value, str):
        prefix = "u" if kind == "u" else ""
        return string_literal(value, forbidden, prefix, without_backslash), Precedence.ATOM
    if isinstance(value, bytes):
        return bytes_literal(value, forbidden), Precedence.ATOM
    if isinstance(value, int):
        text = int_literal(value)
    elif isinstance(value, float):
        text = float_literal(value)
    elif isinstance(value, complex):
        return complex_literal(value)
    elif isinstance(value, tuple):
        return _tuple_literal(value, forbidden)
    elif isinstance(value, frozenset):
        return _frozenset_literal(value, forbidden, as_set)
    else:
        raise ValueError("constant of type %s has no source form" % type(value).__name__)
    return text, (Precedence.FACTOR if text.startswith("-") else Precedence.ATOM)


def _item(value: Any, forbidden: Sequence[str]) -> str:
    text, precedence = constant_literal(value, forbidden)
    return "(%s)" % text if precedence < Precedence.TEST else text


def _tuple_literal(value: tuple, forbidden: Sequence[str]) -> Tuple[str, int]:
    items = [_item(item, forbidden) for item in value]
    if not items:
        return "()", Precedence.ATOM
    if len(items) == 1:
        return "(%s,)" % items[0], Precedence.ATOM
    return ", ".join(items), Precedence.TUPLE


def _frozenset_literal(value: frozenset, forbidden: Sequence[str], as_set: bool) -> Tuple[str, int]:
    if not value:
        return "frozenset()", Precedence.ATOM
    ordered = sorted(value, key=lambda item: (type(item).__name__, repr(item)))
    display = "{%s}" % ", ".join(_item(item, forbidden) for item in ordered)
    return (display if as_set else "frozenset(%s)" % display), Precedence.ATOM


def docstring_compiles_to(literal: str) -> Any:
    """The constant a module whose only statement is the docstring *literal* stores.

    Python 3.13 and later strip the indentation of docstrings at compile time; this asks
    the running compiler what it keeps.
    """
    code = compile(literal + "\n", "<docstring>", "exec")
    return code.co_consts[0] if code.co_consts else None


def cleaned_docstring(text: str) -> str:
    """The value that a docstring literal of value *text* compiles to on Python 3.13 and later.

    The compiler expands tabs, then removes the leading spaces of the first line and the
    common indentation (in spaces) of the lines after it that hold more than spaces; blank
    lines stay (:func:`inspect.cleandoc` without its trimming). Written out here, checking
    a re-indented docstring needs no compilation; the tests hold it to the running compiler
    (:func:`docstring_compiles_to`).
    """
    lines = text.expandtabs().split("\n")
    indents = [len(line) - len(line.lstrip(" ")) for line in lines]
    margin = min((indent for line, indent in zip(lines[1:], indents[1:]) if indent < len(line)), default=0)
    return "\n".join(
        [lines[0][indents[0] :]]
        + [line[min(margin, indent) :] for line, indent in zip(lines[1:], indents[1:])]
    )


CLEANS_DOCSTRINGS = sys.version_info >= (3, 13)

#: Whether the compiler keeps docstrings at all (``python -OO`` drops them).
KEEPS_DOCSTRINGS = sys.flags.optimize < 2
