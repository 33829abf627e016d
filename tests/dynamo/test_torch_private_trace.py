"""Accessors of PyTorch internals: the structured-trace interception."""

from __future__ import annotations

import sys
import types
from typing import Any, List

import pytest

pytest.importorskip("torch")

from uncompile.dynamo._torch_private import observe_structured_trace  # noqa: E402


def test_a_module_loaded_after_an_earlier_search_is_observed_too() -> None:
    """``prepare_debug`` searches only the modules loaded since its last entry: one loaded in
    between (binding PyTorch's ``trace_structured``) still has its calls observed."""
    from torch._logging import _internal

    undo = observe_structured_trace(lambda *args: None, ["late_event"])
    assert undo is not None
    undo()
    original = _internal.trace_structured
    module = types.ModuleType("uncompile_test_late_binder")
    module.trace_structured = original  # type: ignore[attr-defined]
    sys.modules[module.__name__] = module
    try:
        seen: List[Any] = []
        undo = observe_structured_trace(lambda name, *args: seen.append(name), ["late_event"])
        assert undo is not None
        try:
            module.trace_structured("late_event")  # type: ignore[attr-defined]
        finally:
            undo()
        assert seen == ["late_event"]
        assert module.trace_structured is original  # type: ignore[attr-defined]
    finally:
        del sys.modules[module.__name__]
