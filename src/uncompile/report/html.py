"""Render a dump's index as a small static ``index.html`` (no scripts, no external files).

The page starts with a summary table (one row per compiled function: cache entries, graph
breaks, recompilations, how many sources were verified) whose names link to the function's
section; each section links back to it. Long graph-break explanations are folded under
their first line (``<details>``), so the page stays scannable.
"""

from __future__ import annotations

from html import escape
from typing import Any, Dict, List

from .wording import location, other_outcome, sources_summary

_STYLE = (
    "body{font-family:sans-serif;max-width:70em;margin:1em auto;padding:0 1em}"
    "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.2em .6em;text-align:left}"
    "pre{background:#f6f6f6;padding:.5em;overflow-x:auto}small,.top{color:#666}"
    ".failed{color:#b00}.unverified{color:#a60}"
)


def _link(name: Any) -> str:
    return '<a href="%s">%s</a>' % (escape(str(name)), escape(str(name))) if name else "-"


def _status(entry: Dict[str, Any]) -> str:
    status = entry["decompile_status"]
    return '<span class="%s">%s</span>' % (escape(status), escape(status))


def _entry(entry: Dict[str, Any]) -> str:
    items: List[str] = [
        "transformed code: %s (source %s)" % (_link(entry["transformed_file"]), _status(entry)),
        "guards: %d checked, %d not checkable (function <code>%s</code>)"
        % (entry["guards_checked"], entry["guards_unchecked"], escape(str(entry.get("guard_function")))),
    ]
    if entry.get("decompile_error"):
        items.append("decompilation failed: %s" % escape(entry["decompile_error"]))
    elif entry.get("decompile_difference"):
        items.append("not verified: %s" % escape(entry["decompile_difference"]))
    if entry.get("compile_time_s") is not None:
        items.append("compile time: %.3f s" % entry["compile_time_s"])
    if entry.get("cache"):
        items.append("compile caches: %s" % escape(", ".join(entry["cache"])))
    for graph in entry["graphs"]:
        note = " - %s" % escape(graph["note"]) if graph["note"] else ""
        items.append(
            "%s: %s%s"
            % (escape(graph["stage"]), _link(graph["file"]) if graph["file"] else "not written", note)
        )
    items.extend("note: %s" % escape(note) for note in entry.get("notes", []))
    body = "".join("<li>%s</li>" % item for item in items)
    return "<li>cache entry %d of <code>%s</code>, compile id %s<ul>%s</ul></li>" % (
        entry["index"],
        escape(entry["code_name"]),
        escape(entry["compile_id"]),
        body,
    )


def _graph_break(event: Dict[str, Any]) -> str:
    lines = event["reason"].strip().splitlines() or ["(no reason recorded)"]
    return (
        "<li><details><summary>%s (compile id %s, in <code>%s</code>): %s</summary>"
        "<pre>%s</pre></details></li>"
        % (
            escape(location(event)),
            escape(event["compile_id"]),
            escape(event["code_name"]),
            escape(lines[0]),
            escape(event["reason"]),
        )
    )


def _recompile(event: Dict[str, Any]) -> str:
    where = " <small>at %s</small>" % escape(location(event)) if event.get("user_file") else ""
    return "<li>compile id %s of <code>%s</code>: %s%s</li>" % (
        escape(event["compile_id"]),
        escape(event["code_name"]),
        escape(event["reason"]),
        where,
    )


def _function(number: int, function: Dict[str, Any]) -> str:
    parts = [
        '<section id="f%d"><h2><code>%s</code> <small>%s:%d</small> <a class="top" href="#top">top</a></h2>'
        % (number, escape(function["qualname"]), escape(function["filename"]), function["firstlineno"]),
        "<p>dispatch view (guards and transformed code of every entry): %s</p>"
        % _link(function["full_code_file"]),
        "<ul>%s</ul>" % "".join(_entry(entry) for entry in function["entries"]),
    ]
    if function["graph_breaks"]:
        parts.append(
            "<h3>Graph breaks</h3><ul>%s</ul>" % "".join(map(_graph_break, function["graph_breaks"]))
        )
    if function["recompiles"]:
        parts.append("<h3>Recompilations</h3><ul>%s</ul>" % "".join(map(_recompile, function["recompiles"])))
    return "".join(parts) + "</section>"


def _summary(functions: List[Dict[str, Any]]) -> str:
    rows = []
    for number, function in enumerate(functions):
        rows.append(
            '<tr><td><a href="#f%d"><code>%s</code></a></td><td>%d</td><td>%d</td><td>%d</td><td>%s</td></tr>'
            % (
                number,
                escape(function["qualname"]),
                len(function["entries"]),
                len(function["graph_breaks"]),
                len(function["recompiles"]),
                escape(sources_summary(function)),
            )
        )
    return (
        "<table><tr><th>function</th><th>cache entries</th><th>graph breaks</th>"
        "<th>recompilations</th><th>sources</th></tr>%s</table>" % "".join(rows)
    )


def _other_link(others: List[Dict[str, Any]]) -> str:
    if not others:
        return ""
    return '<p><a href="#other">%d other compilation%s</a> left no cache entry.</p>' % (
        len(others),
        "s" if len(others) != 1 else "",
    )


def _other_compiles(others: List[Dict[str, Any]]) -> str:
    if not others:
        return ""
    items = []
    for other in others:
        files = "".join("<li>%s</li>" % _link(name) for name in other["files"])
        note = "<li>%s</li>" % escape(other["note"]) if other.get("note") else ""
        items.append(
            "<li>compile id %s of <code>%s</code>: %s<ul>%s%s</ul></li>"
            % (
                escape(str(other["compile_id"])),
                escape(str(other.get("code_name") or "-")),
                escape(other_outcome(other)),
                files,
                note,
            )
        )
    return '<h2 id="other">Other compilations (no cache entry)</h2><ul>%s</ul>' % "".join(items)


def render(index: Dict[str, Any]) -> str:
    """The ``index.html`` text for *index* (the dict form of the dump's index)."""
    functions = index["functions"]
    sections = "".join(_function(number, function) for number, function in enumerate(functions))
    files = "".join("<li>%s</li>" % _link(name) for name in index["files"])
    extra = ""
    for title, key in (("Failures", "failures"), ("Warnings", "warnings"), ("Notes", "notes")):
        if index[key]:
            extra += "<h2>%s</h2><ul>%s</ul>" % (
                title,
                "".join("<li>%s</li>" % escape(str(i)) for i in index[key]),
            )
    rank = ", rank %s" % index["rank"] if index.get("rank") is not None else ""
    return (
        '<!DOCTYPE html><html><head><meta charset="utf-8"><title>torch.compile dump</title>'
        "<style>%s</style></head><body>"
        '<h1 id="top">torch.compile dump</h1>'
        "<p>uncompile %s, torch %s, Python %s, pid %s%s. %d .py files, %d compile.</p>"
        "<h2>Functions</h2>%s%s%s%s<h2>All files</h2><ul>%s</ul></body></html>\n"
        % (
            _STYLE,
            escape(index["uncompile_version"]),
            escape(index["torch_version"]),
            escape(index["python_version"]),
            index["pid"],
            escape(rank),
            index["py_files"],
            index["py_files_compiling"],
            _summary(functions) + _other_link(index["other_compiles"]),
            sections,
            _other_compiles(index["other_compiles"]),
            extra,
            files,
        )
    )
