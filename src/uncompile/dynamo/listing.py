"""A breakable instruction listing for code that could not be decompiled.

When the decompiler fails on a transformed code object, the dump still needs a
file a debugger can stop in. :func:`instruction_listing` renders the code as a
function whose body has one line per instruction -- a string literal holding the
offset, operation and argument, as :mod:`dis` shows them -- so the text is valid
Python, pdb accepts a breakpoint on every line, and stepping goes instruction by
instruction. The prologue up to ``RESUME`` (3.11+), which runs before line events
start, is shown as comments and belongs to the ``def`` line. :attr:`Listing.offset_lines` is what
:func:`uncompile.dynamo.relabel.relabel_offsets` needs to point the code at it.
"""

from __future__ import annotations

import dis
from types import CodeType
from typing import Dict, List, NamedTuple

__all__ = ["Listing", "instruction_listing"]

_CO_VARARGS = 0x04
_CO_VARKEYWORDS = 0x08


class Listing(NamedTuple):
    """Text of the listing, its ``def`` line and the line of each instruction offset (1-based)."""

    text: str
    def_line: int
    offset_lines: Dict[int, int]


def instruction_listing(code: CodeType, reason: str = "") -> Listing:
    """A valid-Python, one-line-per-instruction rendering of *code* (see the module docs)."""
    lines: List[str] = ["def %s(%s):" % (_identifier(code.co_name), ", ".join(_parameters(code)))]
    note = "    # Not decompiled%s. The instructions that run, one per line:" % (
        ": " + reason if reason else ""
    )
    lines.append(note.replace("\n", " "))
    offset_lines: Dict[int, int] = {}
    instructions = list(dis.get_instructions(code))
    prologue = _prologue_length(instructions)
    for index, instruction in enumerate(instructions):
        argument = instruction.argrepr or ("" if instruction.arg is None else str(instruction.arg))
        text = ("%4d %-24s %s" % (instruction.offset, instruction.opname, argument)).rstrip()
        if index < prologue:
            lines.append("    # %s" % text)  # runs before tracing starts: no line to stop at
            continue
        lines.append("    %r" % text)
        offset_lines[instruction.offset] = len(lines)
    return Listing("\n".join(lines) + "\n", 1, offset_lines)


def _prologue_length(instructions: List[dis.Instruction]) -> int:
    """How many leading instructions run before line events start (through the first RESUME, 3.11+)."""
    for index, instruction in enumerate(instructions):
        if instruction.opname == "RESUME":
            return index + 1
    return 0


def _parameters(code: CodeType) -> List[str]:
    """Parameter names of *code* as a ``def`` would spell them (defaults left out)."""
    names = list(code.co_varnames)
    positional = code.co_argcount
    keyword_only = code.co_kwonlyargcount
    parameters = [_identifier(name) for name in names[:positional]]
    index = positional + keyword_only
    if code.co_flags & _CO_VARARGS:
        parameters.append("*" + _identifier(names[index]))
        index += 1
    elif keyword_only:
        parameters.append("*")
    parameters.extend(_identifier(name) for name in names[positional : positional + keyword_only])
    if code.co_flags & _CO_VARKEYWORDS:
        parameters.append("**" + _identifier(names[index]))
    return parameters


def _identifier(name: str) -> str:
    """*name* if it is a valid identifier, else a safe stand-in (``<lambda>`` -> ``_lambda_``)."""
    if name.isidentifier():
        return name
    return "".join(character if character.isalnum() or character == "_" else "_" for character in name) or "_"
