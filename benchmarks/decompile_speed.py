"""Decompile speed: time to decompile a standard-library corpus / time to compile() its source.

    python benchmarks/decompile_speed.py              # 200 stdlib modules (fixed choice)
    python benchmarks/decompile_speed.py --files 0    # every stdlib module
    python benchmarks/decompile_speed.py --clock cpu  # this process's CPU time (loaded machine)

For each module of the corpus (sorted stdlib files, every k-th one so the choice is fixed),
the source is compiled with ``compile()`` and the module code is decompiled with
``uncompile.decompiler.decompile_code``, both timed in this run, best of ``--repeat`` runs.
Modules that fail to decompile are counted and left out of both sums (the ratio compares
like with like); a second line gives the ratio over every module, failed attempts included
(a failure may stop early, so that one can flatter). The issue's target: at most 5x. No
timing is asserted.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import tokenize
from typing import List, Optional, Tuple

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "src"))

from uncompile.verification.stdlib_sample import stdlib_files, stdlib_root  # noqa: E402

#: What is timed: wall-clock time (default), or this process's CPU time (``--clock cpu``: steadier
#: when other work shares the machine; both sides are single-threaded).
CLOCKS = {"wall": time.perf_counter, "cpu": time.process_time}
clock = CLOCKS["wall"]


def _best_time(action, repeat: int) -> float:  # type: ignore[no-untyped-def]
    best = float("inf")
    for _ in range(repeat):
        started = clock()
        action()
        best = min(best, clock() - started)
    return best


def corpus(count: int) -> List[str]:
    files = stdlib_files()
    if count and count < len(files):
        step = len(files) / float(count)
        files = [files[int(index * step)] for index in range(count)]
    return files


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", type=int, default=200, help="number of modules, 0 for all (200)")
    parser.add_argument("--repeat", type=int, default=3, help="runs per module, best counts (3)")
    parser.add_argument("--clock", choices=sorted(CLOCKS), default="wall", help="what to time (default wall)")
    options = parser.parse_args(argv)
    global clock
    clock = CLOCKS[options.clock]

    from uncompile.decompiler import decompile_code

    root = stdlib_root()
    compile_total = decompile_total = 0.0
    compile_all = decompile_all = 0.0
    failed: List[Tuple[str, str]] = []
    measured = 0
    files = corpus(options.files)
    for position, relative in enumerate(files, 1):
        path = os.path.join(root, relative)
        try:
            with tokenize.open(path) as handle:
                source = handle.read()
            code = compile(source, path, "exec", dont_inherit=True)
        except (SyntaxError, ValueError, UnicodeDecodeError, OSError):  # OSError: a dangling link
            continue
        compile_time = _best_time(
            lambda source=source, path=path: compile(source, path, "exec", dont_inherit=True), options.repeat
        )
        compile_all += compile_time
        try:
            started = clock()
            decompile_code(code)
        except Exception as error:  # noqa: BLE001 - measured corpus leaves failures out
            decompile_all += clock() - started
            failed.append((relative, "%s: %s" % (type(error).__name__, str(error)[:80])))
            continue
        decompile_time = _best_time(lambda code=code: decompile_code(code), options.repeat)
        compile_total += compile_time
        decompile_total += decompile_time
        decompile_all += decompile_time
        measured += 1
        sys.stderr.write("\r%d/%d modules  %s" % (position, len(files), relative[:50].ljust(50)))
        sys.stderr.flush()
    sys.stderr.write("\n")

    print(
        "Python %d.%d, %d modules measured, %d failed to decompile, %s clock"
        % (sys.version_info[:2] + (measured, len(failed), options.clock))
    )
    print("compile():   %8.3f s" % compile_total)
    print("decompile:   %8.3f s" % decompile_total)
    if compile_total:
        print("ratio:       %8.2fx  (decompile / compile)" % (decompile_total / compile_total))
    if compile_all:
        print("all modules: %8.2fx  (failed attempts included)" % (decompile_all / compile_all))
    for relative, reason in failed[:10]:
        print("  failed: %s: %s" % (relative, reason))
    return 0


if __name__ == "__main__":
    sys.exit(main())
