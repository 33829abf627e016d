"""Compile-time overhead of ``uncompile.prepare_debug`` versus the same run without it.

Run: ``PYTHONPATH=src .venv/bin/python benchmarks/dump_overhead.py [--repeats N]``

Each workload compiles small functions with ``torch.compile`` (backends eager, aot_eager and
inductor; graph breaks, recompiles, dynamic shapes, training steps, a transformer layer).
Both sides run in this one process, alternating (dumped, plain, plain, dumped, ...), each on
fresh Dynamo state (``torch._dynamo.reset()``) after a ``gc.collect()``. One untimed warm-up
run per workload first fills PyTorch's on-disk compile caches, so both sides see the same
(warm) caches. Reported per workload: the median time of the ``with`` body (what compiling
costs the program: hooks, trace handler, decompiling in the hook) and of the whole ``with``
statement (plus verifying and writing the files on exit); then the geometric means.
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


def _plain(workload: Callable[[], Any]) -> Tuple[float, float]:
    torch._dynamo.reset()
    gc.collect()
    start = time.perf_counter()
    workload()
    elapsed = time.perf_counter() - start
    return elapsed, elapsed


def _dumped(workload: Callable[[], Any], directory: str) -> Tuple[float, float]:
    torch._dynamo.reset()
    gc.collect()
    start = time.perf_counter()
    with uncompile.prepare_debug(directory):
        workload()
        body = time.perf_counter() - start
    return body, time.perf_counter() - start


def geometric_mean(values: List[float]) -> float:
    """The geometric mean of positive *values*."""
    return math.exp(sum(math.log(v) for v in values) / len(values))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5, help="timed runs per side and workload")
    args = parser.parse_args()
    body_ratios: List[float] = []
    total_ratios: List[float] = []
    print("%-22s %10s %10s %10s %8s %8s" % ("workload", "plain s", "body s", "total s", "body x", "total x"))
    for name, workload in WORKLOADS.items():
        directory = tempfile.mkdtemp(prefix="uncompile-bench-")
        try:
            _dumped(workload, directory)  # warm-up: fills the compile caches for both sides
            plain: List[float] = []
            body: List[float] = []
            total: List[float] = []
            for repeat in range(args.repeats):
                # Alternate which side goes first, so drift and order effects cancel out.
                if repeat % 2:
                    plain.append(_plain(workload)[0])
                dumped_body, dumped_total = _dumped(workload, directory)
                body.append(dumped_body)
                total.append(dumped_total)
                if not repeat % 2:
                    plain.append(_plain(workload)[0])
        finally:
            shutil.rmtree(directory, ignore_errors=True)
        p, b, t = statistics.median(plain), statistics.median(body), statistics.median(total)
        body_ratios.append(b / p)
        total_ratios.append(t / p)
        print("%-22s %10.3f %10.3f %10.3f %8.3f %8.3f" % (name, p, b, t, b / p, t / p))
    print(
        "geometric mean: compile-time overhead (body) %.3fx, with writing the dump %.3fx"
        % (geometric_mean(body_ratios), geometric_mean(total_ratios))
    )


if __name__ == "__main__":
    main()
