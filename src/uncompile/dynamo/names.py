"""Stable, short, safe file names for the dump directory.

Names keep the prefixes depyf users know (``__transformed_code_``, ``full_code_for_``,
``__compiled_fn_``) and are limited to ``[A-Za-z0-9_.-]``; a long name (e.g. one derived from
an ``nn_module_stack``) is cut and suffixed with a short hash so it stays well under any OS
limit and stays distinct.
"""

from __future__ import annotations

import hashlib
import re
from typing import Dict

MAX_STEM = 80
_UNSAFE = re.compile(r"[^A-Za-z0-9_]+")
_COMPILED_FN = re.compile(r"^(__compiled_fn_\d+)(?:_[0-9a-f]{8}(?:_[0-9a-f]{4}){3}_[0-9a-f]{12})?$")


def sanitize(name: str, limit: int = MAX_STEM) -> str:
    """*name* reduced to safe characters and at most *limit* characters."""
    cleaned = _UNSAFE.sub("_", name) or "anonymous"
    if len(cleaned) <= limit:
        return cleaned
    digest = hashlib.sha1(name.encode("utf-8")).hexdigest()[:8]
    return cleaned[: limit - 9] + "_" + digest


def short_compiled_fn(name: str) -> str:
    """``__compiled_fn_3`` for Dynamo's ``__compiled_fn_3_<uuid>`` global (other names unchanged)."""
    match = _COMPILED_FN.match(name)
    return match.group(1) if match else name


def transformed_code_file(function: str, index: int) -> str:
    """``__transformed_code_<n>_for_<fn>.py``: cache entry *index* of code named *function*."""
    return "__transformed_code_%d_for_%s.py" % (index, sanitize(function))


def full_code_file(function: str, index: int) -> str:
    """``full_code_for_<fn>_<n>.py``: the dispatch view of one original function."""
    return "full_code_for_%s_%d.py" % (sanitize(function), index)


def graph_file(graph_name: str, stage: str, index: int = 0) -> str:
    """``<graph>_<stage>[_<n>].py`` for one stage of one compiled graph."""
    suffix = "" if index == 0 else "_%d" % index
    return "%s_%s%s.py" % (sanitize(short_compiled_fn(graph_name), 48), sanitize(stage, 24), suffix)


class NameCounter:
    """Hands out a distinct index per (kind, name): the ``<n>`` in ``full_code_for_<fn>_<n>``."""

    def __init__(self) -> None:
        self._next: Dict[str, int] = {}

    def next(self, key: str) -> int:
        """The next unused index for *key* (0, 1, 2...)."""
        index = self._next.get(key, 0)
        self._next[key] = index + 1
        return index
