"""``prepare_debug(dir)``: dump everything ``torch.compile`` does inside the context.

Supported PyTorch: 2.13.x (see :mod:`._torch_private`). Entering installs three things: a
Dynamo bytecode hook, an observer of PyTorch's structured trace (see :mod:`.trace`), and one of
``torch.export`` (see :func:`._torch_private.wrap_export`). The hook decompiles each
transformed code object and returns it relabeled (same instructions, the dumped file's name
and lines; see :mod:`.early`). Leaving removes all three, even when the body raised, and
then verifies the sources and writes the files: per cache entry ``__transformed_code_<n>_for_<fn>.py``,
per function ``full_code_for_<fn>_<n>.py``, one file per graph stage, and ``index.json``,
``index.md`` and ``index.html``. Compile caches are left as they are: PyTorch re-emits the
cached graphs in the structured trace on a cache hit. A failure inside uncompile becomes
one warning per cause and an entry in the index; the user's program is never interrupted.
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import linecache
import os
import platform
import time
from typing import Any, Iterator, List, Optional

from .. import _version
from . import _torch_private
from .capture import BytecodeCapture, previously_compiled
from .early import EarlyDecompiler
from .files import DumpDirectory, choose_directory
from .model import INDEX_FORMAT, DumpIndex
from .registry import REGISTRY
from .trace import TraceCollector, attach, record_export
from .writer import DumpWriter, Options, group_functions

INDEX_JSON = "index.json"


@contextlib.contextmanager
def prepare_debug(
    dump_src_dir: Any = None,
    clean_wild_fx_code: bool = True,
    log_bytecode: bool = False,
    verify: bool = True,
    relabel: bool = True,
    **unused: Any,
) -> Iterator[Optional[str]]:
    """Dump what ``torch.compile`` does inside the ``with`` block into *dump_src_dir*.

    Yields the directory this process writes to (a ``rank_<r>``/``process_<pid>``
    subdirectory when another process owns *dump_src_dir*). *clean_wild_fx_code* (depyf's
    name) leaves out graphs that no cache entry uses; *log_bytecode* also writes ``dis``
    listings; *verify* checks each decompiled source by recompiling it; *relabel* lets the
    code objects Dynamo caches carry the dumped files' names and lines (same instructions),
    which is what :func:`uncompile.debug` needs to stop in ``__transformed_code_*`` files.
    """
    warnings_mark = _torch_private.warnings_mark()
    if unused:
        _torch_private.warn_once("ignored prepare_debug arguments", ", ".join(sorted(unused)))
    if importlib.util.find_spec("torch") is None:
        _torch_private.warn_once("torch is not installed: prepare_debug dumps nothing")
        yield None
        return
    root = os.path.abspath(os.fspath(dump_src_dir) if dump_src_dir is not None else "depyf_debug_dir")
    try:
        directory, rank = choose_directory(root)
    except OSError as error:
        _torch_private.warn_once("cannot create the dump directory %s" % root, repr(error))
        yield None
        return
    before = _torch_private.compiled_original_codes()
    capture = BytecodeCapture(EarlyDecompiler(directory, relabel))
    collector = TraceCollector()
    installed = False
    detach = restore_export = None
    try:
        installed = capture.install()
        detach = attach(collector)
        restore_export = _torch_private.wrap_export(lambda program: record_export(collector, program))
    except Exception as error:  # noqa: BLE001
        _torch_private.warn_once("cannot install the dump hooks", repr(error))
    try:
        yield directory
    finally:
        capture.remove()
        if detach is not None:
            detach()
        if restore_export is not None:
            restore_export()
        try:
            write(
                directory,
                rank,
                capture,
                collector,
                before,
                installed,
                Options(clean_wild_fx_code, log_bytecode, verify),
                warnings_mark,
            )
        except Exception as error:  # noqa: BLE001 - never crash the user's program
            _torch_private.warn_once("writing the dump failed", repr(error))


def _previous_files(directory: str) -> List[str]:
    try:
        with open(os.path.join(directory, INDEX_JSON), encoding="utf-8") as stream:
            return [str(name) for name in json.load(stream).get("files", [])]
    except (OSError, ValueError, AttributeError):
        return []


def write(
    path: str,
    rank: Optional[int],
    capture: BytecodeCapture,
    collector: TraceCollector,
    before: list,
    installed: bool,
    options: Options,
    warnings_mark: int = 0,
) -> DumpIndex:
    """Write the dump for what *capture* and *collector* recorded; returns the index.

    Its warnings are the causes warned about since *warnings_mark* (the dump's entry), also
    those first warned about during an earlier dump of this process."""
    started = time.perf_counter()
    directory = DumpDirectory(path)
    known = {item.compile_id for item in capture.captured}
    captured = list(capture.captured) + previously_compiled(before, known)
    collector.finish()
    writer = DumpWriter(directory, collector, options)
    index = DumpIndex(
        format=INDEX_FORMAT,
        uncompile_version=_version.__version__,
        torch_version=_torch_private.torch_version(),
        python_version=platform.python_version(),
        pid=os.getpid(),
        rank=rank,
        directory=path,
    )
    if not installed:
        index.notes.append("the bytecode hook could not be installed: no transformed code was captured")
    for group in group_functions(captured):
        index.functions.append(writer.function(group))
    index.other_compiles = writer.other_compiles()
    total, compiling, broken = directory.python_files_compiling()
    index.py_files, index.py_files_compiling = total, compiling
    index.failures = capture.failures + collector.failures + writer.failures
    index.failures.extend("does not compile: %s" % name for name in broken)
    index.notes.append("dump written in %.3f s" % (time.perf_counter() - started))
    stale = [name for name in _previous_files(path) if name not in directory.written]
    index.warnings = _torch_private.causes_since(warnings_mark)
    _write_reports(directory, index)
    directory.remove_previous([name for name in stale if name not in directory.written])
    _forget_cached_lines(directory)
    REGISTRY.add_dump(path, writer.transformed, writer.graph_dumps)
    return index


def _forget_cached_lines(directory: DumpDirectory) -> None:
    """Drop linecache entries of the dumped files (read before they existed, e.g. by a warning)."""
    for name in directory.written:
        linecache.cache.pop(directory.absolute(name), None)


def _write_reports(directory: DumpDirectory, index: DumpIndex) -> None:
    from ..report import html, markdown

    index.files = sorted(directory.written) + ["index.md", "index.html", INDEX_JSON]
    data = index.as_dict()
    directory.write("index.md", markdown.render(data))
    directory.write("index.html", html.render(data))
    directory.write(INDEX_JSON, json.dumps(data, indent=1, default=str) + "\n")
