"""The behavioural suite's one check: decompile, recompile, swap in with ``__code__``, compare.

A case whose function the decompiler cannot handle yet is reported as xfail with the reason
(``decompile-error``, ``uncompilable``, ``crash``, or ``different`` when the recompiled
function behaves otherwise), so the suite documents the coverage honestly while the
decompiler is being built. With ``UNCOMPILE_STRICT_BEHAVIOUR=1`` a ``different`` result --
silently wrong source, the worst failure -- fails the test instead.
"""

from __future__ import annotations

import importlib
import os
from typing import Any, Callable, List

import pytest

from uncompile.verification.behaviour import BehaviourCheck, Call, check_behaviour, check_module_behaviour


def _decompiler_missing() -> bool:
    try:
        importlib.import_module("uncompile.decompiler")
    except ImportError:
        return True
    return False


@pytest.fixture
def behaves_the_same() -> Callable[[Any, List[Call]], None]:
    """``behaves_the_same(function, calls)``: assert the recompiled function does what *function* does."""

    def check(function: Any, calls: List[Call]) -> None:
        if function is None:
            pytest.skip("syntax not supported by this Python version")
        if _decompiler_missing():
            pytest.xfail("uncompile.decompiler is not available")
        report(check_behaviour(function, calls))

    return check


@pytest.fixture
def module_behaves_the_same() -> Callable[[str], None]:
    """``module_behaves_the_same(source)``: the recompiled module code defines the same names."""

    def check(source: str) -> None:
        if _decompiler_missing():
            pytest.xfail("uncompile.decompiler is not available")
        report(check_module_behaviour(source))

    return check


def report(result: BehaviourCheck) -> None:
    """xfail, with the reason, where the decompiler fails today (fail on wrong behaviour when strict)."""
    if result.status == "different" and os.environ.get("UNCOMPILE_STRICT_BEHAVIOUR") == "1":
        pytest.fail("%s\n--- decompiled source ---\n%s" % (result.detail, result.source))
    if result.status != "same":
        pytest.xfail("%s: %s" % (result.status, result.detail.splitlines()[0] if result.detail else ""))
