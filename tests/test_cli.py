"""Tests for the command line: help, version, exit codes, error messages, decompile and --verify."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path
from typing import List

import pytest

import uncompile
from uncompile.cli import main

SRC = str(Path(uncompile.__file__).resolve().parent.parent)
SAMPLE = "def add(a, b):\n    return a + b\n\n\nclass Pair:\n    def swap(self, x, y):\n        return y, x\n"


def run_module(args: List[str]) -> "subprocess.CompletedProcess[str]":
    """``python -m uncompile ARGS`` under the running interpreter, stdin closed."""
    environment = dict(os.environ, PYTHONPATH=SRC)
    return subprocess.run(
        [sys.executable, "-m", "uncompile"] + args,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        env=environment,
        timeout=120,
    )


def test_module_help_and_subcommand_help() -> None:
    top = run_module(["--help"])
    assert top.returncode == 0
    assert "decompile" in top.stdout
    sub = run_module(["decompile", "--help"])
    assert sub.returncode == 0
    assert "--verify" in sub.stdout and "TARGET" in sub.stdout


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["--version"])
    assert info.value.code == 0
    assert uncompile.__version__ in capsys.readouterr().out


@pytest.mark.parametrize("args", [[], ["frobnicate"], ["decompile"], ["decompile", "x.py", "--bogus"]])
def test_usage_errors_exit_2(args: List[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(args)
    assert info.value.code == 2
    assert "usage:" in capsys.readouterr().err


@pytest.mark.parametrize(
    "target, message",
    [
        ("does/not/exist.py", "no such file"),
        ("json:no_such_thing", "no attribute 'no_such_thing'"),
        ("no_such_module_for_uncompile:f", "cannot import module"),
    ],
)
def test_user_errors_are_one_line_without_traceback(target: str, message: str) -> None:
    result = run_module(["decompile", target])
    assert result.returncode == 1
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert message in lines[0]
    assert "Traceback" not in result.stderr


def test_corrupt_pyc_is_reported(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.pyc"
    bad.write_bytes(b"garbage!" * 4)
    assert main(["decompile", str(bad)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("uncompile: error:") and "bad.pyc" in err


def test_decompile_prints_source(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("uncompile.decompiler")
    sample = tmp_path / "sample.py"
    sample.write_text(SAMPLE)
    assert main(["decompile", str(sample)]) == 0
    tree = ast.parse(capsys.readouterr().out)
    names = {node.name for node in ast.walk(tree) if isinstance(node, (ast.FunctionDef, ast.ClassDef))}
    assert {"add", "Pair", "swap"} <= names


def test_decompile_writes_output_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("uncompile.decompiler")
    output = tmp_path / "out.py"
    assert main(["decompile", "json.decoder:JSONDecoder.decode", "-o", str(output)]) == 0
    assert "def decode" in output.read_text() or "return" in output.read_text()
    assert str(output) in capsys.readouterr().err


def test_verify_prints_a_verdict_per_code_object(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("uncompile.decompiler")
    sample = tmp_path / "sample.py"
    sample.write_text(SAMPLE)
    status = main(["decompile", "--verify", str(sample)])
    lines = capsys.readouterr().out.splitlines()
    verdicts = {line.split()[0]: line.split()[1] for line in lines[1:-1]}
    assert set(verdicts) == {"<module>", "add", "Pair", "Pair.swap"}
    assert set(verdicts.values()) <= {"identical", "different", "uncompilable", "decompile-error", "crash"}
    identical = sum(1 for verdict in verdicts.values() if verdict == "identical")
    assert lines[-1] == "%d of 4 code objects identical" % identical
    assert status == (0 if identical == 4 else 1)


def test_verify_of_one_method_names_it(capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("uncompile.decompiler")
    main(["decompile", "--verify", "json.decoder:JSONDecoder.raw_decode"])
    lines = capsys.readouterr().out.splitlines()
    assert lines[1].split()[0] == "JSONDecoder.raw_decode"


def test_verify_of_one_function_names_its_nested_code(capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("uncompile.decompiler")
    main(["decompile", "--verify", "json.encoder:_make_iterencode"])
    names = [line.split()[0] for line in capsys.readouterr().out.splitlines()[1:-1]]
    assert names[0] == "_make_iterencode"
    assert "_make_iterencode.<locals>._iterencode_list" in names
    assert all(name.startswith("_make_iterencode.<locals>.") for name in names[1:])
