"""Loop graph queries (``uncompile.structure.loop_graph``): which blocks are loop headers and
which blocks their loops hold.

Every case must decompile and recompile to identical bytecode on every version.
"""

from __future__ import annotations

import pytest
from snippets import round_trip

CASES = {
    # the body never reaches its end: 3.8 - 3.9 keep the loop's jump back, dead, after the raise
    "while_true_body_returns_or_raises": """
        def f(x):
            while 1:
                x = g(x)
                if x:
                    return x
                raise ValueError(x)
    """,
    "while_true_if_continue_elif_return_else_raise": """
        def f(x):
            while 1:
                x = g(x)
                if x > 1:
                    continue
                elif x:
                    return x
                else:
                    raise ValueError(x)
    """,
    "while_true_only_loop_in_else_branch": """
        def f(ready, x):
            if ready:
                h()
            else:
                while 1:
                    if x:
                        continue
                    elif g(x):
                        return 1
                    else:
                        raise ValueError(x)
    """,
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_round_trip(name: str) -> None:
    round_trip(CASES[name])
