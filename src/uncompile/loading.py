"""Turning what a user hands us into a code object.

:func:`load_code` accepts a function (plain, generator, coroutine, lambda), a method, a
``staticmethod``/``classmethod``/``property``, a generator or coroutine object, a code
object, a module, or a path (``str`` or :class:`~pathlib.Path`) to a ``.py`` or ``.pyc`` file.
A string may also name something to import, ``module:qualname`` (``json.decoder:JSONDecoder.decode``),
or something inside a file, ``path/to/file.py:qualname``. A qualname may go through
``<locals>`` (``outer.<locals>.inner``): such functions are found among the code constants
of the enclosing function. Anything else raises :class:`~uncompile.errors.InputError` with one
line that says what was wrong.
"""

from __future__ import annotations

import importlib
import os
import sys
from pathlib import Path
from types import CodeType, FunctionType, MethodType, ModuleType
from typing import Any, List, Optional, Union

from .errors import InputError
from .pyc import load_pyc

LOCALS = "<locals>"


def load_code(obj: Any) -> CodeType:
    """Return the code object that *obj* stands for (see the module docstring for what *obj* may be)."""
    if isinstance(obj, CodeType):
        return obj
    if isinstance(obj, (str, os.PathLike)):
        return _load_from_string(os.fspath(obj))
    code = _code_of_object(obj)
    if code is None:
        raise InputError("cannot decompile a %s: %s" % (_describe(obj), _hint_for(obj)))
    return code


def function_of(obj: Any) -> Optional[FunctionType]:
    """The plain function behind a function, method, static/class method, property or wrapper."""
    if isinstance(obj, (staticmethod, classmethod, MethodType)):
        obj = obj.__func__
    if isinstance(obj, property):
        obj = obj.fget
    if isinstance(obj, FunctionType):
        return obj
    wrapped = getattr(obj, "__wrapped__", None)  # e.g. a functools.lru_cache wrapper
    if wrapped is not None and wrapped is not obj and not isinstance(obj, (CodeType, ModuleType)):
        return function_of(wrapped)
    return None


def _code_of_object(obj: Any) -> Optional[CodeType]:
    """The code object behind a live Python object, or None if it has none."""
    function = function_of(obj)
    if function is not None:
        return function.__code__
    for attribute in ("gi_code", "cr_code", "ag_code"):  # generator, coroutine, async generator
        code = getattr(obj, attribute, None)
        if isinstance(code, CodeType):
            return code
    if isinstance(obj, ModuleType):
        filename = getattr(obj, "__file__", None)
        if filename and filename.endswith((".py", ".pyc")):
            return load_path(filename)
        return None
    code = getattr(obj, "__code__", None)
    if isinstance(code, CodeType):
        return code
    wrapped = getattr(obj, "__wrapped__", None)  # e.g. a functools.lru_cache wrapper
    if wrapped is not None and wrapped is not obj:
        return _code_of_object(wrapped)
    return None


def _describe(obj: Any) -> str:
    kind = type(obj).__name__
    name = getattr(obj, "__qualname__", None) or getattr(obj, "__name__", None)
    return "%s %r" % (kind, name) if isinstance(name, str) else kind


def _hint_for(obj: Any) -> str:
    if isinstance(obj, type):
        return "a class keeps no bytecode; pass one of its methods, or the file that defines it"
    if isinstance(obj, ModuleType):
        return "the module has no Python source or .pyc file"
    if callable(obj):
        return "it has no Python bytecode (built-in or extension code?)"
    return "expected a function, method, code object, .py/.pyc path or 'module:qualname'"


def _load_from_string(text: str) -> CodeType:
    if not text:
        raise InputError("empty target: expected a .py/.pyc path or 'module:qualname'")
    if os.path.exists(text):
        return load_path(text)
    location, colon, qualname = text.rpartition(":")
    if colon and location and qualname:
        if location.endswith((".py", ".pyc")) or os.sep in location:
            if not os.path.exists(location):
                raise InputError("no such file: %s" % location)
            return find_nested_code(load_path(location), qualname, where=location)
        return load_qualname(location, qualname)
    if text.endswith((".py", ".pyc")) or os.sep in text:
        raise InputError("no such file: %s" % text)
    raise InputError("%r is neither an existing file nor of the form 'module:qualname'" % text)


def load_path(path: Union[str, Path]) -> CodeType:
    """The module code object of a ``.py`` file (compiled here) or a ``.pyc`` file."""
    path = Path(path)
    if path.is_dir():
        raise InputError("%s is a directory; pass a .py or .pyc file" % path)
    if not path.exists():
        raise InputError("no such file: %s" % path)
    if path.suffix == ".pyc":
        return load_pyc(path)
    if path.suffix != ".py":
        raise InputError("%s: unsupported file type %r; expected .py or .pyc" % (path, path.suffix))
    try:
        source = path.read_bytes()
    except OSError as exc:
        raise InputError("cannot read %s: %s" % (path, exc.strerror or exc)) from None
    try:
        return compile(source, str(path), "exec", dont_inherit=True)
    except SyntaxError as exc:
        raise InputError(
            "%s is not valid Python %d.%d: line %s: %s" % (path, *sys.version_info[:2], exc.lineno, exc.msg)
        ) from None
    except ValueError as exc:  # e.g. null bytes in the source
        raise InputError("%s cannot be compiled: %s" % (path, exc)) from None


def load_qualname(module_name: str, qualname: str) -> CodeType:
    """The code object of *qualname* (``Class.method``, ``outer.<locals>.inner``) in module *module_name*."""
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise InputError("cannot import module %r: %s" % (module_name, exc)) from None
    except Exception as exc:  # the module itself failed while running
        raise InputError("importing %r failed: %s: %s" % (module_name, type(exc).__name__, exc)) from None
    parts = qualname.split(".")
    obj: Any = module
    for index, part in enumerate(parts):
        if part == LOCALS:
            code = _code_of_object(obj)
            if code is None:
                raise InputError("%s:%s: %r has no locals to look into" % (module_name, qualname, obj))
            rest = ".".join(parts[index + 1 :])
            return find_nested_code(code, rest, where="%s:%s" % (module_name, ".".join(parts[:index])))
        namespace = getattr(obj, "__dict__", {})
        if part in namespace:  # unbound: keeps staticmethod/classmethod/property objects as they are
            obj = namespace[part]
        elif hasattr(obj, part):
            obj = getattr(obj, part)
        else:
            raise InputError(
                "%s has no attribute %r (looking up %s:%s)" % (_describe(obj), part, module_name, qualname)
            )
    code = _code_of_object(obj)
    if code is None:
        raise InputError("%s:%s is a %s: %s" % (module_name, qualname, _describe(obj), _hint_for(obj)))
    return code


def find_nested_code(code: CodeType, qualname: str, where: str = "<code>") -> CodeType:
    """The code object named by *qualname* among the code constants nested in *code*.

    ``<locals>`` parts are skipped (a function's locals are its nested code objects); when a
    name is defined more than once, the last definition wins, as it does at run time.
    """
    names = [part for part in qualname.split(".") if part and part != LOCALS]
    if not names:
        raise InputError("%s: empty qualname %r" % (where, qualname))
    current = code
    for depth, name in enumerate(names):
        matches = [
            const for const in current.co_consts if isinstance(const, CodeType) and const.co_name == name
        ]
        if not matches:
            available = _nested_names(current)
            raise InputError(
                "%s: no function or class %r in %s (it defines: %s)"
                % (where, ".".join(names[: depth + 1]), current.co_name, ", ".join(available) or "nothing")
            )
        current = matches[-1]
    return current


def _nested_names(code: CodeType) -> List[str]:
    return sorted({const.co_name for const in code.co_consts if isinstance(const, CodeType)})
