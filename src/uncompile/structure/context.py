"""The context a structured walk runs in: where to stop, the enclosing loop, active handlers."""

from __future__ import annotations

from typing import Any, Dict, FrozenSet, List, NamedTuple, Optional, Tuple

from ..bytecode.instructions import Instr

_NO_BLOCK = (None,)
_new_tuple = tuple.__new__
_NO_STOPS: FrozenSet[int] = frozenset()


class Loop(NamedTuple):
    """A loop being structured: jumps to ``continue_to``/``break_to`` are continue/break."""

    header: int
    continue_to: int
    break_to: Optional[int]
    body: FrozenSet[int]


class Context(NamedTuple):
    """Immutable walk context; ``with_`` methods return changed copies.

    (The walker's walk and run_block unpack it by position: its fields keep this order.)"""

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
        stops = self.stops.union(blocks)
        if None in stops:
            stops = stops.difference(_NO_BLOCK)
        # (what ``_replace(stops=stops)`` gives, without its two calls: each branch walked takes one)
        return _new_tuple(Context, (stops,) + self[1:])

    def loop_body(self, loop: Loop, until: Optional[int] = None) -> "Context":
        """The context of *loop*'s body: its region the loop's blocks, no stops yet, and with
        *until* the walk ending there (else where it ended before)."""
        # (what ``_replace(loop=loop, region=loop.body, stops=frozenset())`` gives, built directly:
        # each loop walked takes one)
        return _new_tuple(
            Context,
            (
                _NO_STOPS,
                self.lo,
                self.hi,
                loop,
                self.active,
                self.finally_bodies,
                loop.body,
                self.until if until is None else until,
                self.except_name,
            ),
        )

    def ending_at(self, end: Optional[int], changes: Dict[str, Any]) -> "Context":
        """This context with its walk ending at *end* (None: where it ends), or before, and the
        *changes* made to other fields."""
        # (what ``_replace(until=..., **changes)`` gives, without its two calls: each body walked
        # takes one)
        if end is None or end >= self.until:
            if not changes:
                return self
            end = self.until
        fields = list(self)
        fields[_UNTIL] = end
        for name, value in changes.items():
            fields[_FIELD[name]] = value
        return _new_tuple(Context, fields)

    def inside(self, lo: int, hi: int, handler: int) -> "Context":
        return self._replace(lo=max(self.lo, lo), hi=min(self.hi, hi), active=self.active | {handler})


_FIELD = {name: k for k, name in enumerate(Context._fields)}  # (see Context.ending_at)
_UNTIL = _FIELD["until"]
