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
        "recompiles": [{"compile_id": "0/1", "code_name": "f", "reason": "0/0: tensor 'x' dtype mismatch"}],
    }
    return {
        "uncompile_version": "0",
        "torch_version": "2.13.0",
        "python_version": "3.11",
        "pid": 1,
        "rank": None,
        "py_files": 3,
        "py_files_compiling": 3,
        "functions": [function],
        "other_compiles": [],
        "failures": [],
        "warnings": ["w"],
        "notes": [],
        "files": [
            "full_code_for_f_0.py",
            "__transformed_code_0_for_f.py",
            "__compiled_fn_1_captured_graph.py",
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
    ):
        assert needle in text, needle


def test_html_links_every_file_and_escapes() -> None:
    text = html.render(sample_index())
    for name in sample_index()["files"]:
        assert 'href="%s"' % name in text
    assert "&lt;print&gt;" in text and "<print>" not in text
    assert text.count("<section") == 1
