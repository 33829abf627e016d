"""Instruction sequences of 3.14+ that the normalizer reads as fewer neutral instructions.

:func:`match_sequence` is asked at each raw instruction by
:class:`uncompile.bytecode.instructions._Reader`; it recognizes

* a ``with`` entry, ``COPY 1; LOAD_SPECIAL __exit__; SWAP 2; SWAP 3; LOAD_SPECIAL __enter__;
  CALL 0`` (``__aexit__``/``__aenter__`` for ``async with``), which is one neutral
  ``BEFORE_WITH`` as on 3.11-3.13;
* the guard 3.14+ put around ``all(...)``, ``any(...)`` and ``tuple(...)`` of a generator
  expression, ``LOAD_GLOBAL f; COPY 1; LOAD_COMMON_CONSTANT f; IS_OP 0; POP_JUMP_IF_FALSE L``
  followed by an inlined loop: the inlined version is dropped and the plain call at ``L``
  (``PUSH_NULL; <generator>; CALL 1``) is all that is read (where ``f`` is a local or free
  name, the guard from its ``COPY`` on);
* a ``type`` statement's value (3.12+), ``BUILD_TUPLE 3; CALL_INTRINSIC_1 INTRINSIC_TYPEALIAS``
  of its name, type parameters and evaluator function, which is one neutral ``TYPE_ALIAS``
  (it pops the three; the evaluator is no value of its own).

Each match gives the neutral ``(op, arg)`` pairs to emit and the index of the next raw
instruction to read. Older versions never contain these sequences, so nothing matches.
"""

from __future__ import annotations

import dis
from typing import Any, Dict, FrozenSet, List, Optional, Sequence, Tuple

from . import versions as V
from .reader import RawInstruction, RawInstructions

Replacement = Tuple[List[Tuple[str, Any]], int]

_WITH_ENTRY = ("COPY", "LOAD_SPECIAL", "SWAP", "SWAP", "LOAD_SPECIAL", "CALL")
_TYPE_ALIAS = ("BUILD_TUPLE", "CALL_INTRINSIC_1")
_GUARD = ("LOAD_GLOBAL", "COPY", "LOAD_COMMON_CONSTANT", "IS_OP", "POP_JUMP_IF_FALSE")
#: The loads of a name that shadows a builtin (see :func:`_shadowed_builtin_guard`).
_NAME_LOADS = (
    "LOAD_FAST",
    "LOAD_FAST_BORROW",
    "LOAD_FAST_CHECK",
    "LOAD_DEREF",
    "LOAD_NAME",
    "LOAD_FAST_LOAD_FAST",
    "LOAD_FAST_BORROW_LOAD_FAST_BORROW",
)

#: The second instruction of each sequence, by its first.
_SECONDS = {names[0]: names[1] for names in (_WITH_ENTRY, _GUARD, _TYPE_ALIAS)}

#: Where a sequence of the running interpreter can start (one whose instructions all exist).
SEQUENCE_STARTS = frozenset(
    names[0] for names in (_WITH_ENTRY, _GUARD, _TYPE_ALIAS) if all(name in dis.opmap for name in names)
)

#: By each start of :data:`SEQUENCE_STARTS`, the raw instructions that can follow it in a
#: sequence (see :func:`may_start_sequence`).
SEQUENCE_FOLLOWERS: Dict[str, FrozenSet[str]] = {
    name: frozenset({_SECONDS[name], "EXTENDED_ARG"} | ({_GUARD[2]} if name == "COPY" else set()))
    for name in SEQUENCE_STARTS
}


def _take(
    raw: Sequence[RawInstruction], i: int, names: Tuple[str, ...]
) -> Optional[Tuple[List[RawInstruction], int]]:
    """The instructions named *names* from ``raw[i]`` on (``EXTENDED_ARG`` skipped) and the next index."""
    found: List[RawInstruction] = []
    while len(found) < len(names) and i < len(raw):
        ins = raw[i]
        if ins.opname != "EXTENDED_ARG":
            if ins.opname != names[len(found)]:
                return None
            found.append(ins)
        i += 1
    return (found, i) if len(found) == len(names) else None


def _with_entry(raw: Sequence[RawInstruction], i: int) -> Optional[Replacement]:
    taken = _take(raw, i, _WITH_ENTRY)
    if taken is None:
        return None
    found, end = taken
    exit_name, enter_name = found[1].argrepr, found[4].argrepr
    if (exit_name, enter_name) not in (("__exit__", "__enter__"), ("__aexit__", "__aenter__")):
        return None
    if found[0].arg != 1 or found[5].arg != 0:
        return None
    return [("BEFORE_WITH", None)], end


def _builtin_guard(raw: Sequence[RawInstruction], i: int) -> Optional[Replacement]:
    taken = _take(raw, i, _GUARD)
    if taken is None:
        return None
    (load, copy, common, is_op, jump), end = taken
    builtin = getattr(V.COMMON_CONSTANTS[common.arg or 0], "__name__", None)
    if load.argval != builtin or copy.arg != 1 or is_op.arg != 0 or (load.arg or 0) & 1:
        return None
    fallback = next((k for k in range(end, len(raw)) if raw[k].offset == jump.argval), None)
    if fallback is None or raw[fallback].opname != "PUSH_NULL":
        return None
    return [("LOAD_GLOBAL", (builtin, False))], fallback


def _shadowed_builtin_guard(raw: Sequence[RawInstruction], i: int) -> Optional[Replacement]:
    """The guard of :func:`_builtin_guard` where the function is a local, free or class-body
    name (``def f(x, tuple=tuple): return tuple(v for v in x)``), from its ``COPY`` on: the
    name's load, already read, is the plain call's function."""
    taken = _take(raw, i, _GUARD[1:])
    if taken is None or i == 0:
        return None
    (copy, common, is_op, jump), end = taken
    load = raw[i - 1]
    name = load.argval[-1] if load.opname in V.SUPERINSTRUCTIONS else load.argval  # (x, f) of two loads
    builtin = getattr(V.COMMON_CONSTANTS[common.arg or 0], "__name__", None)
    if load.opname not in _NAME_LOADS or name != builtin or copy.arg != 1 or is_op.arg != 0:
        return None
    fallback = next((k for k in range(end, len(raw)) if raw[k].offset == jump.argval), None)
    if fallback is None or raw[fallback].opname != "PUSH_NULL":
        return None
    return [], fallback


def may_start_sequence(name: Optional[str], following: Optional[str]) -> bool:
    """Whether a raw instruction named *name* followed by one named *following* (None: by none)
    may start a known sequence (most do not: asked before any raw instruction is decoded)."""
    return following in SEQUENCE_FOLLOWERS.get(name, ())  # type: ignore[arg-type]


def match_sequence(raw: RawInstructions, i: int, name: str) -> Optional[Replacement]:
    """The neutral replacement of a known sequence starting at ``raw[i]`` (named *name*), or None."""
    following = raw.opname(i + 1) if i + 1 < len(raw) else None
    if not may_start_sequence(name, following):
        return None
    if name == "COPY" and following == _GUARD[2]:
        return _shadowed_builtin_guard(raw, i)
    if name == "COPY":
        return _with_entry(raw, i)
    if name == "LOAD_GLOBAL":
        return _builtin_guard(raw, i)
    if name == "BUILD_TUPLE":
        return _type_alias(raw, i)
    return None


def _type_alias(raw: Sequence[RawInstruction], i: int) -> Optional[Replacement]:
    taken = _take(raw, i, _TYPE_ALIAS)
    if taken is None:
        return None
    (build, intrinsic), end = taken
    if build.arg != 3 or V.INTRINSIC_1[intrinsic.arg or 0] != "INTRINSIC_TYPEALIAS":
        return None
    return [("TYPE_ALIAS", None)], end
