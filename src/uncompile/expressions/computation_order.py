"""The order in which the simulator computed its values.

A value is *computed* by the first step after which it is on top of the stack. Two uses ask
about it: which of two values came first (the pairs of ``a, b = x, y`` in source order,
Dynamo's values with effects), and whether a value came after the last statement.

:class:`ComputationOrder` records the top of the stack after each step (one list append:
most values are never asked about) and numbers a value only when asked (:meth:`number`): one
more than the position of the step that computed it, 0 for a value never on top or that is
no ``ast`` node. A node made to stand for one computed before (a ``(x := v)`` around ``v``, a
copy of a list) takes that one's number (:meth:`same_as`).
"""

from __future__ import annotations

import ast
from typing import Any, Dict, List

#: The attribute that holds a number given with :meth:`ComputationOrder.same_as`.
_NUMBER = "uncompile_seq"


class ComputationOrder:
    """The computation order of one simulator's values; see the module docstring."""

    __slots__ = ("tops", "_first", "_indexed")

    def __init__(self) -> None:
        #: The top of the stack after each step so far (``Simulator.step`` appends to it).
        self.tops: List[Any] = []
        self._first: Dict[int, int] = {}  # id of each node in tops[:_indexed] -> its number
        self._indexed = 0

    def now(self) -> int:
        """The number of the last step so far: the values computed later have higher numbers."""
        return len(self.tops)

    def number(self, node: Any) -> int:
        """When *node* was computed (see the module docstring)."""
        given = getattr(node, _NUMBER, None)
        if given is not None:
            return int(given)
        if not isinstance(node, ast.AST):
            return 0
        tops, first = self.tops, self._first
        for position in range(self._indexed, len(tops)):
            first.setdefault(id(tops[position]), position + 1)  # ids stay theirs: tops keeps them
        self._indexed = len(tops)
        return first.get(id(node), 0)

    def same_as(self, node: Any, model: Any) -> None:
        """Give *node*, made to stand for *model*, the number of *model*, for good."""
        setattr(node, _NUMBER, self.number(model))
