"""Memory kept across repeated ``uncompile.prepare_debug`` dumps in one process.

Run: ``PYTHONPATH=src .venv/bin/python benchmarks/dump_memory.py [--dumps N] [--backend B] [--directories K]``

A framework that dumps per rank, per model or per step runs ``prepare_debug`` again and
again in one process. Each dump here builds a fresh small transformer block, compiles it
(after ``torch._dynamo.reset()``, so Dynamo itself forgets the earlier dumps) and runs it
under ``prepare_debug`` into one of *K* directories (a repeated directory is dumped into
again). After each dump and a ``gc.collect()`` it reports the Python heap in use
(``tracemalloc``), the number of live FX ``GraphModule`` objects and the number of models
of earlier dumps still alive; then the heap growth per dump over the last half of the run.
With nothing kept, the live counts stay flat and the growth is near zero.
"""

from __future__ import annotations

import argparse
import gc
import shutil
import tempfile
import tracemalloc
import weakref
from typing import Any, List

import torch

import uncompile


def _model() -> Any:
    return torch.nn.TransformerEncoderLayer(64, 4, 128, dropout=0.0, batch_first=True)


def _live_graph_modules() -> int:
    from torch.fx import GraphModule

    return sum(1 for value in gc.get_objects() if issubclass(type(value), GraphModule))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dumps", type=int, default=8)
    parser.add_argument("--backend", default="aot_eager")
    parser.add_argument("--directories", type=int, default=2)
    args = parser.parse_args()
    root = tempfile.mkdtemp(prefix="uncompile_dump_memory_")
    models: List[Any] = []
    heap: List[int] = []
    tracemalloc.start()
    try:
        print("dump  heap_MiB  live_GraphModules  earlier_models_alive")
        for number in range(args.dumps):
            torch._dynamo.reset()
            model = _model().eval()
            models.append(weakref.ref(model))
            compiled = torch.compile(model, backend=args.backend)
            with torch.no_grad(), uncompile.prepare_debug("%s/dump_%d" % (root, number % args.directories)):
                compiled(torch.randn(2, 8, 64))
            del model, compiled
            gc.collect()
            heap.append(tracemalloc.get_traced_memory()[0])
            alive = sum(1 for ref in models[:-1] if ref() is not None)
            print("%4d  %8.2f  %17d  %20d" % (number + 1, heap[-1] / 2**20, _live_graph_modules(), alive))
        half = len(heap) // 2
        if len(heap) - half >= 2:
            growth = (heap[-1] - heap[half]) / (len(heap) - 1 - half)
            print("heap growth per dump over dumps %d-%d: %.1f KiB" % (half + 1, len(heap), growth / 1024))
    finally:
        tracemalloc.stop()
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
