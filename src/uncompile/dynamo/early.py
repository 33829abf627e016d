"""Work done inside the bytecode hook: decompile, choose the file, relabel the code.

For :func:`uncompile.debug` to stop in ``__transformed_code_*`` files, the code object that
Dynamo caches must carry the dumped file's name and lines (same instructions: see
:mod:`.relabel`). That has to happen when Dynamo hands over the code, so the hook decompiles
it (without verifying; that waits for the exit; when decompiling fails, the file shows a
breakable instruction listing instead, see :mod:`.listing`), fixes its file name and the
layout of the file's header (:data:`HEADER_LINES` lines, whatever they end up saying), and
returns the relabeled code. A recompile whose code differs only in the names Dynamo gives
per compile reuses the first one's decompiled tree (see :mod:`.recompiles`). Any failure
leaves Dynamo's code as it is.
"""

from __future__ import annotations

import linecache
import os
from types import CodeType
from typing import Dict, Optional

from . import _torch_private, names
from .capture import CapturedCode
from .recompiles import RecompileSources

#: Lines of the header above the source in every ``__transformed_code_*`` file.
HEADER_LINES = 7


_PROVISIONAL_HEADER = (
    "# Shown while torch.compile runs; prepare_debug writes the file with its header on exit.\n"
    + "#\n" * (HEADER_LINES - 2)
    + "\n"
)


class EarlyDecompiler:
    """Per dump: numbers cache entries per code object and relabels their code."""

    def __init__(self, directory: str, relabel: bool = True) -> None:
        self.directory = directory
        self.relabel = relabel
        self._next: Dict[int, int] = {}
        self._sources = RecompileSources()

    def __call__(self, item: CapturedCode) -> Optional[CodeType]:
        """Prepare *item*; returns the relabeled code for Dynamo to cache, or None."""
        index = self._next.get(id(item.original), 0)
        self._next[id(item.original)] = index + 1
        item.index = index
        item.file = names.transformed_code_file(item.original.co_name, index)
        if not self.relabel:
            return None  # nothing is needed before the exit: decompile there
        item.source = self._sources.source(item.transformed)
        path = os.path.join(self.directory, item.file)
        self._remember_lines(path, item.source.text)
        if item.source.debuggable is None:
            return None
        try:
            relabeled = item.source.debuggable.relabeled(path, HEADER_LINES)
        except Exception as error:  # noqa: BLE001 - Dynamo's own code stays in place
            _torch_private.warn_once("could not point transformed code at its dumped file", repr(error))
            return None
        if not isinstance(relabeled, CodeType) or relabeled.co_code != item.transformed.co_code:
            _torch_private.warn_once("relabeling changed the instructions; kept Dynamo's code")
            return None
        item.cached = relabeled
        return relabeled

    @staticmethod
    def _remember_lines(path: str, text: str) -> None:
        """Give ``linecache`` the file's text now (the file is written on exit).

        Tracebacks, warnings and debuggers that look at the relabeled code during the run
        then show the dumped lines; without this, ``linecache`` would fall back to the
        source of the module that is running and keep that. The dump drops these entries
        when it writes the files.
        """
        content = _PROVISIONAL_HEADER + text
        linecache.cache[path] = (len(content), None, content.splitlines(True), path)
