"""Reading ``.pyc`` files: the header, the version check and the module's code object.

A ``.pyc`` file written by CPython 3.7 or later starts with a 16-byte header:

* 4 bytes: the magic number, a 2-byte little-endian number followed by ``b"\\r\\n"``;
  it changes whenever the bytecode format changes, so it says which Python wrote the file;
* 4 bytes: flags; bit 0 set means the header holds a source hash instead of a timestamp,
  bit 1 says whether that hash is checked;
* 8 bytes: the source's modification time and size, or the 8-byte source hash.

The rest is the module's code object in :mod:`marshal` format, which only the Python
version that wrote it can read.
"""

from __future__ import annotations

import importlib.util
import marshal
import sys
from pathlib import Path
from types import CodeType
from typing import List, NamedTuple, Optional, Tuple, Union

from .errors import PycError

HEADER_SIZE = 16
FLAG_HASH_BASED = 0b01
FLAG_CHECK_SOURCE = 0b10

# Ranges of magic numbers CPython used for each release, alpha and beta releases included
# (the history is in CPython's importlib/_bootstrap_external.py, later pycore_magic_number.h).
MAGIC_RANGES: List[Tuple[int, int, str]] = [
    (20121, 20121, "1.5"),
    (50428, 50428, "1.6"),
    (50823, 50823, "2.0"),
    (60202, 60202, "2.1"),
    (60717, 60717, "2.2"),
    (62011, 62021, "2.3"),
    (62041, 62061, "2.4"),
    (62071, 62131, "2.5"),
    (62151, 62161, "2.6"),
    (62171, 62211, "2.7"),
    (3000, 3131, "3.0"),
    (3141, 3151, "3.1"),
    (3160, 3180, "3.2"),
    (3190, 3230, "3.3"),
    (3250, 3310, "3.4"),
    (3320, 3351, "3.5"),
    (3360, 3379, "3.6"),
    (3390, 3399, "3.7"),
    (3400, 3419, "3.8"),
    (3420, 3429, "3.9"),
    (3430, 3449, "3.10"),
    (3450, 3499, "3.11"),
    (3500, 3549, "3.12"),
    (3550, 3599, "3.13"),
    (3600, 3649, "3.14"),
    (3650, 3699, "3.15"),
    (3700, 3749, "3.16"),
]


class PycHeader(NamedTuple):
    """The fields of a ``.pyc`` header."""

    magic: int
    flags: int
    hash_based: bool
    check_source: bool
    source_mtime: Optional[int]
    source_size: Optional[int]
    source_hash: Optional[bytes]


def magic_number(magic_bytes: bytes) -> int:
    """The number encoded in the first two bytes of a magic word."""
    return int.from_bytes(magic_bytes[:2], "little")


def python_version_for_magic(magic: int) -> Optional[str]:
    """The Python version ("3.11") that writes *magic*, or None if no release does."""
    for low, high, version in MAGIC_RANGES:
        if low <= magic <= high:
            return version
    return None


def running_magic() -> int:
    """The magic number of the running interpreter."""
    return magic_number(importlib.util.MAGIC_NUMBER)


def parse_header(data: bytes, name: str = "<pyc>") -> PycHeader:
    """Decode the 16-byte header at the start of *data*; :class:`PycError` if it is not one."""
    if len(data) < HEADER_SIZE:
        raise PycError("%s is truncated: %d bytes, shorter than the 16-byte .pyc header" % (name, len(data)))
    if data[2:4] != b"\r\n":
        raise PycError("%s is not a .pyc file (no magic number at its start)" % name)
    flags = int.from_bytes(data[4:8], "little")
    if flags & ~(FLAG_HASH_BASED | FLAG_CHECK_SOURCE):
        raise PycError("%s has an unknown .pyc flags word 0x%08x" % (name, flags))
    hash_based = bool(flags & FLAG_HASH_BASED)
    return PycHeader(
        magic=magic_number(data),
        flags=flags,
        hash_based=hash_based,
        check_source=bool(flags & FLAG_CHECK_SOURCE),
        source_mtime=None if hash_based else int.from_bytes(data[8:12], "little"),
        source_size=None if hash_based else int.from_bytes(data[12:16], "little"),
        source_hash=bytes(data[8:16]) if hash_based else None,
    )


def check_magic(header: PycHeader, name: str = "<pyc>") -> None:
    """Raise :class:`PycError` naming both versions unless the running Python wrote the file."""
    ours = running_magic()
    if header.magic == ours:
        return
    here = "%d.%d" % sys.version_info[:2]
    theirs = python_version_for_magic(header.magic)
    if theirs is None:
        raise PycError(
            "%s has magic number %d, which no known Python release writes; this is Python %s (magic %d)"
            % (name, header.magic, here, ours)
        )
    if theirs == here:
        raise PycError(
            "%s was written by a different build of Python %s (magic %d, this one expects %d)"
            % (name, theirs, header.magic, ours)
        )
    raise PycError(
        "%s was compiled by Python %s (magic %d) but this is Python %s (magic %d); "
        "run uncompile under Python %s" % (name, theirs, header.magic, here, ours, theirs)
    )


def code_from_pyc_bytes(data: bytes, name: str = "<pyc>") -> CodeType:
    """The module code object stored in the ``.pyc`` contents *data*."""
    header = parse_header(data, name)
    check_magic(header, name)
    body = data[HEADER_SIZE:]
    if not body:
        raise PycError("%s is truncated: it has a header but no code" % name)
    try:
        code = marshal.loads(body)
    except (EOFError, ValueError, TypeError) as exc:
        raise PycError("%s is corrupt: its code cannot be read (%s)" % (name, exc)) from None
    if not isinstance(code, CodeType):
        raise PycError("%s is corrupt: it holds a %s, not a code object" % (name, type(code).__name__))
    return code


def read_pyc_header(path: Union[str, Path]) -> PycHeader:
    """The header of the ``.pyc`` file at *path*."""
    with open(path, "rb") as stream:
        data = stream.read(HEADER_SIZE)
    return parse_header(data, str(path))


def load_pyc(path: Union[str, Path]) -> CodeType:
    """The module code object in the ``.pyc`` file at *path*.

    Raises :class:`PycError` with one clear line when the file is truncated, corrupt or was
    written by another Python version (naming both versions).
    """
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise PycError("cannot read %s: %s" % (path, exc.strerror or exc)) from None
    return code_from_pyc_bytes(data, str(path))
