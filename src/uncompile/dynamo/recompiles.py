"""Recompiles of one function: transformed code that differs only in the names Dynamo makes.

Each time Dynamo recompiles a function for new guards (another dtype, shape or module
state) it usually generates the same instructions, constants and lines as before; only
the globals it names per compile differ (``__compiled_fn_<n>_<uuid>``,
``__resume_at_<offset>_<n>``). The decompiler sees such a global only as a name, so the
source of a recompile is the source of the first compile with those names replaced.
:class:`RecompileSources` decompiles the first code object of each shape and, for the
others, renames the globals in its tree and prints it again, which costs a fraction of
decompiling. It lives as long as one dump.
"""

from __future__ import annotations

import ast
import re
from types import CodeType
from typing import Any, Dict, List, Optional, Tuple

from .decompiled import DecompiledSource, decompile_for_dump, decompiled_source

#: Globals Dynamo names anew for each compile.
_GENERATED = re.compile(r"__compiled_fn_\d+|__resume_at_\d+_\d+")
#: What a generated name becomes in a shape (no identifier looks like it).
_PLACEHOLDER = "\0generated"


def shape(code: CodeType) -> Any:
    """What decompiling *code* depends on, with Dynamo's per-compile names left out."""
    names = tuple(_PLACEHOLDER if _GENERATED.match(name) else name for name in code.co_names)
    # Code objects compare by instructions, constants, names, lines...; not by file or qualname.
    return (code.replace(co_names=names), code.co_filename, getattr(code, "co_qualname", code.co_name))


class RecompileSources:
    """Decompiled sources for one dump, each shape decompiled once (see the module docstring)."""

    def __init__(self) -> None:
        #: shape -> (the code last printed from the tree, the tree's names of generated globals,
        #: found when the shape is met again: most shapes are met once)
        self._known: Dict[Any, Tuple[CodeType, DecompiledSource, Optional[List[ast.Name]]]] = {}

    def source(self, code: CodeType) -> DecompiledSource:
        """The source of *code* as :func:`.decompiled.decompile_for_dump` gives it (unverified, and
        not compiled yet: the dump's writer does that)."""
        key = shape(code)
        known = self._known.get(key)
        if known is not None:
            previous, source, names = known
            if names is None:
                names = _generated_names(previous, source.tree)
                self._known[key] = (previous, source, names)
            renamed = _renamed(code, previous, source, names)
            if renamed is not None:
                self._known[key] = (code, renamed, names)
                return renamed
        source = decompile_for_dump(code, verify=False, checked=False)
        if source.tree is not None:
            self._known[key] = (code, source, None)
        return source


def _generated_names(code: CodeType, tree: Any) -> List[ast.Name]:
    """The names in *tree* (decompiled from *code*) of the globals Dynamo made for *code*."""
    generated = {name for name in code.co_names if _GENERATED.match(name)}
    return [node for node in ast.walk(tree) if isinstance(node, ast.Name) and node.id in generated]


def _renamed(
    code: CodeType, previous: CodeType, source: DecompiledSource, names: List[ast.Name]
) -> Optional[DecompiledSource]:
    """*source* (of *previous*, the same shape) printed with *code*'s generated names; None if
    a name of *previous* would stay in the text (the tree keeps the names of *previous* then)."""
    renames = {old: new for old, new in zip(previous.co_names, code.co_names) if old != new}
    kept = [node.id for node in names]
    for node in names:
        node.id = renames.get(node.id, node.id)
    result = decompiled_source(code, source.tree, checked=False)
    gone = [re.escape(old) for old in renames if old not in code.co_names]
    if result is None or (gone and re.search(r"\b(%s)\b" % "|".join(gone), result.text)):
        for node, name in zip(names, kept):
            node.id = name
        return None
    return result
