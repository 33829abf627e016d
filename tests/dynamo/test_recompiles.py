"""Recompiles: transformed code that differs only in Dynamo's per-compile names is decompiled once."""

from __future__ import annotations

from types import CodeType
from typing import Any, List

import pytest

from uncompile.dynamo import recompiles
from uncompile.dynamo.decompiled import decompile_for_dump

# What Dynamo's transformed code does, written as source: call the compiled graph, then
# either return an output or continue in a resume function.
TRANSFORMED = """
def forward(x, flag):
    graph_out_0 = {graph}(x)
    if flag:
        return {resume}(graph_out_0[1], x)
    return graph_out_0[0]
"""


def _transformed(graph: str, resume: str, body: str = TRANSFORMED) -> CodeType:
    module = compile(body.format(graph=graph, resume=resume), "model.py", "exec")
    return next(const for const in module.co_consts if isinstance(const, CodeType))


# Same lengths: the line table of compiled source has columns (Dynamo's has the original's).
FIRST = _transformed("__compiled_fn_11_3ab12de3_b5e6_493c_809d_a189a949d242", "__resume_at_30_12")
SECOND = _transformed("__compiled_fn_13_7373395d_a715_4995_8f6e_440dd6d2fd7f", "__resume_at_30_14")
THIRD = _transformed("__compiled_fn_21_5f8fabeb_3188_4152_b71a_e827aedbd0ee", "__resume_at_30_22")


def test_recompiles_share_a_shape_other_code_does_not() -> None:
    assert recompiles.shape(FIRST) == recompiles.shape(SECOND)
    other = _transformed(FIRST.co_names[0], "__resume_at_30_12", TRANSFORMED.replace("[1]", "[2]"))
    assert recompiles.shape(FIRST) != recompiles.shape(other)
    renamed = _transformed(FIRST.co_names[0], "__resume_at_30_12", TRANSFORMED.replace("x", "y"))
    assert recompiles.shape(FIRST) != recompiles.shape(renamed)


def test_a_recompile_gets_the_source_a_decompile_gives_without_decompiling(monkeypatch: Any) -> None:
    decompiled: List[str] = []

    def counting(code: CodeType, verify: bool = True, checked: bool = True) -> Any:
        decompiled.append(code.co_names[0])
        return decompile_for_dump(code, verify, checked)

    monkeypatch.setattr(recompiles, "decompile_for_dump", counting)
    sources = recompiles.RecompileSources()
    texts = [sources.source(code).text for code in (FIRST, SECOND, THIRD)]
    assert decompiled == [FIRST.co_names[0]]
    assert texts == [decompile_for_dump(code, verify=False).text for code in (FIRST, SECOND, THIRD)]
    assert "__compiled_fn_13_" in texts[1] and "__resume_at_30_14" in texts[1]


@pytest.mark.parametrize("code", [SECOND, THIRD])
def test_a_recompile_is_relabeled_like_a_decompiled_one(code: CodeType) -> None:
    sources = recompiles.RecompileSources()
    sources.source(FIRST)
    if code is THIRD:
        sources.source(SECOND)
    reused = sources.source(code)
    fresh = decompile_for_dump(code, verify=False)
    assert reused.offset_lines == fresh.offset_lines
    relabeled = reused.debuggable.relabeled("dump/file.py", 7)
    assert relabeled.co_linetable == fresh.debuggable.relabeled("dump/file.py", 7).co_linetable
    assert relabeled.co_code == code.co_code and relabeled.co_names == code.co_names


def test_a_reuse_that_fails_leaves_the_tree_with_its_names(monkeypatch: Any) -> None:
    """When printing a recompile from the known tree fails (and decompiling it fails too), the
    tree keeps the names of the code it was printed for: the next recompile still gets its own."""
    sources = recompiles.RecompileSources()
    sources.source(FIRST)
    printed, decompiled = recompiles.decompiled_source, recompiles.decompile_for_dump
    failed = decompile_for_dump(SECOND, verify=False)
    failed.tree = None
    monkeypatch.setattr(recompiles, "decompiled_source", lambda *args, **kwargs: None)
    monkeypatch.setattr(recompiles, "decompile_for_dump", lambda *args, **kwargs: failed)
    assert sources.source(SECOND) is failed
    monkeypatch.setattr(recompiles, "decompiled_source", printed)
    monkeypatch.setattr(recompiles, "decompile_for_dump", decompiled)
    assert sources.source(THIRD).text == decompile_for_dump(THIRD, verify=False).text
