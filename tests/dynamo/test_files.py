"""Dump directories: several processes (and ranks) dumping into one directory do not collide."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch")

from uncompile.dynamo.files import DumpDirectory, choose_directory  # noqa: E402

SRC = str(Path(__file__).resolve().parents[2] / "src")
PROGRAM = """
import sys, time, torch, uncompile
def f(x):
    return x.cos() + 1
with uncompile.prepare_debug(sys.argv[1]) as where:
    torch.compile(f, backend="eager")(torch.ones(3))
    time.sleep(1.0)  # keep the processes overlapping
print(where)
"""


def test_processes_and_ranks_get_their_own_directories(tmp_path: Path) -> None:
    env = dict(os.environ, PYTHONPATH=SRC)
    env.pop("RANK", None)
    ranked = dict(env, RANK="1")
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", PROGRAM, str(tmp_path)], env=e, stdout=subprocess.PIPE, text=True
        )
        for e in (env, env, ranked)
    ]
    outputs = [proc.communicate(timeout=300)[0].strip().splitlines()[-1] for proc in procs]
    assert all(proc.returncode == 0 for proc in procs)
    assert len(set(outputs)) == 3
    assert str(tmp_path / "rank_1") == outputs[2]
    assert str(tmp_path) in outputs[:2] and any("process_" in out for out in outputs[:2])
    pids = set()
    for out in outputs:
        index = json.loads((Path(out) / "index.json").read_text())
        pids.add(index["pid"])
        assert (Path(out) / "__transformed_code_0_for_f.py").exists()
        assert index["py_files"] == index["py_files_compiling"] > 0
    assert len(pids) == 3


def test_same_process_reuses_its_directory_and_replaces_old_files(tmp_path: Path) -> None:
    first, _ = choose_directory(str(tmp_path))
    second, _ = choose_directory(str(tmp_path))
    assert first == second == str(tmp_path)
    directory = DumpDirectory(first)
    directory.write("a.py", "x = 1\n")
    directory.remove_previous(["a.py", "../outside.py", ".uncompile-owner"])
    assert not (tmp_path / "a.py").exists() and (tmp_path / ".uncompile-owner").exists()


def test_broken_python_is_reported(tmp_path: Path) -> None:
    directory = DumpDirectory(str(tmp_path))
    directory.write("good.py", "x = 1\n")
    directory.write("bad.py", "x = = 1\n")
    assert directory.python_files_compiling() == (2, 1, ["bad.py"])


def test_an_empty_owner_file_is_a_claim_being_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another process creates the owner file, then writes its id: until then the file is empty,
    and a process that finds it so does not take the directory (both would write there)."""
    monkeypatch.delenv("RANK", raising=False)
    (tmp_path / ".uncompile-owner").write_text("")
    directory, _ = choose_directory(str(tmp_path))
    assert directory == str(tmp_path / ("process_%d" % os.getpid()))
    (tmp_path / ".uncompile-owner").write_text("0")
    assert choose_directory(str(tmp_path))[0] == directory
