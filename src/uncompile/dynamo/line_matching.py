"""Match generated source lines to the lines of a dumped file that hold the same code.

Graph code (FX ``forward``, AOT graphs, Inductor's output module) is compiled by
torch from generated source; the dump holds that source again, possibly with a
header, comments, type annotations (FX's readable printing: ``x: "f32[4]" = ...``)
and statements spread over several lines. :func:`match_source_lines` maps each
line of the generated source to the first line of the same statement in the dump.
Statements are compared by their tokens (comments and layout ignored, string
annotations and trailing commas dropped) and aligned in order with :mod:`difflib`.
"""

from __future__ import annotations

import difflib
import io
import re
import tokenize
from typing import Dict, List, Sequence, Tuple

__all__ = ["Statement", "match_source_lines", "match_statements", "logical_lines"]

#: One statement: (first line, last line, comparison key).
Statement = Tuple[int, int, str]


def match_source_lines(original: Sequence[str], dumped: Sequence[str]) -> Dict[int, int]:
    """Map 1-based lines of *original* source to the lines of *dumped* holding the same code.

    Statements are compared whole (a statement printed over several lines matches
    the same statement on one line) and every line of a matched statement maps to
    the first line of its counterpart. Blank lines and comments are ignored; type
    annotations that FX's readable printing adds (``x: "f32[4]" = ...``, annotated
    parameters) and trailing commas do not prevent a match. Statements present in
    only one of the two are left out.
    """
    return match_statements(logical_lines(original), logical_lines(dumped))


def match_statements(original: Sequence[Statement], dumped: Sequence[Statement]) -> Dict[int, int]:
    """:func:`match_source_lines` on statements already split by :func:`logical_lines`."""
    original_keys = [key for _, _, key in original]
    dumped_keys = [key for _, _, key in dumped]
    matcher = difflib.SequenceMatcher(None, original_keys, dumped_keys, autojunk=False)
    result: Dict[int, int] = {}
    for block in matcher.get_matching_blocks():
        for step in range(block.size):
            first, last, _ = original[block.a + step]
            target = dumped[block.b + step][0]
            for line in range(first, last + 1):
                result[line] = target
    return result


def logical_lines(lines: Sequence[str]) -> List[Tuple[int, int, str]]:
    """(first line, last line, comparison key) of each statement line of *lines*.

    Falls back to one entry per physical line when *lines* do not tokenize.
    """
    text = "\n".join(line.rstrip("\n") for line in lines) + "\n"
    result: List[Tuple[int, int, str]] = []
    parts: List[str] = []
    first = 0
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type in _SKIPPED_TOKENS:
                continue
            if token.type == tokenize.NEWLINE:
                if parts:
                    result.append((first, token.start[0], _statement_key(parts)))
                parts = []
                continue
            if not parts:
                first = token.start[0]
            parts.append(token.string)
    except (tokenize.TokenError, SyntaxError):
        return [
            (number, number, _statement_key(line.split()))
            for number, line in enumerate(lines, 1)
            if line.strip() and not line.strip().startswith("#")
        ]
    return result


_SKIPPED_TOKENS = (tokenize.COMMENT, tokenize.NL, tokenize.INDENT, tokenize.DEDENT, tokenize.ENDMARKER)
_ANNOTATION = re.compile(r'(\w+) : (?:"[^"]*"|\'[^\']*\')')
_RETURN_ANNOTATION = re.compile(r"\) -> .*:$")
_TRAILING_COMMA = re.compile(r"\s*,\s*([)\]}])")


def _statement_key(parts: Sequence[str]) -> str:
    """The text a statement is compared by: tokens, string annotations and trailing commas dropped."""
    key = " ".join(parts)
    key = _ANNOTATION.sub(r"\1", key)
    key = _RETURN_ANNOTATION.sub(") :", key)
    return _TRAILING_COMMA.sub(r" \1", key)
