"""Every access to PyTorch internals that the dump needs, in one place.

Supported PyTorch range: 2.13.x (tested with 2.13.0 on CPU, Python 3.11). Each accessor
below uses a surface of that release; when it is missing or behaves differently (another
release), the accessor returns a neutral fallback and :func:`warn_once` emits one warning
per cause, so the user's program keeps running and the dump says what it could not get.

Public surface used elsewhere: ``torch._dynamo.convert_frame.register_bytecode_hook``.
Everything else here is private to PyTorch.
"""

from __future__ import annotations

import json
import sys
import threading
import warnings
from types import CodeType, ModuleType
from typing import Any, Callable, Dict, FrozenSet, Iterable, List, Optional, Set, Tuple

SUPPORTED_TORCH = ">=2.13,<2.14"

#: ``observer(name, metadata_fn, payload_fn, context_fn)``: one structured-trace event.
TraceObserver = Callable[[str, Callable[[], Any], Callable[[], Any], Callable[[], Dict[str, Any]]], None]

_warned: Set[str] = set()
#: Every cause warned about in this process (the dump's index lists them too).
warned_causes: List[str] = []


def warn_once(cause: str, detail: str = "") -> None:
    """Warn once per *cause*: a failure inside uncompile must never stop the user's program."""
    if cause in _warned:
        return
    _warned.add(cause)
    warned_causes.append(cause + (": " + detail if detail else ""))
    warnings.warn("uncompile.prepare_debug: %s%s" % (cause, ": " + detail if detail else ""), stacklevel=3)


def torch_version() -> str:
    """The version string of the imported torch."""
    import torch

    return str(torch.__version__)


def register_bytecode_hook(hook: Callable[[CodeType, CodeType], Optional[CodeType]]) -> Optional[Any]:
    """Register *hook* for (original, transformed) code; returns a handle with ``remove()``."""
    try:
        from torch._dynamo.convert_frame import register_bytecode_hook as register
    except ImportError as error:
        warn_once("torch._dynamo.convert_frame.register_bytecode_hook is unavailable", str(error))
        return None
    return register(hook)  # type: ignore[arg-type]


def current_compile_id() -> Optional[str]:
    """The compile id (``"frame/compile"``) of the compilation running now, if any."""
    try:
        from torch._guards import CompileContext

        compile_id = CompileContext.current_compile_id()
    except Exception as error:  # noqa: BLE001 - any failure means "unknown"
        warn_once("cannot read the current compile id", repr(error))
        return None
    return None if compile_id is None else str(compile_id)


def compiling_frame_globals() -> Optional[Dict[str, Any]]:
    """The globals of the frame Dynamo is compiling, read from its ``_compile`` closure.

    Called from inside a bytecode hook. Returns None when the frame layout differs.
    """
    frame = sys._getframe(1)
    while frame is not None:
        if frame.f_code.co_name == "_compile_inner" and "convert_frame" in frame.f_code.co_filename:
            found = frame.f_locals.get("globals")
            if isinstance(found, dict):
                return found
            break
        frame = frame.f_back  # type: ignore[assignment]
    warn_once("cannot find the globals of the compiled frame (torch internals changed)")
    return None


def cache_entries(code: CodeType) -> List[Any]:
    """Dynamo's cache entries (``.code``, ``.guard_manager``, ``.compile_id``) for *code*."""
    try:
        from torch._dynamo.eval_frame import _debug_get_cache_entry_list

        return list(_debug_get_cache_entry_list(code))
    except Exception as error:  # noqa: BLE001
        warn_once("cannot read Dynamo's cache entries", repr(error))
        return []


def compiled_original_codes() -> List[CodeType]:
    """Every original code object Dynamo has compiled in this process and that is still alive."""
    try:
        from torch._dynamo.convert_frame import input_codes

        found = [ref() for ref in list(input_codes.seen)]
    except Exception as error:  # noqa: BLE001
        warn_once("cannot list the functions compiled before prepare_debug", repr(error))
        return []
    return [code for code in found if isinstance(code, CodeType)]


def guard_tree(guard_manager: Any) -> List[Dict[str, Any]]:
    """Flatten a cache entry's guard tree: one dict per leaf guard.

    Each dict has ``kind`` (e.g. ``TENSOR_MATCH``), ``source`` (the guarded value, e.g.
    ``L['x']``) and ``parts`` (the guard's verbose code parts, comments included).
    """
    leaves: List[Dict[str, Any]] = []
    seen_relational: Set[int] = set()

    def visit(manager: Any) -> None:
        source = manager.get_source()
        for guard in manager.get_leaf_guards():
            if type(guard).__name__.endswith("RelationalGuard") or "ALIASING" in type(guard).__name__:
                if id(guard) in seen_relational:
                    continue
                seen_relational.add(id(guard))
            leaf = {"kind": type(guard).__name__, "source": source, "parts": list(guard.verbose_code_parts())}
            if leaf["kind"] == "TORCH_FUNCTION_MODE_STACK":
                leaf["mode_types"] = torch_function_mode_types(guard_manager)
            leaves.append(leaf)
        children = list(manager.get_child_managers())
        if hasattr(manager, "get_key_value_managers"):
            for key_manager, value_manager in manager.get_key_value_managers().values():
                children.extend(m for m in (key_manager, value_manager) if m is not None)
        for child in children:
            visit(child)

    try:
        visit(guard_manager.root)
        for guard in guard_manager.root.get_epilogue_lambda_guards():
            leaves.append(
                {
                    "kind": type(guard).__name__,
                    "source": "epilogue",
                    "parts": list(guard.verbose_code_parts()),
                }
            )
    except Exception as error:  # noqa: BLE001
        warn_once("cannot walk Dynamo's guard tree", repr(error))
        return []
    return leaves


def guard_helper_functions() -> Dict[str, Any]:
    """The helper callables Dynamo's guard expressions use (``___check_obj_id``...)."""
    try:
        from torch._dynamo.guards import _get_closure_vars

        return dict(_get_closure_vars())
    except Exception as error:  # noqa: BLE001
        warn_once("cannot load Dynamo's guard helper functions", repr(error))
        return {}


def global_state_check(state_json: str) -> Optional[Callable[[], bool]]:
    """A function that checks torch's global state (grad mode, dtype...) against *state_json*."""
    try:
        from torch._C._dynamo.guards import GlobalStateGuard

        guard = GlobalStateGuard.__new__(GlobalStateGuard)
        guard.__setstate__(state_json)  # type: ignore[attr-defined]
    except Exception as error:  # noqa: BLE001
        warn_once("cannot rebuild Dynamo's global-state guard", repr(error))
        return None
    return guard.check


def tensor_dispatch_keys(value: Any) -> Optional[Set[str]]:
    """Names of the dispatch keys Dynamo's TENSOR_MATCH guard compares for *value*."""
    try:
        import torch

        keys = torch._C._dispatch_keys(value)
        keys = (
            keys | torch._C._dispatch_tls_local_include_set()
        ) - torch._C._dispatch_tls_local_exclude_set()
        text = str(keys)
    except Exception as error:  # noqa: BLE001
        warn_once("cannot read a tensor's dispatch keys", repr(error))
        return None
    inner = text[text.find("(") + 1 : text.rfind(")")]
    return {name.strip() for name in inner.split(",") if name.strip()}


def distributed_rank() -> Optional[int]:
    """The ``torch.distributed`` rank of this process, when a process group is initialized."""
    try:
        import torch.distributed as dist

        if dist.is_available() and dist.is_initialized():
            return int(dist.get_rank())
    except Exception as error:  # noqa: BLE001
        warn_once("cannot read the torch.distributed rank", repr(error))
    return None


def wrap_export(record: Callable[[Any], None]) -> Optional[Callable[[], None]]:
    """Make ``torch.export.export`` calls pass their ExportedProgram to *record*.

    Non-strict export (the default) does not run Dynamo, and the structured trace carries
    its program only under ``TORCH_DTRACE``. ``torch.export.export`` looks
    ``torch.export._trace._export`` up on each call, so when that module is loaded the dump
    wraps it (every call is seen); otherwise (importing it costs ~0.5 s) the dump wraps the
    ``torch.export.export`` attribute (calls through a reference taken earlier are missed).
    The wrapper returns the original result untouched. Returns a function that restores the
    original, or None.
    """
    try:
        loaded = sys.modules.get("torch.export._trace")
        owner = loaded if loaded is not None else sys.modules.get("torch.export")
        name = "_export" if loaded is not None else "export"
        if owner is None:
            return None
        original = getattr(owner, name)
    except Exception as error:  # noqa: BLE001
        warn_once("cannot observe torch.export", repr(error))
        return None

    def observed_export(*args: Any, **kwargs: Any) -> Any:
        program = original(*args, **kwargs)
        try:
            record(program)
        except Exception as error:  # noqa: BLE001 - never disturb the export
            warn_once("could not record an exported program", repr(error))
        return program

    setattr(owner, name, observed_export)

    def restore() -> None:
        if getattr(owner, name, None) is observed_export:
            setattr(owner, name, original)

    return restore


def torch_function_mode_types(guard_manager: Any) -> Optional[List[str]]:
    """Qualified names of the torch-function mode types a cache entry's mode-stack guard expects."""
    check = (getattr(guard_manager, "closure_vars", None) or {}).get("___check_torch_function_mode_stack")
    for cell in getattr(check, "__closure__", None) or ():
        value = cell.cell_contents
        if isinstance(value, list) and all(isinstance(item, type) for item in value):
            return ["%s.%s" % (item.__module__, item.__qualname__) for item in value]
    return None


def current_torch_function_modes() -> Optional[List[str]]:
    """Qualified type names of the torch-function modes active now (innermost last)."""
    try:
        from torch.overrides import _get_current_function_mode_stack

        stack = _get_current_function_mode_stack()
    except Exception as error:  # noqa: BLE001
        warn_once("cannot read the torch function mode stack", repr(error))
        return None
    return ["%s.%s" % (type(mode).__module__, type(mode).__qualname__) for mode in stack]


def saved_tensors_hooks_active() -> Optional[bool]:
    """Whether default saved-tensors hooks are installed (what AUTOGRAD_SAVED_TENSORS_HOOKS checks)."""
    try:
        import torch

        return torch._C._autograd._top_saved_tensors_default_hooks(True) is not None
    except Exception as error:  # noqa: BLE001
        warn_once("cannot read the saved-tensors hooks", repr(error))
        return None


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
