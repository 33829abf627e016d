"""The test matrix: lint, then the test suite under every CPython 3.8 … 3.15 found.

``python tools/matrix.py test`` (what ``make test`` runs) and ``python tools/matrix.py lint``.
Standard library only, runs on Python 3.8+.

* Lint: ruff's checks and its formatter (``--check``) over the tree and mypy over ``src/``, in
  the torch environment.
* Tests: the decompiler tests (``tests/`` without ``tests/dynamo`` and ``tests/report``) under
  every interpreter; on 3.11 the whole suite runs once in the torch environment, torch
  tests included.
* A missing interpreter is reported in a banner and skipped, except under CI (``CI=true``),
  where every version is required. ``UNCOMPILE_PYTHONS="3.8 3.12"`` limits the versions.
* ``UNCOMPILE_JOBS=N`` tests N interpreters at a time (default 1, under CI 2: one per core
  of the CI machine); with more than one, each run's output goes to ``out/test-results/X.Y.log``.
* A test running past ``UNCOMPILE_TEST_TIMEOUT`` seconds (300) fails with its stack (pytest-timeout,
  SIGALRM) and the run goes on; a run past ``UNCOMPILE_RUN_TIMEOUT`` seconds (1800) is killed.
* pytest's exit status 5 (no tests collected) counts as "no tests", not as a failure.
* At the end: one row per interpreter and ``N passed, N failed`` over all of them; the exit
  status is 0 only if lint passed and nothing failed.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
import xml.etree.ElementTree as ElementTree
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Dict, List, NamedTuple, Optional

from envs import (
    ALL_VERSIONS,
    ROOT,
    TORCH_VERSION,
    SetupError,
    banner,
    ensure_test_env,
    ensure_torch_env,
    find_interpreters,
    say,
)

TORCH_TEST_DIRS = ["tests/dynamo", "tests/report"]
RESULTS = ROOT / "out" / "test-results"
PYTEST_NO_TESTS = 5
#: seconds one test may run before pytest-timeout fails it
TEST_TIMEOUT = int(os.environ.get("UNCOMPILE_TEST_TIMEOUT") or 300)
#: seconds one interpreter's whole run may take
RUN_TIMEOUT = int(os.environ.get("UNCOMPILE_RUN_TIMEOUT") or 1800)


class Row(NamedTuple):
    """The outcome of one interpreter (or of lint) for the summary table."""

    name: str
    status: str
    passed: int = 0
    failed: int = 0
    skipped: int = 0
    seconds: float = 0.0
    note: str = ""


def in_ci() -> bool:
    """True when running under CI, where every interpreter is required."""
    return os.environ.get("CI", "").lower() in ("1", "true", "yes")


def wanted_versions() -> List[str]:
    chosen = os.environ.get("UNCOMPILE_PYTHONS", "").split()
    unknown = [v for v in chosen if v not in ALL_VERSIONS]
    if unknown:
        raise SystemExit("UNCOMPILE_PYTHONS names unknown versions: %s" % " ".join(unknown))
    return chosen or list(ALL_VERSIONS)


def run_lint(env: Path) -> Row:
    """ruff's checks and formatter over the tree, mypy over src/ (configured in pyproject.toml)."""
    started = time.time()
    say("lint: ruff and mypy")
    failures = []
    for name, command in (
        ("ruff", [str(env / "bin" / "ruff"), "check", "."]),
        (
            "ruff format",
            [
                str(env / "bin" / "ruff"),
                "format",
                "--check",
                "src",
                "tests",
                "benchmarks",
                "tools",
                "examples",
            ],
        ),
        ("mypy", [str(env / "bin" / "mypy")]),
    ):
        say("$ %s %s" % (Path(command[0]).name, " ".join(command[1:])))
        if subprocess.run(command, cwd=str(ROOT)).returncode != 0:
            failures.append(name)
    note = "failed: %s" % " ".join(failures) if failures else ""
    return Row("lint", "FAILED" if failures else "ok", seconds=time.time() - started, note=note)


def junit_counts(path: Path) -> Dict[str, int]:
    """tests/failures/errors/skipped summed over the test suites of a JUnit XML report."""
    counts = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    root = ElementTree.parse(str(path)).getroot()
    suites = [root] if root.tag == "testsuite" else list(root.iter("testsuite"))
    for suite in suites:
        for key in counts:
            counts[key] += int(suite.get(key, "0"))
    return counts


class Job(NamedTuple):
    """One pytest run to do: which interpreter, in which environment, over which tests."""

    label: str
    env: Path
    ignore: List[str]


def run_pytest(job: Job, to_log: bool) -> Row:
    """pytest for *job*; its output goes to the terminal, or with *to_log* to a log file."""
    name = job.label.split()[0]
    report = RESULTS / ("%s.xml" % name)
    log = RESULTS / ("%s.log" % name)
    for stale in (report, log):
        if stale.exists():
            stale.unlink()
    command = [str(job.env / "bin" / "python"), "-m", "pytest", "-q", "-p", "no:cacheprovider"]
    command += ["--timeout=%d" % TEST_TIMEOUT, "--timeout-method=signal", "--junitxml", str(report)]
    command += ["--ignore=%s" % path for path in job.ignore] + ["tests"]
    environment = dict(os.environ, PYTHONPATH=str(ROOT / "src"), PYTHONDONTWRITEBYTECODE="1")
    say("tests on Python %s: %s" % (job.label, " ".join(command[2:])))
    started = time.time()
    output = open(str(log), "w") if to_log else None
    try:
        returncode: Optional[int] = subprocess.run(
            command,
            cwd=str(ROOT),
            env=environment,
            stdin=subprocess.DEVNULL,
            stdout=output,
            stderr=output,
            timeout=RUN_TIMEOUT,
        ).returncode
    except subprocess.TimeoutExpired:
        returncode = None
    finally:
        if output is not None:
            output.close()
    if returncode is None:
        note = "killed after %d s (UNCOMPILE_RUN_TIMEOUT)" % RUN_TIMEOUT
        row = Row(job.label, "TIMEOUT", failed=1, seconds=time.time() - started, note=note)
    else:
        row = pytest_row(job.label, returncode, report, time.time() - started)
    if to_log:
        say("Python %s finished: %s, %d passed, %d failed" % (job.label, row.status, row.passed, row.failed))
        if row.status not in ("ok", "no tests"):
            lines = log.read_text(errors="replace").splitlines()
            print("\n".join(["--- last lines of %s ---" % log.relative_to(ROOT)] + lines[-60:]), flush=True)
    return row


def pytest_row(label: str, returncode: int, report: Path, seconds: float) -> Row:
    """The summary row of a finished pytest run, from its exit status and JUnit report."""
    if returncode == PYTEST_NO_TESTS:
        return Row(label, "no tests", seconds=seconds, note="pytest collected nothing")
    if not report.exists():
        note = "pytest exited %d without a report" % returncode
        return Row(label, "FAILED", failed=1, seconds=seconds, note=note)
    counts = junit_counts(report)
    failed = counts["failures"] + counts["errors"]
    passed = counts["tests"] - failed - counts["skipped"]
    if returncode == 0 and failed == 0:
        return Row(label, "ok", passed, 0, counts["skipped"], seconds)
    note = "" if failed else "pytest exited %d" % returncode
    return Row(label, "FAILED", passed, max(failed, 1), counts["skipped"], seconds, note)


def run_jobs(jobs: List[Job], workers: int) -> Dict[str, Row]:
    """Run the pytest *jobs*, *workers* at a time (output to log files when more than one)."""
    RESULTS.mkdir(parents=True, exist_ok=True)
    if workers <= 1:
        return {job.label: run_pytest(job, to_log=False) for job in jobs}
    say(
        "running %d interpreters at a time; their output goes to %s/*.log"
        % (workers, RESULTS.relative_to(ROOT))
    )
    with ThreadPoolExecutor(max_workers=workers) as pool:
        futures = {job.label: pool.submit(run_pytest, job, True) for job in jobs}
        return {label: future.result() for label, future in futures.items()}


def print_summary(rows: List[Row]) -> None:
    print("\n" + "=" * 78)
    print(
        "%-14s %-10s %7s %7s %8s %8s  %s"
        % ("python", "status", "passed", "failed", "skipped", "seconds", "note")
    )
    print("-" * 78)
    for row in rows:
        print(
            (
                "%-14s %-10s %7d %7d %8d %8.1f  %s"
                % (row.name, row.status, row.passed, row.failed, row.skipped, row.seconds, row.note)
            ).rstrip()
        )
    print("=" * 78)
    tested = [row for row in rows if row.name != "lint"]
    print("%d passed, %d failed" % (sum(r.passed for r in tested), sum(r.failed for r in tested)))


def worker_count() -> int:
    """How many interpreters test at once: $UNCOMPILE_JOBS, else 2 under CI, else 1."""
    value = os.environ.get("UNCOMPILE_JOBS", "")
    if value.isdigit() and int(value) > 0:
        return int(value)
    return 2 if in_ci() else 1


def test_matrix() -> int:
    """Set up what is missing, lint, run the tests everywhere, summarise; the exit status."""
    started = time.time()
    versions = wanted_versions()
    ci = in_ci()
    interpreters = find_interpreters(sorted(set(versions) | {TORCH_VERSION}, key=ALL_VERSIONS.index))
    missing = [v for v in versions if interpreters[v] is None]
    if missing:
        banner(
            ["PYTHON %s NOT FOUND: ITS TESTS ARE SKIPPED" % v for v in missing]
            + ["(looked in $(pyenv root)/versions, on PATH and with ../shared/tools/cpython-debian)"]
            + (["CI=true: every version is required, so this run FAILS"] if ci else [])
        )
    rows: Dict[str, Row] = {}
    torch_python = interpreters[TORCH_VERSION]
    torch_env: Optional[Path] = None
    try:
        torch_env = ensure_torch_env(torch_python) if torch_python else None
    except SetupError as exc:
        rows["lint"] = Row("lint", "FAILED", note=str(exc))
    torch_label = TORCH_VERSION + " +torch"
    jobs: List[Job] = []
    for version in versions:  # set up every environment first, then test
        python = interpreters[version]
        if python is None:
            rows[version] = Row(version, "MISSING", failed=1 if ci else 0, note="interpreter not found")
        elif version == TORCH_VERSION:
            if torch_env is None:
                rows[torch_label] = Row(torch_label, "FAILED", failed=1, note="no torch environment")
            else:  # the whole suite, torch tests included; the longest run, so it starts first
                jobs.insert(0, Job(torch_label, torch_env, []))
        else:
            try:
                helper = str(torch_env / "bin" / "python") if torch_env is not None else torch_python
                jobs.append(Job(version, ensure_test_env(version, python, helper), TORCH_TEST_DIRS))
            except SetupError as exc:
                rows[version] = Row(version, "FAILED", failed=1, note=str(exc))
    if torch_env is not None:
        rows["lint"] = run_lint(torch_env)
    elif "lint" not in rows:
        rows["lint"] = Row("lint", "FAILED", note="needs Python %s" % TORCH_VERSION)
    rows.update(run_jobs(jobs, worker_count()))
    order = ["lint"] + [torch_label if v == TORCH_VERSION and torch_label in rows else v for v in versions]
    print_summary([rows[name] for name in order if name in rows])
    say("results in %s; took %.0f s" % (RESULTS.relative_to(ROOT), time.time() - started))
    if missing and not ci:
        banner(["SKIPPED (not installed): Python %s" % " ".join(missing)])
    bad = [row for row in rows.values() if row.failed or row.status in ("FAILED", "TIMEOUT")]
    return 1 if bad else 0


def lint_only() -> int:
    python = find_interpreters([TORCH_VERSION])[TORCH_VERSION]
    if python is None:
        banner(["Python %s was not found; lint runs in its environment" % TORCH_VERSION])
        return 1
    try:
        row = run_lint(ensure_torch_env(python))
    except SetupError as exc:
        say("error: %s" % exc)
        return 1
    say("lint %s" % row.status)
    return 0 if row.status == "ok" else 1


def main(argv: List[str]) -> int:
    if argv == ["test"]:
        return test_matrix()
    if argv == ["lint"]:
        return lint_only()
    print("usage: python tools/matrix.py test|lint", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
