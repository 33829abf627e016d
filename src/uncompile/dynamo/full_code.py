"""Assemble ``full_code_for_<fn>_<n>.py``: how a call of one original function dispatches.

For each cache entry (of the function and of its resume functions) the file holds a guard
function that evaluates the entry's guards (:mod:`.guards`), the transformed code as a
function named ``__transformed_code_<n>_for_<fn>``, the compiled graphs it calls (stubs whose
docstrings point to the graph files) and, last, one dispatcher per code object that tries the
guards in order like Dynamo's cache lookup does. The file compiles; it is for reading and
for calling the guard functions, not what runs.
"""

from __future__ import annotations

import inspect
import re
from dataclasses import dataclass, field
from types import CodeType
from typing import Dict, List, Tuple

from . import names


@dataclass
class EntrySource:
    """What the file shows for one cache entry."""

    code_name: str
    index: int
    compile_id: str
    guard_source: str
    guard_function: str
    transformed_text: str
    transformed_ok: bool
    compiled_fns: List[Tuple[str, List[str]]] = field(default_factory=list)
    note: str = ""


@dataclass
class CodeSection:
    """One code object (the original function or a resume function) and its entries."""

    code: CodeType
    entries: List[EntrySource] = field(default_factory=list)


def transformed_function_name(code_name: str, index: int) -> str:
    """The name the transformed code gets inside the full-code file."""
    return "__transformed_code_%d_for_%s" % (index, names.sanitize(code_name))


def guard_function_name(code_name: str, index: int) -> str:
    """The name of the guard function of cache entry *index* of *code_name*."""
    return "__guard_%d_for_%s" % (index, names.sanitize(code_name))


def signature(code: CodeType) -> Tuple[str, str, List[str]]:
    """(parameter list, call argument list, parameter names) of *code*."""
    positional = list(code.co_varnames[: code.co_argcount])
    keyword_only = list(code.co_varnames[code.co_argcount : code.co_argcount + code.co_kwonlyargcount])
    position = code.co_argcount + code.co_kwonlyargcount
    params: List[str] = []
    call: List[str] = []
    for number, name in enumerate(positional):
        params.append(name)
        call.append(name)
        if number + 1 == getattr(code, "co_posonlyargcount", 0):
            params.append("/")
    varargs = varkw = None
    if code.co_flags & inspect.CO_VARARGS:
        varargs = code.co_varnames[position]
        position += 1
    if code.co_flags & inspect.CO_VARKEYWORDS:
        varkw = code.co_varnames[position]
    if varargs:
        params.append("*" + varargs)
        call.append("*" + varargs)
    elif keyword_only:
        params.append("*")
    for name in keyword_only:
        params.append(name)
        call.append("%s=%s" % (name, name))
    if varkw:
        params.append("**" + varkw)
        call.append("**" + varkw)
    all_names = positional + keyword_only + [n for n in (varargs, varkw) if n]
    return ", ".join(params), ", ".join(call), all_names


def _rename_def(text: str, old: str, new: str) -> str:
    pattern = re.compile(r"^(\s*(?:async\s+)?def\s+)%s(\s*\()" % re.escape(old), re.MULTILINE)
    return pattern.sub(lambda match: match.group(1) + new + match.group(2), text, count=1)


def _stub(name: str, compile_id: str, files: List[str]) -> str:
    listing = "\n".join("        %s" % file for file in files) or "        (no graph file was written)"
    return (
        "def %s(*args, **kwargs):\n"
        '    """Compiled graph %s (compile id %s); its stages are in:\n\n%s\n    """\n'
        '    raise NotImplementedError("see the graph files listed in the docstring")\n'
        % (name, names.short_compiled_fn(name), compile_id, listing)
    )


def _dispatcher(section: CodeSection) -> str:
    code = section.code
    params, call, arg_names = signature(code)
    locals_dict = "{%s}" % ", ".join("%r: %s" % (name, name) for name in arg_names)
    lines = [
        "def %s(%s):" % (names.sanitize(code.co_name), params),
        '    """How Dynamo dispatches a call of %s: an entry whose guards pass runs (newest first)."""'
        % code.co_name,
        "    L = %s" % locals_dict,
    ]
    for entry in reversed(section.entries):
        lines.append("    if %s(L, globals()):" % entry.guard_function)
        lines.append(
            "        return %s(%s)" % (transformed_function_name(entry.code_name, entry.index), call)
        )
    lines.append("    # No entry matches: Dynamo compiles a new entry (or runs the original code).")
    lines.append('    raise LookupError("no cache entry of %s matches these inputs")' % code.co_name)
    return "\n".join(lines) + "\n"


def render(title_lines: List[str], sections: List[CodeSection]) -> str:
    """The whole ``full_code_for_*.py`` text."""
    out: List[str] = ["# " + line if line else "#" for line in title_lines]
    out.append("from uncompile.dynamo.guard_runtime import *  # noqa: F401,F403 - helpers the guards call")
    out.append("")
    stubs: Dict[str, str] = {}
    for section in sections:
        for entry in section.entries:
            for name, files in entry.compiled_fns:
                stubs.setdefault(name, _stub(name, entry.compile_id, files))
    if stubs:
        out.append("# ===== Compiled graphs called by the transformed code =====")
        out.extend(stub + "\n" for stub in stubs.values())
    for section in sections:
        for entry in section.entries:
            out.append(
                "# ===== %s: cache entry %d (compile id %s) ====="
                % (entry.code_name, entry.index, entry.compile_id)
            )
            if entry.note:
                out.append("# " + entry.note)
            out.append(entry.guard_source)
            new_name = transformed_function_name(entry.code_name, entry.index)
            renamed = _rename_def(entry.transformed_text, names.sanitize(entry.code_name), new_name)
            if not entry.transformed_ok:
                transformed_file = names.transformed_code_file(entry.code_name, entry.index)
                out.append("# %s: decompilation failed (see %s)" % (new_name, transformed_file))
            out.append(renamed)
            if renamed == entry.transformed_text:
                out.append("%s = None  # no source" % new_name)
            out.append("")
    out.append("# ===== Dispatch: what happens when each code object is called =====")
    for section in sections:
        if section.entries:
            out.append(_dispatcher(section))
    return "\n".join(out) + "\n"
