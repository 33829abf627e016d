"""In-memory registry of what the dumps in this process wrote, for :mod:`.debugger`.

After a ``prepare_debug`` context exits, :data:`REGISTRY` knows, for every transformed code
object Dynamo produced, the dumped file, the verification status of the shown source and a
map from instruction offsets to lines of that file; and for every graph stage, the dumped
file and (when PyTorch exposes it) the live object that runs it.

The registry must not keep the user's program alive: processes that dump repeatedly (one
dump per rank, per model, per step) would otherwise keep every model and compiled graph
they ever dumped. So it refers to code objects and compiled graphs only weakly (an entry
whose code was freed is dropped; a compiled graph that was freed, or that cannot be weakly
referenced, reads as None), a dump into a directory that was dumped before replaces that
directory's entries, and a directory that no longer exists is forgotten at the next dump.
What :func:`uncompile.debug` needs, the directories and the dumped files in them, is kept.
"""

from __future__ import annotations

import os
import threading
import weakref
from types import CodeType
from typing import Any, Callable, Dict, List, Optional


def _weak(value: Any) -> Callable[[], Any]:
    """A weak reference to *value*; one that reads None when *value* cannot be referenced weakly."""
    try:
        return weakref.ref(value)
    except TypeError:
        return _nothing


def _nothing() -> None:
    return None


class TransformedCode:
    """A transformed code object and where its source was dumped."""

    def __init__(
        self,
        code: CodeType,
        original: CodeType,
        compile_id: str,
        path: str,
        status: str,
        offset_lines: Optional[Dict[int, int]] = None,
    ) -> None:
        self._code = weakref.ref(code)
        self._original = weakref.ref(original)
        self.compile_id = compile_id
        self.path = path
        #: "verified", "unverified" or "failed" (see :class:`.decompiled.DecompiledSource`).
        self.status = status
        #: Instruction offset -> 1-based line number in *path*.
        self.offset_lines: Dict[int, int] = offset_lines or {}

    @property
    def code(self) -> Optional[CodeType]:
        """The code object Dynamo caches (None once it was freed)."""
        return self._code()

    @property
    def original(self) -> Optional[CodeType]:
        """The user's code object it was made from (None once it was freed)."""
        return self._original()

    @property
    def alive(self) -> bool:
        """Whether both code objects still exist."""
        return self._code() is not None and self._original() is not None


class GraphDump:
    """One dumped graph stage of one compiled graph."""

    def __init__(
        self,
        compile_id: str,
        stage: str,
        path: str,
        compiled_fn_name: Optional[str] = None,
        compiled_fn: Any = None,
    ) -> None:
        self.compile_id = compile_id
        self.stage = stage
        self.path = path
        #: Dynamo's global name for the compiled graph (``__compiled_fn_N_<uuid>``), if known.
        self.compiled_fn_name = compiled_fn_name
        self._compiled_fn = _weak(compiled_fn)

    @property
    def compiled_fn(self) -> Any:
        """The object stored under that global name (what the transformed code calls), while it
        exists; None when it was freed, not found or cannot be referenced weakly."""
        return self._compiled_fn()


class DumpRecord:
    """What one dump directory holds (the latest dump into it)."""

    def __init__(self, directory: str, transformed: List[TransformedCode], graphs: List[GraphDump]) -> None:
        self.directory = directory
        self.transformed = transformed
        self.graphs = graphs

    def prune(self) -> None:
        """Drop the entries whose code objects were freed."""
        self.transformed = [item for item in self.transformed if item.alive]


class Registry:
    """Every dump directory of this process, with what its latest dump wrote (latest last)."""

    def __init__(self) -> None:
        self._dumps: Dict[str, DumpRecord] = {}
        self._lock = threading.Lock()

    @property
    def dump_dirs(self) -> List[str]:
        """The directories dumped into, least recently dumped first."""
        with self._lock:
            return list(self._dumps)

    @property
    def transformed(self) -> List[TransformedCode]:
        """The transformed code objects of every known dump that still exist."""
        with self._lock:
            return [item for dump in self._dumps.values() for item in dump.transformed if item.alive]

    @property
    def graphs(self) -> List[GraphDump]:
        """The graph stages of every known dump."""
        with self._lock:
            return [item for dump in self._dumps.values() for item in dump.graphs]

    def add_dump(self, directory: str, transformed: List[TransformedCode], graphs: List[GraphDump]) -> None:
        """Record one finished dump into *directory*, replacing an earlier dump into it."""
        key = os.path.abspath(directory)
        with self._lock:
            self._dumps.pop(key, None)
            for known in list(self._dumps):
                if os.path.isdir(known):
                    self._dumps[known].prune()
                else:
                    del self._dumps[known]
            self._dumps[key] = DumpRecord(key, list(transformed), list(graphs))

    def clear(self) -> None:
        """Forget every dump."""
        with self._lock:
            self._dumps.clear()


REGISTRY = Registry()
