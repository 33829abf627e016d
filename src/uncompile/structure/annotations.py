"""Deferred annotations (PEP 649/749, 3.14+): ``__annotate__`` functions back to annotations.

From 3.14 the compiler no longer stores annotations where they are written. It generates an
``__annotate__(format)`` function per definition that builds the annotation dict:

* a function's is attached by ``SET_FUNCTION_ATTRIBUTE 16`` and returns ``{name: value}``;
  :func:`annotate_entries` reads it and :mod:`.definitions` puts the values back on the
  parameters and the return;
* a module's or class's is stored as ``__annotate__``/``__annotate_func__`` and fills a dict
  entry by entry (``value; COPY 2; LOAD_CONST name; STORE_SUBSCR``). Annotations written
  under ``if``/``for``/``try``... (and every module annotation once one is) are *conditional*:
  the body executes ``__conditional_annotations__.add(k)`` where the statement stood, and
  the entry is guarded by ``k in __conditional_annotations__``.

The simulator turns the stored function into an :class:`AnnotateFunction` statement and each
``add(k)`` into a :class:`ConditionalAnnotation` statement; :func:`restore_annotations` then
turns them back into ``ast.AnnAssign`` statements of the body, in the annotate function's
order (which is all the bytecode records of unconditional annotations without a value).
"""

from __future__ import annotations

import ast
from types import CodeType
from typing import Any, Dict, List, NamedTuple, Optional, Tuple

from ..bytecode import versions as V
from ..bytecode.instructions import Instr, read_instructions
from ..bytecode.reader import has_instruction
from ..errors import DecompileError

CONDITIONAL_SET = "__conditional_annotations__"


class AnnotateFunction(ast.stmt):
    """The ``__annotate__`` function of a module or class body (internal)."""

    _fields = ()

    def __init__(self, code: CodeType) -> None:
        super().__init__()
        self.code = code


class ConditionalAnnotation(ast.stmt):
    """``__conditional_annotations__.add(index)``: a conditional annotation stood here (internal)."""

    _fields = ()

    def __init__(self, index: int) -> None:
        super().__init__()
        self.index = index


class Entry(NamedTuple):
    """One annotation: the key, its value, and its conditional index (None: unconditional)."""

    name: str
    value: ast.expr
    condition: Optional[int]


# -- reading an __annotate__ function ---------------------------------------------------


def _prologue_end(instrs: List[Instr]) -> int:
    """Index after ``if format > 2: raise NotImplementedError`` (0 when absent)."""
    for k, ins in enumerate(instrs[:8]):
        if ins.op == "RAISE_VARARGS":
            return k + 1
    return 0


def _simulator(code: CodeType) -> Any:
    from ..expressions.simulator import Simulator
    from .definitions import Nested

    nested: Any = Nested(code)
    return Simulator(code, nested)


def _evaluate(sim: Any, instrs: List[Instr]) -> Any:
    stack: List[Any] = []
    for ins in instrs:
        sim.step(ins, stack)
    if len(stack) != 1 or sim.out:
        raise DecompileError(
            "annotation is not an expression", function="__annotate__", construct="annotation"
        )
    return sim.expr(stack[0], instrs[-1])


def _condition(instrs: List[Instr], i: int) -> Optional[Tuple[int, int]]:
    """``k in __conditional_annotations__; POP_JUMP_IF_FALSE`` at *i*: (k, next index)."""
    window = instrs[i : i + 4]
    if len(window) < 4 or [x.op for x in window[2:]] != ["CONTAINS_OP", "POP_JUMP_IF_FALSE"]:
        return None
    index, names = window[0], window[1]
    if index.op != "LOAD_CONST" or not isinstance(index.arg[0], int) or window[2].arg:
        return None
    name = names.arg[0] if isinstance(names.arg, tuple) else names.arg
    if name != CONDITIONAL_SET:
        return None
    return index.arg[0], i + 4


def _entries_one_by_one(code: CodeType, instrs: List[Instr], i: int) -> List[Entry]:
    """The module/class form: ``BUILD_MAP 0`` then ``value; COPY 2; LOAD_CONST key; STORE_SUBSCR``."""
    out: List[Entry] = []
    i += 1
    while i < len(instrs) and instrs[i].op != "RETURN_VALUE":
        condition = _condition(instrs, i)
        index: Optional[int] = None
        if condition is not None:
            index, i = condition
        end = i
        while end + 2 < len(instrs) and not (
            instrs[end].op == "COPY"
            and instrs[end].arg == 2
            and instrs[end + 1].op == "LOAD_CONST"
            and instrs[end + 2].op == "STORE_SUBSCR"
        ):
            end += 1
        if end + 2 >= len(instrs) or end == i:
            raise DecompileError(
                "unexpected __annotate__ layout",
                function="__annotate__",
                offset=instrs[i].offset,
                construct="annotation",
            )
        if any(ins.target is not None for ins in instrs[i:end]):
            # (the dict being filled is below the value)
            value, end = _walked_value(code, i, end, [ast.Dict(keys=[], values=[])], _STORE_ENTRY)
        else:
            value = _evaluate(_simulator(code), instrs[i:end])
        out.append(Entry(instrs[end + 1].arg[0], value, index))
        i = end + 3
    return out


_STORE_ENTRY = ("COPY", "LOAD_CONST", "STORE_SUBSCR")


def _walked_value(
    code: CodeType, start: int, end: int, stack: List[Any], then: Tuple[str, ...]
) -> Tuple[Any, int]:
    """The value that instructions from *start* of *code* compute above *stack* when they
    jump (a ternary, ``a or b`` in an annotation), walked as the structurer walks an
    expression, and where the instructions *then* that use it start: at *end*, or in the
    copy of them that ends the last branch (3.14+ copy the small rest, up to the return,
    into each branch)."""
    from .context import Context
    from .definitions import Nested
    from .walker import Walker

    walker = Walker(code, Nested(code))
    depth = len(stack)
    try:
        with walker.sim.scratch():
            body = walker.walk(start, Context(until=end), stack)
    except DecompileError:
        body = [ast.Pass()]
    reached = walker.exit
    instrs = walker.instrs
    if (
        body
        or len(stack) != depth + 1
        or reached is None
        or tuple(x.op for x in instrs[reached : reached + len(then)]) != then
    ):
        raise DecompileError(
            "annotation is not an expression",
            function="__annotate__",
            offset=instrs[start].offset,
            construct="annotation",
        )
    return walker.sim.expr(stack[-1], instrs[reached]), reached


def annotate_entries(code: CodeType) -> List[Entry]:
    """The annotations an ``__annotate__`` code object returns, in order."""
    instrs = read_instructions(code)
    i = _prologue_end(instrs)
    if (
        i < len(instrs)
        and instrs[i].op == "BUILD_MAP"
        and instrs[i].arg == 0
        and i + 1 < len(instrs)
        and instrs[i + 1].op != "RETURN_VALUE"
    ):
        if any(x.op == "STORE_SUBSCR" for x in instrs[i:]):
            return _entries_one_by_one(code, instrs, i)
    body = [x for x in instrs[i:] if x.op != "RETURN_VALUE"]
    if not body:
        return []
    if any(x.target is not None for x in body):  # (a ternary, ``a or b`` in an annotation)
        mapping, _ = _walked_value(code, i, len(instrs) - 1, [], ("RETURN_VALUE",))
    else:
        mapping = _evaluate(_simulator(code), body)
    if not isinstance(mapping, ast.Dict):
        raise DecompileError("__annotate__ returns no dict", function="__annotate__", construct="annotation")
    out = []
    for key, value in zip(mapping.keys, mapping.values):
        if not (isinstance(key, ast.Constant) and isinstance(key.value, str)):
            raise DecompileError("annotation key", function="__annotate__", construct="annotation")
        out.append(Entry(key.value, value, None))
    return out


def annotation_mapping(code: CodeType) -> dict:
    """``{name: annotation}`` of a function's ``__annotate__`` code object."""
    return {entry.name: entry.value for entry in annotate_entries(code)}


# -- putting them back into a body ------------------------------------------------------


def _ann_assign(
    name: str,
    annotation: ast.expr,
    value: Optional[ast.expr],
    like: Optional[ast.stmt],
    target: Optional[ast.expr] = None,
) -> ast.AnnAssign:
    where: Any = target or ast.Name(id=name, ctx=ast.Store())
    node = ast.AnnAssign(target=where, annotation=annotation, value=value, simple=1)
    offsets = getattr(like, "uncompile_offsets", None) if like is not None else None
    if offsets is not None:
        node.uncompile_offsets = offsets  # type: ignore[attr-defined]
    return node


def _assigned_name(stmt: ast.stmt) -> Optional[str]:
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
        return stmt.targets[0].id
    return None


def _child_lists(stmt: ast.stmt) -> List[List[ast.stmt]]:
    lists = []
    for field in ("body", "orelse", "finalbody"):
        value = getattr(stmt, field, None)
        if isinstance(value, list):
            lists.append(value)
    for handler in getattr(stmt, "handlers", None) or []:
        lists.append(handler.body)
    for case in getattr(stmt, "cases", None) or []:
        lists.append(case.body)
    return lists


def _find_marker(stmts: List[ast.stmt], index: int) -> Optional[Tuple[List[ast.stmt], int]]:
    for k, stmt in enumerate(stmts):
        if isinstance(stmt, ConditionalAnnotation) and stmt.index == index:
            return stmts, k
        for inner in _child_lists(stmt):
            found = _find_marker(inner, index)
            if found is not None:
                return found
    return None


def _contains(stmt: ast.stmt, stmts: List[ast.stmt]) -> bool:
    if any(s is stmt for s in stmts):
        return True
    return any(_contains(stmt, inner) for s in stmts for inner in _child_lists(s))


def _top_index(body: List[ast.stmt], container: List[ast.stmt], k: int) -> int:
    if container is body:
        return k
    for j, stmt in enumerate(body):
        if _contains(container[k], [stmt]):
            return j
    return len(body) - 1


def _place_conditional(body: List[ast.stmt], entry: Entry) -> Optional[int]:
    """Put *entry* where its ``add(k)`` stands; returns the top-level index it ended in."""
    assert entry.condition is not None
    found = _find_marker(body, entry.condition)
    if found is None:
        return None
    container, k = found
    marker = container[k]
    top = _top_index(body, container, k)
    before = container[k - 1] if k > 0 else None
    if before is not None and _assigned_name(before) == entry.name:
        assert isinstance(before, ast.Assign)
        container[k - 1] = _ann_assign(entry.name, entry.value, before.value, before, before.targets[0])
        del container[k]
        return top - 1 if container is body else top
    container[k] = _ann_assign(entry.name, entry.value, None, marker)
    return top


def _place_unconditional(body: List[ast.stmt], entry: Entry, start: int, stop: int) -> int:
    """Turn the first ``name = value`` in ``body[start:stop]`` into ``name: ann = value``, or
    insert ``name: ann`` at *start*; returns the index of the annotation."""
    for j in range(start, min(stop, len(body))):
        stmt = body[j]
        if _assigned_name(stmt) == entry.name:
            assert isinstance(stmt, ast.Assign)
            body[j] = _ann_assign(entry.name, entry.value, stmt.value, stmt, stmt.targets[0])
            return j
    body.insert(start, _ann_assign(entry.name, entry.value, None, None))
    return start


def _is_conditional_set(stmt: ast.stmt) -> bool:
    return (
        _assigned_name(stmt) == CONDITIONAL_SET
        and isinstance(stmt, ast.Assign)
        and isinstance(stmt.value, ast.Set)
        and not stmt.value.elts
    )


def restore_annotations(body: List[ast.stmt], code: Optional[CodeType] = None) -> List[ast.stmt]:
    """*body* (the statements of *code*, a module or class body) with its annotations restored:
    from its ``__annotate__`` (3.14+) or from its ``__annotations__[name] = value`` stores."""
    annotate = _annotate_function(body, code)
    if annotate is None:
        if code is not None and _sets_up_annotations(code):
            body = [s for s in body if not _is_conditional_set(s)]
            _restore_stored(body, bool(code.co_flags & _FUTURE_ANNOTATIONS))
        return body
    body = [s for s in body if s is not annotate and not _is_conditional_set(s)]
    entries = annotate_entries(annotate.code)
    position = 1 if body and _assigned_name(body[0]) == "__doc__" else 0  # the docstring stays first
    for n, entry in enumerate(entries):
        if entry.condition is not None:
            top = _place_conditional(body, entry)
            if top is not None:
                position = top + 1
                continue
        later = [_find_marker(body, e.condition) for e in entries[n + 1 :] if e.condition is not None]
        stop = len(body)
        for found in later:
            if found is not None:
                stop = _top_index(body, *found)
                break
        position = _place_unconditional(body, entry, position, max(stop, position)) + 1
    return body


def _annotate_function(body: List[ast.stmt], code: Optional[CodeType]) -> Optional[AnnotateFunction]:
    """The ``__annotate__`` function of *body* (3.14+), if any: only a body whose *code* stores
    one of :data:`~uncompile.bytecode.versions.ANNOTATE_NAMES` holds one (most bodies are not looked at)."""
    names = V.ANNOTATE_NAMES
    if code is not None and names.isdisjoint(code.co_names) and names.isdisjoint(code.co_cellvars):
        return None
    return next((s for s in body if isinstance(s, AnnotateFunction)), None)


def _sets_up_annotations(code: CodeType) -> bool:
    return has_instruction(code, "SETUP_ANNOTATIONS")


def _stored_annotation(stmt: ast.stmt) -> Optional[Tuple[str, ast.expr]]:
    """``__annotations__['name'] = value`` (an annotation stored the pre-3.14 way): (name, value)."""
    if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1):
        return None
    target = stmt.targets[0]
    if (
        isinstance(target, ast.Subscript)
        and isinstance(target.value, ast.Name)
        and target.value.id == "__annotations__"
        and isinstance(target.slice, ast.Constant)
        and isinstance(target.slice.value, str)
    ):
        return target.slice.value, stmt.value
    return None


def _restore_stored(stmts: List[ast.stmt], stringified: bool) -> None:
    """Turn every ``__annotations__['x'] = v`` in *stmts* (at any depth) into ``x: v``, merged
    with an ``x = value`` just before it; *stringified*: ``v`` is the annotation's source text."""
    k = 0
    while k < len(stmts):
        stored = _stored_annotation(stmts[k])
        if stored is None:
            for inner in _child_lists(stmts[k]):
                _restore_stored(inner, stringified)
            k += 1
            continue
        name, value = stored
        if stringified:
            value = unstringified({name: value}, _FUTURE_CODE)[name]
        before = stmts[k - 1] if k > 0 else None
        if before is not None and _assigned_name(before) == name:
            assert isinstance(before, ast.Assign)
            stmts[k - 1] = _ann_assign(name, value, before.value, before, before.targets[0])
            del stmts[k]
            continue
        stmts[k] = _ann_assign(name, value, None, stmts[k])
        k += 1


# -- lazily evaluated values (type aliases, type parameter bounds) ------------------------


def is_lazy_evaluator(code: CodeType) -> bool:
    """Whether *code* is a 3.14+ evaluator of a lazily evaluated value (a ``type`` alias's value,
    a type parameter's bound or default): one positional-only parameter ``.format``."""
    return (
        code.co_argcount == 1
        and getattr(code, "co_posonlyargcount", 0) == 1
        and code.co_varnames[:1] == (".format",)
    )


def _is_format_check(stmt: ast.stmt) -> bool:
    """``if format > 2: raise NotImplementedError``, the check every evaluator starts with."""
    if not (isinstance(stmt, ast.If) and isinstance(stmt.test, ast.Compare) and len(stmt.body) == 1):
        return False
    left, raised = stmt.test.left, stmt.body[0]
    return (
        isinstance(left, ast.Name)
        and left.id in ("format", ".format")
        and isinstance(raised, ast.Raise)
        and isinstance(raised.exc, ast.Name)
        and raised.exc.id == "NotImplementedError"
        and not stmt.orelse
    )


def evaluator_statement(code: CodeType) -> ast.stmt:
    """``type <name> = <value>``, which compiles to an evaluator laid out like *code*."""
    from .definitions import body_of

    body = body_of(code)
    if body and _is_format_check(body[0]):
        body = body[1:]
    if len(body) != 1 or not isinstance(body[0], ast.Return) or body[0].value is None:
        raise DecompileError(
            "lazily evaluated value is not an expression", function=code.co_name, construct="type alias"
        )
    node = ast.TypeAlias(  # type: ignore[attr-defined]
        name=ast.Name(id=code.co_name, ctx=ast.Store()),
        type_params=[],
        value=body[0].value,
    )
    return node


# -- ``from __future__ import annotations`` --------------------------------------------------

_FUTURE_ANNOTATIONS = __import__("__future__").annotations.compiler_flag


def unstringified(notes: Dict[Any, ast.expr], code: CodeType) -> Dict[Any, ast.expr]:
    """*notes* (a function's annotations) as the expressions that were written.

    Under ``from __future__ import annotations`` (any version) the compiler stores each
    annotation as its source text, which it would quote once more if printed as a string.
    """
    if not code.co_flags & _FUTURE_ANNOTATIONS:
        return notes
    out = {}
    for name, value in notes.items():
        if isinstance(value, ast.Constant) and isinstance(value.value, str):
            try:
                value = ast.parse(value.value, mode="eval").body
            except SyntaxError:
                pass
        out[name] = value
    return out


#: A code object compiled under ``from __future__ import annotations`` (for :func:`unstringified`).
_FUTURE_CODE = compile("", "<future>", "exec", flags=_FUTURE_ANNOTATIONS, dont_inherit=True)
