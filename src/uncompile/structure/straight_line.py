"""Straight-line code: a code object whose instructions all run, in order, on one path.

About half the code objects of a module (small functions and methods, properties, lambdas,
most class bodies) have no jump, no exception handler and no ``return`` or ``raise`` before
their last instruction. Their control-flow graph would be one block, and nothing in it starts a
statement that the :class:`~uncompile.structure.walker.Walker` structures (an ``if``, a loop,
a ``try``, a ``with`` and a ``match`` all jump or have handlers): their statements are what
simulating the instructions in order gives. :func:`walked_statements` does that for them,
without the graph, its handlers and the walker's bookkeeping, and walks any other code.
"""

from __future__ import annotations

import ast
from typing import Any, List, Tuple

from ..bytecode.instructions import Instr
from ..expressions.simulator import Simulator
from ..expressions.stack_shuffles import simulator_for
from .walker import CodeParts, Walker, read_code


def is_straight_line(parts: CodeParts) -> bool:
    """Whether the instructions of *parts* run in order on one path: no handler, no instruction
    with a target (jumps; 3.8 - 3.10 ``SETUP_*``), no path ending before the last one."""
    jumps, ends = parts.branches  # (found by the reader)
    return not (parts.handlers or jumps) and (not ends or ends == [len(parts.instrs) - 1])


def straight_line_statements(sim: Simulator, instrs: List[Instr]) -> List[ast.stmt]:
    """The statements that executing *instrs*, straight-line code, on *sim* completes."""
    sim.run(instrs, [])
    return sim.out


def walked_statements(code: Any, nested: Any) -> Tuple[List[ast.stmt], Simulator]:
    """The statements of *code* and the simulator that made them: straight-line code simulated
    in order, any other walked by a :class:`~uncompile.structure.walker.Walker`."""
    parts = read_code(code)
    if is_straight_line(parts):
        sim = simulator_for(code, nested, parts.instrs)
        return straight_line_statements(sim, parts.instrs), sim
    walker = Walker(code, nested, parts)
    return walker.run(), walker.sim
