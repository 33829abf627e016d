"""Exception-table entries agree with the interpreter's own reading."""

from __future__ import annotations

import dis
import json.decoder

import pytest

from uncompile.bytecode import versions as V
from uncompile.bytecode.exception_table import handler_at, parse_exception_table


@pytest.mark.skipif(not V.HAS_EXCEPTION_TABLE, reason="no exception table before 3.11")
def test_entries_match_dis():
    for function in (json.decoder.JSONDecoder.raw_decode, json.decoder.py_scanstring, dis.dis):
        code = function.__code__
        mine = parse_exception_table(code.co_exceptiontable)
        theirs = dis._parse_exception_table(code)  # type: ignore[attr-defined]
        assert [tuple(e) for e in mine] == [(e.start, e.end, e.target, e.depth, e.lasti) for e in theirs]


@pytest.mark.skipif(not V.HAS_EXCEPTION_TABLE, reason="no exception table before 3.11")
def test_handler_lookup():
    def guarded(f):
        try:
            return f()
        except ValueError:
            return None

    entries = parse_exception_table(guarded.__code__.co_exceptiontable)
    first = entries[0]
    assert handler_at(entries, first.start) == first
    assert handler_at(entries, -2) is None
