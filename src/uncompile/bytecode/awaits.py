"""The send loops of ``await``/``yield from``, and ``async for`` loops read as ``FOR_ITER`` loops.

An ``await`` (``yield from``) is a loop of its own: ``GET_AWAITABLE; LOAD_CONST None; SEND``
... (3.8 - 3.10: ``YIELD_FROM``); :func:`await_end` finds where it ends, so the normalizer can
read it as one ``AWAIT``. ``async for x in it: body`` compiles as::

    GET_AITER
    L:  <the await of GET_ANEXT>     (3.8 - 3.10: SETUP_FINALLY E; GET_ANEXT; LOAD_CONST None;
                                       YIELD_FROM; POP_BLOCK)
        STORE x; body; JUMP L
    E:  END_ASYNC_FOR                (the handler of that await: StopAsyncIteration ends the loop)

with, on 3.12+, the await's ``CLEANUP_THROW; JUMP`` back to its ``END_SEND`` just before ``E``
(each await has such a pair, laid out after the code: :func:`ends_send` tells them, and the
normalizer drops them all).
:func:`async_for_header` reads the header at ``L`` as one ``FOR_ITER`` whose ``arg`` is
:data:`ASYNC` and whose target is ``E`` (the code after it once ``END_ASYNC_FOR`` is dropped),
the same loop a plain ``for`` makes; :func:`is_async_for_end` tells the ``END_ASYNC_FOR`` left
out. The exception entries of 3.11+ that go to ``E`` are replaced where
the table is read (:func:`uncompile.bytecode.exception_table.exception_handlers`).
"""

from __future__ import annotations

import dis
from types import CodeType
from typing import Callable, FrozenSet, Optional, Sequence, Tuple

from . import versions as V
from .reader import RawInstruction

#: The ``arg`` of the ``FOR_ITER`` an ``async for`` header is read as (a plain one has None).
ASYNC = "async"

_END_ASYNC_FOR = dis.opmap.get("END_ASYNC_FOR", -1)
_CLEANUP_THROW = dis.opmap.get("CLEANUP_THROW", -1)


def await_end(raw: Sequence[RawInstruction], i: int) -> Optional[int]:
    """Index just past an ``await``/``yield from`` send loop starting at ``raw[i]``, or None."""
    j = i + 1
    while j < len(raw) and raw[j].opname in ("CACHE", "EXTENDED_ARG", "PUSH_NULL"):  # 3.15: PUSH_NULL
        j += 1
    if (
        j + 1 >= len(raw)
        or raw[j].opname not in ("LOAD_CONST", "LOAD_COMMON_CONSTANT")
        or raw[j].argval is not None
    ):
        return None
    send = raw[j + 1]
    if send.opname == "YIELD_FROM":  # 3.8 - 3.10
        return j + 2
    if send.opname != "SEND":
        return None
    k = j + 2
    while k < len(raw) and raw[k].offset < send.argval:
        k += 1
    if k < len(raw) and raw[k].opname == "END_SEND":
        k += 1
    return k


def async_for_header(
    raw: Sequence[RawInstruction], i: int, handler_target: Callable[[int], Optional[int]]
) -> Optional[Tuple[int, int]]:
    """``(next index, offset of the END_ASYNC_FOR)`` of an ``async for`` header at ``raw[i]``.

    3.8 - 3.10: ``SETUP_FINALLY E; GET_ANEXT; LOAD_CONST None; YIELD_FROM; POP_BLOCK``; 3.11+:
    the await of ``GET_ANEXT``, whose handler (``handler_target(offset)``, from the exception
    table) is ``E``. None if ``raw[i]`` starts no such header.
    """
    ins = raw[i]
    if ins.opname == "SETUP_FINALLY" and not V.HAS_EXCEPTION_TABLE:
        names = [x.opname for x in raw[i + 1 : i + 5]]
        if names != ["GET_ANEXT", "LOAD_CONST", "YIELD_FROM", "POP_BLOCK"]:
            return None
        return i + 5, ins.argval
    if ins.opname != "GET_ANEXT" or not V.HAS_EXCEPTION_TABLE:
        return None
    end = await_end(raw, i)
    exit_offset = handler_target(ins.offset)
    if end is None or exit_offset is None:
        return None
    return end, exit_offset


def is_async_for_end(code: CodeType, offset: int) -> bool:
    """Whether the raw instruction at *offset* is an ``END_ASYNC_FOR``."""
    return offset < len(code.co_code) and code.co_code[offset] == _END_ASYNC_FOR


def send_ends(raw: Sequence[RawInstruction]) -> FrozenSet[int]:
    """The offsets of the ``END_SEND`` instructions that end send loops (3.12+)."""
    return frozenset(ins.offset for ins in raw if ins.opname == "END_SEND")


def ends_send(raw: Sequence[RawInstruction], i: int, ends: FrozenSet[int]) -> bool:
    """Whether ``raw[i]`` is the ``CLEANUP_THROW; JUMP`` (3.12+) of an await, which goes back
    to the end of its send loop, one of *ends*: laid out after the code, it has no source form."""
    return (
        raw[i].opcode == _CLEANUP_THROW
        and i + 1 < len(raw)
        and "JUMP" in raw[i + 1].opname
        and raw[i + 1].argval in ends
    )


def is_cleanup_throw(code: CodeType, offset: int) -> bool:
    """Whether the raw instruction at *offset* is a ``CLEANUP_THROW`` (3.12+)."""
    return offset < len(code.co_code) and code.co_code[offset] == _CLEANUP_THROW
