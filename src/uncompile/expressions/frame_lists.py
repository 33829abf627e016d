"""Dynamo's frame-value lists, edited at decompile time while only the stack holds them.

To call a resume function, Dynamo's generated code (``create_call_resume_at``,
``create_resume`` and ``codegen_call_resume`` in ``torch/_dynamo/symbolic_convert.py``)
packs the live values of each frame into lists built on the value stack and edits them
there: ``frames[i][k:k] = [stack values]``, the dead-locals filter
``frames[i][n:] = [frames[i][j], ...]``, ``[frames[i]]`` to drop skipped frames,
``frames[-1]`` with ``del frames[-1]``, and finally ``resume(*[[], frames, *frames_popped])``.

A list display built by ``BUILD_LIST`` is *held* (:mod:`.held_lists`) as long as nothing but the
stack refers to it, directly or as an item of another held list. Copies of a held list on
the stack are the same ``ast.List`` node, so an edit through one shows through all of them,
as it does at run time; while it is held, each of those edits is done on the display itself
(:class:`FrameListOps`), and the call above prints as ``resume([], [], a, b)``.

A held list stops being held when it becomes part of some other expression or of a
statement. If another copy is still on the stack then, it is given a name first (the
spill of :mod:`.stack_shuffles`), so both uses stay one object. An edit that would drop
a value with an effect, or move values with effects out of the order they were computed
in, names the values concerned first.

Lists and sets that are not held (a name, an attribute) are updated with method calls:
``x.extend(y)``, ``x.update(y)``, ``x.append(y)``.
"""

from __future__ import annotations

import ast
import copy
from typing import Any, Callable, Dict, Iterable, List, Optional, Set, Union

from ..bytecode import versions as V
from ..bytecode.instructions import Instr
from . import values as M
from .computation_order import ComputationOrder
from .dynamo_effects import empty_insert, stable
from .held_lists import held, held_below, held_in, hold, leaves, parts, references, release, replace

Stack = List[Any]
Key = Union[int, slice]

#: What a held list is on the stack (a starred item stands for its value).
_LISTS = (ast.List, ast.Starred)


def constant_key(key: Any) -> Optional[Key]:
    """The index or (step-less) slice that *key* is, when it is made of integer constants."""
    if isinstance(key, ast.Constant) and type(key.value) is int:
        return key.value
    if not isinstance(key, ast.Slice) or key.step is not None:
        return None
    bounds: List[Optional[int]] = []
    for bound in (key.lower, key.upper):
        if bound is None:
            bounds.append(None)
        elif isinstance(bound, ast.Constant) and type(bound.value) is int:
            bounds.append(bound.value)
        else:
            return None
    return slice(bounds[0], bounds[1])


def _plain(node: Any) -> bool:
    """A list or tuple display without starred items: its items are known one by one."""
    return isinstance(node, (ast.List, ast.Tuple)) and not any(isinstance(e, ast.Starred) for e in node.elts)


def _items_known(node: Any) -> bool:
    """A display whose items can be taken one by one now: a tuple display or a held list."""
    return _plain(node) and (held(node) or isinstance(node, ast.Tuple))


def _slice_key(stack: Stack) -> Optional[Key]:
    """The constant slice ``BINARY_SLICE``/``STORE_SLICE`` take from the top two stack items."""
    return constant_key(ast.Slice(lower=stack[-2], upper=stack[-1], step=None))


def _shared_bottom(first: List[Any], second: List[Any]) -> int:
    """How many items at the start of *first* and *second* are the same objects."""
    count = min(len(first), len(second))
    while count and first[count - 1] is not second[count - 1]:
        count -= 1  # a step changes the top of the stack: the rest is usually shared
    if first[:count] == second[:count]:  # identity: no stack item defines ``==``
        return count
    shared = 0
    while first[shared] is second[shared]:
        shared += 1
    return shared


def _lists_left(before: Stack, after: Stack) -> bool:
    """Whether a list display (or ``*list``) on the stack *before* a step is not on it *after*."""
    for item in before:
        if isinstance(item, _LISTS) and item not in after:  # ``in``: identity, see _shared_bottom
            return True
    return False


class FrameListOps:
    """Mixin of :class:`~.stack_shuffles.DynamoSimulator`: edits of held lists; see the module docstring."""

    calls: Any
    order: ComputationOrder
    instrs: Any
    #: Expressions :meth:`settle` has done, by id (kept alive here so that ids stay theirs).
    settled: Dict[int, Any]
    built_lists: bool

    # provided by the simulator
    spill: Callable[..., ast.Name]
    spill_items: Callable[[Stack, Iterable[Any]], None]
    unstable: Callable[..., List[Any]]
    fail: Any
    emit: Callable[[ast.stmt], None]
    pop_expr: Callable[[Stack, Instr], ast.expr]
    readers: Callable[[Stack, Set[str]], List[Any]]

    # -- keeping held lists faithful --------------------------------------------------------

    def dropped(self, before: List[Any], after: List[Any]) -> bool:
        """Whether values with effects that *before* (stack items) holds are gone from *after*.

        What the two share at the bottom is kept: only the values in the rest of *before* are
        looked for (usually none has an effect, and *after* is not searched at all).
        """
        shared = _shared_bottom(before, after)
        lost = self.unstable(before[shared:])
        if not lost:
            return False
        kept = {id(leaf) for leaf in leaves(after)}
        return any(id(leaf) not in kept for leaf in lost)

    def in_order(self, stack: Stack) -> bool:
        """The values with effects on *stack*, read depth first, are in the order they were computed."""
        seqs = [self.order.number(leaf) for leaf in self.unstable(stack)]
        return all(a < b for a, b in zip(seqs, seqs[1:]))

    def materialize(self, stack: Stack, node: Any) -> ast.Name:
        """Give the held list *node* a name (and the held lists in it that are also elsewhere)."""
        self.spill_items(stack, self.unstable(stack))
        for inner in list(parts(node.elts)):
            if held(inner) and references(stack, inner) > references(node.elts, inner):
                self.materialize(stack, inner)
        return self.spill(stack, node)

    def settle(self, stack: Stack, before: Stack) -> None:
        """After a step: held lists that became part of another expression are no longer held;
        one that has another copy on the stack gets a name first.

        *before* is the stack before the step. A held list can only become part of another
        expression by leaving the top of the stack (operations take their operands from there),
        so when no list left it, the expressions the step made hold none: they are settled
        as they are.
        """
        if not self.built_lists:
            return  # every held list starts as a BUILD_LIST: none yet, nothing to settle
        pushed = stack[: len(before)] == before  # ``==``: identity, see _shared_bottom
        if not pushed and _lists_left(before, stack):
            self._release(stack)
            return
        for item in stack[len(before) :] if pushed else stack:
            if isinstance(item, ast.AST) and item not in before and not held(item):
                self.settled[id(item)] = item

    def _release(self, stack: Stack) -> None:
        """:meth:`settle` after a step that took held lists off the stack: the expressions not
        settled yet are settled, and the held lists in them released."""
        settled = self.settled
        for item in parts(stack):
            if not isinstance(item, ast.AST) or settled.get(id(item)) is item or held(item):
                continue  # a settled expression holds no held list, and none is held again
            settled[id(item)] = item
            inside = held_below(item, settled)
            for node in inside:
                if held(node) and references(stack, node) > 1:
                    self.materialize(stack, node)
            for node in inside:
                release(node)

    def settle_statement(self, stack: Stack, statement: ast.stmt) -> None:
        """Before *statement* is emitted: the held lists in it that the stack also holds get names."""
        if not self.built_lists:
            return  # no list was built: none is held
        inside = held_in(statement)
        for node in inside:
            if held(node) and references(stack, node):
                name = self.materialize(stack, node)
                replace([statement], node, name, deep=True)
        for node in inside:  # the ones given a name were released in their own assignment
            release(node)

    # -- the edits ----------------------------------------------------------------------------

    def op_BUILD_LIST(self, ins: Instr, stack: Stack) -> None:
        self.calls.step(ins, stack, self)
        hold(stack[-1])
        self.built_lists = True

    def take(self, stack: Stack, count: int, key: Optional[Key]) -> bool:
        """``obj[key]`` of the held list *count* items down, popping *count* items; False if not done."""
        obj = stack[-count]
        if not held(obj) or key is None or not _plain(obj):
            return False
        if isinstance(key, int):
            if not -len(obj.elts) <= key < len(obj.elts):
                return False
            result = obj.elts[key]
        else:
            result = ast.List(elts=obj.elts[key], ctx=ast.Load())
            hold(result)
            self.order.same_as(result, obj)
        after = stack[:-count] + [result]
        if self.dropped(stack, after):
            return False
        stack[:] = after
        return True

    def op_BINARY_SUBSCR(self, ins: Instr, stack: Stack) -> None:
        if len(stack) < 2 or not self.take(stack, 2, constant_key(stack[-1])):
            super().op_BINARY_SUBSCR(ins, stack)  # type: ignore[misc]

    def op_BINARY_SLICE(self, ins: Instr, stack: Stack) -> None:
        key = _slice_key(stack) if len(stack) >= 3 else None
        if not self.take(stack, 3, key):
            super().op_BINARY_SLICE(ins, stack)  # type: ignore[misc]

    def put(self, stack: Stack, count: int, key: Optional[Key]) -> bool:
        """``obj[key] = value`` (obj the held list *count* - 1 items down, value under it), popping
        *count* items; False if not done."""
        value, obj = stack[-count], stack[-count + 1]
        if not held(obj) or key is None or not _plain(obj):
            return False
        if isinstance(key, int) and not -len(obj.elts) <= key < len(obj.elts):
            return False
        if isinstance(key, slice) and not _items_known(value):
            return False

        def make() -> List[Any]:
            new = list(obj.elts)
            new[key] = stack[-count] if isinstance(key, int) else stack[-count].elts
            return new

        return self.edit(stack, count, obj, make)

    def edit(self, stack: Stack, count: int, obj: ast.List, make: Callable[[], List[Any]]) -> bool:
        """Give *obj* the items *make* returns and pop *count* items, unless that loses values
        with effects; values with effects that it would reorder get names first."""
        before = self.unstable(stack)
        old = obj.elts
        obj.elts = make()
        after = stack[:-count]
        kept = {id(leaf) for leaf in leaves(after)}
        if any(id(leaf) not in kept for leaf in before):
            obj.elts = old
            return False
        if not self.in_order(after):
            obj.elts = old
            self.spill_items(stack, self.unstable(stack))
            obj.elts = make()
        del stack[-count:]
        return True

    def store_subscr(self, ins: Instr, stack: Stack) -> None:
        if len(stack) < 3 or not self.put(stack, 3, constant_key(stack[-1])):
            super().op_STORE_SUBSCR(ins, stack)  # type: ignore[misc]

    def op_STORE_SLICE(self, ins: Instr, stack: Stack) -> None:
        key = _slice_key(stack) if len(stack) >= 4 else None
        if not self.put(stack, 4, key):
            super().op_STORE_SLICE(ins, stack)  # type: ignore[misc]

    def op_DELETE_SUBSCR(self, ins: Instr, stack: Stack) -> None:
        if len(stack) >= 2 and held(stack[-2]) and _plain(stack[-2]):
            obj, key = stack[-2], constant_key(stack[-1])
            if isinstance(key, int) and -len(obj.elts) <= key < len(obj.elts):
                if self.edit(stack, 2, obj, lambda: obj.elts[:key] + obj.elts[key:][1:]):
                    return
        super().op_DELETE_SUBSCR(ins, stack)  # type: ignore[misc]

    def extend_held(self, stack: Stack, depth: int) -> bool:
        """``LIST_EXTEND`` of a held list by a display: its items go straight in."""
        item, target = stack[-1], stack[-depth]
        if not held(target) or not _items_known(item):
            return False
        return self.edit(stack, 1, target, lambda: target.elts + stack[-1].elts)

    def call_with_held(self, ins: Instr, stack: Stack) -> None:
        """``f(*[a, b])`` of a held list is ``f(a, b)``."""
        has_kwargs = ins.arg[0]
        depth = 2 if has_kwargs or V.VERSION >= (3, 14) else 1
        if len(stack) >= depth and held(stack[-depth]):
            positional = stack[-depth]
            stack[-depth] = ast.Tuple(elts=positional.elts, ctx=ast.Load())
            if references(stack, positional):  # another copy stays: keep the list one object
                stack[-depth] = positional
                self.materialize(stack, positional)

    # -- in-place updates of lists that are not held --------------------------------------

    def _update_target(self, ins: Instr, stack: Stack, depth: int, item: Any) -> Any:
        """The display to update, or a name (spilled) when it is not one being built."""
        target = stack[-depth]
        # The item is evaluated after everything on the stack; a display lower down that
        # takes it must not move it before the unstable items above the display.
        if not stable(item) and self.unstable(stack[:-1], len(stack) - depth + 1):
            self.spill_items(stack, self.unstable(stack))
            target = stack[-depth]
        return target

    def _method_call(self, target: Any, method: str, args: List[ast.expr], stack: Stack, ins: Instr) -> None:
        if not isinstance(target, ast.Name):
            target = self.spill(stack, target)
        readers = self.readers(stack, {target.id})
        if readers:  # ``[*x]`` still on the stack was made before ``x.append(y)``
            self.spill_items(stack, self.unstable(stack) + readers)
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
        if ins.op == "LIST_EXTEND" and self.extend_held(stack, ins.arg + 1):
            return
        target = self._update_target(ins, stack, ins.arg + 1, item)
        if held(item) and references(stack[:-1], item):
            self.materialize(stack, item)  # ``[*x]`` copies x: later edits of x must not show
            item, target = stack[-1], stack[-ins.arg - 1]
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
        if len(stack) >= 3 and empty_insert(stack[-1], stack[-3]) and stable(stack[-2]) is not None:
            del stack[-3:]  # ``x[k:k] = []`` changes nothing
            return
        self.store_subscr(ins, stack)

    def op_CALL_FUNCTION_EX(self, ins: Instr, stack: Stack) -> None:
        has_kwargs, null_slot = ins.arg
        if (
            has_kwargs
            and V.VERSION < (3, 14)
            and stack
            and isinstance(stack[-1], ast.Dict)
            and not stack[-1].keys
        ):
            stack.pop()  # ``f(*args, **{})`` is ``f(*args)``
            ins = copy.copy(ins)
            ins.arg = (False, null_slot)
        self.call_with_held(ins, stack)
        self.calls.step(ins, stack, self)

    def op_LIST_APPEND(self, ins: Instr, stack: Stack) -> None:
        if ins.arg + 1 > len(stack):
            raise self.fail(ins, "value stack underflow")
        inside = stack[len(stack) - ins.arg :]
        target = stack[-ins.arg - 1]
        if isinstance(target, ast.List) or any(isinstance(v, M.Iterator) for v in inside):
            self.calls.step(ins, stack, self)
            return
        item = self.pop_expr(stack, ins)
        self._method_call(stack[-ins.arg], "append", [item], stack, ins)
