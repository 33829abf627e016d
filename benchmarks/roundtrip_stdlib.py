"""Round-trip the standard library: decompile, recompile, compare, and print the table.

    python benchmarks/roundtrip_stdlib.py                  # the fixed sample of 3000 functions
    python benchmarks/roundtrip_stdlib.py --sample 300     # a smaller fixed sample
    python benchmarks/roundtrip_stdlib.py --all            # every function of the stdlib
    python benchmarks/roundtrip_stdlib.py --python /path/to/python3.X --python ...
    python benchmarks/roundtrip_stdlib.py --root DIR       # another tree: an installed package

Each function is checked by :mod:`uncompile.verification.roundtrip` under a time limit. Prints one
row per interpreter (functions, crash %, DecompileError %, compiles %, identical %) and the
most common failure reasons. With ``--python`` (repeatable) the benchmark runs itself under
each interpreter given (the current one is not included unless named) and combines the rows.
Progress goes to stderr. No timing is asserted. With ``--same-source`` each function is also
checked by :mod:`uncompile.verification.same_source` (does its decompiled body print as its
original does?) and the share that does is printed; ``--source-diffs FILE`` writes the
differing ones as unified diffs. ``--root DIR`` samples the ``.py`` files under DIR instead of
the standard library (third-party code has constructs the standard library seldom uses; each
interpreter compiles the files itself, so DIR needs no installation under it).
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import subprocess
import sys
import time
from types import CodeType
from typing import Any, Dict, List, Optional, Tuple

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "src"))

from uncompile.verification.roundtrip import (  # noqa: E402
    OUTCOMES,
    Summary,
    UnitResult,
    check_units,
    failure_reason,
    format_table,
    summarize,
    top_failures,
)
from uncompile.verification.same_source import compare_function  # noqa: E402
from uncompile.verification.stdlib_sample import iter_sample, stdlib_root  # noqa: E402


class SameSourceTally:
    """Functions whose decompiled body prints as the original does, and the diffs of the rest."""

    def __init__(self, root: Optional[str] = None) -> None:
        self.root = root or stdlib_root()
        self.trees: Dict[str, ast.AST] = {}
        self.checked = 0
        self.same = 0
        self.diffs: List[List[str]] = []

    def check(self, path: str, qualname: str, code: CodeType) -> None:
        if path not in self.trees:
            with open(os.path.join(self.root, path), "rb") as stream:
                self.trees[path] = ast.parse(stream.read())
        diff = compare_function(self.trees[path], code, "%s:%s" % (path, qualname))
        if diff is None:
            return
        self.checked += 1
        if diff:
            self.diffs.append(diff)
        else:
            self.same += 1

    def summary(self) -> str:
        share = 100.0 * self.same / self.checked if self.checked else 0.0
        return "same source: %d of %d functions (%.1f %%)" % (self.same, self.checked, share)

    def write(self, path: str) -> None:
        with open(path, "w") as stream:
            for diff in self.diffs:
                stream.write("\n".join(diff) + "\n\n")


def run_here(
    size: Optional[int],
    seed: int,
    time_limit: float,
    quiet: bool,
    same_source: Optional[SameSourceTally] = None,
    root: Optional[str] = None,
) -> List[UnitResult]:
    results: List[UnitResult] = []
    started = time.perf_counter()
    last_report = 0.0
    for path, qualname, code in iter_sample(size, seed=seed, root=root):
        results += check_units(path, [(qualname, code)], time_limit=time_limit)
        if same_source is not None:
            same_source.check(path, qualname, code)
        now = time.perf_counter()
        if not quiet and now - last_report > 2.0:
            last_report = now
            identical = sum(result.outcome == "identical" for result in results)
            sys.stderr.write(
                "\r%d functions, %d identical, %.0fs  %s"
                % (len(results), identical, now - started, path[:40].ljust(40))
            )
            sys.stderr.flush()
    if not quiet:
        sys.stderr.write(
            "\r%d functions in %.0fs%s\n" % (len(results), time.perf_counter() - started, " " * 50)
        )
    return results


def _label() -> str:
    return "%d.%d" % sys.version_info[:2]


def _as_json(results: List[UnitResult], show: int) -> Dict[str, Any]:
    summary = summarize(results)
    return {
        "label": _label(),
        "total": summary.total,
        "counts": summary.counts,
        "failures": top_failures(results, show),
    }


def run_elsewhere(python: str, arguments: List[str]) -> Optional[Dict[str, Any]]:
    command = [python, os.path.abspath(__file__), "--json"] + arguments
    sys.stderr.write("$ %s\n" % " ".join(command))
    completed = subprocess.run(command, stdout=subprocess.PIPE, text=True)
    if completed.returncode != 0:
        sys.stderr.write("%s failed with status %d\n" % (python, completed.returncode))
        return None
    return json.loads(completed.stdout.strip().splitlines()[-1])


def _failures_path(path: str, python: str, several: bool) -> str:
    """Where the run under *python* writes its failures: *path*, or with *several* interpreters
    *path* with the interpreter's version before its extension (``out.jsonl`` -> ``out.3.12.jsonl``)."""
    path = os.path.abspath(path)
    if not several:
        return path
    version = subprocess.run(
        [python, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
        stdout=subprocess.PIPE,
        text=True,
        check=True,
    ).stdout.strip()
    stem, extension = os.path.splitext(path)
    return "%s.%s%s" % (stem, version, extension)


def write_failures(path: str, results: List[UnitResult]) -> None:
    """One JSON object per function that did not round-trip: file, qualname, outcome, reason."""
    with open(path, "w") as stream:
        for result in results:
            if result.outcome != "identical":
                record = dict(result._asdict(), reason=failure_reason(result))
                stream.write(json.dumps(record) + "\n")


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    size = parser.add_mutually_exclusive_group()
    size.add_argument(
        "--sample", type=int, default=3000, metavar="N", help="fixed sample of N functions (3000)"
    )
    size.add_argument("--all", action="store_true", help="every function of the standard library")
    parser.add_argument("--seed", type=int, default=0, help="seed of the fixed sample (0)")
    parser.add_argument("--time-limit", type=float, default=10.0, help="seconds per function (10)")
    parser.add_argument("--show", type=int, default=15, help="failure reasons to list (15)")
    parser.add_argument(
        "--python", action="append", default=[], help="run under this interpreter (repeatable)"
    )
    parser.add_argument(
        "--failures",
        metavar="FILE",
        help="write each function that is not identical, one JSON per line (with several --python, "
        "one file each: FILE's name with the interpreter's version added, e.g. out.3.12.jsonl)",
    )
    parser.add_argument(
        "--same-source",
        action="store_true",
        help="also compare each function's printed source with its original (this interpreter only)",
    )
    parser.add_argument(
        "--source-diffs", metavar="FILE", help="with --same-source: write the differing functions' diffs"
    )
    parser.add_argument(
        "--root", metavar="DIR", help="sample the .py files under DIR, not the standard library's"
    )
    parser.add_argument("--json", action="store_true", help=argparse.SUPPRESS)
    options = parser.parse_args(argv)
    if options.root is not None:
        if not os.path.isdir(options.root):
            parser.error("--root: not a directory: %s" % options.root)
        options.root = os.path.abspath(options.root)
    sample_size = None if options.all else options.sample

    rows: List[Tuple[str, Summary, List[Any]]] = []
    if options.python and (options.same_source or options.source_diffs):
        parser.error("--same-source and --source-diffs run under this interpreter only: leave out --python")
    if options.python:
        forwarded = [
            "--seed",
            str(options.seed),
            "--time-limit",
            str(options.time_limit),
            "--show",
            str(options.show),
        ]
        forwarded += ["--all"] if options.all else ["--sample", str(options.sample)]
        forwarded += ["--root", options.root] if options.root else []
        for python in options.python:
            extra: List[str] = []
            if options.failures:
                extra = ["--failures", _failures_path(options.failures, python, len(options.python) > 1)]
            data = run_elsewhere(python, forwarded + extra)
            if data is not None:
                counts = {outcome: data["counts"].get(outcome, 0) for outcome in OUTCOMES}
                rows.append((data["label"], Summary(data["total"], counts), data["failures"]))
    else:
        tally = SameSourceTally(options.root) if options.same_source else None
        results = run_here(sample_size, options.seed, options.time_limit, False, tally, options.root)
        if tally is not None:
            print(tally.summary())
            if options.source_diffs:
                tally.write(options.source_diffs)
        if options.failures:
            write_failures(options.failures, results)
        if options.json:
            print(json.dumps(_as_json(results, options.show)))
            return 0
        rows.append((_label(), summarize(results), top_failures(results, options.show)))

    print(format_table([(label, summary) for label, summary, _ in rows]))
    for label, _, failures in rows:
        print("\ntop failure reasons, Python %s:" % label)
        for count, reason, example in failures:
            print("%6d  %s\n        e.g. %s" % (count, reason, example))
    return 0


if __name__ == "__main__":
    sys.exit(main())
