"""The readability check: a decompiled function's body printed against its original's."""

from __future__ import annotations

import ast

from uncompile.verification.same_source import compare_function, find_function

SOURCE = '''
def plain(a, b=1):
    """Kept docstring."""
    if a:
        x = b
    elif b:
        x = a
    return x


def decorated(x):  # comments and layout do not count
    return (x +
            1)
'''

DECORATED = "@staticmethod\n" + SOURCE.split("\n\n\n")[1]


def _units(source: str):
    module = compile(source, "<test>", "exec")
    tree = ast.parse(source)
    return tree, [const for const in module.co_consts if hasattr(const, "co_code")]


def test_same_function_has_no_difference():
    tree, codes = _units(SOURCE)
    assert [compare_function(tree, code) for code in codes] == [[], []]


def test_decorated_function_is_found_by_its_first_line():
    tree, codes = _units(DECORATED)
    assert find_function(tree, codes[0]) is tree.body[0]


def test_different_text_gives_a_diff():
    tree, codes = _units(SOURCE)
    other = ast.parse(SOURCE.replace("return x", "result = x\n    return result"))
    diff = compare_function(other, codes[0], "plain")
    assert diff and "-result = x" in diff and "+return x" in diff


def test_lambda_has_no_def():
    tree, codes = _units("f = lambda: 1\n")
    assert compare_function(tree, codes[0]) is None


INDENTED_DOCSTRING = '''
class Holder:
    def method(self):
        """First line.

        Indented lines, which 3.13+ compilers store without their indentation.
        """
        return self
'''


def test_docstring_is_compared_as_the_code_holds_it():
    tree = ast.parse(INDENTED_DOCSTRING)
    holder = next(c for c in compile(INDENTED_DOCSTRING, "<test>", "exec").co_consts if hasattr(c, "co_code"))
    method = next(c for c in holder.co_consts if hasattr(c, "co_code"))
    assert compare_function(tree, method) == []
