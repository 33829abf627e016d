"""Helpers of the held-list edits in :mod:`uncompile.expressions.frame_lists`."""

from __future__ import annotations

import ast
import itertools
from typing import Any, List

from uncompile.expressions.frame_lists import _shared_bottom


def _name(name: str) -> ast.Name:
    return ast.Name(id=name, ctx=ast.Load())


def test_shared_bottom_is_the_common_prefix() -> None:
    items = [_name(name) for name in "abcd"]
    for size in range(len(items) + 1):
        for order in itertools.permutations(items, size):
            after: List[Any] = list(order)
            expected = 0
            while expected < min(len(items), len(after)) and items[expected] is after[expected]:
                expected += 1
            assert _shared_bottom(items, after) == expected
