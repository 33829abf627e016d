"""In-memory registry of what the dumps in this process wrote, for :mod:`.debugger`.

After a ``prepare_debug`` context exits, :data:`REGISTRY` knows, for every transformed code
object Dynamo produced, the dumped file, the verification status of the shown source and a
map from instruction offsets to lines of that file; and for every graph stage, the dumped
file and (when PyTorch exposes it) the live object that runs it.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from types import CodeType
from typing import Any, Dict, List, Optional


@dataclass
class TransformedCode:
    """A transformed code object and where its source was dumped."""

    code: CodeType
    original: CodeType
    compile_id: str
    path: str
    #: "verified", "unverified" or "failed" (see :class:`.decompiled.DecompiledSource`).
    status: str
    #: Instruction offset -> 1-based line number in *path*.
    offset_lines: Dict[int, int] = field(default_factory=dict)


@dataclass
class GraphDump:
    """One dumped graph stage of one compiled graph."""

    compile_id: str
    stage: str
    path: str
    #: Dynamo's global name for the compiled graph (``__compiled_fn_N_<uuid>``), if known.
    compiled_fn_name: Optional[str] = None
    #: The object stored under that global name (what the transformed code calls), if found.
    compiled_fn: Any = None


@dataclass
class Registry:
    """Everything the dumps of this process wrote (latest dump last)."""

    transformed: List[TransformedCode] = field(default_factory=list)
    graphs: List[GraphDump] = field(default_factory=list)
    dump_dirs: List[str] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def add_dump(self, directory: str, transformed: List[TransformedCode], graphs: List[GraphDump]) -> None:
        """Record one finished dump."""
        with self._lock:
            self.dump_dirs.append(directory)
            self.transformed.extend(transformed)
            self.graphs.extend(graphs)

    def clear(self) -> None:
        """Forget every dump."""
        with self._lock:
            self.transformed.clear()
            self.graphs.clear()
            self.dump_dirs.clear()


REGISTRY = Registry()
