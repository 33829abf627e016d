"""The context a structured walk runs in: where to stop, the enclosing loop, active handlers."""

from __future__ import annotations

from typing import FrozenSet, List, NamedTuple, Optional, Tuple

from ..bytecode.instructions import Instr


class Loop(NamedTuple):
    """A loop being structured: jumps to ``continue_to``/``break_to`` are continue/break."""

    header: int
    continue_to: int
    break_to: Optional[int]
    body: FrozenSet[int]


class Context(NamedTuple):
    """Immutable walk context; ``with_`` methods return changed copies."""

    stops: FrozenSet[int] = frozenset()
    lo: int = -1
    hi: int = 1 << 60
    loop: Optional[Loop] = None
    active: FrozenSet[int] = frozenset()
    finally_bodies: Tuple[List[Instr], ...] = ()
    region: Optional[FrozenSet[int]] = None
    until: int = 1 << 60
    except_name: Optional[str] = None

    def stop_at(self, *blocks: Optional[int]) -> "Context":
        return self._replace(stops=self.stops | {b for b in blocks if b is not None})

    def inside(self, lo: int, hi: int, handler: int) -> "Context":
        return self._replace(lo=max(self.lo, lo), hi=min(self.hi, hi), active=self.active | {handler})
