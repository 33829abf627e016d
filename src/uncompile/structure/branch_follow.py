"""Where an ``if`` without a follow of its own goes on: to an enclosing statement's follow.

An ``if``/``elif``/``else`` inside a loop whose last branch raises has no join of its own: the
other branches jump straight to what follows the enclosing statement (often the loop header).
When the body of such an ``if`` runs into one of the enclosing stops instead of ending in a
``return``/``raise``/``continue``/``break``, the jump target of the test is an ``else`` branch.
"""

import ast
from typing import Any, List, Optional

from ..bytecode import versions as V
from .context import Context

_TERMINAL = (ast.Return, ast.Raise, ast.Continue, ast.Break)


def falls_to_outer_follow(walker: Any, body: List[ast.stmt], stopped: Optional[int], else_b: int,
                          ctx: Context) -> bool:
    """Whether *body* (walked from the if's body) stopped at one of *ctx*'s stops."""
    if stopped is None or (body and isinstance(body[-1], _TERMINAL)):
        return False
    if stopped == walker.start_of(else_b):
        return False
    return any(walker.blocks[b].start == stopped for b in ctx.stops)


def is_lone_continue(walker: Any, then_b: Optional[int], follow: int, ctx: Context) -> bool:
    """Whether the if's body block *then_b* is only a jump to the loop's next iteration *follow*."""
    loop = ctx.loop
    if then_b is None or then_b == follow or loop is None or follow != loop.continue_to:
        return False
    block = walker.blocks[then_b]
    jump = walker.instrs[block.start]
    if block.end - block.start != 1 or jump.op != "JUMP" or block.jump != follow or block.start == 0:
        return False
    # a jump the compiler added (3.12+: ``if a or b: body`` at a loop's end) shares the test's line
    test = walker.instrs[block.start - 1]
    return test.op in V.CONDITIONAL_JUMPS and (jump.line is None or jump.line != test.line)


def outer_loop_jump(walker: Any, orelse: List[ast.stmt], stopped: Optional[int], break_to: Optional[int],
                    ctx: Context) -> Optional[ast.stmt]:
    """``continue``/``break`` ending a loop's ``else`` that stopped at the enclosing loop's header/exit.

    The ``else`` of a loop ends, when it runs off its end, where the loop's ``break`` goes; a
    stop at the enclosing loop's header or exit instead is an explicit jump there.
    """
    loop = ctx.loop
    if loop is None or stopped is None or (orelse and isinstance(orelse[-1], _TERMINAL)):
        return None
    if break_to is not None and stopped == walker.start_of(break_to):
        return None
    if stopped == walker.start_of(loop.continue_to):
        return ast.Continue()
    if loop.break_to is not None and stopped == walker.start_of(loop.break_to):
        return ast.Break()
    return None
