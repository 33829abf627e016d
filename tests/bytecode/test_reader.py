"""The fast reader gives what :func:`dis.get_instructions` gives, for the fields the normalizer reads.

Checked on every code object (nested ones included) of a fixed sample of the running
interpreter's standard library, plus a few hand-written constructs (``EXTENDED_ARG``,
closures, keyword calls, f-strings, ``super()``, async code).
"""

from __future__ import annotations

import dis
import os
import sys
import tokenize
from types import CodeType
from typing import Any, List, Optional

import pytest
from snippets import code_objects

from uncompile.bytecode.reader import (
    has_instruction,
    instruction_lines,
    instruction_offsets,
    instruction_starts,
    opnames_and_args,
    read_raw,
)
from uncompile.verification.stdlib_sample import stdlib_files, stdlib_root

#: Instructions whose ``argrepr`` the normalizer reads (the reader leaves the others empty).
_ARGREPR_READ = frozenset({"BINARY_OP", "COMPARE_OP", "LOAD_SPECIAL"})

_HAND_WRITTEN = """
import os as o, sys
from . import x
def many(a, *b, c=1, **d):
    x = [%s]
    def inner():
        nonlocal a
        a += 1
        return a, x, f"{a!r:>{c}} {b!s} {d!a}"
    return inner, sys.f(1, k=2), a < c, a in b, a is not c
class K(o.B):
    def m(self):
        return super().m(), super().n
async def co(s):
    async with s as t:
        async for u in t:
            await u
    return [v async for v in s]
while many:
    if many: break
    many = many - 1
""" % ", ".join("a.b%d" % index for index in range(300))


def _dis_line(ins: dis.Instruction) -> Optional[int]:
    """The line the normalizer read from :mod:`dis` before the reader existed."""
    positions = getattr(ins, "positions", None)
    if positions is not None and positions.lineno is not None:
        return positions.lineno
    starts = ins.starts_line
    return starts if isinstance(starts, int) and not isinstance(starts, bool) else None


def _same(a: Any, b: Any) -> bool:
    return a is b or (type(a) is type(b) and a == b)


def _differences(code: CodeType) -> List[str]:
    expected = list(dis.get_instructions(code))
    got = read_raw(code)
    line_at = instruction_lines(code)
    found = []
    if len(expected) != len(got):
        found.append("%s: %d instructions, dis has %d" % (code.co_name, len(got), len(expected)))
    for want, have in zip(expected, got):
        pairs = [
            ("offset", want.offset, have.offset),
            ("opcode", want.opcode, have.opcode),
            ("opname", want.opname, have.opname),
            ("arg", want.arg, have.arg),
            ("argval", want.argval, have.argval),
            ("line", _dis_line(want), line_at(have.offset)),
        ]
        if want.opname in _ARGREPR_READ:
            pairs.append(("argrepr", want.argrepr, have.argrepr))
        for field, a, b in pairs:
            if not _same(a, b):
                found.append(
                    "%s @%d %s: %s %r != dis %r" % (code.co_name, want.offset, want.opname, field, b, a)
                )
    return found


def test_instruction_starts_are_the_offsets_and_names_dis_shows() -> None:
    module = compile(_HAND_WRITTEN, "<hand>", "exec")  # EXTENDED_ARG, inline caches (3.11+)
    for code in code_objects(module):
        expected = [(ins.offset, ins.opname) for ins in dis.get_instructions(code)]
        assert instruction_starts(code) == expected, code.co_name


def test_opnames_and_args_are_the_names_and_arguments_dis_shows() -> None:
    module = compile(_HAND_WRITTEN, "<hand>", "exec")  # EXTENDED_ARG, inline caches (3.11+)
    for code in code_objects(module):
        expected = [(ins.opname, ins.arg) for ins in dis.get_instructions(code)]
        assert opnames_and_args(code) == expected, code.co_name


def test_has_instruction_agrees_with_the_instructions_listed() -> None:
    # In ``constants`` LOAD_CONST 256 is EXTENDED_ARG 1, LOAD_CONST 0: its low byte alone is no 0
    # (before 3.14 constant 0 is its unused None, so LOAD_CONST 0 is absent there).
    items = ", ".join("x + %d" % (1000 + index) for index in range(300))
    module = compile(_HAND_WRITTEN + "\ndef constants(x):\n    return [%s]\n" % items, "<hand>", "exec")
    asked = [("LOAD_CONST", 0), ("LOAD_CONST", 1), ("LOAD_CONST", 256), ("LOAD_CONST", None)]
    asked += [("SETUP_ANNOTATIONS", None), ("RETURN_CONST", 0), ("LOAD_FAST", 0), ("NO_SUCH_OPCODE", None)]
    codes = list(code_objects(module))
    for code in codes:
        listed = opnames_and_args(code)
        for name, arg in asked:
            expected = any(have == name and arg in (None, value) for have, value in listed)
            assert has_instruction(code, name, arg) == expected, (code.co_name, name, arg)
    constants = next(code for code in codes if code.co_name == "constants")
    assert has_instruction(constants, "EXTENDED_ARG") and has_instruction(constants, "LOAD_CONST", 256)


def test_instruction_offsets_are_those_dis_lists() -> None:
    module = compile(_HAND_WRITTEN, "<hand>", "exec")  # EXTENDED_ARG, inline caches (3.11+)
    for code in code_objects(module):
        for name in ("LOAD_CONST", "LOAD_FAST", "CALL", "CALL_FUNCTION", "EXTENDED_ARG", "NO_SUCH_OPCODE"):
            expected = [ins.offset for ins in dis.get_instructions(code) if ins.opname == name]
            assert instruction_offsets(code, name) == expected, (code.co_name, name)


def _sample_modules(count: int) -> List[str]:
    files = stdlib_files()
    return files[:: max(1, len(files) // count)]


def test_hand_written_constructs() -> None:
    module = compile(_HAND_WRITTEN, "<hand>", "exec")
    problems = [line for code in code_objects(module) for line in _differences(code)]
    assert problems == []


@pytest.mark.parametrize("relative", _sample_modules(40))
def test_stdlib_module(relative: str) -> None:
    path = os.path.join(stdlib_root(), relative)
    try:
        with tokenize.open(path) as handle:
            module = compile(handle.read(), path, "exec", dont_inherit=True)
    except (SyntaxError, ValueError, UnicodeDecodeError):
        pytest.skip("does not compile here")
    problems = [line for code in code_objects(module) for line in _differences(code)]
    assert problems[:10] == []


@pytest.mark.skipif(sys.version_info < (3, 10), reason="co_lines() from 3.10 on")
def test_every_line_is_the_line_of_the_range_holding_the_offset() -> None:
    module = compile(_HAND_WRITTEN, "<hand>", "exec")
    for code in code_objects(module):
        line_of = instruction_lines(code, every=True)
        for start, end, line in code.co_lines():
            for offset in range(start, end, 2):
                assert line_of(offset) == line, (code.co_name, offset)
