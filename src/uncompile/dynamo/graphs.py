"""Write the graph files of one compile: Dynamo, AOTAutograd and Inductor stages.

The texts come from the structured trace (see :mod:`.trace`), which PyTorch emits whether
its compile caches are cold or warm: on an AOTAutograd or FX-graph cache hit it re-emits the
cached joint/forward/backward graphs, the post-grad graph and the output code. Inductor's
pre-grad passes do not run on an AOTAutograd cache hit, so there is no pre-grad graph then;
the index says so. Every file is a ``.py`` that compiles: a text that does not is kept as
comments, with a note.
"""

from __future__ import annotations

import re
from typing import Dict, List, Optional, Tuple

from . import names
from .decompiled import as_comments
from .files import DumpDirectory
from .model import GraphRecord
from .trace import CompileEvents

#: Stages in pipeline order, with a human title.
STAGE_TITLES = {
    "captured_graph": "Dynamo's captured FX graph",
    "pre_grad_before": "Inductor input graph, before pre-grad passes",
    "pre_grad_after": "Inductor graph after pre-grad passes",
    "aot_joint": "AOTAutograd joint forward+backward graph",
    "aot_forward": "AOTAutograd forward graph",
    "aot_backward": "AOTAutograd backward graph",
    "aot_inference": "AOTAutograd inference graph",
    "post_grad": "Inductor graph after post-grad passes",
    "output_code": "Inductor output code (kernels and the `call` entry point)",
    "exported_program": "torch.export ExportedProgram",
}
_AOT_ID = re.compile(r"^# AOT ID: \['\d+_(\w+)'\]")
_GRAPH_PRELUDE = "import torch\nfrom torch import device  # noqa: F401\n\n"


def _labels(events: CompileEvents) -> List[Tuple[str, str]]:
    """(stage label, text) per graph, post-grad/output code split into forward/backward."""
    has_backward = any(graph.stage == "aot_backward" for graph in events.graphs)
    seen: Dict[str, int] = {}
    labelled: List[Tuple[str, str]] = []
    for graph in events.graphs:
        stage = graph.stage
        if stage in ("post_grad", "output_code"):
            match = _AOT_ID.match(graph.text)
            count = seen.get(stage, 0)
            seen[stage] = count + 1
            if match:
                stage = "%s_%s" % (stage, match.group(1))
            elif has_backward:
                stage = "%s_%s" % (stage, "forward" if count == 0 else "backward")
        labelled.append((stage, graph.text))
    return labelled


def _title(stage: str) -> str:
    for suffix, label in (("_forward", " (forward)"), ("_backward", " (backward)")):
        base = stage[: -len(suffix)]
        if stage.endswith(suffix) and base in STAGE_TITLES:
            return STAGE_TITLES[base] + label
    return STAGE_TITLES.get(stage, stage)


_CLASS_HEADER = re.compile(r"^(\s*class )([^\s(:]+)(?=[(:])", re.MULTILINE)


def _valid_class_names(text: str) -> str:
    """PyTorch prints some graph modules as ``class <lambda>(torch.nn.Module):``; name them
    ``GraphModule`` instead, so the file stays Python without moving any line."""

    def rename(match: "re.Match[str]") -> str:
        name = match.group(2)
        return match.group(0) if name.isidentifier() else match.group(1) + "GraphModule"

    return _CLASS_HEADER.sub(rename, text)


def graph_text(stage: str, text: str, header: str) -> Tuple[str, Optional[str]]:
    """File content for one graph text, and a note when the text had to be kept as comments."""
    prelude = "" if stage.startswith("output_code") else _GRAPH_PRELUDE
    body = _valid_class_names(text if text.endswith("\n") else text + "\n")
    candidate = header + prelude + body
    try:
        compile(candidate, "<graph>", "exec")
        return candidate, None
    except SyntaxError as error:
        note = "PyTorch's text is not valid Python (%s); kept as comments" % error.msg
        return header + "# NOTE: %s.\n" % note + as_comments(text), note


def _base_stage(stage: str) -> str:
    for base in ("post_grad", "output_code"):
        if stage.startswith(base):
            return base
    return stage


def missing_stage_notes(events: CompileEvents, stages: List[str]) -> List[GraphRecord]:
    """Index records for the standard stages that did not run for this compile, with why."""
    present = {_base_stage(stage) for stage in stages}
    ran_aot = any(stage.startswith("aot_") for stage in present)
    ran_inductor = "output_code" in present or "post_grad" in present
    records: List[GraphRecord] = []
    if "captured_graph" not in present:
        records.append(GraphRecord("captured_graph", None, "no FX graph: this entry calls no compiled graph"))
        return records
    if not ran_aot:
        records.append(GraphRecord("aot", None, "AOTAutograd did not run (the backend does not use it)"))
    if not ran_inductor:
        records.append(GraphRecord("inductor", None, "Inductor did not run (the backend does not use it)"))
    if ran_inductor and "aot_backward" in present and "output_code_backward" not in stages:
        why = "Inductor compiles the backward lazily: backward did not run inside the dump"
        records.append(GraphRecord("output_code_backward", None, why))
    if ran_inductor and "pre_grad_before" not in present:
        why = (
            "pre-grad passes did not run: AOTAutograd cache hit"
            if "aotautograd_cache_hit" in events.cache_events
            else "no pre-grad graph was emitted"
        )
        records.append(GraphRecord("pre_grad", None, why))
    return records


def write_graphs(
    directory: DumpDirectory, events: CompileEvents, graph_name: str, owner: str
) -> Tuple[List[GraphRecord], List[Tuple[str, str]]]:
    """Write every graph of *events*; returns index records and (stage, file name) pairs."""
    records: List[GraphRecord] = []
    written: List[Tuple[str, str]] = []
    used: Dict[str, int] = {}
    for stage, text in _labels(events):
        index = used.get(stage, 0)
        used[stage] = index + 1
        name = names.graph_file(graph_name, stage, index)
        header = (
            "# %s for %s (compile id %s) of %s.\n"
            "# Written by uncompile.prepare_debug from PyTorch's structured trace.\n"
            % (_title(stage), names.short_compiled_fn(graph_name), events.compile_id, owner)
        )
        content, note = graph_text(stage, text, header)
        directory.write(name, content)
        records.append(GraphRecord(stage, name, note or ""))
        written.append((stage, name))
    records.extend(missing_stage_notes(events, [stage for stage, _ in written]))
    return records, written
