"""Graphs printed when the dump is written show the graph as it was at the trace event."""

from __future__ import annotations

import contextlib
import gc
import operator
import weakref
from typing import Any, List

import pytest

torch = pytest.importorskip("torch")

from uncompile.dynamo.graph_snapshot import GraphSnapshot, deferred_payload  # noqa: E402
from uncompile.dynamo.trace import TraceCollector  # noqa: E402


def _captured(function: Any, *args: Any) -> Any:
    """The GraphModule Dynamo hands a backend for *function* (one graph)."""
    modules: List[Any] = []

    def backend(gm: Any, example_inputs: Any) -> Any:
        modules.append(gm)
        return gm.forward

    torch._dynamo.reset()
    torch.compile(function, backend=backend, fullgraph=True)(*args)
    assert len(modules) == 1
    return modules[0]


def _scaled(x: Any, w: Any) -> Any:
    return (x * 2 + w).relu().sum(0)


def _branches(x: Any) -> Any:
    return torch.cond(x.sum() > 0, lambda y: y.sin() + 1, lambda y: y.cos(), (x,))


def _print(gm: Any) -> Any:
    """Dynamo's ``dynamo_output_graph`` payload function."""
    return lambda: gm.print_readable(print_output=False, include_stride=True, include_device=True)


def _rewrite_adds(gm: Any) -> None:
    """What a backend pass may do to the module after the event: every ``+`` becomes ``-``."""
    for graph in [gm.graph] + [
        child.graph for child in gm.children() if isinstance(child, torch.fx.GraphModule)
    ]:
        for node in graph.nodes:
            if node.target in (operator.add, torch.add):
                node.target = operator.sub
        graph.owning_module.recompile()


@pytest.mark.parametrize("function", [_scaled, _branches], ids=["plain", "with_child_graphs"])
def test_a_deferred_print_shows_the_graph_of_the_event(function: Any) -> None:
    gm = (
        _captured(function, torch.ones(3, 4), torch.ones(4))
        if function is _scaled
        else _captured(function, torch.ones(3))
    )
    at_event = _print(gm)()
    build = deferred_payload(_print(gm))
    assert build is not None
    _rewrite_adds(gm)
    assert _print(gm)() != at_event  # the module changed, its copy did not
    assert build() == at_event


def test_other_payloads_are_not_deferred() -> None:
    gm = _captured(_scaled, torch.ones(3, 4), torch.ones(4))
    assert deferred_payload(lambda: "text") is None
    assert deferred_payload(lambda: gm.code) is None  # not a print_readable call
    assert deferred_payload(lambda: str(gm) + gm.print_readable(print_output=False)) is None


def test_the_collector_prints_graphs_when_the_dump_is_written() -> None:
    gm = _captured(_scaled, torch.ones(3, 4), torch.ones(4))
    at_event = _print(gm)()
    collector = TraceCollector()
    collector.observe("dynamo_output_graph", dict, _print(gm), lambda: {"frame_id": 0, "frame_compile_id": 0})
    events = collector.compiles["0/0"]
    assert [graph.text for graph in events.graphs] == [""]  # not printed yet
    _rewrite_adds(gm)
    collector.finish()
    assert [(graph.stage, graph.text) for graph in events.graphs] == [("captured_graph", at_event)]
    assert collector.failures == []


def test_a_graph_that_cannot_be_copied_is_printed_at_the_event(monkeypatch: pytest.MonkeyPatch) -> None:
    gm = _captured(_scaled, torch.ones(3, 4), torch.ones(4))
    at_event = _print(gm)()

    def cannot(module: Any) -> Any:
        raise RuntimeError("unusual module")

    monkeypatch.setattr(GraphSnapshot, "take", classmethod(lambda cls, module: cannot(module)))
    assert deferred_payload(_print(gm)) is None
    collector = TraceCollector()
    collector.observe("dynamo_output_graph", dict, _print(gm), lambda: {"frame_id": 0, "frame_compile_id": 0})
    _rewrite_adds(gm)
    collector.finish()
    assert [graph.text for graph in collector.compiles["0/0"].graphs] == [at_event]
    assert collector.failures == []


def _snapshots_taken(monkeypatch: pytest.MonkeyPatch) -> List[Any]:
    """Weak references to every snapshot taken from now on (child graphs' included)."""
    taken: List[Any] = []
    take = GraphSnapshot.take.__func__  # type: ignore[attr-defined]

    def recording(cls: Any, module: Any) -> GraphSnapshot:
        snapshot = take(cls, module)
        taken.append(weakref.ref(snapshot))
        return snapshot

    monkeypatch.setattr(GraphSnapshot, "take", classmethod(recording))
    return taken


@pytest.mark.parametrize("body_raises", [False, True], ids=["body_returns", "body_raises"])
def test_the_copies_are_released_when_the_dump_is_written(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Any, body_raises: bool
) -> None:
    """The copies (and the nodes and fake tensors they refer to) live only until the exit."""
    import uncompile

    taken = _snapshots_taken(monkeypatch)
    torch._dynamo.reset()
    compiled = torch.compile(_branches, backend="aot_eager")
    with pytest.raises(ValueError) if body_raises else contextlib.nullcontext():
        with uncompile.prepare_debug(str(tmp_path)):
            compiled(torch.ones(3))
            gc.collect()
            assert sum(1 for ref in taken if ref() is not None) >= 2  # a graph and its branches
            if body_raises:
                raise ValueError("the user's error")
    gc.collect()
    assert [ref for ref in taken if ref() is not None] == []
    assert list(tmp_path.glob("*captured_graph.py"))
