"""Exit blocks the compiler copied into the paths that jump to them (3.10+).

A jump to a small block that ends the function (a ``return``/``raise`` of at most a few
instructions) is replaced by a copy of that block. ``break`` out of a ``for`` loop pops the
iterator and jumps to the code after the loop (after its ``else``); when that code is such an
exit, the ``break`` becomes the pops followed by the copy. A ``return`` written in the loop
body computes its value before popping the iterator, so the pops first are a ``break``.

The copy is the end of the first block after the loop's exit that leaves the function; what
that block holds before it is the loop's ``else`` (which ``break`` skips).

``break`` out of a ``while`` loop has no iterator to pop: its copy follows what leaves the
statements it is in (an except clause's ``POP_EXCEPT``, a with's exit call, a finally body's
copy, the end of a try body's range) and ends the block. A ``return`` written there computes
its value before leaving them, except a constant's (loaded after): that stays a return.

A chained comparison's cleanup (``POP_TOP`` of the kept operand) that falls into a small exit
instead of jumping to a copy of it falls into an ``else`` branch (of an ``if`` or a ternary):
the exit is no follow that the cleanup jumps to.

A ternary inside an expression that is returned (``return f(a if c else b)``) jumps from its
first branch to the rest of the expression; when that rest is such an exit, each branch ends
in a copy of it: the two branches compute one value each, then run the same instructions.
"""

import ast
from typing import Any, List, Optional

from ..bytecode import versions as V
from ..expressions import values as M
from ..expressions.conditions import Node, negate
from ..flow.cfg import ENDS_PATH
from .context import Context
from .pure_blocks import pure_value


def is_copied_break(walker: Any, i: int, ctx: Context, stack: List[Any]) -> bool:
    """Whether the ``POP_TOP`` at *i* starts a ``break`` whose jump was replaced by the loop's exit.

    Records where the copied code starts in the exit block (``walker.copied_break_cuts``).
    """
    loop = ctx.loop
    if (
        not V.COPIES_SMALL_EXITS
        or loop is None
        or loop.break_to is None
        or walker.instrs[walker.blocks[loop.header].start].op != "FOR_ITER"
        or len(stack) < V.ITERATOR_SLOTS
        or not isinstance(stack[-V.ITERATOR_SLOTS], M.Iterator)
    ):
        return False
    block = walker.blocks[walker.block_of[i]]
    if any(ins.op != "POP_TOP" for ins in walker.instrs[i : i + V.ITERATOR_SLOTS]):
        return False
    if i > block.start and walker.instrs[i - 1].op == "SWAP":
        return False  # ``return x``: the value was moved below the iterator
    copy = walker.instrs[i + V.ITERATOR_SLOTS : block.end]
    if not copy or copy[-1].op not in ENDS_PATH:
        return False
    if [ins.op for ins in copy] == ["LOAD_CONST", "RETURN_VALUE"]:
        return False  # ``return <constant>`` in the body pops the iterator first too: keep it
    exit = _first_exit_block(walker, loop.break_to)
    if exit is None or exit.end - exit.start < len(copy):
        return False
    cut = exit.end - len(copy)
    if any(p.op != q.op or p.arg != q.arg for p, q in zip(copy, walker.instrs[cut : exit.end])):
        return False
    return walker.copied_break_cuts.setdefault(loop.header, cut) == cut


def while_exit_copy(walker: Any, block: Any, ctx: Context) -> int:
    """Where a copy of the exit of the ``while`` loop being walked ends *block*: the index where
    the copy starts, -1 if it does not end with one."""
    loop = ctx.loop
    if not V.COPIES_SMALL_EXITS or loop is None or loop.break_to is None or loop.break_to == block.id:
        return -1
    instrs = walker.instrs
    exit = walker.blocks[loop.break_to]
    size = exit.end - exit.start
    start = block.end - size
    if (
        instrs[block.end - 1].op != instrs[exit.end - 1].op
        or start < block.start
        or size > V.LONGEST_COPIED_EXIT
        or instrs[exit.end - 1].op not in ENDS_PATH
        or instrs[exit.start].op == "LOAD_CONST"
        or instrs[walker.blocks[loop.header].start].op == "FOR_ITER"
    ):
        return -1
    if any(
        p.op != q.op or p.arg != q.arg or p.target is not None
        for p, q in zip(instrs[start : block.end], instrs[exit.start : exit.end])
    ):
        return -1
    return start


def exit_after_chain_cleanup(walker: Any, block_id: Optional[int]) -> bool:
    """Whether *block_id* is a small exit that a chained comparison's cleanup falls or jumps into
    (an ``else`` branch: a follow would have been copied into the cleanup, 3.12+)."""
    if not V.COPIES_EXITS_WITH_LINES or block_id is None:
        return False
    block = walker.blocks[block_id]
    instrs = walker.instrs
    if block.end - block.start > V.LONGEST_COPIED_EXIT or instrs[block.end - 1].op not in ENDS_PATH:
        return False
    for p in block.preds:
        cleanup = walker.blocks[p]
        ops = [ins.op for ins in instrs[cleanup.start : cleanup.end]]
        if (ops == ["POP_TOP"] and cleanup.fall == block_id) or (
            ops == ["POP_TOP", "JUMP"] and cleanup.jump == block_id
        ):
            return True
    return False


def _first_exit_block(walker: Any, start: int) -> Optional[Any]:
    """The first block from *start* on (in layout order) that ends the function."""
    for block in walker.blocks[start:]:
        if walker.instrs[block.end - 1].op in ENDS_PATH:
            return block
    return None


def copied_tail_ternary(walker: Any, head: Node, fall: Optional[int], stack: List[Any]) -> Optional[int]:
    """``f(a if c else b)`` returned: push the ternary and return where the walk goes on (the
    copied rest of the expression in the second branch), or None if the test is no such one.

    Only while an expression is being built (a value on *stack*): a test between statements
    is an ``if`` whose branches may well end alike; unless the second branch is a small exit
    that a chained comparison's cleanup falls into (a follow would be copied there).
    """
    if (
        not V.COPIES_SMALL_EXITS
        or not isinstance(head.true, int)
        or not isinstance(head.false, int)
        or fall not in (head.true, head.false)
    ):
        return None
    first, second = walker.blocks[fall], walker.blocks[head.false if fall == head.true else head.true]
    if len(first.preds) != 1 or len(second.preds) not in (1, 2):
        return None
    if len(second.preds) == 2:  # the chain's last test and its cleanup
        if not exit_after_chain_cleanup(walker, second.id):
            return None
    elif all(M.is_marker(value) for value in stack):
        return None
    first_end, second_end = _straight_end(walker, first), _straight_end(walker, second)
    if any(walker.instrs[end - 1].op not in ENDS_PATH for end in (first_end, second_end)):
        return None
    size = min(first_end - first.start, second_end - second.start, V.LONGEST_COPIED_EXIT + 1)
    for k in range(1, size):  # the shortest common rest whose two heads each push one value
        p, q = walker.instrs[first_end - k], walker.instrs[second_end - k]
        if p.op != q.op or p.arg != q.arg:
            return None
        body = pure_value(walker, first.start, first_end - k, stack)
        orelse = pure_value(walker, second.start, second_end - k, stack) if body is not None else None
        if body is not None and orelse is not None:
            test = head.expr if fall == head.true else negate(head.expr)
            stack.append(ast.IfExp(test=test, body=body, orelse=orelse))
            return second_end - k
    return None


def _straight_end(walker: Any, block: Any) -> int:
    """The end of the instructions run straight on from *block*: through the blocks it falls
    into alone, without a jump (a try's range may end inside a branch)."""
    while walker.instrs[block.end - 1].op not in ENDS_PATH and block.jump is None and block.fall is not None:
        following = walker.blocks[block.fall]
        if following.preds != [block.id]:
            break
        block = following
    return block.end
