"""Python source from an ``ast`` tree, with the output lines of every statement.

:func:`emit` prints a module (or any statement or expression) and reports, for every
statement node it printed, nested ones included, the first and last 1-based line it
occupies; the debugger maps bytecode offsets to those lines. :func:`to_source` returns
the text alone. Works on the ASTs of Python 3.8 through 3.15 and needs no ``ast.unparse``.

A statement's span starts at its first decorator, if any, and ends at the last line of
its last nested block. Exception handlers and ``case`` blocks get spans too.
"""

from __future__ import annotations

import ast
from ast import If, Name, NamedExpr
from typing import Dict, List, NamedTuple, Optional, Sequence, Tuple, Union

from .expressions import INDENT, ExpressionPrinter, MethodsByNode
from .literals import (
    CLEANS_DOCSTRINGS,
    KEEPS_DOCSTRINGS,
    cleaned_docstring,
    docstring_compiles_to,
    docstring_literal,
)
from .patterns import pattern_source
from .precedence import BINARY_OPERATORS, Precedence

_DEFINITIONS = frozenset([ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef])
#: Around definitions: one blank line in a block, two at the top level.
_BLANK_LINES, _TOP_LEVEL_BLANK_LINES = ("",), ("", "")


class Emitted(NamedTuple):
    """Printed source and the output lines of each statement."""

    text: str
    #: (first, last) 1-based output line of every statement node (and handler/case).
    spans: Dict[ast.AST, Tuple[int, int]]


def emit(tree: Union[ast.AST, List[ast.stmt]]) -> Emitted:
    """Print *tree* (a module, a statement, a list of statements or an expression)."""
    writer = _StatementWriter(record_spans=True)
    text = _write(writer, tree)
    return Emitted(text, _physical_spans(writer.spans, writer.lines))


def to_source(tree: Union[ast.AST, List[ast.stmt]]) -> str:
    """Python source for *tree*; see :func:`emit`."""
    return _write(_StatementWriter(record_spans=False), tree)


def _write(writer: _StatementWriter, tree: Union[ast.AST, List[ast.stmt]]) -> str:
    if isinstance(tree, list):
        if tree:
            writer.body(tree)
    elif isinstance(tree, (ast.Module, ast.Interactive)):
        if tree.body:
            writer.body(tree.body, docstring=isinstance(tree, ast.Module))
    elif isinstance(tree, ast.Expression):
        writer.line(writer.expressions.expression(tree.body, Precedence.TUPLE))
    elif isinstance(tree, ast.expr):
        writer.line(writer.expressions.expression(tree, Precedence.TUPLE))
    elif isinstance(tree, (ast.stmt, ast.excepthandler)) or type(tree).__name__ == "match_case":
        writer.statement(tree)
    else:
        raise ValueError("cannot print %s" % type(tree).__name__)
    text = "\n".join(writer.lines)
    return text + "\n" if text else ""


class _StatementWriter:
    """Writes statements line by line, tracking indentation and each statement's span."""

    __slots__ = ("expressions", "lines", "spans", "record_spans", "indent", "expression")

    def __init__(self, record_spans: bool) -> None:
        self.expressions = ExpressionPrinter()
        #: Logical lines, indented: their count is the number of the last one. A line holding a
        #: string literal in triple quotes (a docstring) spans several physical lines.
        self.lines: List[str] = []
        #: (first, last) 1-based logical line of each statement, filled only when *record_spans*
        #: (:func:`to_source` has no use for them); :func:`emit` turns them into physical lines.
        self.spans: Dict[ast.AST, Tuple[int, int]] = {}
        self.record_spans = record_spans
        self.indent = ""  # INDENT once per enclosing block
        #: *node* as source, parenthesized below the precedence *minimum* (TEST if not given).
        self.expression = self.expressions.expression

    # -- layout --------------------------------------------------------------------

    def line(self, text: str) -> None:
        """Append one logical line at the current indentation."""
        self.lines.append(self.indent + text)

    def statement(self, node: ast.AST) -> None:
        """Write *node* and record its span."""
        self.body((node,))  # type: ignore[arg-type]

    def body(self, statements: Sequence[ast.stmt], docstring: bool = False) -> None:
        """Write a sequence of statements at the current depth (``pass`` if there are none),
        recording the span of each (for :func:`emit`); with *docstring*, a string first is written
        as one."""
        self.block(None, statements, docstring)

    def block(self, header: Optional[str], statements: Sequence[ast.stmt], docstring: bool = False) -> None:
        """``header:`` followed by the indented *statements* (see :meth:`body`; with no *header*,
        the statements at the current depth).

        A simple statement's writer returns its logical line, appended here (without a call to
        :meth:`line` per line); a compound statement's writer writes its lines itself (its
        blocks through this method, which writes the header too: one call per block) and
        returns None.
        """
        outer = indent = self.indent
        lines = self.lines
        if header is not None:
            lines.append(outer + header + ":")
            self.indent = indent = outer + INDENT
        if not statements:
            lines.append(indent + "pass")
            self.indent = outer
            return
        expressions = self.expressions
        expressions.indent = indent  # (where a line break inside an expression indents to)
        spans, record_spans = self.spans, self.record_spans
        after_definition = False
        start = len(lines)  # (every statement writes at least one line)
        writers = _WRITERS
        for node in statements:
            kind = type(node)
            if kind in _DEFINITIONS:  # (rare: the common statements take the two tests alone)
                if len(lines) > start:
                    lines.extend(_BLANK_LINES if indent else _TOP_LEVEL_BLANK_LINES)
                after_definition = True
            elif after_definition:
                lines.extend(_BLANK_LINES if indent else _TOP_LEVEL_BLANK_LINES)
                after_definition = False
            if record_spans:
                first = len(lines) + 1
            if docstring:  # only the first statement can be the docstring
                docstring = False
                if kind is ast.Expr and _is_docstring(node):
                    lines.append(indent + self._docstring(node))  # type: ignore[arg-type]
                    if record_spans:
                        spans[node] = (first, len(lines))
                    continue
            text = writers[kind](self, node)
            if text is not None:
                lines.append(indent + text)
            if record_spans:
                spans[node] = (first, len(lines))
        self.indent = expressions.indent = outer

    def _docstring(self, node: ast.Expr) -> str:
        constant = node.value
        assert isinstance(constant, ast.Constant) and isinstance(constant.value, str)
        prefix = "u" if getattr(constant, "kind", None) == "u" else ""
        return _docstring_text(constant.value, prefix, self.indent)

    # -- simple statements ---------------------------------------------------------

    def _Expr(self, node: ast.Expr) -> str:
        return self.expression(node.value, Precedence.YIELD)

    def _Assign(self, node: ast.Assign) -> str:
        # Target lists: a tuple needs no parentheses there.
        value = self.expression(node.value, Precedence.YIELD)
        if len(node.targets) == 1:  # the commonest, and most often a name
            target = node.targets[0]
            return (
                (target.id if type(target) is Name else self.expression(target, Precedence.TUPLE))
                + " = "
                + value
            )
        targets = [self.expression(target, Precedence.TUPLE) for target in node.targets]
        targets.append(value)
        return " = ".join(targets)

    def _AugAssign(self, node: ast.AugAssign) -> str:
        operator = BINARY_OPERATORS[type(node.op)]
        target = self.expression(node.target)
        return "%s %s= %s" % (target, operator, self.expression(node.value, Precedence.YIELD))

    def _AnnAssign(self, node: ast.AnnAssign) -> str:
        target = self.expression(node.target, Precedence.ATOM)
        if not node.simple and isinstance(node.target, ast.Name):
            target = "(%s)" % target
        text = "%s: %s" % (target, self.expression(node.annotation))
        if getattr(node, "value", None) is not None:
            text += " = " + self.expression(node.value, Precedence.YIELD)  # type: ignore[arg-type]
        return text

    def _Return(self, node: ast.Return) -> str:
        value = getattr(node, "value", None)
        return "return" if value is None else "return " + self.expression(value, Precedence.TUPLE)

    def _Delete(self, node: ast.Delete) -> str:
        return "del " + ", ".join([self.expression(target) for target in node.targets])

    def _Pass(self, node: ast.Pass) -> str:
        return "pass"

    def _Break(self, node: ast.Break) -> str:
        return "break"

    def _Continue(self, node: ast.Continue) -> str:
        return "continue"

    def _Global(self, node: ast.Global) -> str:
        return "global " + ", ".join(node.names)

    def _Nonlocal(self, node: ast.Nonlocal) -> str:
        return "nonlocal " + ", ".join(node.names)

    def _Assert(self, node: ast.Assert) -> str:
        text = "assert " + self.expression(node.test)
        if getattr(node, "msg", None) is not None:
            text += ", " + self.expression(node.msg)  # type: ignore[arg-type]
        return text

    def _Raise(self, node: ast.Raise) -> str:
        text = "raise"
        exception, cause = getattr(node, "exc", None), getattr(node, "cause", None)
        if exception is not None:
            text += " " + self.expression(exception)
        if cause is not None:
            text += " from " + self.expression(cause)
        return text

    def _Import(self, node: ast.Import) -> str:
        return _lazy(node) + "import " + ", ".join([_alias(name) for name in node.names])

    def _ImportFrom(self, node: ast.ImportFrom) -> str:
        module = "." * (getattr(node, "level", None) or 0) + (getattr(node, "module", None) or "")
        names = ", ".join([_alias(name) for name in node.names])
        return "%sfrom %s import %s" % (_lazy(node), module, names)

    def _TypeAlias(self, node: ast.stmt) -> str:
        name = self.expression(node.name)  # type: ignore[attr-defined]
        params = self.expressions.type_parameters(getattr(node, "type_params", None))
        return "type %s%s = %s" % (name, params, self.expression(node.value))  # type: ignore

    # -- compound statements -------------------------------------------------------

    def _If(self, node: ast.If) -> None:
        # An ``else`` holding nothing but an ``if`` is an ``elif``; long chains are walked in a loop.
        chain: List[Tuple[ast.If, int]] = []
        keyword = "if "
        while True:
            test = node.test
            if type(test) is NamedExpr:  # (a named_expression there, as the grammar says)
                self.block(keyword + self.expressions.named_expression(test), node.body)
            else:  # (the commonest test: no call to named_expression)
                self.block(keyword + self.expression(test), node.body)
            orelse: Sequence[ast.stmt] = getattr(node, "orelse", None) or ()
            if not orelse or len(orelse) != 1 or not isinstance(orelse[0], If):
                break
            node, keyword = orelse[0], "elif "
            chain.append((node, len(self.lines) + 1))
        if orelse:
            self.block("else", orelse)
        if self.record_spans:
            for nested, first in chain:
                self.spans[nested] = (first, len(self.lines))

    def _While(self, node: ast.While) -> None:
        self.block("while " + self.expressions.named_expression(node.test), node.body)
        self._else(node)

    def _For(self, node: ast.For, keyword: str = "for") -> None:
        target = self.expressions.target_list(node.target)
        iterated = node.iter
        minimum = Precedence.TUPLE
        if isinstance(iterated, ast.Tuple) and any(isinstance(item, ast.Starred) for item in iterated.elts):
            minimum = Precedence.ATOM  # ``for x in *a, b`` needs 3.9
        header = "%s %s in %s" % (keyword, target, self.expressions.iterable(iterated, minimum))
        self.block(header, node.body)
        self._else(node)

    def _AsyncFor(self, node: ast.AsyncFor) -> None:
        self._For(node, "async for")  # type: ignore[arg-type]

    def _With(self, node: ast.With, keyword: str = "with") -> None:
        items = [self._with_item(item) for item in node.items]
        only = node.items[0] if len(node.items) == 1 else None
        if only is not None and only.optional_vars is None and _is_tuple(only.context_expr):
            items = ["(%s)" % items[0]]  # ``with (a, b):`` would mean two context managers
        self.block("%s %s" % (keyword, ", ".join(items)), node.body)

    def _AsyncWith(self, node: ast.AsyncWith) -> None:
        self._With(node, "async with")  # type: ignore[arg-type]

    def _with_item(self, item: ast.withitem) -> str:
        text = self.expression(item.context_expr)
        if getattr(item, "optional_vars", None) is not None:
            text += " as " + self.expression(item.optional_vars)  # type: ignore[arg-type]
        return text

    def _Try(self, node: ast.Try, star: str = "") -> None:
        self.block("try", node.body)
        for handler in getattr(node, "handlers", ()):
            first = len(self.lines) + 1
            self._ExceptHandler(handler, star)
            if self.record_spans:
                self.spans[handler] = (first, len(self.lines))
        self._else(node)
        if getattr(node, "finalbody", None):
            self.block("finally", node.finalbody)

    def _else(self, node: ast.stmt) -> None:
        if getattr(node, "orelse", None):
            self.block("else", node.orelse)  # type: ignore[attr-defined]

    def _TryStar(self, node: ast.Try) -> None:
        self._Try(node, "*")

    def _ExceptHandler(self, node: ast.ExceptHandler, star: str = "") -> None:
        header = "except" + star
        if getattr(node, "type", None) is not None:
            header += " " + self.expression(node.type)  # type: ignore[arg-type]
            if getattr(node, "name", None) is not None:
                header += " as " + node.name  # type: ignore[operator]
        self.block(header, node.body)

    def _FunctionDef(self, node: ast.FunctionDef, keyword: str = "def") -> None:
        decorators, params = getattr(node, "decorator_list", None), getattr(node, "type_params", None)
        if decorators:
            self._decorators(decorators)
        params = self.expressions.type_parameters(params) if params else ""
        header = "%s %s%s(%s)" % (keyword, node.name, params, self.expressions.arguments(node.args))
        if getattr(node, "returns", None) is not None:
            header += " -> " + self.expression(node.returns)  # type: ignore[arg-type]
        self.block(header, node.body, docstring=True)

    def _AsyncFunctionDef(self, node: ast.AsyncFunctionDef) -> None:
        self._FunctionDef(node, "async def")  # type: ignore[arg-type]

    def _ClassDef(self, node: ast.ClassDef) -> None:
        decorators, params = getattr(node, "decorator_list", None), getattr(node, "type_params", None)
        if decorators:
            self._decorators(decorators)
        header = "class " + node.name + (self.expressions.type_parameters(params) if params else "")
        bases, keywords = getattr(node, "bases", ()), getattr(node, "keywords", ())
        if bases or keywords:
            header += "(%s)" % self.expressions.call_arguments(bases, keywords)
        self.block(header, node.body, docstring=True)

    def _decorators(self, decorators: List[ast.expr]) -> None:
        for decorator in decorators:
            self.line("@" + self.expressions.named_expression(decorator))

    def _Match(self, node: ast.stmt) -> None:
        self.line("match %s:" % self.expression(node.subject, Precedence.TUPLE))  # type: ignore
        outer = self.indent
        self.indent = outer + INDENT
        for case in node.cases:  # type: ignore[attr-defined]
            self.statement(case)
        self.indent = self.expressions.indent = outer

    def _match_case(self, node: ast.AST) -> None:
        header = "case " + pattern_source(self.expressions, node.pattern)  # type: ignore[attr-defined]
        guard = getattr(node, "guard", None)
        if guard is not None:
            header += " if " + self.expressions.named_expression(guard)
        self.block(header, node.body)  # type: ignore[attr-defined]


#: Node class -> the method that writes it: ``_If`` writes ``ast.If``.
_WRITERS = MethodsByNode(_StatementWriter, "statement")


def _physical_spans(
    spans: Dict[ast.AST, Tuple[int, int]], lines: List[str]
) -> Dict[ast.AST, Tuple[int, int]]:
    """*spans* in physical lines: a logical line holding line breaks (a string in triple quotes)
    moves every line after it down."""
    if not any("\n" in text for text in lines):
        return spans
    last_physical = []  # of each logical line
    count = 0
    for text in lines:
        count += text.count("\n") + 1
        last_physical.append(count)
    first_physical = [1] + [last + 1 for last in last_physical[:-1]]
    return {
        node: (first_physical[first - 1], last_physical[last - 1]) for node, (first, last) in spans.items()
    }


def _is_docstring(node: ast.stmt) -> bool:
    return (
        isinstance(node, ast.Expr)
        and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str)
    )


def _is_tuple(node: ast.expr) -> bool:
    if isinstance(node, ast.Tuple):
        return True
    return isinstance(node, ast.Constant) and isinstance(node.value, tuple) and len(node.value) > 1


def _alias(node: ast.alias) -> str:
    asname = getattr(node, "asname", None)
    return node.name if asname is None else "%s as %s" % (node.name, asname)


def _lazy(node: ast.stmt) -> str:
    return "lazy " if getattr(node, "is_lazy", 0) else ""


def _docstring_text(text: str, prefix: str, indent: str) -> str:
    """The literal for a docstring written at *indent*.

    Python 3.13+ strips the common indentation of docstrings when compiling, so a
    docstring read back from bytecode has none; it is re-indented to sit with the code
    when the compiler would keep the same value.
    """
    literal = docstring_literal(text, prefix)
    if not (CLEANS_DOCSTRINGS and indent and "\n" in text):
        return literal
    lines = text.split("\n")
    if any(line[:1] not in (" ", "") for line in lines[1:]) or all(not line.strip() for line in lines[1:]):
        expected = _compiled_docstring(text, literal)
        for candidate in _reindented(lines, indent):
            candidate_literal = docstring_literal(candidate, prefix)
            if _compiled_docstring(candidate, candidate_literal) == expected:
                return candidate_literal
    return literal


def _compiled_docstring(text: str, literal: str) -> object:
    """What the docstring *literal*, of value *text*, compiles to (the compiler is asked only
    when it drops docstrings)."""
    return cleaned_docstring(text) if KEEPS_DOCSTRINGS else docstring_compiles_to(literal)


def _reindented(lines: List[str], indent: str) -> List[str]:
    """Candidates: non-blank lines indented, plus the closing line (quotes aligned) or not."""
    middle = "".join("\n" + (indent + line if line.strip() else line) for line in lines[1:-1])
    last = lines[-1]
    return [
        lines[0] + middle + "\n" + indent + last,
        lines[0] + middle + "\n" + (indent + last if last.strip() else last),
    ]
