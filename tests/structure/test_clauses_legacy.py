"""``except`` clauses of 3.8 - 3.10 (``uncompile.structure.clauses_legacy``).

Every case must decompile and recompile to identical bytecode. The module targets the
block-stack bytecode of 3.8 - 3.10, but the sources are plain Python, so the cases run on
every version.
"""

from __future__ import annotations

import pytest
from snippets import define

from uncompile.verification import verify_code

CASES = {
    # 3.10: the body's break jumps to the loop's exit, where no clause goes; nothing dead after it
    "break_ends_body_clause_goes_on": """
        def f(tasks, log):
            for task in tasks:
                try:
                    task.run()
                    break
                except KeyError:
                    log(task)
            return tasks
    """,
    # 3.9: the dead normal exit after the continue clears the name before its jump
    "continue_from_named_clause": """
        def f(args):
            for file in args:
                try:
                    fp = open(file)
                except OSError as msg:
                    print(msg)
                    continue
                print(fp)
    """,
    "continue_from_named_clause_in_else": """
        def f(args):
            for file in args:
                if file == "-":
                    fp = 1
                else:
                    try:
                        fp = open(file)
                    except OSError as msg:
                        print(msg)
                        continue
                print(fp)
    """,
    "break_from_named_clause": """
        def f(args):
            while args:
                try:
                    fp = open(args.pop())
                except OSError as msg:
                    print(msg)
                    break
                print(fp)
            return args
    """,
    # 3.10: the break's jump to the return after the loop became a copy of it, after POP_EXCEPT
    "break_from_clause": """
        def f(args):
            while args:
                try:
                    fp = open(args.pop())
                except OSError:
                    print(1)
                    break
                print(fp)
            return args
    """,
    # 3.10: the clause's exit jumps to the test copied to the loop body's end: no continue
    "try_except_ends_bottom_tested_while": """
        def f(args):
            while args:
                try:
                    args.pop()
                except ValueError as e:
                    print(e)
            return args
    """,
    # the clause's jump past the else is sent on to the loop's header: the else ends the body
    "else_ends_loop_body": """
        def f(dirs, path):
            for d in dirs:
                try:
                    f = open(d)
                except OSError as msg:
                    print(msg)
                else:
                    path.append(f)
            return path
    """,
    "else_with_loop_ends_while_body": """
        def f(dirs, path):
            while dirs:
                try:
                    f = open(dirs.pop())
                except OSError:
                    print(1)
                else:
                    with f:
                        for line in f:
                            if not line:
                                continue
                            path.append(line)
            return path
    """,
    # 3.8 - 3.9: the clause's continue and its dead normal exit after it both jump to the header
    "continue_ends_last_clause": """
        def f(paths, read, out):
            for path in paths:
                try:
                    out.append(read(path))
                except KeyError:
                    out.append(None)
                except OSError:
                    continue
    """,
    # 3.8 - 3.9: the dead exit after the clause's continue jumps to the loop's next iteration,
    # past the else that ends the loop body (after the try it would jump to the code after it)
    "continue_from_clause_before_else": """
        def f(items, load):
            for item in items:
                try:
                    source = load(item)
                except OSError:
                    continue
                else:
                    load(source)
    """,
    "continue_from_clause_before_code_after_try": """
        def f(items, load):
            for item in items:
                try:
                    source = load(item)
                except OSError:
                    continue
                load(source)
    """,
    # 3.10 lays the inner try's clauses out after the copy of the return that ends the outer
    # try's body, past where the walk of that body ends (the clause's statements were lost)
    "clause_ending_try_body_before_copied_return": """
        def f(s, g):
            try:
                try:
                    r = g()
                except KeyError as e:
                    s.quit(e)
                    raise
            except ValueError:
                r = 1
            return r
    """,
    # the clause's jump to the loop's next iteration, where the enclosing if ends, skips the
    # try's else: a continue (it was dropped, and the else ran after the clause: pkgutil.extend_path)
    "continue_from_clause_skips_else_in_if": """
        def f(dirs, path, g):
            for d in dirs:
                if g(d):
                    try:
                        x = open(d)
                    except OSError:
                        g(d)
                    else:
                        path.append(x)
            return path
    """,
    # a clause's type with jumps of its own (a ternary) before its exception match
    "clause_types_with_jumps": """
        def f(job, quiet, log):
            try:
                job()
            except KeyError:
                log(1)
            except (OSError, EOFError) if quiet else () as error:
                log(error)
            except ValueError if quiet else TypeError:
                return 0
            return 1
    """,
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_round_trip(name: str) -> None:
    code = define(CASES[name]).__code__
    result = verify_code(code, qualname="f")
    assert result.identical, "%s\n%s" % (result.difference or result.error, result.source)
