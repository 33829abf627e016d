"""Symbolic execution of straight-line instructions into expressions and statements.

:class:`Simulator` executes one neutral instruction at a time (:meth:`Simulator.step`) on
a stack of ``ast.expr`` nodes and markers (:mod:`uncompile.expressions.values`), appending
the simple statements it completes (assignments, expression statements, ``return``,
``raise``, ``del``, imports...) to ``Simulator.out``. Its ``op_*`` handlers are its own and
those of its mixins: stores and unpacking (:mod:`.targets`), imports (:mod:`.imports`), the
3.8-3.10 block and unpacking forms (:mod:`.legacy_ops`), 3.14+ forms (:mod:`.ops314`); calls
and displays are the :class:`~.calls.CallBuilder`'s. Control flow is not its business:
the structurer (:mod:`uncompile.structure`) drives it block by block.
"""

from __future__ import annotations

import ast
from typing import Any, Callable, Container, Dict, List, NoReturn, Optional, Tuple, cast

from ..bytecode import versions as V
from ..bytecode.instructions import Instr
from ..errors import DecompileError
from . import values as M
from .calls import CallBuilder, call_op
from .computation_order import ComputationOrder
from .constants import PLAIN_CONSTANT_TYPES, constant_expr
from .imports import ImportOps
from .legacy_ops import LegacyBlockOps, LegacyUnpackOps
from .operators import BINARY, COMPARE, UNARY, binary, compare
from .ops314 import Ops314, unpacked_item
from .targets import LOAD, STORE, TargetOps, name_node, slice_node, subscript_key
from .values import EXPRESSIONS

Stack = List[Any]
Handler = Callable[[Any, Instr, Stack], None]  # a Simulator method: (self, ins, stack)


class _Handlers(Dict[str, Handler]):
    """Of one simulator class: op -> what executes it, found when the op is first met."""

    def __init__(self, simulator: Any) -> None:
        super().__init__()
        self.simulator = simulator

    def __missing__(self, op: str) -> Handler:
        handler = self[op] = self.simulator._handler_for(op)
        return handler


#: Per simulator class, its :class:`_Handlers`.
_HANDLERS: Dict[type, _Handlers] = {}


_bare = ast.AST.__new__  # a node of the given class with no fields set (see targets.name_node)
_Name = ast.Name
_Constant = ast.Constant
_Attribute = ast.Attribute
_Assign, _Expr, _Return = ast.Assign, ast.Expr, ast.Return

#: Whether a call's NULL goes above the callable (3.13+), not below it.
_NULL_ABOVE = V.VERSION >= (3, 13)

#: Whether there are generic definitions, built by hidden functions (3.12+).
_GENERICS = V.VERSION >= (3, 12)

_TARGETS = (ast.Name, ast.Attribute, ast.Subscript, ast.Starred, ast.Tuple, ast.List)
#: Definitions that :meth:`Simulator._stored_marker` leaves to :meth:`Simulator.assign` without a
#: check (3.14+: a function may be a deferred annotation's, see ``deferred_store``).
_DEFINITIONS = (M.ClassValue,) if V.ANNOTATE_NAMES else (M.FunctionValue, M.ClassValue)
#: The values that :meth:`Simulator._binds_type_params` can take as stores of type parameters.
_TYPE_PARAM_VALUES = (M.TypeParam, M.TypeParams, M.Discard)


def _below_saved_locals(stack: Stack) -> Any:
    """The top item of *stack* below the comprehensions' saved variables on it (None: none)."""
    for item in reversed(stack):
        if type(item) is not M.SavedLocal:
            return item
    return None


class _Scratch:
    """:meth:`Simulator.scratch`'s context (a class: structuring enters one per tentative run,
    and a generator-based context manager costs several calls more)."""

    __slots__ = ("sim", "saved")

    def __init__(self, sim: "Simulator") -> None:
        self.sim = sim

    def __enter__(self) -> List[ast.stmt]:
        sim = self.sim
        self.saved = sim.out, sim.pending
        sim.out, sim.pending = [], []
        return sim.out

    def __exit__(self, *exc_info: Any) -> None:
        self.sim.out, self.sim.pending = self.saved


class Simulator(Ops314, TargetOps, ImportOps, LegacyBlockOps, LegacyUnpackOps):
    """Executes instructions of one code object; see the module docstring."""

    # its attributes, as slots (found faster on 3.8 - 3.10: see Walker.__init__); the mixins
    # have none, so a subclass's own attributes still work
    __slots__ = (
        "code",
        "out",
        "pending",
        "calls",
        "class_type_params",
        "globals_declared",
        "nonlocals_declared",
        "chain",
        "chain_named",
        "parallel",
        "order",
        "_tops",
        "_computed",
        "statement_seq",
        "explicit_final_return",
        "_handlers",
        "imported",
    )

    def __init__(self, code: Any, nested: Callable[[Any], Any]) -> None:
        self.code = code
        self.out: List[ast.stmt] = []
        #: the offsets executed since the last statement: emptied in place (the run loops hold its
        #: append), replaced only by the walker, between runs, and by :meth:`scratch`
        self.pending: List[int] = []
        self.calls = CallBuilder(code, nested)
        self.class_type_params: List[Any] = []  # a generic class's, from ``.type_params``
        self.globals_declared: Dict[str, None] = {}
        self.nonlocals_declared: Dict[str, None] = {}
        self.chain: Optional[ast.Assign] = None
        self.chain_named: Optional[ast.NamedExpr] = None
        self.parallel: List[Any] = []  # (target, value) pairs of ``a, b = x, y`` seen so far
        self.order = ComputationOrder()
        self._tops = self.order.tops  # the top of the stack after each step
        self._computed = self._tops.append  # what step calls with the top of the stack
        self.statement_seq = 0  # :meth:`ComputationOrder.now` at the last statement
        self.explicit_final_return = False  # (3.8 - 3.10) set by the walker, read by tidy_body
        self.imported = False  # see ImportOps
        handlers = _HANDLERS.get(type(self))
        if handlers is None:
            handlers = _HANDLERS[type(self)] = _Handlers(type(self))
        self._handlers = handlers

    def scratch(self) -> "_Scratch":
        """A context that collects statements into a fresh list (its value) for a tentative or
        side run, and puts the real output and pending offsets back afterwards, whatever happened."""
        return _Scratch(self)

    # -- statements -------------------------------------------------------------------

    def _fresh(self, value: Any) -> bool:
        """A plain value computed since the last statement (a candidate for ``a, b = x, y``)."""
        return (
            isinstance(value, ast.expr)
            and not isinstance(value, ast.NamedExpr)
            and not getattr(value, "uncompile_inplace", False)
            and not hasattr(value, "uncompile_import")
            and not hasattr(value, "uncompile_import_from")
            and self.order.number(value) > self.statement_seq
        )

    def emit(self, stmt: ast.stmt) -> None:
        """Append *stmt*, tagging it with the offsets executed since the last statement."""
        self.statement_seq = len(self._tops)  # ``self.order.now()``, without the call
        pending = self.pending
        stmt.uncompile_offsets = tuple(pending)  # type: ignore[attr-defined]
        pending.clear()  # (in place: the run loops keep its append)
        self.out.append(stmt)

    def fail(self, ins: Instr, why: str) -> DecompileError:
        return DecompileError(
            why,
            function=self.code.co_qualname if hasattr(self.code, "co_qualname") else self.code.co_name,
            offset=ins.offset,
            construct=ins.op,
        )

    def assign(self, target: ast.expr, value: Any, stack: Stack, ins: Instr) -> None:
        """Store *value* into *target*: plain, chained, augmented, unpacking or definition."""
        if isinstance(target, _TARGETS):
            target.ctx = STORE
        marker = isinstance(value, M.Marker)
        if marker and self._stored_marker(target, value, stack, ins):
            return
        if self.chain is not None and value is self.chain_named:
            self.chain.targets.append(target)
            if not (stack and stack[-1] is value):
                chain, self.chain = self.chain, None
                self.emit(chain)
            return
        if stack and stack[-1] is value and not marker:
            # ``x = y = v`` or ``(x := v)``: which one shows when the copy is used
            named = ast.NamedExpr(cast(Any, target), value)
            self.order.same_as(named, value)
            stack[-1] = named
            self.chain = ast.Assign([target], value, None)
            self.chain_named = named
            return
        if stack and type(stack[-1]) is M.SavedLocal:
            # (3.12+) a comprehension's saved variable, restored after the store of its value
            # (the compiler moved that store before it): the value below goes on being stored
            below = _below_saved_locals(stack)
        else:
            below = stack[-1] if stack else None
        if self.parallel or (
            isinstance(below, ast.expr) and self._fresh(below) and self._fresh(value)
        ):  # (the top of a loop's or with's stack is a marker: no call of _fresh then)
            pairs = self.parallel + [(target, value)]
            if below is not None and self._fresh(below) and below is not value:
                self.parallel = pairs
                return
            self.parallel = []
            if len(pairs) > 1:
                pairs.sort(key=lambda pair: self.order.number(pair[1]))
                values = ast.Tuple([self.expr(v, ins) for _, v in pairs], LOAD)
                self.emit(ast.Assign([ast.Tuple([t for t, _ in pairs], STORE)], values, None))
                return
        if not marker:
            if isinstance(value, ast.BinOp) and getattr(value, "uncompile_inplace", False):
                self.emit(ast.AugAssign(cast(Any, target), value.op, value.right))
                return
            if self.imported and isinstance(target, ast.Name) and self.stored_import(target.id, value):
                self.mark_lazy(value)
                return
        elif isinstance(target, ast.Name):  # a definition or ``type`` statement, stored under its name
            if isinstance(value, M.TypeAliasValue):
                if value.name != target.id:
                    raise self.fail(ins, "type alias stored under another name")
                self.emit(value.statement)
                return
            if isinstance(value, (M.FunctionValue, M.ClassValue)):
                self.emit(self.calls.definition(value, target.id))
                return
            if isinstance(value, M.GenericDefinition):
                self.emit(self.calls.nested.stored_generic(value, target.id))
                return
        node = _bare(_Assign)  # ast.Assign([target], value, None), without the class's argument checks
        node.targets = [target]
        node.value = value if isinstance(value, EXPRESSIONS) else self.expr(value, ins)
        node.type_comment = None
        self.emit(node)

    def _stored_marker(self, target: ast.expr, value: M.Marker, stack: Stack, ins: Instr) -> bool:
        """Stores of markers that are no assignment of their own (unpacking slots, loop targets,
        bookkeeping); True when handled here."""
        if type(value) in _DEFINITIONS:  # (the commonest marker stored: none of the checks below take it)
            return False
        if isinstance(value, _TYPE_PARAM_VALUES) and self._binds_type_params(target, value):
            return True
        if isinstance(value, M.TargetSlot):
            self._fill_slot(value, target, stack, ins)
            return True
        if isinstance(value, M.SavedLocal) or self.deferred_store(target, value):
            return True
        if isinstance(value, M.LoopTarget):
            value.target = target
            return True
        return False

    def expr(self, value: Any, ins: Instr) -> ast.expr:
        """*value* as an expression; markers that have none are an error.

        Most values are expressions already: hot callers test ``isinstance(value, EXPRESSIONS)``
        themselves and call this only for the others."""
        if isinstance(value, EXPRESSIONS):
            return value
        if isinstance(value, M.FunctionValue):
            return self.calls.function_expr(value)
        raise self.fail(ins, "stack holds %r where an expression is needed" % (value,))

    def exprs(self, values: List[Any], ins: Instr) -> List[ast.expr]:
        """*values* as expressions: the list itself when all are (most lists: the callers' own
        fresh lists), else a new one, :meth:`expr` asked only of those that are none yet."""
        for value in values:
            if not isinstance(value, EXPRESSIONS):
                return [item if isinstance(item, EXPRESSIONS) else self.expr(item, ins) for item in values]
        return values

    def underflow(self, ins: Instr) -> NoReturn:
        """Raise the error of popping from an empty stack (hot handlers pop inline:
        ``stack.pop() if stack else self.underflow(ins)``)."""
        raise self.fail(ins, "value stack underflow")

    def pop(self, stack: Stack, ins: Instr) -> Any:
        return stack.pop() if stack else self.underflow(ins)

    def pop_expr(self, stack: Stack, ins: Instr) -> ast.expr:
        value = stack.pop() if stack else self.underflow(ins)
        return value if isinstance(value, EXPRESSIONS) else self.expr(value, ins)

    def pop_pair(self, stack: Stack, ins: Instr) -> Tuple[ast.expr, ast.expr]:
        """The two top items as expressions, the lower one first (a binary operator's operands):
        one call where two :meth:`pop_expr` calls would do."""
        if len(stack) < 2:
            self.underflow(ins)
        right = stack.pop()
        left = stack.pop()
        if not isinstance(right, EXPRESSIONS):
            right = self.expr(right, ins)
        if not isinstance(left, EXPRESSIONS):
            left = self.expr(left, ins)
        return left, right

    def pop_n_raw(self, stack: Stack, n: int, ins: Instr) -> List[Any]:
        if n > len(stack):
            raise self.fail(ins, "value stack underflow")
        items = stack[len(stack) - n :] if n else []
        del stack[len(stack) - n :]
        return items

    def pop_n(self, stack: Stack, n: int, ins: Instr) -> List[ast.expr]:
        return self.exprs(self.pop_n_raw(stack, n, ins), ins)

    # -- the instruction dispatcher --------------------------------------------------

    def step(self, ins: Instr, stack: Stack) -> None:
        """Execute *ins* on *stack*; statements it completes go to ``self.out``, the top of the
        stack after it to :attr:`order` (which values are computed when)."""
        self.pending.append(ins.offset)
        self._handlers[ins.op](self, ins, stack)
        if stack:
            self._computed(stack[-1])

    def run(self, instrs: List[Instr], stack: Stack) -> None:
        """:meth:`step` each of *instrs* in turn: one call for a run of instructions, the steps'
        work done in the loop here (for a simulator whose class keeps :meth:`Simulator.step`)."""
        if type(self).step is not Simulator.step:
            for ins in instrs:
                self.step(ins, stack)
            return
        handlers, computed, executed = self._handlers, self._computed, self.pending.append
        for ins in instrs:
            executed(ins.offset)
            handlers[ins.op](self, ins, stack)
            if stack:
                computed(stack[-1])

    def run_until(
        self, instrs: List[Instr], start: int, end: int, stops: Container[str], stack: Stack
    ) -> int:
        """:meth:`step` ``instrs[start:end]`` in turn up to the first whose op is in *stops* (a
        ``LOAD_CONST`` only when it loads None: a ``return None`` may start there); returns its
        index, or *end*. The walker executes each block so up to the instructions it looks at
        itself: one call for a run of instructions, where a :meth:`step` call each would do."""
        if type(self).step is not Simulator.step:
            for k in range(start, end):
                ins = instrs[k]
                op = ins.op
                if op in stops and (op != "LOAD_CONST" or ins.arg[0] is None):
                    return k
                self.step(ins, stack)
            return end
        handlers, computed, executed = self._handlers, self._computed, self.pending.append
        for k in range(start, end):
            ins = instrs[k]
            op = ins.op
            if op in stops and (op != "LOAD_CONST" or ins.arg[0] is None):
                return k
            executed(ins.offset)
            handlers[op](self, ins, stack)
            if stack:
                computed(stack[-1])
        return end

    op_CALL = call_op  # the builder's commonest op, run as the simulator's own handler

    @classmethod
    def _handler_for(cls, op: str) -> Handler:
        """What executes *op* (looked up once per op and class): an ``op_*`` method of the simulator, a
        generic operator, or an ``op_*`` method of the call builder."""
        own = getattr(cls, "op_" + op, None)
        if own is not None:
            return cast(Handler, own)
        if op in BINARY:
            return cls._binary
        if op in UNARY:
            return cls._unary
        builder_op = getattr(CallBuilder, "op_" + op, None)
        if builder_op is None:
            return cls._unsupported
        return lambda sim, ins, stack: builder_op(sim.calls, ins, stack, sim)

    def _binary(self, ins: Instr, stack: Stack) -> None:
        left, right = self.pop_pair(stack, ins)
        stack.append(binary(BINARY[ins.op], left, right))

    def _unary(self, ins: Instr, stack: Stack) -> None:
        stack.append(ast.UnaryOp(UNARY[ins.op](), self.pop_expr(stack, ins)))

    def _unsupported(self, ins: Instr, stack: Stack) -> None:
        raise self.fail(ins, "unsupported instruction")

    # loads

    def op_LOAD_CONST(self, ins: Instr, stack: Stack) -> None:
        value, index = ins.arg
        if type(value) in PLAIN_CONSTANT_TYPES:  # constant_expr's commonest case, without the call
            node = _bare(_Constant)
            node.value = value
            stack.append(node)
            return
        stack.append(constant_expr(value, index))

    def op_LOAD_FAST(self, ins: Instr, stack: Stack) -> None:
        name = ins.arg
        if name == ".0":  # (only a comprehension's argument is no plain name: see name_node)
            stack.append(name_node(name))
            return
        node = _bare(_Name)  # name_node(name), without the call: the commonest instruction
        node.id = name
        node.ctx = LOAD
        stack.append(node)

    op_LOAD_NAME = op_LOAD_DEREF = op_LOAD_CLASSDEREF = op_LOAD_CLOSURE = op_LOAD_FAST

    def op_LOAD_FROM_DICT_OR_GLOBALS(self, ins: Instr, stack: Stack) -> None:
        self.pop(stack, ins)  # the mapping (class namespace) looked in first
        stack.append(name_node(ins.arg))

    op_LOAD_FROM_DICT_OR_DEREF = op_LOAD_FROM_DICT_OR_GLOBALS

    def op_LOAD_LOCALS(self, ins: Instr, stack: Stack) -> None:
        stack.append(M.Discard())

    def op_LOAD_GLOBAL(self, ins: Instr, stack: Stack) -> None:
        name, null = ins.arg
        if null and not _NULL_ABOVE:
            stack.append(M.Null())
        node = _bare(_Name)  # name_node(name), without the call (a global is never ``.0``)
        node.id = name
        node.ctx = LOAD
        stack.append(node)
        if null and _NULL_ABOVE:
            stack.append(M.Null())

    def op_LOAD_ATTR(self, ins: Instr, stack: Stack) -> None:
        name, method = ins.arg
        obj = stack.pop() if stack else self.underflow(ins)
        if not isinstance(obj, EXPRESSIONS):
            obj = self.expr(obj, ins)
        node = _bare(_Attribute)  # ast.Attribute(obj, name, LOAD), without the class's argument checks
        node.value = obj
        node.attr = name
        node.ctx = LOAD
        stack.append(node)
        if method:
            stack.append(M.Null())

    def op_PUSH_NULL(self, ins: Instr, stack: Stack) -> None:
        stack.append(M.Null())

    def op_LOAD_ASSERTION_ERROR(self, ins: Instr, stack: Stack) -> None:
        node = name_node("AssertionError")
        node.uncompile_assertion = True  # type: ignore[attr-defined]
        stack.append(node)

    def op_LOAD_BUILD_CLASS(self, ins: Instr, stack: Stack) -> None:
        stack.append(M.BuildClass())

    # stack shuffles

    def op_POP_TOP(self, ins: Instr, stack: Stack) -> None:
        value = stack.pop() if stack else self.underflow(ins)
        if hasattr(value, "uncompile_import"):
            return
        if isinstance(value, M.TargetSlot):  # ``_, _, x = v``: a store the next one overwrites
            value.owner.dropped.append(value.position)
            return
        if isinstance(value, ast.NamedExpr) or not isinstance(value, M.Marker):
            if type(value) is _Attribute and hasattr(value, "uncompile_submodule"):
                return  # a submodule ``import a.b.c as d`` read
            if value is self.chain_named:
                self.chain = None
            node = _bare(_Expr)  # ast.Expr(value), without the class's argument checks
            node.value = value
            self.emit(node)
        elif isinstance(value, M.FunctionValue):  # a lambda dropped: ``y(lambda: x)`` as a statement
            self.emit(ast.Expr(self.expr(value, ins)))

    def op_COPY(self, ins: Instr, stack: Stack) -> None:
        if ins.arg > len(stack):
            raise self.fail(ins, "value stack underflow")
        stack.append(stack[-ins.arg])

    def op_SWAP(self, ins: Instr, stack: Stack) -> None:
        if ins.arg > len(stack):
            raise self.fail(ins, "value stack underflow")
        if not V.HAS_EXCEPTION_TABLE and self.legacy_swap_assignment(ins.arg, stack):
            return
        stack[-1], stack[-ins.arg] = stack[-ins.arg], stack[-1]

    def _rotate(self, ins: Instr, stack: Stack, depth: int) -> None:
        """Move the top item *depth* - 1 places down (``ROT_THREE`` is depth 3)."""
        if depth > len(stack):
            raise self.fail(ins, "value stack underflow")
        top = stack.pop()
        stack.insert(len(stack) - depth + 1, top)

    def op_ROT_THREE(self, ins: Instr, stack: Stack) -> None:
        if self.legacy_swap_assignment(3, stack):
            return
        self._rotate(ins, stack, 3)

    def op_ROT_FOUR(self, ins: Instr, stack: Stack) -> None:
        self._rotate(ins, stack, 4)

    def op_ROT_N(self, ins: Instr, stack: Stack) -> None:
        self._rotate(ins, stack, ins.arg)

    def op_DUP_TOP_TWO(self, ins: Instr, stack: Stack) -> None:
        stack.extend(stack[-2:])

    # expressions

    def op_COMPARE_OP(self, ins: Instr, stack: Stack) -> None:
        left, right = self.pop_pair(stack, ins)
        stack.append(compare(COMPARE[ins.arg](), left, right))

    def op_IS_OP(self, ins: Instr, stack: Stack) -> None:
        left, right = self.pop_pair(stack, ins)
        stack.append(compare(ast.IsNot() if ins.arg else ast.Is(), left, right))

    def op_CONTAINS_OP(self, ins: Instr, stack: Stack) -> None:
        left, right = self.pop_pair(stack, ins)
        stack.append(compare(ast.NotIn() if ins.arg else ast.In(), left, right))

    def op_BINARY_OP(self, ins: Instr, stack: Stack) -> None:
        left, right = self.pop_pair(stack, ins)
        node = binary(ins.arg.rstrip("="), left, right)
        if ins.arg.endswith("=") and ins.arg not in ("==",):
            node.uncompile_inplace = True  # type: ignore[attr-defined]
        stack.append(node)

    def op_BINARY_SUBSCR(self, ins: Instr, stack: Stack) -> None:
        obj, key = self.pop_pair(stack, ins)
        stack.append(ast.Subscript(obj, subscript_key(key), LOAD))

    def op_BINARY_SLICE(self, ins: Instr, stack: Stack) -> None:
        stop = self.pop_expr(stack, ins)
        start = self.pop_expr(stack, ins)
        obj = self.pop_expr(stack, ins)
        stack.append(ast.Subscript(obj, slice_node(start, stop, None), LOAD))

    def op_BUILD_SLICE(self, ins: Instr, stack: Stack) -> None:
        parts = self.pop_n(stack, ins.arg, ins)
        stack.append(slice_node(parts[0], parts[1], parts[2] if len(parts) > 2 else None))

    def op_UNARY_NOT(self, ins: Instr, stack: Stack) -> None:
        stack.append(ast.UnaryOp(ast.Not(), self.pop_expr(stack, ins)))

    # statements

    def op_RETURN_VALUE(self, ins: Instr, stack: Stack) -> None:
        value = stack.pop() if stack else self.underflow(ins)
        if _GENERICS and self.code.co_name.startswith(V.GENERIC_PARAMETERS_PREFIX):
            # the definition this hidden function builds, in its own form (see structure.generics)
            name = self.code.co_name[len(V.GENERIC_PARAMETERS_PREFIX) : -1]
            if isinstance(value, M.TypeAliasValue):
                self.emit(value.statement)
                return
            if isinstance(value, (M.FunctionValue, M.ClassValue)):
                self.emit(self.calls.definition(value, name))
                return
        if isinstance(value, M.TargetSlot) and len(value.owner.targets) == 1:
            # ``*X`` unpacked into one value: only a ``*Ts = *X`` default's evaluator returns it
            self.emit(ast.Return(ast.Starred(self.expr(value.owner.value, ins), LOAD)))
            return
        node = _bare(_Return)  # ast.Return(value), without the class's argument checks
        node.value = value if isinstance(value, EXPRESSIONS) else self.expr(value, ins)
        self.emit(node)

    def _binds_type_params(self, target: ast.expr, value: Any) -> bool:
        """A store the compiler adds for type parameters: each one under its name, the class's
        tuple of them in ``.type_params`` (kept for the class), its ``Generic[...]`` base."""
        if not isinstance(target, ast.Name):
            return False
        if isinstance(value, M.TypeParam):
            return bool(value.node.name == target.id)
        if target.id == ".type_params" and isinstance(value, M.TypeParams):
            self.class_type_params = value.nodes
            return True
        return target.id == ".generic_base" and isinstance(value, M.Discard)

    def op_RAISE_VARARGS(self, ins: Instr, stack: Stack) -> None:
        parts = self.pop_n(stack, ins.arg, ins)
        exc = parts[0] if parts else None
        cause = parts[1] if len(parts) > 1 else None
        self.emit(ast.Raise(exc, cause))

    def op_YIELD_VALUE(self, ins: Instr, stack: Stack) -> None:
        value = self.pop(stack, ins)
        if isinstance(value, M.LoopTarget) and value.target is None:  # 3.15: (*x for x in y)
            value = unpacked_item(value)
        stack.append(ast.Yield(self.expr(value, ins)))

    def op_YIELD_FROM(self, ins: Instr, stack: Stack) -> None:
        stack.append(ast.YieldFrom(self.pop_expr(stack, ins)))

    def op_GET_YIELD_FROM_ITER(self, ins: Instr, stack: Stack) -> None:
        pass

    def op_AWAIT(self, ins: Instr, stack: Stack) -> None:
        if stack and isinstance(stack[-1], (M.WithExitCall, M.Discard)):  # an ``async with``'s exit, awaited
            return
        value = self.pop_expr(stack, ins)
        if getattr(value, "uncompile_awaited", False):  # the coroutine of an async comprehension
            value.uncompile_awaited = False  # type: ignore[attr-defined]
            stack.append(value)
            return
        stack.append(ast.Await(value))

    def op_RETURN_GENERATOR(self, ins: Instr, stack: Stack) -> None:
        stack.append(M.Discard())

    def op_GEN_START(self, ins: Instr, stack: Stack) -> None:
        self.pop(stack, ins)

    def op_PRINT_EXPR(self, ins: Instr, stack: Stack) -> None:
        self.emit(ast.Expr(self.pop_expr(stack, ins)))

    def op_SETUP_ANNOTATIONS(self, ins: Instr, stack: Stack) -> None:
        pass

    # exception handling bookkeeping

    def op_PUSH_EXC_INFO(self, ins: Instr, stack: Stack) -> None:
        value = self.pop(stack, ins)
        stack.append(M.Discard())
        stack.append(value)

    def op_POP_EXCEPT(self, ins: Instr, stack: Stack) -> None:
        for _ in range(V.POP_EXCEPT_POPS):
            self.pop(stack, ins)

    def op_RERAISE(self, ins: Instr, stack: Stack) -> None:
        pass

    def op_LOAD_FAST_AND_CLEAR(self, ins: Instr, stack: Stack) -> None:
        stack.append(M.SavedLocal())
