"""Source to dump for a transformed code object, and the code Dynamo should cache with it.

One call for ``prepare_debug``'s bytecode hook: :func:`debuggable_source` decompiles
the transformed code (or, when that fails, renders a breakable instruction listing,
see :mod:`.listing`), and :meth:`DebuggableSource.relabeled` returns the same
instructions pointed at the file the text will be written to. Returning that code
from the hook makes it what Dynamo caches, so pdb and IDEs stop in the dumped file
while Dynamo's own instructions run.

The file may be written later (e.g. when the dump context exits) as long as it is
``header + source.text`` with a header of the *header_lines* given here.
"""

from __future__ import annotations

import ast
from types import CodeType
from typing import Any, Optional

from .listing import instruction_listing
from .relabel import relabel_offsets, relabel_transformed

__all__ = ["DebuggableSource", "debuggable_source", "printed_source"]


class DebuggableSource:
    """Text for the dump file of one transformed code object (without header)."""

    def __init__(
        self, code: CodeType, text: str, tree: Optional[ast.Module], emitted: Any, error: str
    ) -> None:
        self.code = code
        self.text = text
        #: The decompiler's tree and the printer's result; None when decompilation failed.
        self.tree = tree
        self.emitted = emitted
        #: Why decompilation failed ("" when it succeeded).
        self.error = error

    @property
    def decompiled(self) -> bool:
        """True when *text* is decompiled source, False when it is the instruction listing."""
        return self.tree is not None

    def relabeled(self, path: str, header_lines: int) -> CodeType:
        """The code with file name *path* and the lines of *text* placed after *header_lines* lines."""
        if self.tree is not None:
            return relabel_transformed(self.code, self.tree, self.emitted, path, header_lines)
        listing = instruction_listing(self.code, self.error)
        return relabel_offsets(self.code, listing.offset_lines, path, header_lines, def_line=listing.def_line)


def printed_source(code: CodeType, tree: ast.Module, checked: bool = True) -> DebuggableSource:
    """*tree*, the decompiler's module for *code*, printed; raises when the text does not compile
    (unless not *checked*: then the caller checks it later)."""
    from ..source.printer import emit

    emitted = emit(tree)
    if checked:
        compile(emitted.text, "<uncompile dump>", "exec")
    return DebuggableSource(code, emitted.text, tree, emitted, "")


def debuggable_source(code: CodeType, checked: bool = True) -> DebuggableSource:
    """Decompile *code* for the dump, falling back to a breakable instruction listing.

    Not *checked*: the text is not compiled here, so it may not compile (rare); the caller
    compiles it later anyway (see :func:`.decompiled.checked_source`)."""
    try:
        from ..decompiler import decompile_to_ast

        return printed_source(code, decompile_to_ast(code), checked)
    except Exception as error:  # noqa: BLE001 - any decompiler failure falls back to the listing
        reason = "%s: %s" % (type(error).__name__, error)
        return DebuggableSource(code, instruction_listing(code, reason).text, None, None, reason)
