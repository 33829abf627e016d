"""Graph-break and recompilation reasons: readable, at the user's file and line."""

from __future__ import annotations

from uncompile.dynamo.reasons import graph_break, recompiles

# What PyTorch 2.13 reports for a third compile of ``scale(x, k)`` after k changed.
GUARD_ON_A_USER_LINE = (
    "0/1: k == 2" + " " * 51 + "# return x * k + 1  # mp/prog.py:4 in scale\n"
    "User stack trace:\n"
    '  File "/tmp/prog.py", line 4, in scale\n'
    "    return x * k + 1"
)
TENSOR_GUARD = "0/0: tensor 'x' size mismatch at index 0. expected 3, actual 4"


def test_each_failed_entry_is_one_record_with_its_guard_and_line() -> None:
    records = recompiles("0/2", "scale", [GUARD_ON_A_USER_LINE, TENSOR_GUARD, ""])
    assert [(r.compile_id, r.code_name, r.reason, r.user_file, r.user_line) for r in records] == [
        ("0/2", "scale", "guard of entry 0/1 failed: k == 2", "/tmp/prog.py", 4),
        ("0/2", "scale", "guard of entry 0/0 failed: " + TENSOR_GUARD[5:], None, None),
    ]


def test_a_reason_in_another_form_is_kept_as_it_is() -> None:
    records = recompiles("1/1", "f", ["cache size limit reached\nsecond line"])
    assert [(r.reason, r.user_file) for r in records] == [("cache size limit reached\nsecond line", None)]


def test_a_graph_break_quotes_source_without_its_underlines() -> None:
    text = (
        "Graph break in user code at /tmp/prog.py:7\n"
        "Graph Break Reason: Call to `torch._dynamo.graph_break()`\n"
        "Stack variable source attribution:\n"
        '  File "/tmp/prog.py", line 5\n'
        "    with profiler(name):\n"
        "    ^^^^^^^^^^^^^^^^^^^^\n"
        "        out = f(x)\n"
        "        ^^^^^^^^^^\n"
        "\n"
        "\n"
        "\n"
        "        return out\n"
        "        ^^^^^^^^^^\n"
        "    return x.sin() * 2\n"
        "           ~~~~~^^\n"
        "    ~~~~~~~\n"
        "User code traceback:\n"
        '  File "/tmp/prog.py", line 7, in g\n'
    )
    record = graph_break("3/0", "g", text)
    assert (record.user_file, record.user_line) == ("/tmp/prog.py", 7)
    assert record.reason == (
        "Graph Break Reason: Call to `torch._dynamo.graph_break()`\n"
        "Stack variable source attribution:\n"
        '  File "/tmp/prog.py", line 5\n'
        "    with profiler(name):\n"
        "        out = f(x)\n"
        "\n"
        "        return out\n"
        "    return x.sin() * 2\n"
        "    ~~~~~~~"
    )
