"""The interpreter's block stack before every instruction of CPython 3.8 - 3.10 code.

Before exception tables, ``SETUP_FINALLY``/``SETUP_WITH``/``SETUP_ASYNC_WITH`` push a block and
``POP_BLOCK``/``POP_EXCEPT``/``END_FINALLY``/``POP_FINALLY`` pop one. :meth:`LegacyBlockStacks.block_stacks`
follows the control flow to give the stack before each instruction (the first path to reach an
instruction, in layout order, decides), which tells which instruction closes which block; code
without set-ups (most functions) reads its stacks from the graph's reachability alone. This module
also links each set-up to its handler in the graph, joins the copies of a finally body's
``RERAISE`` (3.10) and finds the dead final ``return None`` (3.8, 3.9).
"""

from __future__ import annotations

import dis
import heapq
import operator
from typing import Any, FrozenSet, List, Optional, Tuple

from ..bytecode import versions as V
from ..flow.cfg import ENDS_PATH, SETUP_OPS

Block = Tuple[str, int]  # (kind, index): "try"/"with" at a SETUP, "exc"/"fin"/"wexc" at a handler
Stacks = List[Optional[Tuple[Block, ...]]]

#: Instructions that may close the innermost block (see :func:`_after_pop`).
_POPS_BLOCK = frozenset({"POP_BLOCK", "POP_EXCEPT", "END_FINALLY", "POP_FINALLY"})

_OP_OF = operator.attrgetter("op")


def _after_pop(op: str, here: Tuple[Block, ...]) -> Tuple[Block, ...]:
    """The block stack after *op* (one of :data:`_POPS_BLOCK`) runs with the stack *here*."""
    if (
        op in ("POP_BLOCK", "POP_EXCEPT")
        or (op == "END_FINALLY" and here and here[-1][0] in ("exc", "fin", "wexc"))
        or (op == "POP_FINALLY" and here and here[-1][0] == "fin")  # 3.8: leaving a finally body
    ):
        return here[:-1]
    return here


#: The raw opcodes that push a block (3.8 - 3.10; ``SETUP_ASYNC_WITH`` is read as ``SETUP_WITH``).
_SETUP_OPCODES = tuple(
    dis.opmap[name]
    for name in ("SETUP_FINALLY", "SETUP_WITH", "SETUP_ASYNC_WITH")
    if dis.opmap.get(name, 256) < 256  # (pseudo-instructions from 3.12 on)
)


def has_block_setups(code: Any) -> bool:
    """Whether *code* may push a block (3.8 - 3.10): it holds a raw ``SETUP_*`` instruction.

    Most code objects hold none; their graph needs no handler links and their block stacks
    are known from reachability alone, so the walker decides this once, from the raw code
    (an ``async for``'s ``SETUP_FINALLY`` counts, although the reader turns it into another).
    """
    opcodes = code.co_code[::2]  # (no inline caches before 3.11: every other byte is an opcode)
    for opcode in _SETUP_OPCODES:
        if opcodes.find(opcode) >= 0:
            return True
    return False


def reraise_leaders(instrs: List[Any], ends: List[int]) -> FrozenSet[int]:
    """The ``RERAISE`` instructions of 3.10 code, each of which starts a block of its own
    (among *ends*, the indices of the instructions that end a path, as the reader found them).

    A branch that ends a finally body ends in a copy of its ``RERAISE``; the original follows
    the last branch in the same block (see :meth:`LegacyBlockStacks.legacy_link_reraise_copies`).
    """
    if not V.RETURN_COPIED_TO_BRANCHES or V.HAS_EXCEPTION_TABLE:
        return frozenset()
    return frozenset(k for k in ends if instrs[k].op == "RERAISE")


class LegacyBlockStacks:
    """Mixin of :class:`~uncompile.structure.walker.Walker`: block stacks of 3.8 - 3.10 code."""

    instrs: List[Any]
    blocks: List[Any]
    cfg: Any
    legacy_is_except: Any
    _legacy_finally_end: Any
    # (the walker's slots, all set first by its __init__: None, -1, [] and an empty set)
    _legacy_stacks: Optional[Stacks]
    #: The index of the ``LOAD_CONST None; RETURN_VALUE`` that ends the code (not its first
    #: instruction), -1 where it ends otherwise (and from 3.11 on).
    legacy_final_return_at: int
    #: The ``SETUP_*`` instructions (each ends a graph block), in layout order.
    _legacy_setups: List[Any]
    #: The blocks of a finally body's ``RERAISE`` and its copies, which meet (see below).
    reraise_joins: FrozenSet[int]

    def block_stacks(self) -> Stacks:
        """The block stack before each instruction (None where unreachable)."""
        if self._legacy_stacks is not None:
            return self._legacy_stacks
        if not self._legacy_setups:
            self._legacy_stacks = self._reachable_without_blocks()
            return self._legacy_stacks
        instrs = self.instrs
        n = len(instrs)
        stacks: Stacks = [None] * n
        heap: List[int] = []
        index_for, index_of = self.cfg.index_for, self.cfg.index_of
        blocks, block_of = self.blocks, self.cfg.block_of
        heappush = heapq.heappush
        # Instructions are visited lowest index first (the first stack to reach one is its
        # stack); the next one in line, when it is that, is visited without the heap. Only
        # the last instruction of a graph block jumps (or sets up a block): the ones before it
        # only fall through, each to the next, and most of those blocks pop no block, so their
        # instructions all share the first one's stack (filled as one slice).
        ops = list(map(_OP_OF, instrs))
        pops = _POPS_BLOCK.isdisjoint
        at: Optional[int] = None
        if n:
            stacks[0], at = (), 0
        while at is not None:
            here = stacks[at] or ()
            i = blocks[block_of[at]].end - 1  # the block's last instruction
            if i > at:
                body = ops[at:i]
                if pops(body):
                    stacks[at + 1 : i + 1] = [here] * (i - at)
                else:
                    for k, op in enumerate(body, at + 1):
                        if op in _POPS_BLOCK:
                            here = _after_pop(op, here)
                        stacks[k] = here
            ins = instrs[i]
            op = ops[i]
            fall: Optional[Tuple[Block, ...]] = None
            jump = -1  # where the block jumps (or its handler starts), with the stack *given* there
            target = ins.target
            if target is not None:  # (a target is the first instruction at its offset, but for a few)
                jump = index_of.get(target, -1)
                if jump < 0:
                    jump = index_for(target)
            if op in ("SETUP_FINALLY", "SETUP_WITH") and target is not None:
                if op == "SETUP_WITH":
                    given = here + (("wexc", jump),)
                    fall = here + (("with", i),)
                else:
                    given = here + (("exc" if self.legacy_is_except(jump) else "fin", jump),)
                    fall = here + (("try", i),)
            else:
                given = _after_pop(op, here) if op in _POPS_BLOCK else here
                if op not in ENDS_PATH and op != "JUMP":
                    fall = given
            if 0 <= jump < n and stacks[jump] is None:
                stacks[jump] = given
                heappush(heap, jump)
            at = i + 1
            if fall is not None and at < n and stacks[at] is None:
                stacks[at] = fall
                if not heap or heap[0] > at:
                    continue  # (the next one in line)
                heappush(heap, at)
            at = heapq.heappop(heap) if heap else None
        self._legacy_stacks = stacks
        return stacks

    def _reachable_without_blocks(self) -> Stacks:
        """The block stacks of code without ``SETUP_*``: empty where the graph reaches, else None
        (its edges are then the instructions' own jumps and falls)."""
        blocks = self.blocks
        reached = [False] * len(blocks)
        todo = [0] if blocks else []
        while todo:
            ident = todo.pop()
            if not reached[ident]:
                reached[ident] = True
                todo.extend(blocks[ident].succs)
        if all(reached):  # (most code: no dead code kept)
            return [()] * len(self.instrs)
        stacks: Stacks = []
        for block in blocks:
            stacks += [() if reached[block.id] else None] * (block.end - block.start)
        return stacks

    def legacy_link_handlers(self) -> None:
        """Give each block ending in ``SETUP_*`` its handler as a successor.

        The handler is entered from anywhere in the body, but for the graph's purposes
        (reachability, loops, where statements merge) one edge from the set-up suffices
        and leaves the body's own branches alone.
        """
        instrs, blocks, cfg = self.instrs, self.blocks, self.cfg
        setups: List[Any] = []
        for at in cfg.branches[0]:  # (a set-up has a target, and its block ends with it)
            last = instrs[at]
            if last.op in SETUP_OPS:
                setups.append(last)
                block = blocks[cfg.block_of[at]]
                target = cfg.block_of_offset(last.target)
                if target is not None and target.id not in block.succs:
                    block.succs.append(target.id)
                    target.preds.append(block.id)
        self._legacy_setups = setups

    def legacy_link_reraise_copies(self) -> None:
        """Give each copy of the ``RERAISE`` that ends a finally body a jump to the last one (3.10).

        3.10 copies that ``RERAISE`` to the end of each branch of an ``if`` in the body that
        jumped to it; for the graph (where statements merge) the branches still meet there,
        each ``RERAISE`` a block of its own (see :func:`reraise_leaders`).
        """
        if not V.RETURN_COPIED_TO_BRANCHES:
            return
        at = self.cfg.block_at_index
        for ins in self._legacy_setups:
            if ins.op != "SETUP_FINALLY":
                continue
            h = self.cfg.index_for(ins.target)
            if self.legacy_is_except(h):
                continue
            stacks = self.block_stacks()
            end = self._legacy_finally_end(h)
            if end is None:
                continue
            last = self.blocks[at[end]]
            for k in range(h, end):
                stack = stacks[k]
                if self.instrs[k].op == "RERAISE" and stack and stack[-1] == ("fin", h):
                    copy = self.blocks[at[k]]
                    copy.jump = last.id
                    copy.succs.append(last.id)
                    last.preds.append(copy.id)
                    self.reraise_joins |= {copy.id, last.id}

    def legacy_final_return_dead(self) -> bool:
        """Whether the code ends in an unreachable ``return None`` the compiler added (3.8, 3.9).

        Then a ``return None`` the walk produces last was written in the source. Sets
        :attr:`legacy_final_return_at`.
        """
        n = len(self.instrs)
        if (
            n >= 3
            and self.instrs[n - 1].op == "RETURN_VALUE"
            and self.instrs[n - 2].op == "LOAD_CONST"
            and self.instrs[n - 2].arg[0] is None
        ):
            self.legacy_final_return_at = n - 2
        if not V.KEEPS_DEAD_CODE or self.legacy_final_return_at < 0:
            return False
        block = self.blocks[self.cfg.block_of[n - 2]]
        if not block.preds:
            return block.id != 0  # (the common case, known without a search)
        return not self.cfg.reaches(n - 2)

    def _legacy_top_is(self, i: int, block: Block) -> bool:
        stack = self.block_stacks()[i]
        return bool(stack) and stack[-1] == block  # type: ignore[index]
