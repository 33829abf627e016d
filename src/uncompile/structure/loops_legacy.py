"""Loop layout rules of CPython 3.8 - 3.10: which blocks a loop holds and where it leaves.

Before 3.11 the compiler lays a loop out in source order and keeps some dead code: every block
between a loop's header and its last one belongs to it, even code that only leaves it; a loop's
own jump back stays behind after a ``continue`` that ends its body; statements after a loop that
never ends stay behind, unreachable. A mixin of :class:`~uncompile.structure.walker.Walker`,
beside :class:`.layout_legacy.LegacyLayout` (branches) and :class:`.blocks_legacy.LegacyBlocks`.
"""

from __future__ import annotations

import ast
import dis
from typing import Any, Dict, List, Optional, Tuple

from ..bytecode import versions as V
from .context import Context

_JUMP_ABSOLUTE = dis.opmap.get("JUMP_ABSOLUTE", -1)
_JUMP_FORWARD = dis.opmap["JUMP_FORWARD"]


class LegacyLoopLayout:
    """Loop layout rules for 3.8 - 3.10; uses the walker's graph and helpers."""

    _legacy_dead_final_return: Any
    _legacy_lone_jump: Any
    _loopless_exits: Any
    block_of: Any
    block_stacks: Any
    blocks: Any
    cfg: Any
    code: Any
    instrs: Any
    while_loop: Any

    def legacy_mark_written_continues(self, body: List[ast.stmt], header: int) -> None:
        """Mark the ``continue`` statements that end *body* (of the loop at block *header*) as written.

        3.8 - 3.9 keep the loop's own jump back after a ``continue`` that ends the body (also
        as the last statement of a trailing ``if``'s branch), dead: the ``continue`` was written.
        Where the walk ended an ``if`` at that ``continue``'s jump, it follows the ``if``.
        """
        if not V.KEEPS_DEAD_CODE:
            return
        pending = [body]
        while pending:
            stmts = pending.pop()
            at = len(stmts) - 1
            if at >= 0 and isinstance(stmts[at], ast.Continue):
                if self._legacy_jumps_to_dead_back_edge(stmts[at], header):
                    stmts[at].uncompile_written = True  # type: ignore[attr-defined]
                    continue
                at -= 1  # the loop's own end: the statement before it ends the body
            last = stmts[at] if at >= 0 else None
            if not isinstance(last, ast.If):
                continue
            if self._legacy_jumps_to_dead_back_edge(last, header):
                written = ast.Continue()
                written.uncompile_written = True  # type: ignore[attr-defined]
                stmts.insert(at + 1, written)
            else:
                pending.extend((last.body, last.orelse))

    def _legacy_jumps_to_dead_back_edge(self, stmt: ast.stmt, header: int) -> bool:
        """Whether *stmt* ran a jump to block *header* that an unreachable one there follows."""
        target = self.blocks[header].offset
        index_for = self.cfg.index_for
        for offset in reversed(getattr(stmt, "uncompile_offsets", ())):  # (the last such jump)
            k = index_for(offset)
            ins = self.instrs[k]
            if ins.op == "JUMP" and ins.target == target:
                return self._legacy_dead_jump_to(k + 1, header)
        return False

    def _legacy_dead_jump_to(self, k: int, header: int) -> bool:
        """Whether instruction *k* is an unreachable jump, a block of its own, to block *header*."""
        if k >= len(self.instrs):
            return False
        block = self.blocks[self.block_of[k]]
        dead = block.start == k and not block.preds
        return dead and self._legacy_lone_jump(block.id) and block.jump == header

    def legacy_loop_span(self, header: int, body: Any) -> Any:
        """The blocks laid out between a loop's header and its last block (3.8 - 3.10 layout).

        Code that leaves the loop with ``break``/``return`` (an ``except`` clause ending in
        ``break``) never reaches the back edge, yet sits inside the loop's span. So do the
        blocks after it that are inside a with or try the loop opens (their block stack is
        the header's and more: ``while True: with l: (if c: continue) ...; return``).
        """
        last = max(body)
        stacks = self.block_stacks()
        span = {b for b in range(header, last + 1) if stacks[self.blocks[b].start] is not None}
        outer = stacks[self.blocks[header].start] or ()
        b = last + 1
        while b < len(self.blocks):
            here = stacks[self.blocks[b].start]
            if here is None or len(here) <= len(outer) or here[: len(outer)] != outer:
                break
            span.add(b)
            b += 1
        if b > last + 1 and b < len(self.blocks) and self._legacy_with_end(b, span, stacks):
            span.add(b)
        return span

    def _legacy_with_end(self, b: int, span: Any, stacks: Any) -> bool:
        """Whether block *b*, after the blocks of a with or try the loop opens, is the code after
        that statement ending the function: only they reach it, a handler's path among them
        (where the with goes on when its exit swallows the exception; a ``break`` out of the
        with goes past the loop, where no handler path goes)."""
        block = self.blocks[b]
        if block.succs or not block.preds or not all(p in span for p in block.preds):
            return False
        for p in block.preds:
            here = stacks[self.blocks[p].start]
            if here and here[-1][0] in ("exc", "fin", "wexc"):
                return True
        return False

    def legacy_threaded_last_break(self, head: Any, body: Any, exit_b: int) -> bool:
        """``while True: (if c: return x); break`` (3.8 - 3.9): the body never reaches its end, so
        the loop's jump back is dead, and so is the ``break`` before it, a lone jump to the exit
        that the test of the ``if`` was threaded past: that test, in the loop's first block,
        jumps to the exit like a ``while c`` test would, yet it is the body's first statement
        (a ``while c`` whose body ends the path keeps no ``break`` after it)."""
        if not V.KEEPS_DEAD_CODE:
            return False
        last = max(body)
        if last < 1 or not self._legacy_dead_jump_to(self.blocks[last].start, head.id):
            return False
        before = self.blocks[last - 1]
        return (
            before.id != head.id
            and not before.preds
            and self._legacy_lone_jump(before.id)
            and before.jump == exit_b
            and head.jump == exit_b
        )

    def legacy_loop_without_back_edge(self, block: Any, ctx: Context, stack: List[Any]) -> int:
        """``while True: try: f() / except E: break / return x`` (3.8 - 3.9): a loop whose body
        never reaches its end keeps no jump back (the one after a ``return`` is optimized away),
        only its ``break``s, absolute jumps forward to the code after the loop. The loop starts
        at *block* when the statements from there up to that code hold the first of them and
        only leave to there (or end the path); -1 when no such loop starts at *block*."""
        exits = self._loopless_exits  # (filled by the walk: legacy_loopless_exits)
        if not exits:
            return -1
        blocks = self.blocks
        for exit_b, first in exits.items():
            if not block.id <= first < exit_b or (ctx.loop is not None and ctx.loop.break_to == exit_b):
                continue
            if not ctx.lo <= blocks[exit_b].offset <= ctx.hi or exit_b in ctx.stops:
                continue
            body = range(block.id, exit_b)
            if all(
                block.id <= succ <= exit_b for b in body for succ in blocks[b].succs + blocks[b].handlers
            ) and all(block.id <= p < exit_b for b in body[1:] for p in blocks[b].preds):
                return self.while_loop(block.id, set(body), ctx, stack)
        return -1

    def legacy_loopless_exits(self) -> Dict[int, int]:
        """The blocks that only the ``break``s of a loop without a jump back reach (see
        :meth:`legacy_loop_without_back_edge`) -> the first block that jumps there: where an
        absolute jump forward goes and no relative one does (an if's jump past its else, which
        the optimizer sends on as an absolute jump where it led to another jump, leaves one
        behind), which code before it does not fall into, nor the end of a for loop."""
        found: Dict[int, int] = {}
        if not V.KEEPS_DEAD_CODE:
            return found
        blocks, raw, instrs, block_of = self.blocks, self.code.co_code, self.instrs, self.block_of
        relative = set()
        for k in self.cfg.branches[0]:  # (the instructions with a target, each the last of its block)
            last = instrs[k]
            op = last.op
            if op != "JUMP" and op != "FOR_ITER":
                continue
            b = blocks[block_of[k]]
            if b.jump is None:
                continue
            if op == "FOR_ITER" or raw[last.offset] == _JUMP_FORWARD:
                relative.add(b.jump)
            elif raw[last.offset] == _JUMP_ABSOLUTE and blocks[b.jump].offset > b.offset:
                found.setdefault(b.jump, b.id)
        back_edges: Optional[List[Tuple[int, int]]] = None
        for exit_b in list(found):
            if exit_b in relative or blocks[exit_b - 1].fall == exit_b:
                del found[exit_b]
                continue
            if back_edges is None:  # (block, where it jumps back to): few, the loops'
                back_edges = [(b.id, s) for b in blocks for s in b.succs if s <= b.id]
            first = found[exit_b]
            # a jump back from a block between the first jump there and there, to that first
            # block or before: a loop around the jump, which is that loop's ``break``
            if any(first <= b < exit_b and s <= first for b, s in back_edges):
                del found[exit_b]
        return found

    def legacy_dead_code_after(self, body: Any, ctx: Context) -> Optional[int]:
        """Where the statements written after a loop that never ends start (3.8 - 3.9 keep them,
        unreachable, right after the loop's last block); None where none follow (a lone jump
        there ends an enclosing branch, the code's own ``return None`` ends the function)."""
        ident = max(body) + 1
        if ident >= len(self.blocks):
            return None
        block = self.blocks[ident]
        if (
            block.preds
            or block.start >= ctx.until
            or not ctx.lo <= block.offset < ctx.hi
            or self._legacy_lone_jump(ident)
            or self._legacy_dead_final_return(block.start)
        ):
            return None
        return block.start

    def legacy_loop_exits(self, body: Any, outs: Any) -> Any:
        """The blocks of *outs* a loop can really exit to: those with the header's block stack.

        A ``break`` leaves the blocks it is in before jumping, so a loop's exits have the
        block stack of its header; handler code reached only by an exception does not.
        Code after a loop is reached by a jump (the test, ``break``), never by falling
        through from the body (that is an ``if`` inside it ending in ``raise``/``return``),
        except a ``break`` that is a block of its own, which an ``if``'s test falls into: a
        lone jump, whose target is an exit unless no other ``break`` or test jumps there
        (it may lie past the loop's ``else``).
        """
        if not body or not outs:
            return outs
        stacks = self.block_stacks()
        header = min(body)  # (block ids follow the layout)
        expected = stacks[self.blocks[header].start]
        exits = {
            s
            for s in outs
            if stacks[self.blocks[s].start] == expected
            and self.instrs[self.blocks[s].end - 1].op != "RERAISE"
        }
        jumped = {
            s for s in exits if any(self.blocks[p].jump == s for p in self.blocks[s].preds if p in body)
        }
        return jumped | {s for s in exits if self._legacy_lone_jump(s) and self.blocks[s].jump not in jumped}
