"""Things on the symbolic value stack that are not (yet) source expressions.

The simulator pushes ``ast.expr`` nodes for ordinary values and these markers for the
interpreter's own bookkeeping: the ``NULL`` of a call, an iterator of a running ``for``,
the ``__exit__`` of a ``with``, an exception being handled, half-built targets of an
unpacking assignment, a function or class not yet given its name.
"""

from __future__ import annotations

import ast
from types import CodeType
from typing import Any, List, Optional

#: What an expression on the stack is an instance of (``ast.Slice`` is no ``ast.expr`` on 3.8).
EXPRESSIONS = (ast.expr, ast.Slice)


class Marker:
    """Base of stack items that have no source form of their own."""

    def __repr__(self) -> str:
        return "<%s>" % type(self).__name__


class Null(Marker):
    """The ``NULL`` a call or a method load pushes."""


class Iterator(Marker):
    """The iterator of a ``for`` loop (popped silently by ``break``/``return``)."""

    def __init__(self, iterable: ast.expr) -> None:
        self.iterable = iterable


class IteratorSlot(Marker):
    """The second stack item 3.15 keeps under a running ``for`` loop's iterator (``NULL``/index)."""


class WithExit(Marker):
    """The ``__exit__`` a ``with`` statement keeps on the stack during its body."""

    def __init__(self, manager: ast.expr, is_async: bool) -> None:
        self.manager = manager
        self.is_async = is_async


class WithSelf(Marker):
    """The manager 3.14+ keep above ``__exit__`` (an unbound method) during a ``with`` body."""


class WithExitCall(Marker):
    """The result of calling a ``with``'s ``__exit__`` on the normal path."""

    def __init__(self, exit: WithExit) -> None:
        self.exit = exit


class ExceptionValue(Marker):
    """The exception being handled (pushed at a handler's start)."""


class Discard(Marker):
    """A value whose ``POP_TOP`` produces no statement (e.g. the previous exception)."""


class SavedLocal(Marker):
    """A local saved by ``LOAD_FAST_AND_CLEAR`` around an inlined comprehension (3.12+)."""


class BuildClass(Marker):
    """``__build_class__``, loaded by ``LOAD_BUILD_CLASS``."""


class FunctionValue(Marker):
    """A function made by ``MAKE_FUNCTION`` and not yet stored or called."""

    def __init__(
        self,
        code: CodeType,
        defaults: Optional[ast.expr] = None,
        kwdefaults: Optional[ast.expr] = None,
        annotations: Optional[ast.expr] = None,
        closure: Optional[ast.expr] = None,
    ) -> None:
        self.code = code
        self.defaults = defaults
        self.kwdefaults = kwdefaults
        self.annotations = annotations
        self.closure = closure
        self.decorators: List[ast.expr] = []


class TypeAliasValue(Marker):
    """The value a ``type`` statement stores: *statement* (an ``ast.TypeAlias`` of *name*), not yet stored."""

    def __init__(self, statement: ast.stmt, name: str) -> None:
        self.statement = statement
        self.name = name


class TypeParam(Marker):
    """A type parameter made by ``CALL_INTRINSIC_1 INTRINSIC_TYPEVAR`` and kin: *node* is its
    ``ast.TypeVar``/``ast.TypeVarTuple``/``ast.ParamSpec`` (3.12+)."""

    def __init__(self, node: Any) -> None:
        self.node = node


class TypeParams(Marker):
    """The tuple of a generic definition's type parameters (*nodes*, in order)."""

    def __init__(self, nodes: List[Any]) -> None:
        self.nodes = nodes


class GenericDefinition(Marker):
    """A generic ``def``/``class`` (*statement*, built from its ``<generic parameters of ...>``
    function's call), not yet stored; decorators applied to it are collected as on functions."""

    def __init__(self, statement: Any) -> None:
        self.statement = statement
        self.decorators: List[ast.expr] = []


class ClassValue(Marker):
    """``__build_class__(body, name, *bases, **keywords)``, not yet stored."""

    def __init__(
        self, body: FunctionValue, name: str, bases: List[ast.expr], keywords: List[ast.keyword]
    ) -> None:
        self.body = body
        self.name = name
        self.bases = bases
        self.keywords = keywords
        self.decorators: List[ast.expr] = []


class Unpack:
    """An unpacking assignment being filled in target by target."""

    def __init__(self, value: Any, count: int, star: int = -1) -> None:
        self.value = value
        self.targets: List[Optional[ast.expr]] = [None] * count
        self.star = star
        self.filled = 0
        self.parent: Optional["TargetSlot"] = None
        #: positions whose store 3.13+ dropped (``POP_TOP``): the next stored target has the same name
        self.dropped: List[int] = []


class TargetSlot(Marker):
    """A stack item that will be stored into one target of an :class:`Unpack`."""

    def __init__(self, owner: Unpack, position: int) -> None:
        self.owner = owner
        self.position = position


class LoopTarget(Marker):
    """The next item of a ``for`` loop (or comprehension), stored into its target."""

    def __init__(self) -> None:
        self.target: Optional[ast.expr] = None


class ComprehensionResult(Marker):
    """The list/set/dict a comprehension is building."""

    def __init__(self, kind: str) -> None:
        self.kind = kind


def is_marker(value: Any) -> bool:
    """True for stack items that are not plain expressions."""
    return isinstance(value, Marker)
