"""Patterns of ``match`` statements, read from the code that tests one case's subject.

A case's pattern code is straight-line: every conditional jump in it goes to the case's
failure path (a chain of ``POP_TOP``s, then the next case). :class:`PatternDecoder` runs that
code on symbolic :class:`Place` values (the subject and the items, attributes and values taken
out of it) and records what each check says about its place; :func:`build_pattern` turns a
place into the ``ast.pattern`` it stands for. Or-patterns are decoded alternative by
alternative (each tests a ``COPY`` of the subject).
"""

from __future__ import annotations

import ast
from typing import Any, List, Optional, Tuple

from ..bytecode import versions as V
from ..errors import DecompileError

STORES = ("STORE_FAST", "STORE_NAME", "STORE_GLOBAL", "STORE_DEREF")


class Place:
    """A value the pattern looks at: what it must be and the names it is captured into."""

    def __init__(self) -> None:
        self.kind: Optional[str] = None  # "sequence", "mapping", "class", "value", "singleton", "or"
        self.items: List["Place"] = []
        self.length: Optional[Tuple[str, int]] = None  # a sequence's length test: ("==" or ">=", n)
        self.indexed: List[Tuple[int, "Place"]] = []  # items taken by index (a ``*_`` between)
        self.star: Optional[int] = None  # index of the starred item of a sequence
        self.value: Any = None  # the compared expression, the singleton, or the class
        self.keys: List[ast.expr] = []
        self.attrs: Tuple[str, ...] = ()
        self.positional = 0
        self.rest: Optional[str] = None  # ``**rest`` of a mapping
        self.names: List[str] = []
        self.aliases: List["Place"] = []  # the same capture in the other alternatives of an or


class _Token:
    """A non-pattern stack value: a check's result, a length, a mapping's keys or its rest."""

    def __init__(self, kind: str, place: Optional[Place] = None, n: int = 0) -> None:
        self.kind, self.place, self.n = kind, place, n


def _is_token(value: Any, *kinds: str) -> bool:
    return isinstance(value, _Token) and value.kind in kinds


def landing(walker: Any, target: int, pops: int) -> int:
    """Where a failed check that jumps to *target* with *pops* values to drop goes on.

    The failure paths are chains of ``POP_TOP``s, which jumps may interrupt or end."""
    instrs = walker.instrs
    pos = target
    while pos < len(instrs):
        if instrs[pos].op == "JUMP":
            pos = walker.cfg.index_for(instrs[pos].target)
        elif pops and instrs[pos].op == "POP_TOP":
            pos, pops = pos + 1, pops - 1
        else:
            break
    if pops:
        raise walker.fail(target, "match statement: failure path of a pattern")
    return pos


def joined_code(walker: Any, pos: int) -> List[Tuple[str, Any]]:
    """The instructions from *pos*, past a jump, to the next jump or end of the path.

    Each alternative of an or-pattern jumps to the same code, or is followed by a copy of
    it; the failure paths of a case may also end in copies of the same code."""
    instrs = walker.instrs
    if instrs[pos].op == "JUMP":
        pos = walker.cfg.index_for(instrs[pos].target)
    code = []
    for ins in instrs[pos : pos + 40]:
        code.append((ins.op, ins.arg))
        if ins.op in V.TERMINATORS or ins.op in V.CONDITIONAL_JUMPS or ins.op == "RETURN_VALUE":
            break
    return code


def build_pattern(place: Place) -> ast.pattern:
    """The ``ast.pattern`` that *place*'s checks and captures make."""
    base: Optional[ast.pattern] = None
    if place.kind == "sequence" and place.indexed:
        base = ast.MatchSequence(patterns=_indexed_items(place))
    elif place.kind == "sequence":
        items: List[ast.pattern] = []
        if not place.items and place.length is not None:
            items = [ast.MatchAs(pattern=None, name=None) for _ in range(place.length[1])]
            if place.length[0] == ">=":
                items.append(ast.MatchStar(name=None))
        elif not place.items:
            items = [ast.MatchStar(name=None)]  # ``[*_]``: no length test
        for index, item in enumerate(place.items):
            if index == place.star:
                name = item.names[0] if item.names else None
                items.append(ast.MatchStar(name=name))
            else:
                items.append(build_pattern(item))
        base = ast.MatchSequence(patterns=items)
    elif place.kind == "mapping":
        values = [build_pattern(p) for p in place.items]
        base = ast.MatchMapping(keys=place.keys, patterns=values, rest=place.rest)
    elif place.kind == "class":
        patterns = [build_pattern(p) for p in place.items]
        base = ast.MatchClass(
            cls=place.value,
            patterns=patterns[: place.positional],
            kwd_attrs=list(place.attrs),
            kwd_patterns=patterns[place.positional :],
        )
    elif place.kind == "or":
        base = ast.MatchOr(patterns=[build_pattern(p) for p in place.items])
    elif place.kind == "value":
        base = ast.MatchValue(value=place.value)
    elif place.kind == "singleton":
        base = ast.MatchSingleton(value=place.value)
    for name in reversed(place.names):
        base = ast.MatchAs(pattern=base, name=name)
    return base if base is not None else ast.MatchAs(pattern=None, name=None)


def _indexed_items(place: Place) -> List[ast.pattern]:
    """``[a, *_, b]``: the items read by index around a wildcard star, wildcards between."""
    minimum = place.length[1] if place.length is not None else 0
    front = {i: p for i, p in place.indexed if i >= 0}
    back = {i: p for i, p in place.indexed if i < 0}
    before = max([i + 1 for i in front] + [0]) if front else 0
    after = minimum - before
    wild = ast.MatchAs(pattern=None, name=None)
    items: List[ast.pattern] = [build_pattern(front[i]) if i in front else wild for i in range(before)]
    items.append(ast.MatchStar(name=None))
    items.extend(build_pattern(back[i]) if i in back else wild for i in range(-after, 0))
    return items


class PatternDecoder:
    """Runs one case's pattern code from instruction *pos* on ``[subject place]``."""

    def __init__(self, walker: Any, pos: int, stack: List[Any], base: int) -> None:
        self.walker = walker
        self.pos = pos
        self.stack = stack
        self.base = base  # values below the pattern's subject, kept when it fails
        self.fails: List[Tuple[int, int]] = []  # (where a failed check jumps, how many values it pops there)

    def fail(self, why: str) -> Exception:
        return self.walker.fail(self.pos, "match statement: " + why)

    def run(self, depth: int, captures: bool = False) -> int:
        """Decode until only *depth* values are left and no place is pending; returns the position.

        With *captures* (an alternative of an or-pattern), also stop at a jump with only
        captured places left: the code after the or-pattern stores them."""
        instrs = self.walker.instrs
        stack = self.stack
        while len(stack) > depth or any(isinstance(v, _Token) for v in stack):
            if self.pos >= len(instrs):
                raise self.fail("pattern runs past the code")
            if captures and instrs[self.pos].op == "JUMP" and all(isinstance(v, Place) for v in stack):
                break
            self.step(instrs[self.pos])
            self.pos += 1
        return self.pos

    def step(self, ins: Any) -> None:
        stack = self.stack
        op = ins.op
        if op in V.NO_OPS:
            return
        if op == "COPY" and ins.arg == 1 and isinstance(stack[-1], Place) and self._or_pattern():
            return
        if op == "COPY":
            stack.append(stack[-ins.arg])
        elif op == "SWAP":
            stack[-1], stack[-ins.arg] = stack[-ins.arg], stack[-1]
        elif op == "POP_TOP":
            stack.pop()
        elif op in STORES:
            top = stack.pop()
            if isinstance(top, _Token) and top.kind == "rest" and top.place is not None:
                top.place.rest = ins.arg
            elif isinstance(top, Place):
                for place in [top] + top.aliases:
                    place.names.append(ins.arg)
            else:
                raise self.fail("capture of a non-pattern value")
        elif op in ("MATCH_SEQUENCE", "MATCH_MAPPING"):
            self._place(-1).kind = "sequence" if op == "MATCH_SEQUENCE" else "mapping"
            stack.append(_Token("check"))
        elif op == "GET_LEN":
            stack.append(_Token("len", self._place(-1)))
        elif (
            op == "BINARY_OP"
            and ins.arg == "-"
            and _is_token(stack[-2], "len")
            and isinstance(stack[-1], ast.Constant)
            and isinstance(stack[-1].value, int)
        ):
            stack[-2:] = [ast.Constant(value=-stack[-1].value)]  # ``len(s) - k``: item -k after a star
        elif op == "BINARY_SUBSCR" and _is_token(stack[-2], "attrs", "values"):
            index, token = stack.pop(), stack[-1]
            stack[-1] = token.place.items[index.value]  # 3.10: an attribute or a mapping's value by index
        elif (
            op == "BINARY_SUBSCR" and isinstance(stack[-1], ast.Constant) and isinstance(stack[-1].value, int)
        ):
            index = stack.pop().value
            item = Place()
            self._place(-1).indexed.append((index, item))
            stack[-1] = item
        elif op == "MATCH_CLASS":
            names, cls = stack.pop(), stack.pop()
            place = self._place(-1)
            stack.pop()
            place.kind, place.value, place.positional = "class", cls, ins.arg
            place.attrs = (
                tuple(names.value)
                if isinstance(names, ast.Constant) and isinstance(names.value, tuple)
                else ()
            )
            place.items = [Place() for _ in range(ins.arg + len(place.attrs))]
            stack.append(_Token("attrs", place, len(place.items)))
            if V.MATCH_PUSHES_FLAG:
                stack.append(_Token("check"))
        elif op == "MATCH_KEYS":
            keys = stack[-1]
            place = self._place(-2)
            if isinstance(keys, ast.Constant) and isinstance(keys.value, tuple):
                place.keys = [ast.Constant(value=k) for k in keys.value]
            elif isinstance(keys, ast.Tuple):
                place.keys = list(keys.elts)
            else:
                raise self.fail("mapping keys")
            place.items = [Place() for _ in place.keys]
            stack[-1] = _Token("keys", place, len(place.keys))
            stack.append(_Token("values", place, len(place.keys)))
            if V.MATCH_PUSHES_FLAG:
                stack.append(_Token("check"))
        elif op == "COPY_DICT_WITHOUT_KEYS":
            stack[-1] = _Token("rest", self._place(-2))
        elif op in ("ROT_THREE", "ROT_FOUR", "ROT_N"):
            depth = {"ROT_THREE": 3, "ROT_FOUR": 4}.get(op, ins.arg)
            top = stack.pop()
            stack.insert(len(stack) - depth + 1, top)
        elif op in ("UNPACK_SEQUENCE", "UNPACK_EX"):
            self._unpack(ins)
        elif op == "BUILD_MAP" and ins.arg == 0:
            stack.append(_Token("rest"))
        elif op == "DICT_UPDATE":
            source = stack.pop()
            target = stack[-ins.arg]
            if not isinstance(target, _Token) or not isinstance(source, Place):
                raise self.fail("mapping rest")
            target.place = source
        elif op == "DELETE_SUBSCR":
            del stack[-2:]
        elif op in ("COMPARE_OP", "IS_OP"):
            right, left = stack.pop(), stack.pop()
            if (
                isinstance(left, _Token)
                and left.kind == "len"
                and left.place is not None
                and isinstance(right, ast.Constant)
                and isinstance(right.value, int)
            ):
                left.place.length = (ins.arg, right.value)
                stack.append(_Token("check"))
                return
            if not isinstance(left, Place) or not isinstance(right, ast.expr):
                raise self.fail("comparison in a pattern")
            if op == "IS_OP" and not ins.arg and isinstance(right, ast.Constant):
                left.kind, left.value = "singleton", right.value
            elif op == "COMPARE_OP" and ins.arg == "==":
                left.kind, left.value = "value", right
            else:
                raise self.fail("comparison in a pattern")
            stack.append(_Token("check"))
        elif op in V.CONDITIONAL_JUMPS:
            top = stack.pop()
            if isinstance(top, Place) and op == "POP_JUMP_IF_NOT_NONE":
                top.kind, top.value = "singleton", None
            elif isinstance(top, Place) or (op == "POP_JUMP_IF_NONE") != _is_token(top, "attrs", "values"):
                raise self.fail("test in a pattern")
            elif op == "POP_JUMP_IF_TRUE":
                # 3.12+ (jumps only forward): the check jumps to the success, past the jump on
                # its line that fails (back to a loop's next iteration: a last case in a loop)
                instrs = self.walker.instrs
                fail = instrs[self.pos + 1] if self.pos + 1 < len(instrs) else None
                if fail is None or fail.op != "JUMP":
                    raise self.fail("test in a pattern")
                index_for = self.walker.cfg.index_for
                self.fails.append((index_for(fail.target), len(stack) - self.base))
                self.pos = index_for(ins.target) - 1  # (run goes on at the success)
                return
            self.fails.append((self.walker.cfg.index_for(ins.target), len(stack) - self.base))
        elif op.startswith("LOAD_") or op in ("BUILD_TUPLE", "BINARY_OP", "UNARY_NEGATIVE"):
            self.walker.sim.step(ins, stack)
        else:
            raise self.fail("unsupported instruction %s in a pattern" % op)

    def _or_pattern(self) -> bool:
        """``p | q``: alternatives that each start with a ``COPY`` of the subject at ``self.pos``.

        A failed alternative goes on to the next one's ``COPY``; the last one's failure pops the
        subject. The first alternative's success jumps to (or is followed by a copy of) the code
        after the pattern, which pops the subject. Returns False for a lone ``COPY`` (``p as x``)."""
        instrs = self.walker.instrs
        alternatives: List[Place] = []
        pos = self.pos
        success = None
        while True:
            alternative = Place()
            decoder = PatternDecoder(self.walker, pos + 1, [alternative], 0)
            try:
                end = decoder.run(0, captures=True)
            except (DecompileError, IndexError):
                if alternatives:
                    raise
                return False  # the copy is no alternative's: an index into a sequence, ``p as x``
            landings = {landing(self.walker, target, pops) for target, pops in decoder.fails}
            if len(landings) != 1:
                if not alternatives:
                    return False
                raise self.fail("alternatives of an or-pattern")
            alternatives.append(alternative)
            joined = joined_code(self.walker, end)
            if success is None:
                success, join, captured = end, joined, decoder.stack
            elif len(decoder.stack) != len(captured):
                raise self.fail("alternatives of an or-pattern capture different names")
            elif joined != join:
                if len(alternatives) == 2:
                    return False  # different code after each success: copies for several cases
                raise self.fail("alternatives of an or-pattern go on differently")
            else:
                for first, other in zip(captured, decoder.stack):
                    first.aliases.append(other)
            land = landings.pop()
            if instrs[land].op == "COPY" and instrs[land].arg == 1:
                pos = land
                continue
            if len(alternatives) == 1 or instrs[land].op != "POP_TOP":
                return False  # a lone copy (``p as x``), or copies of a subject for several cases
            break
        subject = self._place(-1)
        subject.kind, subject.items = "or", alternatives
        self.fails.append((land, len(self.stack) - self.base))
        self.stack.extend(captured)
        jump = instrs[success]
        self.pos = (self.walker.cfg.index_for(jump.target) if jump.op == "JUMP" else success) - 1
        return True

    def _place(self, at: int) -> Place:
        value = self.stack[at]
        if not isinstance(value, Place):
            raise self.fail("pattern test of a non-pattern value")
        return value

    def _unpack(self, ins: Any) -> None:
        top = self.stack.pop()
        if isinstance(top, _Token) and top.kind == "keys":
            self.stack.extend(_Token("key") for _ in range(top.n))
            return
        if isinstance(top, _Token) and top.kind in ("attrs", "values") and top.place is not None:
            place, count = top.place, top.n
        elif isinstance(top, Place) and top.kind == "sequence":
            place = top
            count = ins.arg if ins.op == "UNPACK_SEQUENCE" else (ins.arg & 0xFF) + 1 + (ins.arg >> 8)
            if ins.op == "UNPACK_EX":
                place.star = ins.arg & 0xFF
        else:
            raise self.fail("unpacking in a pattern")
        items = place.items if len(place.items) == count else [Place() for _ in range(count)]
        place.items = items
        self.stack.extend(reversed(items))
