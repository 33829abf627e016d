"""Guard texts as Dynamo prints them -> checks that the dumped guard functions evaluate."""

from __future__ import annotations

import pytest

from uncompile.dynamo.guards import render_guard_function, to_check


def test_python_guards_become_expressions() -> None:
    check = to_check(
        "TENSOR_MATCH",
        "L['x']",
        "check_tensor(L['x'], Tensor, DispatchKeySet(CPU, AutogradCPU), torch.float32, device=None, "
        "requires_grad=False, size=[4], stride=[1])  # y = x.sin()  # a.py:3 in f",
    )
    assert check.checkable
    assert "DispatchKeySet('CPU', 'AutogradCPU')" in check.expression and "'Tensor'" in check.expression
    assert check.comment.startswith("y = x.sin()")


def test_guards_without_python_form_are_comments() -> None:
    check = to_check(
        "LAMBDA_GUARD", "L", "torch._functorch.aot_autograd.utils.top_saved_tensors_hooks ids == 3"
    )
    assert not check.checkable and check.why_unchecked == "not a Python expression"
    unknown = to_check("TORCH_FUNCTION_MODE_STACK", "L", "___check_torch_function_mode_stack()")
    assert not unknown.checkable and "mode types" in unknown.why_unchecked
    other = to_check("X", "L", "___dict_version(L['d']) == 3")
    assert not other.checkable and "___dict_version" in other.why_unchecked


def test_guards_dynamo_prints_in_another_form_get_python() -> None:
    hooks = to_check(
        "LAMBDA_GUARD", "L", "torch._functorch.aot_autograd.utils.top_saved_tensors_hooks ids == None"
    )
    assert hooks.expression == "___saved_tensors_hooks_are_none()"
    modes = to_check("TORCH_FUNCTION_MODE_STACK", "L", "___check_torch_function_mode_stack()", [])
    assert modes.expression == "___check_torch_function_mode_stack(())"


def test_global_state_guard_is_checked() -> None:
    check = to_check("GLOBAL_STATE", "L", '___check_global_state() against {"grad_mode":true}')
    assert check.expression == "___check_global_state('{\"grad_mode\":true}')"


def test_rendered_function_compiles_and_evaluates() -> None:
    checks = [
        to_check("EQUALS_MATCH", "L['n']", "L['n'] == 3  # n"),
        to_check("LAMBDA_GUARD", "L", "some guard ids == None"),
    ]
    source = render_guard_function("guard_0", checks, "Guards of a test.")
    namespace: dict = {}
    exec(compile(source, "<guard>", "exec"), namespace)
    guard = namespace["guard_0"]
    assert guard({"n": 3}, {}) is True and guard({"n": 4}, {}) is False
    assert guard.unchecked_guards == ("LAMBDA_GUARD: some guard ids == None",)
    assert "CANNOT CHECK" in source


@pytest.mark.parametrize("text", ["", "   ", "a ==", "L['x'] # only a comment"])
def test_odd_texts_never_raise(text: str) -> None:
    to_check("X", "L", text)


def test_type_hint_suffix_is_not_part_of_the_expression() -> None:
    check = to_check(
        "TYPE_MATCH",
        "L['args']",
        "___check_type_id(L['args'], 1234), type=<class 'tuple'> (HINT: type tuple)",
    )
    assert check.expression == "___check_type_id(L['args'], 1234)"
    assert "type=<class 'tuple'>" in check.comment
