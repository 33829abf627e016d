"""The behavioural suite's one check: decompile, recompile, swap in with ``__code__``, compare.

Any result other than ``same`` fails the test, with the reason (``different`` -- silently
wrong source, the worst failure --, ``decompile-error``, ``uncompilable`` or ``crash``). A case
that cannot pass yet on some versions says so in its test module::

    EXPECTED_FAILURES = {"case_name": ({(3, 11), (3, 12)}, "why it fails there")}

and is marked there as a strict expected failure: it must fail on exactly those versions (a
case that starts passing fails the suite until its entry is removed).
"""

from __future__ import annotations

import sys
from typing import Any, Callable, List

import pytest

from uncompile.verification.behaviour import BehaviourCheck, Call, check_behaviour, check_module_behaviour


def pytest_collection_modifyitems(items: List[pytest.Item]) -> None:
    """Mark the cases that their module's ``EXPECTED_FAILURES`` names for this version."""
    version = sys.version_info[:2]
    for item in items:
        expected = getattr(getattr(item, "module", None), "EXPECTED_FAILURES", {})
        callspec = getattr(item, "callspec", None)
        name = callspec.params.get("name") if callspec is not None else None
        if name in expected:
            versions, reason = expected[name]
            if version in versions:
                item.add_marker(pytest.mark.xfail(reason=reason, strict=True))


@pytest.fixture
def behaves_the_same() -> Callable[[Any, List[Call]], None]:
    """``behaves_the_same(function, calls)``: assert the recompiled function does what *function* does."""

    def check(function: Any, calls: List[Call]) -> None:
        if function is None:
            pytest.skip("syntax not supported by this Python version")
        report(check_behaviour(function, calls))

    return check


@pytest.fixture
def module_behaves_the_same() -> Callable[[str], None]:
    """``module_behaves_the_same(source)``: the recompiled module code defines the same names."""

    def check(source: str) -> None:
        report(check_module_behaviour(source))

    return check


def report(result: BehaviourCheck) -> None:
    """Fail, with the reason and the decompiled source, unless the result is ``same``."""
    if result.status != "same":
        pytest.fail("%s: %s\n--- decompiled source ---\n%s" % (result.status, result.detail, result.source))
