"""Basic blocks and the control-flow graph of one code object.

Blocks split at jump targets, after jumps and block-ending instructions, and at the
boundaries of exception-handler ranges (so a ``try`` body starts a block; a range that ends
at a conditional jump, which cannot raise, leaves the jump in the block before it). Edges are the
normal control flow only; exception edges are kept separately as handler entries.
"""

from __future__ import annotations

import dis
from bisect import bisect_left
from typing import Dict, FrozenSet, List, Optional, Set, Tuple

from ..bytecode import versions as V
from ..bytecode.exception_table import Handler
from ..bytecode.instructions import Instr
from ..bytecode.readings import ENDS_PATH

#: The instructions whose target is a handler to set up (3.8 - 3.10), no edge of the flow.
SETUP_OPS = frozenset(name for name in (*dis.opname, *V.RENAMED.values()) if name.startswith("SETUP_"))


class Block:
    """Instructions ``instrs[start:end]``; ``succs`` are block ids of normal successors.

    Only the graph makes them (``Block()``, then each field set): without an ``__init__`` of its
    own, the call is the interpreter's, with no Python-level frame."""

    __slots__ = ("id", "start", "end", "offset", "succs", "preds", "jump", "fall", "handlers")

    id: int
    start: int
    end: int
    offset: int  # of its first instruction
    succs: List[int]
    preds: List[int]
    jump: Optional[int]  # block id a jump at the end goes to
    fall: Optional[int]  # block id reached by falling through
    handlers: List[int]  # blocks an exception here may jump to (first block of a range)

    def __repr__(self) -> str:
        return "<Block %d @%d [%d:%d] jump=%s fall=%s>" % (
            self.id,
            self.offset,
            self.start,
            self.end,
            self.jump,
            self.fall,
        )


class ControlFlowGraph:
    """Blocks in layout order plus lookup from offsets to blocks."""

    __slots__ = (
        "instrs",
        "_extra_leaders",
        "handlers",
        "branches",
        "index_of",
        "_offsets",
        "blocks",
        "block_at_index",
        "block_of",
        "loop_candidates",
    )

    def __init__(
        self,
        instrs: List[Instr],
        handlers: List[Handler],
        leaders: FrozenSet[int] = frozenset(),
        index_of: Optional[Dict[int, int]] = None,
        branches: Optional[Tuple[List[int], List[int]]] = None,
    ) -> None:
        """*leaders*: indices of more instructions that start blocks; *index_of*: the index of
        the first instruction at each offset, *branches*: the indices of the instructions with a
        target and of those that end a path (:data:`ENDS_PATH`), when the caller has them (the
        reader finds them: :class:`~uncompile.bytecode.instructions.CodeReading`)."""
        self.instrs = instrs
        self._extra_leaders = leaders
        self.handlers = handlers
        if index_of is None:
            index_of = {ins.offset: ins.index for ins in reversed(instrs)}
        #: the indices of the instructions with a target and of those that end a path
        self.branches = branches or branch_indices(instrs)
        self.index_of = index_of  # the first instruction at each offset
        self._offsets: Optional[List[int]] = None  # of every instruction, in order (made when needed)
        self.blocks: List[Block] = []
        self.block_at_index: Dict[int, int] = {}  # the block starting at each leader's index
        self.block_of: List[int] = []  # the block holding each instruction, by index
        #: the blocks that can head a loop: those ending in ``FOR_ITER`` and those that a jump from
        #: a block laid out at or after them reaches (edges added later all go forward)
        self.loop_candidates: Set[int] = set()
        self._build()

    def index_for(self, offset: int) -> int:
        """Index of the first instruction at or after *offset*."""
        index = self.index_of.get(offset)
        if index is not None:
            return index
        if self._offsets is None:
            self._offsets = [ins.offset for ins in self.instrs]  # in order: instructions keep their layout
        return bisect_left(self._offsets, offset)

    def block_of_offset(self, offset: int) -> Optional[Block]:
        index = self.index_for(offset)
        ident = self.block_at_index.get(index)
        return self.blocks[ident] if ident is not None else None

    def reaches(self, index: int) -> bool:
        """Whether the instruction at *index* can be reached from the first one by the edges
        of the graph (as they are now)."""
        goal = self.block_of[index]
        blocks = self.blocks
        # The earliest predecessor of each block, back from the goal while each lies before the
        # last, is a path to the first block for most (no search); otherwise search from there.
        at = goal
        while at:
            preds = blocks[at].preds
            earliest = min(preds) if preds else at
            if earliest >= at:
                break
            at = earliest
        else:
            return True
        seen = {0}
        todo = [0]
        while todo:
            ident = todo.pop()
            if ident == goal:
                return True
            for succ in blocks[ident].succs:
                if succ not in seen:
                    seen.add(succ)
                    todo.append(succ)
        return False

    def _leaders(self) -> Set[int]:
        """The indices of the instructions that start a block."""
        instrs = self.instrs
        index_for = self.index_for
        index_of = self.index_of
        leaders: Set[int] = {0} | self._extra_leaders
        add = leaders.add
        jumps, ends = self.branches
        for at in jumps:
            ins = instrs[at]
            if ins.op == "FOR_ITER":  # a loop header, even when its body never jumps back
                add(at)
            target = ins.target
            index = index_of.get(target)  # type: ignore[arg-type]
            add(index_for(target) if index is None else index)  # type: ignore[arg-type]
            add(at + 1)
        leaders.update([at + 1 for at in ends])
        for entry in self.handlers:
            for offset in (entry.start, entry.end, entry.target):
                index = index_for(offset)
                if offset == entry.end and index < len(instrs) and instrs[index].op in V.CONDITIONAL_JUMPS:
                    continue  # a jump left uncovered (3.13+) cannot raise: it ends the block before it
                leaders.add(index)
        return leaders

    def _build(self) -> None:
        instrs = self.instrs
        count = len(instrs)
        leaders = self._leaders()
        leaders.discard(count)  # after the last instruction (no leader lies further)
        starts = sorted(leaders)
        idents = range(len(starts))
        # every block's place is known before any is made: edges are set as each block is made,
        # forward ones into the lists of predecessors made here
        block_at_index = self.block_at_index
        block_at_index.update(zip(starts, idents))
        preds: List[List[int]] = [[] for _ in idents]
        blocks = self.blocks
        block_of = self.block_of
        index_of = self.index_of
        loop_candidates = self.loop_candidates
        new = Block
        for ident, start, end in zip(idents, starts, starts[1:] + [count]):
            block = new()
            block.id = ident
            block.start = start
            block.end = end
            block.offset = instrs[start].offset
            block.preds = preds[ident]
            block.handlers = []
            blocks.append(block)
            block_of += [ident] * (end - start)
            last = instrs[end - 1]
            op = last.op
            if op not in ENDS_PATH and op != "JUMP" and end < count:
                block.fall = fall = ident + 1
                succs = [fall]
                preds[fall].append(ident)
            else:
                block.fall = fall = None
                succs = []
            block.succs = succs
            target = last.target
            if target is None or op in SETUP_OPS:
                block.jump = None
            else:
                index = index_of.get(target)
                block.jump = jump = block_at_index.get(self.index_for(target) if index is None else index)
                if jump is not None and jump != fall:
                    succs.append(jump)
                    preds[jump].append(ident)
                    if jump <= ident:
                        loop_candidates.add(jump)
            if op == "FOR_ITER":
                loop_candidates.add(ident)
        if self.handlers:
            self._link_handlers()

    def _link_handlers(self) -> None:
        """A try statement's handler joins the flow after it: an edge from the block before the
        protected range (not from inside it, so the body's own structure is unaffected)."""
        instrs = self.instrs
        block_of = self.block_of
        first_start: Dict[int, int] = {}
        for entry in self.handlers:
            first_start[entry.target] = min(first_start.get(entry.target, entry.start), entry.start)
        for target_offset, start in first_start.items():
            target_index = self.index_for(target_offset)
            if (
                target_index >= len(instrs)
                or instrs[target_index].op != "PUSH_EXC_INFO"
                or (target_index + 1 < len(instrs) and instrs[target_index + 1].op == "WITH_EXCEPT_START")
            ):
                continue
            body = self.index_for(start)
            if body == 0:
                continue
            source_block = self.blocks[block_of[body - 1]]
            first = self.blocks[self.block_at_index[body]]
            if len(first.preds) > 1 and instrs[first.end - 1].op not in V.CONDITIONAL_JUMPS:
                # a try at a join (after an if/else): the paths meet at its first block, whose
                # one way on the edge joins (none of the body's branches start there)
                source_block = first
            target = self.block_at_index.get(target_index)
            if target is not None and target not in source_block.handlers:
                source_block.handlers.append(target)


def branch_indices(instrs: List[Instr]) -> Tuple[List[int], List[int]]:
    """The indices of the instructions of *instrs* with a target, and of those that end a path."""
    jumps = [index for index, ins in enumerate(instrs) if ins.target is not None]
    return jumps, [index for index, ins in enumerate(instrs) if ins.op in ENDS_PATH]


def last_instr(cfg: ControlFlowGraph, block: Block) -> Instr:
    """The block's final instruction."""
    return cfg.instrs[block.end - 1]


__all__ = ["Block", "ControlFlowGraph", "SETUP_OPS", "last_instr", "V"]
