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
"""

from __future__ import annotations

import ast
from types import CodeType
from typing import AbstractSet, Any, Iterable, List, Optional, Set

from ..bytecode import versions as V
from ..bytecode.exception_table import exception_handlers
from ..bytecode.instructions import Instr, read_instructions
from . import values as M
from .simulator import Simulator, Stack

_DYNAMO_GLOBAL_PREFIXES = ("__compiled_fn_", "__resume_at_", "__import_torch_dot_")
_DYNAMO_CODE_PREFIXES = ("__resume_at_", "torch_dynamo_resume_in_")
_SIMPLE_STATEMENTS = (ast.Assign, ast.AugAssign, ast.Expr, ast.Delete, ast.Return, ast.Raise)
_NOT_STRAIGHT = frozenset({"RAISE_VARARGS", "RERAISE", "SETUP_FINALLY", "SETUP_WITH", "BEFORE_WITH",
                           "PUSH_EXC_INFO", "YIELD_VALUE"})
#: The prefix of the locals that hold spilled stack items.
SPILL_PREFIX = "stack_"


def is_dynamo_code(code: Any) -> bool:
    """True for code objects that Dynamo generated (transformed frames, resume functions)."""
    if not isinstance(code, CodeType):
        return False
    if code.co_name.startswith(_DYNAMO_CODE_PREFIXES):
        return True
    return any(name.startswith(_DYNAMO_GLOBAL_PREFIXES) for name in code.co_names)


def _stable(node: Any) -> bool:
    """Items whose evaluation has no effect and whose value only changes when a name is rebound."""
    if M.is_marker(node) or not isinstance(node, ast.AST):
        return True
    if isinstance(node, (ast.Constant, ast.Name)):
        return True
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):  # a fresh list is one only the stack holds
        return all(_stable(item) for item in node.elts)
    if isinstance(node, ast.Dict):
        return all(_stable(item) for item in node.keys + node.values if item is not None)
    if isinstance(node, ast.Starred):
        return _stable(node.value)
    return False


def _mutable(node: Any) -> bool:
    """A display of a mutable object: two copies on the stack must stay one object."""
    return isinstance(node, (ast.List, ast.Set, ast.Dict))


def _names_read(node: Any) -> Set[str]:
    """The names in the expression *node* (what ``ast.walk`` finds; this runs per statement and item)."""
    names: Set[str] = set()
    if M.is_marker(node) or not isinstance(node, ast.AST):
        return names
    todo = [node]
    while todo:
        current = todo.pop()
        if isinstance(current, ast.Name):
            names.add(current.id)
        for field in current._fields:
            value = getattr(current, field, None)
            if isinstance(value, ast.AST):
                todo.append(value)
            elif isinstance(value, list):
                todo.extend(item for item in value if isinstance(item, ast.AST))
    return names


def _names_bound(statement: ast.stmt) -> Set[str]:
    targets: List[ast.AST] = []
    if isinstance(statement, ast.Assign):
        targets = list(statement.targets)
    elif isinstance(statement, ast.AugAssign):
        targets = [statement.target]
    elif isinstance(statement, ast.Delete):
        targets = list(statement.targets)
    names: Set[str] = set()
    for target in targets:
        if isinstance(target, ast.Name):
            names.add(target.id)
        elif isinstance(target, (ast.Tuple, ast.List)):
            names |= {sub.id for sub in ast.walk(target) if isinstance(sub, ast.Name)
                      and isinstance(sub.ctx, (ast.Store, ast.Del))}
    return names


def _commutes(statement: ast.stmt) -> bool:
    """A statement that evaluates nothing with an effect: it may move past unstable items."""
    if isinstance(statement, ast.Delete):
        return all(isinstance(target, ast.Name) for target in statement.targets)
    if isinstance(statement, ast.Assign):
        return all(isinstance(target, ast.Name) for target in statement.targets) and _stable(statement.value)
    return False


def _loads_only(node: Any, helpers: AbstractSet[str] = frozenset()) -> bool:
    """Names, constants and attribute/item loads of them: what Dynamo loads to pass to a graph.

    Such loads are taken to have no effect (module attributes, parameter dicts), so they
    commute with each other and with assignments of such loads. Calls of Dynamo's own
    helpers (:func:`_is_bookkeeping`, e.g. ``call_size(x, 0)``) with such arguments count too.
    """
    if isinstance(node, (ast.Name, ast.Constant)):
        return True
    if isinstance(node, ast.Attribute):
        return _loads_only(node.value, helpers)
    if isinstance(node, ast.Subscript):
        return _loads_only(node.value, helpers) and _loads_only(node.slice, helpers)
    if isinstance(node, ast.Tuple):
        return all(_loads_only(item, helpers) for item in node.elts)
    if isinstance(node, ast.Call):
        return _is_bookkeeping(node.func, helpers) and not node.keywords and all(
            _loads_only(arg, helpers) for arg in node.args)
    return False


def _loads_only_assignment(statement: ast.stmt, helpers: AbstractSet[str]) -> bool:
    return isinstance(statement, ast.Assign) and _loads_only(statement.value, helpers) and all(
        isinstance(target, ast.Name) for target in statement.targets)


def _empty_insert(key: Any, value: Any) -> bool:
    """``[k:k]`` with an empty list display as the value."""
    if not (isinstance(value, ast.List) and not value.elts and isinstance(key, ast.Slice)):
        return False
    lower, upper = key.lower, key.upper
    return key.step is None and isinstance(lower, ast.Constant) and isinstance(upper, ast.Constant) \
        and lower.value == upper.value


def _is_bookkeeping(func: Any, names: AbstractSet[str]) -> bool:
    """A helper of Dynamo's own (``__import_torch_dot__dynamo_dot_utils.record_...``/``call_size``...)
    or a name holding one of those: calls of them have no effect on the program's values."""
    if isinstance(func, ast.Name):
        return func.id in names
    return isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) \
        and func.value.id == "__import_torch_dot__dynamo_dot_utils"


class DynamoSimulator(Simulator):
    """A :class:`Simulator` for Dynamo's code; see the module docstring."""

    def __init__(self, code: Any, nested: Any, instrs: Optional[List[Instr]] = None) -> None:
        super().__init__(code, nested)
        self.stack: Stack = []
        taken = set(code.co_varnames) | set(code.co_names) | set(code.co_cellvars) | set(code.co_freevars)
        self._taken = taken
        self._spills = 0
        self._exempt: Any = None
        self.instrs = read_instructions(code) if instrs is None else instrs
        self._jump_targets = {ins.target for ins in self.instrs if ins.target is not None}
        self._jump_targets |= {handler.target for handler in exception_handlers(code, self.instrs)}
        self.current: Any = None
        self._bookkeeping_names: Set[str] = set()
        self._swallow: List[int] = []
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
        Simulator.emit(self, statement)
        load = ast.Name(id=name, ctx=ast.Load())
        for position, other in enumerate(stack):
            if other is item:
                stack[position] = load
        return load

    def spill_items(self, stack: Stack, items: Iterable[Any]) -> None:
        """Spill *items* (stack items) in stack order, each object once."""
        wanted = [id(item) for item in items]
        done: Set[int] = set()
        for item in list(stack):
            if id(item) in wanted and id(item) not in done:
                done.add(id(item))
                self.spill(stack, item)

    def _spillable(self, item: Any) -> bool:
        return isinstance(item, (ast.expr, ast.Slice)) or isinstance(item, M.FunctionValue)

    def unstable(self, stack: Stack, start: int = 0) -> List[Any]:
        return [item for item in stack[start:] if self._spillable(item) and not _stable(item)]

    def before_branch(self, stack: Stack, condition: Any = None) -> None:
        """Before a conditional jump: the items under *condition* are evaluated before it."""
        self.flush_deferred(stack)
        self.spill_items(stack, [item for item in self.unstable(stack) if item is not condition])

    def carry_stack(self, inner: Stack, outer: Stack) -> List[ast.stmt]:
        """After a protected region that left *inner* as the stack: spill it, make *outer* that.

        Returns the spill statements, which belong at the end of the region's body.
        """
        with self.scratch():
            self.flush_deferred(inner)
            self.spill_items(inner, [item for item in inner if self._spillable(item)
                                     and not any(item is old for old in outer) and not _stable(item)])
            spills = self.out
        outer[:] = inner
        return spills

    # -- statements -----------------------------------------------------------------------

    def emit(self, stmt: ast.stmt) -> None:
        stack = self.stack
        if stack and isinstance(stmt, _SIMPLE_STATEMENTS):
            bound = _names_bound(stmt)
            readers = self._readers(stack, bound)
            if self.deferred and bound & {name for d in self.deferred for name in _names_bound(d)}:
                self.flush_deferred(stack)
                readers = self._readers(stack, bound)
            if readers and isinstance(stmt, ast.Delete) and _commutes(stmt) and self._straight_segment():
                self.deferred.append(stmt)  # ``del graph_out_0`` before ``return graph_out_0[0]``
                return
            if isinstance(stmt, ast.Raise):
                self.flush_deferred(stack)
            hazards = readers
            helpers = self._bookkeeping_names
            if _loads_only_assignment(stmt, helpers) or self._bookkeeping(stmt):
                hazards += [item for item in self.unstable(stack) if not _loads_only(item, helpers)]
            elif not _commutes(stmt):
                hazards += self.unstable(stack)
            hazards = [item for item in hazards if item is not self._exempt]
            if hazards:
                pending, self.pending = self.pending, []
                self.spill_items(stack, hazards)
                self.pending = pending
        Simulator.emit(self, stmt)
        if self.deferred and isinstance(stmt, ast.Return):
            self.deferred = []  # the frame's locals end here: the deletes cannot be observed
        elif self.deferred:
            ready = [d for d in self.deferred
                     if not any(_names_read(item) & _names_bound(d) for item in stack)]
            self.deferred = [d for d in self.deferred if d not in ready]
            for delete in ready:
                Simulator.emit(self, delete)

    def _readers(self, stack: Stack, names: Set[str]) -> List[Any]:
        """The spillable items of *stack* that read one of *names*."""
        if not names:
            return []
        return [item for item in stack if self._spillable(item) and _names_read(item) & names]

    def _straight_segment(self) -> bool:
        """The instructions after the current one run straight to a ``return`` or a conditional jump."""
        current = self.current
        if current is None:
            return False
        for ins in self.instrs[current.index + 1:]:
            if ins.offset in self._jump_targets or ins.op in _NOT_STRAIGHT:
                return False
            if ins.op == "RETURN_VALUE" or ins.op in V.CONDITIONAL_JUMPS:
                return True
            if ins.target is not None:
                return False
        return False

    def flush_deferred(self, stack: Stack) -> None:
        """Emit the deferred ``del`` statements now, spilling what still reads their names."""
        deferred, self.deferred = self.deferred, []
        for delete in deferred:
            self.spill_items(stack, self._readers(stack, _names_bound(delete)))
            Simulator.emit(self, delete)

    def _bookkeeping(self, stmt: ast.stmt) -> bool:
        """A call of Dynamo's ``record_*`` helpers (timing of the pre-graph code): no effect on values."""
        value = getattr(stmt, "value", None)
        if not isinstance(stmt, (ast.Expr, ast.Assign)) or not isinstance(value, ast.Call):
            return False
        if isinstance(stmt, ast.Assign) and not all(isinstance(t, ast.Name) for t in stmt.targets):
            return False
        return _is_bookkeeping(value.func, self._bookkeeping_names) and all(
            _loads_only(arg, self._bookkeeping_names) for arg in value.args)

    def assign(self, target: ast.expr, value: Any, stack: Stack, ins: Instr) -> None:
        if isinstance(target, ast.Name) and _is_bookkeeping(value, set()):
            self._bookkeeping_names.add(target.id)
        if self._spillable(value) and any(item is value for item in stack):
            if not isinstance(target, ast.Name):
                value = self.spill(stack, value)
            else:
                target.ctx = ast.Store()
                self._exempt = value
                try:
                    self.emit(ast.Assign(targets=[target], value=self.expr(value, ins), type_comment=None))
                finally:
                    self._exempt = None
                load = ast.Name(id=target.id, ctx=ast.Load())
                for position, other in enumerate(stack):
                    if other is value:
                        stack[position] = load
                return
        Simulator.assign(self, target, value, stack, ins)

    def op_POP_TOP(self, ins: Instr, stack: Stack) -> None:
        item = stack[-1] if stack else None
        if isinstance(item, (ast.Name, ast.Constant)) or (
                isinstance(item, (ast.List, ast.Tuple, ast.Set)) and _stable(ast.Tuple(elts=item.elts))):
            stack.pop()  # loading it had no effect worth a statement
            return
        Simulator.op_POP_TOP(self, ins, stack)

    def _fresh(self, value: Any) -> bool:
        """No ``a, b = x, y`` here: Dynamo keeps values on the stack across its stores."""
        return False

    # -- the dispatcher -------------------------------------------------------------------

    def step(self, ins: Instr, stack: Stack) -> None:
        if self._swallow and ins.index == self._swallow[0]:
            del self._swallow[0]  # part of a pattern already executed (see :meth:`_element_taken`)
            return
        self._swallow = []
        self.stack = stack
        self.current = ins
        Simulator.step(self, ins, stack)

    # -- shuffles -----------------------------------------------------------------------

    def op_COPY(self, ins: Instr, stack: Stack) -> None:
        if ins.arg > len(stack):
            raise self.fail(ins, "value stack underflow")
        item = stack[-ins.arg]
        element = self._element_taken(ins, item)
        if element is not None:  # ``[a, b][k]`` of a list only the stack holds: just the element
            stack[-1] = element
            self._swallow = [i.index for i in self.instrs[ins.index + 1: ins.index + 5]]
            return
        if self._spillable(item) and (not _stable(item) or _mutable(item)) and not self._stored_next(ins):
            where = next(position for position, other in enumerate(stack) if other is item)
            self.spill_items(stack, self.unstable(stack[:where]) + [item])
        stack.append(stack[-ins.arg])

    def _element_taken(self, ins: Instr, item: Any) -> Any:
        """``COPY 1; LOAD_CONST k; BINARY_SUBSCR; SWAP 2; POP_TOP`` on a fresh list display: its item k."""
        if ins.arg != 1 or not isinstance(item, ast.List) or getattr(item, "uncompile_comprehension", None):
            return None
        following = self.instrs[ins.index + 1: ins.index + 5]
        if [i.op for i in following] != ["LOAD_CONST", "BINARY_SUBSCR", "SWAP", "POP_TOP"] \
                or following[2].arg != 2 or any(i.offset in self._jump_targets for i in following):
            return None
        index = following[0].arg[0]
        elts = item.elts
        if type(index) is not int or not -len(elts) <= index < len(elts) \
                or any(isinstance(e, ast.Starred) for e in elts):
            return None
        chosen = elts[index]
        if not all(_stable(e) for e in elts if e is not chosen):
            return None  # the other items were evaluated for their effects
        return chosen

    def _stored_next(self, ins: Instr) -> bool:
        """``COPY 1; STORE_FAST name``: the store names the value (see :meth:`assign`)."""
        index = ins.index + 1
        nxt = self.instrs[index] if 0 < index < len(self.instrs) else None
        return nxt is not None and ins.arg == 1 and nxt.offset > ins.offset and nxt.op in (
            "STORE_FAST", "STORE_DEREF", "STORE_NAME", "STORE_GLOBAL")

    def _reorder(self, stack: Stack, depth: int) -> None:
        """Spill before a shuffle of the top *depth* items that moves unstable items past each other."""
        if depth > len(stack):
            return
        moved = self.unstable(stack, len(stack) - depth)
        if len(moved) >= 2:
            older = self.unstable(stack)[: len(self.unstable(stack)) - len(moved)]
            self.spill_items(stack, older + moved)

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

    # -- closure cells ------------------------------------------------------------------

    def op_LOAD_CLOSURE(self, ins: Instr, stack: Stack) -> None:
        node = ast.Name(id=ins.arg, ctx=ast.Load())
        node.uncompile_cell = True  # type: ignore[attr-defined]
        stack.append(node)

    def op_BUILD_TUPLE(self, ins: Instr, stack: Stack) -> None:
        items = stack[len(stack) - ins.arg:] if ins.arg else []
        cells = bool(items) and all(getattr(item, "uncompile_cell", False) for item in items)
        if not cells or self._makes_function(ins):
            self.calls.step(ins, stack, self)
            return
        del stack[len(stack) - ins.arg:]
        stack.append(cell_tuple([item.id for item in items]))

    def _makes_function(self, ins: Instr) -> bool:
        following = self.instrs[ins.index + 1: ins.index + 3]
        return [i.op for i in following] == ["LOAD_CONST", "MAKE_FUNCTION"]

    # -- in-place updates ---------------------------------------------------------------

    def _update_target(self, ins: Instr, stack: Stack, depth: int, item: Any) -> Any:
        """The display to update, or a name (spilled) when it is not one being built."""
        target = stack[-depth]
        # The item is evaluated after everything on the stack; a display lower down that
        # takes it must not move it before the unstable items above the display.
        if not _stable(item) and self.unstable(stack[:-1], len(stack) - depth + 1):
            self.spill_items(stack, self.unstable(stack))
            target = stack[-depth]
        return target

    def _method_call(self, target: Any, method: str, args: List[ast.expr], stack: Stack, ins: Instr) -> None:
        if not isinstance(target, ast.Name):
            target = self.spill(stack, target)
        call = ast.Call(func=ast.Attribute(value=target, attr=method, ctx=ast.Load()), args=args, keywords=[])
        self.emit(ast.Expr(value=call))

    def op_LIST_EXTEND(self, ins: Instr, stack: Stack) -> None:
        self._update(ins, stack, "extend", (ast.List,))

    def op_SET_UPDATE(self, ins: Instr, stack: Stack) -> None:
        self._update(ins, stack, "update", (ast.Set,))

    def _update(self, ins: Instr, stack: Stack, method: str, kinds: tuple) -> None:
        item = stack[-1] if stack else None
        if item is None or ins.arg + 1 > len(stack):
            raise self.fail(ins, "value stack underflow")
        target = self._update_target(ins, stack, ins.arg + 1, item)
        if isinstance(target, kinds):
            if isinstance(item, kinds) and not getattr(target, "uncompile_comprehension", None):
                stack.pop()  # a fresh display: its items go straight in
                target.elts.extend(item.elts)
                return
            self.calls.step(ins, stack, self)
            return
        item = self.pop_expr(stack, ins)
        if isinstance(item, (ast.List, ast.Tuple)) and not item.elts:
            return  # ``x.extend([])``
        self._method_call(stack[-ins.arg], method, [item], stack, ins)

    def op_STORE_SUBSCR(self, ins: Instr, stack: Stack) -> None:
        if len(stack) >= 3 and _empty_insert(stack[-1], stack[-3]) and _stable(stack[-2]) is not None:
            del stack[-3:]  # ``x[k:k] = []`` changes nothing
            return
        Simulator.op_STORE_SUBSCR(self, ins, stack)

    def op_LIST_APPEND(self, ins: Instr, stack: Stack) -> None:
        if ins.arg + 1 > len(stack):
            raise self.fail(ins, "value stack underflow")
        inside = stack[len(stack) - ins.arg:]
        target = stack[-ins.arg - 1]
        if isinstance(target, ast.List) or any(isinstance(v, M.Iterator) for v in inside):
            self.calls.step(ins, stack, self)
            return
        item = self.pop_expr(stack, ins)
        self._method_call(stack[-ins.arg], "append", [item], stack, ins)


def cell_tuple(names: List[str]) -> ast.expr:
    """A tuple of the cells (not the values) of *names*: what ``LOAD_CLOSURE``... ``BUILD_TUPLE`` makes.

    Source has no name for a cell; a lambda that uses the variables has them in its
    ``__closure__``, ordered by name.
    """

    def closure(free: List[str]) -> ast.expr:
        body: ast.expr = ast.Name(id=free[0], ctx=ast.Load()) if len(free) == 1 else ast.Tuple(
            elts=[ast.Name(id=name, ctx=ast.Load()) for name in free], ctx=ast.Load())
        args = ast.arguments(posonlyargs=[], args=[], vararg=None, kwonlyargs=[], kw_defaults=[],
                             kwarg=None, defaults=[])
        return ast.Attribute(value=ast.Lambda(args=args, body=body), attr="__closure__", ctx=ast.Load())

    if names == sorted(set(names)):
        return closure(names)
    return ast.Tuple(elts=[ast.Subscript(value=closure([name]), slice=ast.Constant(value=0), ctx=ast.Load())
                           for name in names], ctx=ast.Load())


def simulator_for(code: Any, nested: Any, instrs: Optional[List[Instr]] = None) -> Simulator:
    """The simulator to use for *code*: :class:`DynamoSimulator` for Dynamo's code.

    *instrs*: ``read_instructions(code)`` when the caller has it already.
    """
    if is_dynamo_code(code):
        return DynamoSimulator(code, nested, instrs)
    return Simulator(code, nested)
