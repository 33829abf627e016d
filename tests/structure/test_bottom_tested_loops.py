"""Tests of uncompile.structure.bottom_tested_loops: while loops whose test is copied to the bottom."""

from __future__ import annotations

from uncompile.verification import verify_code


def else_continues_outer_loop(rows, limit):
    out = []
    for row in rows:
        i = 0
        while i < len(row):
            if row[i] > limit:
                break
            i += 1
        else:
            out.append("all")
            continue
        out.append(i)
    return out


def test_else_ending_with_continue_of_the_enclosing_loop_keeps_its_break():
    # the else ends with a written continue; the break jumps past it to the rest of the outer body
    result = verify_code(else_continues_outer_loop.__code__)
    assert result.identical, (result.difference, result.error, result.source)
    assert result.source is not None and "break" in result.source and "else:" in result.source
