"""Behavioural checks: does a function still do the same after decompiling and recompiling it?

:func:`check_behaviour` calls a function with some arguments, decompiles and recompiles its
code, puts the new code into a copy of the function (through ``__code__``, so closures must
line up), calls the copy the same way and compares what came out: return values (generators,
coroutines and async generators are run to the end) or the type and arguments of the exception.
Each call gets its own deep copy of the arguments, so a function that changes them (pops from a
list it was given) meets the same values in both runs.

:class:`Cases` collects such functions for a test module, including ones written in syntax
that only newer versions accept (given as source and compiled only where it is supported).
"""

from __future__ import annotations

import asyncio
import copy
import inspect
import sys
import traceback
from types import CodeType, FunctionType
from typing import Any, Callable, Dict, List, NamedTuple, Optional, Tuple

from ..errors import DecompileError, RecompileError

Call = Tuple[Tuple[Any, ...], Dict[str, Any]]


class BehaviourCheck(NamedTuple):
    """The result of :func:`check_behaviour`.

    *status* is ``same``, ``different`` (the recompiled function behaves otherwise),
    ``decompile-error``, ``uncompilable`` (a ``RecompileError``) or ``crash`` (any other
    exception while decompiling or recompiling). *identical* says whether the bytecode was
    identical too (None when it was not recompiled).
    """

    status: str
    detail: str
    source: Optional[str] = None
    identical: Optional[bool] = None


def _drain(result: Any) -> Any:
    """Run generators, coroutines and async generators to the end; other values pass through."""
    if inspect.isgenerator(result):
        items = []
        try:
            for item in result:
                items.append(item)
        except Exception as error:  # noqa: BLE001 - part of the observed behaviour
            items.append(_raised(error))
        return ("generator", items)
    if inspect.iscoroutine(result):
        return ("coroutine", _run(result))
    if inspect.isasyncgen(result):

        async def collect() -> List[Any]:
            return [item async for item in result]

        return ("async generator", _run(collect()))
    return result


def _run(awaitable: Any) -> Any:
    loop = asyncio.new_event_loop()
    try:
        return loop.run_until_complete(awaitable)
    except Exception as error:  # noqa: BLE001
        return _raised(error)
    finally:
        loop.close()


def _raised(error: BaseException) -> Tuple[str, str, str]:
    return ("raised", type(error).__name__, repr(error.args))


def observe(function: Callable[..., Any], call: Call) -> Any:
    """What calling *function* with *call* (args, kwargs) gives: its drained result or its exception."""
    args, kwargs = _fresh(call)
    try:
        return ("returned", _drain(function(*args, **kwargs)))
    except Exception as error:  # noqa: BLE001
        return _raised(error)


def _fresh(call: Call) -> Call:
    """A deep copy of *call*'s arguments (the call itself where they cannot be copied: a value
    such as a lock or an open file, which neither run can change as a list is changed)."""
    try:
        return copy.deepcopy(call)
    except (TypeError, copy.Error):
        return call


def copy_with_code(function: FunctionType, code: CodeType) -> FunctionType:
    """A copy of *function* (globals, defaults, closure, attributes) whose ``__code__`` is set to *code*."""
    clone = FunctionType(
        function.__code__,
        function.__globals__,
        function.__name__,
        function.__defaults__,
        function.__closure__,
    )
    clone.__kwdefaults__ = function.__kwdefaults__
    clone.__qualname__ = function.__qualname__
    clone.__dict__.update(function.__dict__)
    clone.__code__ = code
    return clone


def _short(error: BaseException) -> str:
    lines = str(error).strip().splitlines()
    return "%s: %s" % (type(error).__name__, lines[0] if lines else "")


def check_behaviour(function: Any, calls: List[Call]) -> BehaviourCheck:
    """Decompile, recompile and swap in *function*'s code, and compare its behaviour on *calls*."""
    from ..decompiler import decompile_code
    from .compare import compare_code
    from .recompile import recompile

    function = getattr(function, "__func__", function)
    code = function.__code__
    expected = [observe(function, call) for call in calls]
    try:
        source = decompile_code(code)
    except DecompileError as error:
        return BehaviourCheck("decompile-error", _short(error))
    except Exception as error:  # noqa: BLE001
        return BehaviourCheck("crash", "%s in the decompiler\n%s" % (_short(error), traceback.format_exc()))
    try:
        new_code = recompile(code, source=source, qualname=function.__qualname__)
        clone = copy_with_code(function, new_code)
    except RecompileError as error:
        return BehaviourCheck("uncompilable", _short(error), source)
    except Exception as error:  # noqa: BLE001
        return BehaviourCheck("crash", "%s while recompiling" % _short(error), source)
    identical = compare_code(code, new_code) is None
    for call, want in zip(calls, expected):
        got = observe(clone, call)
        if got != want:
            detail = "call %r: expected %r, got %r" % (call, want, got)
            return BehaviourCheck("different", detail, source, identical)
    return BehaviourCheck("same", "", source, identical)


def _namespace_summary(namespace: Dict[str, Any]) -> Dict[str, str]:
    summary = {}
    for name, value in namespace.items():
        if name.startswith("__"):
            continue
        if inspect.ismodule(value):
            summary[name] = "module %s" % value.__name__
        elif callable(value):
            summary[name] = "callable %s" % getattr(value, "__qualname__", type(value).__name__)
        else:
            summary[name] = repr(value)
    return summary


def check_module_behaviour(source: str, name: str = "behaviour_module") -> BehaviourCheck:
    """Run the module *source* and its decompiled-recompiled module code; compare the names they define."""
    from ..decompiler import decompile_code
    from .compare import compare_code
    from .recompile import recompile

    code = compile(source, "<%s>" % name, "exec")
    expected: Dict[str, Any] = {"__name__": name}
    exec(code, expected)
    try:
        decompiled = decompile_code(code)
    except DecompileError as error:
        return BehaviourCheck("decompile-error", _short(error))
    except Exception as error:  # noqa: BLE001
        return BehaviourCheck("crash", "%s in the decompiler" % _short(error))
    try:
        new_code = recompile(code, source=decompiled)
    except RecompileError as error:
        return BehaviourCheck("uncompilable", _short(error), decompiled)
    except Exception as error:  # noqa: BLE001
        return BehaviourCheck("crash", "%s while recompiling" % _short(error), decompiled)
    got: Dict[str, Any] = {"__name__": name}
    exec(new_code, got)
    identical = compare_code(code, new_code) is None
    want_summary, got_summary = _namespace_summary(expected), _namespace_summary(got)
    if want_summary != got_summary:
        return BehaviourCheck(
            "different", "expected %r, got %r" % (want_summary, got_summary), decompiled, identical
        )
    return BehaviourCheck("same", "", decompiled, identical)


class Cases:
    """The functions a behavioural test module checks, each with the calls to make.

    Use as a decorator, ``@cases((1, 2), (3, 4))`` (one tuple of positional arguments per
    call; a dict as last element gives keyword arguments), or :meth:`from_source` for syntax
    that only newer versions accept.
    """

    def __init__(self) -> None:
        self.items: List[Tuple[str, Any, List[Call]]] = []

    def __call__(self, *calls: Tuple[Any, ...]) -> Callable[[Any], Any]:
        def register(function: Any) -> Any:
            self.add(function.__name__, function, calls)
            return function

        return register

    def add(self, name: str, function: Any, calls: Tuple[Tuple[Any, ...], ...]) -> None:
        """Register *function* under *name* with *calls* (tuples of arguments)."""
        normalised: List[Call] = []
        for call in calls or ((),):
            if call and isinstance(call[-1], dict):
                normalised.append((tuple(call[:-1]), dict(call[-1])))
            else:
                normalised.append((tuple(call), {}))
        self.items.append((name, function, normalised))

    def from_source(self, minimum: Tuple[int, int], source: str, name: str, *calls: Tuple[Any, ...]) -> None:
        """Compile *source* on Python >= *minimum* and register the function *name* it defines.

        On older versions the case is registered as None, which the tests report as skipped.
        """
        if sys.version_info < minimum:
            self.items.append((name, None, []))
            return
        namespace: Dict[str, Any] = {"__name__": "behaviour_case_%s" % name}
        exec(compile(source, "<case %s>" % name, "exec"), namespace)
        self.add(name, namespace[name], calls)

    def ids(self) -> List[str]:
        """Test ids, one per case."""
        return [name for name, _, _ in self.items]
