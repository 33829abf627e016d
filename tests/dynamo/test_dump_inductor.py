"""prepare_debug with the inductor backend: Inductor's stages, cold and warm compile caches.

Inductor compiles are slow on CPU, so one small training workload serves every test here.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, Dict, List

import pytest

torch = pytest.importorskip("torch")

sys.path.insert(0, str(Path(__file__).resolve().parent))
from dump_helpers import DumpRun, assert_bit_identical, dump_run, every_py_file_compiles  # noqa: E402


def step(x, w):
    return (x.sin() @ w).relu().sum()


def workload() -> Any:
    x = torch.linspace(-1.0, 1.0, 16).reshape(4, 4)
    w = torch.linspace(0.5, -0.5, 16).reshape(4, 4).requires_grad_()
    loss = torch.compile(step, backend="inductor")(x, w)
    loss.backward()
    return [loss, w.grad]


def stages_of(run: DumpRun) -> Dict[str, Any]:
    entry = run.function("step")["entries"][0]
    return {graph["stage"]: graph for graph in entry["graphs"]}


def cold_workload() -> Any:
    """The workload with PyTorch's compile caches switched off: every stage runs."""
    import torch._functorch.config as functorch_config
    import torch._inductor.config as inductor_config

    with functorch_config.patch(enable_autograd_cache=False), inductor_config.patch(fx_graph_cache=False):
        return workload()


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> List[DumpRun]:
    first = dump_run(tmp_path_factory.mktemp("inductor"), cold_workload)
    # Dynamo forgets everything, PyTorch's compile caches (AOTAutograd, FX graph) stay warm.
    second = dump_run(tmp_path_factory.mktemp("inductor_warm"), workload)
    return [first, second]


def test_inductor_stages_are_dumped(runs: List[DumpRun]) -> None:
    run = runs[0]
    assert_bit_identical(run.plain, run.dumped)
    assert every_py_file_compiles(run.directory) == run.index["py_files"] == run.index["py_files_compiling"]
    stages = stages_of(run)
    for stage in (
        "captured_graph",
        "aot_forward",
        "aot_backward",
        "post_grad_forward",
        "post_grad_backward",
        "output_code_forward",
        "output_code_backward",
    ):
        assert stages.get(stage, {}).get("file"), (stage, sorted(stages))
    assert stages.get("pre_grad_before", {}).get("file") and stages.get("pre_grad_after", {}).get("file")
    output = (run.directory / stages["output_code_forward"]["file"]).read_text()
    assert "def call(" in output


def test_warm_caches_still_give_every_graph(runs: List[DumpRun]) -> None:
    run = runs[1]
    assert_bit_identical(run.plain, run.dumped)
    assert_bit_identical(runs[0].dumped, run.dumped)
    stages = stages_of(run)
    entry = run.function("step")["entries"][0]
    assert "aotautograd_cache_hit" in entry["cache"], entry["cache"]
    for stage in (
        "aot_forward",
        "aot_backward",
        "post_grad_forward",
        "output_code_forward",
        "output_code_backward",
    ):
        assert stages.get(stage, {}).get("file"), (stage, sorted(stages))
    assert "cache hit" in stages["pre_grad"]["note"]
    md = (run.directory / "index.md").read_text()
    assert "pre-grad passes did not run: AOTAutograd cache hit" in md
