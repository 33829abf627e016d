"""The dump's sources: a text decompiled in the bytecode hook is compiled when the dump is written."""

from __future__ import annotations

from types import CodeType

import pytest

from uncompile.dynamo.decompiled import checked_source, decompile_for_dump, verify_source


def _scale(x: int, factor: int) -> int:
    return x * factor + 1


CODE: CodeType = _scale.__code__


def test_the_hook_leaves_the_compile_check_to_the_writer(monkeypatch: pytest.MonkeyPatch) -> None:
    compiled = []
    real_compile = compile

    def counting(source: str, *args: object, **kwargs: object) -> object:
        compiled.append(source)
        return real_compile(source, *args, **kwargs)  # type: ignore[call-overload]

    monkeypatch.setattr("builtins.compile", counting)
    source = decompile_for_dump(CODE, verify=False, checked=False)
    assert source.status == "unverified" and "return x * factor + 1" in source.text
    assert source.text not in compiled
    assert checked_source(CODE, source) is source
    assert compiled[-1] == source.text


@pytest.mark.parametrize("check", [checked_source, verify_source], ids=["checked", "verified"])
def test_a_text_that_does_not_compile_becomes_the_instruction_listing(check: object) -> None:
    source = decompile_for_dump(CODE, verify=False, checked=False)
    source.text = source.text.replace("return x * factor + 1", "return x *")
    result = check(CODE, source)  # type: ignore[operator]
    assert result.status == "failed"
    assert "does not compile" in (result.error or "")
    assert "BINARY_OP" in result.text or "BINARY_MULTIPLY" in result.text
    compile(result.text, "listing.py", "exec")
    assert result.offset_lines  # the listing can still be stepped through
