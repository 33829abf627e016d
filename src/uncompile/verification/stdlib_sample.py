"""A fixed, deterministic sample of the running interpreter's standard library.

The modules are compiled from their source files (never imported). Files under test
directories, ``idlelib``, ``lib2to3``, ``turtledemo`` and ``site-packages`` are left out,
as is any file this interpreter cannot compile. The sample depends only on the
standard library's files and the *seed*: the sorted file list is shuffled with a seeded
generator, and from each file, in that order, up to *per_file* units are chosen with a
generator seeded by the file's relative path, until *size* units are collected.
Module code objects are not sampled (their functions are).
"""

from __future__ import annotations

import os
import random
import sysconfig
from types import CodeType
from typing import Iterator, List, Optional, Tuple

from .roundtrip import compile_file, iter_units

_SKIPPED_DIRECTORIES = frozenset(
    {
        "test",
        "tests",
        "idle_test",
        "idlelib",
        "lib2to3",
        "turtledemo",
        "site-packages",
        "dist-packages",
        "__pycache__",
        "__phello__",
    }
)

Unit = Tuple[str, str, CodeType]  # (relative file, qualname, code)


def stdlib_root() -> str:
    """The directory of the running interpreter's pure-Python standard library."""
    return sysconfig.get_paths()["stdlib"]


def stdlib_files(root: Optional[str] = None) -> List[str]:
    """Relative paths of the standard library's ``.py`` files, sorted."""
    root = root or stdlib_root()
    found = []
    for directory, subdirectories, files in os.walk(root):
        subdirectories[:] = sorted(name for name in subdirectories if name not in _SKIPPED_DIRECTORIES)
        relative_directory = os.path.relpath(directory, root)
        for name in files:
            if not name.endswith(".py") or name.startswith("test_"):
                continue
            if not os.path.exists(os.path.join(directory, name)):
                continue  # a dangling link (a distribution's sitecustomize.py, say)
            found.append(os.path.normpath(os.path.join(relative_directory, name)).replace(os.sep, "/"))
    return sorted(found)


def _compiled_units(root: str, relative: str) -> List[Tuple[str, CodeType]]:
    try:
        module = compile_file(os.path.join(root, relative))
    except (SyntaxError, ValueError, UnicodeDecodeError):
        return []
    return list(iter_units(module, include_module=False))


def sample_units(
    size: Optional[int] = 300, *, seed: int = 0, per_file: int = 8, root: Optional[str] = None
) -> List[Unit]:
    """*size* units of the standard library (all of them when *size* is None)."""
    return list(iter_sample(size, seed=seed, per_file=per_file, root=root))


def iter_sample(
    size: Optional[int] = 300, *, seed: int = 0, per_file: int = 8, root: Optional[str] = None
) -> Iterator[Unit]:
    """Yield the sample of :func:`sample_units` file by file (so callers can show progress)."""
    root = root or stdlib_root()
    files = stdlib_files(root)
    if size is not None:
        random.Random(seed).shuffle(files)
    taken = 0
    for relative in files:
        units = _compiled_units(root, relative)
        if size is not None and len(units) > per_file:
            chosen = sorted(random.Random("%d:%s" % (seed, relative)).sample(range(len(units)), per_file))
            units = [units[index] for index in chosen]
        for qualname, code in units:
            if size is not None and taken >= size:
                return
            taken += 1
            yield relative, qualname, code
