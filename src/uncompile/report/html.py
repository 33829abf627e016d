"""Render a dump's index as a small static ``index.html`` (no scripts, no external files)."""

from __future__ import annotations

from html import escape
from typing import Any, Dict, List


def _link(name: Any) -> str:
    return '<a href="%s">%s</a>' % (escape(str(name)), escape(str(name))) if name else "-"


def _entry(entry: Dict[str, Any]) -> str:
    items: List[str] = [
        "transformed code: %s (source %s)"
        % (_link(entry["transformed_file"]), escape(entry["decompile_status"])),
        "guards: %d checked, %d not checkable" % (entry["guards_checked"], entry["guards_unchecked"]),
    ]
    if entry.get("decompile_error"):
        items.append("decompilation failed: %s" % escape(entry["decompile_error"]))
    if entry.get("compile_time_s") is not None:
        items.append("compile time: %.3f s" % entry["compile_time_s"])
    for graph in entry["graphs"]:
        note = " (%s)" % escape(graph["note"]) if graph["note"] else ""
        items.append(
            "%s: %s%s"
            % (escape(graph["stage"]), _link(graph["file"]) if graph["file"] else "not written", note)
        )
    body = "".join("<li>%s</li>" % item for item in items)
    return "<li>cache entry %d of <code>%s</code>, compile id %s<ul>%s</ul></li>" % (
        entry["index"],
        escape(entry["code_name"]),
        escape(entry["compile_id"]),
        body,
    )


def _function(number: int, function: Dict[str, Any]) -> str:
    parts = [
        '<section id="f%d"><h2><code>%s</code> <small>%s:%d</small></h2>'
        % (number, escape(function["qualname"]), escape(function["filename"]), function["firstlineno"]),
        "<p>dispatch view: %s</p>" % _link(function["full_code_file"]),
        "<ul>%s</ul>" % "".join(_entry(entry) for entry in function["entries"]),
    ]
    if function["graph_breaks"]:
        parts.append("<h3>Graph breaks</h3><ul>")
        for event in function["graph_breaks"]:
            parts.append(
                "<li>%s:%s (compile id %s)<pre>%s</pre></li>"
                % (
                    escape(str(event["user_file"])),
                    event["user_line"],
                    escape(event["compile_id"]),
                    escape(event["reason"]),
                )
            )
        parts.append("</ul>")
    if function["recompiles"]:
        parts.append("<h3>Recompilations</h3><ul>")
        parts.extend(
            "<li>compile id %s: %s</li>" % (escape(event["compile_id"]), escape(event["reason"]))
            for event in function["recompiles"]
        )
        parts.append("</ul>")
    return "".join(parts) + "</section>"


def render(index: Dict[str, Any]) -> str:
    """The ``index.html`` text for *index* (the dict form of the dump's index)."""
    toc = "".join(
        '<li><a href="#f%d">%s</a></li>' % (number, escape(function["qualname"]))
        for number, function in enumerate(index["functions"])
    )
    sections = "".join(_function(number, function) for number, function in enumerate(index["functions"]))
    files = "".join("<li>%s</li>" % _link(name) for name in index["files"])
    extra = ""
    for title, key in (("Failures", "failures"), ("Warnings", "warnings"), ("Notes", "notes")):
        if index[key]:
            extra += "<h2>%s</h2><ul>%s</ul>" % (
                title,
                "".join("<li>%s</li>" % escape(str(i)) for i in index[key]),
            )
    return (
        '<!DOCTYPE html><html><head><meta charset="utf-8"><title>torch.compile dump</title></head><body>'
        "<h1>torch.compile dump</h1>"
        "<p>uncompile %s, torch %s, Python %s, pid %s. %d .py files, %d compile.</p>"
        "<h2>Functions</h2><ul>%s</ul>%s%s<h2>All files</h2><ul>%s</ul></body></html>\n"
        % (
            escape(index["uncompile_version"]),
            escape(index["torch_version"]),
            escape(index["python_version"]),
            index["pid"],
            index["py_files"],
            index["py_files_compiling"],
            toc,
            sections,
            extra,
            files,
        )
    )
