"""How each raw opcode is read (``uncompile.bytecode.readings``): the table of readings, tabulated
methods, keyword names, 3.8 ``assert`` loads."""

from __future__ import annotations

import dis
import sys

import pytest
from snippets import define, round_trip

from uncompile.bytecode import readings as RD
from uncompile.bytecode.instructions import _READINGS, _Reader, read_instructions


def _reading_of(opname: str) -> tuple:
    return _READINGS[dis.opmap[opname]]


def test_every_byte_has_a_reading_and_a_step() -> None:
    assert len(_READINGS) == 256
    for name, reading, _detail, _sequence, _kind, _shift, step in _READINGS:
        assert isinstance(name, str) and RD.INDEXED <= reading <= RD.PATH_END and step >= 2


def test_readings_are_the_constants_themselves() -> None:
    """The reader's loop tells the readings apart by identity: the table holds the very objects."""
    constants = [value for name, value in vars(RD).items() if name.isupper() and type(value) is int]
    for _name, reading, *_rest in _READINGS:
        assert any(reading is constant for constant in constants)


def test_operators_are_tabulated_by_operand() -> None:
    """An operator's reading depends on its operand alone: asked once per operand, at import."""
    name = "BINARY_OP" if "BINARY_OP" in dis.opmap else "BINARY_ADD"
    _name, reading, table, *_ = _reading_of(name)
    assert reading == RD.TABULATED
    ops = {op for op, _arg in table}
    assert ops <= {"BINARY_OP", "BINARY_SUBSCR"} and ("BINARY_OP", "+") in table
    _name, reading, table, *_ = _reading_of("COMPARE_OP")
    assert reading == RD.TABULATED and ("COMPARE_OP", "<") in table


def test_methods_reading_any_operand_are_not_tabulated() -> None:
    """A method that reads every operand below 256 may read larger ones (``EXTENDED_ARG``): it
    is asked for each instruction."""
    name = "IS_OP" if "IS_OP" in dis.opmap else "CALL_FUNCTION_EX"
    assert _reading_of(name)[1] == RD.HANDLER


def test_tabulated_readings_are_the_methods_own() -> None:
    class Recorder:
        def __init__(self) -> None:
            self.emitted: list = []

        def emit(self, offset, op, arg=None, target=None):  # type: ignore[no-untyped-def]
            self.emitted.append((op, arg))

    for opcode, (name, reading, table, *_rest) in enumerate(_READINGS):
        if reading != RD.TABULATED:
            continue
        opname = dis.opname[opcode]
        how = RD._reading_name(opcode, opname, RD.V.RENAMED.get(opname, opname))
        for arg in range(0, len(table), 7):
            recorder = Recorder()
            method = getattr(_Reader, how)
            kind = RD.R.DECODING[opcode][0]
            operand = None if kind == RD.R.NO_ARG else arg
            method(recorder, 0, operand, RD.R.operand_value(opcode, operand, 0, ()), name)
            assert recorder.emitted == [table[arg]], (opname, arg)


def test_a_call_with_many_arguments_is_read_past_the_operand_tables() -> None:
    # 300 keyword arguments: the call's operand needs an EXTENDED_ARG prefix
    keywords = ", ".join("k%d=%d" % (index, index) for index in range(300))
    round_trip("def f(g):\n    return g(%s)\n" % keywords)


@pytest.mark.skipif(sys.version_info < (3, 11), reason="3.11+: a call's null slot")
def test_keyword_names_go_with_the_next_call() -> None:
    function = define("def f(g, a):\n    return g(a, b=1, c=a)\n")
    calls = [ins.arg for ins in read_instructions(function.__code__) if ins.op in ("CALL", "CALL_KW")]
    if sys.version_info < (3, 13):  # KW_NAMES
        assert calls == [(2 + 1, ("b", "c"), True)]
    else:
        assert calls == [(3, True)]


def test_assert_loads_assertion_error() -> None:
    """3.8 loads ``AssertionError`` as a global for ``assert``: read as 3.9+ ``LOAD_ASSERTION_ERROR``;
    a load of the name elsewhere stays a global."""
    source = "def f(a):\n    assert a, 'no a'\n    return AssertionError\n"
    ops = [ins.op for ins in read_instructions(define(source).__code__)]
    assert ops.count("LOAD_ASSERTION_ERROR") == 1
    assert ops.count("LOAD_GLOBAL") == 1
    round_trip(source)
