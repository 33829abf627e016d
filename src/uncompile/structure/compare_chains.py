"""Chained comparisons (``a < b < c``) rebuilt from their short-circuit jumps.

The compiler evaluates ``a < b < c`` as ``a < b`` with a copy of ``b`` kept on the stack,
jumps to a cleanup block (``POP_TOP``, or ``SWAP 2; POP_TOP`` for a value) when it is
false, and otherwise compares the kept ``b`` with ``c``. :class:`CompareChains` follows
those blocks and returns one ``ast.Compare``.
"""

from __future__ import annotations

import ast
from typing import Any, List, Optional, Tuple

from ..bytecode import versions as V
from ..expressions.conditions import Node


class CompareChains:
    """Mixin of the walker; see the module docstring."""

    blocks: List[Any]
    instrs: List[Any]
    sim: Any
    block_of: List[int]

    def _run_pure(self, block_id: int, start: int, work: List[Any]) -> Optional[str]:
        block = self.blocks[block_id]
        try:
            with self.sim.scratch():
                for i in range(start, block.end - 1):
                    ins = self.instrs[i]
                    if ins.target is not None or ins.op.startswith(("STORE", "DELETE", "RETURN", "POP_TOP")):
                        return None
                    self.sim.step(ins, work)
                return None if self.sim.out else self.instrs[block.end - 1].op
        except Exception:  # noqa: BLE001 - a failed tentative evaluation just means "not a chain"
            return None

    def _value_link(self, b: int, start: int, work: List[Any], middle: Any) -> Optional[Tuple[Any, int]]:
        """Run a value chain's next link up to its comparison; (comparison, next index)."""
        try:
            with self.sim.scratch():
                i = start
                while i < self.blocks[b].end:
                    ins = self.instrs[i]
                    if ins.target is not None or ins.op.startswith(("STORE", "DELETE", "RETURN", "POP_TOP")):
                        return None
                    self.sim.step(ins, work)
                    i += 1
                    top = work[-1] if work else None
                    if isinstance(top, ast.Compare) and top.left is middle and len(top.ops) == 1:
                        return None if self.sim.out else (top, i)
                return None
        except Exception:  # noqa: BLE001 - not a chain after all
            return None

    def compare_chain(
        self, block_id: int, first: ast.Compare, value: bool, stack: List[Any]
    ) -> Optional[Tuple[Any, Optional[int], Optional[int]]]:
        """Follow a chain whose first comparison ends *block_id*.

        Returns ``(node, fall, None)`` for a condition, ``(expr, None, next_block)`` for a
        value, or None when the blocks are not a comparison chain (*stack* untouched).
        """
        middle = stack[-1]
        base = stack[:-1]
        combined = ast.Compare(left=first.left, ops=list(first.ops), comparators=list(first.comparators))
        cleanup = self.blocks[block_id].jump
        b = self.blocks[block_id].fall
        while b is not None:
            start = self.blocks[b].start + (1 if value else 0)
            work = base + [middle]
            if value:
                found = self._value_link(b, start, work, middle)
                if found is None:
                    return None
                top, after = found
                combined.ops.extend(top.ops)
                combined.comparators.extend(top.comparators)
                copy = self.instrs[after] if after < len(self.instrs) else None
                if (
                    copy is not None
                    and copy.op == "COPY"
                    and len(work) == len(base) + 2
                    and work[-2] is top.comparators[-1]
                ):
                    jump = self.instrs[after + 1]
                    link = self.blocks[self.block_of[after + 1]]
                    if jump.op in V.CONDITIONAL_JUMPS and link.jump == cleanup:
                        middle = work[-2]
                        b = link.fall
                        continue
                if len(work) != len(base) + 1:
                    return None
                del stack[:]
                stack.extend(base)
                if copy is not None and copy.op == "JUMP":
                    return combined, None, self.blocks[self.block_of[after]].jump
                return combined, None, -1 - after
            last = self._run_pure(b, start, work)
            if last is None and self.blocks[b].end - 1 < start:
                return None
            top = work[-1] if work else None
            if not value and top is middle and last in ("POP_JUMP_IF_NONE", "POP_JUMP_IF_NOT_NONE"):
                return self._none_link(b, combined, middle, base, stack)
            if not isinstance(top, ast.Compare) or top.left is not middle:
                return None
            dup = len(work) >= 2 and work[-2] is top
            rest = work[:-2] if dup else work[:-1]
            combined.ops.extend(top.ops)
            combined.comparators.extend(top.comparators)
            end = self.blocks[b].end - 1
            if (
                len(rest) == len(base) + 1
                and rest[-1] is top.comparators[-1]
                and self.blocks[b].jump == cleanup
            ):
                middle = rest[-1]
                b = self.blocks[b].fall
                continue
            if len(rest) != len(base):
                return None
            del stack[:]
            stack.extend(base)
            if value:
                if last != "JUMP":
                    return None
                return combined, None, self.blocks[b].jump
            if last not in V.CONDITIONAL_JUMPS:
                return None
            node, fall = self._node(b, combined, end, False)  # type: ignore[attr-defined]
            if fall is not None:
                lone = self.blocks[fall]
                if (
                    lone.end - lone.start == 1
                    and self.instrs[lone.start].op == "JUMP"
                    and self.blocks[lone.jump].offset > lone.offset
                ):
                    # the jump past the cleanup to the chain's exit (one back to a loop's header
                    # is that loop's next iteration: the if's branch, as after any test)
                    target = lone.jump
                    node = Node(
                        node.entry,
                        node.expr,
                        target if node.true == fall else node.true,
                        target if node.false == fall else node.false,
                    )
                    fall = target
            return node, fall, None
        return None

    def _none_link(
        self, b: int, combined: ast.Compare, middle: Any, base: List[Any], stack: List[Any]
    ) -> Tuple[Any, Optional[int], None]:
        """``a is b is None``: 3.12+ test the last link with ``POP_JUMP_IF_[NOT_]NONE``."""
        combined.ops.append(ast.Is())
        combined.comparators.append(ast.Constant(value=None))
        del stack[:]
        stack.extend(base)
        block = self.blocks[b]
        if self.instrs[block.end - 1].op == "POP_JUMP_IF_NONE":
            return Node(b, combined, block.jump, block.fall), block.fall, None
        return Node(b, combined, block.fall, block.jump), block.fall, None
