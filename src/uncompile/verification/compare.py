"""Compare two code objects instruction by instruction, ignoring layout noise.

Two code objects are *identical* for uncompile when, recursively for every nested code
object (matched in the order they appear in ``co_consts``):

* their signatures agree: ``co_name``, argument counts, argument names, ``co_freevars``,
  ``co_cellvars``, the docstring and ``co_flags`` (less the flags that depend on where the code was
  compiled rather than on what it says: ``CO_NESTED`` and ``CO_NOFREE``);
* their instruction streams agree in opname and argument (``argval``, plus ``argrepr``
  where that carries extra bits, e.g. the 3.11+ ``NULL`` bit of ``LOAD_GLOBAL``), jump
  targets compared as positions in the stream rather than byte offsets;
* on 3.11+, every instruction is covered by the same exception handler (target position,
  stack depth, ``lasti``).

Layout noise that is dropped before comparing: line numbers and positions, ``NOP``,
``EXTENDED_ARG`` (folded into its instruction by :mod:`dis`), ``CACHE`` entries,
``RESUME`` (3.11+, its argument says where the frame was entered, nothing about the code)
``NOT_TAKEN`` (3.14+, a marker for branch monitoring that executes nothing), and the
3.11+ prologue ``MAKE_CELL``/``COPY_FREE_VARS``, which only restate ``co_cellvars`` and
``co_freevars`` (compared on their own). The
constant that a 3.13+ class body stores in ``__firstlineno__`` is a line number too, so
its value is not compared. ``RETURN_CONST`` (3.12, 3.13) is compared as the ``LOAD_CONST;
RETURN_VALUE`` it stands for, so a placeholder bound back by recompile (which can only
become ``LOAD_CONST``) still compares identical. The 3.13+ superinstructions that pair two
local-variable accesses (``LOAD_FAST_LOAD_FAST a, b``) are compared as the two accesses:
the compiler pairs them only when both are on the same line. For the same reason a 3.14+
``LOAD_FAST_BORROW`` compares as ``LOAD_FAST``: the load that a ``STORE_FAST_LOAD_FAST`` pair
contains is never borrowed, so whether a load is borrowed follows the line layout too.
"""

from __future__ import annotations

import dataclasses
import dis
import inspect
from types import CodeType
from typing import Any, Dict, List, NamedTuple, Optional, Set, Tuple

#: Instructions that carry no meaning of their own; see the module docstring.
LAYOUT_NOISE = frozenset(
    {"NOP", "EXTENDED_ARG", "CACHE", "RESUME", "NOT_TAKEN", "MAKE_CELL", "COPY_FREE_VARS"}
)

#: ``co_flags`` bits that say where the code was compiled, not what it does.
CONTEXT_FLAGS = inspect.CO_NESTED | getattr(inspect, "CO_NOFREE", 0x40)

_JUMP_OPCODES = frozenset(dis.hasjrel) | frozenset(dis.hasjabs) | frozenset(getattr(dis, "hasjump", ()))
_CONST_OPNAMES = frozenset({"LOAD_CONST", "RETURN_CONST", "LOAD_SMALL_INT"})


@dataclasses.dataclass(frozen=True)
class Difference:
    """The first place where two code objects differ.

    *path* names the code object (``outer.<locals>.inner``), *index* the position of the
    instruction in the compared stream (None for a difference in the signature), *offset*
    the byte offset of the expected instruction in the original code (None when there is
    none), *expected* and *got* describe what each side has there.
    """

    path: str
    index: Optional[int]
    offset: Optional[int]
    expected: str
    got: str

    def __str__(self) -> str:
        where = self.path
        if self.index is not None:
            where += " instruction %d" % self.index
            if self.offset is not None:
                where += " (offset %d)" % self.offset
        return "%s: expected %s, got %s" % (where, self.expected, self.got)


class _Step(NamedTuple):
    """One meaningful instruction, with its jump target as a position."""

    offset: int
    text: str


def constant_key(value: Any) -> Any:
    """A hashable key under which two constants are equal iff the compiler treats them as one.

    Unlike ``==``, distinguishes ``0``/``0.0``/``False`` and ``0.0``/``-0.0``, and equates NaNs.
    Objects without a literal form (placeholders bound back by recompile) compare by identity.
    """
    if isinstance(value, CodeType):
        return ("code", value.co_name)
    kind = type(value)
    if kind in (float, complex):
        return (kind.__name__, repr(value))
    if kind is tuple:
        return ("tuple",) + tuple(constant_key(item) for item in value)
    if kind is slice:  # 3.14+ folds constant slices
        return ("slice", constant_key(value.start), constant_key(value.stop), constant_key(value.step))
    if kind is frozenset:
        return ("frozenset", tuple(sorted(repr(constant_key(item)) for item in value)))
    if kind in (int, bool, str, bytes, type(None), type(Ellipsis)):
        return (kind.__name__, value)
    return ("object", id(value))


def _describe_constant(value: Any) -> str:
    """The constant as the difference report shows it; equal constants are described alike."""
    if isinstance(value, CodeType):
        return "<code %s>" % value.co_name
    if type(value) is frozenset:  # iteration order depends on insertion order and string hashes
        text = "frozenset({%s})" % ", ".join(sorted(repr(item) for item in value))
    else:
        text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


class _Unit(NamedTuple):
    """One compared element: an instruction, or one half of an instruction that stands for two.

    *operand* is None for a whole instruction (its own argument is compared), else the
    argument of the half (a variable name).
    """

    instruction: dis.Instruction
    opname: str
    operand: Optional[str] = None


_PAIR_PARTS = ("LOAD_FAST_BORROW", "LOAD_FAST", "STORE_FAST")
#: Instructions compared as another one (see the module docstring).
_SAME_AS = {"LOAD_FAST_BORROW": "LOAD_FAST"}


def _split_pair(instruction: dis.Instruction) -> Optional[List[_Unit]]:
    """The two halves of a 3.13+ ``X_Y`` superinstruction (``LOAD_FAST_LOAD_FAST a, b``), or None."""
    name = instruction.opname
    for first in _PAIR_PARTS:
        second = name[len(first) + 1 :]
        if name.startswith(first + "_") and second in _PAIR_PARTS and isinstance(instruction.argval, tuple):
            first_name, second_name = instruction.argval
            return [_Unit(instruction, first, str(first_name)), _Unit(instruction, second, str(second_name))]
    return None


def _units(instructions: List[dis.Instruction]) -> Tuple[List[_Unit], Dict[int, int]]:
    """The compared elements, and a map from every byte offset to its stream position.

    An offset of a dropped instruction maps to the next kept one, which is where a jump
    to it lands in effect.
    """
    units: List[_Unit] = []
    positions: Dict[int, int] = {}
    for instruction in instructions:
        positions[instruction.offset] = len(units)
        if instruction.opname in LAYOUT_NOISE:
            continue
        if instruction.opname == "RETURN_CONST":
            units.append(_Unit(instruction, "LOAD_CONST"))
            units.append(_Unit(instruction, "RETURN_VALUE", ""))
            continue
        parts = _split_pair(instruction) or [_Unit(instruction, instruction.opname)]
        units.extend(part._replace(opname=_SAME_AS.get(part.opname, part.opname)) for part in parts)
    return units, positions


def _unit_text(unit: _Unit, positions: Dict[int, int]) -> str:
    """The part of an instruction that must match, with jumps as stream positions."""
    instruction, name, operand = unit
    if operand is not None:
        return ("%s %s" % (name, operand)).rstrip()
    if instruction.opcode in _JUMP_OPCODES:
        return "%s ->%s" % (name, positions.get(instruction.argval, "?"))
    if name in _CONST_OPNAMES:
        return "%s %s" % (name, _describe_constant(instruction.argval))
    if instruction.arg is None:
        return name
    if name == "KW_NAMES":
        return "%s %r" % (name, instruction.argval)
    return "%s %s" % (name, instruction.argrepr or repr(instruction.argval))


def _handlers(code: CodeType, units: List[_Unit], positions: Dict[int, int]) -> List[str]:
    """For each unit, which exception handler covers it (3.11+ exception table)."""
    entries = getattr(dis.Bytecode(code), "exception_entries", None)
    handlers = ["-"] * len(units)
    for index, unit in enumerate(units):
        for entry in entries or ():
            if entry.start <= unit.instruction.offset < entry.end:
                handlers[index] = "handler ->%s depth %d%s" % (
                    positions.get(entry.target, "?"),
                    entry.depth,
                    " lasti" if entry.lasti else "",
                )
                break
    return handlers


def _steps(code: CodeType) -> Tuple[List[_Step], List[Any], List[str]]:
    units, positions = _units(list(dis.get_instructions(code)))
    steps = [_Step(unit.instruction.offset, _unit_text(unit, positions)) for unit in units]
    const_keys = [
        constant_key(unit.instruction.argval) if unit.opname in _CONST_OPNAMES else None for unit in units
    ]
    for index in range(1, len(units)):
        instruction = units[index].instruction
        if instruction.opname == "STORE_NAME" and instruction.argval == "__firstlineno__":
            steps[index - 1] = _Step(steps[index - 1].offset, "<line number of the class>")
            const_keys[index - 1] = None
    return steps, const_keys, _handlers(code, units, positions)


def _argument_names(code: CodeType) -> Tuple[str, ...]:
    count = code.co_argcount + code.co_kwonlyargcount
    count += bool(code.co_flags & inspect.CO_VARARGS) + bool(code.co_flags & inspect.CO_VARKEYWORDS)
    return tuple(code.co_varnames[:count])


_HAS_DOCSTRING = getattr(inspect, "CO_HAS_DOCSTRING", 0)


def docstring_of(code: CodeType) -> Optional[str]:
    """The docstring of a function's code (it is no instruction's argument, so it is compared apart).

    Up to 3.13 a function's first constant is its docstring or None; from 3.14 it is the
    docstring when ``CO_HAS_DOCSTRING`` is set. Class and module docstrings are stored by
    instructions and compared with them.
    """
    if not code.co_flags & inspect.CO_OPTIMIZED or not code.co_consts:
        return None
    if _HAS_DOCSTRING and not code.co_flags & _HAS_DOCSTRING:
        return None
    first = code.co_consts[0]
    return first if isinstance(first, str) else None


def _signature(code: CodeType) -> List[Tuple[str, Any]]:
    return [
        ("co_name", code.co_name),
        ("co_argcount", code.co_argcount),
        ("co_posonlyargcount", getattr(code, "co_posonlyargcount", 0)),
        ("co_kwonlyargcount", code.co_kwonlyargcount),
        ("argument names", _argument_names(code)),
        ("co_freevars", code.co_freevars),
        ("co_cellvars", code.co_cellvars),
        ("co_flags", hex(code.co_flags & ~CONTEXT_FLAGS)),
        ("docstring", docstring_of(code)),
    ]


def is_class_body(code: CodeType) -> bool:
    """True for the code of a class body (neither a function nor a module)."""
    return not code.co_flags & inspect.CO_OPTIMIZED and code.co_name != "<module>"


_COMPREHENSION_NAMES = frozenset({"<listcomp>", "<setcomp>", "<dictcomp>", "<genexpr>"})


def child_path(parent_path: str, parent: CodeType, child: CodeType) -> str:
    """The qualified path of *child*, a code object in the constants of *parent*.

    Follows CPython's rule for ``__qualname__``: ``.<locals>`` after a function or lambda,
    not after a class body, a comprehension or the module.
    """
    if parent.co_name == "<module>" and not parent.co_flags & inspect.CO_OPTIMIZED:
        return child.co_name
    if is_class_body(parent) or parent.co_name in _COMPREHENSION_NAMES:
        return "%s.%s" % (parent_path, child.co_name)
    return "%s.<locals>.%s" % (parent_path, child.co_name)


def nested_code(code: CodeType) -> List[CodeType]:
    """The code objects among ``co_consts``, in order."""
    return [const for const in code.co_consts if isinstance(const, CodeType)]


def _names_used(code: CodeType) -> Set[str]:
    names = set(code.co_names) | set(code.co_varnames) | set(code.co_cellvars) | set(code.co_freevars)
    for child in nested_code(code):
        names |= _names_used(child)
    return names


def lost_names(expected: CodeType, got: CodeType) -> List[str]:
    """The names that *expected* or the code nested in it uses and *got* does not, sorted: a
    sign that the source left code out (rather than laid it out another way). The compiler's
    own names (``.0``, comprehension temporaries) are left out."""
    return sorted(name for name in _names_used(expected) - _names_used(got) if not name.startswith("."))


def compare_code(expected: CodeType, got: CodeType, path: Optional[str] = None) -> Optional[Difference]:
    """Return None when *got* is identical to *expected*, else the first :class:`Difference`."""
    if path is None:
        path = getattr(expected, "co_qualname", expected.co_name)
    for (field, want), (_, have) in zip(_signature(expected), _signature(got)):
        if want != have:
            return Difference(path, None, None, "%s %r" % (field, want), "%r" % (have,))
    difference = _compare_instructions(expected, got, path)
    if difference is not None:
        return difference
    expected_children, got_children = nested_code(expected), nested_code(got)
    for want_child, have_child in zip(expected_children, got_children):
        difference = compare_code(want_child, have_child, child_path(path, expected, want_child))
        if difference is not None:
            return difference
    if len(expected_children) != len(got_children):
        return Difference(
            path,
            None,
            None,
            "nested code %s" % [child.co_name for child in expected_children],
            "%s" % [child.co_name for child in got_children],
        )
    return None


def _compare_instructions(expected: CodeType, got: CodeType, path: str) -> Optional[Difference]:
    want_steps, want_keys, want_handlers = _steps(expected)
    have_steps, have_keys, have_handlers = _steps(got)
    for index, (want, have) in enumerate(zip(want_steps, have_steps)):
        if want.text != have.text or want_keys[index] != have_keys[index]:
            return Difference(path, index, want.offset, want.text, have.text)
        if want_handlers[index] != have_handlers[index]:
            return Difference(
                path,
                index,
                want.offset,
                "%s under %s" % (want.text, want_handlers[index]),
                "under %s" % have_handlers[index],
            )
    if len(want_steps) > len(have_steps):
        index = len(have_steps)
        return Difference(path, index, want_steps[index].offset, want_steps[index].text, "end of code")
    if len(have_steps) > len(want_steps):
        index = len(want_steps)
        return Difference(path, index, None, "end of code", have_steps[index].text)
    return None
