"""index.md and index.html render every function, entry, graph, break and recompile of an index."""

from __future__ import annotations

from typing import Any, Dict

from uncompile.report import html, markdown


def sample_index() -> Dict[str, Any]:
    entry = {
        "index": 0,
        "compile_id": "0/0",
        "code_name": "f",
        "transformed_file": "__transformed_code_0_for_f.py",
        "decompile_status": "verified",
        "decompile_error": None,
        "guard_function": "__guard_0_for_f",
        "guards_checked": 5,
        "guards_unchecked": 1,
        "compile_time_s": 0.25,
        "cache": ["aotautograd_cache_hit"],
        "graphs": [
            {"stage": "captured_graph", "file": "__compiled_fn_1_captured_graph.py", "note": ""},
            {"stage": "pre_grad", "file": None, "note": "pre-grad passes did not run: AOTAutograd cache hit"},
        ],
        "notes": [],
        "compiled_before_dump": False,
    }
    function = {
        "name": "f",
        "qualname": "f",
        "filename": "prog.py",
        "firstlineno": 3,
        "full_code_file": "full_code_for_f_0.py",
        "entries": [entry],
        "graph_breaks": [
            {
                "compile_id": "0/0",
                "code_name": "f",
                "reason": "Graph Break Reason: <print>",
                "user_file": "prog.py",
                "user_line": 5,
            }
        ],
        "recompiles": [
            {
                "compile_id": "0/1",
                "code_name": "f",
                "reason": "guard of entry 0/0 failed: tensor 'x' dtype mismatch",
                "user_file": None,
                "user_line": None,
            },
            {
                "compile_id": "0/2",
                "code_name": "f",
                "reason": "guard of entry 0/1 failed: k == 2",
                "user_file": "prog.py",
                "user_line": 4,
            },
        ],
    }
    unverified = dict(
        entry,
        index=1,
        compile_id="0/1",
        transformed_file="__transformed_code_1_for_f.py",
        decompile_status="unverified",
        decompile_difference="f instruction 0 (offset 2): expected LOAD_GLOBAL g, got LOAD_GLOBAL h",
    )
    function["entries"].append(unverified)
    return {
        "uncompile_version": "0",
        "torch_version": "2.13.0",
        "python_version": "3.11",
        "pid": 1,
        "rank": None,
        "py_files": 3,
        "py_files_compiling": 3,
        "functions": [function],
        "other_compiles": [
            {"compile_id": "1/0", "code_name": "g", "fail_type": None, "fail_reason": None, "files": []},
            {
                "compile_id": "export_0",
                "code_name": None,
                "files": ["__export_0_exported_program.py"],
            },
        ],
        "failures": [],
        "warnings": ["w"],
        "notes": [],
        "files": [
            "full_code_for_f_0.py",
            "__transformed_code_0_for_f.py",
            "__compiled_fn_1_captured_graph.py",
            "__export_0_exported_program.py",
        ],
    }


def test_markdown_lists_everything() -> None:
    text = markdown.render(sample_index())
    for needle in (
        "[full_code_for_f_0.py]",
        "__transformed_code_0_for_f.py",
        "prog.py:5",
        "dtype mismatch",
        "pre-grad passes did not run",
        "aotautograd_cache_hit",
        "## Warnings",
        "not verified: f instruction 0 (offset 2)",
        "compile id 0/2 of `f`: guard of entry 0/1 failed: k == 2 (at prog.py:4)",
        "compile id 1/0 of `g`: no failure recorded",
        "compile id export_0 of `-`: program exported with torch.export",
        "| `f` | 2 | 1 | 2 | 1 verified, 1 unverified |",
        "2 other compilations left no cache entry",
    ):
        assert needle in text, needle


def test_html_links_every_file_and_escapes() -> None:
    text = html.render(sample_index())
    for name in sample_index()["files"]:
        assert 'href="%s"' % name in text
    assert "&lt;print&gt;" in text and "<print>" not in text
    assert text.count("<section") == 1


def test_html_summarizes_and_navigates() -> None:
    text = html.render(sample_index())
    # The summary table links each function's section, which links back to the top.
    assert (
        '<a href="#f0"><code>f</code></a></td><td>2</td><td>1</td><td>2</td><td>1 verified, 1 unverified</td>'
        in text
    )
    assert 'id="f0"' in text and 'href="#top"' in text and 'id="top"' in text
    # Graph-break explanations fold under their first line; recompilations say where.
    assert (
        "<details><summary>prog.py:5 (compile id 0/0, in <code>f</code>): Graph Break Reason: &lt;print&gt;"
        in text
    )
    assert "guard of entry 0/1 failed: k == 2 <small>at prog.py:4</small>" in text
    assert "not verified: f instruction 0 (offset 2)" in text
    # Compilations without a cache entry get their own section.
    assert '<a href="#other">2 other compilations</a>' in text and 'id="other"' in text
    assert "no failure recorded" in text and "program exported with torch.export" in text
