"""Loop layout rules of 3.8 - 3.10 (``uncompile.structure.loops_legacy``).

Every case must decompile and recompile to identical bytecode on every version.
"""

from __future__ import annotations

import pytest
from snippets import round_trip

CASES = {
    # 3.8 - 3.9 keep the statements after a loop that never ends, unreachable
    "statements_after_endless_loop": """
        def f(read, g, caps):
            while 1:
                key = read()
                if not key:
                    continue
                g(key)
            return caps
    """,
    # a continue ending the body keeps the loop's own jump back after it, dead
    "continue_ending_body": """
        def f(read, g):
            for key in read():
                g(key)
                continue
    """,
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_round_trip(name: str) -> None:
    round_trip(CASES[name])
