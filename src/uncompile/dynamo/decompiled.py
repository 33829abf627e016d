"""The one place where the dump asks the decompiler for source.

:func:`decompile_for_dump` never raises. It goes through
:func:`.debuggable.debuggable_source`: when decompilation fails, the text is a breakable
instruction listing (a ``def`` with one line per instruction, see :mod:`.listing`) that
says why, followed by the full ``dis`` output as comments; the file's header (written by
the writer) says that decompilation failed. The result also says whether the shown source
was verified to recompile to identical bytecode, maps instruction offsets to lines, and
keeps the :class:`.debuggable.DebuggableSource` that can relabel the code for the debugger.
"""

from __future__ import annotations

import dis
import io
import re
from dataclasses import dataclass, field
from types import CodeType
from typing import Any, Dict, Optional


@dataclass
class DecompiledSource:
    """Source for one code object, as the dump writes it."""

    text: str
    #: "verified" (recompiles to identical bytecode), "unverified" (decompiled, not identical
    #: or not checked) or "failed" (no source; *text* is the dis listing as comments).
    status: str
    error: Optional[str] = None
    difference: Optional[str] = None
    #: The decompiler's module and the printer's result (for relabeling), when it succeeded.
    tree: Any = field(default=None, repr=False)
    emitted: Any = field(default=None, repr=False)
    #: The :class:`.debuggable.DebuggableSource` behind *text* (relabels the code), if any.
    debuggable: Any = field(default=None, repr=False)
    #: :attr:`offset_lines` when known from the start (a listing's); else found on first use.
    given_offset_lines: Optional[Dict[int, int]] = field(default=None, repr=False)

    @property
    def ok(self) -> bool:
        """True when *text* is real decompiled source."""
        return self.status != "failed"

    @property
    def offset_lines(self) -> Dict[int, int]:
        """Instruction offset -> 1-based line in *text*, for statements the decompiler placed.

        Found from *tree* and the printer's spans when first asked for (when the dump is
        written, not in the bytecode hook).
        """
        if self.given_offset_lines is None:
            spans = getattr(self.emitted, "spans", {}) or {}
            self.given_offset_lines = _offset_lines(self.tree, spans) if self.tree is not None else {}
        return self.given_offset_lines


#: A ``nonlocal`` declaration in the body of the file's top-level function.
_OWN_NONLOCAL = re.compile(r"^    nonlocal ([\w, ]+)$", re.MULTILINE)


def file_text(code: CodeType, text: str) -> str:
    """*text*, the decompiled source of *code*, as the dump writes it: a module that compiles.

    A function that assigns a free variable declares it ``nonlocal``, which is a syntax error
    in a function at module level, where the file has it. So the declarations of *code*'s own
    free variables become comments, on the same lines (the debugger's line numbers stay
    valid). The file is for reading and breakpoints: Dynamo runs its own bytecode, not this
    text; verification compiles *text* inside the function's real nesting.
    """
    free = set(code.co_freevars)
    if not free:
        return text

    def commented(match: "re.Match[str]") -> str:
        names = [name.strip() for name in match.group(1).split(",")]
        if not set(names) <= free:
            return match.group(0)
        return "    # nonlocal %s  (free variables: the enclosing function binds them)" % ", ".join(names)

    return _OWN_NONLOCAL.sub(commented, text)


def dis_listing(code: CodeType) -> str:
    """``dis`` output for *code* and its nested code objects."""
    out = io.StringIO()
    try:
        dis.dis(code, file=out)
    except Exception as error:  # noqa: BLE001 - dis itself may choke on odd bytecode
        out.write("(dis failed: %r)\n" % (error,))
    return out.getvalue()


def as_comments(text: str) -> str:
    """Every line of *text* prefixed with ``# `` (so any text can sit in a .py file)."""
    return "".join("# " + line + "\n" for line in text.splitlines())


def failure_text(code: CodeType, reason: str) -> str:
    """A valid Python file body that says decompilation of *code* failed and shows its bytecode."""
    return (
        "# DECOMPILATION FAILED: no source is shown for %s.\n" % code.co_name
        + as_comments("Reason: " + reason)
        + "# Below is the bytecode listing (dis) of the code object, as comments.\n"
        + "__uncompile_decompilation_failed__ = %r\n\n" % reason
        + as_comments(dis_listing(code))
    )


def _offset_lines(tree: Any, spans: Dict[Any, Any]) -> Dict[int, int]:
    """Instruction offset -> first output line, for the statements of the code object itself.

    Statements of nested functions, lambdas and classes belong to other code objects and are
    left out; inner statements win over the compound statements around them.
    """
    import ast

    nested = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
    body = tree.body
    if len(body) == 1 and isinstance(body[0], (ast.FunctionDef, ast.AsyncFunctionDef)):
        body = body[0].body
    lines: Dict[int, int] = {}
    stack = list(body)
    while stack:
        node = stack.pop()
        offsets = getattr(node, "uncompile_offsets", None)
        span = spans.get(node)
        if offsets and span is not None:
            for offset in offsets:
                if offset not in lines or span[0] > lines[offset]:
                    lines[offset] = span[0]
        if not isinstance(node, nested):
            stack.extend(child for child in ast.iter_child_nodes(node) if isinstance(child, ast.stmt))
    return lines


def _verification(code: CodeType, text: str) -> "tuple[str, Optional[str], bool]":
    """("verified" or "unverified", first difference, whether *text* compiles) from the
    project's verifier.

    *text* is the decompiled source of *code* (what the decompiler gives for it): it is
    recompiled and compared, not made again.
    """
    try:
        from ..verification import verify_code

        verification = verify_code(code, decompile=lambda _: text)
        identical = bool(getattr(verification, "identical", False))
        difference = getattr(verification, "difference", None) or getattr(verification, "error", None)
        compiles = bool(getattr(verification, "compiles", True))
    except Exception as error:  # noqa: BLE001
        return "unverified", "verification failed: %r" % (error,), True
    return ("verified", None, True) if identical else ("unverified", str(difference), compiles)


def verify_source(code: CodeType, source: DecompiledSource) -> DecompiledSource:
    """Fill in the verification result of *source* (decompiled with ``verify=False``); the
    instruction listing instead when its text does not compile."""
    if source.ok:
        source.status, source.difference, compiles = _verification(code, source.text)
        if not compiles:
            return _listing_source(code, "decompiled source does not compile: %s" % source.difference)
    return source


def checked_source(code: CodeType, source: DecompiledSource) -> DecompiledSource:
    """*source*, or the instruction listing when its text does not compile (for sources
    decompiled with ``checked=False`` and not verified)."""
    if not source.ok:
        return source
    try:
        compile(file_text(code, source.text), "<uncompile dump>", "exec")
    except (SyntaxError, ValueError) as error:
        reason = "%s: %s" % (type(error).__name__, error)
        return _listing_source(code, "decompiled source does not compile: " + reason)
    return source


def decompile_for_dump(code: CodeType, verify: bool = True, checked: bool = True) -> DecompiledSource:
    """Decompile *code* for the dump; on any failure return a listing that still compiles.

    With neither *verify* nor *checked*, the text is not compiled here (the bytecode hook's
    case: :func:`checked_source` or :func:`verify_source` does it when the dump is written)."""
    try:
        from .debuggable import debuggable_source

        source = debuggable_source(code, checked=False)
        if not source.decompiled:
            return _listing_source(code, source.error, source)
    except Exception as error:  # noqa: BLE001 - even the listing failed: comments only
        reason = "%s: %s" % (type(error).__name__, error)
        return DecompiledSource(failure_text(code, reason), "failed", error=reason)
    result = _unverified(source)
    if verify:
        return verify_source(code, result)
    return checked_source(code, result) if checked else result


def _listing_source(code: CodeType, reason: str, source: Any = None) -> DecompiledSource:
    """The breakable instruction listing of *code* (see :mod:`.listing`) with its ``dis`` output,
    saying *reason*; *source* is the :class:`.debuggable.DebuggableSource` for it, if made."""
    from .debuggable import DebuggableSource
    from .listing import instruction_listing

    listing = instruction_listing(code, reason)
    if source is None:
        source = DebuggableSource(code, listing.text, None, None, reason)
    text = (
        listing.text
        + "\n\n# The bytecode (dis) of this code object and the code nested in it:\n"
        + as_comments(dis_listing(code))
    )
    return DecompiledSource(
        text, "failed", error=reason, debuggable=source, given_offset_lines=dict(listing.offset_lines)
    )


def decompiled_source(code: CodeType, tree: Any, checked: bool = True) -> Optional[DecompiledSource]:
    """*tree*, the decompiler's module for *code*, printed for the dump (not verified); None
    when that fails (or, if *checked*, when the text does not compile)."""
    try:
        from .debuggable import printed_source

        return _unverified(printed_source(code, tree, checked))
    except Exception:  # noqa: BLE001 - the caller decompiles instead
        return None


def _unverified(source: Any) -> DecompiledSource:
    """The dump's record of a decompiled :class:`.debuggable.DebuggableSource`."""
    return DecompiledSource(
        source.text, "unverified", tree=source.tree, emitted=source.emitted, debuggable=source
    )
