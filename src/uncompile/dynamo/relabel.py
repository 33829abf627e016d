"""Relabel compiled code: same instructions, file name and lines of the dumped source.

A debugger decides where it is from two facts of the running frame: the code
object's ``co_filename`` and the line its line table gives for the current
instruction. Relabeling rewrites exactly those (``co_filename``,
``co_firstlineno``, the line table) and nothing else, so the instructions Dynamo,
AOTAutograd or Inductor produced keep running unchanged while pdb and IDEs show,
stop and step in the files :func:`uncompile.prepare_debug` wrote.

Two kinds of code are relabeled:

* Transformed code (``__transformed_code_*`` files, resume functions included):
  the dumped file is decompiled source, so the line of each instruction comes
  from the decompiler (``uncompile_offsets`` on each statement: the instructions
  it was built from) and the printer (``spans``: the output lines of each
  statement). All instructions of a statement map to the statement's first line,
  so a statement spread over several lines stops the debugger once. See
  :func:`relabel_transformed`.
* Graph code (FX ``forward``, AOT forward/backward, Inductor's ``call``): the
  dumped file holds the source the code was compiled from, possibly with a
  header, type annotations and comments added. Lines are matched by content
  (:mod:`.line_matching`) and the code is relabeled line for line
  (:func:`relabel_to_file`).
"""

from __future__ import annotations

import ast
import os
from types import CodeType
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

from ..bytecode.linetable import lines_by_offset, with_lines
from ..bytecode.reader import instruction_starts

__all__ = [
    "relabel_transformed",
    "relabel_offsets",
    "relabel_to_file",
    "statement_lines",
]

_CO_OPTIMIZED = 0x0001
#: The fields of a statement that hold statements (or except handlers and match cases holding them).
_BLOCKS = frozenset({"body", "orelse", "finalbody", "handlers", "cases"})


def relabel_transformed(
    code: CodeType, tree: ast.Module, emitted: Any, path: str, header_lines: int
) -> CodeType:
    """Point transformed *code* at its dumped file *path*, keeping its instructions.

    *tree* is the decompiler's module for *code* (statements carry
    ``uncompile_offsets``), *emitted* the printer's result for it (``spans``), and
    *header_lines* the number of lines in *path* before the printed text starts.
    Nested code objects (functions defined inside *code*) are relabeled too when
    their definitions can be found in *tree*.
    """
    spans: Mapping[ast.AST, Tuple[int, int]] = emitted.spans
    filename = os.path.abspath(path)
    body, def_node = _own_body(code, tree)
    def_line = spans[def_node][0] + header_lines if def_node is not None and def_node in spans else None
    return _relabel_with_statements(code, body, def_line, spans, header_lines, filename)


def relabel_offsets(
    code: CodeType,
    offset_lines: Mapping[int, int],
    path: str,
    header_lines: int,
    def_line: Optional[int] = None,
) -> CodeType:
    """Like :func:`relabel_transformed`, from a ready map: instruction offset -> line of the text.

    *offset_lines* holds, for instructions of *code* itself (not of nested code
    objects), the 1-based line in the printed text of the statement they belong to;
    *def_line*, if given, the line of the ``def`` in that text (the line of the
    instructions before the first statement). Both are shifted by *header_lines*.
    """
    lines = {offset: line + header_lines for offset, line in offset_lines.items()}
    first = None if def_line is None else def_line + header_lines
    return _relabel_with_lines(code, lines, first, os.path.abspath(path), header_lines)


def statement_lines(
    code: CodeType, body: Sequence[ast.stmt], spans: Mapping[ast.AST, Tuple[int, int]], header_lines: int
) -> Dict[int, Optional[int]]:
    """Instruction offset -> dumped line for the statements in *body* (nested ones included).

    Inner statements win over the statements around them (an ``if`` keeps only the
    instructions of its test, say); function and class bodies inside *body* belong
    to other code objects and are skipped.
    """
    return _lines_of(_own_statements(body), spans, header_lines)


def _lines_of(
    statements: Sequence[ast.stmt], spans: Mapping[ast.AST, Tuple[int, int]], header_lines: int
) -> Dict[int, Optional[int]]:
    """Instruction offset -> dumped line for *statements* (later ones win)."""
    lines: Dict[int, Optional[int]] = {}
    for statement in statements:
        span = spans.get(statement)
        offsets = getattr(statement, "uncompile_offsets", None)
        if span is None or not offsets:
            continue
        for offset in offsets:
            lines[offset] = span[0] + header_lines
    return lines


def relabel_to_file(code: CodeType, line_map: Mapping[int, int], path: str) -> CodeType:
    """Give *code* (and its nested code objects) file *path* and lines ``line_map[old line]``.

    Instructions whose old line has no entry in *line_map* get no line (3.10+) or
    the line before them (3.8/3.9).
    """
    filename = os.path.abspath(path)
    old = lines_by_offset(code)
    new = {offset: (None if line is None else line_map.get(line)) for offset, line in old.items()}
    firstlineno = line_map.get(code.co_firstlineno)
    if firstlineno is None:
        given = [line for line in new.values() if line is not None]
        firstlineno = min(given) if given else 1
    relabeled = with_lines(code, new, firstlineno)
    consts = tuple(
        relabel_to_file(const, line_map, path) if isinstance(const, CodeType) else const
        for const in code.co_consts
    )
    return relabeled.replace(co_filename=filename, co_consts=consts)


def _own_body(code: CodeType, tree: ast.Module) -> Tuple[List[ast.stmt], Optional[ast.stmt]]:
    """The statements that belong to *code* itself, and the ``def`` they sit in, if any."""
    if code.co_flags & _CO_OPTIMIZED:
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == code.co_name:
                return list(node.body), node
        functions = [node for node in tree.body if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))]
        if len(functions) == 1:
            return list(functions[0].body), functions[0]
    return list(tree.body), None


def _own_statements(body: Sequence[ast.stmt]) -> List[ast.stmt]:
    """Statements of *body* and the blocks nested in them, outer ones first."""
    result: List[ast.stmt] = list(body)
    for statement in result:  # grows while it is read: breadth first
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        for field in statement._fields:
            if field not in _BLOCKS:
                continue  # expressions hold no statements
            for child in getattr(statement, field, None) or ():
                if isinstance(child, ast.stmt):
                    result.append(child)
                elif isinstance(child, ast.excepthandler) or type(child).__name__ == "match_case":
                    result.extend(node for node in child.body if isinstance(node, ast.stmt))
    return result


def _nested_definitions(statements: Sequence[ast.stmt]) -> Dict[str, ast.stmt]:
    """Function definitions among *statements* (a code object's own), by name."""
    found: Dict[str, ast.stmt] = {}
    for statement in statements:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
            found.setdefault(statement.name, statement)
    return found


def _relabel_with_statements(
    code: CodeType,
    body: Sequence[ast.stmt],
    def_line: Optional[int],
    spans: Mapping[ast.AST, Tuple[int, int]],
    header_lines: int,
    filename: str,
) -> CodeType:
    """Relabel *code* whose own statements are *body*; fill gaps, recurse into nested defs."""
    statements = _own_statements(body)
    relabeled = _relabel_with_lines(
        code, _lines_of(statements, spans, header_lines), def_line, filename, header_lines
    )
    definitions = _nested_definitions(statements)
    consts: List[Any] = []
    for const in code.co_consts:
        if isinstance(const, CodeType) and const.co_name in definitions:
            node = definitions[const.co_name]
            nested_def_line = spans[node][0] + header_lines if node in spans else None
            nested_body = list(node.body)  # type: ignore[attr-defined]
            const = _relabel_with_statements(
                const, nested_body, nested_def_line, spans, header_lines, filename
            )
        consts.append(const)
    return relabeled.replace(co_consts=tuple(consts))


def _relabel_with_lines(
    code: CodeType,
    assigned: Mapping[int, Optional[int]],
    def_line: Optional[int],
    filename: str,
    header_lines: int,
) -> CodeType:
    """*code* with lines *assigned* and *filename*.

    Gaps take the line before them (before any statement: *def_line*), except an
    ``EXTENDED_ARG`` prefix, which belongs with the instruction it extends.
    """
    lines: Dict[int, Optional[int]] = {}
    current = def_line
    prefixes: List[int] = []  # EXTENDED_ARGs without a line of their own, before the instruction they extend
    starts = instruction_starts(code)
    for offset, name in starts:
        line = assigned.get(offset)
        if line is None and name == "EXTENDED_ARG":
            prefixes.append(offset)
            continue
        if line is not None:
            current = line
        if prefixes:
            lines.update(dict.fromkeys(prefixes, current))
            prefixes.clear()
        lines[offset] = current
    lines.update(dict.fromkeys(prefixes, current))
    if def_line is not None:
        firstlineno = def_line
    else:
        firstlineno = min((line for line in lines.values() if line is not None), default=header_lines + 1)
    offsets = [offset for offset, _ in starts]
    return with_lines(code, lines, firstlineno, offsets).replace(co_filename=filename)
