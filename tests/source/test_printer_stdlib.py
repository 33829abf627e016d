"""Round trip of the running interpreter's own standard library through the printer.

For a deterministic sample of the stdlib's ``.py`` files: parse, print, parse again, and
compare ``ast.dump`` of both trees. Docstrings are compared after ``inspect.cleandoc``
on Python 3.13+, where the printer may re-indent them (the compiler strips indentation
there, so the compiled docstring is the same).

Runs under pytest, or as a script (``python test_printer_stdlib.py [STEP]``) on
interpreters without pytest; the script prints the pass count.
"""

from __future__ import annotations

import ast
import inspect
import os
import sys
import sysconfig
import time
import warnings
from typing import List, Optional, Tuple

SRC = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "src")
if SRC not in sys.path:
    sys.path.insert(0, SRC)

from uncompile.source.printer import to_source  # noqa: E402

SAMPLE_STEP = 10


def stdlib_files(step: int = SAMPLE_STEP) -> List[str]:
    """Every *step*-th ``.py`` file of the standard library, sorted by relative path."""
    root = sysconfig.get_paths()["stdlib"]
    found = []
    for directory, subdirectories, files in os.walk(root):
        subdirectories[:] = sorted(d for d in subdirectories if d not in ("site-packages", "dist-packages"))
        found.extend(
            os.path.relpath(os.path.join(directory, name), root)
            for name in files
            if name.endswith(".py") and os.path.isfile(os.path.join(directory, name))
        )
    return [os.path.join(root, path) for path in sorted(found)[::step]]


def _parse(source: str) -> Optional[ast.Module]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return ast.parse(source)
        except (SyntaxError, ValueError):
            return None


def _normalized_dump(tree: ast.Module) -> str:
    if sys.version_info >= (3, 13):
        for node in ast.walk(tree):
            body = getattr(node, "body", None)
            if (
                isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
                and body
                and isinstance(body[0], ast.Expr)
                and isinstance(body[0].value, ast.Constant)
                and isinstance(body[0].value.value, str)
            ):
                body[0].value.value = inspect.cleandoc(body[0].value.value)
    return ast.dump(tree)


def check_file(path: str) -> Tuple[str, str]:
    """('pass' | 'skip' | 'fail', detail) for one file."""
    with open(path, "rb") as handle:
        raw = handle.read()
    try:
        source = raw.decode("utf-8")
    except UnicodeDecodeError:
        return "skip", "not UTF-8"
    original = _parse(source)
    if original is None:
        return "skip", "does not parse on this version"
    try:
        printed = to_source(original)
    except Exception as error:  # noqa: BLE001 - reported as a failure with its message
        return "fail", "printer raised %r" % error
    reparsed = _parse(printed)
    if reparsed is None:
        return "fail", "printed source does not parse"
    if _normalized_dump(reparsed) != _normalized_dump(_parse(source)):  # type: ignore[arg-type]
        return "fail", "AST differs"
    return "pass", ""


def run(step: int = SAMPLE_STEP) -> Tuple[int, int, List[Tuple[str, str]]]:
    passed = skipped = 0
    failures = []
    for path in stdlib_files(step):
        verdict, detail = check_file(path)
        if verdict == "pass":
            passed += 1
        elif verdict == "skip":
            skipped += 1
        else:
            failures.append((path, detail))
    return passed, skipped, failures


def test_stdlib_sample_round_trips() -> None:
    passed, skipped, failures = run()
    assert passed > 50
    assert not failures, failures[:10]


if __name__ == "__main__":
    started = time.perf_counter()
    passed, skipped, failures = run(int(sys.argv[1]) if len(sys.argv) > 1 else SAMPLE_STEP)
    for path, detail in failures:
        print("FAIL", path, detail)
    print(
        "%s: %d passed, %d failed, %d skipped in %.1fs"
        % (sys.version.split()[0], passed, len(failures), skipped, time.perf_counter() - started)
    )
    sys.exit(1 if failures else 0)
