"""Names for constants that have no source form.

Dynamo puts arbitrary objects (tensors, dtypes, modules, functions) into ``co_consts``.
The decompiler writes such a constant as a readable name, ``__uc_<Type>_<index>`` where
*index* is its position in ``co_consts``; :mod:`uncompile.verification.recompile` reads the
index back and binds the name to the original object again.
"""

from __future__ import annotations

import math
import re
import types
from typing import Any, Optional

_PLACEHOLDER = re.compile(r"^__uc_([A-Za-z0-9_]*?)_(\d+)$")
_LITERAL_SCALARS = (type(None), bool, int, str, bytes, type(Ellipsis), types.CodeType)


def has_source_form(value: Any) -> bool:
    """True when *value* can be written as a literal that compiles back to the same constant."""
    if isinstance(value, float):
        return not math.isnan(value)
    if isinstance(value, complex):
        return not (math.isnan(value.real) or math.isnan(value.imag))
    if type(value) in _LITERAL_SCALARS:
        return True
    if type(value) in (tuple, frozenset):
        return all(map(has_source_form, value))
    return False


def placeholder_name(value: Any, index: int) -> str:
    """The name that stands for ``co_consts[index]`` (which is *value*) in decompiled source."""
    kind = re.sub(r"\W", "_", type(value).__name__) or "object"
    return "__uc_%s_%d" % (kind, index)


def placeholder_index(name: str) -> Optional[int]:
    """The ``co_consts`` index that a placeholder name stands for, or None for other names."""
    match = _PLACEHOLDER.match(name)
    return int(match.group(2)) if match else None
