"""The dump directory: which one this process writes to, and atomic writes into it.

Several processes may dump into one directory. A process with a known rank
(``torch.distributed`` or the ``RANK`` environment variable) writes to ``rank_<r>/``. Other
processes claim the directory itself through an owner file created with ``O_EXCL``; the
first live claimant writes there (as depyf did) and every other process writes to
``process_<pid>/``. Files are written to a temporary name and renamed into place, so a
reader never sees half a file.
"""

from __future__ import annotations

import errno
import os
import tempfile
from typing import List, Optional, Tuple

from . import _torch_private

OWNER_FILE = ".uncompile-owner"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except OSError as error:
        return error.errno == errno.EPERM
    return True


def _owner_pid(owner: str) -> int:
    """The process id written in the owner file *owner* (0 when empty); raises OSError or
    ValueError when it cannot be read."""
    handle = os.open(owner, os.O_RDONLY)
    try:
        return int(os.read(handle, 64).strip() or b"0")
    finally:
        os.close(handle)


def _claim(directory: str) -> bool:
    """True when this process owns *directory* (claiming it if free or stale)."""
    owner = os.path.join(directory, OWNER_FILE)
    try:
        if _owner_pid(owner) == os.getpid():
            return True  # claimed by an earlier dump of this process (the usual case on re-entry)
    except (OSError, ValueError):
        pass
    for _ in range(3):
        try:
            handle = os.open(owner, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
        except FileExistsError:
            try:
                pid = _owner_pid(owner)
            except (OSError, ValueError):
                return False
            if pid == os.getpid():
                return True
            if pid == 0 or (pid > 0 and _alive(pid)):
                return False  # empty: another process has just created it and writes its id now
            try:
                os.unlink(owner)
            except OSError:
                return False
            continue
        try:
            os.write(handle, str(os.getpid()).encode())
        finally:
            os.close(handle)
        return True
    return False


def known_rank() -> Optional[int]:
    """This process's rank: ``torch.distributed`` first, then the ``RANK`` variable."""
    rank = _torch_private.distributed_rank()
    if rank is not None:
        return rank
    value = os.environ.get("RANK")
    return int(value) if value is not None and value.strip().isdigit() else None


def choose_directory(root: str) -> Tuple[str, Optional[int]]:
    """The directory this process writes its dump to, and its rank if known."""
    if not os.path.isdir(root):  # one stat: makedirs on an existing directory raises and catches
        os.makedirs(root, exist_ok=True)
    rank = known_rank()
    if rank is not None:
        return os.path.join(root, "rank_%d" % rank), rank
    if _claim(root):
        return root, None
    return os.path.join(root, "process_%d" % os.getpid()), None


class DumpDirectory:
    """Writes files into one directory and remembers what it wrote."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.written: List[str] = []
        os.makedirs(path, exist_ok=True)

    def write(self, name: str, text: str) -> str:
        """Write *text* to *name* atomically; returns *name*."""
        handle, temporary = tempfile.mkstemp(prefix=".tmp-", dir=self.path)
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as stream:
                stream.write(text)
            os.replace(temporary, os.path.join(self.path, name))
        except BaseException:
            if os.path.exists(temporary):
                os.unlink(temporary)
            raise
        if name not in self.written:
            self.written.append(name)
        return name

    def absolute(self, name: str) -> str:
        """The absolute path of *name* in this directory."""
        return os.path.abspath(os.path.join(self.path, name))

    def remove_previous(self, names: List[str]) -> None:
        """Delete files a previous dump listed in its index (never anything else)."""
        for name in names:
            if os.path.basename(name) != name or name.startswith("."):
                continue
            try:
                os.unlink(os.path.join(self.path, name))
            except OSError:
                pass

    def python_files_compiling(self) -> Tuple[int, int, List[str]]:
        """(number of .py files written, number that compile, names of those that do not)."""
        broken: List[str] = []
        total = 0
        for name in self.written:
            if not name.endswith(".py"):
                continue
            total += 1
            with open(os.path.join(self.path, name), encoding="utf-8") as stream:
                try:
                    compile(stream.read(), name, "exec")
                except SyntaxError:
                    broken.append(name)
        return total, total - len(broken), broken
