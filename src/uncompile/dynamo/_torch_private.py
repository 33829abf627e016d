"""Every access to PyTorch internals that the dump needs, here and in :mod:`._torch_private_trace`.

Supported PyTorch range: 2.13.x (tested with 2.13.0 on CPU, Python 3.11). Each accessor
below uses a surface of that release; when it is missing or behaves differently (another
release), the accessor returns a neutral fallback and :func:`warn_once` emits one warning
per cause, so the user's program keeps running and the dump says what it could not get.

Public surface used elsewhere: ``torch._dynamo.convert_frame.register_bytecode_hook``.
Everything else here is private to PyTorch. The structured-trace interception and the reading
of trace payloads, one mechanism of their own, are in :mod:`._torch_private_trace`; no other
module of the package reads a PyTorch internal.
"""

from __future__ import annotations

import itertools
import sys
import warnings
from types import CodeType
from typing import Any, Callable, Dict, List, Optional, Set, Tuple

SUPPORTED_TORCH = ">=2.13,<2.14"

_warned: Set[str] = set()
#: Every cause warned about in this process, with the detail of its first warning.
warned_causes: List[str] = []
#: Cause -> (number of its latest occurrence, its text in *warned_causes*); one item per cause.
_occurred: Dict[str, Tuple[int, str]] = {}
_occurrences = itertools.count(1)


def warn_once(cause: str, detail: str = "") -> None:
    """Warn once per *cause*: a failure inside uncompile must never stop the user's program.

    Every occurrence is counted (see :func:`causes_since`), each cause warned about once."""
    text = cause + (": " + detail if detail else "")
    _occurred[cause] = (next(_occurrences), _occurred.get(cause, (0, text))[1])
    if cause in _warned:
        return
    _warned.add(cause)
    warned_causes.append(text)
    warnings.warn("uncompile.prepare_debug: %s" % text, stacklevel=3)


def warnings_mark() -> int:
    """A mark for :func:`causes_since`: what has occurred until now is before it."""
    return next(_occurrences)


def causes_since(mark: int) -> List[str]:
    """The causes that occurred after *mark* (warned about then or earlier), in the order first warned."""
    return [text for number, text in _occurred.values() if number > mark]


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
