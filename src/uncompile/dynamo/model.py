"""The data model of a dump: what ``index.json`` contains.

Renderers (``index.md``, ``index.html`` in :mod:`uncompile.report`) read only these
records, so they can change without touching the capture code. All paths are relative to
the dump directory.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Dict, List, Optional

#: Version of the index.json layout; bump on incompatible changes.
INDEX_FORMAT = 1


@dataclass
class GraphRecord:
    """One stage of one compiled graph: a file, or the reason there is none."""

    stage: str
    file: Optional[str]
    note: str = ""


@dataclass
class EntryRecord:
    """One cache entry (one compile id) of one code object."""

    index: int
    compile_id: str
    code_name: str
    transformed_file: Optional[str]
    decompile_status: str
    decompile_error: Optional[str] = None
    decompile_difference: Optional[str] = None
    guard_function: Optional[str] = None
    guards_checked: int = 0
    guards_unchecked: int = 0
    guards: List[Dict[str, Any]] = field(default_factory=list)
    graphs: List[GraphRecord] = field(default_factory=list)
    compiled_fns: List[str] = field(default_factory=list)
    resume_functions: List[str] = field(default_factory=list)
    compile_time_s: Optional[float] = None
    backend_time_s: Optional[float] = None
    cache: List[str] = field(default_factory=list)
    compiled_before_dump: bool = False
    notes: List[str] = field(default_factory=list)


@dataclass
class EventRecord:
    """A graph break or a recompilation."""

    compile_id: str
    code_name: str
    reason: str
    user_file: Optional[str] = None
    user_line: Optional[int] = None


@dataclass
class FunctionRecord:
    """One original (user) function, with its resume functions' entries."""

    name: str
    qualname: str
    filename: str
    firstlineno: int
    full_code_file: Optional[str]
    entries: List[EntryRecord] = field(default_factory=list)
    graph_breaks: List[EventRecord] = field(default_factory=list)
    recompiles: List[EventRecord] = field(default_factory=list)
    compiled_before_dump: bool = False


@dataclass
class DumpIndex:
    """Everything ``index.json`` holds."""

    format: int
    uncompile_version: str
    torch_version: str
    python_version: str
    pid: int
    rank: Optional[int]
    directory: str
    functions: List[FunctionRecord] = field(default_factory=list)
    other_compiles: List[Dict[str, Any]] = field(default_factory=list)
    failures: List[str] = field(default_factory=list)
    warnings: List[str] = field(default_factory=list)
    files: List[str] = field(default_factory=list)
    py_files: int = 0
    py_files_compiling: int = 0
    notes: List[str] = field(default_factory=list)

    def as_dict(self) -> Dict[str, Any]:
        """Plain JSON-ready data."""
        return asdict(self)
