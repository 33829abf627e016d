"""The ``uncompile`` command line (also ``python -m uncompile``).

Subcommands:

* ``decompile TARGET`` prints the Python source of TARGET (a ``.py`` or ``.pyc`` file,
  ``module:qualname`` or ``file.py:qualname``); ``-o FILE`` writes it to FILE instead;
  ``--verify`` recompiles every function in TARGET and prints a table of verdicts.

Exit status: 0 success, 1 the work failed (bad input, code that cannot be decompiled, a
function that does not round-trip), 2 usage error. Failures print one line on stderr.
"""

from __future__ import annotations

import argparse
import os
import sys
import traceback
from types import CodeType
from typing import List, Optional, Sequence, Tuple

from . import __version__
from .errors import UncompileError

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2

TARGET_HELP = ".py or .pyc file, 'module:qualname' (json.decoder:JSONDecoder.decode) or 'file.py:qualname'"


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``uncompile`` command."""
    parser = argparse.ArgumentParser(
        prog="uncompile",
        description="Readable Python source from CPython bytecode.",
    )
    parser.add_argument(
        "--version",
        action="version",
        version="uncompile %s (Python %s)" % (__version__, sys.version.split()[0]),
    )
    parser.add_argument(
        "--traceback", action="store_true", help="show the full traceback when something goes wrong"
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    commands.required = True

    decompile = commands.add_parser(
        "decompile",
        help="print the Python source of a file, module or function",
        description="Decompile TARGET and print its Python source. "
        "With --verify, recompile each function and report whether the bytecode is identical.",
    )
    decompile.add_argument("target", metavar="TARGET", help=TARGET_HELP)
    decompile.add_argument(
        "--verify",
        action="store_true",
        help="recompile every function in TARGET, print a table of verdicts and "
        "exit with status 1 if any is not identical",
    )
    decompile.add_argument(
        "-o", "--output", metavar="FILE", help="write the source to FILE instead of stdout"
    )
    decompile.set_defaults(handler=run_decompile)
    return parser


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Run the command line with *argv* (default ``sys.argv[1:]``); return the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)  # exits with status 2 on a usage error
    try:
        return int(args.handler(args))
    except UncompileError as exc:
        if args.traceback:
            traceback.print_exc()
        print("uncompile: error: %s" % _one_line(str(exc)), file=sys.stderr)
        return EXIT_FAILED
    except KeyboardInterrupt:
        print("uncompile: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # e.g. `uncompile decompile x.py | head`
        _silence_stdout()
        return EXIT_OK
    except Exception as exc:  # a bug in uncompile: still one line, unless asked for more
        if args.traceback:
            traceback.print_exc()
        print(
            "uncompile: internal error: %s: %s (rerun with --traceback for details)"
            % (type(exc).__name__, _one_line(str(exc))),
            file=sys.stderr,
        )
        return EXIT_FAILED


def run_decompile(args: argparse.Namespace) -> int:
    """The ``decompile`` subcommand."""
    from . import decompile
    from .loading import load_code

    code = load_code(args.target)
    if args.verify:
        return _verify_all(code, _target_qualname(args.target, code), args.output)
    source = decompile(code)
    assert isinstance(source, str)
    _write_source(source, args.output)
    return EXIT_OK


def _target_qualname(target: str, code: CodeType) -> str:
    """The qualified name TARGET gives (``module:qualname``), else the code object's own."""
    if ":" in target and not os.path.exists(target):
        return target.rpartition(":")[2]
    return str(getattr(code, "co_qualname", code.co_name))


def _write_source(source: str, output: Optional[str]) -> None:
    if not source.endswith("\n"):
        source += "\n"
    if output is None:
        sys.stdout.write(source)
        return
    try:
        with open(output, "w", encoding="utf-8") as stream:
            stream.write(source)
    except OSError as exc:
        raise UncompileError("cannot write %s: %s" % (output, exc.strerror or exc)) from None
    print("wrote %s" % os.path.abspath(output), file=sys.stderr)


def _verify_all(code: CodeType, qualname: str, output: Optional[str]) -> int:
    """Round-trip *code* and every code object nested in it; print one row per code object."""
    from .verification.roundtrip import check_units, iter_units, summarize

    if code.co_name == "<module>":
        units = list(iter_units(code))
    else:  # the nested units are named under the target's qualname
        units = [(qualname, code)] + list(iter_units(code, include_module=False, qualname=qualname))
    results = check_units(code.co_filename, units)
    _print_table([(result.qualname, result.outcome, result.detail) for result in results])
    summary = summarize(results)
    identical = summary.counts.get("identical", 0)
    print("%d of %d code objects identical" % (identical, summary.total))
    if output is not None:
        from . import decompile

        source = decompile(code)
        assert isinstance(source, str)
        _write_source(source, output)
    return EXIT_OK if identical == summary.total else EXIT_FAILED


def _print_table(rows: List[Tuple[str, str, str]]) -> None:
    name_width = max([len("code object")] + [len(name) for name, _, _ in rows])
    verdict_width = max([len("verdict")] + [len(verdict) for _, verdict, _ in rows])
    print("%-*s  %-*s  %s" % (name_width, "code object", verdict_width, "verdict", "detail"))
    for name, verdict, detail in rows:
        print(("%-*s  %-*s  %s" % (name_width, name, verdict_width, verdict, detail[:120])).rstrip())


def _one_line(text: str) -> str:
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    return " | ".join(lines) if lines else "(no message)"


def _silence_stdout() -> None:
    """After a broken pipe, point stdout at /dev/null so the interpreter's final flush is quiet."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
