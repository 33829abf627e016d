"""Tests for load_code: every kind of input, and the errors for inputs it cannot take."""

from __future__ import annotations

import json
import json.decoder
import os
import py_compile
import sys
import textwrap
from pathlib import Path
from types import CodeType
from typing import Any, Iterator

import pytest

from uncompile.errors import InputError, PycError
from uncompile.loading import find_nested_code, load_code

MODULE = textwrap.dedent(
    """
    import functools

    def outer(x):
        def inner(y):
            return x + y
        return inner

    class Shape:
        def area(self):
            return 0

        @staticmethod
        def unit():
            return Shape()

        @classmethod
        def make(cls):
            return cls()

        @property
        def name(self):
            return "shape"

    def numbers():
        yield 1

    async def fetch():
        return 1

    async def stream():
        yield 1

    square = lambda v: v * v

    @functools.lru_cache(maxsize=None)
    def cached(n):
        return n
    """
)


@pytest.fixture
def sample_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """A real module on disk, imported under a name unique to this test run."""
    name = "uncompile_loading_sample_%d" % os.getpid()
    (tmp_path / (name + ".py")).write_text(MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    module = __import__(name)
    yield module
    sys.modules.pop(name, None)


def test_code_object_is_returned_as_is() -> None:
    code = json.dumps.__code__
    assert load_code(code) is code


def test_functions_and_methods(sample_module: Any) -> None:
    shape = sample_module.Shape
    assert load_code(sample_module.outer).co_name == "outer"
    assert load_code(shape().area).co_name == "area"
    assert load_code(shape.area).co_name == "area"
    assert load_code(shape.__dict__["unit"]).co_name == "unit"
    assert load_code(shape.__dict__["make"]).co_name == "make"
    assert load_code(shape.make).co_name == "make"
    assert load_code(shape.__dict__["name"]).co_name == "name"
    assert load_code(sample_module.square).co_name == "<lambda>"
    assert load_code(sample_module.outer(1)).co_name == "inner"
    assert load_code(sample_module.cached).co_name == "cached"


def test_generators_and_coroutines(sample_module: Any) -> None:
    for function in (sample_module.numbers, sample_module.fetch, sample_module.stream):
        assert load_code(function) is function.__code__
    generator = sample_module.numbers()
    assert load_code(generator) is sample_module.numbers.__code__
    coroutine = sample_module.fetch()
    try:
        assert load_code(coroutine) is sample_module.fetch.__code__
    finally:
        coroutine.close()
    assert load_code(sample_module.stream()) is sample_module.stream.__code__


def test_module_object_gives_module_code() -> None:
    code = load_code(json.decoder)
    assert code.co_name == "<module>"
    assert "JSONDecoder" in {c.co_name for c in code.co_consts if isinstance(c, CodeType)}


def test_py_path_as_str_and_path(sample_module: Any) -> None:
    path = Path(sample_module.__file__)
    for target in (str(path), path):
        code = load_code(target)
        assert code.co_name == "<module>"
        assert code.co_filename == str(path)


def test_pyc_path(tmp_path: Path, sample_module: Any) -> None:
    target = tmp_path / "compiled.pyc"
    py_compile.compile(sample_module.__file__, cfile=str(target), doraise=True)
    code = load_code(str(target))
    assert code.co_code == load_code(sample_module.__file__).co_code


def test_module_qualname(sample_module: Any) -> None:
    name = sample_module.__name__
    assert load_code("json.decoder:JSONDecoder.decode") is json.decoder.JSONDecoder.decode.__code__
    assert load_code(name + ":Shape.area") is sample_module.Shape.area.__code__
    assert load_code(name + ":Shape.unit") is sample_module.Shape.unit.__code__
    assert load_code(name + ":Shape.make") is sample_module.Shape.make.__func__.__code__
    assert load_code(name + ":Shape.name") is sample_module.Shape.name.fget.__code__
    assert load_code(name + ":outer.<locals>.inner") is sample_module.outer(1).__code__


def test_file_qualname(sample_module: Any) -> None:
    path = sample_module.__file__
    assert load_code(path + ":outer.<locals>.inner").co_name == "inner"
    assert load_code(path + ":Shape.area").co_name == "area"
    with pytest.raises(InputError, match="no function or class 'Shape.volume'"):
        load_code(path + ":Shape.volume")


def test_find_nested_code_takes_the_last_definition() -> None:
    code = compile("def f():\n    return 1\n\ndef f():\n    return 2\n", "<twice>", "exec")
    assert 2 in find_nested_code(code, "f").co_consts


@pytest.mark.parametrize(
    "target, message",
    [
        ("no/such/file.py", "no such file"),
        ("missing.pyc", "no such file"),
        ("no_such_module_for_uncompile:f", "cannot import module"),
        ("json:no_such_function", "has no attribute 'no_such_function'"),
        ("json:JSONDecoder", "a class keeps no bytecode"),
        ("json", "neither an existing file nor"),
        ("", "empty target"),
    ],
)
def test_bad_strings(target: str, message: str) -> None:
    with pytest.raises(InputError, match=message):
        load_code(target)


@pytest.mark.parametrize("obj", [len, 42, None, json.JSONDecoder, sys, object()])
def test_unsupported_objects(obj: Any) -> None:
    with pytest.raises(InputError) as info:
        load_code(obj)
    assert "\n" not in str(info.value)


def test_directory_and_other_suffixes(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="is a directory"):
        load_code(str(tmp_path))
    notes = tmp_path / "notes.txt"
    notes.write_text("x = 1\n")
    with pytest.raises(InputError, match="unsupported file type"):
        load_code(notes)


def test_syntax_error_names_the_line(tmp_path: Path) -> None:
    broken = tmp_path / "broken.py"
    broken.write_text("x = 1\ndef f(:\n")
    with pytest.raises(InputError, match="line 2"):
        load_code(broken)


def test_corrupt_pyc_is_a_pyc_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.pyc"
    bad.write_bytes(b"\x00\x01")
    with pytest.raises(PycError):
        load_code(bad)
