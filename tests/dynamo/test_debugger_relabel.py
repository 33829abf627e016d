"""Relabeling: same instructions, lines and file name of the dumped source."""

from __future__ import annotations

import ast
import dis
import sys
import textwrap
import types
from pathlib import Path
from typing import Any, Dict, List, Optional, Set, Tuple

import torch

from uncompile.bytecode.linetable import lines_by_offset
from uncompile.dynamo.line_matching import logical_lines, match_source_lines
from uncompile.dynamo.listing import instruction_listing
from uncompile.dynamo.relabel import relabel_offsets, relabel_to_file, relabel_transformed

SOURCE = """
def outer(values, scale):
    total = 0
    factor = scale * 2
    result = [
        value * factor
        for value in values
    ]

    def inner(item):
        return item + factor + total

    return sum(
        inner(item)
        for item in result
    )
"""


def _compile_outer() -> types.FunctionType:
    namespace: Dict[str, Any] = {}
    exec(compile(SOURCE, "<outer>", "exec"), namespace)
    return namespace["outer"]


def _stand_in_decompile(code: types.CodeType, source: str) -> Tuple[ast.Module, Any]:
    """A decompiler stand-in: parse *source*, attach offsets by the code's own line table."""
    tree = ast.parse(source)
    spans: Dict[ast.AST, Tuple[int, int]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.stmt):
            spans[node] = (node.lineno, node.end_lineno or node.lineno)

    def attach(body: List[ast.stmt], owner: types.CodeType) -> None:
        lines = lines_by_offset(owner)
        for statement in body:
            first, last = spans[statement]
            inner_lines: Set[int] = set()
            for child in ast.walk(statement):
                if child is not statement and isinstance(child, ast.stmt):
                    inner_lines.update(range(spans[child][0], spans[child][1] + 1))
            statement.uncompile_offsets = tuple(  # type: ignore[attr-defined]
                offset
                for offset, line in lines.items()
                if line is not None and first <= line <= last and line not in inner_lines
            )
            if isinstance(statement, ast.FunctionDef):
                nested = [
                    c
                    for c in owner.co_consts
                    if isinstance(c, types.CodeType) and c.co_name == statement.name
                ]
                attach(statement.body, nested[0])

    function = tree.body[0]
    assert isinstance(function, ast.FunctionDef)
    attach(function.body, code)
    return tree, types.SimpleNamespace(text=source, spans=spans)


def test_transformed_code_reports_statement_first_lines_of_the_dump(tmp_path: Path) -> None:
    outer = _compile_outer()
    code = outer.__code__
    tree, emitted = _stand_in_decompile(code, SOURCE)
    header = "# header line 1\n# header line 2\n# header line 3\n"
    path = tmp_path / "__transformed_code_0_for_outer.py"
    path.write_text(header + SOURCE)
    relabeled = relabel_transformed(code, tree, emitted, str(path), header_lines=3)

    assert relabeled.co_code == code.co_code
    assert relabeled.co_varnames == code.co_varnames and relabeled.co_cellvars == code.co_cellvars
    assert relabeled.co_filename == str(path)
    starts = {node.lineno + 3 for node in ast.walk(tree) if isinstance(node, ast.stmt)}
    reported = {line for line in lines_by_offset(relabeled).values() if line is not None}
    assert reported <= starts
    # The three-line list display and the three-line return are one line each.
    assert 5 + 3 in reported and 6 + 3 not in reported and 7 + 3 not in reported
    assert 13 + 3 in reported and 14 + 3 not in reported
    inner = [c for c in relabeled.co_consts if isinstance(c, types.CodeType) and c.co_name == "inner"][0]
    assert inner.co_filename == str(path)
    assert set(lines_by_offset(inner).values()) <= {10 + 3, 11 + 3}

    before = outer([1, 2, 3], 5)
    outer.__code__ = relabeled
    assert outer([1, 2, 3], 5) == before


def test_graph_code_maps_to_fx_readable_print() -> None:
    class Net(torch.nn.Module):
        def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
            a = torch.sin(x) + y
            b = a.relu() * 2
            return (a, b)  # type: ignore[return-value]

    graph_module = torch.fx.symbolic_trace(Net())
    generated = graph_module.code.splitlines()
    readable = graph_module.print_readable(print_output=False).splitlines()
    line_map = match_source_lines(generated, readable)
    for first, last, key in logical_lines(generated):
        assert first in line_map, key
        target = line_map[first]
        assert key.split(" ")[0] in readable[target - 1] or key.startswith("def ")
        assert all(line_map[line] == target for line in range(first, last + 1))


def test_relabel_to_file_keeps_instructions_and_runs(tmp_path: Path) -> None:
    def make_adder(base: int) -> Any:
        def add(value: int) -> int:
            shifted = value + base
            return shifted * 2

        return add

    adder = make_adder(10)
    code = adder.__code__
    first = code.co_firstlineno
    line_map: Dict[int, int] = {first + 1: 101, first + 2: 102}
    relabeled = relabel_to_file(code, line_map, str(tmp_path / "graph.py"))
    assert relabeled.co_code == code.co_code and relabeled.co_freevars == code.co_freevars
    lines: List[Optional[int]] = [line for line in lines_by_offset(relabeled).values() if line is not None]
    assert set(lines) <= {101, 102} and 101 in lines and 102 in lines
    expected = adder(4)
    adder.__code__ = relabeled
    assert adder(4) == expected


def test_statement_spread_over_lines_matches_one_line_version() -> None:
    one_line = ["def forward(self, a, b):", "    return (a, b)"]
    spread = textwrap.dedent(
        """
        class GraphModule(torch.nn.Module):
            def forward(
                self,
                a: "f32[4]",  # input 0
                b: "f32[4]",
            ):
                return (
                    a,  # output 0
                    b,
                )
        """
    ).splitlines()
    line_map = match_source_lines(one_line, spread)
    assert line_map == {1: 3, 2: 8}


def test_extended_arg_prefix_takes_the_line_of_its_instruction(tmp_path: Path) -> None:
    names = ", ".join("v%d" % index for index in range(300))
    source = "def many():\n    %s = range(300)\n    return v299 + v0\n" % names
    namespace: Dict[str, Any] = {}
    exec(compile(source, "<many>", "exec"), namespace)
    code = namespace["many"].__code__
    instructions = list(dis.get_instructions(code))
    assert any(i.opname == "EXTENDED_ARG" for i in instructions)
    # Statement 1 owns everything up to the first LOAD_FAST of the return; the return the rest.
    split = next(index for index, i in enumerate(instructions) if i.opname.startswith("LOAD_FAST"))
    offset_lines = {
        i.offset: (10 if index < split else 20)
        for index, i in enumerate(instructions)
        if i.opname != "EXTENDED_ARG"
    }
    relabeled = relabel_offsets(code, offset_lines, str(tmp_path / "many.py"), header_lines=0, def_line=9)
    lines = lines_by_offset(relabeled)
    for index, instruction in enumerate(instructions):
        if instruction.opname == "EXTENDED_ARG":
            following = next(i for i in instructions[index:] if i.opname != "EXTENDED_ARG")
            assert lines[instruction.offset] == lines[following.offset]


def test_code_that_failed_to_decompile_steps_through_its_instruction_listing(tmp_path: Path) -> None:
    def closure_maker(scale: float) -> Any:
        def body(x: float, *rest: float, flag: bool = True, **options: Any) -> float:
            total = x * scale
            for value in rest:
                total += value
            return total if flag else -total

        return body

    body = closure_maker(2.0)
    code = body.__code__
    listing = instruction_listing(code, reason="DecompileError: example")
    compile(listing.text, "<listing>", "exec")
    assert listing.text.splitlines()[0] == "def body(x, *rest, flag, **options):"
    path = tmp_path / "__transformed_code_0_for_body.py"
    header = "# header\n"
    path.write_text(header + listing.text)
    relabeled = relabel_offsets(code, listing.offset_lines, str(path), header_lines=1, def_line=1)
    assert relabeled.co_code == code.co_code and relabeled.co_freevars == code.co_freevars

    expected = body(1.0, 2.0, 3.0, flag=False)
    body.__code__ = relabeled
    events: List[int] = []

    def tracer(frame: Any, event: str, arg: Any) -> Any:
        if frame.f_code is relabeled and event == "line":
            events.append(frame.f_lineno)
        return tracer

    sys.settrace(tracer)
    try:
        result = body(1.0, 2.0, 3.0, flag=False)
    finally:
        sys.settrace(None)
    assert result == expected
    instruction_lines = {line + 1 for line in listing.offset_lines.values()}
    assert events and set(events) <= instruction_lines
    assert len(set(events)) > len(listing.offset_lines) // 2  # stepping goes instruction by instruction


def test_debuggable_source_falls_back_to_a_breakable_listing(tmp_path: Path, monkeypatch: Any) -> None:
    import uncompile.decompiler
    from uncompile.dynamo.debuggable import debuggable_source

    def scale(x: int) -> int:
        y = x * 3
        return y + 1

    def failing(code: types.CodeType) -> ast.Module:
        raise ValueError("cannot structure this")

    for fail in (False, True):
        if fail:
            monkeypatch.setattr(uncompile.decompiler, "decompile_to_ast", failing)
        source = debuggable_source(scale.__code__)
        assert source.decompiled is not fail
        path = tmp_path / ("scale_%d.py" % fail)
        path.write_text("# one header line\n" + source.text)
        relabeled = source.relabeled(str(path), header_lines=1)
        assert relabeled.co_code == scale.__code__.co_code and relabeled.co_filename == str(path)
        statement_starts = {
            n.lineno for n in ast.walk(ast.parse(path.read_text())) if isinstance(n, ast.stmt)
        }
        reported = {line for line in lines_by_offset(relabeled).values() if line is not None}
        assert reported <= statement_starts
        if fail:
            assert "cannot structure this" in source.error and "LOAD_FAST" in source.text
