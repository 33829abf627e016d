"""The dump's sources: a text decompiled in the bytecode hook is compiled when the dump is written."""

from __future__ import annotations

from types import CodeType

import pytest

from uncompile.dynamo.decompiled import checked_source, decompile_for_dump, file_text, verify_source


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


def _counter() -> object:
    count = 0
    step = 2

    def bump(x: int) -> int:
        nonlocal count
        count += step
        return x + count

    return bump


BUMP: CodeType = _counter().__code__  # type: ignore[attr-defined]


@pytest.mark.parametrize("verify", [False, True], ids=["checked", "verified"])
def test_a_closure_that_assigns_a_free_variable_is_written_as_a_module_that_compiles(verify: bool) -> None:
    source = decompile_for_dump(BUMP, verify=verify)
    assert source.status != "failed" and "    nonlocal count\n" in source.text
    text = file_text(BUMP, source.text)
    compile(text, "<dumped file>", "exec")
    assert "    # nonlocal count  (free variables" in text
    assert text.count("\n") == source.text.count("\n")  # the debugger's lines stay where they were


def test_a_nonlocal_of_a_nested_function_is_kept() -> None:
    text = "def f(x):\n    def g():\n        nonlocal x\n        x = 1\n    return g\n"
    assert file_text(BUMP, text) == text
    assert (
        file_text(CODE, "def f():\n    nonlocal count\n") == "def f():\n    nonlocal count\n"
    )  # no free variables
