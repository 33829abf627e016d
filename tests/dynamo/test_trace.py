"""The structured-trace collector builds only what the dump keeps of each event."""

from __future__ import annotations

import traceback
from typing import Any, Callable, Dict, List

import pytest

pytest.importorskip("torch")

from uncompile.dynamo.trace import TraceCollector  # noqa: E402

CONTEXT: Dict[str, Any] = {"frame_id": 0, "frame_compile_id": 0}
USER_PART = "Graph break in user code at model.py:3\nGraph Break Reason: data-dependent branch\n"


def _torch_break_reason(user_stack_trace: str) -> Callable[[], str]:
    """The payload function ``symbolic_convert`` passes with a graph-break reason."""
    return lambda: f"{user_stack_trace}\n{traceback.format_exc()}"


def test_graph_break_reasons_leave_out_the_traceback(monkeypatch: pytest.MonkeyPatch) -> None:
    formatted: List[str] = []
    monkeypatch.setattr(traceback, "format_exc", lambda *args: formatted.append("exc") or "Traceback...")
    collector = TraceCollector()
    metadata = lambda: {"name": "dynamo_graph_break_reason", "encoding": "string"}  # noqa: E731
    collector.observe("artifact", metadata, _torch_break_reason(USER_PART), lambda: CONTEXT)
    collector.observe("artifact", metadata, lambda: "another payload", lambda: CONTEXT)
    assert collector.compiles["0/0"].graph_break_reasons == [USER_PART, "another payload"]
    assert formatted == [] and collector.failures == []


def test_graph_events_build_their_text_not_their_metadata() -> None:
    built: List[str] = []
    collector = TraceCollector()
    collector.observe(
        "dynamo_output_graph",
        lambda: built.append("sizes") or {"sizes": {}},
        lambda: built.append("graph") or "class G: pass\n",
        lambda: CONTEXT,
    )
    assert built == ["graph"]
    assert [(graph.stage, graph.text) for graph in collector.compiles["0/0"].graphs] == [
        ("captured_graph", "class G: pass\n")
    ]
