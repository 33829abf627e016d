"""Helpers for the prepare_debug tests: run a workload plainly and under the dump, compare.

Imported by the test modules of this folder (which put the folder on ``sys.path``).
"""

from __future__ import annotations

import importlib.util
import json
import os
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any, Callable, Dict, List


@dataclass
class DumpRun:
    """A workload run twice: without prepare_debug and with it."""

    directory: Path
    index: Dict[str, Any]
    plain: Any
    dumped: Any

    def files(self, pattern: str) -> List[Path]:
        """Files of the dump matching a glob *pattern*."""
        return sorted(self.directory.glob(pattern))

    def function(self, name: str) -> Dict[str, Any]:
        """The index record of the original function *name*."""
        for record in self.index["functions"]:
            if record["name"] == name:
                return record
        raise AssertionError(
            "no function %s in the index: %s" % (name, [f["name"] for f in self.index["functions"]])
        )


def assert_bit_identical(expected: Any, actual: Any) -> None:
    """Tensors (and nested tuples/lists/dicts of them) equal bit for bit, same dtype and shape."""
    import torch

    if isinstance(expected, torch.Tensor):
        assert isinstance(actual, torch.Tensor)
        assert expected.dtype == actual.dtype and expected.shape == actual.shape
        left = expected.detach().contiguous().numpy().tobytes()
        assert left == actual.detach().contiguous().numpy().tobytes()
    elif isinstance(expected, (list, tuple)):
        assert len(expected) == len(actual)
        for left, right in zip(expected, actual):
            assert_bit_identical(left, right)
    elif isinstance(expected, dict):
        assert expected.keys() == actual.keys()
        for key in expected:
            assert_bit_identical(expected[key], actual[key])
    else:
        assert expected == actual


def load_module(path: Path) -> ModuleType:
    """Import a dumped file as a module."""
    spec = importlib.util.spec_from_file_location("dumped_%d" % abs(hash(str(path))), path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def every_py_file_compiles(directory: Path) -> int:
    """Compile every .py file of *directory*; returns how many there are."""
    count = 0
    for path in directory.glob("*.py"):
        compile(path.read_text(encoding="utf-8"), str(path), "exec")
        count += 1
    return count


def dump_run(directory: Path, workload: Callable[[], Any], **options: Any) -> DumpRun:
    """Run *workload* on fresh Dynamo state without, then with, prepare_debug into *directory*."""
    import torch

    import uncompile

    torch.manual_seed(0)
    torch._dynamo.reset()
    plain = workload()
    torch._dynamo.reset()
    torch.manual_seed(0)
    with uncompile.prepare_debug(str(directory), **options) as where:
        dumped = workload()
    assert where is not None
    with open(os.path.join(where, "index.json"), encoding="utf-8") as stream:
        index = json.load(stream)
    return DumpRun(Path(where), index, plain, dumped)
