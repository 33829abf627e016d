"""Wording shared by index.md and index.html."""

from __future__ import annotations

from uncompile.report.wording import location, other_outcome, sources_summary


def test_location_of_an_event() -> None:
    assert location({"user_file": "prog.py", "user_line": 4}) == "prog.py:4"
    assert location({"user_file": "prog.py", "user_line": None}) == "prog.py"
    assert location({"user_file": None, "user_line": None}) == "unknown location"


def test_outcome_of_a_compilation_without_cache_entry() -> None:
    failed = {"compile_id": "2/0", "fail_type": "Unsupported", "fail_reason": "generator"}
    assert other_outcome(failed) == "Unsupported generator"
    assert other_outcome({"compile_id": "export_1"}) == "program exported with torch.export"
    assert other_outcome({"compile_id": "3/0", "fail_type": None}).startswith("no failure recorded")


def test_sources_of_a_function() -> None:
    entries = [{"decompile_status": status} for status in ("unverified", "verified", "unverified")]
    assert sources_summary({"entries": entries}) == "1 verified, 2 unverified"
    assert sources_summary({"entries": []}) == ""
