"""Compile-time overhead of ``uncompile.prepare_debug`` versus the same run without it.

Run: ``PYTHONPATH=src .venv/bin/python benchmarks/dump_overhead.py [--repeats N] [--clock cpu]``

Each workload compiles small functions with ``torch.compile`` (backends eager, aot_eager and
inductor; graph breaks, recompiles, dynamic shapes, training steps, a transformer layer).
The sides (plain; dumped; dumped with ``relabel=False``, i.e. no decompiling inside the
bytecode hook) run in this one process in a rotating order, each on fresh Dynamo state
(``torch._dynamo.reset()``) after a ``gc.collect()``. One untimed warm-up run per workload
first fills PyTorch's on-disk compile caches, so every side sees the same (warm) caches.
Reported per workload: the median time of the ``with`` body (what compiling costs the
program: hooks, trace handler, decompiling in the hook) and of the whole ``with`` statement
(plus verifying and writing the files on exit), and the ratios to the plain side; then the
geometric means of the ratios. A ratio is the median over the repeats of that repeat's ratio
(the sides of one repeat run back to back, so a change of the machine's load between repeats
cancels in it; the ratio of the medians would mix medians taken under different loads).
"""

from __future__ import annotations

import argparse
import gc
import math
import shutil
import statistics
import tempfile
import time
from typing import Any, Callable, Dict, List, Tuple

import torch

import uncompile


def _breaks(x: Any) -> Any:
    y = x.cos()
    if y.sum() > 0:
        y = y + 1
    return y * y.sum().item()


def _scale(x: Any) -> Any:
    return x * 2 + 1


class _Stack(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.layers = torch.nn.ModuleList([torch.nn.Linear(16, 16) for _ in range(4)])

    def forward(self, x: Any) -> Any:
        for layer in self.layers:
            x = torch.relu(layer(x))
        return x


def _step(x: Any, w: Any) -> Any:
    return (x.sin() @ w).relu().sum()


def graph_breaks() -> Any:
    return torch.compile(_breaks, backend="eager")(torch.zeros(8))


def recompiles() -> Any:
    compiled = torch.compile(_scale, backend="eager", dynamic=False)
    return [compiled(torch.ones(4)), compiled(torch.ones(4, dtype=torch.float64)), compiled(torch.ones(6))]


def dynamic_shapes() -> Any:
    compiled = torch.compile(_scale, backend="aot_eager", dynamic=True)
    return [compiled(torch.ones(5)), compiled(torch.ones(9))]


def training_aot_eager() -> Any:
    torch.manual_seed(0)
    model = _Stack()
    loss = torch.compile(model, backend="aot_eager")(torch.randn(8, 16)).pow(2).mean()
    loss.backward()
    return loss


def training_inductor() -> Any:
    w = torch.linspace(0.5, -0.5, 64).reshape(8, 8).requires_grad_()
    loss = torch.compile(_step, backend="inductor")(torch.linspace(-1, 1, 64).reshape(8, 8), w)
    loss.backward()
    return loss


def transformer_layer() -> Any:
    torch.manual_seed(0)
    layer = torch.nn.TransformerEncoderLayer(d_model=32, nhead=4, dim_feedforward=64, batch_first=True)
    out = torch.compile(layer, backend="aot_eager")(torch.randn(2, 6, 32))
    out.sum().backward()
    return out


WORKLOADS: Dict[str, Callable[[], Any]] = {
    "graph_breaks/eager": graph_breaks,
    "recompiles/eager": recompiles,
    "dynamic/aot_eager": dynamic_shapes,
    "training/aot_eager": training_aot_eager,
    "training/inductor": training_inductor,
    "transformer/aot_eager": transformer_layer,
}


#: What is timed: wall-clock time (default), or this process's CPU time (``--clock cpu``: steadier
#: on a machine other jobs load, as every side runs in this one process).
CLOCKS = {"wall": time.perf_counter, "cpu": time.process_time}
clock = CLOCKS["wall"]


def _plain(workload: Callable[[], Any]) -> Tuple[float, float]:
    torch._dynamo.reset()
    gc.collect()
    start = clock()
    workload()
    elapsed = clock() - start
    return elapsed, elapsed


def _dumped(workload: Callable[[], Any], directory: str, relabel: bool = True) -> Tuple[float, float]:
    torch._dynamo.reset()
    gc.collect()
    start = clock()
    with uncompile.prepare_debug(directory, relabel=relabel):
        workload()
        body = clock() - start
    return body, clock() - start


def geometric_mean(values: List[float]) -> float:
    """The geometric mean of positive *values*."""
    return math.exp(sum(math.log(v) for v in values) / len(values))


def _measure(workload: Callable[[], Any], directory: str, repeats: int) -> Dict[str, float]:
    """Median seconds of each side, the sides taken in a rotating order, and (``<side> x``) the
    median of each repeat's ratio of that side to the plain side."""
    sides: Dict[str, Callable[[], Tuple[float, float]]] = {
        "plain": lambda: _plain(workload),
        "dump": lambda: _dumped(workload, directory),
        "dump_no_relabel": lambda: _dumped(workload, directory, relabel=False),
    }
    times: Dict[str, List[float]] = {"plain": [], "body": [], "total": [], "body_no_relabel": []}
    names = list(sides)
    for repeat in range(repeats):
        for name in names[repeat % 3 :] + names[: repeat % 3]:  # rotate: drift and order effects cancel
            body, total = sides[name]()
            if name == "plain":
                times["plain"].append(body)
            elif name == "dump":
                times["body"].append(body)
                times["total"].append(total)
            else:
                times["body_no_relabel"].append(body)
    medians = {key: statistics.median(values) for key, values in times.items()}
    for key in ("body", "total", "body_no_relabel"):
        medians[key + " x"] = statistics.median(
            side / plain for side, plain in zip(times[key], times["plain"])
        )
    return medians


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=6, help="timed runs per side and workload")
    parser.add_argument("--clock", choices=sorted(CLOCKS), default="wall", help="what to time (default wall)")
    args = parser.parse_args()
    global clock
    clock = CLOCKS[args.clock]
    ratios: Dict[str, List[float]] = {"body": [], "total": [], "body_no_relabel": []}
    print(
        "%-22s %8s %8s %8s %8s | %7s %7s %7s"
        % ("workload", "plain s", "body s", "total s", "norel s", "body x", "total x", "norel x")
    )
    for name, workload in WORKLOADS.items():
        directory = tempfile.mkdtemp(prefix="uncompile-bench-")
        try:
            _dumped(workload, directory)  # warm-up: fills the compile caches for both sides
            median = _measure(workload, directory, args.repeats)
        finally:
            shutil.rmtree(directory, ignore_errors=True)
        for key in ratios:
            ratios[key].append(median[key + " x"])
        print(
            "%-22s %8.3f %8.3f %8.3f %8.3f | %7.3f %7.3f %7.3f"
            % (
                name,
                median["plain"],
                median["body"],
                median["total"],
                median["body_no_relabel"],
                median["body x"],
                median["total x"],
                median["body_no_relabel x"],
            )
        )
    print(
        "geometric mean over %d workloads: compile-time overhead %.3fx (relabel=False: %.3fx); "
        "including writing the dump on exit %.3fx"
        % (
            len(WORKLOADS),
            geometric_mean(ratios["body"]),
            geometric_mean(ratios["body_no_relabel"]),
            geometric_mean(ratios["total"]),
        )
    )


if __name__ == "__main__":
    main()
