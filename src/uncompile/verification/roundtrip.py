"""The round-trip harness: decompile, recompile and compare every code object of a file.

Each unit (a function, lambda, comprehension, class body or module code object, found
recursively in a file compiled from source) is checked with
:func:`uncompile.verification.verify_code` under a time limit, and gets one outcome:

* ``crash``: any exception other than a ``DecompileError``/``RecompileError``, or the time
  limit ran out;
* ``decompile-error``: a clean ``DecompileError``;
* ``uncompilable``: the source did not compile back;
* ``different``: it compiled, but the bytecode differs (the detail starts with ``names lost:``
  when the recompiled code no longer uses some name the original does: code left out, the
  worst kind of difference, rather than code laid out another way);
* ``identical``: it compiled to identical bytecode.

``compiles`` counts ``different`` and ``identical``.
"""

from __future__ import annotations

import collections
import re
import signal
import threading
import time
from types import CodeType
from typing import Callable, Dict, Iterator, List, NamedTuple, Optional, Sequence, Tuple

from . import Verification, verify_code
from .compare import child_path, lost_names, nested_code

OUTCOMES = ("crash", "decompile-error", "uncompilable", "different", "identical")
#: Scopes the compiler creates for annotations and type parameters; they are checked
#: as part of the definition they belong to, not on their own.
_SYNTHETIC_PREFIXES = ("<generic parameters of", "<type_params", "__annotate__", "<annotate")


class UnitTimeout(BaseException):
    """Raised inside a unit that ran past its time limit (a BaseException so nothing swallows it)."""


class UnitResult(NamedTuple):
    """The outcome for one code object."""

    file: str
    qualname: str
    kind: str
    outcome: str
    detail: str
    seconds: float


def iter_units(
    module: CodeType, include_module: bool = True, qualname: Optional[str] = None
) -> Iterator[Tuple[str, CodeType]]:
    """(qualified name, code) for *module* and every code object nested in it, depth first.

    *module* may be any code object; give its *qualname* when it is not a module (nested
    names are built on it; on 3.11+ they come from ``co_qualname`` anyway). The root is
    included unless *include_module* is false.
    """
    root = qualname if qualname is not None else "<module>"
    if include_module:
        yield root, module

    def walk(path: str, code: CodeType) -> Iterator[Tuple[str, CodeType]]:
        for child in nested_code(code):
            child_name = getattr(child, "co_qualname", None) or child_path(path, code, child)
            if not child.co_name.startswith(_SYNTHETIC_PREFIXES):
                yield child_name, child
            yield from walk(child_name, child)

    yield from walk(root, module)


def _kind(code: CodeType) -> str:
    from .recompile import code_kind

    return code_kind(code)


def _alarm_available() -> bool:
    return hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()


def _on_alarm(signum: int, frame: object) -> None:
    raise UnitTimeout()


def check_unit(
    code: CodeType,
    qualname: str,
    *,
    time_limit: float = 10.0,
    decompile: Optional[Callable[[CodeType], str]] = None,
) -> Tuple[str, str, Optional[Verification]]:
    """Verify one code object under *time_limit* seconds: (outcome, detail, verification)."""
    use_alarm = time_limit > 0 and _alarm_available()
    previous = None
    if use_alarm:
        previous = signal.signal(signal.SIGALRM, _on_alarm)
        signal.setitimer(signal.ITIMER_REAL, time_limit)
    try:
        verification = verify_code(code, qualname=qualname, decompile=decompile)
    except UnitTimeout:
        return "crash", "timeout after %gs" % time_limit, None
    except Exception as error:  # noqa: BLE001 - anything escaping verify_code is a crash
        return "crash", "%s: %s" % (type(error).__name__, error), None
    finally:
        if use_alarm:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)
    outcome = verification.outcome
    if outcome == "identical":
        detail = ""
    elif verification.difference is not None:
        detail = str(verification.difference)
        recompiled = verification.recompiled
        lost = lost_names(code, recompiled) if recompiled is not None else []
        if lost:
            detail = "names lost: %s; %s" % (", ".join(lost[:5]), detail)
    else:
        detail = verification.error or ""
    return outcome, detail, verification


def check_units(
    file: str,
    units: Sequence[Tuple[str, CodeType]],
    *,
    time_limit: float = 10.0,
    decompile: Optional[Callable[[CodeType], str]] = None,
) -> List[UnitResult]:
    """Check each (qualname, code) unit of *file*."""
    results = []
    for qualname, code in units:
        started = time.perf_counter()
        outcome, detail, _ = check_unit(code, qualname, time_limit=time_limit, decompile=decompile)
        results.append(
            UnitResult(file, qualname, _kind(code), outcome, detail, time.perf_counter() - started)
        )
    return results


def compile_file(path: str) -> CodeType:
    """Compile the Python source file at *path* (reading it as the interpreter would)."""
    import tokenize

    with tokenize.open(path) as handle:
        text = handle.read()
    return compile(text, path, "exec", dont_inherit=True)


def check_file(
    path: str, *, time_limit: float = 10.0, decompile: Optional[Callable[[CodeType], str]] = None
) -> List[UnitResult]:
    """Check every code object of the Python file at *path*, the module code included."""
    return check_units(path, list(iter_units(compile_file(path))), time_limit=time_limit, decompile=decompile)


class Summary(NamedTuple):
    """Counts per outcome over a set of results."""

    total: int
    counts: Dict[str, int]

    def percent(self, outcome: str) -> float:
        return 100.0 * self.counts.get(outcome, 0) / self.total if self.total else 0.0

    @property
    def compiles_percent(self) -> float:
        return self.percent("different") + self.percent("identical")


def summarize(results: Sequence[UnitResult]) -> Summary:
    """Count the outcomes of *results*."""
    counts = collections.Counter(result.outcome for result in results)
    return Summary(len(results), {outcome: counts.get(outcome, 0) for outcome in OUTCOMES})


def format_table(rows: Sequence[Tuple[str, Summary]]) -> str:
    """A text table: one row per (label, summary)."""
    header = "%-10s %9s %8s %8s %10s %10s" % (
        "python",
        "functions",
        "crash",
        "decomp",
        "compiles",
        "identical",
    )
    lines = [header, "-" * len(header)]
    for label, summary in rows:
        lines.append(
            "%-10s %9d %7.1f%% %7.1f%% %9.1f%% %9.1f%%"
            % (
                label,
                summary.total,
                summary.percent("crash"),
                summary.percent("decompile-error"),
                summary.compiles_percent,
                summary.percent("identical"),
            )
        )
    return "\n".join(lines)


_NUMBERS = re.compile(r"\b\d+\b")
_QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"")


def _difference_reason(detail: str) -> str:
    """``path instruction N (offset M): expected X arg, got Y arg`` -> what kind of difference."""
    if detail.startswith("names lost:"):
        return "names lost (code left out)"
    match = re.search(r": expected (.*), got (.*)$", detail)
    if match is None:
        return detail[:120]
    expected, got = match.groups()
    expected_name = "end of code" if expected == "end of code" else expected.split(" ")[0]
    got_name = "end of code" if got == "end of code" else got.split(" ")[0]
    if got.startswith("under "):
        return "exception handler around %s" % expected_name
    if expected_name != got_name:
        return "expected %s, got %s" % (expected_name, got_name)
    if "->" in expected:
        return "jump target of %s" % expected_name
    return "argument of %s" % expected_name


def failure_reason(result: UnitResult) -> str:
    """A short, instance-independent reason for a failed result, for grouping."""
    detail = result.detail
    if result.outcome == "different":
        return "different: " + _difference_reason(detail)
    detail = detail.split(" (")[0] if result.outcome == "crash" else detail
    detail = re.sub(r"\bin [\w.<>]+", "in F", detail)
    detail = _QUOTED.sub("'…'", _NUMBERS.sub("N", detail))
    return "%s: %s" % (result.outcome, detail[:120])


def top_failures(results: Sequence[UnitResult], limit: int = 10) -> List[Tuple[int, str, str]]:
    """The most common failure reasons: (count, reason, one example 'file:qualname')."""
    counter: "collections.Counter[str]" = collections.Counter()
    examples: Dict[str, str] = {}
    for result in results:
        if result.outcome == "identical":
            continue
        reason = failure_reason(result)
        counter[reason] += 1
        examples.setdefault(reason, "%s:%s" % (result.file, result.qualname))
    return [(count, reason, examples[reason]) for reason, count in counter.most_common(limit)]
