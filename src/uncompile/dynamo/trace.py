"""Receive PyTorch's structured trace in-process.

``torch._logging.trace_structured`` is how PyTorch reports graphs, guards, graph breaks,
recompile reasons and metrics (``TORCH_TRACE`` writes them to a file that tlparse reads).
:class:`TraceCollector` observes those calls (see
:func:`._torch_private_trace.observe_structured_trace`): from each event's name it decides
whether it needs the event, and only then has PyTorch build the event's text, so the
dump does not pay for the many events it does not use (timing events, tensor
descriptions...), and of the events it uses builds only what it keeps: a graph's text, not
its metadata (the graph's tensor sizes); a graph break's reason and user frames, not the
traceback through Dynamo that PyTorch appends (see
:func:`._torch_private_trace.graph_break_reason_text`). What it keeps is grouped by compile id, in
memory. The guard-tree text, needed only when a cache entry is gone, the compilation
metrics, and the text of graphs that PyTorch prints from the live module (from a copy
taken at the event, see :mod:`.graph_snapshot`) are built when the dump is written
(:meth:`TraceCollector.finish`).
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional

from . import _torch_private, _torch_private_trace
from .graph_snapshot import deferred_payload

#: Structured-trace event names that carry a graph, mapped to the stage we file them under.
GRAPH_EVENTS = {
    "dynamo_output_graph": "captured_graph",
    "aot_joint_graph": "aot_joint",
    "aot_forward_graph": "aot_forward",
    "aot_backward_graph": "aot_backward",
    "aot_inference_graph": "aot_inference",
    "inductor_post_grad_graph": "post_grad",
    "inductor_output_code": "output_code",
    "exported_program": "exported_program",
}
#: Artifacts (``trace_structured("artifact", name=...)``) that carry a graph.
GRAPH_ARTIFACTS = {
    "before_pre_grad_graph": "pre_grad_before",
    "after_pre_grad_graph": "pre_grad_after",
}
CACHE_ARTIFACTS = (
    "aotautograd_cache_hit",
    "aotautograd_cache_miss",
    "aotautograd_cache_bypass",
    "fx_graph_cache_hit",
    "fx_graph_cache_miss",
    "fx_graph_cache_bypass",
)
#: Events whose payload is a text the dump keeps (artifacts are chosen by their own name).
_TEXT_EVENTS = frozenset(GRAPH_EVENTS) | {"artifact"}
#: Artifacts (``trace_structured("artifact", name=...)``) the dump keeps; graphs come as both.
_KEPT_ARTIFACTS = (
    frozenset(GRAPH_EVENTS)
    | frozenset(GRAPH_ARTIFACTS)
    | frozenset(CACHE_ARTIFACTS)
    | {"dynamo_graph_break_reason", "recompile_reasons"}
)
_BREAK_REASON = "dynamo_graph_break_reason"
#: Events kept for their metadata, built when the dump is written.
_METRICS_EVENTS = {"compilation_metrics": "metrics", "bwd_compilation_metrics": "backward_metrics"}
_GUARDS_EVENT = "dynamo_cpp_guards_str"
#: Every event name :meth:`TraceCollector.observe` looks at (the others skip it).
OBSERVED_EVENTS = _TEXT_EVENTS | frozenset(_METRICS_EVENTS) | {_GUARDS_EVENT}


@dataclass
class GraphEvent:
    """One graph or generated-code text, in the order PyTorch emitted it."""

    stage: str
    text: str
    #: Builds *text* when the dump is written (a graph printed from a snapshot); None when built.
    build: Optional[Callable[[], Any]] = field(default=None, repr=False)


@dataclass
class CompileEvents:
    """Everything the structured trace said about one compile id (``frame/compile``)."""

    compile_id: str
    graphs: List[GraphEvent] = field(default_factory=list)
    graph_break_reasons: List[str] = field(default_factory=list)
    recompile_reasons: List[str] = field(default_factory=list)
    guards_text: Optional[str] = None
    metrics: Dict[str, Any] = field(default_factory=dict)
    backward_metrics: Dict[str, Any] = field(default_factory=dict)
    cache_events: List[str] = field(default_factory=list)
    #: What :meth:`TraceCollector.finish` still has to build: field name -> PyTorch's callable.
    pending: Dict[str, Callable[[], Any]] = field(default_factory=dict, repr=False)

    def finish(self) -> List[str]:
        """Build the texts and metrics whose building was put off until the dump is written;
        returns why graphs could not be printed (they are left out)."""
        failures: List[str] = []
        graphs, self.graphs = self.graphs, []
        for graph in graphs:
            build, graph.build = graph.build, None
            if build is not None:
                try:
                    graph.text = _torch_private_trace.trace_payload_text(build()) or ""
                except Exception as error:  # noqa: BLE001 - the other graphs are still written
                    failures.append("%s graph of %s: %r" % (graph.stage, self.compile_id, error))
                    continue
            self.graphs.append(graph)
        pending, self.pending = self.pending, {}
        for name, build in pending.items():
            value = build()
            if name == "guards_text":
                self.guards_text = _torch_private_trace.trace_payload_text(value)
            elif isinstance(value, dict):
                setattr(self, name, value)
        return failures


def compile_id_of(metadata: Dict[str, Any]) -> str:
    """The ``frame/compile`` id of an event, ``"-"`` when it was emitted outside a compile."""
    frame, compile_ = metadata.get("frame_id"), metadata.get("frame_compile_id")
    if frame is None or compile_ is None:
        return "-"
    prefix = (
        "!%s/" % metadata["compiled_autograd_id"] if metadata.get("compiled_autograd_id") is not None else ""
    )
    return "%s%s/%s" % (prefix, frame, compile_)


def _recompile_reasons(payload: str) -> List[str]:
    try:
        reasons = json.loads(payload)
    except ValueError:
        return [payload]
    if isinstance(reasons, list):
        return [str(reason) for reason in reasons]
    return [str(reasons)]


class TraceCollector:
    """Keeps the structured-trace events the dump needs (see the module docstring)."""

    def __init__(self) -> None:
        self.compiles: Dict[str, CompileEvents] = {}
        self.order: List[str] = []
        self._lock = threading.Lock()
        self.failures: List[str] = []

    def events_for(self, compile_id: str) -> CompileEvents:
        """The events of *compile_id* (an empty record if none arrived)."""
        with self._lock:
            found = self.compiles.get(compile_id)
            if found is None:
                found = self.compiles[compile_id] = CompileEvents(compile_id)
                self.order.append(compile_id)
            return found

    def observe(
        self,
        name: str,
        metadata_fn: Callable[[], Any],
        payload_fn: Callable[[], Any],
        context_fn: Callable[[], Dict[str, Any]],
    ) -> None:
        """One ``trace_structured`` call; never raises into PyTorch."""
        try:
            if name in _TEXT_EVENTS:
                kind = name  # a graph event's metadata (the graph's sizes...) is not kept: not built
                if name == "artifact":
                    detail = metadata_fn()
                    kind = str(detail.get("name")) if isinstance(detail, dict) else ""
                    if kind not in _KEPT_ARTIFACTS:
                        return
                if kind in GRAPH_EVENTS or kind in GRAPH_ARTIFACTS:
                    build = deferred_payload(payload_fn)
                    if build is not None:  # printed when the dump is written, from a copy made now
                        self.events_for(compile_id_of(context_fn())).graphs.append(
                            GraphEvent(GRAPH_EVENTS.get(kind) or GRAPH_ARTIFACTS[kind], "", build)
                        )
                        return
                if kind in CACHE_ARTIFACTS:
                    payload = None
                elif kind == _BREAK_REASON:
                    payload = _torch_private_trace.graph_break_reason_text(payload_fn)
                else:
                    payload = payload_fn()
                self._keep(kind, context_fn(), _torch_private_trace.trace_payload_text(payload))
            elif name in _METRICS_EVENTS:
                self.events_for(compile_id_of(context_fn())).pending[_METRICS_EVENTS[name]] = metadata_fn
            elif name == _GUARDS_EVENT:
                self.events_for(compile_id_of(context_fn())).pending["guards_text"] = payload_fn
        except Exception as error:  # noqa: BLE001 - a dump failure must not break compilation
            self.failures.append("structured trace event %s: %r" % (name, error))
            _torch_private.warn_once("could not record a structured-trace event", repr(error))

    def finish(self) -> None:
        """Build what was put off until the dump is written (see :meth:`CompileEvents.finish`)."""
        for compile_id in list(self.order):
            try:
                failed = self.compiles[compile_id].finish()
                if failed:
                    self.failures.extend(
                        "structured trace event: cannot print the %s" % cause for cause in failed
                    )
                    _torch_private.warn_once("could not print a graph of the structured trace", failed[0])
            except Exception as error:  # noqa: BLE001
                self.failures.append("structured trace event of %s: %r" % (compile_id, error))
                _torch_private.warn_once("could not record a structured-trace event", repr(error))

    def _keep(self, name: str, context: Dict[str, Any], text: Optional[str]) -> None:
        """File the text of event (or artifact) *name* under the compile id in *context*."""
        events = self.events_for(compile_id_of(context))
        if name in GRAPH_EVENTS and text is not None:
            events.graphs.append(GraphEvent(GRAPH_EVENTS[name], text))
        elif name in GRAPH_ARTIFACTS and text is not None:
            events.graphs.append(GraphEvent(GRAPH_ARTIFACTS[name], text))
        elif name == _BREAK_REASON and text is not None:
            events.graph_break_reasons.append(text)
        elif name == "recompile_reasons" and text is not None:
            events.recompile_reasons.extend(_recompile_reasons(text))
        elif name in CACHE_ARTIFACTS:
            events.cache_events.append(name)


def exported_program_text(program: Any) -> str:
    """Readable, valid-Python text for an ExportedProgram: its graph module and signature."""
    text = program.graph_module.print_readable(print_output=False)
    signature = "Graph signature:\n%s\nRange constraints: %s" % (
        program.graph_signature,
        program.range_constraints,
    )
    return text + "\n" + "".join("# " + line + "\n" for line in signature.splitlines())


def record_export(collector: TraceCollector, program: Any) -> None:
    """File an ExportedProgram under its own id (``export_<n>``)."""
    with collector._lock:
        number = sum(1 for key in collector.order if key.startswith("export_"))
    events = collector.events_for("export_%d" % number)
    events.graphs.append(GraphEvent("exported_program", exported_program_text(program)))


def attach(collector: TraceCollector) -> Optional[Callable[[], None]]:
    """Start showing PyTorch's structured-trace events to *collector*; returns the undo, or None."""
    return _torch_private_trace.observe_structured_trace(collector.observe, OBSERVED_EVENTS)
