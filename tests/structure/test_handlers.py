"""try/except/with structuring (``uncompile.structure.handlers``)."""

from __future__ import annotations

from uncompile.verification import verify_code

RETURN_FROM_CLAUSE_IN_LOOP = """\
def first_unreadable(paths, size):
    for path in paths:
        try:
            with open(path) as handle:
                while handle.read(size):
                    pass
        except OSError:
            return path
"""


def test_return_from_an_except_clause_inside_a_loop():
    namespace: dict = {}
    exec(compile(RETURN_FROM_CLAUSE_IN_LOOP, "<test>", "exec", dont_inherit=True), namespace)
    result = verify_code(namespace["first_unreadable"].__code__)
    assert result.identical, result
    assert result.source is not None and "        except OSError:\n            return path" in result.source
