"""Every per-version fact about CPython bytecode that the decompiler relies on.

The rest of the decompiler sees only the version-neutral instruction form built by
:mod:`uncompile.bytecode.instructions`; what differs between 3.8 and 3.15 is listed here,
so supporting a new interpreter is a change to this module (and, for a truly new
instruction, one entry in the normalizer).
"""

from __future__ import annotations

import dis
import sys
from typing import Dict, FrozenSet, List, Tuple

VERSION: Tuple[int, int] = (sys.version_info[0], sys.version_info[1])

#: 3.11+ describe exception handling with ``co_exceptiontable``; older versions push
#: blocks with ``SETUP_FINALLY``/``SETUP_WITH``/``SETUP_ASYNC_WITH``.
HAS_EXCEPTION_TABLE = VERSION >= (3, 11)

#: ``match`` statements exist (3.10+). On 3.10 ``MATCH_CLASS``/``MATCH_KEYS`` push a success flag
#: above their result, and the items of the result are read by index rather than unpacked.
HAS_MATCH = VERSION >= (3, 10)
MATCH_PUSHES_FLAG = VERSION < (3, 11)

#: 3.8 - 3.10 lay code out in source order: an ``if`` body is always the fall-through path
#: of its test, whatever it ends with (later versions move some blocks).
LAYOUT_IN_SOURCE_ORDER = VERSION < (3, 11)

#: 3.10+ copy the implicit ``return None`` at a function's end into each branch that
#: reaches it, so a trailing ``return None`` inside an ``if``/``try`` may be implicit.
RETURN_COPIED_TO_BRANCHES = VERSION >= (3, 10)

#: 3.10+ replace a jump to a small block that ends the function (a short ``return``) by a
#: copy of that block, e.g. ``break`` out of a ``for`` loop followed by ``return x``.
COPIES_SMALL_EXITS = VERSION >= (3, 10)

#: 3.10 and 3.12+ copy a small exit block into the jumps to it also where it has a line number
#: of its own (a written ``return``); 3.11 copies only blocks without one (the implicit return).
COPIES_EXITS_WITH_LINES = VERSION >= (3, 10) and VERSION[:2] != (3, 11)

#: 3.13+ also replace an unconditional jump to a block without a line number that does not fall
#: through by a copy of that block (an except clause's exit: ``POP_EXCEPT``, the name's cleanup,
#: the jump on past the try, or the code after the try copied there): each branch of an if that
#: ends a clause ends with its own copy of the clause's exit, the last falls into the original.
COPIES_JUMP_TARGETS_WITHOUT_LINES = VERSION >= (3, 13)

#: 3.10 and 3.12+ copy an except clause's exit into each branch that jumps there also where it
#: ends the path: the code after the try copied into it (COPIES_EXITS_WITH_LINES) makes
#: ``POP_EXCEPT; return x`` (or ``raise E``) a small exit block, and each jump to it gets a copy
#: (3.11 copies no exit with a line; 3.12 none that jumps on, see COPIES_JUMP_TARGETS_WITHOUT_LINES).
COPIES_CLAUSE_EXITS_THAT_END_PATH = COPIES_EXITS_WITH_LINES

#: The longest exit block the compiler copies, in the reader's instructions: CPython copies at
#: most 4 of its own (``MAX_COPY_SIZE``), and the reader may read one of those as two (a
#: ``RETURN_CONST`` as ``LOAD_CONST; RETURN_VALUE``, a pair of loads as two loads).
LONGEST_COPIED_EXIT = 8

#: 3.10 copies an exit block without a line number of its own into each jump to it whatever its
#: size: the rest of a returned expression after ``a or b`` or a ternary, which 3.10 leaves
#: without a line (``return g(k0=x, ..., s=a or b, j=y)``, the keywords built one by one: an
#: operand that runs into the rest ends in a copy of its own). 3.11+ copy no exit longer than
#: :data:`LONGEST_COPIED_EXIT` instructions.
COPIES_LINELESS_EXITS_OF_ANY_SIZE = VERSION[:2] == (3, 10)

#: 3.8 - 3.9 leave unreachable code in place (e.g. a clause's exit after its ``break``);
#: 3.10+ remove it.
KEEPS_DEAD_CODE = VERSION < (3, 10)

#: 3.8 - 3.9 send a jump to the back edge of a ``while`` loop (the end of an ``if`` body)
#: straight to the loop's top; 3.10 keeps it (the back edge carries the ``while`` line), so
#: there a jump from an ``if`` body to the top of a ``while`` loop is a ``continue``.
THREADS_JUMPS_TO_WHILE_BACK_EDGE = VERSION < (3, 10)

#: 3.8 ``assert`` loads ``AssertionError`` with ``LOAD_GLOBAL`` (3.9+: ``LOAD_ASSERTION_ERROR``).
ASSERT_LOADS_GLOBAL = VERSION < (3, 9)

#: Values ``POP_EXCEPT`` takes off the value stack: the saved exception (3.11+), or the
#: three saved exception-info values of the ``EXCEPT_HANDLER`` block (3.8 - 3.10).
POP_EXCEPT_POPS = 1 if HAS_EXCEPTION_TABLE else 3

#: 3.11+: a call is ``CALL argc`` with a ``NULL``/self slot below the callable; older
#: versions use ``CALL_FUNCTION``/``CALL_METHOD`` without it.
CALL_HAS_NULL_SLOT = VERSION >= (3, 11)

#: 3.12+ move the exception handlers (cold code) to the end, in the order they were compiled: a
#: statement's handlers follow those of the statements compiled before them.
HANDLERS_IN_COMPILE_ORDER = VERSION >= (3, 12)

#: 3.12+ compile comprehensions inline (PEP 709) instead of into nested code objects.
INLINED_COMPREHENSIONS = VERSION >= (3, 12)

#: The instructions at a ``FOR_ITER`` loop's exit that pop the exhausted iterator (3.12+).
FOR_EXIT_CLEANUP: Tuple[str, ...] = {
    (3, 12): ("END_FOR",),
    (3, 13): ("END_FOR", "POP_TOP"),
}.get(VERSION, ("END_FOR", "POP_ITER") if VERSION >= (3, 14) else ())

#: Stack slots a ``with`` keeps under its body: ``__exit__`` bound (3.11-3.13), or 3.14+
#: (``LOAD_SPECIAL``) the unbound method and the manager; its normal exit calls that with
#: ``None, None, None`` (``CALL WITH_EXIT_ARGC``).
WITH_EXIT_SLOTS = 2 if VERSION >= (3, 14) else 1
WITH_EXIT_ARGC = WITH_EXIT_SLOTS + 1

#: Stack slots a running ``for`` loop's iterator takes: 3.15 ``GET_ITER`` pushes the iterator
#: and a second item (``NULL`` or an index), which ``POP_ITER`` pops with it.
ITERATOR_SLOTS = 2 if VERSION >= (3, 15) else 1

#: Up to 3.13 ``not a in b`` (``is``, too) in a condition compiles as ``a not in b``; 3.14+
#: keep the ``not`` as a reversed jump, so negating a condition must not flip its operator.
FOLDS_NOT_INTO_COMPARISON = VERSION < (3, 14)

#: 3.9+ build a list/set display of at least 3 constants (and nothing else) by extending an
#: empty one with a constant tuple/frozenset; 3.14+ do so for such a run of constants before
#: the display's first ``*item`` too (the optimizer folds it, not the code generator).
SHORTEST_FOLDED_DISPLAY = 3
FOLDS_CONSTANTS_BEFORE_UNPACKING = VERSION >= (3, 14)

#: 3.15 folds ``GET_YIELD_FROM_ITER`` into ``GET_ITER`` with this operand (None: not folded).
GET_ITER_YIELD_FROM = 3 if VERSION >= (3, 15) else None

#: 3.15 ``IMPORT_NAME`` keeps flags in its two low bits; this one marks ``lazy import``.
IMPORT_NAME_LAZY_FLAG = 1 if VERSION >= (3, 15) else 0

#: 3.14+ ``__annotate__`` functions (PEP 649) hold the annotations of a definition; the
#: names a class or module body binds them to.
ANNOTATE_NAMES: FrozenSet[str] = (
    frozenset({"__annotate__", "__annotate_func__"}) if VERSION >= (3, 14) else frozenset()
)

#: 3.10+ may compile ``while c: body`` as ``if c: do body while c`` (condition copied to
#: the bottom: ``POP_JUMP_IF_TRUE body`` on 3.10/3.11, ``POP_JUMP_IF_FALSE exit; JUMP_BACKWARD
#: body`` on 3.12/3.13); 3.8/3.9 and 3.14+ always jump back to a single test at the top.
DUPLICATES_WHILE_CONDITION = (3, 10) <= VERSION < (3, 14)

#: 3.11+ ``BINARY_OP`` carries the operator; this is its table (``dis._nb_ops``).
BINARY_OPERATORS: List[str] = [sign for _, sign in getattr(dis, "_nb_ops", [])]

#: The operator of each pre-3.11 binary/in-place opcode.
LEGACY_BINARY_OPCODES: Dict[str, str] = {
    "BINARY_POWER": "**",
    "BINARY_MULTIPLY": "*",
    "BINARY_MATRIX_MULTIPLY": "@",
    "BINARY_FLOOR_DIVIDE": "//",
    "BINARY_TRUE_DIVIDE": "/",
    "BINARY_MODULO": "%",
    "BINARY_ADD": "+",
    "BINARY_SUBTRACT": "-",
    "BINARY_LSHIFT": "<<",
    "BINARY_RSHIFT": ">>",
    "BINARY_AND": "&",
    "BINARY_XOR": "^",
    "BINARY_OR": "|",
}
LEGACY_BINARY_OPCODES.update(
    {name.replace("BINARY_", "INPLACE_"): sign + "=" for name, sign in list(LEGACY_BINARY_OPCODES.items())}
)

#: 3.8 ``COMPARE_OP`` operands that later versions made instructions of their own
#: (neutral op, argument). ``exception match`` leaves the exception below the result
#: as 3.11+ ``CHECK_EXC_MATCH`` does only after the ``DUP_TOP`` 3.8 emits before it.
LEGACY_COMPARE_OPCODES: Dict[str, Tuple[str, object]] = {
    "is": ("IS_OP", False),
    "is not": ("IS_OP", True),
    "in": ("CONTAINS_OP", False),
    "not in": ("CONTAINS_OP", True),
    "exception match": ("EXC_MATCH", None),
}

#: Opcodes renamed across versions, mapped to the neutral name the decompiler uses.
RENAMED: Dict[str, str] = {
    "POP_JUMP_FORWARD_IF_FALSE": "POP_JUMP_IF_FALSE",
    "POP_JUMP_BACKWARD_IF_FALSE": "POP_JUMP_IF_FALSE",
    "POP_JUMP_FORWARD_IF_TRUE": "POP_JUMP_IF_TRUE",
    "POP_JUMP_BACKWARD_IF_TRUE": "POP_JUMP_IF_TRUE",
    "POP_JUMP_FORWARD_IF_NONE": "POP_JUMP_IF_NONE",
    "POP_JUMP_BACKWARD_IF_NONE": "POP_JUMP_IF_NONE",
    "POP_JUMP_FORWARD_IF_NOT_NONE": "POP_JUMP_IF_NOT_NONE",
    "POP_JUMP_BACKWARD_IF_NOT_NONE": "POP_JUMP_IF_NOT_NONE",
    "JUMP_FORWARD": "JUMP",
    "JUMP_BACKWARD": "JUMP",
    "JUMP_ABSOLUTE": "JUMP",
    "JUMP_BACKWARD_NO_INTERRUPT": "JUMP",
    "JUMP_NO_INTERRUPT": "JUMP",
    "LOAD_FAST_CHECK": "LOAD_FAST",
    "LOAD_FAST_BORROW": "LOAD_FAST",
    "LOAD_METHOD": "LOAD_ATTR",
    "BEFORE_ASYNC_WITH": "BEFORE_WITH",
    "SETUP_ASYNC_WITH": "SETUP_WITH",
    "DUP_TOP": "COPY",
    "ROT_TWO": "SWAP",
    "LOAD_CONST_IMMORTAL": "LOAD_CONST",
    "LOAD_CONST_MORTAL": "LOAD_CONST",
    "LOAD_SMALL_INT": "LOAD_CONST",
    "END_ASYNC_FOR": "END_ASYNC_FOR",
}

#: Superinstructions, split into the plain instructions they stand for (3.13+).
SUPERINSTRUCTIONS: Dict[str, Tuple[str, str]] = {
    "LOAD_FAST_LOAD_FAST": ("LOAD_FAST", "LOAD_FAST"),
    "LOAD_FAST_BORROW_LOAD_FAST_BORROW": ("LOAD_FAST", "LOAD_FAST"),
    "STORE_FAST_LOAD_FAST": ("STORE_FAST", "LOAD_FAST"),
    "STORE_FAST_STORE_FAST": ("STORE_FAST", "STORE_FAST"),
}

#: Instructions with no effect on the program's meaning at source level.
NO_OPS: FrozenSet[str] = frozenset(
    {
        "NOP",
        "RESUME",
        "CACHE",
        "EXTENDED_ARG",
        "PRECALL",
        "COPY_FREE_VARS",
        "MAKE_CELL",
        "TO_BOOL",
        "NOT_TAKEN",
        "SETUP_ANNOTATIONS_NOP",
        "GEN_START",  # 3.10: pops the first sent value of a generator, nothing at source level
        "ASYNC_GEN_WRAP",  # 3.11: marks the value an async generator yields (``yield x`` itself)
    }
)

#: ``CALL_INTRINSIC_1`` operand names (3.12+), from the interpreter itself.
INTRINSIC_1: List[str] = list(getattr(__import__("opcode"), "_intrinsic_1_descs", []))
INTRINSIC_2: List[str] = list(getattr(__import__("opcode"), "_intrinsic_2_descs", []))

#: 3.12+: the hidden function that builds a generic definition's type parameters, then the
#: definition itself (``def f[T]``, ``class C[T]``, ``type A[T] = ...``) is named this + the name.
GENERIC_PARAMETERS_PREFIX = "<generic parameters of "

#: ``CALL_INTRINSIC_1`` operations with no effect at source level: 3.12+ mark the value an async
#: generator yields (3.11: ``ASYNC_GEN_WRAP``, in :data:`NO_OPS`).
NO_OP_INTRINSICS: FrozenSet[str] = frozenset({"INTRINSIC_ASYNC_GEN_WRAP"})

#: What 3.14+ ``LOAD_COMMON_CONSTANT`` loads, by operand (builtins, and on 3.15 literals too).
COMMON_CONSTANTS: List[object] = list(getattr(__import__("opcode"), "_common_constants", []))

#: ``FORMAT_VALUE`` conversion flags (<= 3.12) and ``CONVERT_VALUE`` operands (3.13+).
FORMAT_CONVERSIONS: Dict[int, int] = {0: -1, 1: ord("s"), 2: ord("r"), 3: ord("a")}

#: Which comparison operator text 3.12+ COMPARE_OP encodes in its high bits (dis gives it).
COMPARE_OPERATORS = ("<", "<=", "==", "!=", ">", ">=")

#: Opcodes that end a function/path without falling through.
TERMINATORS: FrozenSet[str] = frozenset({"RETURN_VALUE", "RAISE_VARARGS", "RERAISE", "JUMP"})

#: Conditional jumps in neutral form.
CONDITIONAL_JUMPS: FrozenSet[str] = frozenset(
    {"POP_JUMP_IF_FALSE", "POP_JUMP_IF_TRUE", "POP_JUMP_IF_NONE", "POP_JUMP_IF_NOT_NONE"}
)

# --- Encoding facts read by uncompile.bytecode.reader (decoding ``co_code`` directly). ---

#: Jump operands count bytes on 3.8 - 3.9 and code units (2 bytes) from 3.10 on.
JUMP_OPERAND_BYTES = 1 if VERSION < (3, 10) else 2

#: 3.12+ relative jumps are measured from the end of the jump's inline cache entries.
JUMPS_SKIP_CACHES = VERSION >= (3, 12)

#: 3.11+ local and cell/free operands index one table of both, not a table each.
LOCALS_PLUS_CELLS = VERSION >= (3, 11)

#: 3.12+ conditional jumps go forward only: a conditional jump back is the inverted jump over
#: an unconditional ``JUMP_BACKWARD``.
CONDITIONAL_JUMPS_FORWARD_ONLY = VERSION >= (3, 12)

#: 3.10 - 3.12 thread the jump of a comprehension's test (or a loop's) to the jump back after
#: the element only where both stand on one line: a test that jumps to that jump had the element
#: on another line (3.8 - 3.9 thread it always, 3.13+ copy the jump back to each test instead).
THREADS_JUMPS_ON_ONE_LINE_ONLY = (3, 10) <= VERSION < (3, 13)

#: Relative jumps that go backwards (3.11+); 3.14+ ``END_ASYNC_FOR`` is encoded as one too.
BACKWARD_JUMPS: FrozenSet[str] = frozenset(
    name for name in dis.opname if "JUMP_BACKWARD" in name or (name == "END_ASYNC_FOR" and VERSION >= (3, 14))
)

#: Name operands that keep flags in their low bits: the number of flag bits (3.11+
#: ``LOAD_GLOBAL`` pushes ``NULL``, 3.12+ ``LOAD_ATTR`` is a method load, ``LOAD_SUPER_ATTR``,
#: 3.15 ``IMPORT_NAME`` lazy/eager).
NAME_FLAG_BITS: Dict[str, int] = {
    name: bits
    for name, bits, since in (
        ("LOAD_GLOBAL", 1, (3, 11)),
        ("LOAD_ATTR", 1, (3, 12)),
        ("LOAD_SUPER_ATTR", 2, (3, 12)),
        ("IMPORT_NAME", 2, (3, 15)),
    )
    if VERSION >= since
}

#: 3.13+ superinstructions whose operand packs two local slots (high and low 4 bits).
PAIRED_LOCAL_OPS: FrozenSet[str] = (
    frozenset(
        {
            "LOAD_FAST_LOAD_FAST",
            "LOAD_FAST_BORROW_LOAD_FAST_BORROW",
            "STORE_FAST_LOAD_FAST",
            "STORE_FAST_STORE_FAST",
        }
    )
    if VERSION >= (3, 13)
    else frozenset()
)

#: ``COMPARE_OP`` keeps the operator index above this many low (flag) bits.
COMPARE_OPERAND_SHIFT = 5 if VERSION >= (3, 13) else 4 if VERSION >= (3, 12) else 0


def _inline_cache_counts() -> Dict[str, int]:
    """Inline ``CACHE`` code units after each instruction (3.11+), from the interpreter's tables."""
    counts: Dict[str, int] = {}
    size_of = getattr(dis, "_get_cache_size", None)
    entries = getattr(__import__("opcode"), "_inline_cache_entries", None)
    for code, name in enumerate(dis.opname):
        if size_of is not None:
            count = size_of(name)
        elif isinstance(entries, list):
            count = entries[code] if code < len(entries) else 0
        else:
            count = 0
        if count:
            counts[name] = count
    return counts


#: Inline ``CACHE`` code units following each instruction (by name; absent: none).
INLINE_CACHES: Dict[str, int] = _inline_cache_counts()
