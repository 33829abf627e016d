"""File names: depyf prefixes, safe characters, bounded length, distinct."""

from __future__ import annotations

from uncompile.dynamo import names


def test_depyf_prefixes() -> None:
    assert names.transformed_code_file("f", 0) == "__transformed_code_0_for_f.py"
    assert names.full_code_file("<lambda>", 1) == "full_code_for__lambda__1.py"
    uuid_name = "__compiled_fn_12_ffa040e4_9165_4582_adcf_6a5e79a3c2dc"
    assert names.graph_file(uuid_name, "aot_forward") == "__compiled_fn_12_aot_forward.py"


def test_long_names_are_cut_and_stay_distinct() -> None:
    stack = "L__self___" + "_".join("layers_%d_block_attention_projection" % i for i in range(40))
    first = names.transformed_code_file(stack + "a", 0)
    second = names.transformed_code_file(stack + "b", 0)
    assert first != second and len(first) < 120 and len(second) < 120


def test_counter() -> None:
    counter = names.NameCounter()
    assert [counter.next("f"), counter.next("g"), counter.next("f")] == [0, 0, 1]
