"""Symbolic execution for Dynamo's bytecode: values kept on the stack across statements.

Ordinary compiler output evaluates a statement's values right before the statement, so
the plain :class:`~uncompile.expressions.simulator.Simulator` can keep every stack item
as an expression tree and print it where it is used. Dynamo's generated code does not:
it loads ``__compiled_fn_N`` before calling helpers, keeps results on the stack across
``del`` and stores, shuffles them with ``SWAP``/``COPY``, duplicates lists and mutates
them in place (``LIST_EXTEND``/``STORE_SUBSCR``/``DELETE_SUBSCR`` on a list that is also
elsewhere on the stack) before passing them to a ``__resume_at_*`` function.

:class:`DynamoSimulator` keeps the printed program faithful to that with as few new
names as it can. It keeps one invariant: the stack items whose evaluation can have an
effect or can see one ("unstable": calls, attribute and item loads, operators, mutable
displays) sit on the stack in the order they were evaluated. Where the bytecode would
break it, the unstable items concerned are *spilled*: assigned to a new local
``stack_<n>`` right there, in stack order, and replaced on the stack by that name. Spills
happen

* before a simple statement, for every unstable item still on the stack (the statement
  comes after them in the bytecode) and for every item that reads a name the statement
  binds or deletes; ``del name`` and a store of a stable value commute with unstable
  items that do not read the name, so they spill nothing;
* before a conditional jump, for the unstable items under the condition;
* at ``SWAP``/``ROT_*`` that would put two unstable items out of order;
* at ``COPY`` of an unstable item that is not immediately stored (a name stands for
  both copies, which also keeps a copied list one object);
* at in-place updates of something that is not a display being built (``x.extend(y)``).

A value stored while a copy of it stays on the stack (``COPY 1; STORE_FAST tmp``) is
written ``tmp = value`` and the stack holds ``tmp`` from then on.

Lists that only the stack holds (the frame values passed to resume functions) are edited at
decompile time (:mod:`.frame_lists`); the items above are then the values inside them, so a
spill names a value, never the list around it. Which items are stable is said by
:mod:`.dynamo_effects`; the ``tmp_<n>`` locals that Dynamo's code needs no name for are left
out by :mod:`.dynamo_temps`.
"""

from __future__ import annotations

import ast
from types import CodeType
from typing import Any, Iterable, List, Optional, Set

from ..bytecode import versions as V
from ..bytecode.exception_table import exception_handlers
from ..bytecode.instructions import Instr, read_instructions
from . import values as M
from .dynamo_effects import (
    commutes,
    is_bookkeeping,
    loads_only,
    loads_only_assignment,
    mutable,
    names_bound,
    reads,
    stable,
)
from .dynamo_temps import DynamoTemporaries
from .frame_lists import FrameListOps
from .held_lists import held, leaves, parts, references, replace, unshare
from .simulator import Simulator, Stack

_DYNAMO_GLOBAL_PREFIXES = ("__compiled_fn_", "__resume_at_", "__import_torch_dot_")
_DYNAMO_CODE_PREFIXES = ("__resume_at_", "torch_dynamo_resume_in_")
#: Those prefixes at the start of a line (looked for in a code object's names, one a line).
_DYNAMO_GLOBAL_LINE_STARTS = tuple("\n" + prefix for prefix in _DYNAMO_GLOBAL_PREFIXES)
_SIMPLE_STATEMENTS = (ast.Assign, ast.AugAssign, ast.Expr, ast.Delete, ast.Return, ast.Raise)
_NOT_STRAIGHT = frozenset(
    {"RAISE_VARARGS", "RERAISE", "SETUP_FINALLY", "SETUP_WITH", "BEFORE_WITH", "PUSH_EXC_INFO", "YIELD_VALUE"}
)
#: The stack items a spill can name (values, and functions not yet stored).
_SPILLABLE = (ast.expr, ast.Slice, M.FunctionValue)
#: How the instruction after an unpacking starts when the unpacked items go to targets.
_TARGET_STARTS = ("STORE_", "LOAD_", "UNPACK_")
#: The prefix of the locals that hold spilled stack items.
SPILL_PREFIX = "stack_"


def is_dynamo_code(code: Any) -> bool:
    """True for code objects that Dynamo generated (transformed frames, resume functions)."""
    if not isinstance(code, CodeType):
        return False
    if code.co_name.startswith(_DYNAMO_CODE_PREFIXES):
        return True
    # asked of every code object decompiled: a substring search per prefix, not a call per name
    names = "\n" + "\n".join(code.co_names)
    if "\n__" not in names:  # what every prefix starts with: one search for most code objects
        return False
    for line_start in _DYNAMO_GLOBAL_LINE_STARTS:
        if line_start in names:
            return True
    return False


class DynamoSimulator(DynamoTemporaries, FrameListOps, Simulator):
    """A :class:`Simulator` for Dynamo's code; see the module docstring."""

    def __init__(self, code: Any, nested: Any, instrs: Optional[List[Instr]] = None) -> None:
        super().__init__(code, nested)
        self.settled = {}
        self.built_lists = False  # whether a BUILD_LIST ran (see FrameListOps.settle)
        self.stack: Stack = []
        taken = set(code.co_varnames) | set(code.co_names) | set(code.co_cellvars) | set(code.co_freevars)
        self._taken = taken
        self._spills = 0
        self._exempt: Any = None
        self.instrs = read_instructions(code) if instrs is None else instrs
        self.init_temporaries(self.instrs)
        self._indexes = {ins.offset: ins.index for ins in self.instrs}
        self._jump_targets = {ins.target for ins in self.instrs if ins.target is not None}
        self._jump_targets |= {handler.target for handler in exception_handlers(code, self.instrs)}
        self.current: Any = None
        self._bookkeeping_names: Set[str] = set()
        #: ``del`` statements moved after the statement that consumes what reads their names.
        self.deferred: List[ast.stmt] = []

    # -- spilling -----------------------------------------------------------------------

    def _new_name(self) -> str:
        while True:
            self._spills += 1
            name = "%s%d" % (SPILL_PREFIX, self._spills)
            if name not in self._taken:
                self._taken.add(name)
                return name

    def spill(self, stack: Stack, item: Any, ins: Any = None) -> ast.Name:
        """Assign *item* to a new local now; every occurrence on *stack* becomes that name."""
        name = self._new_name()
        value = item if isinstance(item, (ast.expr, ast.Slice)) else self.calls.function_expr(item)
        statement = ast.Assign(targets=[ast.Name(id=name, ctx=ast.Store())], value=value, type_comment=None)
        load = ast.Name(id=name, ctx=ast.Load())
        replace(stack, item, load)
        self.settle_statement(stack, statement)
        Simulator.emit(self, statement)
        return load

    def spill_items(self, stack: Stack, items: Iterable[Any]) -> None:
        """Spill *items* (stack items) in stack order, each object once."""
        wanted = {id(item) for item in items}
        for item in list(parts(stack)):
            if id(item) in wanted:
                self.spill(stack, item)

    def _spillable(self, item: Any) -> bool:
        return isinstance(item, _SPILLABLE)

    def unstable(self, stack: Stack, start: int = 0, items: Optional[List[Any]] = None) -> List[Any]:
        """The values with effects on *stack* from *start* on, looking inside held lists.

        *items*: ``parts(stack)`` when the caller has it already (*start* is 0 then).
        """
        if items is None:
            items = leaves(stack[start:] if start else stack)
        else:
            items = [item for item in items if not (isinstance(item, ast.List) and held(item))]
        return [item for item in items if isinstance(item, _SPILLABLE) and not stable(item)]

    def readers(self, stack: Stack, names: Set[str], items: Optional[List[Any]] = None) -> List[Any]:
        """The items on *stack* (inside held lists too) that read one of *names*. A held list
        with ``*x`` in it counts as a whole: it copied the items of x when it was made.

        *items*: ``parts(stack)`` when the caller has it already.
        """
        if not names:
            return []
        copies, starred, found = [], set(), []
        for part in parts(stack) if items is None else items:
            if not (isinstance(part, ast.List) and held(part)):
                found.append(part)
                continue
            spread = [item.value for item in part.elts if isinstance(item, ast.Starred)]
            if any(reads(value, names) for value in spread):
                copies.append(part)
                starred |= {id(value) for value in spread}
        return copies + [
            item
            for item in found
            if isinstance(item, _SPILLABLE) and id(item) not in starred and reads(item, names)
        ]

    def before_branch(self, stack: Stack, condition: Any = None) -> None:
        """Before a conditional jump: the items under *condition* are evaluated before it."""
        returns = self._returns_after_branch()
        if self.deferred and returns:
            self.deferred = []  # both ways return right away: the deletes cannot be observed
        self.flush_deferred(stack)
        if not returns:  # the ways meet again: a list edited on one of them needs a name
            for part in list(parts(stack)):
                if held(part):
                    self.materialize(stack, part)
        self.spill_items(stack, [item for item in self.unstable(stack) if item is not condition])

    def carry_stack(self, inner: Stack, outer: Stack) -> List[ast.stmt]:
        """After a protected region that left *inner* as the stack: spill it, make *outer* that.

        Returns the spill statements, which belong at the end of the region's body.
        """
        with self.scratch():
            self.flush_deferred(inner)
            old = {id(leaf) for leaf in leaves(outer)}
            self.spill_items(inner, [leaf for leaf in self.unstable(inner) if id(leaf) not in old])
            spills = self.out
        outer[:] = inner
        return spills

    # -- statements -----------------------------------------------------------------------

    def emit(self, stmt: ast.stmt) -> None:
        stack = self.stack
        if stack and isinstance(stmt, _SIMPLE_STATEMENTS):
            bound = names_bound(stmt)
            items = parts(stack)
            readers = self.readers(stack, bound, items)
            if self.deferred and bound & {name for d in self.deferred for name in names_bound(d)}:
                self.flush_deferred(stack)
                items = parts(stack)
                readers = self.readers(stack, bound, items)
            if readers and isinstance(stmt, ast.Delete) and commutes(stmt) and self._straight_segment():
                self.deferred.append(stmt)  # ``del graph_out_0`` before ``return graph_out_0[0]``
                return
            if isinstance(stmt, ast.Raise) and self.deferred:
                self.flush_deferred(stack)
                items = parts(stack)
            hazards = readers
            helpers = self._bookkeeping_names
            if loads_only_assignment(stmt, helpers) or self._bookkeeping(stmt):
                hazards += [
                    item for item in self.unstable(stack, items=items) if not loads_only(item, helpers)
                ]
            elif not commutes(stmt):
                hazards += self.unstable(stack, items=items)
            hazards = [item for item in hazards if item is not self._exempt]
            if hazards:
                pending, self.pending = self.pending, []
                self.spill_items(stack, hazards)
                self.pending = pending
        self.settle_statement(stack, stmt)
        Simulator.emit(self, stmt)
        if self.deferred and isinstance(stmt, ast.Return):
            self.deferred = []  # the frame's locals end here: the deletes cannot be observed
        elif self.deferred:
            ready = [d for d in self.deferred if not any(reads(item, names_bound(d)) for item in stack)]
            self.deferred = [d for d in self.deferred if d not in ready]
            for delete in ready:
                Simulator.emit(self, delete)

    def _straight_segment(self) -> bool:
        """The instructions after the current one run straight to a ``return`` or a conditional jump."""
        current = self.current
        if current is None:
            return False
        for ins in self.instrs[current.index + 1 :]:
            if ins.offset in self._jump_targets or ins.op in _NOT_STRAIGHT:
                return False
            if ins.op == "RETURN_VALUE" or ins.op in V.CONDITIONAL_JUMPS:
                return True
            if ins.target is not None:
                return False
        return False

    def _returns_after_branch(self) -> bool:
        """The conditional jump after the current instruction leads, both ways, straight to a ``return``."""
        current = self.current
        if current is None or current.index + 1 >= len(self.instrs):
            return False
        jump = self.instrs[current.index + 1]
        if jump.op not in V.CONDITIONAL_JUMPS or jump.target not in self._indexes:
            return False
        return all(self._runs_to_return(start) for start in (jump.index + 1, self._indexes[jump.target]))

    def _runs_to_return(self, start: int) -> bool:
        for ins in self.instrs[start:]:
            if ins.op in _NOT_STRAIGHT or ins.target is not None:
                return False
            if ins.op == "RETURN_VALUE":
                return True
        return False

    def flush_deferred(self, stack: Stack) -> None:
        """Emit the deferred ``del`` statements now, spilling what still reads their names."""
        deferred, self.deferred = self.deferred, []
        for delete in deferred:
            names = names_bound(delete)
            readers = self.readers(stack, names)
            self.spill_items(stack, readers)
            Simulator.emit(self, delete)

    def _bookkeeping(self, stmt: ast.stmt) -> bool:
        """A call of Dynamo's ``record_*`` helpers (timing of the pre-graph code): no effect on values."""
        value = getattr(stmt, "value", None)
        if not isinstance(stmt, (ast.Expr, ast.Assign)) or not isinstance(value, ast.Call):
            return False
        if isinstance(stmt, ast.Assign) and not all(isinstance(t, ast.Name) for t in stmt.targets):
            return False
        return is_bookkeeping(value.func, self._bookkeeping_names) and all(
            loads_only(arg, self._bookkeeping_names) for arg in value.args
        )

    def assign(self, target: ast.expr, value: Any, stack: Stack, ins: Instr) -> None:
        if self.drop_store(target, value, stack, ins):
            return
        if isinstance(target, ast.Name) and is_bookkeeping(value, set()):
            self._bookkeeping_names.add(target.id)
        if self._spillable(value) and references(stack, value):
            if not isinstance(target, ast.Name):
                value = self.spill(stack, value)
            else:
                target.ctx = ast.Store()
                self._exempt = value
                try:
                    self.emit(ast.Assign(targets=[target], value=self.expr(value, ins), type_comment=None))
                finally:
                    self._exempt = None
                replace(stack, value, ast.Name(id=target.id, ctx=ast.Load()))
                return
        Simulator.assign(self, target, value, stack, ins)

    def op_POP_TOP(self, ins: Instr, stack: Stack) -> None:
        item = stack[-1] if stack else None
        if held(item) and not self.dropped(stack, stack[:-1]):
            stack.pop()  # a frame list no longer needed: its values live on elsewhere
            return
        if isinstance(item, (ast.Name, ast.Constant)) or (
            isinstance(item, (ast.List, ast.Tuple, ast.Set)) and stable(ast.Tuple(elts=item.elts))
        ):
            stack.pop()  # loading it had no effect worth a statement
            return
        Simulator.op_POP_TOP(self, ins, stack)

    def _fresh(self, value: Any) -> bool:
        """No ``a, b = x, y`` here: Dynamo keeps values on the stack across its stores."""
        return False

    # -- the dispatcher -------------------------------------------------------------------

    def step(self, ins: Instr, stack: Stack) -> None:
        if stack is not self.stack:
            unshare(stack, self.order)  # a branch or body: it starts from a copy of the stack before it
        self.stack = stack
        self.current = ins
        before = stack[:]  # keeps what it popped alive, so that no new item takes its id
        Simulator.step(self, ins, stack)
        self.settle(stack, before)

    # -- shuffles -----------------------------------------------------------------------

    def op_COPY(self, ins: Instr, stack: Stack) -> None:
        if ins.arg > len(stack):
            raise self.fail(ins, "value stack underflow")
        item = stack[-ins.arg]
        if (
            not held(item)
            and self._spillable(item)
            and (not stable(item) or mutable(item))
            and not self._stored_next(ins)
        ):
            where = next(position for position, other in enumerate(stack) if other is item)
            self.spill_items(stack, self.unstable(stack[:where]) + [item])
        stack.append(stack[-ins.arg])

    def _stored_next(self, ins: Instr) -> bool:
        """``COPY 1; STORE_FAST name``: the store names the value (see :meth:`assign`)."""
        index = ins.index + 1
        nxt = self.instrs[index] if 0 < index < len(self.instrs) else None
        return (
            nxt is not None
            and ins.arg == 1
            and nxt.offset > ins.offset
            and nxt.op in ("STORE_FAST", "STORE_DEREF", "STORE_NAME", "STORE_GLOBAL")
        )

    def _reorder(self, stack: Stack, depth: int) -> None:
        """Spill before a shuffle of the top *depth* items that moves unstable items past each other."""
        if depth > len(stack):
            return
        moved = self.unstable(stack, len(stack) - depth)
        if len(moved) >= 2:
            every = self.unstable(stack)
            self.spill_items(stack, every[: len(every) - len(moved)] + moved)

    def op_SWAP(self, ins: Instr, stack: Stack) -> None:
        self._reorder(stack, ins.arg)
        Simulator.op_SWAP(self, ins, stack)

    def op_ROT_THREE(self, ins: Instr, stack: Stack) -> None:
        self._reorder(stack, 3)
        Simulator.op_ROT_THREE(self, ins, stack)

    def op_ROT_FOUR(self, ins: Instr, stack: Stack) -> None:
        self._reorder(stack, 4)
        Simulator.op_ROT_FOUR(self, ins, stack)

    def op_ROT_N(self, ins: Instr, stack: Stack) -> None:
        self._reorder(stack, ins.arg)
        Simulator.op_ROT_N(self, ins, stack)

    # -- unpacking ----------------------------------------------------------------------

    def _unpack(self, unpack: M.Unpack, stack: Stack) -> None:
        ins = self.current
        if ins is None or self._unpacked_into_targets(ins):
            Simulator._unpack(self, unpack, stack)
            return
        self._unpack_into_names(stack, ins, unpack)

    def _unpacked_into_targets(self, ins: Instr) -> bool:
        """The items of the unpacking at *ins* go to targets, as the compiler lays it out: the next
        instruction stores the first item, starts a target (``a.b``, ``a[i]``) or unpacks it further."""
        index = ins.index + 1
        if not 0 < index < len(self.instrs):
            return False
        op = self.instrs[index].op
        return op.startswith(_TARGET_STARTS) or op == "POP_TOP"

    def _unpack_into_names(self, stack: Stack, ins: Instr, unpack: M.Unpack) -> None:
        """``stack_1, stack_2 = value``, right where the unpacking runs, when the code keeps the items
        on the stack (Dynamo's ``UNPACK_SEQUENCE`` of a graph's outputs): source has no expression
        for "the items of value", only an assignment."""
        value = self.expr(unpack.value, ins)
        names = [self._new_name() for _ in unpack.targets]
        targets: List[ast.expr] = [ast.Name(id=name, ctx=ast.Store()) for name in names]
        if unpack.star >= 0:
            targets[unpack.star] = ast.Starred(value=targets[unpack.star], ctx=ast.Store())
        unpacking = ast.Tuple(elts=targets, ctx=ast.Store())
        self.emit(ast.Assign(targets=[unpacking], value=value, type_comment=None))
        stack.extend(ast.Name(id=name, ctx=ast.Load()) for name in reversed(names))

    # -- closure cells ------------------------------------------------------------------

    def op_LOAD_CLOSURE(self, ins: Instr, stack: Stack) -> None:
        node = ast.Name(id=ins.arg, ctx=ast.Load())
        node.uncompile_cell = True  # type: ignore[attr-defined]
        stack.append(node)

    def op_BUILD_TUPLE(self, ins: Instr, stack: Stack) -> None:
        items = stack[len(stack) - ins.arg :] if ins.arg else []
        cells = bool(items) and all(getattr(item, "uncompile_cell", False) for item in items)
        if not cells or self._makes_function(ins):
            self.calls.step(ins, stack, self)
            return
        del stack[len(stack) - ins.arg :]
        stack.append(cell_tuple([item.id for item in items]))

    def _makes_function(self, ins: Instr) -> bool:
        following = self.instrs[ins.index + 1 : ins.index + 3]
        return [i.op for i in following] == ["LOAD_CONST", "MAKE_FUNCTION"]


def cell_tuple(names: List[str]) -> ast.expr:
    """A tuple of the cells (not the values) of *names*: what ``LOAD_CLOSURE``... ``BUILD_TUPLE`` makes.

    Source has no name for a cell; a lambda that uses the variables has them in its
    ``__closure__``, ordered by name.
    """

    def closure(free: List[str]) -> ast.expr:
        body: ast.expr = (
            ast.Name(id=free[0], ctx=ast.Load())
            if len(free) == 1
            else ast.Tuple(elts=[ast.Name(id=name, ctx=ast.Load()) for name in free], ctx=ast.Load())
        )
        args = ast.arguments(
            posonlyargs=[], args=[], vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[]
        )
        return ast.Attribute(value=ast.Lambda(args=args, body=body), attr="__closure__", ctx=ast.Load())

    if names == sorted(set(names)):
        cells = closure(names)
    else:
        cells = ast.Tuple(
            elts=[
                ast.Subscript(value=closure([name]), slice=ast.Constant(value=0), ctx=ast.Load())
                for name in names
            ],
            ctx=ast.Load(),
        )
    cells.uncompile_cells = True  # type: ignore[attr-defined]
    return cells


def simulator_for(code: Any, nested: Any, instrs: Optional[List[Instr]] = None) -> Simulator:
    """The simulator to use for *code*: :class:`DynamoSimulator` for Dynamo's code.

    *instrs*: ``read_instructions(code)`` when the caller has it already.
    """
    if is_dynamo_code(code):
        return DynamoSimulator(code, nested, instrs)
    return Simulator(code, nested)
