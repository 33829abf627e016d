"""``match`` statements (3.11+): rebuild the cases from the pattern-matching bytecode.

The subject stays on the stack while the cases run: each case but the last refutable one
tests a ``COPY`` of it, and a case that matched pops it before its body. A case's pattern
code is straight-line: every conditional jump in it goes to the case's failure path (pops,
then the next case). :class:`PatternDecoder` runs that code on symbolic :class:`Place` values
(the subject and the items, attributes and values taken out of it) and records what each
check says about its place; :meth:`MatchStructurer.match_statement` turns the places into
``ast.pattern`` nodes, reads the guard, and walks each body.
"""

from __future__ import annotations

import ast
import dis
from typing import Any, List, Optional, Tuple

from ..bytecode import versions as V
from ..bytecode.reader import has_instruction
from ..errors import DecompileError
from ..expressions.conditions import Node, negate, reduce_nodes
from ..expressions.match_patterns import STORES, PatternDecoder, Place, build_pattern, joined_code, landing
from .branch_follow import region_follow
from .context import Context

_NOP = dis.opmap["NOP"]
_STRUCTURAL = ("MATCH_SEQUENCE", "MATCH_MAPPING", "MATCH_CLASS")
_CLASS_LOADS = ("LOAD_GLOBAL", "LOAD_NAME", "LOAD_FAST", "LOAD_DEREF")

#: Instructions a match statement can start with (its subject already on the stack), in code
#: without class patterns and in code with them.
_MATCH_STARTS = frozenset(("COPY", "MATCH_SEQUENCE", "MATCH_MAPPING")) if V.HAS_MATCH else frozenset()
_MATCH_STARTS_WITH_CLASSES = _MATCH_STARTS | frozenset(_CLASS_LOADS) if V.HAS_MATCH else frozenset()
#: Besides loads, what a value (or or-) pattern's test can hold before its conditional jump: the
#: subject copied again, the comparison, a constant's sign or imaginary part (when not folded).
_VALUE_PATTERN_OPS = frozenset(
    ("COPY", "COMPARE_OP", "IS_OP", "TO_BOOL", "NOP", "UNARY_NEGATIVE", "BINARY_OP")
)


class MatchStructurer:
    """Mixin for the walker: ``match`` statements."""

    instrs: List[Any]

    def match_start_ops(self, code: Any) -> frozenset:
        """The instructions a match statement can start with in *code*."""
        if V.HAS_MATCH and has_instruction(code, "MATCH_CLASS"):
            return _MATCH_STARTS_WITH_CLASSES
        return _MATCH_STARTS

    def is_match_start(self: Any, i: int) -> bool:
        """Whether the first case of a match starts at *i*, its subject on the stack.

        The case starts with a ``COPY 1`` of the subject, or, when it is the only case that
        tests the subject, with ``MATCH_SEQUENCE``/``MATCH_MAPPING`` or the class of ``MATCH_CLASS``."""
        instrs = self.instrs
        if not V.HAS_MATCH:
            return False
        if instrs[i].op in ("MATCH_SEQUENCE", "MATCH_MAPPING"):
            return True
        if instrs[i].op != "COPY" or instrs[i].arg != 1:
            return self._starts_class_pattern(i)
        j = i + 1
        while j < len(instrs) and instrs[j].op not in V.CONDITIONAL_JUMPS:
            op = instrs[j].op
            if op in _STRUCTURAL:
                return True
            if op not in _VALUE_PATTERN_OPS and not op.startswith("LOAD_"):
                return False  # a call, a store, a display...: no value pattern's test
            j += 1
        if j + 1 >= len(instrs) or instrs[j + 1].op not in ("POP_TOP", "JUMP") + STORES:
            return False
        test = instrs[j - 1]
        return (instrs[j].op == "POP_JUMP_IF_NOT_NONE" and j == i + 1) or (
            instrs[j].op == "POP_JUMP_IF_FALSE"
            and (test.op == "IS_OP" or (test.op == "COMPARE_OP" and test.arg == "=="))
        )

    def _starts_class_pattern(self: Any, i: int) -> bool:
        """Whether *i* loads the class and attribute names of a ``MATCH_CLASS`` of the value below."""
        depth = 0
        for ins in self.instrs[i : i + 8]:
            if ins.op == "MATCH_CLASS":
                return depth == 2
            if ins.op in _CLASS_LOADS or ins.op == "LOAD_CONST":
                depth += 1
            elif ins.op != "LOAD_ATTR":
                return False
        return False

    def match_statement(self: Any, i: int, ctx: Context, stack: List[Any]) -> Optional[int]:
        """Structure the match whose first case starts at *i*; returns where to go on."""
        subject = self.sim.expr(stack.pop(), self.instrs[i])
        tests = self._case_tests(i)
        follow = self._match_follow(i, tests, ctx)
        after: Optional[int] = self.start_of(follow)
        cases: List[ast.match_case] = []
        for pattern, guard, end, nxt in tests:
            next_case = self.block_of[nxt] if nxt is not None else None
            body = self.walk(end, ctx.stop_at(follow, next_case), list(stack))
            cases.append(ast.match_case(pattern=pattern, guard=guard, body=body or [ast.Pass()]))
        nxt = tests[-1][3]
        if nxt is not None and self.start_of(follow) != nxt and self._after_nop(nxt):
            cases.append(self._default_case(nxt, follow, ctx, stack))
        elif follow is None:
            after = nxt  # the code after the match, copied to where the cases end
        self.sim.emit(ast.Match(subject=subject, cases=cases))
        return after

    def _case_tests(self: Any, pos: int) -> List[Tuple[ast.pattern, Optional[ast.expr], int, Optional[int]]]:
        """Each case's pattern, guard, body start and where its failure goes on (the next case)."""
        tests = []
        while True:
            ins = self.instrs[pos]
            copied = ins.op == "COPY" and ins.arg == 1 and not self._or_case(pos)
            if copied:
                try:
                    pattern, guard, decoder, end = self._case_test(pos, True)
                    copied = self.instrs[end].op == "POP_TOP"
                except (DecompileError, IndexError):
                    copied = False
            if copied:
                end += 1  # the subject's POP_TOP
            else:
                pattern, guard, decoder, end = self._case_test(pos, False)
            nxt = self._after_fails(decoder.fails)
            tests.append((pattern, guard, end, nxt))
            if not copied or nxt is None:
                return tests
            pos = nxt

    def _match_follow(self: Any, i: int, tests: List[Any], ctx: Context) -> Optional[int]:
        """The block after the match: its post-dominator, or in a loop where a case that
        continues or leaves the loop leaves no common one, where the bodies' jumps forward go
        (None when no case goes on: the code after the match follows the last failed test)."""
        follow = region_follow(self, self.block_of[i], ctx)
        if any(nxt is not None and self.block_of[nxt] == follow for *_, nxt in tests[:-1]):
            follow = None  # a case's test: the cases before it all raise (``case 'x': raise``)
        if any(self.block_of[end] == follow and self.blocks[follow].start < end for _, _, end, _ in tests):
            # the subject's POP_TOP where an or-pattern's alternatives meet, before the case's
            # body: the other cases all raise or return, the body goes on to the match's end
            follow = None
        if ctx.loop is None or (follow is not None and follow != ctx.loop.continue_to):
            return follow
        for *_, nxt in tests:
            if nxt is None:
                continue
            before = self.instrs[self.blocks[self.block_of[nxt]].start - 1]
            if before.op == "JUMP" and before.target > before.offset:
                jump_to = self.block_of[self.cfg.index_for(before.target)]
                if jump_to in ctx.loop.body:
                    return jump_to
        last = tests[-1][3]
        if follow is None and last is not None and not self._after_nop(last):
            return None  # no case goes on: the code after the match is where the last test fails
        return ctx.loop.continue_to

    def _after_nop(self: Any, pos: int) -> bool:
        """Whether a ``NOP`` comes right before *pos*: the line of a ``case _:`` before its body."""
        offset = self.instrs[pos].offset - 2
        return offset >= 0 and self.code.co_code[offset] == _NOP

    def _or_case(self: Any, pos: int) -> bool:
        """Whether the case at *pos* is a last refutable case whose pattern is an or-pattern."""
        try:
            return PatternDecoder(self, pos, [Place()], 0)._or_pattern()
        except (DecompileError, IndexError):
            return False

    def _case_test(
        self: Any, pos: int, copied: bool
    ) -> Tuple[ast.pattern, Optional[ast.expr], PatternDecoder, int]:
        """The pattern and guard of the case at *pos*, its decoder and where they end.

        A *copied* case starts with the ``COPY 1`` that keeps the subject for the next case."""
        place = Place()
        decoder = PatternDecoder(
            self, pos + 1 if copied else pos, [place, place] if copied else [place], 1 if copied else 0
        )
        end = decoder.run(1 if copied else 0)
        guard, end = self._guard(end, decoder)
        return build_pattern(place), guard, decoder, end

    def _guard(self: Any, pos: int, decoder: PatternDecoder) -> Tuple[Optional[ast.expr], int]:
        """The guard from *pos* (None if there is none) and where the case's success goes on.

        A guard is one or more blocks of tests (``and``/``or``) whose exits are the failure of
        the case and the code after them; the longest run of blocks that makes one such
        condition is the guard (a copied case's success starts by popping the subject)."""
        after = self._after_fails(decoder.fails)
        first = self.block_of[pos]
        best: Optional[Tuple[ast.expr, int, int]] = None
        nodes: List[Node] = []
        block_id = first
        while block_id < len(self.blocks):
            block = self.blocks[block_id]
            jump = self.instrs[block.end - 1]
            if jump.op not in V.CONDITIONAL_JUMPS or block.fall is None:
                break
            stack: List[Any] = []
            try:
                with self.sim.scratch() as made:  # (a tentative run: a statement there is no guard's)
                    for k in range(pos if block_id == first else block.start, block.end - 1):
                        self.sim.step(self.instrs[k], stack)
                    test = self.sim.pop_expr(stack, jump)
            except (DecompileError, IndexError):
                break
            if stack or made:
                break
            nodes.append(self._node(block_id, test, block.end - 1, False)[0])
            fail = after if after is not None else self.cfg.index_for(jump.target)
            guard = self._guard_test(nodes, block.fall, self.block_of[fail])
            if guard is not None and self.blocks[block.fall].start == self.cfg.index_for(jump.target):
                guard = None
            if guard is not None:
                best = (guard, self.blocks[block.fall].start, fail)
            block_id = block.fall
        if best is None:
            return None, pos
        if after is None:
            decoder.fails.append((best[2], 0))
        # (the guard's instructions belong to the case's first statement, as a run's would)
        self.sim.pending.extend(ins.offset for ins in self.instrs[pos : best[1]])
        return best[0], best[1]

    def _guard_test(self: Any, nodes: List[Node], success: int, fail: int) -> Optional[ast.expr]:
        """The condition *nodes* make if they exit only to *success* (true) and *fail* (false)."""
        inside = {node.entry for node in nodes}
        if any(side not in inside | {success, fail} for node in nodes for side in (node.true, node.false)):
            return None
        reduced, _ = reduce_nodes(nodes)
        if len(reduced) != 1 or {reduced[0].true, reduced[0].false} != {success, fail}:
            return None
        return reduced[0].expr if reduced[0].true == success else negate(reduced[0].expr)

    def _after_fails(self: Any, fails: List[Tuple[int, int]]) -> Optional[int]:
        """Where the next case starts: past the ``POP_TOP`` chain the failed checks jump into."""
        landings = {landing(self, target, pops) for target, pops in fails}
        if len({tuple(joined_code(self, land)) for land in landings}) == 1:
            landings = {min(landings)}  # copies of the same code (the compiler duplicates short exits)
        if len(landings) > 1:
            raise self.fail(fails[0][0], "match statement: failed checks of a case go to different places")
        if not landings:
            return None
        return landings.pop()

    def _default_case(
        self: Any, pos: int, follow: Optional[int], ctx: Context, stack: List[Any]
    ) -> ast.match_case:
        body = self.walk(pos, ctx.stop_at(follow), list(stack))
        wildcard = ast.MatchAs(pattern=None, name=None)
        return ast.match_case(pattern=wildcard, guard=None, body=body or [ast.Pass()])
