"""The walk context: changed copies keep every other field."""

from __future__ import annotations

from uncompile.structure.context import Context, Loop


def test_stop_at_adds_the_blocks_given_and_keeps_the_rest():
    loop = Loop(header=1, continue_to=1, break_to=4, body=frozenset({1, 2, 3}))
    ctx = Context(stops=frozenset({7}), lo=2, hi=40, loop=loop, until=12, except_name="e")
    stopped = ctx.stop_at(5, None, 6)
    assert type(stopped) is Context
    assert stopped.stops == frozenset({5, 6, 7})
    assert stopped._replace(stops=ctx.stops) == ctx
    assert ctx.stop_at(None).stops == ctx.stops
    assert ctx.stop_at().stops == ctx.stops


def test_loop_body_is_the_loop_region_without_stops_and_keeps_the_rest():
    outer = Loop(header=1, continue_to=1, break_to=9, body=frozenset({1, 2, 3, 4, 5}))
    inner = Loop(header=2, continue_to=2, break_to=5, body=frozenset({2, 3}))
    ctx = Context(
        stops=frozenset({7}),
        lo=2,
        hi=40,
        loop=outer,
        active=frozenset({30}),
        finally_bodies=([],),
        region=outer.body,
        until=12,
        except_name="e",
    )
    body = ctx.loop_body(inner)
    assert type(body) is Context
    assert body == ctx._replace(loop=inner, region=inner.body, stops=frozenset())
    assert ctx.loop_body(inner, until=8) == ctx._replace(
        loop=inner, region=inner.body, stops=frozenset(), until=8
    )


def test_ending_at_moves_the_end_only_earlier_and_makes_the_changes():
    loop = Loop(header=1, continue_to=1, break_to=4, body=frozenset({1, 2, 3}))
    ctx = Context(stops=frozenset({7}), lo=2, hi=40, loop=loop, until=12, except_name="e")
    assert ctx.ending_at(None, {}) is ctx
    assert ctx.ending_at(20, {}) is ctx  # (past where the walk ends already)
    earlier = ctx.ending_at(8, {})
    assert type(earlier) is Context
    assert earlier == ctx._replace(until=8)
    assert ctx.ending_at(8, {"loop": None, "stops": frozenset()}) == ctx._replace(
        until=8, loop=None, stops=frozenset()
    )
    assert ctx.ending_at(None, {"except_name": None}) == ctx._replace(except_name=None)
