"""``not a in b`` stays a ``not`` in 3.14+ conditions (``versions.FOLDS_NOT_INTO_COMPARISON``)."""

from __future__ import annotations

from uncompile.verification import verify_code

SOURCE = """\
def f(x, y):
    if not x in y:
        return 1
    if x not in y:
        return 2
    if not x is y:
        return 3
    while not x in y:
        x = x + 1
    return not x in y
"""


def test_negated_membership_and_identity_round_trip():
    namespace: dict = {}
    exec(compile(SOURCE, "<test>", "exec", dont_inherit=True), namespace)
    result = verify_code(namespace["f"].__code__)
    assert result.identical, result
