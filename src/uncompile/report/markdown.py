"""Render a dump's index (the data of ``index.json``) as ``index.md``."""

from __future__ import annotations

from typing import Any, Dict, List

from .wording import location, other_outcome, sources_summary


def _link(name: Any) -> str:
    return "[%s](%s)" % (name, name) if name else "-"


def _at(event: Dict[str, Any]) -> str:
    return " (at %s)" % location(event) if event.get("user_file") else ""


def _entry_lines(entry: Dict[str, Any]) -> List[str]:
    lines = [
        "- cache entry %d of `%s` (compile id %s): %s, source %s%s"
        % (
            entry["index"],
            entry["code_name"],
            entry["compile_id"],
            _link(entry["transformed_file"]),
            entry["decompile_status"],
            " (%s)" % entry["decompile_error"] if entry.get("decompile_error") else "",
        ),
        "  - guards: %d checked, %d not checkable (function `%s`)"
        % (entry["guards_checked"], entry["guards_unchecked"], entry["guard_function"]),
    ]
    if entry.get("decompile_difference"):
        lines.append("  - not verified: %s" % entry["decompile_difference"])
    if entry.get("compile_time_s") is not None:
        lines.append("  - compile time: %.3f s" % entry["compile_time_s"])
    if entry.get("cache"):
        lines.append("  - compile caches: %s" % ", ".join(entry["cache"]))
    for graph in entry["graphs"]:
        if graph["file"]:
            lines.append(
                "  - %s: %s%s"
                % (graph["stage"], _link(graph["file"]), " - " + graph["note"] if graph["note"] else "")
            )
        else:
            lines.append("  - %s: not written - %s" % (graph["stage"], graph["note"]))
    for note in entry.get("notes", []):
        lines.append("  - note: %s" % note)
    if entry.get("compiled_before_dump"):
        lines.append("  - compiled before prepare_debug was entered (from the cache entry only)")
    return lines


def _function_lines(function: Dict[str, Any]) -> List[str]:
    lines = [
        "## `%s` (%s:%d)" % (function["qualname"], function["filename"], function["firstlineno"]),
        "",
        "Dispatch view: %s" % _link(function["full_code_file"]),
        "",
    ]
    for entry in function["entries"]:
        lines.extend(_entry_lines(entry))
    if function["graph_breaks"]:
        lines += ["", "### Graph breaks", ""]
        for event in function["graph_breaks"]:
            where = location(event)
            lines.append("- %s (compile id %s, in `%s`):" % (where, event["compile_id"], event["code_name"]))
            lines.extend("      " + line for line in event["reason"].splitlines())
    if function["recompiles"]:
        lines += ["", "### Recompilations", ""]
        for event in function["recompiles"]:
            lines.append(
                "- compile id %s of `%s`: %s%s"
                % (event["compile_id"], event["code_name"], event["reason"], _at(event))
            )
    return lines + [""]


def _summary_lines(index: Dict[str, Any]) -> List[str]:
    """A table of the compiled functions: cache entries, graph breaks, recompilations, sources."""
    if not index["functions"]:
        return []
    lines = [
        "| function | cache entries | graph breaks | recompilations | sources |",
        "|---|---|---|---|---|",
    ]
    for function in index["functions"]:
        lines.append(
            "| `%s` | %d | %d | %d | %s |"
            % (
                function["qualname"],
                len(function["entries"]),
                len(function["graph_breaks"]),
                len(function["recompiles"]),
                sources_summary(function),
            )
        )
    others = len(index["other_compiles"])
    if others:
        lines += [
            "",
            "%d other compilation%s left no cache entry (listed at the end)." % (others, "s" * (others != 1)),
        ]
    return lines + [""]


def render(index: Dict[str, Any]) -> str:
    """The ``index.md`` text for *index* (the dict form of :class:`uncompile.dynamo.model.DumpIndex`)."""
    lines = [
        "# torch.compile dump",
        "",
        "uncompile %s, torch %s, Python %s, pid %s%s."
        % (
            index["uncompile_version"],
            index["torch_version"],
            index["python_version"],
            index["pid"],
            ", rank %s" % index["rank"] if index["rank"] is not None else "",
        ),
        "%d .py files written, %d compile." % (index["py_files"], index["py_files_compiling"]),
        "",
    ]
    lines.extend(_summary_lines(index))
    for function in index["functions"]:
        lines.extend(_function_lines(function))
    if index["other_compiles"]:
        lines += ["## Other compilations (no cache entry)", ""]
        for other in index["other_compiles"]:
            lines.append(
                "- compile id %s of `%s`: %s"
                % (other["compile_id"], other.get("code_name") or "-", other_outcome(other))
            )
            lines.extend("  - %s" % _link(name) for name in other["files"])
            if other.get("note"):
                lines.append("  - %s" % other["note"])
        lines.append("")
    for title, key in (("Failures", "failures"), ("Warnings", "warnings"), ("Notes", "notes")):
        if index[key]:
            lines += ["## %s" % title, ""] + ["- %s" % item for item in index[key]] + [""]
    return "\n".join(lines)
