"""What the tests share: a function defined from a source snippet, its round trip checked, or a
function defined from decompiled code."""

from __future__ import annotations

import ast
import gc
import sys
import textwrap
import types
from typing import Any, Callable, Iterable, Iterator, List, Mapping, Tuple


def define(source: str, name: str = "f") -> Any:
    """The function *name* that *source* (dedented) defines, compiled without this module's
    ``__future__`` flags, so that the snippet's bytecode is what the snippet alone gives."""
    namespace: dict = {}
    exec(compile(textwrap.dedent(source), "<snippet>", "exec", dont_inherit=True), namespace)
    return namespace[name]


def round_trip(source: str, name: str = "f") -> Any:
    """The verification of the function *name* that *source* defines (decompiled, recompiled,
    compared), failing the test with the first difference and the source unless identical."""
    from uncompile.verification import verify_code

    result = verify_code(define(source, name).__code__, qualname=name)
    assert result.identical, "%s\n%s" % (result.difference or result.error, result.source)
    return result


def known_failure(request: Any, reason: str) -> None:
    """Mark the running test (pytest's *request*) as a known failure on this interpreter: it runs
    on, and passing fails it as a strict expected failure would, so a fix shows up."""
    import pytest

    request.applymarker(pytest.mark.xfail(reason=reason, strict=True))


def with_known_failures(names: Iterable[str], not_yet: Mapping[str, Tuple[Any, str]]) -> List[Any]:
    """pytest parameters for *names*, sorted; a name in *not_yet* (name -> (versions, why)) is a
    strict expected failure on those versions: a set of ``(3, minor)``, or one ``(3, minor)``
    for that version and every later one."""
    import pytest

    version = sys.version_info[:2]
    params: List[Any] = []
    for name in sorted(names):
        if name not in not_yet:
            params.append(name)
            continue
        versions, why = not_yet[name]
        failing = version in versions if isinstance(versions, (set, frozenset)) else version >= versions
        params.append(pytest.param(name, marks=pytest.mark.xfail(failing, reason=why, strict=True)))
    return params


def decompiled(function: Any) -> Any:
    """*function* again, defined by the decompiled source of its code (in a fresh namespace)."""
    from uncompile.decompiler import decompile_code

    namespace: dict = {}
    exec(decompile_code(function.__code__), namespace)
    return namespace[function.__code__.co_name]


def cyclic_garbage_of(action: Callable[[], Any]) -> List[Any]:
    """The objects of uncompile (syntax nodes, its functions and instances, and the ``ast``
    module's helpers) that *action* leaves in reference cycles: garbage only the cyclic
    collector frees. Garbage other code makes meanwhile (threads of torch, say) is ignored."""
    gc.collect()
    gc.disable()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        del gc.garbage[:]
        action()
        gc.collect()
        return [item for item in gc.garbage if _ours(item)]
    finally:
        gc.set_debug(0)
        del gc.garbage[:]
        gc.enable()


def _ours(item: Any) -> bool:
    if isinstance(item, ast.AST):
        return True
    if isinstance(item, types.MethodType):
        item = item.__self__
    if isinstance(item, types.FunctionType):
        return item.__module__ == "ast" or item.__module__.startswith("uncompile")
    return type(item).__module__.startswith("uncompile")


def instruction(offset: int, op: str, arg: Any, target: Any = None) -> Any:
    """A neutral instruction made by hand, as the reader makes them (``Instr()``, or ``JumpInstr()``
    with a *target*, then its fields)."""
    from uncompile.bytecode.instructions import Instr, JumpInstr

    if target is None:
        ins = Instr()
    else:
        ins = JumpInstr()
        ins.target = target
    ins.offset, ins.op, ins.arg, ins.index = offset, op, arg, 0
    return ins


def code_objects(code: types.CodeType) -> Iterator[types.CodeType]:
    """*code* and every code object nested in it, depth first."""
    yield code
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from code_objects(const)


def stdlib_code_objects(modules: int) -> Iterator[Tuple[str, types.CodeType]]:
    """Every code object of about *modules* modules of this interpreter's standard library (every
    k-th of its sorted files, a fixed choice), with the module's path relative to the library."""
    import os
    import tokenize

    from uncompile.verification.stdlib_sample import stdlib_files, stdlib_root

    files = stdlib_files()
    for relative in files[:: max(1, len(files) // modules)]:
        path = os.path.join(stdlib_root(), relative)
        try:
            with tokenize.open(path) as handle:
                module = compile(handle.read(), path, "exec", dont_inherit=True)
        except (SyntaxError, ValueError, UnicodeDecodeError):
            continue
        for code in code_objects(module):
            yield relative, code
