"""The registry of dumps keeps what ``debug()`` needs and does not keep the user's program alive."""

from __future__ import annotations

import gc
import shutil
import weakref
from pathlib import Path
from types import CodeType
from typing import Any, List

import pytest

from uncompile.dynamo.registry import GraphDump, Registry, TransformedCode


def _code(name: str) -> CodeType:
    """A fresh code object that nothing else refers to."""
    return compile("def %s(x):\n    return x + 1\n" % name, "<test>", "exec").co_consts[0]


class _Compiled:
    """Stands in for a compiled graph (weakly referable)."""


def _entry(code: CodeType, directory: Path) -> TransformedCode:
    return TransformedCode(code, code, "0/0", str(directory / "__transformed_code_0_for_f.py"), "verified")


def test_a_dump_into_a_directory_replaces_its_earlier_dump(tmp_path: Path) -> None:
    registry = Registry()
    first, second, kept = _code("first"), _code("second"), _code("kept")
    registry.add_dump(str(tmp_path / "a"), [_entry(first, tmp_path)], [])
    registry.add_dump(str(tmp_path), [_entry(kept, tmp_path)], [])
    (tmp_path / "a").mkdir()
    registry.add_dump(str(tmp_path / "a"), [_entry(second, tmp_path)], [])
    assert registry.dump_dirs == [str(tmp_path), str(tmp_path / "a")]
    assert [item.code for item in registry.transformed] == [kept, second]


def test_a_directory_that_was_removed_is_forgotten(tmp_path: Path) -> None:
    registry = Registry()
    (tmp_path / "old").mkdir()
    registry.add_dump(str(tmp_path / "old"), [], [GraphDump("0/0", "captured_graph", "g.py")])
    shutil.rmtree(tmp_path / "old")
    registry.add_dump(str(tmp_path / "new"), [], [])
    assert registry.dump_dirs == [str(tmp_path / "new")] and registry.graphs == []


def test_code_and_compiled_graphs_are_referred_to_weakly(tmp_path: Path) -> None:
    registry = Registry()
    code, compiled = _code("f"), _Compiled()
    code_ref, compiled_ref = weakref.ref(code), weakref.ref(compiled)
    graphs = [
        GraphDump("0/0", "captured_graph", "g.py", "__compiled_fn_1", compiled),
        GraphDump("0/0", "aot_forward", "h.py", "__compiled_fn_1", 12345),  # not weakly referable
    ]
    registry.add_dump(str(tmp_path), [_entry(code, tmp_path)], graphs)
    assert registry.graphs[0].compiled_fn is compiled and registry.graphs[1].compiled_fn is None
    assert registry.transformed[0].code is code
    del code, compiled
    gc.collect()
    assert code_ref() is None and compiled_ref() is None
    assert registry.transformed == [] and registry.graphs[0].compiled_fn is None
    assert registry.dump_dirs == [str(tmp_path)]  # debug() still finds the dumped files


# ---------------------------------------------------------------- repeated dumps of a model


def test_repeated_dumps_free_the_models_and_graphs_of_earlier_dumps(tmp_path: Path) -> None:
    """A process that dumps again and again (one dump per model, rank or step) keeps only what
    Dynamo itself keeps: once Dynamo forgets an earlier dump's model and graphs, they are freed;
    ``debug()`` still stops in the latest dump's graph."""
    torch = pytest.importorskip("torch")
    import uncompile

    graph_refs: List[Any] = []
    model_refs: List[Any] = []

    def backend(gm: Any, example_inputs: Any) -> Any:
        graph_refs.append(weakref.ref(gm))
        return gm.forward

    def dump_once(directory: Path) -> Any:
        model = torch.nn.Sequential(torch.nn.Linear(16, 16), torch.nn.ReLU(), torch.nn.Linear(16, 4))
        model_refs.append(weakref.ref(model))
        compiled = torch.compile(model, backend=backend)
        with uncompile.prepare_debug(str(directory)):
            compiled(torch.ones(2, 16))
        return compiled

    for number in range(3):
        torch._dynamo.reset()
        latest = dump_once(tmp_path / ("dump_%d" % (number % 2)))
    gc.collect()  # each reset made Dynamo forget the dumps before it
    assert [ref() is None for ref in model_refs] == [True, True, False]
    assert [ref() is None for ref in graph_refs] == [True, True, False]
    with uncompile.debug() as session:  # the directories come from the registry
        assert any(Path(path).parent == tmp_path / "dump_0" for _, _, path in session.relabeled)
    assert latest is not None
