"""Tests for reading .pyc files: headers, version checks, corrupt and truncated files."""

from __future__ import annotations

import importlib.util
import marshal
import py_compile
import sys
from pathlib import Path
from types import CodeType

import pytest

from uncompile.errors import InputError, PycError
from uncompile.pyc import (
    HEADER_SIZE,
    load_pyc,
    parse_header,
    python_version_for_magic,
    read_pyc_header,
    running_magic,
)

SOURCE = "import os\n\ndef twice(x):\n    return 2 * x\n\nclass Box:\n    def get(self):\n        return 1\n"


def compile_to_pyc(tmp_path: Path, mode: "py_compile.PycInvalidationMode") -> Path:
    source = tmp_path / "sample.py"
    source.write_text(SOURCE)
    target = tmp_path / "sample.pyc"
    py_compile.compile(str(source), cfile=str(target), doraise=True, invalidation_mode=mode)
    return target


@pytest.mark.parametrize("mode", list(py_compile.PycInvalidationMode))
def test_reads_every_kind_of_header(tmp_path: Path, mode: "py_compile.PycInvalidationMode") -> None:
    path = compile_to_pyc(tmp_path, mode)
    header = read_pyc_header(path)
    assert header.magic == running_magic()
    assert header.hash_based == (mode != py_compile.PycInvalidationMode.TIMESTAMP)
    if header.hash_based:
        assert header.source_hash == importlib.util.source_hash(SOURCE.encode())
        assert header.check_source == (mode == py_compile.PycInvalidationMode.CHECKED_HASH)
        assert header.source_mtime is None
    else:
        assert header.source_size == len(SOURCE.encode())
        assert header.source_mtime == int((tmp_path / "sample.py").stat().st_mtime) & 0xFFFFFFFF
    code = load_pyc(path)
    assert isinstance(code, CodeType)
    expected = compile(SOURCE, str(tmp_path / "sample.py"), "exec")
    assert (code.co_code, code.co_names) == (expected.co_code, expected.co_names)


def test_loads_a_stdlib_pyc(tmp_path: Path) -> None:
    import json.decoder

    target = tmp_path / "decoder.pyc"
    py_compile.compile(json.decoder.__file__, cfile=str(target), doraise=True)
    code = load_pyc(target)
    names = {const.co_name for const in code.co_consts if isinstance(const, CodeType)}
    assert {"JSONDecoder", "py_scanstring"} <= names


def other_version_magic() -> "tuple[str, int]":
    """A (version, magic) pair of a Python release other than the running one."""
    here = "%d.%d" % sys.version_info[:2]
    for version, magic in (("3.9", 3425), ("3.12", 3531)):
        if version != here:
            return version, magic
    raise AssertionError("unreachable")


def test_other_version_names_both_versions(tmp_path: Path) -> None:
    path = compile_to_pyc(tmp_path, py_compile.PycInvalidationMode.TIMESTAMP)
    version, magic = other_version_magic()
    data = bytearray(path.read_bytes())
    data[0:2] = magic.to_bytes(2, "little")
    path.write_bytes(bytes(data))
    with pytest.raises(PycError) as info:
        load_pyc(path)
    message = str(info.value)
    assert "Python %s" % version in message
    assert "Python %d.%d" % sys.version_info[:2] in message
    assert "\n" not in message


def test_magic_table_knows_the_running_version() -> None:
    assert python_version_for_magic(running_magic()) == "%d.%d" % sys.version_info[:2]
    assert python_version_for_magic(62211) == "2.7"
    assert python_version_for_magic(12345) is None


def test_unknown_magic_is_reported(tmp_path: Path) -> None:
    path = tmp_path / "odd.pyc"
    path.write_bytes(
        (12345).to_bytes(2, "little") + b"\r\n" + bytes(12) + marshal.dumps(compile("1", "x", "eval"))
    )
    with pytest.raises(PycError, match="no known Python release"):
        load_pyc(path)


@pytest.mark.parametrize("keep", [0, 3, HEADER_SIZE - 1])
def test_truncated_header(tmp_path: Path, keep: int) -> None:
    path = compile_to_pyc(tmp_path, py_compile.PycInvalidationMode.TIMESTAMP)
    path.write_bytes(path.read_bytes()[:keep])
    with pytest.raises(PycError, match="truncated"):
        load_pyc(path)


def test_header_without_code(tmp_path: Path) -> None:
    path = compile_to_pyc(tmp_path, py_compile.PycInvalidationMode.TIMESTAMP)
    path.write_bytes(path.read_bytes()[:HEADER_SIZE])
    with pytest.raises(PycError, match="truncated"):
        load_pyc(path)


def test_truncated_code(tmp_path: Path) -> None:
    path = compile_to_pyc(tmp_path, py_compile.PycInvalidationMode.TIMESTAMP)
    data = path.read_bytes()
    path.write_bytes(data[: HEADER_SIZE + (len(data) - HEADER_SIZE) // 2])
    with pytest.raises(PycError, match="corrupt"):
        load_pyc(path)


def test_not_a_code_object(tmp_path: Path) -> None:
    path = compile_to_pyc(tmp_path, py_compile.PycInvalidationMode.TIMESTAMP)
    path.write_bytes(path.read_bytes()[:HEADER_SIZE] + marshal.dumps({"a": 1}))
    with pytest.raises(PycError, match="not a code object"):
        load_pyc(path)


def test_text_file_is_not_a_pyc(tmp_path: Path) -> None:
    path = tmp_path / "notes.pyc"
    path.write_text("these are not bytecode, just some notes\n")
    with pytest.raises(PycError, match="not a .pyc file"):
        load_pyc(path)


def test_unknown_flags(tmp_path: Path) -> None:
    data = bytearray(compile_to_pyc(tmp_path, py_compile.PycInvalidationMode.TIMESTAMP).read_bytes())
    data[4] = 0x80
    with pytest.raises(PycError, match="flags"):
        parse_header(bytes(data))


def test_missing_file_is_an_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="cannot read"):
        load_pyc(tmp_path / "absent.pyc")
