"""Tests of uncompile.verification.recompile, with the original source standing in for decompiled source.

Compiled the recompiler's way, the source a function was defined with must give code
identical to the function's own, and swapping that code in must keep the function working:
closures, ``super()``, methods, generators, coroutines, lambdas, comprehensions, class
bodies, modules, and constants without a source form bound through placeholders.
"""

from __future__ import annotations

import asyncio
import inspect
import sys
import textwrap
import warnings
from types import CodeType, FunctionType
from typing import Any, Callable, List, Optional

import pytest

from uncompile.errors import RecompileError
from uncompile.expressions.placeholders import placeholder_name
from uncompile.verification.compare import compare_code, nested_code
from uncompile.verification.recompile import (
    code_kind,
    imported_module_names,
    qualname_of,
    recompile,
    scaffold_for,
)

BIG = 123456789


def source_of(function: Callable[..., Any]) -> str:
    return textwrap.dedent(inspect.getsource(function))


def qualname(function: Callable[..., Any]) -> str:
    return function.__qualname__


def swap(function: Callable[..., Any], source: Optional[str] = None) -> CodeType:
    """Recompile *function* from its source, check it is identical, and swap it in."""
    code = function.__code__
    new = recompile(code, source=source or source_of(function), qualname=qualname(function))
    assert compare_code(code, new) is None
    function.__code__ = new
    return new


def test_plain_function_keeps_name_file_and_first_line() -> None:
    def add(a, b=2, *rest, scale=1, **options):
        return (a + b + sum(rest)) * scale + len(options)

    original = add.__code__
    new = swap(add)
    assert add(1, 2, 3, scale=2, x=1) == 13
    assert (new.co_name, new.co_filename, new.co_firstlineno) == (
        original.co_name,
        original.co_filename,
        original.co_firstlineno,
    )
    if sys.version_info >= (3, 11):
        assert new.co_qualname == original.co_qualname


def test_closure_reading_and_writing_cells() -> None:
    def make_counter(start):
        count = start

        def step(by=1):
            nonlocal count
            count += by
            return count

        return step

    counter = make_counter(10)
    assert counter.__code__.co_freevars == ("count",)
    swap(counter)
    assert counter() == 11 and counter(5) == 16
    assert "def %s" % "make_counter" in scaffold_for(counter.__code__, qualname(counter))


class Base:
    def describe(self):
        return "base"


class Derived(Base):
    def describe(self):
        return "derived+" + super().describe()

    def __repr__(self):
        return "<%s>" % __class__.__name__


def test_super_and_class_cell_in_a_method() -> None:
    assert "__class__" in Derived.describe.__code__.co_freevars
    swap(Derived.describe)
    swap(Derived.__repr__)
    assert Derived().describe() == "derived+base"
    assert repr(Derived()) == "<Derived>"


def test_method_of_a_class_defined_in_a_function() -> None:
    scale = 3

    class Local(Base):
        def describe(self):
            return super().describe() * scale

    swap(Local.describe)
    assert Local().describe() == "base" * 3


def test_generator_and_coroutine() -> None:
    def numbers(limit):
        for number in range(limit):
            received = yield number
            if received:
                return received

    async def total(values):
        result = 0
        for value in values:
            await asyncio.sleep(0)
            result += value
        return result

    swap(numbers)
    swap(total)
    assert list(numbers(4)) == [0, 1, 2, 3]
    assert asyncio.run(total([1, 2, 3])) == 6


def test_lambda_with_a_free_variable() -> None:
    offset = 7
    shifted = lambda value: value + offset  # noqa: E731
    assert code_kind(shifted.__code__) == "lambda"
    swap(shifted, "lambda value: value + offset")
    assert shifted(1) == 8


def test_generator_expression_code() -> None:
    def squares(values, offset):
        return list(value * value + offset for value in values)  # noqa: C400 - the genexpr is the point

    genexpr = [const for const in nested_code(squares.__code__) if const.co_name == "<genexpr>"][0]
    assert code_kind(genexpr) == "comprehension"
    new = recompile(
        genexpr,
        source="(value * value + offset for value in _0_)",
        qualname=qualname(squares) + ".<locals>.<genexpr>",
    )
    assert compare_code(genexpr, new) is None


@pytest.mark.skipif(sys.version_info >= (3, 12), reason="3.12+ inline list, set and dict comprehensions")
@pytest.mark.parametrize(
    "comprehension", ["[x async for x in _0_]", "{x: y async for x in _0_}", "[await x for x in _0_]"]
)
@pytest.mark.parametrize("given_qualname", [True, False])
def test_async_comprehension_is_recompiled_in_an_async_function(
    comprehension: str, given_qualname: bool
) -> None:
    # an async comprehension compiles only in an async function: the scaffold's innermost one
    # (plain ``def`` from the qualified name) or one of its own when the name tells of none
    source = "async def outer(y):\n    return %s\n" % comprehension.replace("_0_", "y")
    outer = compile(source, "<test>", "exec", dont_inherit=True).co_consts[0]
    inner = [const for const in nested_code(outer) if const.co_name.startswith("<")][0]
    assert code_kind(inner) == "comprehension"
    name = "outer.<locals>." + inner.co_name if given_qualname else None
    assert scaffold_for(inner, name)[-1].startswith("async def ")
    new = recompile(inner, source=comprehension, qualname=name)
    assert compare_code(inner, new) is None


def test_async_generator_expression_needs_no_async_function() -> None:
    def outer(values):
        return (value async for value in values)

    genexpr = [const for const in nested_code(outer.__code__) if const.co_name == "<genexpr>"][0]
    assert not any(
        scope.startswith("async") for scope in scaffold_for(genexpr, qualname(outer) + ".<locals>.<genexpr>")
    )
    new = recompile(
        genexpr, source="(value async for value in _0_)", qualname=qualname(outer) + ".<locals>.<genexpr>"
    )
    assert compare_code(genexpr, new) is None


def test_class_body_and_module() -> None:
    source = (
        "class Point:\n    dimensions = 2\n\n    def norm(self):\n        return abs(self.x) + abs(self.y)\n"
    )
    module = compile(source, "<points>", "exec")
    body = nested_code(module)[0]
    assert code_kind(body) == "class" and code_kind(module) == "module"
    assert compare_code(body, recompile(body, source=source)) is None
    assert compare_code(module, recompile(module, source=source)) is None


def test_future_flags_are_kept() -> None:
    definition = "def f(a: Undefined) -> Missing:\n    def g(b: Nope): pass\n    return g\n"
    function = nested_code(compile("from __future__ import annotations\n" + definition, "<future>", "exec"))[
        0
    ]
    new = recompile(function, source=definition)
    assert compare_code(function, new) is None


def test_calls_on_module_level_imports_compile_the_same() -> None:
    source = "import collections\n\ndef f(self):\n"
    source += "    self.queue = collections.deque()\n    return self.queue.copy()\n"
    function = nested_code(compile(source, "<imports>", "exec"))[0]
    if sys.version_info >= (3, 11):
        assert imported_module_names(function) == {"collections"}
    new = recompile(function, source=source.split("\n\n", 1)[1])
    assert compare_code(function, new) is None


def with_constant(function: Callable[..., Any], literal: Any, value: Any) -> CodeType:
    """*function*'s code with the constant *literal* replaced by *value* (as Dynamo would put it)."""
    code = function.__code__
    consts = [
        value if type(const) is type(literal) and const == literal else const for const in code.co_consts
    ]
    assert consts != list(code.co_consts)
    return code.replace(co_consts=tuple(consts))


def test_placeholder_bound_back_to_a_non_literal_constant() -> None:
    def get():
        return BIG

    def build(x):
        return [123456789, x]

    marker = object()
    original = with_constant(build, BIG, marker)
    index = original.co_consts.index(marker)
    source = "def build(x):\n    return [%s, x]\n" % placeholder_name(marker, index)
    new = recompile(original, source=source)
    assert compare_code(original, new) is None
    build.__code__ = new
    assert build(1)[0] is marker


def test_placeholder_called_and_in_nested_code() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SyntaxWarning)
        code = compile(
            "def outer(x):\n    def inner(y):\n        return 123456789(y)\n    return inner(x)\n",
            "<t>",
            "exec",
        )
    outer = nested_code(code)[0]
    inner = nested_code(outer)[0]
    inner_with_len = inner.replace(
        co_consts=tuple(len if const == BIG else const for const in inner.co_consts)
    )
    outer = outer.replace(
        co_consts=tuple(inner_with_len if const is inner else const for const in outer.co_consts)
    )
    name = placeholder_name(len, inner_with_len.co_consts.index(len))
    source = "def outer(x):\n    def inner(y):\n        return %s(y)\n    return inner(x)\n" % name
    new = recompile(outer, source=source)
    assert compare_code(outer, new) is None
    namespace: dict = {}
    exec(compile("def outer(x): pass", "<t>", "exec"), namespace)
    namespace["outer"].__code__ = new
    assert namespace["outer"]("abcd") == 4


def test_placeholder_at_module_level() -> None:
    code = compile("value = 123456789\n", "<m>", "exec")
    marker = object()
    code = code.replace(co_consts=tuple(marker if const == BIG else const for const in code.co_consts))
    new = recompile(code, source="value = %s\n" % placeholder_name(marker, code.co_consts.index(marker)))
    namespace: dict = {}
    exec(new, namespace)
    assert namespace["value"] is marker


def test_placeholder_with_many_constants() -> None:
    body = "".join("    v%d = %d\n" % (number, 1000 + number) for number in range(300))
    code = nested_code(compile("def f():\n%s    return 123456789\n" % body, "<many>", "exec"))[0]
    marker = object()
    code = code.replace(co_consts=tuple(marker if const == BIG else const for const in code.co_consts))
    source = "def f():\n%s    return %s\n" % (body, placeholder_name(marker, code.co_consts.index(marker)))
    try:
        new = recompile(code, source=source)
    except RecompileError as error:  # 3.8-3.10: no room for EXTENDED_ARG; must say so clearly
        assert sys.version_info < (3, 11) and "no room" in str(error)
        return
    assert compare_code(code, new) is None


def test_unknown_placeholder_is_a_clear_error() -> None:
    def f():
        return 1

    with pytest.raises(RecompileError, match="placeholder"):
        recompile(f.__code__, source="def f():\n    return __uc_Tensor_99\n")


def test_source_that_does_not_compile_names_the_line() -> None:
    def f():
        return 1

    with pytest.raises(RecompileError) as caught:
        recompile(f.__code__, source="def f():\n    return 1 +\n")
    assert "return 1 +" in str(caught.value) and "f" in str(caught.value)
    with pytest.raises(RecompileError):
        recompile(f.__code__, source="def g():\n    return 1\n")


def test_filename_keeps_the_lines_of_the_given_source() -> None:
    def f(a):
        return a * 2

    source = "# header\n\n" + source_of(f)
    new = recompile(f.__code__, source=source, filename="dump/f.py")
    assert new.co_filename == "dump/f.py" and new.co_firstlineno == 3
    lines: List[int] = [line for _, _, line in new.co_lines() if line] if hasattr(new, "co_lines") else [4]
    assert 4 in lines


def test_qualified_name_is_read_off_the_code_on_old_versions() -> None:
    class Holder:
        def method(self):
            def helper():
                return 1

            return helper

    code = Holder.method.__code__
    source = textwrap.dedent(inspect.getsource(Holder.method))
    assert qualname_of(code) == Holder.method.__qualname__
    assert compare_code(code, recompile(code, source=source)) is None


def test_private_names_are_not_mangled_when_the_original_did_not() -> None:
    # Dynamo builds resume functions of methods with arguments like __nested_resume_fns.
    source = "def resume(__nested_frame_values, x):\n"
    source += "    return super().__repr__() if x else __nested_frame_values\n"
    namespace: dict = {}
    exec(compile("class Model:\n    " + source.replace("\n    ", "\n        "), "<t>", "exec"), namespace)
    mangled = namespace["Model"].resume.__code__
    assert mangled.co_varnames[0] == "_Model__nested_frame_values"
    unmangled = mangled.replace(co_varnames=("__nested_frame_values",) + mangled.co_varnames[1:])
    if sys.version_info >= (3, 11):
        unmangled = unmangled.replace(co_qualname="Model.resume")
    new = recompile(unmangled, source=source, qualname="Model.resume")
    assert compare_code(unmangled, new) is None
    assert (
        compare_code(
            mangled,
            recompile(mangled, source=source.replace("__nested", "_Model__nested"), qualname="Model.resume"),
        )
        is None
    )


class Holder:
    def method(self, x):
        return [123456789, x]


def test_placeholder_in_a_method_survives_name_mangling() -> None:
    marker = object()
    original = with_constant(Holder.method, BIG, marker)
    name = placeholder_name(marker, original.co_consts.index(marker))
    source = "def method(self, x):\n    return [%s, x]\n" % name
    new = recompile(original, source=source, qualname="Holder.method")
    assert compare_code(original, new) is None
    assert FunctionType(new, {})(None, 1)[0] is marker
