"""Wording both renderers use for the records of ``index.json``."""

from __future__ import annotations

from typing import Any, Dict


def location(event: Dict[str, Any]) -> str:
    """``file:line`` of a graph break or a recompilation, or ``unknown location``."""
    if not event.get("user_file"):
        return "unknown location"
    if event.get("user_line") is None:
        return str(event["user_file"])
    return "%s:%s" % (event["user_file"], event["user_line"])


def other_outcome(other: Dict[str, Any]) -> str:
    """What became of a compilation that left no cache entry: its failure, or that none was recorded."""
    failure = " ".join(str(part) for part in (other.get("fail_type"), other.get("fail_reason")) if part)
    if failure:
        return failure
    if str(other["compile_id"]).startswith("export_"):
        return "program exported with torch.export"
    return "no failure recorded (Dynamo produced no cache entry for this frame)"


def sources_summary(function: Dict[str, Any]) -> str:
    """How the sources of a function's cache entries came out, e.g. ``2 verified, 1 unverified``."""
    statuses = [entry["decompile_status"] for entry in function["entries"]]
    return ", ".join(
        "%d %s" % (statuses.count(status), status)
        for status in ("verified", "unverified", "failed")
        if status in statuses
    )
