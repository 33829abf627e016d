"""Private PyTorch reads of the structured trace: every event seen in-process, payloads read cheaply.

Part of :mod:`._torch_private` (same supported range and principle: each accessor falls back
and warns once through :func:`._torch_private.warn_once` when the internal it reads is
missing or different), split off because it is one mechanism of its own:
``torch._logging.trace_structured`` is replaced, in every module that bound it, by a function
that shows each event to observers (:func:`observe_structured_trace`), and the payloads the
dump keeps are read from PyTorch's payload closures without building what the dump drops
(:func:`graph_break_reason_text`, :func:`printed_graph_modules`).
"""

from __future__ import annotations

import json
import sys
import threading
from types import ModuleType
from typing import Any, Callable, Dict, FrozenSet, Iterable, List, Optional, Set, Tuple

from ._torch_private import warn_once

#: ``observer(name, metadata_fn, payload_fn, context_fn)``: one structured-trace event.
TraceObserver = Callable[[str, Callable[[], Any], Callable[[], Any], Callable[[], Dict[str, Any]]], None]


class _Once:
    """A zero-argument callable that calls *function* at most once (its result or error is kept)."""

    __slots__ = ("function", "done", "result", "error")

    def __init__(self, function: Callable[[], Any]) -> None:
        self.function = function
        self.done = False
        self.result: Any = None
        self.error: Optional[BaseException] = None

    def __call__(self) -> Any:
        if not self.done:
            self.done = True
            try:
                self.result = self.function()
            except BaseException as error:  # noqa: BLE001 - re-raised to every caller
                self.error = error
        if self.error is not None:
            raise self.error
        return self.result


def _trace_context(suppress_context: bool, compile_id: Any) -> Dict[str, Any]:
    """The context keys ``trace_structured`` adds to an event (compile id parts, attempt)."""
    if suppress_context:
        return {}
    from torch._guards import CompileContext

    trace_id = CompileContext.current_trace_id()
    found = trace_id.compile_id if trace_id else compile_id
    context: Dict[str, Any] = {}
    if found is not None:
        for key in ("compiled_autograd_id", "frame_id", "frame_compile_id"):
            if getattr(found, key, None) is not None:
                context[key] = getattr(found, key)
    if trace_id:
        context["attempt"] = trace_id.attempt
    return context


def trace_payload_text(payload: Any) -> Optional[str]:
    """A structured-trace payload as the text ``trace_structured`` logs for it."""
    if payload is None or isinstance(payload, str):
        return payload
    if isinstance(payload, list):
        return "[\n" + ",\n".join(json.dumps(item) for item in payload) + "\n]"
    return json.dumps(payload, default=_json_default, indent=0)


def graph_break_reason_text(payload_fn: Callable[[], Any]) -> Any:
    """The payload of a ``dynamo_graph_break_reason`` artifact, less the traceback PyTorch adds.

    ``symbolic_convert`` and ``convert_frame`` build it as
    ``f"{user_stack_trace}\\n{traceback.format_exc()}"``: the traceback of the exception being
    handled, through Dynamo's own frames. Formatting it reads source files and costs more than
    the rest of the event, and the dump keeps only the text before it (the reason and the
    user's frames), so for that payload the user part is read from the function's closure.
    Any other payload is built as PyTorch builds it.
    """
    function = getattr(payload_fn, "function", payload_fn)  # an observer gets it wrapped in _Once
    code = getattr(function, "__code__", None)
    closure = getattr(function, "__closure__", None)
    if code is not None and closure and code.co_freevars == ("user_stack_trace",):
        if code.co_names == ("traceback", "format_exc"):
            text = closure[0].cell_contents
            if isinstance(text, str):
                return text
    return payload_fn()


def printed_graph_modules(payload_fn: Callable[[], Any]) -> Optional[Tuple[Any, List[Any]]]:
    """When a structured-trace payload prints graph modules, its function and closure values.

    ``dynamo_output_graph`` and ``aot_inference_graph`` (and Inductor's pre-grad graph
    artifacts) pass ``lambda: gm.print_readable(...)``: a function that looks up nothing but
    ``print_readable`` and closes over the GraphModule. For such a payload this returns the
    function and the values of its free variables (see :mod:`.graph_snapshot`); None for any
    other payload.
    """
    function = getattr(payload_fn, "function", payload_fn)  # an observer gets it wrapped in _Once
    code = getattr(function, "__code__", None)
    closure = getattr(function, "__closure__", None)
    if code is None or not closure or code.co_names != ("print_readable",):
        return None
    try:
        values = [cell.cell_contents for cell in closure]
    except ValueError:  # a free variable not bound yet
        return None
    from torch.fx import GraphModule

    if not any(isinstance(value, GraphModule) for value in values):
        return None
    return function, values


def graph_codegen(graph: Any) -> Any:
    """The code generator of an FX graph (what ``Graph.set_codegen`` sets)."""
    return graph._codegen


def _json_default(value: Any) -> Any:
    if isinstance(value, set):
        return list(value)
    raise TypeError("Object of type %s is not JSON serializable" % type(value))


class _TraceInterception:
    """``trace_structured`` replaced, in every module that bound it, by one that tells observers.

    ``torch._logging.trace_structured`` builds an event's metadata and payload only when the
    ``torch.__trace`` logger has a handler, and then builds every event's (graph printouts,
    guard trees, timing events). An observer instead sees each event's name first and builds
    only what it keeps; with no handler attached, PyTorch itself builds nothing. The original
    function still runs after the observers (so ``TORCH_TRACE`` gets every event, with each
    metadata and payload built once).
    """

    def __init__(self) -> None:
        self.observers: List[TraceObserver] = []
        #: The event names some observer wants (None: every name); others skip the observers.
        self.wanted: Optional[FrozenSet[str]] = frozenset()
        self._wants: Dict[int, Optional[FrozenSet[str]]] = {}  # id(observer) -> its names
        self.original: Optional[Callable[..., Any]] = None
        self.lock = threading.Lock()
        #: Names of the modules searched for a ``trace_structured`` global, and of those having one.
        self.searched: Set[str] = set()
        self.binders: Set[str] = set()
        #: ``sys.modules``' size and last name when it was last searched (see :meth:`_rebind`).
        self._modules_seen: Any = None

        def trace_structured(name: str, *args: Any, **kwargs: Any) -> None:
            wanted = self.wanted
            if self.observers and (wanted is None or name in wanted):
                self.call(name, *args, **kwargs)
            elif self.original is not None:  # most events: no observer looks at them
                self.original(name, *args, **kwargs)

        #: What the modules' ``trace_structured`` globals are while observers exist (one object).
        self.replacement = trace_structured

    def call(
        self,
        name: str,
        metadata_fn: Callable[[], Any] = dict,
        *,
        payload_fn: Callable[[], Any] = lambda: None,
        suppress_context: bool = False,
        **options: Any,
    ) -> None:
        observers = self.observers  # replaced, never changed in place
        wanted = self.wanted
        if observers and (wanted is None or name in wanted):
            metadata_fn, payload_fn = _Once(metadata_fn), _Once(payload_fn)
            context_fn = _Once(lambda: _trace_context(suppress_context, options.get("compile_id")))
            wants = self._wants
            for observer in observers:
                names = wants.get(id(observer))
                if names is None or name in names:
                    observer(name, metadata_fn, payload_fn, context_fn)
        original = self.original
        if original is not None:
            original(name, metadata_fn, payload_fn=payload_fn, suppress_context=suppress_context, **options)

    def add(self, observer: TraceObserver, names: Optional[Iterable[str]] = None) -> None:
        with self.lock:
            if not self.observers:
                if self.original is None:
                    from torch._logging import _internal

                    self.original = _internal.trace_structured
                self._rebind(self.original, self.replacement)
            self._wants[id(observer)] = None if names is None else frozenset(names)
            self.observers = self.observers + [observer]
            self._update_wanted()

    def remove(self, observer: TraceObserver) -> None:
        with self.lock:
            self.observers = [known for known in self.observers if known is not observer]
            self._wants.pop(id(observer), None)
            self._update_wanted()
            if not self.observers and self.original is not None:
                self._rebind(self.replacement, self.original)

    def _update_wanted(self) -> None:
        wants = [self._wants.get(id(observer)) for observer in self.observers]
        self.wanted = None if None in wants else frozenset().union(*wants)  # type: ignore[arg-type]

    def _rebind(self, old: Any, new: Any) -> None:
        """Every loaded module's global ``trace_structured`` that is *old* becomes *new*.

        Only modules loaded since the last call are searched; the ones found binding
        either function are remembered (a full search of ``sys.modules`` costs
        milliseconds, paid on every ``prepare_debug`` entry otherwise). A module loaded
        since then is added at the end of ``sys.modules``, so when its size and its last
        name are what they were, there is none and the set of names is not compared.
        """
        modules = sys.modules
        seen = (len(modules), next(reversed(modules.keys()), None))
        if seen != self._modules_seen:
            for name in modules.keys() - self.searched:
                namespace = getattr(modules.get(name), "__dict__", None)
                if isinstance(namespace, dict) and namespace.get("trace_structured") in (old, new):
                    self.binders.add(name)
                self.searched.add(name)
            self._modules_seen = seen
        for name in self.binders:
            module = modules.get(name)
            namespace = module.__dict__ if isinstance(module, ModuleType) else None
            if namespace is not None and namespace.get("trace_structured") is old:
                namespace["trace_structured"] = new


_INTERCEPTION = _TraceInterception()


def observe_structured_trace(
    observer: TraceObserver, names: Optional[Iterable[str]] = None
) -> Optional[Callable[[], None]]:
    """Show *observer* every ``torch._logging.trace_structured`` event (or those of *names*);
    returns the undo, or None.

    The observer gets the event's name and three memoized zero-argument callables: its
    metadata, its payload and its context (``frame_id``, ``frame_compile_id``, ``attempt``,
    ``compiled_autograd_id`` as ``trace_structured`` would add them). It must not raise.
    """
    try:
        _INTERCEPTION.add(observer, names)
    except Exception as error:  # noqa: BLE001
        warn_once("cannot observe PyTorch's structured trace", repr(error))
        return None
    return lambda: _INTERCEPTION.remove(observer)
