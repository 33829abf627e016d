"""``with`` statements (3.11+ from exception-handler regions, 3.8 - 3.10 from the block stack):
each snippet comes back with the same bytecode, and a ``continue`` that leaves a with keeps the
code after it."""

from __future__ import annotations

import pytest

from uncompile.verification import verify_code

# a with ending an if's body may swallow an exception: where the code after it goes on tells
# whether the next statements are the if's else or follow the if
WITH_ENDS_IF_BODY = """
def with_else(self, first, second, pick):
    if pick:
        with first as handle:
            return handle.read()
    else:
        with second as handle:
            return handle.read()

def with_then_more(self, first, second, pick):
    if pick:
        with first as handle:
            return handle.read()
    with second as handle:
        return handle.read()
"""

# ``return <constant>`` under an if in a with: the exit call and the return come after the
# with's cover; the other side of the test is the with's own exit
CONSTANT_RETURN_IN_WITH = """
def f(lock, load, strict):
    with lock:
        value = load()
        if value is not None:
            return False
    if strict:
        return True
    return False
"""

# the with body ends in ``if c: continue``: the continue's exit call and jump back lie past the
# body, before the normal exit's (3.11+)
CONTINUE_ENDS_WITH_BODY = """
def f(items, lock, out):
    for item in items:
        with lock:
            out.append(item)
            if item:
                continue
    while items:
        item = items.pop()
        with lock as held:
            held.append(item)
            if item > 1:
                continue
    return out
"""

SNIPPETS = {
    "continue_ends_with_body": CONTINUE_ENDS_WITH_BODY,
    "constant_return_in_with": CONSTANT_RETURN_IN_WITH,
    "with_ends_if_body": WITH_ENDS_IF_BODY,
    # the with body returns: the code after it runs only where the exit swallows the exception
    "code_after_a_with_that_returns": """
class F(C):
    def n(self):
        with suppress(AttributeError):
            return self.x
        self.x = super(F, self).n()
        return self.x
""",
}


@pytest.mark.parametrize("name", sorted(SNIPPETS))
def test_recompiles_identically(name: str) -> None:
    result = verify_code(compile(SNIPPETS[name], "<test>", "exec", dont_inherit=True))
    assert result.identical, (str(result), result.source)


CONTINUE_IN_WITH_BEFORE_CODE_AFTER_IT = {
    "continue_first_in_the_with_body": """\
def f(items, lock, out):
    for item in items:
        with lock:
            if item:
                continue
            out.append(item)
        out.append(None)
""",
    "continue_last_in_the_with_body": """\
def f(items, lock, out):
    for item in items:
        with lock:
            out.append(item)
            if item:
                continue
        out.append(None)
    return out
""",
}


@pytest.mark.parametrize("name", sorted(CONTINUE_IN_WITH_BEFORE_CODE_AFTER_IT))
def test_continue_in_a_with_body_keeps_the_code_after_the_with(name):
    result = verify_code(
        compile(CONTINUE_IN_WITH_BEFORE_CODE_AFTER_IT[name], "<test>", "exec", dont_inherit=True)
    )
    assert result.identical, (str(result), result.source)
    assert result.source is not None
    assert "            continue\n" in result.source and "        out.append(None)\n" in result.source


# ``while True`` whose only jump back is a ``continue`` inside a with: the with, its end and the
# code after it that ends the function lie inside the loop; a ``break`` in the with goes past it
ENDLESS_LOOP_LEFT_BY_CONTINUE_IN_A_WITH = {
    "return_after_the_with": """\
def f(self):
    while True:
        with self.lock:
            if self.x:
                continue
            self.last = None
        self.call()
        return
""",
    "nothing_after_the_continue": """\
def f(self):
    while True:
        with self.lock:
            if self.x:
                continue
        return
""",
    "break_in_the_with_and_return_after_it": """\
def f(self):
    while True:
        with self.lock:
            if self.x:
                continue
            if self.z:
                break
            self.y = 1
        return 3
    self.call()
""",
    "break_in_the_with_and_no_jump_back": """\
def f(self):
    while True:
        with self.lock:
            if self.x:
                break
            self.y = 1
        self.call()
        return
""",
    "break_after_the_with": """\
def f(self):
    while True:
        with self.lock:
            if self.x:
                continue
            self.y = 1
        break
    self.call()
    return 5
""",
}


@pytest.mark.parametrize("name", sorted(ENDLESS_LOOP_LEFT_BY_CONTINUE_IN_A_WITH))
def test_endless_loop_left_by_a_continue_in_a_with(name: str) -> None:
    source = ENDLESS_LOOP_LEFT_BY_CONTINUE_IN_A_WITH[name]
    result = verify_code(compile(source, "<test>", "exec", dont_inherit=True))
    assert result.identical, (str(result), result.source)


# 3.12+: an inlined comprehension's cleanup (which puts its loop variable back) is laid out after
# the code that follows the with, still covered by the with's handler: no part of the with body
WITH_HOLDING_AN_INLINED_COMPREHENSION = """\
def f(m, xs, p, g, fm):
    with m:
        ys = [p(i) for i in xs]
        if fm:
            fm.r()
    g(ys)
    return 1
"""


def test_code_after_a_with_holding_a_comprehension_stays_after_it() -> None:
    result = verify_code(compile(WITH_HOLDING_AN_INLINED_COMPREHENSION, "<test>", "exec", dont_inherit=True))
    assert result.identical, (str(result), result.source)
    assert result.source is not None and "\n    g(ys)\n" in result.source
