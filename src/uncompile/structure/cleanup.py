"""Final touches on a decompiled body: what the compiler adds implicitly is taken out again.

* the implicit ``return None`` at the end of a function or module, and a trailing
  ``continue`` at the end of a loop body; a module or class body has no ``return`` written,
  so copies of its final one end branches (the statements after the ``if`` are its ``else``)
  or leave a loop that ends the body (a ``break``);
* class-body bookkeeping (``__module__``, ``__qualname__``, ``__classcell__``...);
* the docstring (``co_consts[0]`` of a function, ``__doc__ = ...`` of a class/module);
* ``global``/``nonlocal`` declarations the bytecode implies;
* ``assert False, msg``, which compiles to an unconditional ``raise AssertionError(msg)``;
* the ``None`` an async generator returns: its ``return`` takes no value;
* a generator whose every ``yield`` was dead code gets one back, unreachable (``if False: yield``).
"""

from __future__ import annotations

import ast
import inspect
from types import CodeType
from typing import Any, List, Optional, Tuple

from ..bytecode import versions as V
from ..bytecode.reader import has_instruction, instruction_lines
from .annotations import restore_annotations
from .statements import same_tree, statement_lists

_CLASS_BOOKKEEPING = frozenset(
    {
        "__module__",
        "__qualname__",
        "__firstlineno__",
        "__static_attributes__",
        "__classdictcell__",
        "__classcell__",
        "__type_params__",
    }
)


def _is_return_none(stmt: ast.stmt) -> bool:
    if not isinstance(stmt, ast.Return) or getattr(stmt, "uncompile_shared", False):
        return False
    return stmt.value is None or (
        isinstance(stmt.value, ast.Constant)
        and stmt.value.value is None
        and getattr(stmt.value, "uncompile_const", True)
    )


def _is_return(stmt: ast.stmt) -> bool:
    """In module and class bodies, which have no ``return`` written, any return is the final one."""
    return isinstance(stmt, ast.Return)


def _is_class_end(stmt: ast.stmt) -> bool:
    """The final return of a class body, or the bookkeeping stored before it."""
    return isinstance(stmt, ast.Return) or _is_class_bookkeeping(stmt)


_RETURNS = (_is_return_none, _is_return, _is_class_end)


def _drop_trailing(
    stmts: List[ast.stmt], kind: Any, copied: bool = V.RETURN_COPIED_TO_BRANCHES
) -> List[ast.stmt]:
    """Remove a trailing statement of type/predicate *kind*, also from a trailing ``if``'s branches
    (a return there only when the compiler *copied* the final one into the branches)."""
    if not stmts:
        return stmts
    last = stmts[-1]
    while kind(last):
        stmts = stmts[:-1]
        if not stmts:
            return stmts
        last = stmts[-1]
        if kind is not _is_class_end:  # only a class body ends in a run of such statements
            break
    if kind in _RETURNS and not copied:
        return stmts  # 3.8 - 3.9: a return inside a branch was written there
    if isinstance(last, ast.If):
        last.body = _drop_trailing(last.body, kind, copied) or [ast.Pass()]
        if last.orelse:
            last.orelse = _drop_trailing(last.orelse, kind, copied)
    if isinstance(last, ast.Try) and kind in _RETURNS:  # a finally body runs before the return
        last.body = _drop_trailing(last.body, kind, copied) or [ast.Pass()]
        for handler in last.handlers:
            handler.body = _drop_trailing(handler.body, kind, copied) or [ast.Pass()]
        if last.orelse:
            last.orelse = _drop_trailing(last.orelse, kind, copied)
    if isinstance(last, (ast.With, ast.AsyncWith)) and kind in (_is_return, _is_class_end):
        last.body = _drop_trailing(last.body, kind, copied) or [ast.Pass()]  # 3.10: after the exit call
    return stmts


def _ends_in_return(stmts: List[ast.stmt]) -> bool:
    """Whether *stmts* end in a ``return`` on every path (an ``if`` or ``try`` whose branches all do)."""
    if not stmts:
        return False
    last = stmts[-1]
    if isinstance(last, ast.If):
        return _ends_in_return(last.body) and _ends_in_return(last.orelse)
    if isinstance(last, ast.Try):
        return _ends_in_return(last.orelse or last.body) and all(
            _ends_in_return(handler.body) for handler in last.handlers
        )
    return isinstance(last, ast.Return)


def _leaves(stmts: List[ast.stmt]) -> bool:
    """Whether *stmts* end in a ``return`` or ``raise`` on every path."""
    last = stmts[-1] if stmts else None
    if isinstance(last, ast.If):
        return _leaves(last.body) and _leaves(last.orelse)
    if isinstance(last, ast.Try):
        return _leaves(last.orelse or last.body) and all(_leaves(handler.body) for handler in last.handlers)
    return isinstance(last, (ast.Return, ast.Raise))


def _else_before_dead_return(stmts: List[ast.stmt]) -> List[ast.stmt]:
    """3.8 - 3.9: a function whose own final ``return None`` is unreachable did not end in a
    ``return`` statement; when the walk ends it in one, the statements after the last ``if``
    whose body leaves (or ``try`` whose clauses all leave) were that statement's ``else``."""
    if not stmts or not isinstance(stmts[-1], ast.Return) or _is_return_none(stmts[-1]):
        return stmts  # (a ``return None`` last may be the dead one itself)
    for index in range(len(stmts) - 2, -1, -1):
        stmt = stmts[index]
        if isinstance(stmt, ast.If) and not stmt.orelse and _leaves(stmt.body):
            pass
        elif not (
            isinstance(stmt, ast.Try)
            and stmt.handlers
            and not stmt.orelse
            and not stmt.finalbody
            and all(_leaves(handler.body) for handler in stmt.handlers)
        ):
            continue
        stmt.orelse = stmts[index + 1 :]
        return stmts[: index + 1]
    return stmts


def _else_after_copied_return(stmts: List[ast.stmt], code: CodeType) -> List[ast.stmt]:
    """3.10+: an ``if`` of a function's last statements whose body ends in a copy of the final
    ``return None`` went on to the function's end there: the statements after it were its
    ``else`` (so were they for a ``try`` whose except clauses end so, or leave).

    The copy has no line of its own: it has the line of the code that reaches it, the
    statement before it (that statement's test, where it jumps there)."""
    lines = None
    tail = stmts
    while tail:
        for index in range(len(tail) - 1):
            stmt = tail[index]
            if type(stmt) is ast.If:
                if stmt.orelse or not _is_return_none(stmt.body[-1]):
                    continue
                lines = lines or _CopiedReturns(code)
                if not lines.ends_in_copy(stmt.body):
                    continue
                stmt.body = _drop_trailing(stmt.body, _is_return_none)
            elif type(stmt) is ast.Try:
                if stmt.orelse or stmt.finalbody or not stmt.handlers or _leaves(stmt.body):
                    continue
                if not all(_leaves(handler.body) for handler in stmt.handlers):
                    continue
                lines = lines or _CopiedReturns(code)
                copied = [handler for handler in stmt.handlers if lines.ends_in_copy(handler.body)]
                if not copied:
                    continue
                for handler in copied:
                    handler.body = _drop_trailing(handler.body, _is_return_none) or [ast.Pass()]
            else:
                continue
            stmt.orelse = tail[index + 1 :]
            del tail[index + 1 :]
            break
        last = tail[-1]
        tail = last.orelse if type(last) is ast.If else []
    return stmts


class _CopiedReturns:
    """Which ``return None`` statements are copies of a function's final one, by their lines."""

    def __init__(self, code: CodeType) -> None:
        self.code = code
        self.line_of: Any = None

    def ends_in_copy(self, stmts: List[ast.stmt]) -> bool:
        """Whether *stmts* end in a copy: a ``return None`` on a line of the statement before it."""
        if len(stmts) < 2 or not _is_return_none(stmts[-1]):
            return False
        returned = getattr(stmts[-1], "uncompile_offsets", ())
        if not returned:
            return False
        if self.line_of is None:
            self.line_of = instruction_lines(self.code, every=True)
        line_of = self.line_of
        line = line_of(returned[-1])
        return any(
            line_of(offset) == line
            for node in ast.walk(stmts[-2])
            for offset in getattr(node, "uncompile_offsets", ())
        )


def _drop_copies_of_rest(stmt: ast.Try, rest: List[ast.stmt]) -> None:
    """3.12+ copy a short rest of a module or class body into the try's normal exit: a try body
    or ``else`` that ends in such a copy and the final return goes on to the rest instead."""
    if rest and isinstance(rest[-1], ast.Return):
        rest = rest[:-1]  # the final return itself, not yet dropped
    if not rest:
        return
    for field in ("orelse", "body"):
        branch = getattr(stmt, field)
        if _ends_in_return(branch) and same_tree(branch[-1 - len(rest) : -1], rest):
            kept = branch[: -1 - len(rest)]
            setattr(stmt, field, kept if kept or field == "orelse" else [ast.Pass()])
            return


#: The statements :func:`_else_after_returns` looks into.
_IF_OR_TRY = frozenset({ast.If, ast.Try})


def _else_after_returns(stmts: List[ast.stmt]) -> List[ast.stmt]:
    """Module and class bodies have no ``return``: an ``if`` branch that ends in a copy of the
    final one is followed by the other branch, so the statements after the ``if`` go there."""
    for index, stmt in enumerate(stmts):
        if type(stmt) not in _IF_OR_TRY:  # (most statements: one test each)
            continue
        if isinstance(stmt, ast.Try):
            for handler in stmt.handlers:
                handler.body = _else_after_returns(handler.body)
            stmt.body, stmt.orelse = _else_after_returns(stmt.body), _else_after_returns(stmt.orelse)
        if isinstance(stmt, ast.Try) and not stmt.finalbody:
            _drop_copies_of_rest(stmt, stmts[index + 1 :])
            if _clauses_end_body(stmt, stmts[index + 1 :]):
                # the clauses end in copies of the final return: the rest is the try's ``else``
                stmt.orelse = _else_after_returns(stmts[index + 1 :])
                return stmts[: index + 1]
        if not isinstance(stmt, ast.If):
            continue
        stmt.body = _else_after_returns(stmt.body)
        stmt.orelse = _else_after_returns(stmt.orelse)
        rest = stmts[index + 1 :]
        if rest and _ends_in_return(stmt.body) != _ends_in_return(stmt.orelse):
            branch = stmt.orelse if _ends_in_return(stmt.body) else stmt.body
            branch.extend(_else_after_returns(rest))
            return stmts[: index + 1]
    return stmts


def _clauses_end_body(stmt: ast.Try, rest: List[ast.stmt]) -> bool:
    """Whether the except clauses of *stmt* all end in a return (in a module or class body: a
    copy of the final one) where its body goes on to *rest*, more than that return, which no
    clause repeats."""
    if stmt.orelse or not stmt.handlers or not rest or _ends_in_return(stmt.body):
        return False
    tail = rest[:-1] if isinstance(rest[-1], ast.Return) else rest
    return bool(tail) and all(
        _ends_in_return(handler.body) and not same_tree(handler.body[-1 - len(tail) : -1], tail)
        for handler in stmt.handlers
    )


def _breaks_for_returns(stmts: List[ast.stmt]) -> None:
    """Module and class bodies have no ``return``: in a loop that ends the body (an ``if``,
    ``try`` or ``with`` in the same place), a copy of the final one leaves the loop: a ``break``."""
    last = stmts[-1] if stmts else None
    if isinstance(last, (ast.For, ast.AsyncFor, ast.While)):
        _returns_to_breaks(last.body)
    elif isinstance(last, (ast.If, ast.Try, ast.With, ast.AsyncWith)):
        for branch in _branches(last):
            _breaks_for_returns(branch)


def _branches(stmt: ast.stmt) -> List[List[ast.stmt]]:
    """The statement lists of an if, try (its finally aside) or with."""
    branches = [getattr(stmt, "body", []), getattr(stmt, "orelse", [])]
    return branches + [handler.body for handler in getattr(stmt, "handlers", [])]


def _returns_to_breaks(stmts: List[ast.stmt]) -> None:
    """The returns of one loop's body (not of the loops inside) made ``break`` (in place)."""
    for index, stmt in enumerate(stmts):
        if isinstance(stmt, ast.Return):
            jump = ast.Break()
            jump.uncompile_offsets = getattr(stmt, "uncompile_offsets", ())  # type: ignore[attr-defined]
            stmts[index] = jump
        elif isinstance(stmt, (ast.If, ast.Try, ast.With, ast.AsyncWith)):
            for branch in _branches(stmt):
                _returns_to_breaks(branch)


def assertion_message(exc: Any) -> Tuple[bool, Optional[ast.expr]]:
    """Whether raising *exc* is what ``assert`` raises (``AssertionError`` from
    ``LOAD_ASSERTION_ERROR``, called with one plain argument or not at all), and the message."""
    msg = None
    if (
        isinstance(exc, ast.Call)
        and len(exc.args) == 1
        and not exc.keywords
        and not isinstance(exc.args[0], ast.Starred)  # ``raise AssertionError(*args)`` stays
    ):
        exc, msg = exc.func, exc.args[0]
    return bool(getattr(exc, "uncompile_assertion", False)), msg


def _assert_false(stmt: ast.stmt) -> ast.stmt:
    """``raise AssertionError(msg)`` made by ``LOAD_ASSERTION_ERROR``: ``assert False, msg``."""
    if not isinstance(stmt, ast.Raise) or stmt.cause is not None:
        return stmt
    is_assertion, msg = assertion_message(stmt.exc)
    if not is_assertion:
        return stmt
    node = ast.Assert(test=ast.Constant(value=False), msg=msg)
    node.uncompile_offsets = getattr(stmt, "uncompile_offsets", ())  # type: ignore[attr-defined]
    return node


_LOOPS = (ast.For, ast.While, ast.AsyncFor)
#: Simple statements (the commonest ones) that :func:`_tidy_statements` leaves as they are.
_NOTHING_TO_TIDY = frozenset(
    {
        ast.Assign,
        ast.AugAssign,
        ast.AnnAssign,
        ast.Expr,
        ast.Delete,
        ast.Pass,
        ast.Break,
        ast.Continue,
        ast.Import,
        ast.ImportFrom,
        ast.Global,
        ast.Nonlocal,
        ast.Assert,
    }
)
_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def _is_continue(stmt: ast.stmt) -> bool:
    """A ``continue`` the loop's own jump back may stand for (not one known to be written)."""
    return isinstance(stmt, ast.Continue) and not getattr(stmt, "uncompile_written", False)


def _tidy_statements(stmts: List[ast.stmt], bare_returns: bool, function: bool) -> None:
    """One walk over the statement lists of a body, changing them in place: a loop body loses
    its trailing ``continue`` and ``raise AssertionError(msg)`` becomes ``assert False, msg``.
    ``return None`` becomes ``return`` where no ``return`` of the body gives another value (as
    PEP 8 asks, a function that returns values says ``return None``; one that does not, a bare
    ``return``: the bytecode is the same), and always with *bare_returns* (an async generator:
    its ``return`` must not name a value). Nested definitions are left alone: their bodies were
    tidied on their own."""
    pending = [stmts]
    returns_none: List[ast.Return] = []
    returns_values = False
    left_alone, new_return, new_raise, new_if = _NOTHING_TO_TIDY, ast.Return, ast.Raise, ast.If
    while pending:
        block = pending.pop()
        for stmt in block:  # (no index to keep for each: a raise, which needs one, is rare)
            kind = type(stmt)
            if kind in left_alone:
                continue
            if kind is new_return:
                value = stmt.value  # type: ignore[attr-defined]
                if value is None:
                    continue
                if isinstance(value, ast.Constant) and value.value is None:
                    returns_none.append(stmt)  # type: ignore[arg-type]
                else:
                    returns_values = True
            elif kind is new_raise:
                assertion = _assert_false(stmt)
                if assertion is not stmt:  # (the first occurrence not yet replaced is this one)
                    block[next(i for i, item in enumerate(block) if item is stmt)] = assertion
            elif kind is new_if:  # (the commonest compound statement: its lists read directly)
                pending.append(stmt.body)  # type: ignore[attr-defined]
                orelse = getattr(stmt, "orelse", None)
                if orelse:
                    pending.append(orelse)
            elif not isinstance(stmt, _DEFINITIONS):
                if kind in _LOOPS and not getattr(stmt, "uncompile_explicit_continue", False):
                    stmt.body = _drop_trailing(stmt.body, _is_continue) or [ast.Pass()]  # type: ignore[attr-defined]
                pending.extend(statement_lists(stmt))
    if bare_returns or (function and not returns_values):
        for stmt in returns_none:
            stmt.value = None


#: The kinds of statement that :func:`_is_class_bookkeeping` can accept (others are not asked).
_BOOKKEEPING_KINDS = frozenset({ast.Assign, ast.Return})


def _is_class_bookkeeping(stmt: ast.stmt) -> bool:
    if isinstance(stmt, ast.Assign):
        targets = stmt.targets
        for target in targets:
            if not isinstance(target, ast.Name) or target.id not in _CLASS_BOOKKEEPING:
                return False
        if len(targets) == 1 and targets[0].id == "__module__":  # type: ignore[attr-defined]
            # the implicit one is ``__module__ = __name__``; others are written
            return isinstance(stmt.value, ast.Name) and stmt.value.id == "__name__"
        return True
    if not isinstance(stmt, ast.Return):
        return False
    value = stmt.value
    if isinstance(value, ast.NamedExpr):  # return (__classcell__ := __class__)
        value = value.value
    return isinstance(value, ast.Name) and value.id in ("__class__", "__classdict__")


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


_GENERATORS = inspect.CO_GENERATOR | inspect.CO_ASYNC_GENERATOR
_NEW_LOCALS = inspect.CO_NEWLOCALS  # a function's code (not a module's or class body's)
#: The flag that says ``co_consts[0]`` is the docstring (3.14+; None before).
_HAS_DOCSTRING_FLAG = getattr(inspect, "CO_HAS_DOCSTRING", None)
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)


def _yields(stmts: List[ast.stmt]) -> bool:
    """Whether a ``yield`` (``yield from``) is written in *stmts*, outside nested scopes."""
    pending: List[ast.AST] = list(stmts)
    while pending:
        node = pending.pop()
        if isinstance(node, (ast.Yield, ast.YieldFrom)):
            return True
        if not isinstance(node, _SCOPES):
            pending.extend(ast.iter_child_nodes(node))
    return False


def _dead_yield() -> ast.stmt:
    """``if False: yield``: a generator whose every ``yield`` the compiler dropped as dead code
    (``while False: yield None``) still is one; the statement compiles to nothing."""
    return ast.If(test=ast.Constant(value=False), body=[ast.Expr(value=ast.Yield(value=None))], orelse=[])


def tidy_body(stmts: List[ast.stmt], code: CodeType, sim: Any) -> List[ast.stmt]:
    """See the module docstring; *sim* knows which names were stored as global/nonlocal."""
    flags = code.co_flags
    is_function = bool(flags & _NEW_LOCALS)
    is_def = is_function and code.co_name != "<lambda>"  # a def's body: returns written, a docstring
    # 3.8 - 3.9: when the code's own final ``return None`` is unreachable, one written last was explicit
    if not is_function:  # no return written there: every one is the final one, maybe copied
        end = _is_return if code.co_name == "<module>" else _is_class_end
        stmts = _drop_trailing(_else_after_returns(stmts), end, copied=True)
        _breaks_for_returns(stmts)
    elif is_def and not sim.explicit_final_return:
        stmts = _drop_trailing(stmts, _is_return_none)
        if V.RETURN_COPIED_TO_BRANCHES:
            stmts = _else_after_copied_return(stmts, code)
    elif is_def:
        stmts = _else_before_dead_return(stmts)
    _tidy_statements(stmts, bare_returns=bool(flags & inspect.CO_ASYNC_GENERATOR), function=is_def)
    if is_def and flags & _GENERATORS and not _yields(stmts):
        stmts = stmts + [_dead_yield()]
    if not is_function:
        if code.co_name != "<module>":  # (a module body has no bookkeeping: not scanned)
            stmts = [s for s in stmts if type(s) not in _BOOKKEEPING_KINDS or not _is_class_bookkeeping(s)]
        stmts = restore_annotations(stmts, code)
        stmts = _docstring(stmts)
    elif is_def and code.co_consts and isinstance(code.co_consts[0], str) and _has_docstring(code):
        stmts = [ast.Expr(ast.Constant(code.co_consts[0]))] + stmts
    if not sim.globals_declared and not sim.nonlocals_declared:  # (most bodies)
        return stmts
    declared: List[ast.stmt] = []
    if sim.globals_declared:
        declared.append(ast.Global(names=list(sim.globals_declared)))
    if sim.nonlocals_declared:
        declared.append(ast.Nonlocal(names=list(sim.nonlocals_declared)))
    # after the docstring and, in a module, the ``from __future__`` imports (which must come first)
    at = int(
        bool(stmts)
        and isinstance(stmts[0], ast.Expr)
        and isinstance(stmts[0].value, ast.Constant)
        and isinstance(stmts[0].value.value, str)
    )
    while at < len(stmts) and getattr(stmts[at], "module", None) == "__future__":  # (an ImportFrom)
        at += 1
    return stmts[:at] + declared + stmts[at:]


def _has_docstring(code: CodeType) -> bool:
    """Whether ``co_consts[0]`` is the function's docstring (not just its first string)."""
    if _HAS_DOCSTRING_FLAG is not None:
        return bool(code.co_flags & _HAS_DOCSTRING_FLAG)
    first = code.co_consts[0]
    if not isinstance(first, str):
        return False
    return not (has_instruction(code, "LOAD_CONST", 0) or has_instruction(code, "RETURN_CONST", 0))
