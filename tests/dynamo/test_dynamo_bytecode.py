"""The decompiler on real Dynamo bytecode: every transformed code object of real ``torch.compile`` runs.

A module-scoped fixture runs each workload of :mod:`dynamo_workloads` three ways, each
after ``torch._dynamo.reset()``:

1. with a bytecode hook that records every (original, transformed) pair and returns None,
   so Dynamo runs its own code: the reference outputs;
2. with a hook that decompiles Dynamo's code, recompiles the source
   (``uncompile.recompile``) and returns that code object, so Dynamo caches and runs ours;
3. like 1 once more, to show the workload itself is deterministic.

The tests check that every captured code object decompiles, that run 2 really ran our code
(the cache entries of every compiled frame hold the recompiled code objects), and that its
outputs are bit-identical to run 1's. Whether the recompiled bytecode is identical too is
measured and reported (``-s`` prints the table), not asserted per code object.
"""

from __future__ import annotations

import ast
import functools
import os
import re
import sys
from dataclasses import dataclass, field
from types import CodeType
from typing import Any, Dict, List, Optional, Tuple

import pytest

torch = pytest.importorskip("torch")

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import dynamo_workloads  # noqa: E402
from dump_helpers import assert_bit_identical  # noqa: E402

import uncompile  # noqa: E402
from uncompile.decompiler import decompile_code  # noqa: E402


@dataclass
class Capture:
    """One workload's runs."""

    pairs: List[Tuple[CodeType, CodeType]] = field(default_factory=list)
    reference: Any = None
    replaced_outputs: Any = None
    repeat: Any = None
    replacements: List[Tuple[CodeType, CodeType, CodeType]] = field(default_factory=list)
    failures: List[str] = field(default_factory=list)
    replaced_error: Optional[str] = None
    #: How many replacements Dynamo holds in its cache right after run 2.
    cached: int = 0
    #: How many cache entries hold Dynamo's own code right after run 2 (should be none).
    dynamo_cached: int = 0


def _run(workload: Any, hook: Any) -> Any:
    from torch._dynamo.convert_frame import register_bytecode_hook

    torch._dynamo.reset()
    handle = register_bytecode_hook(hook)
    try:
        return workload(functools.partial(torch.compile, backend="eager"))
    finally:
        handle.remove()


def _cached_replacements(replacements: List[Tuple[CodeType, CodeType, CodeType]]) -> Tuple[int, int]:
    """(replacements Dynamo holds in its cache entries, entries that hold Dynamo's own code)."""
    from torch._dynamo.eval_frame import _debug_get_cache_entry_list

    ours = theirs = 0
    for original, transformed, recompiled in replacements:
        codes = [entry.code for entry in _debug_get_cache_entry_list(original)]
        ours += any(code is recompiled for code in codes)
        theirs += any(code is transformed for code in codes)
    return ours, theirs


def _capture(workload: Any) -> Capture:
    result = Capture()

    def record(original: CodeType, transformed: CodeType) -> None:
        result.pairs.append((original, transformed))

    def replace(original: CodeType, transformed: CodeType) -> Optional[CodeType]:
        try:
            recompiled = uncompile.recompile(transformed)
        except Exception as error:  # noqa: BLE001 - recorded; the test reports it
            result.failures.append("%s: %s: %s" % (transformed.co_name, type(error).__name__, error))
            return None
        result.replacements.append((original, transformed, recompiled))
        return recompiled

    result.reference = _run(workload, record)
    try:
        result.replaced_outputs = _run(workload, replace)
    except Exception as error:  # noqa: BLE001 - our code broke the workload; the test reports it
        result.replaced_error = "%s: %s" % (type(error).__name__, error)
    result.cached, result.dynamo_cached = _cached_replacements(result.replacements)
    result.repeat = _run(workload, lambda original, transformed: None)
    torch._dynamo.reset()
    return result


@pytest.fixture(scope="module")
def captures() -> Dict[str, Capture]:
    torch.manual_seed(0)
    return {name: _capture(workload) for name, workload in dynamo_workloads.WORKLOADS.items()}


def _all_pairs(captures: Dict[str, Capture]) -> List[Tuple[str, CodeType, CodeType]]:
    return [(name, o, t) for name, capture in captures.items() for o, t in capture.pairs]


def test_workloads_compile_something(captures: Dict[str, Capture]) -> None:
    for name, capture in captures.items():
        assert capture.pairs, "no code captured for %s" % name
    names = {t.co_name for _, _, t in _all_pairs(captures)}
    assert any(n.startswith(("__resume_at", "torch_dynamo_resume_in")) for n in names)


def test_workloads_are_deterministic(captures: Dict[str, Capture]) -> None:
    for capture in captures.values():
        assert_bit_identical(capture.reference, capture.repeat)


def test_every_code_object_decompiles(captures: Dict[str, Capture]) -> None:
    failures = []
    for name, _, transformed in _all_pairs(captures):
        try:
            decompile_code(transformed)
        except Exception as error:  # noqa: BLE001
            failures.append("%s/%s: %s" % (name, transformed.co_name, error))
            continue
        uncompile.recompile(transformed)  # compiles, inside the scaffold of its qualified name
    assert not failures, "\n".join(failures)


def _del_before_assignment(source: str) -> List[str]:
    """Names deleted (``del name``) before any statement of the source binds them."""
    function = ast.parse(source).body[0]
    assert isinstance(function, ast.FunctionDef)
    bound = {arg.arg for arg in ast.walk(function.args) if isinstance(arg, ast.arg)}
    problems = []
    for node in ast.walk(function):  # breadth-first: statements of a body in order
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            bound.add(node.id)
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Del) and node.id not in bound:
            problems.append(node.id)
        if isinstance(node, (ast.Nonlocal, ast.Global)):
            bound.update(node.names)
    return problems


def test_sources_are_readable(captures: Dict[str, Capture]) -> None:
    for name, _, transformed in _all_pairs(captures):
        source = decompile_code(transformed)
        where = "%s/%s:\n%s" % (name, transformed.co_name, source)
        graphs = [n for n in transformed.co_names if n.startswith("__compiled_fn_")]
        for graph in graphs:  # the graph call is a statement of its own, with Dynamo's names
            unpacking = r"\(?(stack_\d+, )*stack_\d+,?\)? = "  # the items of its outputs kept on the stack
            assert re.search(r"^ *(graph_out_\d+ = |%s)?%s\(" % (unpacking, graph), source, re.M), where
        assert not _del_before_assignment(source), where
        if not any(n.startswith("__resume_at_") for n in transformed.co_names):
            # Values kept on the stack only need names around the calls of resume functions,
            # and where the items of a graph's outputs are unpacked onto the stack.
            unpackings = "".join(re.findall(r"^ *\(?stack_[\w, ]*\)? = __compiled_fn_", source, re.M))
            unpacked = set(re.findall(r"\bstack_\d+\b", unpackings))
            assert set(re.findall(r"\bstack_\d+\b", source)) <= unpacked, where


def test_frame_values_are_plain_arguments(captures: Dict[str, Capture]) -> None:
    """The lists of frame values Dynamo builds for a resume function are edited at decompile
    time: the call shows the values as arguments, with no list edits and no ``f(*[...])``;
    Dynamo's ``tmp_<n>`` locals that nothing reads are left out."""
    item_break = []
    for name, _, transformed in _all_pairs(captures):
        source = decompile_code(transformed)
        where = "%s/%s:\n%s" % (name, transformed.co_name, source)
        edits = r"(\bstack_\d+|\])\[[-\d:]*\] = |^ *del (stack_\d+|\[.*\])\[|\bstack_\d+\.extend\(|\(\*\["
        assert not re.search(edits, source, re.M), where
        for temporary in set(re.findall(r"\btmp_\d+\b", source)):
            reads = re.findall(r"(?<!del )\b%s\b(?! = )" % temporary, source)
            assert reads, where
        if transformed.co_name == "item_break":
            item_break.append(source)
    assert item_break
    for source in item_break:
        call = r"^ *return __resume_at_\d+_\d+\(\[\], \[\], graph_out_0\[0\]\.item\(\), x\)$"
        assert re.search(call, source, re.M), source


def test_recompiled_code_replaces_dynamos(captures: Dict[str, Capture]) -> None:
    for name, capture in captures.items():
        assert not capture.failures, capture.failures
        # Run 2 compiled the same frames (resume functions are compiled frames too), and
        # Dynamo cached our code, never its own, for them. (Some entries hold no code at
        # all, with Dynamo's code as with ours: the frame then runs as it is.)
        assert len(capture.replacements) == len(capture.pairs), name
        assert capture.cached >= 1, name
        assert capture.dynamo_cached == 0, name


def test_recompiled_code_gives_bit_identical_results(captures: Dict[str, Capture]) -> None:
    for name, capture in captures.items():
        assert capture.replaced_error is None, "%s: %s" % (name, capture.replaced_error)
        try:
            assert_bit_identical(capture.reference, capture.replaced_outputs)
        except AssertionError as error:
            raise AssertionError("%s: outputs differ with recompiled code: %s" % (name, error)) from None


def test_report_bytecode_identity(captures: Dict[str, Capture]) -> None:
    pairs = _all_pairs(captures)
    identical = 0
    lines = []
    for name, _, transformed in pairs:
        verdict = uncompile.decompile(transformed, verify=True)
        identical += bool(verdict.identical)  # type: ignore[union-attr]
        lines.append("%-18s %-50s %s" % (name, transformed.co_name[:50], verdict))
    print("\n%d code objects, %d bytecode-identical" % (len(pairs), identical))
    print("\n".join(lines))
    assert pairs
