"""Private PyTorch reads of the structured trace: the interception and the payload readers."""

from __future__ import annotations

import sys
import traceback
import types
from typing import Any, List

import pytest

pytest.importorskip("torch")

from uncompile.dynamo._torch_private_trace import graph_break_reason_text, observe_structured_trace  # noqa: E402

USER_PART_TEXT = "Graph break in user code at model.py:3\nGraph Break Reason: data-dependent branch\n"


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


def test_observers_see_only_the_events_they_name() -> None:
    """An event no observer names goes straight to PyTorch's own function (issue #4: the
    timing events, hundreds per compile, cost the dump nothing)."""
    import torch._logging

    named: List[str] = []
    every: List[str] = []
    undo_named = observe_structured_trace(lambda name, *_: named.append(name), {"dynamo_output_graph"})
    assert undo_named is not None
    try:
        torch._logging.trace_structured("chromium_event")
        undo_every = observe_structured_trace(lambda name, *_: every.append(name))
        assert undo_every is not None
        torch._logging.trace_structured("chromium_event")
        torch._logging.trace_structured("dynamo_output_graph")
        undo_every()
        torch._logging.trace_structured("chromium_event")
    finally:
        undo_named()
    assert named == ["dynamo_output_graph"]
    assert every == ["chromium_event", "dynamo_output_graph"]


def test_the_reason_of_another_payload_is_built_as_pytorch_builds_it() -> None:
    other = "x"
    assert graph_break_reason_text(lambda: other + "!") == "x!"
    assert graph_break_reason_text(lambda: USER_PART_TEXT) == USER_PART_TEXT


def test_the_reason_pytorch_builds_is_read_without_its_traceback(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(traceback, "format_exc", lambda *args: pytest.fail("the traceback was formatted"))
    user_stack_trace = USER_PART_TEXT
    payload = lambda: f"{user_stack_trace}\n{traceback.format_exc()}"  # noqa: E731 - as symbolic_convert
    assert graph_break_reason_text(payload) == USER_PART_TEXT
