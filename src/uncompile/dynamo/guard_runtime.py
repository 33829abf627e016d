"""Helpers that the guard functions in ``full_code_for_*.py`` call.

Dynamo writes its guards as expressions over ``L`` (the frame's locals) and ``G`` (its
globals) that use a few helper functions (``check_tensor``, ``___check_obj_id``...). The
dumped guard functions do ``from uncompile.dynamo.guard_runtime import *`` and evaluate the
same expressions with the implementations below, so a person can call a guard function with
real inputs and see whether that cache entry would be used. Identity guards compare ``id()``
values, so they only answer correctly inside the process that wrote the dump.
"""

from __future__ import annotations

import collections
from typing import Any, Iterable, List, Optional, Sequence

from . import _torch_private

#: Dynamo helpers taken from Dynamo itself (looked up lazily, on first use).
_FROM_DYNAMO = (
    "___tuple_iterator_len",
    "___tuple_iterator_getitem",
    "___normalize_range_iter",
    "___normalize_count_iter",
    "___dataclass_fields",
    "___key_to_id",
    "___from_numpy",
    "___as_tensor",
    "__numpy_isnan",
    "__load_module",
    "utils_device",
    "device",
    "inspect",
    "math",
    "torch",
)
_DEFINED = (
    "check_tensor",
    "check_no_aliasing",
    "DispatchKeySet",
    "___check_obj_id",
    "___check_type_id",
    "___check_global_state",
    "___check_torch_function_mode_stack",
    "___saved_tensors_hooks_are_none",
    "___odict_getitem",
    "___dict_contains",
    "___namedtuple_fields",
    "__math_isnan",
    "inf",
)
__all__ = list(_DEFINED + _FROM_DYNAMO)
#: Names the guard expressions may use besides ``L``, ``G`` and builtins.
PROVIDED_NAMES = frozenset(__all__)
inf = float("inf")


def DispatchKeySet(*keys: str) -> frozenset:  # noqa: N802 - mirrors the name in Dynamo's guard text
    """The dispatch keys of a TENSOR_MATCH guard, as a set of names."""
    return frozenset(keys)


def check_tensor(
    value: Any,
    type_name: str,
    dispatch_keys: Iterable[str],
    dtype: Any,
    device: Optional[int] = None,
    requires_grad: Optional[bool] = None,
    size: Optional[Sequence[Optional[int]]] = None,
    stride: Optional[Sequence[Optional[int]]] = None,
) -> bool:
    """Dynamo's TENSOR_MATCH: type, dispatch keys, dtype, device, requires_grad, sizes, strides.

    ``None`` in *size*/*stride* marks a dynamic dimension, which is not checked here.
    """
    if type(value).__name__ != type_name or getattr(value, "dtype", None) != dtype:
        return False
    if device is not None and getattr(value.device, "index", None) != device:
        return False
    if requires_grad is not None and bool(value.requires_grad) != bool(requires_grad):
        return False
    keys = _torch_private.tensor_dispatch_keys(value)
    if keys is not None and keys != set(dispatch_keys):
        return False
    for expected, actual in ((size, list(value.size())), (stride, list(value.stride()))):
        if expected is None:
            continue
        if len(expected) != len(actual):
            return False
        if any(want is not None and want != got for want, got in zip(expected, actual)):
            return False
    return True


def check_no_aliasing(*values: Any) -> bool:
    """Dynamo's NO_TENSOR_ALIASING: no two of *values* are the same object."""
    return len({id(value) for value in values}) == len(values)


def ___check_obj_id(value: Any, expected_id: int) -> bool:
    """ID_MATCH: *value* is the very object Dynamo saw (same ``id()``)."""
    return id(value) == expected_id


def ___check_type_id(value: Any, expected_id: int) -> bool:
    """TYPE_MATCH: ``type(value)`` is the very type Dynamo saw (same ``id()``)."""
    return id(type(value)) == expected_id


def ___check_global_state(state_json: str) -> bool:
    """GLOBAL_STATE: grad mode, default dtype, autocast... are as they were at compile time."""
    check = _torch_private.global_state_check(state_json)
    return True if check is None else bool(check())


def ___check_torch_function_mode_stack(expected: Sequence[str]) -> bool:
    """TORCH_FUNCTION_MODE_STACK: the active torch-function modes have the expected types."""
    current = _torch_private.current_torch_function_modes()
    return True if current is None else list(current) == list(expected)


def ___saved_tensors_hooks_are_none() -> bool:
    """AUTOGRAD_SAVED_TENSORS_HOOKS (``... top_saved_tensors_hooks ids == None``): no hooks are set."""
    active = _torch_private.saved_tensors_hooks_active()
    return True if active is None else not active


def ___odict_getitem(mapping: Any, key: Any) -> Any:
    """``OrderedDict.__getitem__`` without a subclass's override."""
    return collections.OrderedDict.__getitem__(mapping, key)


def ___dict_contains(key: Any, mapping: Any) -> bool:
    """``key in mapping`` using ``dict.__contains__`` (Dynamo's argument order)."""
    return dict.__contains__(mapping, key)


def ___namedtuple_fields(value: Any) -> List[str]:
    """The ``_fields`` of a named tuple."""
    return list(value._fields)


def __math_isnan(value: float) -> bool:
    """``math.isnan``."""
    import math

    return math.isnan(value)


def __getattr__(name: str) -> Any:
    if name in _FROM_DYNAMO:
        helpers = _torch_private.guard_helper_functions()
        if name in helpers:
            return helpers[name]
        if name in ("math", "inspect", "torch"):
            import importlib

            return importlib.import_module(name)
    raise AttributeError(name)
