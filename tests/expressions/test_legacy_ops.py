"""3.8's ``BUILD_*_UNPACK`` (``uncompile.expressions.legacy_ops``): which operands are runs of
plain items and which were unpacked displays. The snippets round-trip on every version."""

from __future__ import annotations

import pytest
from snippets import round_trip

UNPACKED_DISPLAYS = {
    "empty_dict_then_key": "def f():\n    return {**{}, 'a': 1}\n",
    "dict_display_then_key": "def f(rest):\n    return {**{'a': 1}, 'b': 2, **rest}\n",
    "only_a_dict_display": "def f():\n    return {**{'a': 1}}, {**{}}\n",
    "keys_around_unpacked": "def f(rest):\n    return {'a': 1, **rest, 'b': 2}\n",
    "empty_list_then_item": "def f():\n    return [*[], 1]\n",
    "list_display_then_item": "def f(rest):\n    return [*rest, *[1], 2]\n",
    "set_display_then_item": "def f(rest):\n    return {*rest, *{1}, 2}\n",
    "nested_unpacking": "def f(a, b):\n    return [*a, *(*b, 1)], {**a, **{**b, 'x': 1}, 'y': 2}\n",
    "call_with_empty_tuple": "def f(g, rest):\n    return g(*(), 1, *rest)\n",
    "call_with_dict_display": "def f(g):\n    return g(**{'a': 1}, b=2)\n",
    "call_mixing_items": "def f(g, a, b, d):\n    return g(*a, 1, *b, k=1, **d)\n",
}


@pytest.mark.parametrize("name", sorted(UNPACKED_DISPLAYS))
def test_unpacked_displays(name: str) -> None:
    round_trip(UNPACKED_DISPLAYS[name])
