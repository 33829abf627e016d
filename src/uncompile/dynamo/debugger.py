"""``debug()``: stop at breakpoints set in the files ``prepare_debug`` wrote.

Design (what runs, and why):

* We never run recompiled decompiled source in place of the code Dynamo,
  AOTAutograd or Inductor produced. Their own instructions keep running; only the
  code objects' file name and line table are pointed at the dumped files
  (:mod:`uncompile.dynamo.relabel`). Argument layout, constants, ``co_freevars``
  and ``co_cellvars`` are untouched, so what Dynamo checks and what the program
  computes are exactly as without debugging.
* Transformed code (``__transformed_code_*`` files, resume functions included) is
  relabeled once, when Dynamo produces it: ``prepare_debug``'s bytecode hook
  returns :func:`uncompile.dynamo.relabel.relabel_transformed`'s result, which is
  what Dynamo caches (its cache entries cannot be changed afterwards). Each
  statement stops once, at its first line. Code the decompiler cannot handle can
  still be stepped instruction by instruction in a listing
  (:mod:`uncompile.dynamo.debuggable`, :mod:`uncompile.dynamo.listing`). Nothing
  to do here for it.
* Graph code (the FX graph's ``forward`` under the eager backend, AOT forward and
  backward under aot_eager, Inductor's output module with ``call``) is created by
  torch from generated source that the dump files contain. On entry, ``debug()``
  finds the live functions compiled from such source (FX's ``<eval_with_key>.N``
  sources, modules in Inductor's cache directory) by walking ``gc.get_objects()``
  -- no torch private API -- matches each source to the dumped graph file with the
  same code lines, and swaps in a relabeled ``__code__``. On exit every swapped
  ``__code__`` is put back.
* While active, no new compilation happens (the public
  ``torch.compiler.set_stance("eager_on_recompile")``: cached compiled code runs,
  anything else runs eagerly). The stance is restored on exit, also on exception.

Breakpoints are then set by file and line in the dumped files (pdb's
``break FILE:LINE``, or an IDE), and ``sys.settrace`` line events carry the dumped
file names and lines.
"""

from __future__ import annotations

import contextlib
import gc
import linecache
import os
import re
import tempfile
import time
import types
import warnings
from typing import Any, Dict, Iterable, Iterator, List, Optional, Sequence, Tuple, Union

from .line_matching import logical_lines, match_statements
from .relabel import relabel_to_file

__all__ = ["debug", "DebugSession"]

# Dumped files whose code is not graph source: decompiled transformed code and the
# dispatch overview. Their code is relabeled through the bytecode hook instead.
_NOT_GRAPH_FILES = ("__transformed_code_", "full_code_for_")

# Lines FX adds when it generates a boxed-calling forward; they appear in no dump.
_BOXED_PROLOGUE = re.compile(
    r"^\s*(def \w+\(self, args_list\):|args_iter = iter\(args_list\)"
    r"|\w+ = next\(args_iter\)|args_list\.clear\(\))\s*$"
)

# Fraction of a function's (non-prologue) code lines that must be found in a file.
_MIN_MATCHED_FRACTION = 0.5


class DebugSession:
    """What :func:`debug` did on entry: which live functions now report which dumped file."""

    def __init__(self) -> None:
        self.relabeled: List[Tuple[str, str, str]] = []  # (function name, generated file, dumped file)
        self.unmatched: List[str] = []  # generated files for which no dump file matched
        self.seconds_to_enter = 0.0
        self._restore: List[Tuple[types.FunctionType, types.CodeType, types.CodeType]] = []

    def __repr__(self) -> str:
        return f"DebugSession(relabeled={len(self.relabeled)}, unmatched={len(self.unmatched)})"


@contextlib.contextmanager
def debug(
    dump_src_dir: Union[str, os.PathLike, Sequence[Union[str, os.PathLike]], None] = None,
    *,
    stop_compiling: bool = True,
) -> Iterator[DebugSession]:
    """Context manager: breakpoints in the files ``prepare_debug`` wrote are hit inside it.

    *dump_src_dir* names the dump directory (or several); by default every
    directory ``prepare_debug`` dumped into in this process. A graph whose file is in
    several (the same graph dumped again) stops in the latest dump's file. With
    *stop_compiling* (default), nothing new is compiled while inside.
    """
    import torch

    session = DebugSession()
    started = time.perf_counter()
    stance = torch.compiler.set_stance("eager_on_recompile") if stop_compiling else None
    try:
        directories = _dump_dirs(dump_src_dir)
        if not directories:
            warnings.warn(
                "uncompile.debug: no dump directory known (run prepare_debug first or pass dump_src_dir); "
                "breakpoints in graph files will not be hit",
                stacklevel=3,
            )
        files = _graph_files(directories)
        _relabel_live_functions(session, files)
        session.seconds_to_enter = time.perf_counter() - started
        yield session
    finally:
        for function, original, relabeled in reversed(session._restore):
            if function.__code__ is relabeled:
                function.__code__ = original
        if stance is not None:
            stance.__exit__(None, None, None)


def _dump_dirs(dump_src_dir: Any) -> List[str]:
    """The directories to look for graph files in."""
    if dump_src_dir is None:
        return _registered_dump_dirs()
    if isinstance(dump_src_dir, (str, os.PathLike)):
        return [os.fspath(dump_src_dir)]
    return [os.fspath(path) for path in dump_src_dir]


def _registered_dump_dirs() -> List[str]:
    """Directories ``prepare_debug`` wrote to in this process (empty if it never ran)."""
    try:
        from .registry import REGISTRY
    except ImportError:
        return []
    return [os.fspath(path) for path in getattr(REGISTRY, "dump_dirs", [])]


class _DumpedFile:
    """A dumped graph file: its lines and statements, split once."""

    def __init__(self, lines: List[str], recency: int = 0) -> None:
        self.lines = lines
        #: The position of its directory among those searched: the later, the more recent the dump.
        self.recency = recency
        self.statements = logical_lines(lines)
        self.keys = {key for _, _, key in self.statements}


def _graph_files(directories: Iterable[str]) -> Dict[str, _DumpedFile]:
    """Every dumped graph file below *directories* (least recently dumped first), by absolute path."""
    found: Dict[str, _DumpedFile] = {}
    for recency, directory in enumerate(directories):
        for root, _, names in os.walk(directory):
            for name in sorted(names):
                if not name.endswith(".py") or name.startswith(_NOT_GRAPH_FILES):
                    continue
                path = os.path.abspath(os.path.join(root, name))
                try:
                    with open(path, encoding="utf-8") as handle:
                        found[path] = _DumpedFile(handle.read().splitlines(), recency)
                except (OSError, UnicodeDecodeError):
                    continue
    return found


def _inductor_cache_dirs() -> List[str]:
    """Where Inductor writes its output modules (its documented default and override)."""
    dirs = [os.path.join(tempfile.gettempdir(), "torchinductor_")]
    override = os.environ.get("TORCHINDUCTOR_CACHE_DIR")
    if override:
        dirs.append(os.path.abspath(override))
    return dirs


def _live_generated_functions() -> Dict[str, List[types.FunctionType]]:
    """Live functions compiled from graph source torch generated, by source file name.

    That is FX's ``<eval_with_key>.N`` sources and modules in Inductor's cache directory.
    """
    prefixes = ("<eval_with_key>", *_inductor_cache_dirs())
    function_type = types.FunctionType
    by_file: Dict[str, List[types.FunctionType]] = {}
    for candidate in gc.get_objects():
        if type(candidate) is function_type and candidate.__code__.co_filename.startswith(prefixes):
            by_file.setdefault(candidate.__code__.co_filename, []).append(candidate)
    return by_file


def _generated_source(filename: str, functions: Sequence[types.FunctionType]) -> List[str]:
    """The source lines *functions* were compiled from (FX keeps them in ``linecache``)."""
    lines = linecache.getlines(filename, functions[0].__globals__)
    return [line.rstrip("\n") for line in lines]


def _code_lines(code: types.CodeType) -> List[int]:
    """Every line the instructions of *code* and its nested code objects use."""
    from ..bytecode.linetable import lines_by_offset

    lines = {line for line in lines_by_offset(code).values() if line is not None}
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            lines.update(_code_lines(const))
    return sorted(lines)


def _best_file(
    source: List[str], used_lines: List[int], files: Dict[str, _DumpedFile]
) -> Optional[Tuple[str, Dict[int, int]]]:
    """The dumped file holding most of *source*'s used lines, with its line map."""
    wanted = [
        line for line in used_lines if 0 < line <= len(source) and not _BOXED_PROLOGUE.match(source[line - 1])
    ]
    if not wanted:
        return None
    statements = logical_lines(source)
    wanted_keys = {key for first, last, key in statements if any(first <= line <= last for line in wanted)}
    needed = _MIN_MATCHED_FRACTION * len(wanted)
    best: Optional[Tuple[Tuple[int, int, int], str, Dict[int, int]]] = None
    for path, dumped in files.items():
        if len(wanted_keys & dumped.keys) < _MIN_MATCHED_FRACTION * len(wanted_keys):
            continue  # cannot reach the threshold: skip the costly alignment
        line_map = match_statements(statements, dumped.statements)
        matched = [line for line in wanted if line in line_map]
        if len(matched) < needed:
            continue
        exact = sum(
            1 for line in matched if source[line - 1].strip() == dumped.lines[line_map[line] - 1].strip()
        )
        # Equal matches (the same graph dumped again, e.g. once per run): the latest dump's file.
        score = (len(matched), exact, dumped.recency)
        if best is None or score > best[0]:
            best = (score, path, line_map)
    return None if best is None else (best[1], best[2])


def _relabel_live_functions(session: DebugSession, files: Dict[str, _DumpedFile]) -> None:
    """Swap relabeled ``__code__`` into every live generated function with a dumped file."""
    if not files:
        return
    dumped = set(files)
    for filename, functions in _live_generated_functions().items():
        source = _generated_source(filename, functions)
        if not source:
            session.unmatched.append(filename)
            continue
        used: List[int] = sorted({line for function in functions for line in _code_lines(function.__code__)})
        match = _best_file(source, used, files)
        if match is None:
            session.unmatched.append(filename)
            continue
        path, line_map = match
        relabeled_codes: Dict[types.CodeType, types.CodeType] = {}
        for function in functions:
            original = function.__code__
            if original.co_filename in dumped:
                continue
            if original not in relabeled_codes:
                try:
                    relabeled_codes[original] = relabel_to_file(original, line_map, path)
                except (ValueError, TypeError) as error:  # malformed line table: keep the original
                    warnings.warn(
                        f"uncompile.debug: cannot relabel {function.__qualname__}: {error}", stacklevel=2
                    )
                    continue
            relabeled = relabeled_codes[original]
            function.__code__ = relabeled
            session._restore.append((function, original, relabeled))
            session.relabeled.append((function.__qualname__, filename, path))
