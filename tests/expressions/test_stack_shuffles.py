"""Dynamo-like bytecode (3.11) decompiles to plain expressions that behave like the original.

The instruction lists follow what ``torch/_dynamo/symbolic_convert.py`` emits around a
graph break (``create_call_resume_at``, ``create_resume``, ``codegen_call_resume``): the
frame values built as lists on the stack, edited there and passed to a resume function.
Each test assembles such code, checks the readable form of its source and runs the
original and the recompiled code with the same stand-ins for the graph and the resume
function.
"""

from __future__ import annotations

import dis
import opcode
import re
import sys
import types
from typing import Any, Callable, Dict, List, Tuple

import pytest

import uncompile
from uncompile.decompiler import decompile_code

pytestmark = pytest.mark.skipif(sys.version_info[:2] != (3, 11), reason="Dynamo-like 3.11 bytecode")

Op = Tuple[str, Any]


def assemble(name: str, args: List[str], program: List[Op]) -> types.CodeType:
    """A 3.11 code object named *name* running *program* (``(opname, argument)`` pairs).

    Arguments are names (``LOAD_FAST``/``LOAD_GLOBAL``/``LOAD_ATTR``...), constants
    (``LOAD_CONST``) or integers; ``LOAD_GLOBAL`` takes ``(name, push_null)``.
    """
    consts: List[Any] = [None]
    names: List[str] = []
    varnames = [arg.lstrip("*") for arg in args]
    code = bytearray()

    def index(table: List[Any], value: Any) -> int:
        for position, item in enumerate(table):
            if type(item) is type(value) and item == value:
                return position
        table.append(value)
        return len(table) - 1

    for op, arg in program:
        number = dis.opmap[op]
        if op == "LOAD_CONST":
            oparg = index(consts, arg)
        elif op == "LOAD_GLOBAL":
            oparg = index(names, arg[0]) << 1 | int(arg[1])
        elif op in ("LOAD_ATTR", "STORE_ATTR", "LOAD_METHOD"):
            oparg = index(names, arg)
        elif op in ("LOAD_FAST", "STORE_FAST", "DELETE_FAST"):
            oparg = index(varnames, arg)
        else:
            oparg = arg or 0
        code += bytes([number, oparg])
        code += bytes(2 * opcode._inline_cache_entries[number])  # type: ignore[attr-defined]
    template = compile("def %s(%s): pass" % (name, ", ".join(args)), "<dynamo-like>", "exec")
    function = next(c for c in template.co_consts if isinstance(c, types.CodeType))
    return function.replace(
        co_code=bytes(code),
        co_consts=tuple(consts),
        co_names=tuple(names),
        co_varnames=tuple(varnames),
        co_nlocals=len(varnames),
        co_stacksize=16,
        co_linetable=b"",
        co_exceptiontable=b"",
    )


Namespace = Callable[[], Dict[str, Any]]


def run(code: types.CodeType, namespace: Namespace, *args: Any) -> Any:
    return types.FunctionType(code, namespace())(*args)


def check(code: types.CodeType, namespace: Namespace, *args: Any) -> str:
    """The decompiled source of *code*, after checking that its recompiled code behaves the same
    (*namespace* makes fresh globals for each run)."""
    source = decompile_code(code)
    recompiled = uncompile.recompile(code)
    assert run(recompiled, namespace, *args) == run(code, namespace, *args), source
    return source


#: ``__resume_at_9([], frames, *frames[-1])`` after ``frames[-1]`` was taken off the list,
#: for one frame whose values are the list on the stack (what ``codegen_call_resume`` emits).
CALL_RESUME: List[Op] = [
    ("COPY", 1),
    ("LOAD_CONST", 0),
    ("BINARY_SUBSCR", 0),
    ("SWAP", 2),
    ("POP_TOP", 0),
    ("BUILD_LIST", 1),
    ("SWAP", 2),  # frames filtered to the frames that resume
    ("COPY", 1),
    ("LOAD_CONST", 0),
    ("BINARY_SUBSCR", 0),
    ("SWAP", 2),
    ("POP_TOP", 0),
    ("BUILD_LIST", 1),
    ("SWAP", 2),  # the cells likewise
    ("BUILD_LIST", 0),
    ("SWAP", 3),
    ("POP_TOP", 0),
    ("LOAD_GLOBAL", ("__resume_at_9", False)),
    ("SWAP", 3),
    ("SWAP", 2),
    ("COPY", 1),
    ("COPY", 1),
    ("LOAD_CONST", -1),
    ("BINARY_SUBSCR", 0),
    ("SWAP", 2),
    ("LOAD_CONST", -1),
    ("DELETE_SUBSCR", 0),
    ("SWAP", 3),
    ("SWAP", 2),
    ("BUILD_LIST", 2),
    ("SWAP", 2),
    ("LIST_EXTEND", 1),
    ("PUSH_NULL", 0),
    ("SWAP", 3),
    ("SWAP", 2),
    ("CALL_FUNCTION_EX", 0),
    ("RETURN_VALUE", 0),
]


class Value:
    def __init__(self, log: List[str], tag: str) -> None:
        self.log, self.tag = log, tag

    def item(self) -> str:
        self.log.append("item " + self.tag)
        return self.tag


#: ``graph_out_0 = __compiled_fn_1(x)``: how each program below starts
GRAPH_CALL: List[Op] = [
    ("RESUME", 0),
    ("LOAD_GLOBAL", ("__compiled_fn_1", True)),
    ("LOAD_FAST", "x"),
    ("PRECALL", 1),
    ("CALL", 1),
    ("STORE_FAST", "graph_out_0"),
]


def code_units(program: List[Op]) -> int:
    """The size of *program* in code units (an instruction and its inline caches), for jumps over it."""
    return sum(1 + opcode._inline_cache_entries[dis.opmap[op]] for op, _ in program)  # type: ignore[attr-defined]


def graph_break_program() -> List[Op]:
    """``graph_out_0 = __compiled_fn_1(x)``, then a call to a resume function that gets the
    result of ``graph_out_0[0].item()`` (the frame's stack) and the local ``x``."""
    return (
        GRAPH_CALL
        + [
            ("BUILD_TUPLE", 0),
            ("BUILD_LIST", 1),  # the cells of the frames
            ("PUSH_NULL", 0),
            ("LOAD_FAST", "graph_out_0"),
            ("LOAD_CONST", 0),
            ("BINARY_SUBSCR", 0),
            ("LOAD_ATTR", "item"),
            ("BUILD_LIST", 0),
            ("BUILD_LIST", 0),
            ("SWAP", 2),
            ("LOAD_FAST", "x"),
            ("BUILD_LIST", 1),
            ("LIST_EXTEND", 2),
            ("POP_TOP", 0),
            ("BUILD_LIST", 1),  # frames = [[x]]
            ("SWAP", 3),
            ("SWAP", 2),
            ("DELETE_FAST", "graph_out_0"),
            ("PRECALL", 0),
            ("CALL", 0),
            ("BUILD_LIST", 1),
            ("COPY", 2),
            ("LOAD_CONST", 0),
            ("BINARY_SUBSCR", 0),
            ("LOAD_CONST", 0),
            ("LOAD_CONST", 0),
            ("BUILD_SLICE", 2),
            ("STORE_SUBSCR", 0),  # frames[0][0:0] = [...]
        ]
        + CALL_RESUME
    )


def test_resume_call_gets_the_frame_values_as_arguments() -> None:
    def namespace() -> Dict[str, Any]:
        log: List[str] = []
        return {"__compiled_fn_1": lambda x: (Value(log, x),), "__resume_at_9": lambda *args: (args, log)}

    code = assemble("f", ["x"], graph_break_program())
    source = check(code, namespace, "a")
    assert re.search(r"^ *graph_out_0 = __compiled_fn_1\(x\)$", source, re.M), source
    assert re.search(
        r"^ *return __resume_at_9\(\[\], \[\], graph_out_0\[0\]\.item\(\), x\)$", source, re.M
    ), source
    assert "stack_" not in source, source


def test_values_with_effects_keep_their_order() -> None:
    """``frames[0][0:0] = [second()]`` on a list holding ``first()``: first runs first."""
    program: List[Op] = [
        ("RESUME", 0),
        ("BUILD_TUPLE", 0),
        ("BUILD_LIST", 1),
        ("PUSH_NULL", 0),
        ("LOAD_GLOBAL", ("__compiled_fn_1", False)),
        ("LOAD_CONST", "first"),
        ("PRECALL", 1),
        ("CALL", 1),
        ("BUILD_LIST", 1),
        ("BUILD_LIST", 1),  # frames = [[first()]]
        ("PUSH_NULL", 0),
        ("LOAD_GLOBAL", ("__compiled_fn_1", False)),
        ("LOAD_CONST", "second"),
        ("PRECALL", 1),
        ("CALL", 1),
        ("BUILD_LIST", 1),
        ("COPY", 2),
        ("LOAD_CONST", 0),
        ("BINARY_SUBSCR", 0),
        ("LOAD_CONST", 0),
        ("LOAD_CONST", 0),
        ("BUILD_SLICE", 2),
        ("STORE_SUBSCR", 0),
    ] + CALL_RESUME

    def namespace() -> Dict[str, Any]:
        log: List[str] = []

        def graph(tag: str) -> str:
            log.append(tag)
            return tag

        return {"__compiled_fn_1": graph, "__resume_at_9": lambda *args: (args, log)}

    code = assemble("f", [], program)
    source = check(code, namespace)
    assert run(uncompile.recompile(code), namespace)[0] == ([], [], "second", "first")
    # second() goes before first() in the call, so first() must be computed (and named) before.
    first = source.index("__compiled_fn_1('first')")
    assert first < source.index("__compiled_fn_1('second')"), source


def test_dynamo_temporaries_without_readers_are_left_out() -> None:
    """``tmp_1`` (stored with a copy kept on the stack, only deleted) and ``tmp_2 = x`` (an
    alias of a parameter) need no names: their uses show the values."""
    program: List[Op] = [
        ("RESUME", 0),
        ("LOAD_GLOBAL", ("__compiled_fn_1", True)),
        ("LOAD_GLOBAL", ("helpers", True)),
        ("LOAD_ATTR", "enter"),
        ("COPY", 1),
        ("STORE_FAST", "tmp_1"),
        ("PRECALL", 0),
        ("CALL", 0),
        ("STORE_FAST", "tmp_3"),
        ("LOAD_FAST", "x"),
        ("STORE_FAST", "tmp_2"),
        ("LOAD_FAST", "tmp_2"),
        ("LOAD_FAST", "tmp_2"),
        ("LOAD_FAST", "tmp_3"),
        ("PRECALL", 3),
        ("CALL", 3),
        ("DELETE_FAST", "tmp_1"),
        ("DELETE_FAST", "tmp_2"),
        ("RETURN_VALUE", 0),
    ]

    def namespace() -> Dict[str, Any]:
        return {
            "__compiled_fn_1": lambda *args: args,
            "helpers": types.SimpleNamespace(enter=lambda: "entered"),
        }

    code = assemble("f", ["x"], program)
    source = check(code, namespace, 5)
    assert "tmp_1" not in source and "tmp_2" not in source, source
    assert re.search(r"^ *return __compiled_fn_1\(x, x, tmp_3\)$", source, re.M), source


def test_starred_arguments_of_a_call_and_items_of_varargs() -> None:
    """``g(*args, **{})`` is ``g(*args)``, and ``args[0]`` (an item of a tuple no one rebinds)
    may move after it, so the resume call needs no names."""
    program: List[Op] = [
        ("RESUME", 0),
        ("BUILD_TUPLE", 0),
        ("BUILD_LIST", 1),
        ("LOAD_FAST", "args"),
        ("LOAD_CONST", 0),
        ("BINARY_SUBSCR", 0),
        ("BUILD_LIST", 1),
        ("BUILD_LIST", 1),
        ("PUSH_NULL", 0),
        ("LOAD_GLOBAL", ("g", False)),
        ("LOAD_FAST", "args"),
        ("BUILD_MAP", 0),
        ("CALL_FUNCTION_EX", 1),
        ("BUILD_LIST", 1),
        ("COPY", 2),
        ("LOAD_CONST", 0),
        ("BINARY_SUBSCR", 0),
        ("LOAD_CONST", 0),
        ("LOAD_CONST", 0),
        ("BUILD_SLICE", 2),
        ("STORE_SUBSCR", 0),
    ] + CALL_RESUME

    def namespace() -> Dict[str, Any]:
        return {"g": lambda *args: sum(args), "__resume_at_9": lambda *args: args}

    code = assemble("torch_dynamo_resume_in_f_at_1", ["*args"], program)
    source = check(code, namespace, 2, 3)
    assert re.search(r"^ *return __resume_at_9\(\[\], \[\], g\(\*args\), args\[0\]\)$", source, re.M), source


def test_a_copied_list_does_not_see_later_edits() -> None:
    """``copy = [*items]`` of a list that is then appended to keeps the items it had."""
    program: List[Op] = [
        ("RESUME", 0),
        ("LOAD_FAST", "t"),
        ("BUILD_LIST", 0),
        ("SWAP", 2),
        ("LIST_EXTEND", 1),  # items = [*t]
        ("COPY", 1),
        ("BUILD_LIST", 0),
        ("SWAP", 2),
        ("LIST_EXTEND", 1),  # items, [*items]
        ("SWAP", 2),
        ("LOAD_CONST", 9),
        ("LIST_APPEND", 1),  # [*items], items + [9]
        ("BUILD_TUPLE", 2),
        ("RETURN_VALUE", 0),
    ]

    def namespace() -> Dict[str, Any]:
        return {"__compiled_fn_1": None}

    code = assemble("torch_dynamo_resume_in_f_at_1", ["t"], program)
    check(code, namespace, (1, 2))
    assert run(uncompile.recompile(code), namespace, (1, 2)) == ([1, 2], [1, 2, 9])


def spread_call(name: str) -> List[Op]:
    """``return name(*list)``, the list on top of the stack."""
    return [
        ("LOAD_GLOBAL", (name, False)),
        ("PUSH_NULL", 0),
        ("SWAP", 3),
        ("CALL_FUNCTION_EX", 0),
        ("RETURN_VALUE", 0),
    ]


def resume_call(name: str) -> List[Op]:
    """``return name(*[top of stack])``."""
    return [("BUILD_LIST", 1)] + spread_call(name)


def test_graph_outputs_read_after_their_del_on_both_ways_to_a_return() -> None:
    """``del graph_out_0`` before a branch whose both ways return: the items taken from it
    before the ``del`` are read where they are used."""
    taken = resume_call("__resume_at_1")
    units = code_units(taken)
    program: List[Op] = (
        GRAPH_CALL
        + [
            ("LOAD_FAST", "graph_out_0"),
            ("LOAD_CONST", 1),
            ("BINARY_SUBSCR", 0),
            ("LOAD_FAST", "graph_out_0"),
            ("LOAD_CONST", 0),
            ("BINARY_SUBSCR", 0),
            ("DELETE_FAST", "graph_out_0"),
            ("POP_JUMP_FORWARD_IF_FALSE", units),
        ]
        + taken
        + resume_call("__resume_at_2")
    )

    def namespace() -> Dict[str, Any]:
        return {
            "__compiled_fn_1": lambda x: (x > 0, x * 10),
            "__resume_at_1": lambda v: ("taken", v),
            "__resume_at_2": lambda v: ("not taken", v),
        }

    code = assemble("f", ["x"], program)
    check(code, namespace, 1)
    source = check(code, namespace, -1)
    assert "stack_" not in source and "del " not in source, source
    assert re.search(r"^ *if graph_out_0\[0\]:\n *return __resume_at_1\(graph_out_0\[1\]\)$", source, re.M), (
        source
    )


def test_edits_on_one_way_of_a_branch_do_not_show_on_the_other() -> None:
    """The frame values ``[graph_out_0[1], x]`` built before the branch are reordered on both
    ways (``values[0:] = [values[1], values[0]]``): each way starts from the list as built."""
    swap: List[Op] = [
        ("COPY", 1),  # kept for the call
        ("COPY", 1),
        ("COPY", 1),
        ("LOAD_CONST", 1),
        ("BINARY_SUBSCR", 0),
        ("SWAP", 2),
        ("COPY", 1),
        ("LOAD_CONST", 0),
        ("BINARY_SUBSCR", 0),
        ("SWAP", 2),
        ("POP_TOP", 0),
        ("BUILD_LIST", 2),
        ("SWAP", 2),
        ("LOAD_CONST", 0),
        ("LOAD_CONST", None),
        ("BUILD_SLICE", 2),
        ("STORE_SUBSCR", 0),
    ]
    taken = swap + spread_call("__resume_at_1")
    units = code_units(taken)
    program: List[Op] = (
        GRAPH_CALL
        + [
            ("LOAD_FAST", "graph_out_0"),
            ("LOAD_CONST", 1),
            ("BINARY_SUBSCR", 0),
            ("LOAD_FAST", "x"),
            ("BUILD_LIST", 2),
            ("LOAD_FAST", "graph_out_0"),
            ("LOAD_CONST", 0),
            ("BINARY_SUBSCR", 0),
            ("DELETE_FAST", "graph_out_0"),
            ("POP_JUMP_FORWARD_IF_FALSE", units),
        ]
        + taken
        + swap
        + spread_call("__resume_at_2")
    )

    def namespace() -> Dict[str, Any]:
        return {
            "__compiled_fn_1": lambda x: (x > 0, x * 10),
            "__resume_at_1": lambda *v: ("taken", v),
            "__resume_at_2": lambda *v: ("not taken", v),
        }

    code = assemble("f", ["x"], program)
    check(code, namespace, 1)
    source = check(code, namespace, -1)
    assert run(uncompile.recompile(code), namespace, -1) == ("not taken", (-1, -10)), source
    assert "return __resume_at_2(x, graph_out_0[1])" in source, source


def test_unpacked_items_kept_on_the_stack_get_names() -> None:
    """``UNPACK_SEQUENCE`` of a graph's outputs whose items stay on the stack (what Dynamo emits
    for ``torch.cond``) is an unpacking assignment where it runs; before, it was no source."""
    program: List[Op] = [
        ("RESUME", 0),
        ("LOAD_GLOBAL", ("__compiled_fn_1", True)),
        ("LOAD_FAST", "x"),
        ("PRECALL", 1),
        ("CALL", 1),
        ("UNPACK_SEQUENCE", 2),
        ("BUILD_LIST", 0),
        ("SWAP", 2),
        ("BUILD_TUPLE", 2),
        ("RETURN_VALUE", 0),
    ]
    code = assemble("unpacked", ["x"], program)
    source = check(code, lambda: {"__compiled_fn_1": lambda x: (x, x + 1)}, 5)
    assert re.search(r"^ *stack_1, stack_2 = __compiled_fn_1\(x\)$", source, re.M), source
    assert re.search(r"^ *return \[\], stack_1$", source, re.M), source


def test_dynamo_code_is_told_by_a_name_that_starts_with_a_dynamo_prefix() -> None:
    from uncompile.expressions.stack_shuffles import _DYNAMO_GLOBAL_PREFIXES, is_dynamo_code

    def code_with_names(*names: str) -> types.CodeType:
        return compile("\n".join("%s()" % name for name in names), "<test>", "exec")

    assert is_dynamo_code(code_with_names("a", "b", "__import_torch_dot_nn", "c"))
    assert is_dynamo_code(code_with_names("a", "__resume_at_12_3"))
    assert not is_dynamo_code(code_with_names("a", "my__compiled_fn_1", "x__resume_at_2"))
    assert not is_dynamo_code(code_with_names())
    assert not is_dynamo_code("not code")
    # is_dynamo_code looks for "__" at a name's start before it looks for each prefix
    assert all(prefix.startswith("__") for prefix in _DYNAMO_GLOBAL_PREFIXES)
