"""``uncompile.debug()``: pdb and ``sys.settrace`` stop in the dumped files, results unchanged.

Each backend runs ``debug_program.py`` once in a subprocess (a real ``torch.compile`` run
with a graph break, a resume function and a backward pass): pdb driven through a command
string sets breakpoints by file:line in the dumped files, prints locals and steps; a
``sys.settrace`` tracer records line events. The tests read its transcript.
"""

from __future__ import annotations

import ast
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any, Dict, List, Set, Tuple

import pytest

PROGRAM = Path(__file__).with_name("debug_program.py")
SRC = Path(__file__).resolve().parents[2] / "src"

# Which graph breakpoints each backend must hit, besides transformed code and the resume function.
GRAPH_KINDS = {
    "eager": ["captured_graph"],
    "aot_eager": ["aot_forward", "aot_backward"],
    "inductor": ["output_code"],
}


class Run:
    """The transcript and JSON summary of one debug_program.py run."""

    def __init__(self, backend: str, dump_dir: Path, output: str) -> None:
        self.backend = backend
        self.dump_dir = dump_dir
        self.output = output
        marker = "RESULT-JSON: "
        assert marker in output, output[-4000:]
        self.summary: Dict[str, Any] = json.loads(output.split(marker, 1)[1].splitlines()[0])
        self.breakpoint_part = output.split("=== PDB BREAKPOINTS", 1)[1].split("=== SESSION", 1)[0]
        self.step_part = output.split("=== PDB STEPS", 1)[1].split("=== PDB GRAPH STEPS", 1)[0]
        graph_steps = output.split("=== PDB GRAPH STEPS ", 1)[1].split("=== END PDB", 1)[0]
        self.graph_step_kind, self.graph_step_part = graph_steps.split("\n", 1)


@pytest.fixture(scope="module", params=sorted(GRAPH_KINDS))
def run(request: Any, tmp_path_factory: Any) -> Run:
    backend = request.param
    dump_dir = tmp_path_factory.mktemp("dump_" + backend)
    env = dict(os.environ, PYTHONPATH=str(SRC))
    env["TORCHINDUCTOR_CACHE_DIR"] = str(tmp_path_factory.mktemp("inductor_cache"))
    completed = subprocess.run(
        [sys.executable, str(PROGRAM), backend, str(dump_dir)],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    output = completed.stdout + completed.stderr
    assert completed.returncode == 0, output[-4000:]
    return Run(backend, dump_dir, output)


def _line_stops(path: str, transcript: str) -> List[int]:
    """Lines where pdb stopped in *path* to run a line (not the ``--Return--`` stops)."""
    found = re.findall(r"(--Return--\n)?> %s\((\d+)\)" % re.escape(path), transcript)
    return [int(line) for returning, line in found if not returning]


def _statement_lines(path: str) -> Set[int]:
    """First lines of every statement in a dumped file."""
    tree = ast.parse(Path(path).read_text())
    return {node.lineno for node in ast.walk(tree) if isinstance(node, ast.stmt)}


def test_breakpoints_of_every_kind_are_hit(run: Run) -> None:
    points = run.summary["points"]
    for kind in ["transformed", "resume"] + GRAPH_KINDS[run.backend]:
        assert kind in points, (kind, sorted(points))
        path, line = points[kind]
        pattern = r"'HIT %s'\n(\[.*\])\n(?:.*\n)*?> %s\((\d+)\)" % (kind, re.escape(path))
        hit = re.search(pattern, run.breakpoint_part)
        assert hit, (kind, run.breakpoint_part[-3000:])
        assert int(hit.group(2)) == line


def test_program_locals_are_visible_by_name(run: Run) -> None:
    names = {}
    for kind in ("transformed", "resume"):
        hit = re.search(r"'HIT %s'\n(\[.*\])" % kind, run.breakpoint_part)
        assert hit, run.breakpoint_part[-3000:]
        names[kind] = ast.literal_eval(hit.group(1))
    assert {"x", "y"} <= set(names["transformed"])
    assert "a" in names["resume"]  # f's local, live across the graph break
    for kind, expected in run.summary["expected_values"].items():
        printed = re.search(r"\('VALUE', '%s', (.*)\)\n" % kind, run.breakpoint_part)
        assert printed, (kind, run.breakpoint_part[-3000:])
        assert ast.literal_eval(printed.group(1)) == expected, kind


def test_stepping_follows_the_dumped_source_once_per_statement(run: Run) -> None:
    path, _ = run.summary["points"]["transformed"]
    stops = _line_stops(path, run.step_part)
    assert len(stops) >= 3, run.step_part
    assert stops == sorted(stops) and len(set(stops)) == len(stops)  # in order, each statement once
    assert set(stops) <= _statement_lines(path)


def test_step_walks_graph_code_line_by_line(run: Run) -> None:
    path, line = run.summary["points"][run.graph_step_kind]
    stops = _line_stops(path, run.graph_step_part)
    assert stops[0] == line and len(stops) >= 3, run.graph_step_part
    assert stops == sorted(stops) and len(set(stops)) == len(stops)
    assert set(stops) <= _statement_lines(path)


def test_line_events_carry_dumped_file_names_and_lines(run: Run) -> None:
    events: List[Tuple[str, int]] = [(path, line) for path, line in run.summary["events"]]
    assert events
    files = {path for path, _ in events}
    points = run.summary["points"]
    assert points["transformed"][0] in files and points["resume"][0] in files
    assert any(stage in os.path.basename(path) for path in files for stage in GRAPH_KINDS[run.backend])
    for path in files:
        assert Path(path).is_file() and Path(path).resolve().is_relative_to(run.dump_dir.resolve())
        in_file = [line for event_path, line in events if event_path == path]
        assert set(in_file) <= _statement_lines(path), path
    for (path, line), (next_path, next_line) in zip(events, events[1:]):
        assert (path, line) != (next_path, next_line), "a statement stopped twice in a row"


def test_multi_line_statements_stop_once(run: Run) -> None:
    """Statements printed over several lines (e.g. FX's ``return (...)``) give one line event."""
    multi_line_hits = 0
    for path in {path for path, _ in run.summary["events"]}:
        tree = ast.parse(Path(path).read_text())
        spread: Dict[int, int] = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.stmt) and not _compound(node) and (node.end_lineno or 0) > node.lineno:
                spread[node.lineno] = node.end_lineno or node.lineno
        lines = [line for event_path, line in run.summary["events"] if event_path == path]
        multi_line_hits += sum(1 for line in lines if line in spread)
        inside = {line for first, last in spread.items() for line in range(first + 1, last + 1)}
        assert not inside & set(lines), path
    if run.backend == "aot_eager":  # its readable AOT graphs print ``return (...)`` over several lines
        assert multi_line_hits > 0


def _compound(node: ast.stmt) -> bool:
    return hasattr(node, "body")


def test_results_are_identical_to_the_run_without_debugging(run: Run) -> None:
    results = run.summary["results"]
    for phase in ("compiled", "breakpoints", "steps", "graph_steps", "settrace", "after"):
        assert results[phase] == results["plain"], phase


def test_nothing_compiles_inside_and_everything_is_restored(run: Run) -> None:
    stance = run.summary["stance"]
    assert stance["compiles_inside"] == 0
    assert stance["compiles_after"] >= 1
    assert stance["inside"] == stance["outside"] == [3.0, 3.0, 3.0]
    assert stance["still_relabeled"] == []


def test_transformed_breakpoints_use_the_real_decompiled_files(run: Run) -> None:
    """Where prepare_debug relabeled the cached code, the breakpoints were in its own files."""
    points = run.summary["points"]
    stand_in = [kind for kind in ("transformed", "resume") if os.sep + "standin" + os.sep in points[kind][0]]
    for kind in ("transformed", "resume"):
        if kind not in stand_in:
            assert Path(points[kind][0]).parent == run.dump_dir
    if stand_in:
        pytest.skip("prepare_debug left Dynamo's code for %s (decompile failed?): stand-in used" % stand_in)
