"""Printing expressions with the fewest parentheses that keep their meaning.

:meth:`ExpressionPrinter.expression` renders a node and wraps it in parentheses when its
own precedence is below what the surrounding syntax requires. The printer also writes
the pieces that statements share with expressions: argument lists, comprehension
clauses, subscripts, keywords and type parameters.

Optional fields are read with ``getattr(node, field, default)``: before Python 3.13 a node
built without one (``returns``, ``orelse``, ``keywords`` ...) has no such attribute at all,
and the printer treats it as absent.
"""

from __future__ import annotations

import ast
from ast import Attribute, Constant, Name
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from .fstrings import NESTING_IS_FREE, formatted_string
from .literals import SHORT_INT_BOUND, constant_literal, quoted
from .precedence import (
    BINARY_OPERATORS,
    BINARY_PRECEDENCE,
    BOOLEAN_OPERATORS,
    BOOLEAN_PRECEDENCE,
    COMPARISON_OPERATORS,
    UNARY_OPERATORS,
    UNARY_PRECEDENCE,
    Precedence,
    above,
)

Rendered = Tuple[str, int]

#: One level of indentation.
INDENT = "    "

_SET_CONTEXT_COMPARISONS = (ast.In, ast.NotIn)
_SET_CONTEXT_COMPARISON_KINDS = frozenset(_SET_CONTEXT_COMPARISONS)

#: The subscripts that subscript() writes otherwise than as an expression at TUPLE level.
_SUBSCRIPT_FORMS = frozenset(
    getattr(ast, name) for name in ("Slice", "Tuple", "Index", "ExtSlice") if hasattr(ast, name)
)

#: Call arguments written otherwise than as an expression at TEST level.
_ARGUMENTS_OF_THEIR_OWN = frozenset([ast.Starred, ast.NamedExpr, ast.GeneratorExp])


class MethodsByNode(Dict[type, Callable[..., Any]]):
    """Node class -> the method of a printer class named after it (``_Name`` for ``ast.Name``).

    Built once per printer class, so that finding the method for a node is one dictionary
    lookup; a node class made outside ``ast`` is looked up by its name on first use.
    """

    def __init__(self, owner: type, nodes: str) -> None:
        super().__init__()
        self.owner = owner
        self.nodes = nodes  # what the printer writes, for the error message
        for name in vars(owner):
            kind = getattr(ast, name[1:], None)
            if isinstance(kind, type) and issubclass(kind, ast.AST):
                self[kind] = getattr(owner, name)

    def __missing__(self, kind: type) -> Callable[..., Any]:
        method = getattr(self.owner, "_" + kind.__name__, None)
        if method is None:
            raise ValueError("cannot print %s node %s" % (self.nodes, kind.__name__))
        self[kind] = method
        return method


class ExpressionPrinter:
    """Renders ``ast.expr`` nodes (and argument lists, comprehensions, type parameters)."""

    __slots__ = ("forbidden_quotes", "indent")

    def __init__(self) -> None:
        #: Quotes of the f-strings being written around the current expression.
        self.forbidden_quotes: List[str] = []
        #: The indentation of the statement being written (set by the statement writer): a line
        #: broken inside the expression goes on one level deeper.
        self.indent = ""

    # -- entry points --------------------------------------------------------------

    def expression(self, node: ast.expr, minimum: int = Precedence.TEST) -> str:
        """*node* as source, parenthesized if its precedence is below *minimum*."""
        kind = type(node)
        # The commonest nodes first, written here without a call: atoms never need parentheses.
        # (``Name`` and the others are bound at import: ``ast.Name`` is a lookup per use before 3.11.)
        if kind is Name:
            return node.id  # type: ignore[attr-defined]
        if kind is Constant:
            value = node.value  # type: ignore[attr-defined]
            value_type = type(value)
            # a str outside f-string fields, without a ``u`` prefix: what constant_literal writes
            if value_type is str and not self.forbidden_quotes and getattr(node, "kind", None) != "u":
                literal = repr(value)
                return literal if "\\'" not in literal else quoted(value, literal)
            if value_type is int and 0 <= value < SHORT_INT_BOUND:
                return repr(value)
            if value is None or value_type is bool:
                return repr(value)
        elif kind is Attribute and type(node.value) is Name:  # type: ignore[attr-defined]
            return node.value.id + "." + node.attr  # type: ignore[attr-defined]  # self.x, os.path
        text, precedence = _RENDERERS[kind](self, node)
        return "(%s)" % text if precedence < minimum else text

    def iterable(self, node: ast.expr, minimum: int) -> str:
        """Like :meth:`expression` for something iterated over or tested with ``in``.

        There a frozenset constant comes from a set display, so it is written as one.
        """
        if isinstance(node, ast.Constant) and isinstance(node.value, frozenset) and node.value:
            return constant_literal(node.value, self.forbidden_quotes, as_set=True)[0]
        return self.expression(node, minimum)

    def target_list(self, node: ast.expr) -> str:
        """An assignment or ``for`` target: a tuple needs no parentheses there."""
        return self.expression(node, Precedence.TUPLE)

    # -- atoms ---------------------------------------------------------------------

    def _Name(self, node: ast.Name) -> Rendered:
        return node.id, Precedence.ATOM

    def _Constant(self, node: ast.Constant) -> Rendered:
        # Inside an f-string field before 3.12 no backslash may appear.
        without_backslash = bool(self.forbidden_quotes) and not NESTING_IS_FREE
        return constant_literal(
            node.value,
            self.forbidden_quotes,
            kind=getattr(node, "kind", None),
            without_backslash=without_backslash,
        )

    def _JoinedStr(self, node: ast.JoinedStr) -> Rendered:
        return formatted_string(self, node.values, "f"), Precedence.ATOM

    def _FormattedValue(self, node: ast.FormattedValue) -> Rendered:
        return formatted_string(self, [node], "f"), Precedence.ATOM

    def _TemplateStr(self, node: ast.expr) -> Rendered:
        return formatted_string(self, node.values, "t"), Precedence.ATOM  # type: ignore[attr-defined]

    def _Interpolation(self, node: ast.expr) -> Rendered:
        return formatted_string(self, [node], "t"), Precedence.ATOM

    def _Attribute(self, node: ast.Attribute) -> Rendered:
        inner = node.value
        value = self.expression(inner, Precedence.ATOM)
        if isinstance(inner, ast.Constant) and type(inner.value) is int and value[0] != "(":
            value = "(%s)" % value  # ``1.real`` would read as a float literal
        return value + "." + node.attr, Precedence.ATOM

    def _Subscript(self, node: ast.Subscript) -> Rendered:
        value = self.expression(node.value, Precedence.ATOM)
        index = node.slice
        if type(index) not in _SUBSCRIPT_FORMS:  # (most subscripts) what subscript() writes for them
            return "%s[%s]" % (value, self.expression(index, Precedence.TUPLE)), Precedence.ATOM
        return "%s[%s]" % (value, self.subscript(index)), Precedence.ATOM

    def subscript(self, node: ast.AST) -> str:
        """The text between the brackets of a subscript (slices, tuples, 3.8 Index/ExtSlice)."""
        if isinstance(node, ast.Slice):
            return self._slice_text(node)
        kind = type(node).__name__
        if kind == "Index":  # Python 3.8
            return self.subscript(node.value)  # type: ignore[attr-defined]
        if kind == "ExtSlice":  # Python 3.8
            return self._subscript_items(node.dims)  # type: ignore[attr-defined]
        if isinstance(node, ast.Tuple) and node.elts:
            if any(isinstance(item, ast.Slice) for item in node.elts):
                return self._subscript_items(node.elts)
            if any(isinstance(item, ast.Starred) for item in node.elts):
                return self.expression(node, Precedence.ATOM)  # a[*b] only from 3.11
        assert isinstance(node, ast.expr)
        return self.expression(node, Precedence.TUPLE)

    def _subscript_items(self, items: Sequence[ast.AST]) -> str:
        text = ", ".join([self.subscript(item) for item in items])
        return text + "," if len(items) == 1 else text

    def _slice_text(self, node: ast.Slice) -> str:
        bounds = [getattr(node, name, None) for name in ("lower", "upper", "step")]
        texts = ["" if bound is None else self.expression(bound) for bound in bounds]
        return ":".join(texts if bounds[2] is not None else texts[:2])

    def _Slice(self, node: ast.Slice) -> Rendered:
        return self._slice_text(node), Precedence.ATOM

    def _Call(self, node: ast.Call) -> Rendered:
        func = node.func
        kind = type(func)
        if kind is Name:
            function = func.id  # type: ignore[attr-defined]
        elif kind is Attribute and type(func.value) is Name:  # type: ignore[attr-defined]
            function = func.value.id + "." + func.attr  # type: ignore[attr-defined]  # self.f(), os.path.join()
        else:
            function = self.expression(func, Precedence.ATOM)
        try:  # (faster than two getattr calls: a node built by the decompiler has both fields)
            args, keywords = node.args, node.keywords
        except AttributeError:
            args, keywords = getattr(node, "args", []), getattr(node, "keywords", [])
        if not (args or keywords):
            return function + "()", Precedence.ATOM
        return function + "(" + self.call_arguments(args, keywords) + ")", Precedence.ATOM

    def call_arguments(self, args: Sequence[ast.expr], keywords: Sequence[ast.keyword]) -> str:
        """The inside of a call's (or a class definition's) parentheses."""
        pieces = []
        for arg in args:
            kind = type(arg)
            if kind is Name:
                pieces.append(arg.id)  # type: ignore[attr-defined]
            elif kind not in _ARGUMENTS_OF_THEIR_OWN:
                pieces.append(self.expression(arg))
            elif kind is ast.Starred:
                pieces.append("*" + self.expression(arg.value))  # type: ignore[attr-defined]
            elif kind is ast.NamedExpr:  # a named_expression, as the grammar says
                pieces.append(self._NamedExpr(arg)[0])  # type: ignore[arg-type]
            elif len(args) == 1 and not keywords:  # ``f(x for x in y)``: the call's parentheses serve
                return self._comprehension_body(arg)
            else:
                pieces.append(self.expression(arg))
        for keyword in keywords:
            pieces.append(self.keyword(keyword))
        return ", ".join(pieces)

    def named_expression(self, node: ast.expr) -> str:
        """Where the grammar says ``named_expression`` (tests, call arguments, decorators).

        An assignment expression needs no parentheses there; anything looser than a
        conditional expression (a tuple, ``yield``) still does.
        """
        if type(node) is ast.NamedExpr:
            return self._NamedExpr(node)[0]
        return self.expression(node)

    def keyword(self, node: ast.keyword) -> str:
        """``name=value`` or ``**mapping``."""
        name = getattr(node, "arg", None)
        if name is None:
            return "**" + self.expression(node.value)
        return name + "=" + self.expression(node.value)

    # -- displays and comprehensions ----------------------------------------------

    def _Tuple(self, node: ast.Tuple) -> Rendered:
        items = [self.expression(item) for item in node.elts]
        if not items:
            return "()", Precedence.ATOM
        if len(items) == 1:
            return "(%s,)" % items[0], Precedence.ATOM
        return ", ".join(items), Precedence.TUPLE

    def _List(self, node: ast.List) -> Rendered:
        return "[%s]" % ", ".join([self.expression(item) for item in node.elts]), Precedence.ATOM

    def _Set(self, node: ast.Set) -> Rendered:
        if not node.elts:
            return "{*()}", Precedence.ATOM
        return "{%s}" % ", ".join([self.expression(item) for item in node.elts]), Precedence.ATOM

    def _Dict(self, node: ast.Dict) -> Rendered:
        items = []
        for key, value in zip(node.keys, node.values):
            if key is None:
                items.append("**" + self.expression(value, Precedence.BOR))
            else:
                items.append("%s: %s" % (self.expression(key), self.expression(value)))
        return "{%s}" % ", ".join(items), Precedence.ATOM

    def _Starred(self, node: ast.Starred) -> Rendered:
        return "*" + self.expression(node.value, Precedence.BOR), Precedence.ATOM

    def _ListComp(self, node: ast.ListComp) -> Rendered:
        return "[%s]" % self._comprehension_body(node), Precedence.ATOM

    def _SetComp(self, node: ast.SetComp) -> Rendered:
        return "{%s}" % self._comprehension_body(node), Precedence.ATOM

    def _GeneratorExp(self, node: ast.GeneratorExp) -> Rendered:
        return "(%s)" % self._comprehension_body(node), Precedence.ATOM

    def _DictComp(self, node: ast.DictComp) -> Rendered:
        return "{%s}" % self._comprehension_body(node), Precedence.ATOM

    def _comprehension_body(self, node: ast.expr) -> str:
        if isinstance(node, ast.DictComp):
            if node.value is None:  # 3.15: {**d for d in ds}
                head = "**" + self.expression(node.key, Precedence.BOR)
            else:
                head = "%s: %s" % (self.expression(node.key), self.expression(node.value))
        else:
            head = self.expression(node.elt)  # type: ignore[attr-defined]
        clauses = "".join([self._comprehension_clause(clause) for clause in node.generators])  # type: ignore
        return head + clauses

    def _comprehension_clause(self, node: ast.comprehension) -> str:
        text = " async for " if getattr(node, "is_async", None) else " for "
        text += self.target_list(node.target) + " in " + self.iterable(node.iter, Precedence.OR)
        # (3.10 - 3.12: tests written on another line than the element compile otherwise, see
        # versions.THREADS_JUMPS_ON_ONE_LINE_ONLY)
        before = (
            "\n%s%sif " % (self.indent, INDENT) if getattr(node, "uncompile_ifs_below", False) else " if "
        )
        for condition in getattr(node, "ifs", ()):
            text += before + self.expression(condition, Precedence.OR)
        return text

    # -- operators -----------------------------------------------------------------

    def _BinOp(self, node: ast.BinOp) -> Rendered:
        operator = type(node.op)
        precedence = BINARY_PRECEDENCE[operator]
        if operator is ast.Pow:  # right-associative; a unary operand binds looser on the left only
            base = self.expression(node.left, Precedence.AWAIT)
            return "%s ** %s" % (base, self.expression(node.right, Precedence.FACTOR)), precedence
        left = node.left
        if type(left) is not ast.BinOp:  # (most operations: no chain, written directly)
            text = self.expression(left, precedence) + " " + BINARY_OPERATORS[operator] + " "
            return text + self.expression(node.right, precedence + 1), precedence
        # Walk down a left-leaning chain (a + b - c + ...) without recursing once per operator.
        tail: List[Tuple[str, ast.expr]] = []
        current: ast.expr = node
        # (``**`` is the only operator at its level, so the chain never holds one.)
        while isinstance(current, ast.BinOp) and BINARY_PRECEDENCE[type(current.op)] == precedence:
            tail.append((BINARY_OPERATORS[type(current.op)], current.right))
            current = current.left
        pieces = [self.expression(current, precedence)]
        right_operand = precedence + 1  # the next tighter level (binary levels lie below ATOM)
        for symbol, right in reversed(tail):
            pieces.append(symbol)
            pieces.append(self.expression(right, right_operand))
        return " ".join(pieces), precedence

    def _UnaryOp(self, node: ast.UnaryOp) -> Rendered:
        operator = type(node.op)
        precedence = UNARY_PRECEDENCE[operator]
        return UNARY_OPERATORS[operator] + self.expression(node.operand, precedence), precedence

    def _BoolOp(self, node: ast.BoolOp) -> Rendered:
        precedence = BOOLEAN_PRECEDENCE[type(node.op)]
        separator = " %s " % BOOLEAN_OPERATORS[type(node.op)]
        operand = above(precedence)
        return separator.join([self.expression(value, operand) for value in node.values]), precedence

    def _Compare(self, node: ast.Compare) -> Rendered:
        ops = node.ops
        if len(ops) == 1 and type(ops[0]) not in _SET_CONTEXT_COMPARISON_KINDS:  # (most comparisons)
            left = self.expression(node.left, Precedence.BOR)
            right = self.expression(node.comparators[0], Precedence.BOR)
            return left + " " + COMPARISON_OPERATORS[type(ops[0])] + " " + right, Precedence.CMP
        pieces = [self.expression(node.left, Precedence.BOR)]
        for operator, comparator in zip(node.ops, node.comparators):
            pieces.append(COMPARISON_OPERATORS[type(operator)])
            if isinstance(operator, _SET_CONTEXT_COMPARISONS):
                pieces.append(self.iterable(comparator, Precedence.BOR))
            else:
                pieces.append(self.expression(comparator, Precedence.BOR))
        return " ".join(pieces), Precedence.CMP

    def _IfExp(self, node: ast.IfExp) -> Rendered:
        body = self.expression(node.body, Precedence.OR)
        test = self.expression(node.test, Precedence.OR)
        orelse = self.expression(node.orelse, Precedence.TEST)
        return "%s if %s else %s" % (body, test, orelse), Precedence.TEST

    def _Lambda(self, node: ast.Lambda) -> Rendered:
        arguments = self.arguments(node.args, annotations=False)
        head = "lambda " + arguments if arguments else "lambda"
        return "%s: %s" % (head, self.expression(node.body)), Precedence.TEST

    def _NamedExpr(self, node: ast.NamedExpr) -> Rendered:
        target = self.expression(node.target, Precedence.ATOM)
        return "%s := %s" % (target, self.expression(node.value)), Precedence.NAMED_EXPR

    def _Await(self, node: ast.Await) -> Rendered:
        return "await " + self.expression(node.value, Precedence.ATOM), Precedence.AWAIT

    def _Yield(self, node: ast.Yield) -> Rendered:
        value = getattr(node, "value", None)
        if value is None:
            return "yield", Precedence.YIELD
        return "yield " + self.expression(value, Precedence.TUPLE), Precedence.YIELD

    def _YieldFrom(self, node: ast.YieldFrom) -> Rendered:
        return "yield from " + self.expression(node.value), Precedence.YIELD

    # -- parameters ----------------------------------------------------------------

    def arguments(self, node: ast.arguments, annotations: bool = True) -> str:
        """A parameter list: positional-only ``/``, defaults, ``*args``, keyword-only, ``**kw``."""
        try:  # (faster than a getattr call per field: a node built by the decompiler has them all)
            positional_only, positional, defaults = node.posonlyargs, node.args, node.defaults
            vararg, keyword_only, kwarg = node.vararg, node.kwonlyargs, node.kwarg
        except AttributeError:
            positional_only, positional = getattr(node, "posonlyargs", []), getattr(node, "args", [])
            defaults, keyword_only = getattr(node, "defaults", []), getattr(node, "kwonlyargs", [])
            vararg, kwarg = getattr(node, "vararg", None), getattr(node, "kwarg", None)
        if positional_only:
            positional = [*positional_only, *positional]
        pieces = self._parameters(positional, defaults, annotations)
        if positional_only:
            pieces.insert(len(positional_only), "/")
        if vararg is not None:
            pieces.append("*" + self._parameters([vararg], (), annotations)[0])
        if keyword_only:
            if vararg is None:
                pieces.append("*")
            keyword_defaults = list(getattr(node, "kw_defaults", ()))  # one per parameter, None for none
            keyword_defaults += [None] * (len(keyword_only) - len(keyword_defaults))
            pieces += self._parameters(keyword_only, keyword_defaults, annotations)
        if kwarg is not None:
            pieces.append("**" + self._parameters([kwarg], (), annotations)[0])
        return ", ".join(pieces)

    def _parameters(
        self, params: Sequence[ast.arg], defaults: Sequence[Optional[ast.expr]], annotations: bool
    ) -> List[str]:
        """Each of *params* as ``name``, ``name=default`` or ``name: annotation = default``.

        The last ``len(defaults)`` parameters have the *defaults* (a None there: no default).
        """
        pieces = []
        first_default = len(params) - len(defaults)
        for index, arg in enumerate(params):
            text = arg.arg
            annotation = getattr(arg, "annotation", None) if annotations else None
            if annotation is not None:
                text += ": " + self.expression(annotation)
            if index >= first_default:
                default = defaults[index - first_default]
                if default is not None:
                    text += (" = " if annotation is not None else "=") + self.expression(default)
            pieces.append(text)
        return pieces

    def type_parameters(self, params: Optional[List[ast.AST]]) -> str:
        """``[T: bound = default, *Ts, **P]`` (Python 3.12+), or nothing."""
        if not params:
            return ""
        return "[%s]" % ", ".join([self._type_parameter(param) for param in params])

    def _type_parameter(self, node: ast.AST) -> str:
        kind = type(node).__name__
        prefix = {"TypeVar": "", "TypeVarTuple": "*", "ParamSpec": "**"}[kind]
        text = prefix + node.name  # type: ignore[attr-defined]
        bound = getattr(node, "bound", None)
        if bound is not None:
            text += ": " + self.expression(bound)
        default = getattr(node, "default_value", None)
        if default is not None:
            text += " = " + self.expression(default)
        return text


#: Node class -> the method that renders it: ``_Name`` renders ``ast.Name``.
_RENDERERS = MethodsByNode(ExpressionPrinter, "expression")
