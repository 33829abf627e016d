"""Loop graph queries (``uncompile.structure.loop_graph``): which blocks are loop headers and
which blocks their loops hold.

Every case must decompile and recompile to identical bytecode on every version.
"""

from __future__ import annotations

import pytest
from snippets import code_objects, round_trip

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


@pytest.mark.parametrize("module", ["argparse", "difflib", "tarfile", "json.decoder", "ast"])
def test_loop_candidates_hold_every_header(module: str) -> None:
    """The graph's loop candidates (blocks ending in ``FOR_ITER`` or reached by a jump from at or
    after them, recorded while it is built) hold every loop header: on real code, asking only
    them finds the same headers as asking every block."""
    import importlib

    from uncompile.structure.definitions import Nested
    from uncompile.structure.walker import Walker

    path = importlib.import_module(module).__file__
    with open(path, encoding="utf-8") as source:  # type: ignore[arg-type]
        top = compile(source.read(), path, "exec")  # type: ignore[arg-type]
    headers = 0
    for code in code_objects(top):
        walker = Walker(code, Nested(code))
        blocks = walker.blocks
        for block in blocks:
            asked = walker.instrs[block.end - 1].op == "FOR_ITER" or any(
                blocks[pred].offset >= block.offset and walker._back_edge(block.id, pred)
                for pred in block.preds
            )
            assert walker.is_loop_header(block.id) == asked, (code.co_name, block)
            headers += asked
    assert headers > 0
