"""Receive PyTorch's structured trace in-process.

``torch._logging.trace_structured`` sends every event (graphs, guards, graph breaks,
recompile reasons, metrics) to the ``torch.__trace`` logger as a record with ``metadata``
and ``payload`` attributes; ``TORCH_TRACE`` attaches a file handler there and tlparse reads
the file. :class:`TraceCollector` is a handler on the same logger that keeps the events we
need, grouped by compile id, in memory. Attaching it is all it takes; detaching it restores
the logger exactly.
"""

from __future__ import annotations

import json
import logging
import threading
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional

from . import _torch_private

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
_CONTEXT_KEYS = ("frame_id", "frame_compile_id", "attempt", "has_payload", "rank", "compiled_autograd_id")
_IGNORED = ("chromium_event", "str", "describe_storage", "describe_tensor", "describe_source")


@dataclass
class GraphEvent:
    """One graph or generated-code text, in the order PyTorch emitted it."""

    stage: str
    text: str
    metadata: Dict[str, Any]


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
    user_stack: List[Dict[str, Any]] = field(default_factory=list)


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


class TraceCollector(logging.Handler):
    """A logging handler that keeps the structured-trace events the dump needs."""

    def __init__(self) -> None:
        super().__init__(level=logging.DEBUG)
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

    def emit(self, record: logging.LogRecord) -> None:
        """Keep one event; never raise into PyTorch."""
        try:
            self._keep(getattr(record, "metadata", None), getattr(record, "payload", None))
        except Exception as error:  # noqa: BLE001 - a dump failure must not break compilation
            self.failures.append("structured trace event: %r" % (error,))
            _torch_private.warn_once("could not record a structured-trace event", repr(error))

    def _keep(self, metadata: Any, payload: Any) -> None:
        if not isinstance(metadata, dict):
            return
        names = [key for key in metadata if key not in _CONTEXT_KEYS]
        if not names or names[0] in _IGNORED:
            return
        name = names[0]
        detail = metadata[name]
        if name == "artifact" and isinstance(detail, dict):
            name = str(detail.get("name"))
        events = self.events_for(compile_id_of(metadata))
        text = payload if isinstance(payload, str) else None
        if name in GRAPH_EVENTS and text is not None:
            events.graphs.append(
                GraphEvent(GRAPH_EVENTS[name], text, detail if isinstance(detail, dict) else {})
            )
        elif name in GRAPH_ARTIFACTS and text is not None:
            events.graphs.append(GraphEvent(GRAPH_ARTIFACTS[name], text, {}))
        elif name == "dynamo_graph_break_reason" and text is not None:
            events.graph_break_reasons.append(text)
        elif name == "recompile_reasons" and text is not None:
            events.recompile_reasons.extend(_recompile_reasons(text))
        elif name == "dynamo_cpp_guards_str" and text is not None:
            events.guards_text = text
        elif name == "compilation_metrics" and isinstance(detail, dict):
            events.metrics = detail
        elif name == "bwd_compilation_metrics" and isinstance(detail, dict):
            events.backward_metrics = detail
        elif name in CACHE_ARTIFACTS:
            events.cache_events.append(name)
        elif name == "dynamo_start" and isinstance(detail, dict):
            events.user_stack = list(detail.get("stack") or [])


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
    events.graphs.append(GraphEvent("exported_program", exported_program_text(program), {}))


def attach(collector: TraceCollector) -> logging.Logger:
    """Attach *collector* to the structured-trace logger; returns the logger."""
    logger = logging.getLogger(_torch_private.TRACE_LOGGER_NAME)
    logger.addHandler(collector)
    return logger


def attached(collector: TraceCollector) -> bool:
    """True while *collector* is still on the structured-trace logger."""
    return collector in logging.getLogger(_torch_private.TRACE_LOGGER_NAME).handlers


def detach(collector: TraceCollector) -> None:
    """Remove *collector* from the structured-trace logger (a no-op if it is not there)."""
    logging.getLogger(_torch_private.TRACE_LOGGER_NAME).removeHandler(collector)
