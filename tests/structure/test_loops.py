"""Loops (``uncompile.structure.loops``): ``while`` tests and their exits, ``continue``/``break``
written in the loop body, loops whose body repeats only through a handler, or never, and loops
whose body holds a try (back edges and exits that go through an except clause)."""

from __future__ import annotations

import copy
import sys

import pytest
from snippets import decompiled, known_failure, round_trip

from uncompile.verification import verify_code


def continue_then_break(items, low, pos):
    while pos > low:
        item = items[pos]
        if item < pos:
            pos = item
            continue
        break
    return pos


def break_then_trailing_continue(items, low, pos):
    while pos > low:
        item = items[pos]
        if not item < pos:
            break
        pos = item
        continue
    return pos


def drain_at_end(stack, out):
    out.append(len(stack))
    if out[0] > 3:
        return out
    while stack:
        out.append(stack.pop())


def guarded_while(items, limit, source):
    total = 0
    if source is not None:
        while total < limit:
            total += items.pop()
    return total


def while_ends_else_in_for(pairs, out, step):
    for name, value in pairs:
        if name:
            out.append(name)
        elif value is None:
            out.append(value)
        else:
            while value:
                out.append(value)
                value = value[step:]
                if value:
                    out[-1] += ";"
    return out


def continue_to_test_in_try_loop(values, out, wide):
    items = iter(values)
    last = False
    while not last:
        try:
            item = next(items)
        except StopIteration:
            last = True
            item = 0
        if wide:
            if item > 2:
                out.append(item)
                continue
        out.append(-item)
    return out


def try_starts_while(values, out):
    while values:
        try:
            out.append(10 // values.pop())
        except ZeroDivisionError:
            out.append(None)
        if len(out) > 5:
            continue
        out.append(0)
    return out


def break_to_enclosing_for(names, found, step):
    for name in names:
        rest = name
        while rest:
            if rest.startswith("x"):
                found.append(name)
                break
            rest = rest[step:]
    return found


def while_else_with_break(n, out):
    # the break jumps past the else, which runs into the code after the loop
    i = 0
    while i < n:
        i += 1
        if i % 2:
            continue
        if i > 6:
            break
        out.append(i)
    else:
        out.append("done")
    return out


def while_ends_for_body_with_copied_exit(items, lines, step):
    # 3.12+ copies the exit to the enclosing loop after the bottom test: no else
    for value in items:
        if not value:
            continue
        while value:
            lines.append(value)
            while True:
                if len(lines) <= 3:
                    break
                lines.pop()
            value = value[step:]
            if value:
                lines[-1] += ";"
    return lines


def break_from_while_in_if_branch(items, n, out):
    # the break and the loop's exit (after the copied test, 3.12+ a jump) go past the else
    if n:
        while n > 0:
            n -= 1
            if items[n]:
                break
            out.append(n)
    else:
        out.append(-1)
    for x in items:
        out.append(x)
    return out


def while_else_continue_in_for(items, out):
    # the else is a written continue of the for loop; the break jumps past it
    for x in items:
        while x:
            x -= 1
            if x == 3:
                break
        else:
            continue
        out.append(x)
    return out


def statements_after_last_continue_then_break(items, pending, skip):
    # 3.11+: the statements after the last jump back only leave the loop, yet belong to its body
    while items:
        if skip:
            continue
        if pending:
            skip = pending.pop()
            if skip:
                break
        pending.append(skip)
        break
    return pending


CASES = [
    statements_after_last_continue_then_break,
    while_else_continue_in_for,
    break_from_while_in_if_branch,
    while_else_with_break,
    while_ends_for_body_with_copied_exit,
    continue_then_break,
    break_then_trailing_continue,
    drain_at_end,
    guarded_while,
    while_ends_else_in_for,
    continue_to_test_in_try_loop,
    try_starts_while,
    break_to_enclosing_for,
]
INPUTS = {
    statements_after_last_continue_then_break: [([1], [0], 0), ([1], [2], 0), ([], [], 0), ([1], [], 0)],
    while_else_continue_in_for: [([5, 2, 9, 0], []), ([], [])],
    break_from_while_in_if_branch: [([0, 1, 0, 0], 4, []), ([0, 0], 2, []), ([], 0, [])],
    while_else_with_break: [(10, []), (3, []), (0, [])],
    while_ends_for_body_with_copied_exit: [(["ab", "", "cde"], [], 1), ([], [], 1)],
    continue_then_break: [([0, 0, 1, 1, 3], 0, 4), ([5, 5], 0, 1), ([], 3, 1)],
    break_then_trailing_continue: [([0, 0, 1, 1, 3], 0, 4), ([5, 5], 0, 1), ([], 3, 1)],
    drain_at_end: [([1, 2], []), ([], [7])],
    guarded_while: [([1, 2, 3], 4, "s"), ([1], 4, None)],
    while_ends_else_in_for: [([("a", None), ("", None), ("", "xyz")], [], 1)],
    continue_to_test_in_try_loop: [([1, 5, 3], [], True), ([4], [], False)],
    try_starts_while: [([1, 0, 2, 5], []), ([], [])],
    break_to_enclosing_for: [(["abx", "yy", "x"], [], 1), ([], [], 1)],
}


@pytest.mark.parametrize("function", CASES, ids=lambda f: f.__name__)
def test_recompiles_identically(function, request):
    if function is break_to_enclosing_for and sys.version_info < (3, 10):
        known_failure(request, "3.8 - 3.9: a break out of a while that ends a for body keeps a dead jump")
    result = verify_code(function.__code__)
    assert result.identical, (result.difference, result.error, result.source)


@pytest.mark.parametrize("function", CASES, ids=lambda f: f.__name__)
def test_behaves_the_same(function):
    again = decompiled(function)
    for args in INPUTS[function]:  # each call gets its own copy of the (mutable) arguments
        assert again(*copy.deepcopy(args)) == function(*copy.deepcopy(args))


LOOPS = """\
def first_of_inner(rows, cols):
    for row in rows:
        for col in cols:
            cell = row[col]
            return cell
    raise LookupError('empty')


def first_that_opens(names, suffixes):
    for name in names:
        for suffix in suffixes:
            try:
                handle = open(name + suffix)
            except OSError:
                continue
            return handle
    raise OSError('none')


def first_parsed(items):
    for item in items:
        try:
            value = int(item)
        except ValueError:
            continue
        return value
    return None


def first_retry(connect, wait):
    while True:
        try:
            handle = connect()
            break
        except OSError as exc:
            if exc.errno != 5:
                raise
        wait()
    return len(handle)


def first_try_in_while(work, tidy):
    while True:
        try:
            work()
        except ValueError:
            pass
        tidy()


def first_of_two_tries_that_return(path, opener):
    while True:
        try:
            return opener(path, 'r')
        except FileNotFoundError:
            pass
        try:
            return opener(path, 'x')
        except FileExistsError:
            pass
"""


def _snippets():
    return [
        pytest.param(snippet, id=snippet.split("(")[0][4:])
        for snippet in ["def " + part for part in LOOPS.split("def ")[1:]]
    ]


@pytest.mark.parametrize("snippet", _snippets())
def test_loops_that_repeat_only_through_a_handler_or_never(snippet):
    namespace: dict = {}
    exec(compile(snippet, "<test>", "exec", dont_inherit=True), namespace)
    function = next(v for k, v in namespace.items() if k.startswith("first"))
    result = verify_code(function.__code__)
    assert result.identical, result
    assert result.source is not None
    for keyword in ("for ", "while ", "try:", "raise"):
        assert result.source.count(keyword) == snippet.count(keyword), keyword


# -- loops whose body holds a try ----------------------------------------------------


def break_from_except(source, sink):
    while True:
        try:
            item = source.get()
        except LookupError:
            break
        if item is not None:
            sink.append(item)
    sink.append(None)


def break_from_except_in_with(lock, source, sink, flag):
    with lock:
        if flag:
            while True:
                try:
                    item = source.get()
                except LookupError:
                    break
                sink.append(item)
        sink.append(None)


def break_from_try_body(read, done):
    while True:
        line = read()
        try:
            int(line)
            break
        except ValueError:
            pass
    done()


def except_continue_then_more(names, cache, stat):
    for name in names:
        entry = cache[name]
        if entry is None:
            continue
        try:
            size = stat(name)
        except OSError:
            cache.pop(name)
            continue
        if size != entry:
            cache.pop(name)


def except_if_else_at_loop_end(items, out, quiet):
    for item in items:
        try:
            out.append(int(item))
        except ValueError as error:
            if quiet:
                out.append(None)
            else:
                out.append(str(error))


def while_test_with_except(expected, actual):
    missing = []
    while expected:
        item = expected.pop()
        try:
            actual.remove(item)
        except ValueError:
            missing.append(item)
    return missing, actual


def retry_until_break(pairs, table, tail):
    for key, value in pairs:
        while True:
            try:
                if key is None:
                    table[value] = 1
                else:
                    tail.append(key)
            except IndexError:
                if len(table) < 4:
                    table.append(0)
                    continue
                tail.append(value)
            break


def with_in_endless_loop(manager, lock, poll):
    with manager:
        while True:
            with lock:
                if poll():
                    return True
                poll()
            poll()


def branches_before_a_retried_try(fixed, retries, make, log, busy):
    # the loop goes on only from the except clause: the code before the try, on both branches
    # of the if, is in the loop
    attempt = 1
    while True:
        if fixed:
            port = fixed
        else:
            port = make()
        try:
            return make(port)
        except RuntimeError as e:
            if busy(e):
                if attempt < retries:
                    log(attempt)
                    attempt += 1
                else:
                    raise RuntimeError(port) from e
            else:
                raise


def return_inside_a_loop_in_nested_tries(pop, sentinel, close, dumps, send, acquire):
    # the return leaves every handler's cover before it returns: the outer try's region goes
    # on past it, over the rest of the inner loop (3.11+)
    while 1:
        try:
            acquire()
            try:
                while 1:
                    obj = pop()
                    if obj is sentinel:
                        return
                    obj = dumps(obj)
                    send(obj)
            except IndexError:
                pass
        except Exception as e:
            close(e)


def finally_then_break(create, make, close, use, name):
    # the try body's rest and what follows the try only leave the loop: laid out after the jump back
    if create:
        while True:
            handle = make()
            try:
                if handle.busy():
                    if name is not None:
                        raise KeyError(name)
                    else:
                        continue
                use(handle)
            finally:
                close(handle)
            name = handle
            break
    else:
        use(name)
    use(None)
    return name


def try_at_loop_start_with_inner_finally(expected, actual, out):
    # the try starts the loop body; its jumps back are past its cover, though inside its span
    i = j = 0
    while True:
        try:
            e = expected[i]
            a = actual[j]
            if e < a:
                i += 1
            else:
                i += 1
                try:
                    while expected[i] == e:
                        i += 1
                finally:
                    j += 1
        except IndexError:
            out.append(i)
            break
    return out


def return_from_try_at_loop_start(table, keys):
    # the return's own block (past the try's range) runs straight on from the try body
    while True:
        try:
            return table[next(keys)]
        except StopIteration:
            return None
        except KeyError:
            continue


def endless_loop_starting_a_with_body(source, use):
    # the loop's header starts the with body and a try: the with holds the loop (its exit covers
    # the try's clauses), the loop holds the try (the loop was lost: the try came first, the rest
    # of the body as its else, the loop after it)
    with source:
        while True:
            try:
                entry = next(source)
            except StopIteration:
                break
            use(entry)


def endless_loop_starting_a_with_body_and_nested_tries(source, onerror, use):
    # as above, the loop's header starting two tries (os.walk): the with is found outward
    with source:
        while True:
            try:
                try:
                    entry = next(source)
                except StopIteration:
                    break
            except OSError as error:
                onerror(error)
                break
            use(entry)


LOOPS_HOLDING_A_TRY = [
    endless_loop_starting_a_with_body,
    endless_loop_starting_a_with_body_and_nested_tries,
    return_from_try_at_loop_start,
    try_at_loop_start_with_inner_finally,
    finally_then_break,
    break_from_except,
    break_from_except_in_with,
    break_from_try_body,
    except_continue_then_more,
    except_if_else_at_loop_end,
    while_test_with_except,
    retry_until_break,
    with_in_endless_loop,
    branches_before_a_retried_try,
    return_inside_a_loop_in_nested_tries,
]


@pytest.mark.parametrize("function", LOOPS_HOLDING_A_TRY, ids=lambda f: f.__name__)
def test_loops_holding_a_try_recompile_identically(function, request):
    if sys.version_info >= (3, 13) and function is retry_until_break:
        known_failure(
            request,
            "3.13+: the break after the try is reached by a jump from outside the try's range "
            "and is written inside the try body",
        )
    if sys.version_info[:2] == (3, 10) and function is endless_loop_starting_a_with_body_and_nested_tries:
        known_failure(request, "3.10: the break from the outer except clause is written as an else")
    if sys.version_info >= (3, 12) and function is try_at_loop_start_with_inner_finally:
        known_failure(
            request,
            "3.12+: the clause's break runs into the return after the loop, copied to the "
            "clause's end: written as the try's else continuing the loop",
        )
    result = verify_code(function.__code__)
    assert result.identical, (result.difference, result.error, result.source)


class _Entries:
    def __init__(self, items):
        self.items = list(items)

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        return False

    def __next__(self):
        if not self.items:
            raise StopIteration
        item = self.items.pop(0)
        if isinstance(item, Exception):
            raise item
        return item


@pytest.mark.parametrize(
    "function", [endless_loop_starting_a_with_body, endless_loop_starting_a_with_body_and_nested_tries]
)
def test_endless_loop_starting_a_with_body_behaves_the_same(function):
    again = decompiled(function)
    for items in ([1, 2], [], [1, OSError("x"), 3]):
        results = []
        for variant in (function, again):
            seen = []
            args = (
                (_Entries(items), seen.append)
                if variant.__code__.co_argcount == 2
                else (_Entries(items), seen.append, seen.append)
            )
            try:
                variant(*args)
            except OSError as error:
                seen.append(("raised", str(error)))
            results.append(seen)
        assert results[0] == results[1], results


class _Source:
    def __init__(self, items):
        self.items = list(items)

    def get(self):
        return self.items.pop(0)


def test_break_from_except_behaves_the_same():
    for function in (break_from_except, decompiled(break_from_except)):
        sink: list = []
        function(_Source([1, None, 2]), sink)
        assert sink == [1, 2, None]


def while_else_with_break_and_continue(n, out):
    i = 0
    while i < n:
        i += 1
        if i % 2:
            continue
        if i == out:
            break
        print(i)
    else:
        print("done")
    return i


def while_else_before_long_tail(n, out):
    i = 0
    while i < n:
        i += 1
        if i == out:
            break
        print(i)
    else:
        print("done")
    print(i, n, out)
    print(i, n, out)
    return [i, n, out, i, n, out]


@pytest.mark.parametrize(
    "function", [while_else_with_break_and_continue, while_else_before_long_tail], ids=lambda f: f.__name__
)
def test_while_else_recompiles_identically(function):
    """A ``while`` loop's ``else`` runs where the test fails; its ``break`` jumps past the else."""
    result = verify_code(function.__code__)
    assert result.identical, (result.difference, result.error, result.source)
    if function is while_else_before_long_tail:  # (a break before a short return copies it)
        assert result.source is not None and "    else:\n" in result.source


async def while_around_async_for(items, count, use):
    while count:
        async for item in items:
            if item:
                use(item)
            else:
                use(None)
        count -= 1


def test_bottom_test_leaving_by_a_jump_to_a_return():
    # 3.12: the code after the async for is laid out after the function's end (the loop's exit
    # is a handler); the copied while test leaves by a jump back to the return of the first test
    result = verify_code(while_around_async_for.__code__)
    assert result.identical, (result.difference, result.error, result.source)
    assert result.source is not None and result.source.count("while ") == 1


WHILE_CHAINS = {
    # the header's test is a chained comparison: it leaves through the chain's cleanup, and
    # 3.10 - 3.13 copy all of its links to the bottom of the body
    "chain": """
        def f(x, a, b, c):
            while a < b < c:
                x = g(x)
            return x
    """,
    "chain_with_break": """
        def f(text, end, pos):
            while 0 <= pos < end:
                found = g(text, pos)
                if not found:
                    break
                pos = found.end(0)
            return pos
    """,
    # 3.10 - 3.13: the copy of the chain's cleanup lies between the copied tests
    "chain_then_test": """
        def f(x, a, b, c):
            while a < b < c and x:
                x = g(x)
            return x
    """,
    # ``continue`` keeps the test at the top (its cleanup then ends in a copy of the exit)
    "chain_with_continue": """
        def f(x, a, b, c):
            while a < b < c:
                x = g(x)
                if x:
                    continue
                h(x)
            return x
    """,
    "test_then_chain": """
        def f(x, a, b, c):
            while x and a < b < c:
                x = g(x)
            return x
    """,
}


@pytest.mark.parametrize("name", sorted(WHILE_CHAINS))
def test_while_test_with_a_chained_comparison(name: str) -> None:
    result = round_trip(WHILE_CHAINS[name])
    assert result.source is not None and "while " in result.source


def test_blocks_within_an_offset_range_are_found_in_layout_order():
    """The blocks that start inside a range of offsets (a loop body's span), found by a binary
    search over the blocks in layout order: the same as testing every block."""
    from snippets import define

    from uncompile.structure.definitions import Nested
    from uncompile.structure.walker import Walker

    code = define(
        "def f(rows):\n"
        "    for row in rows:\n"
        "        while row:\n"
        "            if row.pop():\n"
        "                break\n"
        "    return rows\n"
    ).__code__
    walker = Walker(code, Nested(code))
    offsets = sorted({b.offset for b in walker.blocks} | {-1, 1 << 30})
    for lo in offsets:
        for hi in offsets:
            expected = [b.id for b in walker.blocks if lo <= b.offset < hi]
            assert [b.id for b in walker.blocks_within(lo, hi)] == expected


ENDLESS_LOOP_WITH_A_RAISING_ELSE = """
def f(lexer, hosts):
    while 1:
        token = lexer.get()
        if token is None:
            break
        while 1:
            token = lexer.get()
            if token:
                break
            elif token == 'login':
                hosts.append(token)
            else:
                raise ValueError(token)
        hosts.check(token)
"""


def test_endless_loop_breaks_to_the_code_after_it_not_to_a_raise():
    # 3.14+ lay the else's raise out before the code after the inner loop: that raise is no
    # exit of the loop, the jump past it is
    result = round_trip(ENDLESS_LOOP_WITH_A_RAISING_ELSE)
    assert result.source is not None and result.source.count("while ") == 2


# the loop's else returns, so the code after the loop is reached only by a break: each break
# (a block of statements and a jump there) goes past the else
WHILE_ELSE_THAT_RETURNS = {
    "one_break": """
def f(n, tree, s):
    v = n
    while v is not None:
        if v in s:
            d = 0
            break
        v = tree[v]
    else:
        return False
    return d
""",
    "break_in_if_and_elif": """
def f(n, tree, s, t):
    v = n
    while v is not None:
        if v in s:
            d = 0
            break
        elif v in t:
            d = 1
            break
        v = tree[v]
    else:
        return False
    return d
""",
    "breaks_then_a_loop_after": """
def f(n, tree, s, t, path):
    v = n
    while v is not None:
        path.append(v)
        if v in s:
            d = 0
            break
        if v in t:
            d = 1
            break
        v = tree[v]
    else:
        raise ValueError(v)
    for i, u in enumerate(path, 1):
        tree[u] = d + i
    return True
""",
}


@pytest.mark.parametrize("name", sorted(WHILE_ELSE_THAT_RETURNS))
def test_while_else_that_returns_is_skipped_by_each_break(name: str) -> None:
    round_trip(WHILE_ELSE_THAT_RETURNS[name])
