"""A small torch.compile program that tests/dynamo/test_debugger.py drives through pdb.

Run as ``python debug_program.py BACKEND DUMP_DIR``. It

1. runs ``main`` once under ``prepare_debug(DUMP_DIR)`` (compiles; a graph break
   gives a resume function, ``backward`` gives AOT backward graphs);
2. runs ``main`` under ``uncompile.debug()`` with pdb reading its commands from a
   string: breakpoints by file:line in the dumped files, each printing a marker
   and the frame's locals, then continuing;
3. runs ``main`` again under ``debug()`` and steps (``n``) through the transformed
   code of ``f``;
4. runs ``main`` under ``debug()`` with a ``sys.settrace`` tracer recording line
   events in dumped files;
5. prints ``RESULT-JSON: {...}``: breakpoints set, results of every run, trace events.

A stand-in dump of the transformed code goes to DUMP_DIR/standin, written and
relabeled from a bytecode hook that runs before ``prepare_debug``'s, with
:func:`uncompile.dynamo.debuggable.debuggable_source`: decompiled source where the
decompiler succeeds, else a breakable instruction listing. Where ``prepare_debug``
relabels transformed code itself (the real decompiled files), its result wins and the
breakpoints go into its files.
Without ``uncompile.dynamo.dump``, graph texts come from PyTorch's structured trace.
"""

from __future__ import annotations

import ast
import contextlib
import gc
import glob
import importlib.util
import io
import json
import logging
import os
import pdb
import sys
import types
from typing import Any, Dict, Iterator, List, Optional, Tuple

import torch

import uncompile
from uncompile.dynamo.debuggable import debuggable_source


def f(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    a = x.sin() + y
    if a.sum() > 0:
        b = a * 2
    else:
        b = a - 1
    return b.cos()


def main(compiled: Any, x: torch.Tensor, y: torch.Tensor) -> Tuple[List[float], List[float]]:
    x.grad = None
    out = compiled(x, y)
    out.sum().backward()
    assert x.grad is not None
    return out.detach().tolist(), x.grad.tolist()


# ---------------------------------------------------------------- stand-in dump
class _GraphTexts(logging.Handler):
    """Keeps graph texts from the structured trace, in order, with their stage."""

    STAGES = {
        "dynamo_output_graph": "captured_graph",
        "aot_forward_graph": "aot_forward",
        "aot_backward_graph": "aot_backward",
        "inductor_output_code": "output_code",
    }

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.texts: List[Tuple[str, str]] = []

    def emit(self, record: logging.LogRecord) -> None:
        metadata = getattr(record, "metadata", {}) or {}
        for key, stage in self.STAGES.items():
            if key in metadata and isinstance(getattr(record, "payload", None), str):
                self.texts.append((stage, record.payload))  # type: ignore[attr-defined]


@contextlib.contextmanager
def standin_transformed(dump_dir: str, originals: Dict[str, types.CodeType]) -> Iterator[None]:
    """Dump transformed code as pseudo-source into DUMP_DIR/standin and relabel it.

    Registered before ``prepare_debug``'s hook: when that one returns relabeled code
    too, its result is what Dynamo caches. *originals* gets each original code by name.
    """
    os.makedirs(os.path.join(dump_dir, "standin"), exist_ok=True)
    counter: Dict[str, int] = {}

    def hook(code: types.CodeType, new_code: types.CodeType) -> Optional[types.CodeType]:
        new = new_code
        originals.setdefault(new.co_name, code)
        index = counter[new.co_name] = counter.get(new.co_name, -1) + 1
        name = "__transformed_code_%d_for_%s.py" % (index, new.co_name)
        path = os.path.join(dump_dir, "standin", name)
        source = debuggable_source(new)
        header = "# stand-in dump of %s (%s)\n" % (name, "decompiled" if source.decompiled else source.error)
        with open(path, "w") as handle:
            handle.write(header + source.text)
        return source.relabeled(path, header_lines=1)

    handle = torch._dynamo.convert_frame.register_bytecode_hook(hook)
    try:
        yield
    finally:
        handle.remove()


@contextlib.contextmanager
def standin_graphs(dump_dir: str) -> Iterator[None]:
    """Dump graph texts from the structured trace (when prepare_debug does not exist yet)."""
    graphs = _GraphTexts()
    logger = logging.getLogger("torch.__trace")
    logger.addHandler(graphs)
    try:
        yield
    finally:
        logger.removeHandler(graphs)
        for number, (stage, text) in enumerate(graphs.texts):
            with open(os.path.join(dump_dir, "graph_%d_%s.py" % (number, stage)), "w") as out:
                out.write("# stand-in graph dump: %s\n\n%s" % (stage, text))


# ---------------------------------------------------------------- breakpoints
def _first_body_line(path: str, names: Tuple[str, ...]) -> int:
    """The line of the first statement in the body of the first function named in *names*."""
    tree = ast.parse(open(path).read())
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and (node.name in names or not names):
            return node.body[0].lineno
    raise AssertionError("no function %s in %s" % (names, path))


def breakpoints(dump_dir: str, originals: Dict[str, types.CodeType]) -> Dict[str, Tuple[str, int]]:
    """Marker -> (file, line) for each kind of code present in the dump.

    For transformed code, the file is the one the code Dynamo cached reports: the
    real dump's when ``prepare_debug`` relabeled it, else the stand-in's.
    """
    from uncompile.dynamo._torch_private import cache_entries

    found: Dict[str, Tuple[str, int]] = {}
    for name, original in originals.items():
        kind = "resume" if "resume" in name else "transformed"
        entries = cache_entries(original)
        if kind in found or not entries or not os.path.isfile(entries[0].code.co_filename):
            continue
        path = entries[0].code.co_filename
        found[kind] = (path, _first_body_line(path, ()))
    stages = {
        "captured_graph": "forward",
        "aot_forward": "forward",
        "aot_backward": "forward",
        "output_code": "call",
    }
    for stage, prefix in stages.items():
        for path in sorted(glob.glob(os.path.join(dump_dir, "**", "*%s*.py" % stage), recursive=True)):
            try:
                found[stage] = (os.path.abspath(path), _first_body_line(path, (prefix,)))
                break
            except AssertionError:
                continue
    return found


# Values printed at a breakpoint: the program's own locals, by name.
VALUES = {"transformed": "x.tolist()", "resume": "[round(v, 4) for v in a.tolist()]"}


def pdb_commands(points: Dict[str, Tuple[str, int]]) -> str:
    commands = []
    for marker, (path, line) in points.items():
        commands += ["break %s:%d" % (path, line), "commands", "p 'HIT %s'" % marker]
        commands += ["p sorted(k for k in locals() if not k.startswith('__'))"]
        if marker in VALUES:
            commands += ["p ('VALUE', %r, %s)" % (marker, VALUES[marker])]
        commands += ["continue"]
    return "\n".join(commands + ["continue", ""])


def step_commands(point: Tuple[str, int], command: str, steps: int) -> str:
    path, line = point
    return "\n".join(["break %s:%d" % (path, line), "continue"] + [command] * steps + ["continue", ""])


# The graph code that runs: Inductor's output, else the AOT forward, else Dynamo's graph.
GRAPH_POINTS = ("output_code", "aot_forward", "captured_graph")


def check_stance_and_restore(dump_root: str) -> Dict[str, Any]:
    """Nothing compiles inside debug(); everything is back after it, also after an exception."""
    compiles: List[str] = []
    hook = torch._dynamo.convert_frame.register_bytecode_hook(lambda old, new: compiles.append(new.co_name))
    fresh = torch.compile(lambda t: t * 2 + 1, backend="eager")
    try:
        with uncompile.debug():
            raise KeyError("raised inside debug()")
    except KeyError:
        pass
    with uncompile.debug():
        inside = fresh(torch.ones(3)).tolist()
        compiles_inside = len(compiles)
    outside = fresh(torch.ones(3)).tolist()
    hook.remove()
    still_relabeled = [
        obj.__qualname__
        for obj in gc.get_objects()
        if type(obj) is types.FunctionType and obj.__code__.co_filename.startswith(dump_root)
    ]
    return {
        "compiles_inside": compiles_inside,
        "compiles_after": len(compiles),
        "inside": inside,
        "outside": outside,
        "still_relabeled": still_relabeled,
    }


# ---------------------------------------------------------------- the run
def run(backend: str, dump_dir: str, real_dump: bool) -> Dict[str, Any]:
    torch.manual_seed(0)
    x = torch.randn(8, requires_grad=True)
    y = torch.full((8,), 3.0)
    compiled = torch.compile(f, backend=backend)
    results: Dict[str, Any] = {"plain": main(compiled, x, y)}  # no uncompile involved
    torch._dynamo.reset()  # compile again, this time dumped
    with contextlib.ExitStack() as stack:
        originals: Dict[str, types.CodeType] = {}
        stack.enter_context(standin_transformed(dump_dir, originals))
        stack.enter_context(uncompile.prepare_debug(dump_dir) if real_dump else standin_graphs(dump_dir))
        results["compiled"] = main(compiled, x, y)
    points = breakpoints(dump_dir, originals)
    debugger = pdb.Pdb(stdin=io.StringIO(pdb_commands(points)), stdout=sys.stdout, nosigint=True)
    print("=== PDB BREAKPOINTS", flush=True)
    with uncompile.debug(dump_src_dir=dump_dir) as session:
        results["breakpoints"] = debugger.runcall(main, compiled, x, y)
    print("=== SESSION", session, session.relabeled, session.unmatched, flush=True)
    debugger.clear_all_breaks()
    commands = step_commands(points["transformed"], "next", 8)
    stepper = pdb.Pdb(stdin=io.StringIO(commands), stdout=sys.stdout, nosigint=True)
    print("=== PDB STEPS", flush=True)
    with uncompile.debug(dump_src_dir=dump_dir):
        results["steps"] = stepper.runcall(main, compiled, x, y)
    stepper.clear_all_breaks()
    graph_kind = next(kind for kind in GRAPH_POINTS if kind in points)
    # In FX graphs ``step`` would enter torch.ops' Python ``__call__`` (as pdb should);
    # Inductor's ``call`` calls compiled kernels, so ``step`` stays in the file.
    commands = step_commands(points[graph_kind], "step" if graph_kind == "output_code" else "next", 3)
    stepper = pdb.Pdb(stdin=io.StringIO(commands), stdout=sys.stdout, nosigint=True)
    print("=== PDB GRAPH STEPS", graph_kind, flush=True)
    with uncompile.debug(dump_src_dir=dump_dir):
        results["graph_steps"] = stepper.runcall(main, compiled, x, y)
    stepper.clear_all_breaks()
    print("=== END PDB", flush=True)
    events: List[Tuple[str, int]] = []
    dump_root = os.path.abspath(dump_dir)

    def tracer(frame: Any, event: str, arg: Any) -> Any:
        if event == "line" and frame.f_code.co_filename.startswith(dump_root):
            events.append((frame.f_code.co_filename, frame.f_lineno))
        return tracer

    with uncompile.debug(dump_src_dir=dump_dir) as session:
        sys.settrace(tracer)
        try:
            results["settrace"] = main(compiled, x, y)
        finally:
            sys.settrace(None)
    results["after"] = main(compiled, x, y)
    return {
        "stance": check_stance_and_restore(dump_root),
        "expected_values": {
            "transformed": x.tolist(),
            "resume": [round(v, 4) for v in (x.sin() + y).tolist()],
        },
        "results": results,
        "points": points,
        "events": events,
        "relabeled": session.relabeled,
        "seconds_to_enter": session.seconds_to_enter,
    }


if __name__ == "__main__":
    chosen_backend, chosen_dir = sys.argv[1], sys.argv[2]
    use_real_dump = importlib.util.find_spec("uncompile.dynamo.dump") is not None
    summary = run(chosen_backend, chosen_dir, use_real_dump)
    summary["real_dump"] = use_real_dump
    print("RESULT-JSON: " + json.dumps(summary), flush=True)
