"""Implicit statements taken out again (``uncompile.structure.cleanup``).

Every case must decompile and recompile to identical bytecode.
"""

from __future__ import annotations

import pytest
from snippets import round_trip

from uncompile.verification import verify_code

CASES = {
    # 3.10+: the implicit ``return None`` is copied to the try body's exit, after the finally copy
    "return_none_after_try_finally": """
        def f(self, make):
            try:
                with make() as sel:
                    while not self.done:
                        sel.select()
            finally:
                self.done = False
    """,
    # one walk tidies every nested statement list: ``assert False`` in a handler inside a loop,
    # a loop inside a loop
    "tidied_at_every_depth": """
        def f(items, log):
            for item in items:
                try:
                    log(item)
                except KeyError:
                    assert False, item
                while item:
                    item = log(item)
    """,
    # 3.8 - 3.9: the function's own return None after the last statement stays behind, dead:
    # the returns after the if (try) were its else
    "else_of_if_with_loop_ending_function": """
        def f(s, table):
            if s[0] == "#":
                return chr(len(s))
            else:
                for x in range(len(s) - 1, 1, -1):
                    if s[:x] in table:
                        return table[s[:x]]
                return "&" + s
    """,
    "else_of_try_ending_function": """
        def f(self, key):
            try:
                self[key]
            except KeyError:
                return False
            else:
                return True
    """,
    # a generator whose only yield is dead code, which the compiler drops
    "generator_with_dead_yield_only": """
        def f(self):
            while False:
                yield None
    """,
    "async_generator_with_dead_yield_only": """
        async def f(x):
            await x
            if False:
                yield
    """,
    # 3.8 loads the AssertionError an ``if`` raises as an assert would; unpacked arguments are
    # no assert's message
    "raise_assertion_error_with_unpacked_arguments": """
        def f(cond, *args):
            if not cond:
                raise AssertionError(*args)
    """,
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_round_trip(name: str) -> None:
    round_trip(CASES[name])


ASSERTS = """\
def unknown_status(status, node):
    if status == 1:
        raise ValueError(node)
    elif status == 2:
        return node
    else:
        assert False, f"node {node!r}: unknown status {status}"


def unreachable():
    assert False, "never"


def no_message(flag):
    if flag:
        return 1
    assert False
"""


@pytest.mark.parametrize("name", ["unknown_status", "unreachable", "no_message"])
def test_assert_false_comes_back(name):
    namespace: dict = {}
    exec(compile(ASSERTS, "<test>", "exec", dont_inherit=True), namespace)
    result = verify_code(namespace[name].__code__)
    assert result.identical, result
    assert result.source is not None and "assert False" in result.source


EXPLICIT_MODULE = """\
class Error(Exception):
    '''Raised by the parser.'''

    __module__ = 'parser'

    def __init__(self, message):
        self.message = message
"""


def test_an_explicit_module_name_in_a_class_body_is_kept():
    module = compile(EXPLICIT_MODULE, "<test>", "exec", dont_inherit=True)
    body = next(const for const in module.co_consts if hasattr(const, "co_code"))
    result = verify_code(body, qualname="Error")
    assert result.identical, result
    assert result.source is not None and "__module__ = 'parser'" in result.source


MODULE_STORES_CLASS_NAMES = """\
__qualname__ = 'name'
__classcell__ = None
__module__ = __name__
"""


def test_a_module_keeps_stores_of_class_bookkeeping_names():
    """Only a class body has bookkeeping (a module's body is not scanned for it)."""
    module = compile(MODULE_STORES_CLASS_NAMES, "<test>", "exec", dont_inherit=True)
    result = verify_code(module)
    assert result.identical, result
    assert result.source is not None
    for line in MODULE_STORES_CLASS_NAMES.splitlines():
        assert line in result.source


ASYNC_GENERATORS = {
    "return_in_body": """
        async def f(items):
            if not items:
                return
            for item in items:
                yield item
    """,
    # 3.9: the function's final ``return`` is written after the async with
    "yield_in_try_in_async_with": """
        async def f(value, manager):
            async with manager:
                try:
                    yield value
                finally:
                    await manager.close()
    """,
    "return_in_loop": """
        async def f(items):
            for item in items:
                if item is None:
                    return
                yield item
    """,
}


@pytest.mark.parametrize("name", sorted(ASYNC_GENERATORS))
def test_async_generator_returns_no_value(name: str) -> None:
    result = round_trip(ASYNC_GENERATORS[name])
    assert result.source is not None and "return None" not in result.source


#: ``return None`` and a bare ``return`` compile alike: a function that never returns another value
#: is printed with bare ones, one that does with ``return None`` (PEP 8's consistency rule)
RETURNS = {
    "bare_in_procedure": (
        """
        def f(items, out):
            for item in items:
                if item is None:
                    return
                out.append(item)
            if not out:
                return
            out.sort()
        """,
        ["return", "return"],
    ),
    "none_beside_values": (
        """
        def f(items):
            if not items:
                return None
            while items:
                if items[-1]:
                    return items.pop()
                items.pop()
            return len(items)
        """,
        ["return None", "return items.pop()", "return len(items)"],
    ),
    "value_only_in_an_else_branch": (
        """
        def f(items, key):
            if key:
                items.sort()
            elif items:
                return None
            else:
                return len(key)
            items.clear()
        """,
        ["return None", "return len(key)"],
    ),
    "nested_function_returns_apart": (
        """
        def f(items):
            def first():
                return items[0]
            if not items:
                return
            return first
        """,
        ["return items[0]", "return None", "return first"],
    ),
}


@pytest.mark.parametrize("name", sorted(RETURNS))
def test_return_none_is_bare_only_where_nothing_else_is_returned(name: str) -> None:
    snippet, expected = RETURNS[name]
    result = round_trip(snippet)
    written = [line.strip() for line in result.source.splitlines() if line.strip().startswith("return")]
    assert written == expected, result.source


BODIES_WITHOUT_RETURN = {
    "module_if_else": """\
import os
if os.sep:
    first = 1
elif os.name:
    if os.curdir:
        second = 2
    else:
        third = 3
else:
    fourth = 4
""",
    "module_try_with": """\
if __name__:
    try:
        import os
    except ImportError:
        os = None
else:
    with open(__file__) as handle:
        text = handle.read()
""",
    "module_loops_with_break": """\
import sys
for name in sys.argv:
    if name:
        break
    print(name)
if sys.argv:
    while sys.path:
        if sys.path.pop():
            break
        print(sys.path)
""",
    "module_try_then_short_rest": """\
try:
    from os import sep
except ImportError:
    sep = "/"
names = ("a", "b")
""",
    # the clause ends in a copy of the final return: the rest is the try's else (3.12+)
    "module_try_else": """\
try:
    from os import sep
except ImportError:
    pass
else:
    print(sep.join("ab"))
""",
    "module_try_else_in_clause": """\
try:
    import os
    os.sep, os.curdir
except (ImportError, AttributeError):
    try:
        import posixpath
    except ImportError:
        kind = None
    else:
        kind = posixpath.sep
else:
    kind = os.sep
""",
    "class_if_else_after_other_statements": """\
class C:
    names = []
    for name in __name__:
        names.append(name)
    def helper(self):
        return self.names
    if __name__:
        def first(self):
            return super().first()
    else:
        def second(self):
            return 2
""",
    "class_if_else": """\
class C:
    if __name__:
        def first(self):
            return super().first()
    else:
        def second(self):
            return 2
""",
}


@pytest.mark.parametrize("name", sorted(BODIES_WITHOUT_RETURN))
def test_final_return_copied_into_branches_of_a_module_or_class(name: str) -> None:
    """A module or class body has no ``return``: the copies of its final one end the branches of
    an if/else (or a try inside one), and what follows the if is its else; in a loop ending the
    body, one is a ``break``; a short rest copied into a try's normal exit (3.12+) is the rest."""
    code = compile(BODIES_WITHOUT_RETURN[name], "<snippet>", "exec", dont_inherit=True)
    result = verify_code(code)
    assert result.identical, "%s\n%s" % (result.difference or result.error, result.source)


#: 3.10+ copy a function's final ``return None`` to the end of an ``if`` body that reaches it;
#: the copy has the line of the code before it, so the statements after the ``if`` were its else
ELSE_AFTER_COPIED_RETURN = {
    "nested_if_ends_the_body": """
        def f(a, b, out):
            if a:
                out.append(1)
                if b:
                    out.append(2)
            else:
                out.append(3)
    """,
    "try_else_after_clause": """
        def f(a, out):
            try:
                out.append(a)
            except KeyError:
                out.append(1)
            else:
                out.append(2)
    """,
    "elif_after_nested_if": """
        def f(a, b, c, out):
            out.clear()
            if a:
                if b:
                    out.append(2)
            elif c:
                out.append(3)
            else:
                out.append(4)
    """,
}


@pytest.mark.parametrize("name", sorted(ELSE_AFTER_COPIED_RETURN))
def test_statements_after_an_if_ending_in_a_copied_return_are_its_else(name: str) -> None:
    result = round_trip(ELSE_AFTER_COPIED_RETURN[name])
    assert "return" not in result.source and "else:" in result.source, result.source


def test_a_written_return_ends_the_if_body() -> None:
    # the return has a line of its own: it stays, and what follows the if stays after it
    result = round_trip(
        """
        def f(a, b, out):
            if a:
                if b:
                    out.append(2)
                return
            out.append(3)
        """
    )
    assert "return" in result.source and "else:" not in result.source, result.source


@pytest.mark.parametrize("docstring", ["", '"""The module."""\n'])
def test_a_module_global_declaration_follows_its_future_imports(docstring: str) -> None:
    # a function's ``global x`` makes the module's own stores of x STORE_GLOBAL: the module gets
    # the declaration back, after the docstring and the future imports, which must come first
    source = docstring + (
        "from __future__ import annotations\nfrom __future__ import division\n"
        "x = 1\n\n\ndef f():\n    global x\n    return 1\n"
    )
    result = verify_code(compile(source, "<test>", "exec", dont_inherit=True))
    assert result.identical, result
    lines = result.source.splitlines()
    assert lines[len(docstring.splitlines()) : len(docstring.splitlines()) + 3] == [
        "from __future__ import annotations",
        "from __future__ import division",
        "global x",
    ], result.source
