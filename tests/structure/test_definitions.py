"""Definitions from nested code objects (``uncompile.structure.definitions``)."""

from __future__ import annotations

from types import CodeType

from uncompile.structure.definitions import is_private_name_stored_as
from uncompile.verification import verify_code

PRIVATE_DEFINITIONS = """\
class Outer:
    def __helper(self, x):
        return x + 1

    class __Inner:
        pass

    def run(self):
        return self.__helper(2), self.__Inner


class _Underscored:
    def __hidden(self):
        return 1
"""


def _class_bodies(source: str) -> list:
    module = compile(source, "<test>", "exec", dont_inherit=True)
    return [const for const in module.co_consts if isinstance(const, CodeType)]


def test_private_definitions_in_a_class_body_keep_their_own_names():
    bodies = _class_bodies(PRIVATE_DEFINITIONS)
    assert len(bodies) == 2
    for body in bodies:
        result = verify_code(body, qualname=body.co_name)
        assert result.identical, result
        assert result.source is not None and "def __h" in result.source
    source = verify_code(bodies[0], qualname="Outer").source
    assert source is not None and "class __Inner" in source


def test_mangled_store_names():
    assert is_private_name_stored_as("__helper", "_Outer__helper")
    assert is_private_name_stored_as("__helper", "_Underscored__helper")
    assert not is_private_name_stored_as("__helper", "__helper")
    assert not is_private_name_stored_as("__init__", "_Outer__init__")
    assert not is_private_name_stored_as("helper", "_Outer_helper")
    assert not is_private_name_stored_as("__helper", "other")


LAMBDAS = """\
ratio = lambda pair: pair[0] / pair[1] if pair[1] > 0 else 0
sign = lambda x: 1 if x > 0 else -1 if x < 0 else 0
"""


def test_lambdas_whose_body_is_a_ternary():
    module = compile(LAMBDAS, "<test>", "exec", dont_inherit=True)
    result = verify_code(module)
    assert result.identical, result
    assert result.source is not None and result.source.count("lambda") == 2
