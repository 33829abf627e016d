"""Branch layout rules of 3.8 - 3.10 (``uncompile.structure.layout_legacy``).

Every case must decompile and recompile to identical bytecode on 3.8 - 3.10, where the
layout rules apply. The sources are plain Python, so they run on every version; on 3.11+
a case that does not round-trip yet is an expected failure.
"""

from __future__ import annotations

import sys

import pytest
from snippets import define, stdlib_code_objects, with_known_failures

from uncompile import decompile as decompile_source
from uncompile.verification import verify_code

CASES = {
    # the branches of an if/elif chain in a loop meet after it, or at the header (continue)
    "elif_continue_then_shared_tail": """
        def f(items):
            for o in items:
                if o == 1:
                    a = 1
                elif o == 2:
                    a = 2
                    continue
                g(a)
    """,
    "elif_continue_else_raise_then_shared_tail": """
        def f(items):
            for o in items:
                if o == 1:
                    a = 1
                elif o == 2:
                    a = 2
                    continue
                else:
                    raise ValueError(o)
                g(a)
    """,
    "break_elif_continue_elif_else_raise": """
        def f(items):
            for x in items:
                if not x:
                    break
                elif x == 1:
                    g()
                    continue
                elif x == 2:
                    h()
                else:
                    raise ValueError(x)
                k()
    """,
    # 3.10: ``continue`` jumps to the top of ``while 1``, the end of the body past it
    "while_true_elif_continue_then_shared_tail": """
        def f(x):
            while 1:
                if x == 1:
                    g()
                    continue
                elif x == 2:
                    h()
                else:
                    raise ValueError(x)
                k()
    """,
    # 3.10 copies the small return after the loop into the ``break``
    "for_break_to_copied_return": """
        def f(tests, result):
            for index, test in enumerate(tests):
                if result.stop:
                    break
                test(result)
            return result
    """,
    # the dead jump after ``raise`` shows the elif
    "raise_elif_raise": """
        def f(x):
            if x == '':
                raise ValueError(x)
            elif g(x):
                raise KeyError(x)
    """,
    # the dead jump after ``break`` belongs to the inner if/elif, not to an else of the first if
    "raise_then_break_elif_continue": """
        def f(s, end):
            while 1:
                chunk = m(s, end)
                if chunk is None:
                    raise ValueError(s)
                end = chunk.end()
                if end == '"':
                    break
                elif end != '\\\\':
                    if s:
                        raise ValueError(s)
                    else:
                        g(end)
                        continue
                try:
                    esc = s[end]
                except IndexError:
                    raise ValueError(s) from None
                g(esc)
            return end
    """,
    # 3.8 - 3.9 send the dead jump past the else to the loop's header
    "raise_else_try_ending_loop_body": """
        def f(handlers):
            for name in handlers:
                if name not in known:
                    raise ValueError(name)
                else:
                    try:
                        h()
                    except Exception as e:
                        raise ValueError(name) from e
            k()
    """,
    # 3.10: the break after the if is a line-numbered NOP the test jumps straight to
    "if_continue_then_break_ending_while_body": """
        def f(items, n):
            while n > 0:
                m = n - 1
                if items[m] < n:
                    items[n] = m
                    n = m
                    continue
                break
            items[0] = n
    """,
    # the break is a lone jump the last test falls into; the while's test leaves to its else
    "break_block_past_while_else": """
        def f(items, out):
            for x in items:
                while x:
                    x -= 1
                    if x == 3:
                        break
                else:
                    out.append(0)
                    continue
                out.append(x)
    """,
    # the same break in a while True loop whose clause breaks too: the loop's exit is one
    "lone_break_and_clause_break": """
        def f(items, out):
            while True:
                if not items:
                    break
                try:
                    out.append(items.pop())
                except IndexError:
                    break
                g(out)
            return out
    """,
    # 3.10: a break out of a while whose exit is a return becomes a copy of it after the code
    # that leaves the blocks it is in (a return written there computes its value first)
    "copied_break_in_named_clause": """
        def f(args):
            while args:
                try:
                    fp = open(args.pop())
                except OSError as e:
                    if e:
                        break
                    print(e)
                print(fp)
            return args
    """,
    "copied_break_in_with": """
        def f(args, lock):
            while args:
                with lock:
                    if args[0]:
                        break
                    args.pop()
            return args
    """,
    "copied_break_in_try_finally": """
        def f(args):
            while args:
                try:
                    if args[0]:
                        break
                    args.pop()
                finally:
                    print(1)
            return args
    """,
    "copied_break_in_try_body": """
        def f(args):
            while args:
                try:
                    if args[0]:
                        print(3)
                        break
                    args.pop()
                except ValueError:
                    print(2)
            return args
    """,
    # the branches meet only at the loop's header: the body continues through the finally
    # (its copy's test jumps to the header), the test jumps to the rest of the try body
    "continue_through_finally_with_if": """
        def f(items):
            for x in items:
                try:
                    if a(x):
                        continue
                finally:
                    if c:
                        b()
    """,
    "continue_through_finally_then_more": """
        def f(items):
            for x in items:
                try:
                    if a(x):
                        continue
                    g(x)
                finally:
                    b()
    """,
    # 3.8 - 3.9 keep the loop's own jump back, dead, after a continue that ends its body
    "continue_after_if_else_ending_elif": """
        def f(ops, names):
            for i, op in enumerate(ops):
                if op in names:
                    yield op
                    continue
                if op > 2 and i:
                    if op == 3:
                        yield i
                    else:
                        yield op, i
                    continue
    """,
    "continue_ending_if_body_in_while": """
        def f(items, n):
            while n:
                n -= 1
                if items[n]:
                    g(n)
                    continue
    """,
    # 3.8 - 3.9 send the first test's jump to the continue on to the header; the continue
    # stays a block of its own after the last test
    "or_test_then_continue": """
        def f(lines, path):
            for line in lines:
                if not line or line.startswith("#"):
                    continue
                path.append(line)
            return path
    """,
    # the test's jump past the else ending the loop body goes straight to the header, dead
    "if_continue_elif_return_else_raise_ending_for": """
        def f(items):
            for x in items:
                if x > 1:
                    continue
                elif x:
                    return x
                else:
                    raise ValueError(x)
    """,
    # the dead jump back of a loop in the else is no jump past that else
    "return_then_loop_ending_in_raise": """
        def f(mode, x):
            if mode:
                return x
            while 1:
                if x:
                    return 1
                raise ValueError(x)
    """,
    # 3.8 - 3.9: the jump past the else after a break, sent on to the header, stays behind dead
    "elif_break_then_else_ending_while_body": """
        def f(i, n, c):
            while i < n:
                if c:
                    i = i + 1
                elif i:
                    partial = 1
                    break
                else:
                    i = i + 3
            return partial
    """,
    # the test jumps straight to the header past the else's continue, which stays behind dead
    "break_else_continue_ending_elif_chain": """
        def f(self, nextchar):
            while True:
                if self.state is None:
                    break
                elif self.state == " ":
                    if not nextchar:
                        break
                    elif nextchar in self.whitespace:
                        if self.token:
                            break
                        else:
                            continue
                    elif nextchar in self.commenters:
                        self.lineno += 1
                elif self.state in self.quotes:
                    self.x = 1
            return 1
    """,
    # the first test's jump to the header goes past the continue, a block of its own
    "continue_unless_both_then_rest": """
        def f(read, g):
            while 1:
                key, fields = read()
                if not (key and fields):
                    continue
                g(key, fields)
    """,
    # the test of the first inner loop jumps to its exit: the dead break of the second inner loop
    # ends no else
    "inner_loops_ending_in_dead_breaks": """
        def f(self):
            while True:
                g()
                while True:
                    line = self.readline()
                    if line is None:
                        yield None
                        continue
                    break
                while True:
                    line = self.readline()
                    if line is None:
                        yield None
                        continue
                    break
                if line == "":
                    break
                self.unreadline(line)
    """,
    # 3.10 drops the body's jump past the else after a try ending the body (its clauses jump past
    # the else themselves), and its body returns: no block post-dominates the test, and the
    # branches meet where the clause that goes on and the else go (the code after the if was
    # written into both branches)
    "body_ends_in_try_whose_last_clause_returns": """
        def f(a, b, g, h):
            if a:
                try:
                    g(a)
                    return 1
                except ValueError:
                    pass
                except KeyError:
                    return 5
            elif b:
                h(b)
            g(b)
            return 3
    """,
    "body_ends_in_try_in_loop_elif_continues": """
        def f(a, b, g, h):
            for x in a:
                if x:
                    try:
                        g(x)
                        return 1
                    except ValueError:
                        pass
                elif b:
                    h(b)
                    continue
                g(b)
            return 3
    """,
    "branches_end_in_tries_in_loop": """
        def f(a, b, g, h):
            for x in a:
                if x:
                    try:
                        g(x)
                        return 1
                    except ValueError:
                        pass
                elif b:
                    try:
                        h(b)
                        return 2
                    except ValueError:
                        pass
                g(b)
            return 3
    """,
}


#: Cases that do not round-trip yet: the first version where they fail, and why.
NOT_YET = {
    "break_else_continue_ending_elif_chain": (
        (3, 14),
        "the break out of the elif chain, laid out as the loop's exit (a copy of the return)",
    ),
    "continue_after_if_else_ending_elif": (
        (3, 10),
        "the continue after the inner if/else, which its body's jump reaches (3.10: not sent on to "
        "the header), is taken for the loop's own end",
    ),
}


@pytest.mark.parametrize("name", with_known_failures(CASES, NOT_YET))
def test_round_trip(name: str) -> None:
    code = define(CASES[name]).__code__
    result = verify_code(code, qualname="f")
    assert result.identical, "%s\n%s" % (result.difference or result.error, result.source)


def test_if_whose_body_ends_in_try_that_continues_meets_after_it():
    # the try body continues, the clause goes on past the else: the branches meet only at the
    # loop's header, yet the if ends where the clause and the else go on (3.10: the code after
    # the if was written into both branches)
    source = decompile_source(
        define(
            """
            def f(a, b, g, h):
                for x in a:
                    if x:
                        try:
                            g(a)
                            continue
                        except ValueError:
                            pass
                    elif b:
                        h(b)
                    g(b)
                return 3
            """
        )
    )
    assert source.count("g(b)") == 1, source


# ``b``'s false exit goes to the ``break`` (a block that only jumps), ``a``'s straight to the exit
EXITS_THROUGH_A_LONE_JUMP = """
    def f(items, out):
        while items:
            item = items.pop()
            if item.a or not item.b:
                break
            out.append(item)
        return out
"""


@pytest.mark.skipif(not (3, 8) <= sys.version_info[:2] < (3, 11), reason="the 3.8 - 3.10 layout")
def test_condition_exits_threaded_only_through_a_lone_jump():
    """The exits of a condition that go to a block only jumping to another exit of it are that
    exit (the ``or`` above is one test of the loop's exit); a condition without such an exit
    (most) is left as it is, its exits not even gathered."""
    from uncompile.expressions.conditions import Node
    from uncompile.structure.definitions import Nested
    from uncompile.structure.walker import Walker

    code = define(EXITS_THROUGH_A_LONE_JUMP).__code__
    result = verify_code(code, qualname="f")
    assert result.identical, "%s\n%s" % (result.difference or result.error, result.source)
    walker = Walker(code, Nested(code))
    blocks = walker.blocks
    lone_jumps = [
        b.id
        for b in blocks
        if b.end - b.start == 1 and walker.instrs[b.start].op == "JUMP" and len(b.preds) == 1
    ]
    assert lone_jumps or sys.version_info >= (3, 10)  # (3.10 puts a copy of the exit there)
    for lone in lone_jumps:
        target = blocks[lone].jump
        threaded = [Node(0, None, 1, target), Node(1, None, 2, lone)]
        walker.legacy_thread_exits(threaded)
        assert threaded[1].false == target
    longer = [b.id for b in blocks if b.end - b.start > 1]
    kept = [Node(0, None, longer[0], longer[1])]
    walker.legacy_thread_exits(kept)
    assert (kept[0].true, kept[0].false) == (longer[0], longer[1])


@pytest.mark.skipif(sys.version_info >= (3, 10), reason="3.8 - 3.9 keep the dead final return")
def test_dead_final_return_without_setups_is_what_the_block_stacks_say() -> None:
    """Without ``SETUP_*`` the walker answers whether the final ``return None`` is dead from
    the graph search made when it began, not the block stacks: on stdlib code both agree."""
    from uncompile.structure.definitions import Nested
    from uncompile.structure.walker import Walker

    checked = 0
    for _, code in stdlib_code_objects(30):
        walker = Walker(code, Nested(code))
        at = walker.legacy_final_return_at
        if at < 0 or walker._legacy_setups:
            continue
        fast = walker._legacy_dead_final_return(at)
        block = walker.blocks[walker.block_of[at]]
        assert fast == (block.start == at and walker.block_stacks()[at] is None), code
        checked += 1
    assert checked > 100
