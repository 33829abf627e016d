"""Where an ``if`` goes on: the follow of its block, or an enclosing statement's follow.

:func:`region_follow` is the immediate post-dominator of a block inside the walk's region (a
loop body: its jumps back and its ``break`` jumps end there, and meet at the header or exit).

An ``if``/``elif``/``else`` inside a loop whose last branch raises has no join of its own: the
other branches jump straight to what follows the enclosing statement (often the loop header).
When the body of such an ``if`` runs into one of the enclosing stops instead of ending in a
``return``/``raise``/``continue``/``break``, the jump target of the test is an ``else`` branch.
"""

import ast
from typing import Any, Dict, List, Optional, Set, Tuple

from ..bytecode import versions as V
from ..flow.dominators import immediate_postdominators
from .context import Context

#: The statements after which a body does not go on.
TERMINAL = (ast.Return, ast.Raise, ast.Continue, ast.Break)
#: The last instructions of blocks whose paths never merge back (in :func:`region_follow`).
_RAISING = ("RAISE_VARARGS", "RERAISE")


def region_follow(walker: Any, block: int, ctx: Context) -> Optional[int]:
    """The block where all non-raising paths from *block* meet inside *ctx*'s region (None: none)."""
    region = ctx.region
    if region not in walker._pdoms:
        blocks = walker.blocks
        instrs = walker.instrs
        nodes = list(region if region is not None else range(len(blocks)))
        succs: Dict[int, List[int]] = {}  # (only read: most lists stay the blocks' own)
        raising: List[int] = []
        # (the RERAISEs that end the branches of a finally body meet: see legacy_link_reraise_copies)
        joins = walker.reraise_joins
        for b in nodes:
            node = blocks[b]
            succs[b] = node.succs + _handler_edges(blocks, b) if node.handlers else node.succs
        for b, last in walker.clause_exit_copies.items():
            if b in succs:
                succs[b] = [last]  # (3.13+) a copy of a clause's exit goes on where its last copy does
        # (found among the instructions that end a path, each the last of its block: fewer than
        # the blocks)
        block_of = walker.block_of
        for k in walker.cfg.branches[1]:
            b = block_of[k]
            if instrs[k].op in _RAISING and b not in joins and (region is None or b in region):
                raising.append(b)
        if region is not None:
            # the re-raise of an unmatched exception or a clause's cleanup laid out past the region
            # never merges back, like a ``raise`` inside
            cleanups = {
                s
                for b in nodes
                for s in succs[b]
                if s not in region and instrs[blocks[s].end - 1].op == "RERAISE" and not blocks[s].succs
            }
            nodes.extend(cleanups)
            succs.update((s, []) for s in cleanups)
            raising.extend(cleanups)
        repeat = len(blocks)  # stands for the next iteration: the jumps back end there
        loop = ctx.loop
        if loop is not None:
            header = loop.header
            copy, body_start = walker.copied_test_jump(ctx)  # (its jump back is one too)
            for b, out in succs.items():
                if header in out or (b >= copy and body_start in out):
                    succs[b] = [repeat if s == header or (s == body_start and b >= copy) else s for s in out]
            nodes.append(repeat)
            succs[repeat] = []
            if region is not None and loop.break_to is not None:
                # every ``break`` meets there: a branch of an if whose paths all break
                nodes.append(loop.break_to)
                succs[loop.break_to] = []
        pdoms = immediate_postdominators(succs, nodes, raising)
        if loop is not None:
            for b, p in pdoms.items():
                if p == repeat:
                    pdoms[b] = loop.header
        walker._pdoms[region] = pdoms
    return walker._pdoms[region].get(block)


def _handler_edges(blocks: Any, block: int) -> List[int]:
    """The handlers that the try after *block* goes to, when only *block* leads into that try.

    The edge into a try's handler comes from the block laid out before the try; when other
    blocks lead into the try too (the try follows an ``if`` without ``else``), it would make
    the if's body look like the only path through the handler.
    """
    fall = blocks[block].fall
    if fall is None or blocks[fall].preds != [block]:
        return []
    return blocks[block].handlers


def joined_before_continue(
    walker: Any, block_id: int, then_b: Optional[int], else_b: Optional[int], follow: int, ctx: Context
) -> Optional[int]:
    """The if's own follow when its branches meet only at the loop's next iteration *follow*.

    ``if a: x / elif b: continue / else: y`` then more statements: the paths that do not
    ``continue`` meet at those statements, the first block that both branches reach (or,
    when the other branch only continues or raises, where the body's jump past the else goes).
    None when the body ends with a written ``continue``: what the test skips follows the if.
    """
    loop = ctx.loop
    if loop is not None and follow == loop.break_to:
        return joined_before_break(walker, then_b, else_b, follow, ctx)
    if loop is None or follow != loop.header or then_b is None or else_b is None:
        return follow
    both = _first_shared(walker, then_b, else_b, ctx)
    if both is None and V.HAS_EXCEPTION_TABLE:
        # (a branch that goes on only from an except clause: ``if a: try: ...; continue /
        # except E: pass`` then more)
        both = _first_shared_through_tries(walker, block_id, then_b, else_b, ctx)
    if both is not None:
        return both
    past = walker.jump_past_else(block_id, else_b, ctx)
    if past is not None:
        return past
    return None if _ends_with_written_continue(walker, block_id, else_b, loop.header) else follow


def joined_before_break(
    walker: Any, then_b: Optional[int], else_b: Optional[int], follow: int, ctx: Context
) -> Optional[int]:
    """The if's own follow when its branches meet only at the loop's exit *follow*.

    ``if a: x; if b: break`` then more statements (and a ``break``): the paths that do not
    ``break`` meet at those statements, the first block that both branches reach; an else
    branch that starts where the enclosing statement ends is no else.
    """
    if then_b is None or else_b is None:
        return follow
    both = _first_shared(walker, then_b, else_b, ctx)
    if both is not None:
        return both
    return else_b if else_b in ctx.stops else follow


def returning_branch_follow(
    walker: Any, then_b: Optional[int], else_b: Optional[int], ctx: Context
) -> Optional[int]:
    """Where the branches of an if meet when its body ends in an if that returns (``if a:
    if b: return x / else: y`` then more): the block that the inner if's other branch and the
    else both go to; None otherwise. (The returns go to the function's exit, so no block
    post-dominates the test; 3.12 lays the inner if's return out where its test falls.)"""
    if then_b is None or else_b is None:
        return None
    block = walker.blocks[then_b]
    if walker.instrs[block.end - 1].op not in V.CONDITIONAL_JUMPS or len(block.succs) != 2:
        return None
    returns = [s for s in block.succs if walker.instrs[walker.blocks[s].end - 1].op == "RETURN_VALUE"]
    if len(returns) != 1:
        return None
    other = block.succs[0] if block.succs[1] == returns[0] else block.succs[1]
    loop = ctx.loop
    if other == else_b or (loop is not None and other == loop.header):
        return None
    return other if walker.reaches(else_b, other, ctx) else None


def first_shared_follow(
    walker: Any, test_b: int, then_b: Optional[int], else_b: Optional[int], ctx: Context
) -> Optional[int]:
    """Where the branches of an if meet when no block post-dominates its test: the first block
    that both reach (``if a: while 1: ... break / else: y`` then more, where the loop's other
    exits return); None when they meet nowhere.

    Failing that, the first that both reach also through the handlers of tries inside them,
    under the same handler as the test (``if a: try: return x / except E: pass`` then more:
    the body goes on only from its except clause)."""
    if then_b is None or else_b is None:
        return None
    both = _first_shared(walker, then_b, else_b, ctx)
    if both is not None or not V.HAS_EXCEPTION_TABLE:
        return both
    return _first_shared_through_tries(walker, test_b, then_b, else_b, ctx)


def _first_shared_through_tries(
    walker: Any, test_b: int, then_b: int, else_b: int, ctx: Context
) -> Optional[int]:
    """The first block (in layout) that *then_b* and *else_b* both reach also through the
    handlers of tries inside them, under the same handler as the test at *test_b* (None: none)."""
    blocks = walker.blocks
    shared = _reach_through_own_tries(walker, then_b, ctx) & _reach_through_own_tries(walker, else_b, ctx)
    if ctx.loop is not None:
        shared.discard(ctx.loop.header)
    covering = walker.handler_of(blocks[test_b].offset)
    here = None if covering is None else covering.target
    for b in sorted(shared, key=lambda b: blocks[b].offset):
        entry = walker.handler_of(blocks[b].offset)
        if (None if entry is None else entry.target) == here:
            return b
    return None


def _reach_through_own_tries(walker: Any, start: int, ctx: Context) -> Set[int]:
    """The blocks reachable from *start* inside the region, also through the handlers of tries
    that begin there or after it (a try around the branch, or a loop's, leads elsewhere)."""
    blocks = walker.blocks
    plain = walker.reachable_in_region(start, ctx, raising=False)
    reach = set(plain)
    first = blocks[start].offset
    for b in plain:
        entry = walker.handler_of(blocks[b].offset)
        if entry is not None and entry.start >= first:
            handler = walker.block_of[walker.index_at(entry.target)]
            if handler not in reach:
                reach |= walker.reachable_in_region(handler, ctx, raising=False)
    return reach


def _first_shared(walker: Any, then_b: int, else_b: int, ctx: Context) -> Optional[int]:
    """The first block (in layout) that both *then_b* and *else_b* reach inside the loop body
    (the header aside), or None."""
    both = walker.reachable_in_region(then_b, ctx, raising=False) & walker.reachable_in_region(
        else_b, ctx, raising=False
    )
    if ctx.loop is not None:
        both.discard(ctx.loop.header)
    return min(both, key=lambda b: walker.blocks[b].offset) if both else None


def _ends_with_written_continue(walker: Any, block_id: int, else_b: int, header: int) -> bool:
    """Whether the block laid out before *else_b* ends with a ``continue`` statement of its own."""
    if else_b <= 0:
        return False
    before = walker.blocks[else_b - 1]
    return before.offset >= walker.blocks[block_id].offset and is_written_continue(walker, else_b - 1, header)


def is_written_continue(walker: Any, block_id: int, header: int) -> bool:
    """Whether the block ends with a ``continue`` statement (a jump to *header*) of its own.

    The jump back that ends a loop body has the line of the last statement, or the loop's
    (before the body's first line), and one that ends an if without else the if's; a
    ``continue`` has a line of its own inside the body, after the statement before it.
    """
    block = walker.blocks[block_id]
    last = block.end - 1
    jump = walker.instrs[last]
    if block.jump != header or jump.op != "JUMP":
        return False
    lines = (walker.line_at(walker.instrs[i].offset) for i in range(last - 1, -1, -1))
    previous = next((line for line in lines if line), None)
    top = walker.line_at(walker.instrs[walker.blocks[header].start].offset)
    line = walker.line_at(jump.offset)
    return line is not None and (previous is None or line > previous) and (top is None or line > top)


def past_forward_jumps(walker: Any, follow: Optional[int]) -> Optional[int]:
    """Where *follow* leads when it is only a forward jump (the jump to the body of an ``if``
    with a chained comparison comes after its last test: the paths meet at the body, or past it)."""
    if follow is None or walker.blocks[follow].end - walker.blocks[follow].start != 1:
        return follow  # (most follows: more than a jump, known without a call)
    seen = set()
    while follow is not None and follow not in seen and walker._lone_jump(follow):
        seen.add(follow)
        target = walker.blocks[follow].jump
        if target is None or walker.blocks[target].offset <= walker.blocks[follow].offset:
            break
        follow = target
    return follow


def meets_at_next_iteration(walker: Any, follow: Optional[int], else_b: Optional[int], ctx: Context) -> bool:
    """Whether an if's branches meet only at the loop's header *follow*, its else being more
    than the jump back there (then a body that reaches the else goes on there: a ``break``
    out of an inner loop whose ``else`` continues)."""
    loop = ctx.loop
    return (
        loop is not None
        and else_b is not None
        and follow == loop.header != else_b
        and not walker._lone_jump(else_b)
    )


def falls_to_outer_follow(
    walker: Any, body: List[ast.stmt], stopped: Optional[int], else_b: int, ctx: Context
) -> bool:
    """Whether *body* (walked from the if's body) stopped at one of *ctx*'s stops."""
    if stopped is None or (body and isinstance(body[-1], TERMINAL)):
        return False
    if stopped == walker.start_of(else_b):
        return False
    return any(walker.blocks[b].start == stopped for b in ctx.stops)


def is_lone_continue(walker: Any, then_b: Optional[int], follow: int, ctx: Context) -> bool:
    """Whether the if's body block *then_b* is only a jump to the loop's next iteration *follow*."""
    lines = _jump_back_lines(walker, then_b, follow, ctx)
    # a jump the compiler added (3.12+: ``if a or b: body`` at a loop's end) shares the test's line
    return lines is not None and (lines[0] is None or lines[0] != lines[1])


def is_added_jump_back(walker: Any, then_b: Optional[int], else_b: Optional[int], ctx: Context) -> bool:
    """Whether the fall-through *then_b* of a test is a jump back the compiler added (3.12+).

    ``if c: return x`` ending a loop body is laid out with the ``return`` (*else_b*) after the
    loop and the test inverted: its fall-through is a jump to the next iteration on the test's line.
    """
    loop = ctx.loop
    if (
        loop is None
        or else_b is None
        or V.LAYOUT_IN_SOURCE_ORDER
        or not ctx.stops <= {loop.continue_to, loop.break_to}
        or _ends_inside_body(walker, loop, ctx)
    ):
        return False  # inside a statement of the loop body (a try's else) the jump can be a continue
    lines = _jump_back_lines(walker, then_b, loop.continue_to, ctx)
    return lines is not None and lines[0] is not None and lines[0] == lines[1]


def _ends_inside_body(walker: Any, loop: Any, ctx: Context) -> bool:
    """Whether the walk in *loop*'s body ends before the body does: inside a statement of the body
    (a try's else), not where the loop's copied test starts (a bottom-tested loop) nor past the
    loop (where an enclosing loop's copied test starts)."""
    cut = walker._bottom_cuts.get(loop.header)
    if cut is not None:
        return ctx.until != cut
    blocks = walker.blocks
    return ctx.until < max(blocks[b].end for b in loop.body)


def _jump_back_lines(
    walker: Any, then_b: Optional[int], follow: int, ctx: Context
) -> Optional[Tuple[Optional[int], Optional[int]]]:
    """(line of the jump, line of the test) when *then_b* is a lone jump to the loop's next iteration."""
    loop = ctx.loop
    if then_b is None or then_b == follow or loop is None or follow != loop.continue_to:
        return None
    block = walker.blocks[then_b]
    jump = walker.instrs[block.start]
    if block.end - block.start != 1 or jump.op != "JUMP" or block.jump != follow or block.start == 0:
        return None
    test = walker.instrs[block.start - 1]
    if test.op not in V.CONDITIONAL_JUMPS:
        return None
    return walker.line_at(jump.offset), walker.line_at(test.offset)


def outer_loop_jump(
    walker: Any, orelse: List[ast.stmt], stopped: Optional[int], break_to: Optional[int], ctx: Context
) -> Optional[ast.stmt]:
    """``continue``/``break`` ending a loop's ``else`` that stopped at the enclosing loop's header/exit.

    The ``else`` of a loop ends, when it runs off its end, where the loop's ``break`` goes; a
    stop at the enclosing loop's header or exit instead is an explicit jump there.
    """
    loop = ctx.loop
    if loop is None or stopped is None or (orelse and isinstance(orelse[-1], TERMINAL)):
        return None
    if break_to is not None and stopped == walker.start_of(break_to):
        return None
    if stopped == walker.start_of(loop.continue_to):
        return ast.Continue()
    if loop.break_to is not None and stopped == walker.start_of(loop.break_to):
        return ast.Break()
    return None
