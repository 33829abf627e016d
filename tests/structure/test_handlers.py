"""Try statements: except clauses laid out after the loop they belong to."""

import copy

import pytest

from uncompile.decompiler import decompile_code
from uncompile.verification import verify_code


def raise_in_clause_of_while(rest, table, out, step):
    while rest:
        head = rest[0]
        if head == "$":
            out.append("$")
            rest = rest[step + 1 :]
        elif head == "{":
            try:
                value = table[rest]
            except KeyError:
                raise ValueError(rest) from None
            out.append(value)
            rest = rest[step:]
        else:
            raise ValueError(head)
    return out


CASES = [raise_in_clause_of_while]
INPUTS = {
    raise_in_clause_of_while: [
        ("$$", {}, [], 1),
        ("{a", {}, [], 1),
        ("{", {"{": 1}, [], 1),
        ("x", {}, [], 1),
    ],
}


def _call(function, args):
    try:
        return function(*args)
    except ValueError as error:
        return ("raised", str(error))


@pytest.mark.parametrize("function", CASES, ids=lambda f: f.__name__)
def test_recompiles_identically(function):
    result = verify_code(function.__code__)
    assert result.identical, (result.difference, result.error, result.source)


@pytest.mark.parametrize("function", CASES, ids=lambda f: f.__name__)
def test_behaves_the_same(function):
    namespace: dict = {}
    exec(decompile_code(function.__code__), namespace)
    for args in INPUTS[function]:  # each call gets its own copy of the (mutable) arguments
        expected = _call(function, copy.deepcopy(args))
        assert _call(namespace[function.__name__], copy.deepcopy(args)) == expected
