"""Tests of uncompile.dynamo.graphs: graph texts become files that compile."""

from __future__ import annotations

from uncompile.dynamo.graphs import graph_text

_LAMBDA_MODULE = """class <lambda>(torch.nn.Module):
    def forward(self, arg0_1: "f32[8][1]cpu"):
        sin: "f32[8][1]cpu" = torch.ops.aten.sin.default(arg0_1);  arg0_1 = None
        return (sin,)
"""


def test_unnamed_graph_module_is_renamed_and_compiles() -> None:
    content, note = graph_text("aot_inference", _LAMBDA_MODULE, "# header\n")
    assert note is None
    compile(content, "<graph>", "exec")
    assert "class GraphModule(torch.nn.Module):" in content
    body = content.splitlines()
    # every line of PyTorch's text is kept, in order, after the prelude
    assert body[-len(_LAMBDA_MODULE.splitlines()) + 1 :] == _LAMBDA_MODULE.splitlines()[1:]


def test_text_that_is_not_python_is_kept_as_comments() -> None:
    content, note = graph_text("aot_forward", "def forward(self:\n    return\n", "# header\n")
    assert note is not None and "not valid Python" in note
    compile(content, "<graph>", "exec")
    assert "# def forward(self:" in content
