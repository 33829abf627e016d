"""Behaviour: f-strings with conversions, format specs, nesting and the ``=`` specifier.

PYTEST_DONT_REWRITE: pytest must not rewrite the asserts of these cases (their bytecode is the input).
"""

from __future__ import annotations

import pytest

from uncompile.verification.behaviour import Cases

cases = Cases()


@cases(
    ("world", 3.14159),
)
def conversions_and_specs(name, number):
    return f"{name}", f"{name!r}", f"{name!s:>10}", f"{number:.2f}", f"{number:{8}.{3}}", f"{name!a}"


@cases(
    (42,),
)
def nested_and_debug(value):
    width = 6
    return f"{value=}", f"{value:>{width}}", f"{'x' + str(value)}", f"{value:{'>' if value else '<'}{width}}"


@cases(
    ("a", "b"),
)
def mixed_text(a, b):
    return f"start {a} middle {b!r} end", f"{{literal}} {a}{b}", "" + f"{a}"


cases.from_source(
    (3, 12),
    "def quotes_reused(items):\n    return f\"{', '.join(f'{item}' for item in items)}\"\n",
    "quotes_reused",
    (["x", "y"],),
)
cases.from_source(
    (3, 14),
    "def template(name):\n    t = t'hello {name}!'\n    return t.strings, t.values\n",
    "template",
    ("you",),
)


@pytest.mark.parametrize("name,function,calls", cases.items, ids=cases.ids())
def test_fstring(name, function, calls, behaves_the_same):
    behaves_the_same(function, calls)
