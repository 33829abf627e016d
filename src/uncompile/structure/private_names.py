"""Private names written as in the source: ``self.__x`` rather than ``self._Class__x``.

Inside a class the compiler mangles every ``__private`` identifier (names, attributes,
parameters, imports, ``global`` declarations; not keyword arguments) to ``_Class__private``.
The decompiled source writes them unmangled again: compiled inside the same class they come
out the same, and 3.13+ ``__static_attributes__`` (the attributes a method stores on
``self``, recorded unmangled) match. The class that mangles a code object's names is read
off its qualified name (``co_qualname``, 3.11+); without one the names stay as stored.
"""

from __future__ import annotations

import ast
import inspect
from types import CodeType
from typing import Iterable, Iterator, Optional


def mangling_class(code: CodeType) -> Optional[str]:
    """The name of the innermost class around *code* (itself, for a class body), if known."""
    qualname = getattr(code, "co_qualname", None)
    if not qualname or code.co_name == "<module>":
        return None
    parts = qualname.split(".")
    if code.co_flags & inspect.CO_NEWLOCALS:  # a function: look outside it
        parts = parts[:-1]
    for i in range(len(parts) - 1, -1, -1):
        follows = parts[i + 1] if i + 1 < len(parts) else None
        if parts[i] != "<locals>" and follows != "<locals>":
            return parts[i]
    return None


def _mentions(code: CodeType, mangled: str) -> bool:
    """Whether *code* or a code object in it stores a name that starts with *mangled*."""
    names = code.co_names + code.co_varnames + code.co_cellvars + code.co_freevars
    if ("\n" + "\n".join(names)).find("\n" + mangled) >= 0:  # a name that starts with it, at C speed
        return True
    return any(isinstance(const, CodeType) and _mentions(const, mangled) for const in code.co_consts)


def _nodes_outside_classes(nodes: Iterable[ast.AST]) -> Iterator[ast.AST]:
    """*nodes* and everything in them, except the bodies of nested classes (they mangle their own)
    and of nested functions (decompiled from their own code, they were rewritten already)."""
    pending = list(nodes)
    while pending:
        node = pending.pop()
        yield node
        for field, value in ast.iter_fields(node):
            if field == "body" and isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            if isinstance(value, ast.AST):
                pending.append(value)
            elif isinstance(value, list):
                pending.extend(item for item in value if isinstance(item, ast.AST))


def demangle_private_names(nodes: Iterable[ast.AST], code: CodeType) -> None:
    """Rewrite the names in *nodes* (decompiled from *code*) that its class mangled."""
    owner = mangling_class(code)
    if owner is None or not owner.strip("_"):
        return
    prefix = "_" + owner.lstrip("_")
    if not _mentions(code, prefix + "__"):
        return

    def plain(name: Optional[str]) -> Optional[str]:
        if name is None or not name.startswith(prefix + "__"):
            return name
        rest = name[len(prefix) :]
        return name if rest.endswith("__") or "." in rest else rest

    for node in _nodes_outside_classes(nodes):
        if isinstance(node, ast.Name):
            node.id = plain(node.id) or node.id
        elif isinstance(node, ast.Attribute):
            node.attr = plain(node.attr) or node.attr
        elif isinstance(node, ast.arg):
            node.arg = plain(node.arg) or node.arg
        elif isinstance(node, ast.alias):
            node.name = plain(node.name) or node.name
            node.asname = plain(node.asname)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            node.names = [plain(name) or name for name in node.names]
        elif isinstance(node, ast.ExceptHandler):
            node.name = plain(node.name)
