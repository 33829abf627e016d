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

The statement after an ``if``/``elif``/``else`` that ends the function (3.10, 3.12+ copy it
also where it has a line of its own) ends each branch: walked, the ``if`` ends with a copy of
it and the code after the ``if`` is the ``else``, ending with it too. The copies of one statement
carry its line: the ``if`` gets that code as its ``else`` and the statement stands once after
it (:func:`join_copied_exits`), as written. When the branches are then one assignment each to
the same target, stored on one line, they are a ternary (``y = a if c else b``) whose store
was copied with the exit.
"""

import ast
import dis
from bisect import bisect_left
from typing import Any, List, Optional, Tuple

from ..bytecode import versions as V
from ..expressions import values as M
from ..expressions.conditions import Node, negate, tested_blocks
from ..flow.cfg import ENDS_PATH
from .context import Context
from .pure_blocks import pure_value
from .statements import same_tree


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
    """The first block from the loop's exit *start* on (in layout order) that ends the function,
    where the blocks before it lead only to one another and to it (None otherwise).

    Those blocks are the loop's ``else``, which a ``break`` skips, and it goes on where the break
    goes. An exit block that one of them branches past is none of the code after the loop: a
    branch of that code (``if c: return`` inside a try, ``POP_BLOCK; return None``), which a
    ``return`` in the loop's body (the iterator popped, then the same) is no copy of.
    """
    blocks = walker.blocks
    for block in blocks[start:]:
        if walker.instrs[block.end - 1].op in ENDS_PATH:
            last = block.id
            if any(not start <= s <= last for b in blocks[start:last] for s in b.succs):
                return None
            return block
    return None


def copied_tail_ternary(
    walker: Any, head: Node, fall: Optional[int], nodes: List[Node], ctx: Context, stack: List[Any]
) -> Optional[int]:
    """``f(a if c else b)`` returned: push the ternary and return where the walk goes on (the
    copied rest of the expression in the second branch), or None if the test is no such one.
    The test may be several (``f(a if c and d else b)``, the condition *nodes* reduced to
    *head*): the blocks that test them are the only ones that reach the branches.

    Only while an expression is being built (a value on *stack*): a test between statements
    is an ``if`` whose branches may well end alike; unless the second branch is a small exit
    that a chained comparison's cleanup falls into (a follow would be copied there), or the
    second branch's value meets where a jump reaches a small exit that was not copied for it
    (:func:`_meets_past_copy`: ``return 0 if x else (a if b else c) + 1``; 3.10, 3.12+, which
    copy such an exit also where it has a line).
    """
    if (
        not V.COPIES_SMALL_EXITS
        or not isinstance(head.true, int)
        or not isinstance(head.false, int)
        or fall not in (head.true, head.false)
    ):
        return None
    first, second = walker.blocks[fall], walker.blocks[head.false if fall == head.true else head.true]
    tests = tested_blocks(nodes)
    for p in first.preds:  # (a loop, not any() over a generator: asked at every if)
        if p not in tests:
            return None
    between_statements = False
    if len(second.preds) == 2 and exit_after_chain_cleanup(walker, second.id):
        pass  # the chain's last test and its cleanup
    elif any(p not in tests for p in second.preds):
        return None
    elif not stack or all(M.is_marker(value) for value in stack):
        between_statements = True  # (no value: most tests are between statements)
    if between_statements:  # (the first branch's end not needed)
        if (
            not V.COPIES_EXITS_WITH_LINES
            or walker.instrs[_straight_end(walker, second) - 1].op not in V.CONDITIONAL_JUMPS
        ):
            return None
        return _tested_branches_ternary(walker, head, fall, ctx, stack, past_copy=True)
    first_end, second_end = _straight_end(walker, first), _straight_end(walker, second)
    if walker.instrs[second_end - 1].op in ENDS_PATH and walker.instrs[first_end - 1].op == "JUMP":
        return _jump_to_copied_tail(walker, head, fall, first, second_end, stack)
    if any(walker.instrs[end - 1].op in V.CONDITIONAL_JUMPS for end in (first_end, second_end)):
        return _tested_branches_ternary(walker, head, fall, ctx, stack)
    if any(walker.instrs[end - 1].op not in ENDS_PATH for end in (first_end, second_end)):
        return None
    size = min(first_end - first.start, second_end - second.start, V.LONGEST_COPIED_EXIT + 1)
    for k in range(1, size):  # the shortest common rest whose two heads each push one value
        p, q = walker.instrs[first_end - k], walker.instrs[second_end - k]
        if p.op != q.op or p.arg != q.arg:
            return None
        body = pure_value(walker, first.start, first_end - k, stack)
        orelse = pure_value(walker, second.start, second_end - k, stack) if body is not None else None
        if body is not None and orelse is not None and not (_string_part(body) or _string_part(orelse)):
            test = head.expr if fall == head.true else negate(head.expr)
            stack.append(ast.IfExp(test=test, body=body, orelse=orelse))
            return second_end - k
    return None


def _string_part(value: Any) -> bool:
    """Whether *value* is a replacement field of an f-string (or t-string) being built, which the
    string's ``BUILD_STRING`` takes: no value of its own (``f"{'s' if c else ''}"`` returned, its
    ``FORMAT_VALUE`` copied into each branch with the rest: the ternary is of what it formats)."""
    return type(value).__name__ in _STRING_PARTS


_STRING_PARTS = frozenset(["FormattedValue", "Interpolation"])


def _jump_to_copied_tail(
    walker: Any, head: Node, fall: int, first: Any, second_end: int, stack: List[Any]
) -> Optional[int]:
    """3.10: the first branch (block *first*) jumps to a copy of the rest that the second runs
    on into (up to *second_end*): an exit without a line of its own is copied for each block
    that reaches it, whatever its size (``return f(k=None if c else x, j=y)``, the keywords
    built one by one)."""
    block = walker.blocks[first.jump] if first.jump is not None else None
    if block is None or block.preds != [first.id] or block.offset < first.offset:
        return None
    tail_end = _straight_end(walker, block)
    size = tail_end - block.start
    if (
        walker.instrs[tail_end - 1].op not in ENDS_PATH
        or second_end - size <= walker.blocks[first.id + 1].start
    ):
        return None
    for k in range(1, size + 1):
        p, q = walker.instrs[tail_end - k], walker.instrs[second_end - k]
        if p.op != q.op or p.arg != q.arg:
            return None
    second = walker.blocks[head.false if fall == head.true else head.true]
    body = pure_value(walker, first.start, first.end - 1, stack)
    orelse = pure_value(walker, second.start, second_end - size, stack) if body is not None else None
    if body is None or orelse is None:
        return None
    test = head.expr if fall == head.true else negate(head.expr)
    stack.append(ast.IfExp(test=test, body=body, orelse=orelse))
    return second_end - size


def _tested_branches_ternary(
    walker: Any, head: Node, fall: int, ctx: Context, stack: List[Any], past_copy: bool = False
) -> Optional[int]:
    """``f((a or b) if c else d)``, ``f(d if c else (a and b))`` returned: a ternary whose
    branches (one or both) test values of their own, each ending in a copy of the rest of the
    expression. The first branch's blocks lie before the second's; its value meets in the last
    of them, a copy of the rest, or in a jump to a copy laid out after the second branch
    (:func:`_first_branch_rest`). The second branch's value meets in a later copy
    (:func:`_second_branch_ends`). As in :func:`copied_tail_ternary`, the rest is the shortest
    one after which the two branches have each pushed one value; the walk goes on with the
    second branch's copy. With *past_copy* (a test between statements), only a copy where the
    second branch's value meets past a jump that was not replaced by it (:func:`_meets_past_copy`)."""
    first = walker.blocks[fall]
    second = walker.blocks[head.false if fall == head.true else head.true]
    if second.offset < first.offset:
        return None
    rest = _first_branch_rest(walker, first, second)
    if rest is None:
        return None
    rest_end, sizes, jump = rest
    if not sizes:
        return None
    instrs = walker.instrs
    ends = _second_branch_ends(walker, second)
    # how much of the rest each end holds a copy of (a copy of a longer rest holds every shorter
    # one: compared once, not once per size), up to where its cut would leave the second branch
    shared = [_shared_tail(instrs, rest_end, end, min(sizes[-1], end - second.start - 1)) for end in ends]
    for size in sizes:
        cuts = [
            end - size
            for end, most in zip(ends, shared)
            if size <= most and (not past_copy or _meets_past_copy(walker, second, end - size))
        ]
        if not cuts:
            continue
        body = _value_up_to(walker, first.start, rest_end - size if jump is None else jump, ctx, stack)
        if body is None:
            continue
        for cut in cuts:
            orelse = _value_up_to(walker, second.start, cut, ctx, stack)
            if orelse is not None:
                test = head.expr if fall == head.true else negate(head.expr)
                stack.append(ast.IfExp(test=test, body=body, orelse=orelse))
                return cut
    return None


def _shared_tail(instrs: List[Any], end: int, other_end: int, most: int) -> int:
    """How many instructions before *end* are the same (op and operand) as those before
    *other_end*, up to *most*."""
    size = 0
    while size < most:
        p, q = instrs[end - 1 - size], instrs[other_end - 1 - size]
        if p.op != q.op or p.arg != q.arg:
            break
        size += 1
    return size


def _first_branch_rest(walker: Any, first: Any, second: Any) -> Optional[Tuple[int, range, Optional[int]]]:
    """Where the copy of the rest that the first branch (from block *first* up to block *second*)
    leaves through ends, the sizes that rest may have, and the index of the branch's jump to it
    (None where the branch runs into it): its last block ends the path, a copy of the rest
    where the paths of its value meet (with the code after the value that the copy holds), or
    jumps to a block laid out after *second* that only it reaches (3.10 copies a rest without a
    line of its own, of any size, for the jump: that whole block is the rest)."""
    instrs = walker.instrs
    last = walker.blocks[second.id - 1]
    if instrs[last.end - 1].op in ENDS_PATH:
        # (a branch run straight keeps one instruction of its value; a merge block may all be the rest)
        most = (
            last.end - first.start - 1 if _straight_end(walker, first) == last.end else last.end - last.start
        )
        return last.end, range(1, min(most, V.LONGEST_COPIED_EXIT) + 1), None
    if instrs[last.end - 1].op != "JUMP" or last.jump is None:
        return None
    block = walker.blocks[last.jump]
    if block.preds != [last.id] or block.offset < second.offset:
        return None
    end = _straight_end(walker, block)
    if instrs[end - 1].op not in ENDS_PATH:
        return None
    return end, range(end - block.start, end - block.start + 1), last.end - 1


def _meets_past_copy(walker: Any, second: Any, cut: int) -> bool:
    """Whether the block of *cut*, a small exit, is reached by a jump from the branch that starts
    at block *second* (a ternary's first branch there, jumping past the other to where they
    meet): a ``return`` or ``raise`` written after the branch's value would have been copied
    into that jump with the rest. The rest was no exit when the jump was made: the value goes
    on to the end of an enclosing expression (the ternary the branch is of) before the return.
    The exit may start in an earlier block that runs on into it alone (a try's range ends
    before the return).
    """
    blocks, instrs = walker.blocks, walker.instrs
    block = blocks[walker.block_of[cut]]
    end = block.end
    if instrs[end - 1].op not in ENDS_PATH:
        return False
    while end - block.start <= V.LONGEST_COPIED_EXIT:
        for p in block.preds:
            pred = blocks[p]
            if second.id <= p < block.id and instrs[pred.end - 1].op == "JUMP" and pred.jump == block.id:
                return True
        if len(block.preds) != 1:
            return False
        pred = blocks[block.preds[0]]
        if pred.fall != block.id or pred.jump is not None or pred.id < second.id:
            return False
        block = pred
    return False


#: The most ends of the second branch of a ternary tried (copies of the rest that its value's
#: operands run into, 3.10, and the one where they meet).
_MOST_SECOND_ENDS = 4


def _second_branch_ends(walker: Any, second: Any) -> List[int]:
    """The ends of the blocks laid out from block *second* on that end the path, in order: where
    the second branch of a ternary may end with its copy of the rest (3.10 copies it also into
    the operands of a boolean value there, before the copy where they meet)."""
    # (from the instructions that end a path, in order, as the reader found them: each is the last
    # of its block; a scan of the blocks went on to the function's end where few are left)
    path_ends = walker.cfg.branches[1]
    first = bisect_left(path_ends, second.start)
    return [k + 1 for k in path_ends[first : first + _MOST_SECOND_ENDS]]


def _value_up_to(walker: Any, start: int, stop: int, ctx: Context, stack: List[Any]) -> Optional[Any]:
    """The one value that the code from instruction *start* to *stop* pushes above *stack*: run
    straight, or where it tests (a boolean value, a ternary of its own) walked as a side run;
    None if it does anything else."""
    value = pure_value(walker, start, stop, stack)
    if value is None and any(ins.op in V.CONDITIONAL_JUMPS for ins in walker.instrs[start:stop]):
        value = walker._walked_to(start, ctx._replace(until=stop), stack, stop)
    return value


def _straight_end(walker: Any, block: Any) -> int:
    """The end of the instructions run straight on from *block*: through the blocks it falls
    into alone, without a jump (a try's range may end inside a branch)."""
    while walker.instrs[block.end - 1].op not in ENDS_PATH and block.jump is None and block.fall is not None:
        following = walker.blocks[block.fall]
        if following.preds != [block.id]:
            break
        block = following
    return block.end


_NOP = dis.opmap["NOP"]

#: the statements whose copies end branches
COPYABLE_EXITS = (ast.Return, ast.Raise)


def join_copied_exits(walker: Any, out: List[ast.stmt]) -> None:
    """Make each ``if`` in *out* whose body ends with a copy of the exit that ends *out* (the
    code after the ``if`` is its ``else``) an ``if``/``else`` followed by the exit once."""
    last = out[-1]
    start = -2  # read when an if ends with the same statement (most code has none)
    line: Optional[int] = None
    k = len(out) - 2
    while k >= 0:
        stmt = out[k]
        if type(stmt) is ast.If and not stmt.orelse and len(stmt.body) > 1 and same_tree(stmt.body[-1], last):
            if start == -2:
                start = _own_start(walker, last)
                line = _written_line(walker, start, last) if start >= 0 else None
            if start >= 0 and _copies_of_one(walker, stmt.body[-1], line, start):
                del stmt.body[-1]
                stmt.orelse = out[k + 1 : -1] or _passed_else(walker, start)
                out[k + 1 : -1] = []
                out[k] = _as_ternary(walker, stmt)
        k -= 1


def _returns_none(stmt: ast.stmt) -> bool:
    value = getattr(stmt, "value", 0)
    return isinstance(stmt, ast.Return) and (
        value is None or (type(value) is ast.Constant and value.value is None)
    )


def _copies_of_one(walker: Any, copy: ast.stmt, line: Optional[int], end: int) -> bool:
    """Whether *copy* (ending an if's body) and the same statement at *end* (after the if) are
    copies of one exit: of a written one (on *line*), or of the function's own ``return None``
    (without a line of its own) where the code before each runs on into it (a copy for a test's
    jump stands alone in its block)."""
    start = _own_start(walker, copy)
    if start < 0:
        return False
    if line is not None:
        return _written_line(walker, start, copy) == line
    return (
        _returns_none(copy)
        and _runs_into(walker, start)
        and _runs_into(walker, end)
        and _written_line(walker, start, copy) is None
    )


def _runs_into(walker: Any, start: int) -> bool:
    """Whether the code before *start* runs on into it (it starts no block)."""
    return start > walker.blocks[walker.block_of[start]].start


def _copy_line(walker: Any, stmt: ast.stmt) -> Optional[int]:
    """The line of the instruction that ends *stmt* (None if it has none)."""
    offsets = getattr(stmt, "uncompile_offsets", ())
    return walker.line_of(offsets[-1]) if offsets else None


def _own_start(walker: Any, stmt: ast.stmt) -> int:
    """The index of the first of the instructions of *stmt* run straight into the one that ends
    it (with the copies skipped between: a clause's name cleanup); -1 if it has none."""
    offsets = getattr(stmt, "uncompile_offsets", ())
    if not offsets:
        return -1
    instrs = walker.instrs
    k = walker.cfg.index_for(offsets[-1])
    first = walker.blocks[walker.block_of[k]].start
    low = min(offsets)
    while k > first and instrs[k - 1].offset >= low:
        k -= 1
    return k


def _written_line(walker: Any, start: int, stmt: ast.stmt) -> Optional[int]:
    """The line of *stmt* (its instructions from *start* on) when they start a line of their
    own, after the code run before them; None for an exit the compiler added (the implicit
    ``return None``): its copies take the line of the code before them, or of an enclosing
    statement (a with's exit)."""
    line = _copy_line(walker, stmt) if start >= 0 else None
    if line is None:
        return None
    instrs = walker.instrs
    block = walker.blocks[walker.block_of[start]]
    before = [start - 1] if start > block.start else [walker.blocks[p].end - 1 for p in block.preds]
    return line if all((walker.line_of(instrs[i].offset) or 0) < line for i in before) else None


def _passed_else(walker: Any, start: int) -> List[ast.stmt]:
    """``else: pass`` when a ``NOP`` (its line) stands right before the exit at *start*: the body
    jumped over it to the exit (a copy of it); else nothing (the body ran into the exit)."""
    offset = walker.instrs[start].offset
    return [ast.Pass()] if offset >= 2 and walker.code.co_code[offset - 2] == _NOP else []


def _as_ternary(walker: Any, stmt: ast.If) -> ast.stmt:
    """``y = a if c else b`` for an ``if`` whose branches each assign to one target, stored on one
    line (the store was copied with the exit after it); else *stmt*."""
    body, orelse = stmt.body, stmt.orelse
    if len(body) != 1 or len(orelse) != 1:
        return stmt
    first, second = body[0], orelse[0]
    if not (isinstance(first, ast.Assign) and isinstance(second, ast.Assign)):
        return stmt
    line = _copy_line(walker, first)
    if line is None or line != _copy_line(walker, second) or not same_tree(first.targets, second.targets):
        return stmt
    value = ast.IfExp(test=stmt.test, body=first.value, orelse=second.value)
    node = ast.Assign(targets=first.targets, value=value, type_comment=None)
    node.uncompile_offsets = (  # type: ignore[attr-defined]
        getattr(stmt, "uncompile_offsets", ()) + first.uncompile_offsets + second.uncompile_offsets  # type: ignore[attr-defined]
    )
    return node
