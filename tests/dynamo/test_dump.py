"""prepare_debug on real torch.compile runs (CPU): one test per case of the issue.

Each workload runs on fresh Dynamo state without the dump and then with it; the outputs must
be bit-identical, and the dump must contain the files the case calls for.
"""

from __future__ import annotations

import inspect
import linecache
import logging
import sys
from pathlib import Path
from typing import Any, Callable, Dict, List

import pytest

torch = pytest.importorskip("torch")
nn = torch.nn

sys.path.insert(0, str(Path(__file__).resolve().parent))
from dump_helpers import (  # noqa: E402
    DumpRun,
    assert_bit_identical,
    dump_run,
    every_py_file_compiles,
    load_module,
)


@pytest.fixture(scope="module")
def dump_dir(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], Path]:
    """A fresh directory per name, shared by this module."""
    return lambda name: tmp_path_factory.mktemp(name)


def line_of(function: Callable[..., Any], marker: str) -> int:
    """The line number of the first line of *function* containing *marker*."""
    lines, first = inspect.getsourcelines(function)
    for number, line in enumerate(lines):
        if marker in line:
            return first + number
    raise AssertionError(marker)


def check_common(run: DumpRun) -> None:
    """What every dump must satisfy: outputs identical, every .py compiles, index consistent."""
    assert_bit_identical(run.plain, run.dumped)
    count = every_py_file_compiles(run.directory)
    assert count == run.index["py_files"] == run.index["py_files_compiling"]
    assert (run.directory / "index.md").exists() and (run.directory / "index.html").exists()
    for name in run.index["files"]:
        assert (run.directory / name).exists(), name
    for function in run.index["functions"]:
        assert function["full_code_file"] and (run.directory / function["full_code_file"]).exists()
        for entry in function["entries"]:
            text = (run.directory / entry["transformed_file"]).read_text()
            header = text.splitlines()[:7]
            assert header[1].startswith("# Original function: ") and entry["code_name"] in header[1]
            assert "line %d" % function["firstlineno"] in header[1] or "resume" in header[2]
            if entry["decompile_status"] == "failed":
                assert "DECOMPILATION FAILED" in header[3]
                assert entry["decompile_error"]


# ---------------------------------------------------------------- graph breaks (eager)


def breaks(x):
    y = x.cos()
    if y.sum() > 0:  # marker: branch
        y = y + 1
    print("uncompile test: between graphs")  # marker: print
    s = y.sum().item()  # marker: item
    return y * s


@pytest.fixture(scope="module")
def breaks_run(dump_dir) -> DumpRun:
    def workload() -> Any:
        compiled = torch.compile(breaks, backend="eager")
        return compiled(torch.zeros(4))

    return dump_run(dump_dir("breaks"), workload)


def test_graph_breaks_have_user_lines_and_explanations(breaks_run: DumpRun) -> None:
    check_common(breaks_run)
    record = breaks_run.function("breaks")
    by_line: Dict[int, List[str]] = {}
    for event in record["graph_breaks"]:
        assert event["user_file"] == __file__
        by_line.setdefault(event["user_line"], []).append(event["reason"])
    branch, printed, item = (line_of(breaks, "marker: %s" % m) for m in ("branch", "print", "item"))
    assert "Data-dependent branching" in " ".join(by_line[branch])
    assert "print" in " ".join(by_line[printed])
    assert "item" in " ".join(by_line[item])
    assert all("Explanation" in reason for reasons in by_line.values() for reason in reasons)


def test_resume_functions_get_transformed_files(breaks_run: DumpRun) -> None:
    resumes = breaks_run.files("__transformed_code_*_for_torch_dynamo_resume_in_breaks_at_*.py")
    assert len(resumes) >= 2
    full = (breaks_run.directory / breaks_run.function("breaks")["full_code_file"]).read_text()
    assert "def torch_dynamo_resume_in_breaks_at_" in full
    md = (breaks_run.directory / "index.md").read_text()
    assert "Graph breaks" in md and "Data-dependent branching" in md


# ---------------------------------------------------------------- fullgraph + guards


def fused(x, y):
    return (x.sin() * y).sum(dim=0)


@pytest.fixture(scope="module")
def fullgraph_run(dump_dir) -> DumpRun:
    def workload() -> Any:
        compiled = torch.compile(fused, backend="eager", fullgraph=True)
        return compiled(torch.arange(6.0).reshape(2, 3), torch.ones(2, 3))

    return dump_run(dump_dir("fullgraph"), workload)


def test_fullgraph_single_entry_and_captured_graph(fullgraph_run: DumpRun) -> None:
    check_common(fullgraph_run)
    record = fullgraph_run.function("fused")
    assert len(record["entries"]) == 1 and not record["graph_breaks"]
    stages = {g["stage"]: g for g in record["entries"][0]["graphs"]}
    graph = (fullgraph_run.directory / stages["captured_graph"]["file"]).read_text()
    assert "class GraphModule" in graph and "sin" in graph
    assert "AOTAutograd did not run" in stages["aot"]["note"]
    assert fullgraph_run.files("__transformed_code_0_for_fused.py")


def test_guard_function_accepts_passing_and_rejects_failing_inputs(fullgraph_run: DumpRun) -> None:
    record = fullgraph_run.function("fused")
    module = load_module(fullgraph_run.directory / record["full_code_file"])
    guard = getattr(module, record["entries"][0]["guard_function"])
    x, y = torch.arange(6.0).reshape(2, 3), torch.ones(2, 3)
    assert guard({"x": x, "y": y}, globals()) is True
    assert guard({"x": x.double(), "y": y}, globals()) is False
    assert guard({"x": torch.ones(3, 2), "y": y}, globals()) is False
    assert guard({"x": x.requires_grad_(), "y": y}, globals()) is False
    assert guard.unchecked_guards == ()  # on torch 2.13 every guard of this entry has a Python form
    with torch.no_grad():  # the GLOBAL_STATE guard (grad mode) fails
        assert guard({"x": x.detach(), "y": y}, globals()) is False


# ---------------------------------------------------------------- recompilation


def scale(x):
    return x * 2 + 1


@pytest.fixture(scope="module")
def recompile_run(dump_dir) -> DumpRun:
    def workload() -> Any:
        compiled = torch.compile(scale, backend="eager", dynamic=False)
        return [
            compiled(torch.ones(4)),
            compiled(torch.ones(4, dtype=torch.float64)),
            compiled(torch.ones(6)),
        ]

    return dump_run(dump_dir("recompile"), workload)


def test_recompile_reasons_name_the_failing_guard(recompile_run: DumpRun) -> None:
    check_common(recompile_run)
    record = recompile_run.function("scale")
    assert len(record["entries"]) == 3
    reasons = " | ".join(event["reason"] for event in record["recompiles"])
    assert "'x'" in reasons and "dtype mismatch" in reasons and "size mismatch" in reasons
    assert "expected Float, actual Double" in reasons


def test_each_entry_guard_matches_its_own_inputs(recompile_run: DumpRun) -> None:
    record = recompile_run.function("scale")
    module = load_module(recompile_run.directory / record["full_code_file"])
    inputs = [torch.ones(4), torch.ones(4, dtype=torch.float64), torch.ones(6)]
    for entry, x in zip(record["entries"], inputs):
        guard = getattr(module, entry["guard_function"])
        answers = [guard({"x": other}, globals()) for other in inputs]
        assert answers == [other is x for other in inputs]


# ---------------------------------------------------------------- training step, module with a loop


class Stack(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(8, 8) for _ in range(3)])

    def forward(self, x):
        for layer in self.layers:
            x = torch.relu(layer(x))
        return x


def training_workload(backend: str) -> Callable[[], Any]:
    def workload() -> Any:
        torch.manual_seed(0)
        model = Stack()
        compiled = torch.compile(model, backend=backend)
        x = torch.randn(4, 8)
        loss = compiled(x).pow(2).mean()
        loss.backward()
        return [loss] + [p.grad for p in model.parameters()]

    return workload


@pytest.fixture(scope="module")
def training_run(dump_dir) -> DumpRun:
    return dump_run(dump_dir("training"), training_workload("aot_eager"))


def test_training_step_dumps_forward_and_backward(training_run: DumpRun) -> None:
    check_common(training_run)
    record = training_run.function("forward")
    stages = {g["stage"]: g["file"] for g in record["entries"][0]["graphs"]}
    for stage in ("captured_graph", "aot_joint", "aot_forward", "aot_backward"):
        assert stages.get(stage), stage
    backward = (training_run.directory / stages["aot_backward"]).read_text()
    assert "tangents" in backward


def test_module_loop_over_layers_is_unrolled(training_run: DumpRun) -> None:
    record = training_run.function("forward")
    graph = (training_run.directory / record["entries"][0]["graphs"][0]["file"]).read_text()
    assert graph.count("torch._C._nn.linear") == 3 and graph.count("relu") >= 3
    guards = " ".join(g["text"] for g in record["entries"][0]["guards"])
    assert "layers" in guards


# ---------------------------------------------------------------- closures and cell variables


def make_closure(factor):
    offset = torch.full((4,), 0.5)

    def closure(x):
        return x * factor + offset

    return closure


def with_cell(x):
    total = x.sum()

    def add(v):
        return v + total

    return add(x) * 2


@pytest.fixture(scope="module")
def closure_run(dump_dir) -> DumpRun:
    def workload() -> Any:
        closure = make_closure(3.0)
        return [
            torch.compile(closure, backend="eager")(torch.ones(4)),
            torch.compile(with_cell, backend="eager")(torch.ones(4)),
        ]

    return dump_run(dump_dir("closures"), workload)


def test_closures_and_cells(closure_run: DumpRun) -> None:
    check_common(closure_run)
    closure = closure_run.function("closure")
    guards = " ".join(g["text"] for g in closure["entries"][0]["guards"])
    assert "factor" in guards or "offset" in guards
    assert closure_run.function("with_cell")["entries"]


# ---------------------------------------------------------------- dynamic shapes


def dyn(x, y):
    return x.sin() + y


@pytest.fixture(scope="module")
def dynamic_run(dump_dir) -> DumpRun:
    def workload() -> Any:
        compiled = torch.compile(dyn, backend="eager", dynamic=True)
        return compiled(torch.ones(5), torch.ones(5))

    return dump_run(dump_dir("dynamic"), workload)


def test_dynamic_shape_guards_are_evaluated(dynamic_run: DumpRun) -> None:
    check_common(dynamic_run)
    record = dynamic_run.function("dyn")
    module = load_module(dynamic_run.directory / record["full_code_file"])
    guard = getattr(module, record["entries"][0]["guard_function"])
    assert guard({"x": torch.ones(9), "y": torch.ones(9)}, globals()) is True
    assert guard({"x": torch.ones(9), "y": torch.ones(3)}, globals()) is False
    assert guard({"x": torch.ones(1), "y": torch.ones(1)}, globals()) is False


# ---------------------------------------------------------------- torch.export


class Exported(nn.Module):
    def forward(self, x):
        return x.cos() * 3


def test_torch_export_graphs_are_dumped(dump_dir) -> None:
    run = dump_run(
        dump_dir("export"), lambda: torch.export.export(Exported(), (torch.ones(3),)).module()(torch.ones(3))
    )
    check_common(run)
    files = [name for other in run.index["other_compiles"] for name in other["files"]]
    files += [
        g["file"] for f in run.index["functions"] for e in f["entries"] for g in e["graphs"] if g["file"]
    ]
    assert files, run.index
    assert any("cos" in (run.directory / name).read_text() for name in files)


# ---------------------------------------------------------------- compiled before entering


def early(x):
    return x.tanh() * 2


def test_function_compiled_before_entering(tmp_path: Path) -> None:
    import uncompile

    torch._dynamo.reset()
    compiled = torch.compile(early, backend="eager")
    before = compiled(torch.ones(3))
    with uncompile.prepare_debug(str(tmp_path)) as where:
        inside = compiled(torch.ones(3))
    assert_bit_identical(before, inside)
    index = (Path(where) / "index.json").read_text()
    assert '"compiled_before_dump": true' in index
    text = (Path(where) / "__transformed_code_0_for_early.py").read_text()
    assert "Compiled before prepare_debug was entered" in text
    every_py_file_compiles(Path(where))


# ---------------------------------------------------------------- hooks are removed


def test_hooks_removed_even_when_the_body_raises(tmp_path: Path) -> None:
    import torch._dynamo.convert_frame as convert_frame
    import torch._functorch._aot_autograd.graph_compile as graph_compile
    import torch._logging
    import torch._logging._internal as logging_internal
    import torch.export
    import torch.export._trace as export_trace

    import uncompile

    torch.compile(lambda x: x - 1, backend="eager")(torch.ones(2))  # torch sets up its logging once
    export_before = export_trace._export, torch.export.export
    trace_logger = logging.getLogger("torch.__trace")
    hooks_before = dict(convert_frame._bytecode_hooks)
    handlers_before = list(trace_logger.handlers)
    trace_structured = logging_internal.trace_structured
    torch._dynamo.reset()
    with pytest.raises(ValueError):
        with uncompile.prepare_debug(str(tmp_path)):
            assert len(convert_frame._bytecode_hooks) == len(hooks_before) + 1
            assert torch._logging.trace_structured is graph_compile.trace_structured is not trace_structured
            torch.compile(early, backend="eager")(torch.ones(2))
            raise ValueError("the user's error")
    assert dict(convert_frame._bytecode_hooks) == hooks_before
    assert trace_logger.handlers == handlers_before
    assert torch._logging.trace_structured is graph_compile.trace_structured is trace_structured
    assert (export_trace._export, torch.export.export) == export_before
    assert (tmp_path / "__transformed_code_0_for_early.py").exists()


def test_unused_trace_events_build_nothing(tmp_path: Path) -> None:
    """Only the structured-trace events the dump keeps have their texts built (issue #4)."""
    import torch._logging

    import uncompile

    built: List[str] = []
    trace_logger = logging.getLogger("torch.__trace")
    handlers, trace_logger.handlers = trace_logger.handlers, []  # as in a program without TORCH_TRACE
    try:
        with uncompile.prepare_debug(str(tmp_path)):
            torch._logging.trace_structured("chromium_event", payload_fn=lambda: built.append("timing"))
            torch._logging.trace_structured(
                "artifact",
                metadata_fn=lambda: {"name": "aot_forward_graph_fw_metadata", "encoding": "string"},
                payload_fn=lambda: built.append("metadata"),
            )
            torch._logging.trace_structured(
                "dynamo_output_graph", payload_fn=lambda: built.append("graph") or "class G: pass\n"
            )
            guards_text = lambda: built.append("guards")  # noqa: E731
            torch._logging.trace_structured("dynamo_cpp_guards_str", payload_fn=guards_text)
            assert built == ["graph"]
    finally:
        trace_logger.handlers = handlers
    assert built == ["graph", "guards"]  # the guard text is built when the dump is written
    assert any("captured_graph" in path.name for path in tmp_path.iterdir())


def test_import_changes_nothing_in_torch() -> None:
    import subprocess

    code = (
        "import sys, logging; import uncompile, uncompile.dynamo; assert 'torch' not in sys.modules;"
        "import torch, torch._dynamo.convert_frame as c;"
        "assert not c._bytecode_hooks; import uncompile.dynamo.dump;"
        "assert not c._bytecode_hooks and not [h for h in logging.getLogger('torch.__trace').handlers"
        " if type(h).__module__.startswith('uncompile')]"
    )
    src = str(Path(__file__).resolve().parents[2] / "src")
    result = subprocess.run(
        [sys.executable, "-c", code], env={"PYTHONPATH": src, "PATH": ""}, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr


# ---------------------------------------------------------------- relabeled code, options


def test_cached_code_points_at_the_dumped_files(breaks_run: DumpRun) -> None:
    from uncompile.dynamo import _torch_private
    from uncompile.dynamo.registry import REGISTRY

    mine = [t for t in REGISTRY.transformed if Path(t.path).parent == breaks_run.directory]
    assert mine
    for item in mine:
        cached = [entry.code for entry in _torch_private.cache_entries(item.original)]
        assert any(code is item.code for code in cached) or not cached
        # Decompiled source and the instruction listing of a failed decompilation are both breakable.
        assert item.code.co_filename == item.path
        assert item.offset_lines and all(line > 7 for line in item.offset_lines.values())
        lines = Path(item.path).read_text().splitlines()
        assert all(lines[line - 1].strip() for line in item.offset_lines.values())
        # What tracebacks and pdb show for those lines is the dumped file's text.
        assert all(
            linecache.getline(item.path, line) == lines[line - 1] + "\n"
            for line in item.offset_lines.values()
        )


def test_log_bytecode_and_wild_graphs(tmp_path: Path) -> None:
    run = dump_run(
        tmp_path,
        lambda: torch.compile(scale, backend="eager")(torch.ones(3)),
        log_bytecode=True,
        clean_wild_fx_code=False,
    )
    check_common(run)
    listing = (run.directory / "__bytecode_0_for_scale.txt").read_text()
    assert "Original bytecode" in listing and "Transformed bytecode" in listing


# ---------------------------------------------------------------- a whole training step


def test_compiled_training_step_with_backward_and_optimizer(tmp_path: Path) -> None:
    def workload() -> Any:
        torch.manual_seed(0)
        model = nn.Sequential(nn.Linear(8, 8), nn.ReLU(), nn.Linear(8, 1))
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)

        def train_step(x, y):
            loss = nn.functional.mse_loss(model(x), y)
            loss.backward()  # marker: backward
            optimizer.step()
            optimizer.zero_grad()
            return loss

        step = torch.compile(train_step, backend="aot_eager")
        x, y = torch.randn(4, 8), torch.randn(4, 1)
        return [step(x, y), step(x, y)] + [p.detach().clone() for p in model.parameters()]

    run = dump_run(tmp_path, workload)
    check_common(run)
    record = run.function("train_step")
    first = record["entries"][0]
    assert {"aot_forward", "aot_backward"} <= {g["stage"] for g in first["graphs"] if g["file"]}
    assert any(e["code_name"].startswith("torch_dynamo_resume_in_train_step") for e in record["entries"])
    assert any("backward" in event["reason"] for event in record["graph_breaks"])


def test_without_torch_it_warns_and_does_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.util

    import uncompile
    from uncompile.dynamo import _torch_private

    find_spec = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "torch" else find_spec(name, *a)
    )
    monkeypatch.setattr(_torch_private, "_warned", set())
    with pytest.warns(UserWarning, match="torch is not installed"):
        with uncompile.prepare_debug(str(tmp_path / "dump")) as where:
            pass
    assert where is None and not (tmp_path / "dump").exists()


def test_each_dump_lists_only_the_warnings_of_its_own_run(tmp_path: Path) -> None:
    import json
    import warnings

    import uncompile

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # warned once per process: maybe not here
        with uncompile.prepare_debug(str(tmp_path / "first"), no_such_option=1):
            pass
    with uncompile.prepare_debug(str(tmp_path / "second")):
        pass
    first = json.loads((tmp_path / "first" / "index.json").read_text())
    second = json.loads((tmp_path / "second" / "index.json").read_text())
    assert "ignored prepare_debug arguments: no_such_option" in first["warnings"]
    assert not any("ignored prepare_debug arguments" in text for text in second["warnings"])


def make_counter() -> Callable[[Any], Any]:
    count = 0

    def bump(x):
        nonlocal count
        count += 1
        return x * count

    return bump


def test_a_closure_that_assigns_a_free_variable_dumps_files_that_compile(tmp_path: Path) -> None:
    run = dump_run(tmp_path, lambda: [torch.compile(make_counter(), backend="eager")(torch.ones(2))])
    check_common(run)  # every .py file compiles
    entry = run.function("bump")["entries"][0]
    assert entry["decompile_status"] != "failed"
    assert "# nonlocal count" in (run.directory / entry["transformed_file"]).read_text()
    assert run.index["failures"] == []
