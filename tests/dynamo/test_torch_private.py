"""Accessors of PyTorch internals: each gives a neutral answer outside a compile and warns once."""

from __future__ import annotations

import sys
import types
import warnings
from typing import Any, List

import pytest

pytest.importorskip("torch")

from uncompile.dynamo import _torch_private  # noqa: E402


@pytest.fixture
def fresh_warnings(monkeypatch: pytest.MonkeyPatch) -> List[str]:
    """No cause warned about yet; returns the list the causes are recorded in."""
    causes: List[str] = []
    monkeypatch.setattr(_torch_private, "_warned", set())
    monkeypatch.setattr(_torch_private, "warned_causes", causes)
    monkeypatch.setattr(_torch_private, "_occurred", {})
    return causes


def test_each_cause_warns_once(fresh_warnings: List[str]) -> None:
    with pytest.warns(UserWarning, match="cannot do it: detail") as caught:
        _torch_private.warn_once("cannot do it", "detail")
        _torch_private.warn_once("cannot do it", "another detail")
    assert len(caught) == 1
    assert fresh_warnings == ["cannot do it: detail"]


def test_a_dump_lists_the_causes_met_since_it_began(fresh_warnings: List[str]) -> None:
    with pytest.warns(UserWarning):
        _torch_private.warn_once("before only")
        _torch_private.warn_once("again later", "first detail")
    mark = _torch_private.warnings_mark()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # already warned: not again
        _torch_private.warn_once("again later", "second detail")
    with pytest.warns(UserWarning):
        _torch_private.warn_once("new", "x")
    assert _torch_private.causes_since(mark) == ["again later: first detail", "new: x"]
    assert fresh_warnings == ["before only", "again later: first detail", "new: x"]


def test_outside_a_compile_there_is_no_compile_id_and_no_cache_entry() -> None:
    def never_compiled(x: Any) -> Any:
        return x

    assert _torch_private.current_compile_id() is None
    assert _torch_private.cache_entries(never_compiled.__code__) == []


def test_frame_globals_outside_a_bytecode_hook_are_unknown(fresh_warnings: List[str]) -> None:
    with pytest.warns(UserWarning, match="cannot find the globals"):
        assert _torch_private.compiling_frame_globals() is None


def test_export_calls_are_recorded_and_the_original_restored(monkeypatch: pytest.MonkeyPatch) -> None:
    module = types.ModuleType("torch.export._trace")
    original = lambda *args, **kwargs: ("program", args, kwargs)  # noqa: E731
    module._export = original  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "torch.export._trace", module)
    recorded: List[Any] = []
    restore = _torch_private.wrap_export(recorded.append)
    assert restore is not None
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = module._export(1, strict=False)  # type: ignore[attr-defined]
    assert result == ("program", (1,), {"strict": False}) and recorded == [result]
    restore()
    assert module._export is original  # type: ignore[attr-defined]
