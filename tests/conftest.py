"""Shared pytest set-up: makes ``src/`` and the tests' own helpers (``snippets``) importable and
leaves torch tests out where torch is missing.

The torch tests (``tests/dynamo``, ``tests/report``) run only under Python 3.11 with torch
installed; elsewhere (3.8 … 3.15 without torch) they are not collected, so a plain
``pytest`` works under every interpreter.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import List

TESTS = Path(__file__).resolve().parent
for folder in (TESTS.parent / "src", TESTS):
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))

collect_ignore: List[str] = []
if importlib.util.find_spec("torch") is None:
    collect_ignore += ["dynamo", "report"]
