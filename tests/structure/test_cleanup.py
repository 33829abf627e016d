"""Final touches on decompiled bodies (``uncompile.structure.cleanup``)."""

from __future__ import annotations

import pytest

from uncompile.verification import verify_code

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
