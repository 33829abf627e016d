"""Calls, displays, f-strings and function/class creation on the symbolic stack.

:class:`CallBuilder` is the half of the simulator that builds compound expressions:
calls in every layout (``NULL``/self slot, ``KW_NAMES``/``CALL_KW``, ``CALL_FUNCTION_EX``),
tuple/list/set/dict displays with unpacking, f-strings, ``MAKE_FUNCTION`` and
``__build_class__``. Nested code objects are handed to a *nested* decompiler.
"""

from __future__ import annotations

import ast
from typing import Any, List, Optional

from ..bytecode import versions as V
from ..bytecode.instructions import Instr
from . import values as M
from .targets import LOAD
from .type_params import TypeParamOps, type_param_tuple
from .values import EXPRESSIONS

Stack = List[Any]

_bare = ast.AST.__new__  # a node of the given class with no fields set (see targets.name_node)
_Call = ast.Call

_COMPREHENSIONS = ("<listcomp>", "<setcomp>", "<dictcomp>", "<genexpr>")


class CallBuilder(TypeParamOps):
    """See the module docstring; *nested* builds definitions from nested code objects. The
    intrinsics of type parameters are its :class:`~.type_params.TypeParamOps` half."""

    __slots__ = ("code", "nested")

    def __init__(self, code: Any, nested: Any) -> None:
        self.code = code
        self.nested = nested

    # -- entry from the simulator -----------------------------------------------------

    def step(self, ins: Instr, stack: Stack, sim: Any) -> bool:
        handler = getattr(self, "op_" + ins.op, None)
        if handler is None:
            return False
        handler(ins, stack, sim)
        return True

    def definition(self, value: Any, name: str) -> ast.stmt:
        return self.nested.definition(value, name)

    def function_expr(self, value: M.FunctionValue) -> ast.expr:
        return self.nested.expression(value)

    # -- calls --------------------------------------------------------------------------

    def _finish_call(
        self, null_slot: bool, args: List[Any], keywords: List[ast.keyword], stack: Stack, sim: Any, ins: Any
    ) -> None:
        """Pop the callable (and the NULL/self slot below or above it when *null_slot*) and push
        its call with *args* (a self slot's value first) and *keywords*."""
        if len(stack) < (2 if null_slot else 1):
            raise sim.fail(ins, "value stack underflow")
        func = stack.pop()
        if null_slot:
            lower = stack.pop()
            if isinstance(func, M.Null):  # the NULL above the callable (3.13+)
                func = lower
            elif not isinstance(lower, M.Null):  # a method's self above the method
                args = [func] + args
                func = lower
        if isinstance(func, M.Marker):
            if self._call_of_marker(func, args, keywords, stack, sim, ins):
                return
        elif (
            len(args) == 1
            and not keywords
            and isinstance(args[0], (M.FunctionValue, M.ClassValue, M.GenericDefinition))
            and isinstance(func, ast.expr)
        ):
            args[0].decorators.insert(0, func)
            stack.append(args[0])
            return
        if not isinstance(func, EXPRESSIONS):
            func = sim.expr(func, ins)
        for arg in args:  # sim.exprs(args, ins), called only when an argument is no expression yet
            if not isinstance(arg, EXPRESSIONS):
                args = sim.exprs(args, ins)
                break
        call = _bare(_Call)  # ast.Call(func, args, keywords), without the class's argument checks
        call.func = func
        call.args = args
        call.keywords = keywords
        stack.append(call)

    def _call_of_marker(
        self, func: M.Marker, args: List[Any], keywords: List[ast.keyword], stack: Stack, sim: Any, ins: Instr
    ) -> bool:
        """Calls the compiler makes of a value with no source form: ``__build_class__``, a generic
        definition's or a comprehension's hidden function, a ``with``'s exit; True when handled."""
        if isinstance(func, M.BuildClass):
            body, name = args[0], args[1]
            bases = [sim.expr(a, ins) for a in args[2:]]
            value = M.ClassValue(body, name.value, [b for b in bases if not _generic_base(b)], keywords)
            if len(value.bases) < len(bases):  # a generic class (3.12+): its bases end with Generic[...]
                value.type_params = sim.class_type_params  # type: ignore[attr-defined]
            stack.append(value)
            return True
        if isinstance(func, M.FunctionValue) and func.code.co_name.startswith(V.GENERIC_PARAMETERS_PREFIX):
            if keywords:
                raise sim.fail(ins, "generic parameters called with keywords")
            stack.append(self.nested.generic(func, [sim.expr(a, ins) for a in args]))
            return True
        if isinstance(func, M.FunctionValue) and func.code.co_name in _COMPREHENSIONS and len(args) == 1:
            iterable = args[0].iterable if isinstance(args[0], M.Iterator) else args[0]
            stack.append(self.nested.comprehension(func, iterable))
            return True
        if isinstance(func, M.WithExit):
            stack.append(M.WithExitCall(func))
            return True
        return False

    def op_CALL_KW(self, ins: Instr, stack: Stack, sim: Any) -> None:
        argc, null_slot = ins.arg
        names = sim.pop(stack, ins)
        kwnames: Any = names.value if isinstance(names, ast.Constant) else ()
        args = sim.pop_n_raw(stack, argc, ins)
        split = len(args) - len(kwnames)
        keywords = [ast.keyword(k, sim.expr(v, ins)) for k, v in zip(kwnames, args[split:])]
        self._finish_call(null_slot, args[:split], keywords, stack, sim, ins)

    def op_CALL_FUNCTION_EX(self, ins: Instr, stack: Stack, sim: Any) -> None:
        has_kwargs, null_slot = ins.arg
        kwargs = sim.pop(stack, ins) if has_kwargs else None
        if V.VERSION >= (3, 14) and not has_kwargs:
            kwargs = sim.pop(stack, ins)
            kwargs = None if isinstance(kwargs, M.Null) else kwargs
        positional = sim.pop_expr(stack, ins)
        if isinstance(positional, ast.Tuple):
            args: List[ast.expr] = list(positional.elts)
        elif isinstance(positional, ast.Constant) and isinstance(positional.value, tuple):
            args = [ast.Constant(item) for item in positional.value]
        else:
            args = [ast.Starred(positional, LOAD)]
        keywords: List[ast.keyword] = []
        if kwargs is not None:
            kwargs = sim.expr(kwargs, ins)
            if isinstance(kwargs, ast.Dict) and (
                getattr(kwargs, "uncompile_call_kwargs", False) or _keyword_display(kwargs)
            ):
                for key, value in zip(kwargs.keys, kwargs.values):
                    name: Any = getattr(key, "value", None)
                    keywords.append(ast.keyword(name, value))
            else:
                keywords.append(ast.keyword(None, kwargs))
        self._finish_call(null_slot, args, keywords, stack, sim, ins)

    def op_LOAD_SUPER_ATTR(self, ins: Instr, stack: Stack, sim: Any) -> None:
        name, method, two_args = ins.arg
        self_arg = sim.pop_expr(stack, ins)
        cls_arg = sim.pop_expr(stack, ins)
        sup = sim.pop_expr(stack, ins)
        call = ast.Call(sup, [cls_arg, self_arg] if two_args else [], [])
        stack.append(ast.Attribute(call, name, LOAD))
        if method:
            stack.append(M.Null())

    # -- displays -----------------------------------------------------------------------

    def op_BUILD_TUPLE(self, ins: Instr, stack: Stack, sim: Any) -> None:
        params = type_param_tuple(stack[len(stack) - ins.arg :] if ins.arg else [])
        if params is not None:
            del stack[len(stack) - ins.arg :]
            stack.append(params)
            return
        stack.append(ast.Tuple(_display_items(stack, ins.arg, ins, sim), LOAD))

    def op_BUILD_LIST(self, ins: Instr, stack: Stack, sim: Any) -> None:
        stack.append(ast.List(_display_items(stack, ins.arg, ins, sim), LOAD))

    def op_BUILD_SET(self, ins: Instr, stack: Stack, sim: Any) -> None:
        stack.append(ast.Set(sim.pop_n(stack, ins.arg, ins)))

    def op_BUILD_MAP(self, ins: Instr, stack: Stack, sim: Any) -> None:
        items = sim.pop_n(stack, 2 * ins.arg, ins)
        stack.append(ast.Dict(items[0::2], items[1::2]))

    def op_BUILD_CONST_KEY_MAP(self, ins: Instr, stack: Stack, sim: Any) -> None:
        keys = sim.pop_expr(stack, ins)
        values = sim.pop_n(stack, ins.arg, ins)
        stack.append(ast.Dict([ast.Constant(k) for k in keys.value], values))

    def _extend(self, ins: Instr, stack: Stack, sim: Any, starred: bool = True) -> None:
        item = sim.pop_expr(stack, ins)
        display = stack[-ins.arg]
        if _in_comprehension(stack, ins.arg):  # 3.15: [*x for x in y], {*x for x in y}
            kind = "list" if ins.op == "LIST_EXTEND" else "set"
            sim.emit(ast.Expr(_ComprehensionItem(kind, ast.Starred(item, LOAD), None)))
            display.uncompile_comprehension = kind
            return
        _unfold_constants(display, unpacking=starred)
        folded = _folded_constants(item, ins.op == "SET_UPDATE")
        if folded and not display.elts:
            display.elts.extend(folded)
            display.uncompile_folded = item
        elif starred:
            display.elts.append(ast.Starred(item, LOAD))
        else:
            display.elts.append(item)

    def op_LIST_EXTEND(self, ins: Instr, stack: Stack, sim: Any) -> None:
        self._extend(ins, stack, sim)

    op_SET_UPDATE = op_LIST_EXTEND

    def op_LIST_APPEND(self, ins: Instr, stack: Stack, sim: Any) -> None:
        target = stack[-ins.arg - 1]
        inside = stack[len(stack) - ins.arg :]
        item = sim.pop_expr(stack, ins)
        if any(isinstance(v, M.Iterator) for v in inside):
            kind = "list" if ins.op == "LIST_APPEND" else "set"
            sim.emit(ast.Expr(_ComprehensionItem(kind, item, None)))
            target.uncompile_comprehension = kind
            return
        _unfold_constants(target, unpacking=False)
        target.elts.append(item)

    op_SET_ADD = op_LIST_APPEND

    def op_MAP_ADD(self, ins: Instr, stack: Stack, sim: Any) -> None:
        value = sim.pop_expr(stack, ins)
        key = sim.pop_expr(stack, ins)
        target = stack[-ins.arg]
        if _in_comprehension(stack, ins.arg):
            sim.emit(ast.Expr(_ComprehensionItem("dict", key, value)))
            target.uncompile_comprehension = "dict"
            return
        target.keys.append(key)
        target.values.append(value)

    def op_DICT_UPDATE(self, ins: Instr, stack: Stack, sim: Any) -> None:
        item = sim.pop_expr(stack, ins)
        target = stack[-ins.arg]
        if _in_comprehension(stack, ins.arg):  # 3.15: {**d for d in ds}
            sim.emit(ast.Expr(_ComprehensionItem("dict", item, None)))
            target.uncompile_comprehension = "dict"
            return
        target.keys.append(None)
        target.values.append(item)

    def op_DICT_MERGE(self, ins: Instr, stack: Stack, sim: Any) -> None:
        self.op_DICT_UPDATE(ins, stack, sim)
        stack[-ins.arg].uncompile_call_kwargs = True

    def op_LIST_TO_TUPLE(self, ins: Instr, stack: Stack, sim: Any) -> None:
        value = sim.pop_expr(stack, ins)
        stack.append(ast.Tuple(value.elts, LOAD) if isinstance(value, ast.List) else value)

    def op_CALL_INTRINSIC_1(self, ins: Instr, stack: Stack, sim: Any) -> None:
        if ins.arg == "INTRINSIC_LIST_TO_TUPLE":
            self.op_LIST_TO_TUPLE(ins, stack, sim)
        elif ins.arg == "INTRINSIC_UNARY_POSITIVE":
            stack.append(ast.UnaryOp(ast.UAdd(), sim.pop_expr(stack, ins)))
        elif ins.arg == "INTRINSIC_IMPORT_STAR":
            sim.op_IMPORT_STAR(ins, stack)
            stack.append(M.Discard())
        elif ins.arg == "INTRINSIC_PRINT":
            sim.emit(ast.Expr(sim.pop_expr(stack, ins)))
            stack.append(M.Discard())
        elif ins.arg == "INTRINSIC_STOPITERATION_ERROR":
            pass
        elif not self.intrinsic_1(ins, stack, sim):
            raise sim.fail(ins, "unsupported intrinsic %s" % ins.arg)

    def op_CALL_INTRINSIC_2(self, ins: Instr, stack: Stack, sim: Any) -> None:
        self.intrinsic_2(ins, stack, sim)

    def op_TYPE_ALIAS(self, ins: Instr, stack: Stack, sim: Any) -> None:
        """``type Name = value``: the name, its type parameters and the value's evaluator."""
        evaluator = sim.pop(stack, ins)
        params = sim.pop(stack, ins)
        name = getattr(sim.pop_expr(stack, ins), "value", None)
        if not isinstance(evaluator, M.FunctionValue) or not isinstance(name, str):
            raise sim.fail(ins, "type alias")
        statement = self.nested.type_alias(evaluator, name)
        if isinstance(params, M.TypeParams):
            statement.type_params = params.nodes
        elif not (isinstance(params, ast.Constant) and params.value is None):
            raise sim.fail(ins, "type alias with type parameters %r" % (params,))
        stack.append(M.TypeAliasValue(statement, name))

    def op_GET_ITER(self, ins: Instr, stack: Stack, sim: Any) -> None:
        stack.append(M.Iterator(sim.pop_expr(stack, ins)))
        if ins.op == "GET_ITER" and V.ITERATOR_SLOTS == 2:
            stack.append(M.IteratorSlot())

    op_GET_AITER = op_GET_ITER

    # -- f-strings ----------------------------------------------------------------------

    def op_FORMAT_VALUE(self, ins: Instr, stack: Stack, sim: Any) -> None:
        conversion, has_spec = ins.arg
        spec = sim.pop_expr(stack, ins) if has_spec else None
        value = sim.pop_expr(stack, ins)
        stack.append(ast.FormattedValue(value, conversion, _joined(spec)))

    def op_CONVERT_VALUE(self, ins: Instr, stack: Stack, sim: Any) -> None:
        value = sim.pop_expr(stack, ins)
        value.uncompile_conversion = ins.arg
        stack.append(value)

    def op_FORMAT_SIMPLE(self, ins: Instr, stack: Stack, sim: Any) -> None:
        value = sim.pop_expr(stack, ins)
        conversion = getattr(value, "uncompile_conversion", -1)
        stack.append(ast.FormattedValue(value, conversion, None))

    def op_FORMAT_WITH_SPEC(self, ins: Instr, stack: Stack, sim: Any) -> None:
        spec = sim.pop_expr(stack, ins)
        value = sim.pop_expr(stack, ins)
        conversion = getattr(value, "uncompile_conversion", -1)
        stack.append(ast.FormattedValue(value, conversion, _joined(spec)))

    def op_BUILD_STRING(self, ins: Instr, stack: Stack, sim: Any) -> None:
        parts: List[ast.expr] = []
        for part in sim.pop_n(stack, ins.arg, ins):
            parts.extend(part.values if isinstance(part, ast.JoinedStr) else [part])
        stack.append(ast.JoinedStr(parts))

    # -- functions and classes --------------------------------------------------------

    def op_MAKE_FUNCTION(self, ins: Instr, stack: Stack, sim: Any) -> None:
        if V.VERSION <= (3, 10):
            code = sim.pop_pair(stack, ins)[0].value  # the qualified name above it goes
        else:
            code = sim.pop_expr(stack, ins).value
        value = M.FunctionValue(code)
        flags = ins.arg
        if flags:  # (most functions have none of these)
            for bit, field in ((8, "closure"), (4, "annotations"), (2, "kwdefaults"), (1, "defaults")):
                if flags & bit:
                    setattr(value, field, sim.pop(stack, ins))
        stack.append(value)

    def op_SET_FUNCTION_ATTRIBUTE(self, ins: Instr, stack: Stack, sim: Any) -> None:
        func = sim.pop(stack, ins)
        attribute = sim.pop(stack, ins)
        field = {8: "closure", 4: "annotations", 2: "kwdefaults", 1: "defaults", 16: "annotations"}
        setattr(func, field.get(ins.arg, "annotations"), attribute)
        stack.append(func)


def call_op(sim: Any, ins: Instr, stack: Stack) -> None:
    """``CALL``, the commonest of the builder's ops: a handler of the simulator itself (it takes the
    simulator first and reaches the builder from it), so it runs without the forwarding call each of
    the builder's methods goes through (see ``Simulator._handler_for``)."""
    argc, kwnames, null_slot = ins.arg
    if argc:  # sim.pop_n_raw(stack, argc, ins), without the call
        if argc > len(stack):
            raise sim.fail(ins, "value stack underflow")
        args = stack[-argc:]
        del stack[-argc:]
    else:
        args = []
    keywords: List[ast.keyword] = []
    if kwnames:
        split = len(args) - len(kwnames)
        keywords = [ast.keyword(k, sim.expr(v, ins)) for k, v in zip(kwnames, args[split:])]
        args = args[:split]
    sim.calls._finish_call(null_slot, args, keywords, stack, sim, ins)


def _display_items(stack: Stack, count: int, ins: Instr, sim: Any) -> List[Any]:
    """The top *count* items, as the elements of a tuple or list display.

    ``class C(*bases)`` passes ``__build_class__`` its arguments as one sequence that starts
    with the class body: that function stays a value for :meth:`CallBuilder._finish_call`.
    """
    items = sim.pop_n_raw(stack, count, ins)
    if items and isinstance(items[0], M.FunctionValue):
        below = [item for item in stack[-2:] if not isinstance(item, M.Null)][-1:]  # under a NULL (3.14+)
        if below and isinstance(below[0], M.BuildClass):
            return items[:1] + sim.exprs(items[1:], ins)
    return sim.exprs(items, ins)


def _folded_constants(item: Any, into_set: bool) -> List[ast.expr]:
    """The items of a tuple constant (a frozenset *into_set*) that the compiler may have made
    of a display's items (none: it cannot have)."""
    if isinstance(item, ast.Constant) and isinstance(item.value, tuple) and not into_set:
        items: List[ast.expr] = [ast.Constant(v) for v in item.value]
    elif isinstance(item, ast.Set) and getattr(item, "uncompile_const", False) and into_set:  # a frozenset
        items = list(item.elts)
    else:
        return []
    return items if len(items) >= V.SHORTEST_FOLDED_DISPLAY else []


def _unfold_constants(display: Any, unpacking: bool) -> None:
    """A display that started as constants folded into one (``[1, 2, 3]``) goes on with another
    item: unless the compiler folds the constants before a ``*item`` (3.14+) and *unpacking*
    is one, the folded constant was an unpacked one in the source (``[*(1, 2, 3), 4]``)."""
    folded = getattr(display, "uncompile_folded", None)
    if folded is None:
        return
    del display.uncompile_folded
    if not (unpacking and V.FOLDS_CONSTANTS_BEFORE_UNPACKING):
        display.elts[: len(_folded_constants(folded, isinstance(display, ast.Set)))] = [
            ast.Starred(folded, LOAD)
        ]


def _generic_base(node: ast.expr) -> bool:
    """The ``Generic[...]`` base the compiler adds to a generic class (its hidden name)."""
    return isinstance(node, ast.Name) and node.id == ".generic_base"


class _ComprehensionItem(ast.expr):
    """``LIST_APPEND``/``SET_ADD``/``MAP_ADD`` into a comprehension's result (internal)."""

    _fields = ("kind", "key", "value")

    def __init__(self, kind: str, key: ast.expr, value: Optional[ast.expr]) -> None:
        super().__init__()
        self.kind = kind
        self.key = key
        self.value = value


ComprehensionItem = _ComprehensionItem


def _in_comprehension(stack: Stack, depth: int) -> bool:
    """Whether a loop's iterator lies above the display at ``stack[-depth]`` (it is being built
    by a comprehension, not written out)."""
    return any(isinstance(v, M.Iterator) for v in stack[len(stack) - depth + 1 :])


def _keyword_display(node: ast.Dict) -> bool:
    """A dict display of ``name=value`` pairs: what ``f(*args, name=value)`` passes (no ``**``).

    ``f(*a, **{'k': v})`` merges the display into a fresh dict first, so a display that
    reaches ``CALL_FUNCTION_EX`` as it is was written as keyword arguments.
    """
    return bool(node.keys) and all(
        isinstance(k, ast.Constant) and isinstance(k.value, str) and k.value.isidentifier() for k in node.keys
    )


def _joined(spec: Optional[ast.expr]) -> Optional[ast.expr]:
    if spec is None:
        return None
    if isinstance(spec, ast.JoinedStr):
        return spec
    return ast.JoinedStr([spec])
