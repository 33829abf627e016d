"""Record the code objects Dynamo produces, with as little work as possible per compile.

The bytecode hook stores (compile id, original code, transformed code, frame globals) and
returns None, so Dynamo keeps using its own code. All decompiling and writing happens when
the ``prepare_debug`` context exits.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from types import CodeType
from typing import Any, Callable, Dict, List, Optional, Set

from . import _torch_private


@dataclass
class CapturedCode:
    """One (original, transformed) pair from the bytecode hook."""

    compile_id: str
    original: CodeType
    transformed: CodeType
    globals: Optional[Dict[str, Any]]
    compiled_before_dump: bool = False
    #: Cache entry number among this dump's entries of *original* (set in the hook).
    index: Optional[int] = None
    #: The ``__transformed_code_*`` file name chosen in the hook.
    file: Optional[str] = None
    #: The decompiled source made in the hook (a :class:`.decompiled.DecompiledSource`).
    source: Any = None
    #: What Dynamo caches when the hook returned a relabeled code object.
    cached: Optional[CodeType] = None

    @property
    def cached_code(self) -> CodeType:
        """The code object Dynamo stored in its cache entry."""
        return self.cached if self.cached is not None else self.transformed


class BytecodeCapture:
    """A bytecode hook that keeps every pair; ``install``/``remove`` are idempotent."""

    def __init__(self, prepare: Optional[Callable[[CapturedCode], Optional[CodeType]]] = None) -> None:
        self.prepare = prepare
        self.captured: List[CapturedCode] = []
        self.failures: List[str] = []
        self._handle: Any = None
        self._lock = threading.Lock()
        self._unknown = 0

    def hook(self, original: CodeType, transformed: CodeType) -> Optional[CodeType]:
        """Called by Dynamo after it generated *transformed* for *original*.

        Returns what *prepare* returned (a relabeled code object with the same
        instructions), or None to keep Dynamo's code.
        """
        replacement = None
        try:
            compile_id = _torch_private.current_compile_id()
            if compile_id is None:
                self._unknown += 1
                compile_id = "?%d" % self._unknown
            frame_globals = _torch_private.compiling_frame_globals()
            item = CapturedCode(compile_id, original, transformed, frame_globals)
            with self._lock:
                self.captured.append(item)
                if self.prepare is not None:
                    replacement = self.prepare(item)
        except Exception as error:  # noqa: BLE001 - never break compilation
            self.failures.append("bytecode hook: %r" % (error,))
            _torch_private.warn_once("the bytecode hook failed", repr(error))
            return None
        return replacement

    def install(self) -> bool:
        """Register the hook with Dynamo; False when that is impossible (a warning was issued)."""
        if self._handle is None:
            self._handle = _torch_private.register_bytecode_hook(self.hook)
        return self._handle is not None

    def remove(self) -> None:
        """Unregister the hook."""
        handle, self._handle = self._handle, None
        if handle is not None:
            handle.remove()


def previously_compiled(originals: List[CodeType], known_compile_ids: Set[str]) -> List[CapturedCode]:
    """Cache entries of *originals* whose compile id is not in *known_compile_ids*.

    Used for functions compiled before the dump started: only what the cache entries hold
    is known (transformed code and guards), not the graphs.
    """
    found: List[CapturedCode] = []
    for original in originals:
        for entry in _torch_private.cache_entries(original):
            transformed = getattr(entry, "code", None)
            compile_id = str(getattr(entry, "compile_id", "?"))
            if isinstance(transformed, CodeType) and compile_id not in known_compile_ids:
                found.append(CapturedCode(compile_id, original, transformed, None, compiled_before_dump=True))
    return found
