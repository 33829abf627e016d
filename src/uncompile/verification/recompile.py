"""Compile decompiled source back into a code object laid out like the original.

A function's bytecode depends on where it was defined: a name that is a local of an
enclosing function is a free variable (``LOAD_DEREF``), ``super()`` needs the class cell
``__class__``, and on 3.8-3.10 the qualified names of nested functions are constants. So
the decompiled source is compiled inside a scaffold that rebuilds the original nesting from
the qualified name (``Outer.method.<locals>.inner`` becomes ``class Outer`` / ``def
method`` / the decompiled ``def inner``), whose innermost enclosing function binds every
free variable of the code, so that each becomes a cell there. Where the qualified name
has no enclosing function or class to provide them, synthetic ones (``__uc_scope``,
``__uc_class``) are added and the qualified names they introduce are taken out again.
Code that uses ``__private`` names unmangled (Dynamo's resume functions of methods) gets
classes named ``_``, which mangle nothing, in place of its real enclosing classes.

From 3.11 on, ``module.function()`` compiles differently when ``module`` was bound by an
``import`` at module level (no method-call form); the names the original treats that way
are read off its bytecode and imported at the top of the scaffold.

The source is parsed to an :mod:`ast` and the scaffold built around the parsed statements,
so string literals are never re-indented. Line numbers are shifted so the code starts at
the original's ``co_firstlineno`` (or kept as they are in *source* when a *filename* for
that source is given, which is what a debugger wants). Finally the placeholders of
constants without a source form are bound back (:mod:`uncompile.verification.bind`) and the
closure variables put in the original's order (:mod:`uncompile.verification.closure`).
"""

from __future__ import annotations
import __future__

import ast
import dis
import inspect
import sys
from types import CodeType
from typing import Any, List, Optional, Set, Tuple

from ..errors import RecompileError
from ..expressions.stack_shuffles import is_dynamo_code
from .bind import bind_placeholders
from .closure import match_closure_layout
from .frame_layout import match_frame_layout

#: Names the compiler gives to the code of comprehensions and generator expressions.
COMPREHENSION_NAMES = frozenset({"<listcomp>", "<setcomp>", "<dictcomp>", "<genexpr>"})
#: The name the decompiler gives to the outer iterable (parameter ``.0``) of a comprehension.
OUTER_ITERABLE_NAME = "_0_"

_FUTURE_FLAGS = 0
for _feature in __future__.all_feature_names:
    _FUTURE_FLAGS |= getattr(__future__, _feature).compiler_flag
#: Flags taken from the original as they are: set at run time (``types.coroutine``), or
#: saying where the code was defined (3.14+ ``CO_METHOD``: directly in a class body; a
#: synthetic class around the code must not set it).
_COPIED_FLAGS = inspect.CO_ITERABLE_COROUTINE | getattr(inspect, "CO_METHOD", 0)
_NAME_LOADS = frozenset(
    {"LOAD_GLOBAL", "LOAD_NAME", "LOAD_FAST", "LOAD_FAST_CHECK", "LOAD_FAST_BORROW", "LOAD_DEREF"}
)
_SKIPPED = ("CACHE", "EXTENDED_ARG", "NOP", "NOT_TAKEN")
_SCOPE_NAME = "__uc_scope"
_CLASS_NAME = "__uc_class"
#: A class whose name is all underscores mangles no ``__private`` name.
_UNMANGLING_CLASS_NAME = "_"


def code_kind(code: CodeType) -> str:
    """What *code* is: ``module``, ``class``, ``lambda``, ``comprehension`` or ``function``."""
    if not code.co_flags & inspect.CO_OPTIMIZED:
        return "module" if code.co_name == "<module>" else "class"
    if code.co_name == "<lambda>":
        return "lambda"
    if code.co_name in COMPREHENSION_NAMES and code.co_varnames[:1] == (".0",):
        return "comprehension"
    return "function"


def qualname_of(code: CodeType) -> str:
    """The qualified name of *code*: ``co_qualname`` on 3.11+, else read off the code where it can be.

    On 3.8-3.10 a class body stores its ``__qualname__`` as a constant, and a function that
    defines nested functions holds their qualified names (``outer.<locals>.inner``) as
    constants; otherwise ``co_name`` is the best guess.
    """
    qualname = getattr(code, "co_qualname", None)
    if qualname is not None:
        return qualname
    strings = [const for const in code.co_consts if isinstance(const, str)]
    if code_kind(code) == "class":
        instructions = list(dis.get_instructions(code))
        for load, store in zip(instructions, instructions[1:]):
            if (
                store.opname == "STORE_NAME"
                and store.argval == "__qualname__"
                and load.opname == "LOAD_CONST"
            ):
                return str(load.argval)
    for child in code.co_consts:
        if isinstance(child, CodeType):
            suffix = ".<locals>." + child.co_name
            for text in strings:
                if text.endswith(suffix):
                    return text[: -len(suffix)]
    return code.co_name


class _Scope:
    """One level of the scaffold: a function or class that encloses the decompiled code."""

    def __init__(self, name: str, is_class: bool) -> None:
        self.name = name
        self.is_class = is_class
        self.is_async = False  # an ``async def`` (around an async comprehension)
        self.cells: List[str] = []

    def qualname_part(self) -> str:
        return self.name if self.is_class else self.name + ".<locals>"


def _scopes_from_qualname(qualname: str) -> List[_Scope]:
    """The enclosing scopes that *qualname* names, outermost first."""
    parts = qualname.split(".")[:-1]
    scopes: List[_Scope] = []
    position = 0
    while position < len(parts):
        name = parts[position]
        is_function = position + 1 < len(parts) and parts[position + 1] == "<locals>"
        is_function = is_function or name in COMPREHENSION_NAMES
        position += 2 if position + 1 < len(parts) and parts[position + 1] == "<locals>" else 1
        if not name.isidentifier():
            name = _SCOPE_NAME if is_function else _CLASS_NAME
        scopes.append(_Scope(name, not is_function))
    return scopes


def _plan_scaffold(code: CodeType, qualname: str) -> List[_Scope]:
    """The scopes to build around the decompiled code, with the cells each must define."""
    scopes = _scopes_from_qualname(qualname)
    if code.co_flags & inspect.CO_COROUTINE and code_kind(code) == "comprehension":
        # an async comprehension (or one that awaits) compiles only in an async function
        if not scopes or scopes[-1].is_class:
            scopes.append(_Scope(_SCOPE_NAME, is_class=False))
        scopes[-1].is_async = True
    free = [name for name in code.co_freevars if name != "__class__"]
    if "__class__" in code.co_freevars and not any(scope.is_class for scope in scopes):
        scopes.append(_Scope(_CLASS_NAME, is_class=True))
    if free:
        functions = [scope for scope in scopes if not scope.is_class]
        if not functions:
            scopes.insert(0, _Scope(_SCOPE_NAME, is_class=False))
            functions = scopes[:1]
        functions[-1].cells = free
    if any(scope.is_class for scope in scopes) and has_unmangled_private_names(code):
        for scope in scopes:
            if scope.is_class:
                scope.name = _UNMANGLING_CLASS_NAME
    return scopes


def has_unmangled_private_names(code: CodeType) -> bool:
    """True when *code* uses ``__private`` names as they are, which a class around it would mangle.

    Compiled from source inside a class, such names come out mangled (``_Class__private``);
    code made otherwise (Dynamo's resume functions take ``__nested_resume_fns``) keeps them.
    """
    pending = [code]
    while pending:
        current = pending.pop()
        pending.extend(const for const in current.co_consts if isinstance(const, CodeType))
        names = current.co_varnames + current.co_names + current.co_freevars + current.co_cellvars
        if any(name.startswith("__") and not name.endswith("__") for name in names):
            return True
    return False


def _parse(source: str, code: CodeType) -> ast.Module:
    try:
        return ast.parse(source, "<decompiled %s>" % qualname_of(code))
    except (SyntaxError, ValueError) as error:
        raise RecompileError(_syntax_message(code, error, source)) from error


def _syntax_message(code: CodeType, error: Exception, source: str) -> str:
    message = "decompiled source of %s does not compile: %s" % (qualname_of(code), error)
    line = getattr(error, "lineno", None)
    lines = source.splitlines()
    if isinstance(line, int) and 0 < line <= len(lines):
        message += ": %s" % lines[line - 1].strip()
    return message


def _shift_lines(tree: ast.Module, first_line: int) -> None:
    statements = tree.body
    if statements and first_line > 0:
        ast.increment_lineno(tree, first_line - statements[0].lineno)


def _is_method_load(instruction: dis.Instruction) -> bool:
    if instruction.opname == "LOAD_METHOD":
        return True
    return instruction.opname == "LOAD_ATTR" and sys.version_info >= (3, 12) and bool(instruction.arg & 1)


def _name_loaded(instruction: dis.Instruction) -> Optional[str]:
    if instruction.opname in _NAME_LOADS and isinstance(instruction.argval, str):
        return instruction.argval
    return None


def imported_module_names(code: CodeType) -> Set[str]:
    """Names that *code* treats as bound by a module-level ``import`` (3.11+).

    For such a name (CPython looks it up in the module's scope even when the code uses a
    local of that name), ``name.attribute(...)`` loads the attribute plainly and calls it
    without ``self`` (3.11, 3.12: ``PUSH_NULL; LOAD_FAST name; LOAD_ATTR`` or ``LOAD_GLOBAL
    NULL + name; LOAD_ATTR``; 3.13+: ``LOAD_FAST name; LOAD_ATTR; PUSH_NULL``) instead of
    using the method-call form. A name that is also called the method way is left out.
    """
    imported: Set[str] = set()
    methods: Set[str] = set()
    if sys.version_info < (3, 11):
        return imported
    pending = [code]
    while pending:
        current = pending.pop()
        pending.extend(const for const in current.co_consts if isinstance(const, CodeType))
        instructions = [ins for ins in dis.get_instructions(current) if ins.opname not in _SKIPPED]
        for position in range(1, len(instructions) - 2):
            name = _name_loaded(instructions[position])
            following = instructions[position + 1]
            if name is None or following.opname not in ("LOAD_ATTR", "LOAD_METHOD"):
                continue
            if _is_method_load(following):
                methods.add(name)
            elif sys.version_info >= (3, 13):
                if instructions[position + 2].opname == "PUSH_NULL":
                    imported.add(name)
            elif instructions[position - 1].opname == "PUSH_NULL" or (
                instructions[position].opname == "LOAD_GLOBAL" and instructions[position].arg & 1
            ):
                imported.add(name)
    return imported - methods


def _imports(names: Set[str], line: int) -> List[ast.stmt]:
    statements: List[ast.stmt] = [
        ast.Import(names=[ast.alias(name=name, asname=None)]) for name in sorted(names)
    ]
    for statement in statements:
        _place(statement, line)
    return statements


def _place(tree: ast.AST, line: int) -> None:
    """Give every node of *tree* that has no location yet the location *line*."""
    for node in ast.walk(tree):
        if "lineno" in node._attributes and not hasattr(node, "lineno"):
            for attribute, value in (
                ("lineno", line),
                ("col_offset", 0),
                ("end_lineno", line),
                ("end_col_offset", 0),
            ):
                setattr(node, attribute, value)


def _build(tree: ast.Module, scopes: List[_Scope], imports: Set[str]) -> ast.Module:
    """Wrap the statements of *tree* in *scopes* (outermost first), after importing *imports*."""
    line = tree.body[0].lineno if tree.body else 1
    body: List[ast.stmt] = list(tree.body)
    for scope in reversed(scopes):
        cells: List[ast.stmt] = [
            ast.Assign(targets=[ast.Name(id=name, ctx=ast.Store())], value=ast.Constant(value=None))
            for name in scope.cells
        ]
        statement: ast.stmt
        if scope.is_class:
            statement = ast.ClassDef(name=scope.name, bases=[], keywords=[], body=body, decorator_list=[])
        else:
            statement = (ast.AsyncFunctionDef if scope.is_async else ast.FunctionDef)(
                name=scope.name,
                args=_no_arguments(),
                body=cells + body,
                decorator_list=[],
                returns=None,
            )
        if sys.version_info >= (3, 12):
            statement.type_params = []  # type: ignore[attr-defined]
        _place(statement, line)
        body = [statement]
    return ast.Module(body=_imports(imports, line) + body, type_ignores=[])


def _no_arguments() -> ast.arguments:
    return ast.arguments(
        posonlyargs=[], args=[], vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[]
    )


def _last_named(code: CodeType, name: str) -> Optional[CodeType]:
    """The last code object called *name* in ``co_consts``, looking into 3.12+ type-parameter scopes."""
    found = None
    for const in code.co_consts:
        if isinstance(const, CodeType):
            if const.co_name == name:
                found = const
            elif const.co_name.startswith("<generic parameters of"):
                found = _last_named(const, name) or found
    return found


def _locate(module: CodeType, scopes: List[_Scope], name: str) -> Optional[CodeType]:
    current: Optional[CodeType] = module
    for scope in scopes:
        current = _last_named(current, scope.name) if current is not None else None
    return _last_named(current, name) if current is not None else None


def _rename_qualnames(code: CodeType, old: str, new: str) -> CodeType:
    """Replace the qualified-name prefix *old* by *new* in *code* and everything nested in it.

    Covers ``co_qualname`` (3.11+) and the qualified names that 3.8-3.10 functions and every
    class body keep as string constants.
    """

    def renamed(text: str) -> str:
        if text == old or text.startswith(old + "."):
            return new + text[len(old) :]
        return text

    consts: List[Any] = []
    for const in code.co_consts:
        if isinstance(const, CodeType):
            const = _rename_qualnames(const, old, new)
        elif isinstance(const, str):
            const = renamed(const)
        consts.append(const)
    changes: dict = {"co_consts": tuple(consts)}
    if hasattr(code, "co_qualname"):
        changes["co_qualname"] = renamed(code.co_qualname)
    return code.replace(**changes)


def _compiled_qualname(scopes: List[_Scope], name: str) -> str:
    return ".".join([scope.qualname_part() for scope in scopes] + [name])


def recompile(
    code: CodeType,
    *,
    source: Optional[str] = None,
    qualname: Optional[str] = None,
    filename: Optional[str] = None,
) -> CodeType:
    """Compile the decompiled source of *code* into a code object laid out like *code*.

    *source* defaults to ``decompile_code(code)``. *qualname* gives the qualified name on
    3.8-3.10, where code objects do not record it (default: ``co_name``). Without
    *filename*, the result has the original's ``co_filename`` and ``co_firstlineno``; with
    it, it has that file name and the line numbers of *source*. Raises
    :class:`~uncompile.errors.RecompileError` when the source does not compile.
    """
    if source is None:
        from ..decompiler import decompile_code

        source = decompile_code(code)
    if qualname is None:
        qualname = qualname_of(code)
    tree = _parse(source, code)
    if filename is None:
        _shift_lines(tree, code.co_firstlineno)
    kind = code_kind(code)
    scopes = [] if kind == "module" else _plan_scaffold(code, qualname)
    module_tree = _build(tree, scopes, set() if kind == "module" else imported_module_names(code))
    try:
        module = compile(
            module_tree,
            filename if filename is not None else code.co_filename,
            "exec",
            flags=code.co_flags & _FUTURE_FLAGS,
            dont_inherit=True,
        )
    except (SyntaxError, ValueError) as error:
        raise RecompileError(_syntax_message(code, error, source)) from error
    if kind == "module":
        result: Optional[CodeType] = module
    else:
        result = _locate(module, scopes, code.co_name)
        if result is None:
            raise RecompileError(
                "decompiled source of %s defines no %s named %s" % (qualname, kind, code.co_name)
            )
        compiled_name = getattr(result, "co_qualname", _compiled_qualname(scopes, code.co_name))
        if compiled_name != qualname:
            result = _rename_qualnames(result, compiled_name, qualname)
    assert result is not None
    result = match_closure_layout(code, result)
    if is_dynamo_code(code):  # Dynamo copies the frame's locals slot by slot into its code's frame
        result = match_frame_layout(code, result)
    result = bind_placeholders(code, result, qualname)
    if (result.co_flags ^ code.co_flags) & _COPIED_FLAGS:
        result = result.replace(co_flags=(result.co_flags & ~_COPIED_FLAGS) | (code.co_flags & _COPIED_FLAGS))
    return result


def scaffold_for(code: CodeType, qualname: Optional[str] = None) -> Tuple[str, ...]:
    """Describe the scaffold that :func:`recompile` builds around *code* (for messages and tests)."""
    scopes = _plan_scaffold(code, qualname or qualname_of(code))
    return tuple(
        ("class " if scope.is_class else "async def " if scope.is_async else "def ") + scope.name
        for scope in scopes
    )
