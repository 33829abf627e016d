"""Final touches on a decompiled body: what the compiler adds implicitly is taken out again.

* the implicit ``return None`` at the end of a function or module, and a trailing
  ``continue`` at the end of a loop body;
* class-body bookkeeping (``__module__``, ``__qualname__``, ``__classcell__``...);
* the docstring (``co_consts[0]`` of a function, ``__doc__ = ...`` of a class/module);
* ``global``/``nonlocal`` declarations the bytecode implies;
* ``assert False, msg``, which compiles to an unconditional ``raise AssertionError(msg)``;
* the ``None`` an async generator returns: its ``return`` takes no value.
"""

from __future__ import annotations

import ast
import inspect
from types import CodeType
from typing import Any, List

from ..bytecode import versions as V
from ..bytecode.reader import instruction_args
from .annotations import restore_annotations
from .statements import iter_statements

_CLASS_BOOKKEEPING = (
    "__module__",
    "__qualname__",
    "__firstlineno__",
    "__static_attributes__",
    "__classdictcell__",
    "__classcell__",
    "__type_params__",
)


def _is_return_none(stmt: ast.stmt) -> bool:
    if getattr(stmt, "uncompile_shared", False):
        return False
    return isinstance(stmt, ast.Return) and (
        stmt.value is None
        or (
            isinstance(stmt.value, ast.Constant)
            and stmt.value.value is None
            and getattr(stmt.value, "uncompile_const", True)
        )
    )


def _drop_trailing(stmts: List[ast.stmt], kind: Any) -> List[ast.stmt]:
    """Remove a trailing statement of type/predicate *kind*, also from a trailing ``if``'s branches."""
    if not stmts:
        return stmts
    last = stmts[-1]
    if kind(last):
        stmts = stmts[:-1]
        if not stmts:
            return stmts
        last = stmts[-1]
    if kind is _is_return_none and not V.RETURN_COPIED_TO_BRANCHES:
        return stmts  # 3.8 - 3.9: a return inside a branch was written there
    if isinstance(last, ast.If):
        last.body = _drop_trailing(last.body, kind) or [ast.Pass()]
        if last.orelse:
            last.orelse = _drop_trailing(last.orelse, kind)
    if isinstance(last, ast.Try) and kind is _is_return_none:  # a finally body runs before the return
        last.body = _drop_trailing(last.body, kind) or [ast.Pass()]
        for handler in last.handlers:
            handler.body = _drop_trailing(handler.body, kind) or [ast.Pass()]
        if last.orelse:
            last.orelse = _drop_trailing(last.orelse, kind)
    return stmts


def _tidy_loops(stmts: List[ast.stmt]) -> None:
    for child in iter_statements(stmts, into_definitions=False):  # nested bodies are tidied on their own
        if isinstance(child, (ast.For, ast.While, ast.AsyncFor)) and not getattr(
            child, "uncompile_explicit_continue", False
        ):
            child.body = _drop_trailing(child.body, lambda s: isinstance(s, ast.Continue)) or [ast.Pass()]


def _assert_false(stmt: ast.stmt) -> ast.stmt:
    """``raise AssertionError(msg)`` made by ``LOAD_ASSERTION_ERROR``: ``assert False, msg``."""
    if not isinstance(stmt, ast.Raise) or stmt.cause is not None:
        return stmt
    exc: Any = stmt.exc
    msg = None
    if isinstance(exc, ast.Call) and len(exc.args) == 1 and not exc.keywords:
        exc, msg = exc.func, exc.args[0]
    elif isinstance(exc, ast.Call) and (exc.args or exc.keywords):
        return stmt
    if not getattr(exc, "uncompile_assertion", False):
        return stmt
    node = ast.Assert(test=ast.Constant(value=False), msg=msg)
    node.uncompile_offsets = getattr(stmt, "uncompile_offsets", ())  # type: ignore[attr-defined]
    return node


def _tidy_asserts(stmts: List[ast.stmt]) -> None:
    _asserts_in(stmts)
    for child in iter_statements(stmts, into_definitions=False):  # nested bodies are tidied on their own
        for field in ("body", "orelse", "finalbody"):
            inner = getattr(child, field, None)
            if isinstance(inner, list):
                _asserts_in(inner)
        for holder in getattr(child, "handlers", None) or getattr(child, "cases", None) or []:
            _asserts_in(holder.body)


def _asserts_in(stmts: List[ast.stmt]) -> None:
    """Make the ``raise AssertionError`` statements of *stmts* (in place) ``assert False``."""
    for index, stmt in enumerate(stmts):
        if isinstance(stmt, ast.Raise):
            stmts[index] = _assert_false(stmt)


def _bare_returns(stmts: List[ast.stmt]) -> None:
    """``return None`` is ``return`` (an async generator's ``return`` must not name a value)."""
    for child in iter_statements(stmts, into_definitions=False):  # nested bodies are tidied on their own
        value = getattr(child, "value", None) if isinstance(child, ast.Return) else None
        if isinstance(value, ast.Constant) and value.value is None:
            child.value = None  # type: ignore[attr-defined]


def _is_class_bookkeeping(stmt: ast.stmt) -> bool:
    if isinstance(stmt, ast.Assign) and all(isinstance(t, ast.Name) for t in stmt.targets):
        names = [t.id for t in stmt.targets]  # type: ignore[attr-defined]
        if names == ["__module__"]:  # the implicit one is ``__module__ = __name__``; others are written
            return isinstance(stmt.value, ast.Name) and stmt.value.id == "__name__"
        return all(name in _CLASS_BOOKKEEPING for name in names)
    value = stmt.value if isinstance(stmt, ast.Return) else None
    if isinstance(value, ast.NamedExpr):  # return (__classcell__ := __class__)
        value = value.value
    if isinstance(stmt, ast.Return) and isinstance(value, ast.Name):
        return value.id in ("__class__", "__classdict__")
    return False


def _docstring(stmts: List[ast.stmt]) -> List[ast.stmt]:
    """``__doc__ = 'text'`` as the first statement becomes the docstring expression."""
    if stmts and isinstance(stmts[0], ast.Assign):
        first = stmts[0]
        target = first.targets[0]
        if (
            len(first.targets) == 1
            and isinstance(target, ast.Name)
            and target.id == "__doc__"
            and isinstance(first.value, ast.Constant)
            and isinstance(first.value.value, str)
        ):
            doc = ast.Expr(value=first.value)
            doc.uncompile_offsets = getattr(first, "uncompile_offsets", ())  # type: ignore[attr-defined]
            return [doc] + stmts[1:]
    return stmts


def tidy_body(stmts: List[ast.stmt], code: CodeType, sim: Any) -> List[ast.stmt]:
    """See the module docstring; *sim* knows which names were stored as global/nonlocal."""
    is_function = bool(code.co_flags & inspect.CO_NEWLOCALS)
    # 3.8 - 3.9: when the code's own final ``return None`` is unreachable, one written last was explicit
    if code.co_name != "<lambda>" and not getattr(sim, "explicit_final_return", False):
        stmts = _drop_trailing(stmts, _is_return_none)
    _tidy_loops(stmts)
    _tidy_asserts(stmts)
    if code.co_flags & inspect.CO_ASYNC_GENERATOR:
        _bare_returns(stmts)
    if not is_function:
        stmts = restore_annotations([s for s in stmts if not _is_class_bookkeeping(s)], code)
        if code.co_name != "<module>":
            stmts = _drop_trailing(stmts, _is_return_none)
        stmts = _docstring(stmts)
    elif (
        code.co_name != "<lambda>"
        and code.co_consts
        and isinstance(code.co_consts[0], str)
        and _has_docstring(code)
    ):
        stmts = [ast.Expr(value=ast.Constant(value=code.co_consts[0]))] + stmts
    declared: List[ast.stmt] = []
    if sim.globals_declared:
        declared.append(ast.Global(names=list(sim.globals_declared)))
    if sim.nonlocals_declared:
        declared.append(ast.Nonlocal(names=list(sim.nonlocals_declared)))
    if (
        declared
        and stmts
        and isinstance(stmts[0], ast.Expr)
        and isinstance(stmts[0].value, ast.Constant)
        and isinstance(stmts[0].value.value, str)
    ):
        return stmts[:1] + declared + stmts[1:]
    return declared + stmts


def _has_docstring(code: CodeType) -> bool:
    """Whether ``co_consts[0]`` is the function's docstring (not just its first string)."""
    flag = getattr(inspect, "CO_HAS_DOCSTRING", None)
    if flag is not None:
        return bool(code.co_flags & flag)
    first = code.co_consts[0]
    if not isinstance(first, str):
        return False
    return not any(arg == 0 for arg in instruction_args(code, ("LOAD_CONST", "RETURN_CONST")))
