"""Statement structuring: walk the control-flow graph and build nested statements.

:class:`Walker` drives the :class:`~uncompile.expressions.simulator.Simulator` block by
block; its mixins build the statements, one per construct family: conditional jumps (a
boolean value or an ``if``) in :mod:`.conditionals`; back edges make ``for``/``while`` loops
in :mod:`.loops` (graph queries in :mod:`.loop_graph`, bottom-tested loops in
:mod:`.bottom_tested_loops`); exception regions (``try``/``with``) in :mod:`.handlers` and
:mod:`.except_clauses`; ``match`` in :mod:`.matches`; the 3.8 - 3.10 block-stack layouts in
:mod:`.blocks_legacy` (its ``except`` clauses in :mod:`.clauses_legacy`), :mod:`.layout_legacy`
and :mod:`.loops_legacy`.
"""

from __future__ import annotations

import ast
from typing import Any, Callable, Dict, FrozenSet, List, NamedTuple, Optional, Set, Tuple

from ..bytecode import versions as V
from ..bytecode.exception_table import Handler, empty_try_entries, exception_handlers, handler_at
from ..bytecode.instructions import Instr, read_code_instructions
from ..bytecode.reader import instruction_lines
from ..errors import DecompileError
from ..expressions import values as M
from ..expressions.stack_shuffles import simulator_for
from ..flow.cfg import ENDS_PATH, ControlFlowGraph
from .block_stacks_legacy import has_block_setups, reraise_leaders
from .blocks_legacy import LegacyBlocks
from .clauses_legacy import copied_clause_exit_leaders
from .compare_chains import CompareChains
from .conditionals import Conditionals
from .context import Context
from .copied_exits import COPYABLE_EXITS, is_copied_break, join_copied_exits, while_exit_copy
from .handler_regions import finally_reraises
from .handlers import COPY_START_OPS, HandlerStructurer
from .if_statements import IfStatements
from .layout_legacy import LegacyLayout
from .loops import LoopStructurer
from .loops_legacy import LegacyLoopLayout
from .matches import MatchStructurer
from .pure_blocks import PureBlocks

_WITH_STARTS = ("BEFORE_WITH", "SETUP_WITH")
#: 3.10 copies the code after a loop into its breaks (see legacy_copied_break): any instruction
#: of a while loop's body may start one, in a block that returns
_COPIED_BREAKS = V.LAYOUT_IN_SOURCE_ORDER and V.RETURN_COPIED_TO_BRANCHES
_COPIES_SMALL_EXITS = V.COPIES_SMALL_EXITS  # (see while_exit_copy)
_CONDITIONAL_JUMPS = V.CONDITIONAL_JUMPS
#: What run_block checks before executing it (outside finally copies and, on 3.10, a while loop's
#: blocks that return; the others are only executed), besides the starts of a match,
#: ``LOAD_CONST None`` and ``POP_TOP`` (see :data:`_CHECKED_OPS`): the start of an ``except*``
#: clause's exit (skip_copies), of a with and, on 3.10, the end of a try body copied with its
#: exit (legacy_copied_try_exit)
_CHECKED_ALWAYS = (
    (COPY_START_OPS - {"LOAD_CONST"}) | frozenset(_WITH_STARTS) | ({"POP_BLOCK"} if _COPIED_BREAKS else set())
)
#: the match starts of a code object -> all that run_block checks there, by whether ``LOAD_CONST``
#: is (its ``None`` starts a with-exit call or an except clause's name cleanup, see skip_copies:
#: only after a with was entered, or inside an ``except ... as name`` clause) and then whether
#: ``POP_TOP`` is (3.10+: it starts a copied break, see is_copied_break, only in a loop's
#: block that ends the function)
_CHECKED_OPS: Dict[FrozenSet[str], Tuple[Tuple[FrozenSet[str], FrozenSet[str]], ...]] = {}
_NO_LEADERS: FrozenSet[int] = frozenset()
_new_tuple = tuple.__new__


class CodeParts(NamedTuple):
    """What the walk of a code object starts from (see :func:`read_code`)."""

    instrs: List[Instr]
    index_of: Dict[int, int]  # the index of the first instruction at each offset
    handlers: List[Handler]  # 3.11+: the exception table's regions, the tries with an empty body last
    empty_tries: Dict[int, Handler]  # tries with an empty body, by where they stand
    branches: Tuple[List[int], List[int]]  # the indices of the jumps and of the path ends


def read_code(code: Any) -> CodeParts:
    """The instructions and exception handlers of *code* (3.8 - 3.10: none, their handlers are
    laid out after each body and structured from the block stack, see blocks_legacy)."""
    instrs, index_of, jumps, ends = read_code_instructions(code)
    if not V.HAS_EXCEPTION_TABLE:
        # (CodeParts(...) without its call)
        return _new_tuple(CodeParts, (instrs, index_of, [], {}, (jumps, ends)))
    handlers = exception_handlers(code, instrs)
    empty_tries = {e.start: e for e in empty_try_entries(code, instrs, handlers)}
    return _new_tuple(
        CodeParts, (instrs, index_of, handlers + list(empty_tries.values()), empty_tries, (jumps, ends))
    )


class Walker(
    Conditionals,
    IfStatements,
    LoopStructurer,
    HandlerStructurer,
    MatchStructurer,
    LegacyBlocks,
    LegacyLayout,
    LegacyLoopLayout,
    CompareChains,
    PureBlocks,
):
    """Structures one code object; :meth:`run` returns its statements."""

    __slots__ = (
        "_bottom_cuts",
        "_checked_ops",
        "_copied_test_jumps",
        "_covering",
        "_headers",
        "_legacy_setups",
        "_legacy_stacks",
        "_line_at",
        "_line_of",
        "_loopless_exits",
        "_pdoms",
        "_reachable",
        "_statement_free_at",
        "_try_handlers",
        "block_of",
        "blocks",
        "cfg",
        "clause_exit_copies",
        "clause_tails",
        "code",
        "copied_break_cuts",
        "empty_tries",
        "entered_with",
        "exit",
        "finally_exits",
        "handlers",
        "instrs",
        "last_reraise",
        "legacy_final_return_at",
        "match_starts",
        "reraise_joins",
        "sim",
        "steps",
    )

    def __init__(self, code: Any, nested: Any, parts: Optional[CodeParts] = None) -> None:
        """*parts*: :func:`read_code` of *code*, when the caller has read it already."""
        # Every attribute is set here, those set later by the mixins first, and each is a slot
        # (__slots__): found faster than in an instance dict on 3.8 - 3.10, as fast on 3.11+
        # (measured). The mixins have no slots: an attribute left out of __slots__ still works,
        # in a dict (test_walkers_keep_every_attribute_in_slots checks that none is)
        self.reraise_joins: FrozenSet[int] = frozenset()
        self.clause_tails: Set[int] = set()  # see ExceptClauses._clause_tails
        self.clause_exit_copies: Dict[int, int] = {}  # ExceptClauses._last_exit_copy, _legacy_exit_copies
        self.entered_with = False  # whether a with's exit can be on the stack (see run_block)
        self._legacy_stacks = None
        self._legacy_setups: List[Instr] = []  # (3.8 - 3.10) see legacy_link_handlers
        self._covering: Dict[int, Any] = {}  # offset -> the handler entry that covers it, filled as asked
        self._statement_free_at: Dict[Tuple[int, int], bool] = {}  # see PureBlocks._statement_free
        self.code = code
        self._line_of: Optional[Callable[[int], Optional[int]]] = None
        self.instrs, index_of, self.handlers, self.empty_tries, branches = parts or read_code(code)
        # (a try with an empty body is one statement, walked once)
        reraises = finally_reraises(self.instrs, self.handlers, index_of) if self.handlers else []
        # (3.8 - 3.10: code without SETUP_* has no finally body, no handler to link)
        setups = not V.HAS_EXCEPTION_TABLE and has_block_setups(code)
        leaders = _NO_LEADERS
        if reraises:
            leaders = frozenset(k for group in reraises for k in group)
        elif setups:
            leaders = reraise_leaders(self.instrs, branches[1])  # (3.10)
            leaders |= copied_clause_exit_leaders(self.instrs, branches[1], self.line_of)
        self.cfg = ControlFlowGraph(self.instrs, self.handlers, leaders, index_of, branches)
        self.blocks = self.cfg.blocks
        if setups:
            self.legacy_link_handlers()
            self.legacy_link_reraise_copies()
        self.sim = simulator_for(code, nested, self.instrs)
        self.block_of: List[int] = self.cfg.block_of
        self.last_reraise: Dict[int, int] = {}
        if reraises:
            self.link_finally_reraises(reraises)
        self.exit: Optional[int] = None
        self._pdoms: Dict[Optional[FrozenSet[int]], Dict[int, Optional[int]]] = {}  # see region_follow
        self.steps = 0
        self.legacy_final_return_at = -1  # (3.8, 3.9) set by legacy_final_return_dead
        if not V.HAS_EXCEPTION_TABLE:
            self.sim.explicit_final_return = self.legacy_final_return_dead()
        self._headers: Dict[int, bool] = {}
        self._reachable: Dict[Tuple[int, bool], Set[int]] = {}
        self._try_handlers: Dict[int, List[int]] = {}  # block -> the try handler it raises to
        self.finally_exits: Set[int] = set()
        self._loopless_exits: Optional[Dict[int, int]] = None  # see legacy_loop_without_back_edge
        self._bottom_cuts: Dict[int, int] = {}  # bottom-tested loop header -> where its copied test starts
        self._copied_test_jumps: Dict[int, Tuple[int, int]] = {}  # see LoopGraph.copied_test_jump
        self.copied_break_cuts: Dict[int, int] = {}  # for loop header -> where its copied break target starts
        self._line_at: Optional[Callable[[int], Optional[int]]] = None
        self.match_starts = self.match_start_ops(code)
        checked = _CHECKED_OPS.get(self.match_starts)
        if checked is None:
            ops = _CHECKED_ALWAYS | self.match_starts
            checked = _CHECKED_OPS[self.match_starts] = tuple(
                (with_const, with_const | {"POP_TOP"}) for with_const in (ops, ops | {"LOAD_CONST"})
            )
        self._checked_ops = checked  # see run_block

    # -- helpers ------------------------------------------------------------------------

    def fail(self, index: int, why: str) -> DecompileError:
        ins = self.instrs[min(index, len(self.instrs) - 1)] if self.instrs else None
        return DecompileError(
            why,
            function=getattr(self.code, "co_qualname", self.code.co_name),
            offset=ins.offset if ins else None,
            construct=ins.op if ins else None,
        )

    def start_of(self, block: Optional[int]) -> Optional[int]:
        return None if block is None else self.blocks[block].start

    def handler_of(self, offset: int) -> Any:
        """The handler entry that covers *offset*, or None (looked up once per offset)."""
        if not self.handlers:  # most code objects
            return None
        covering = self._covering
        if offset in covering:
            return covering[offset]
        entry = covering[offset] = handler_at(self.handlers, offset)
        return entry

    def try_entry_at(self, offset: int, ctx: Context) -> Any:
        """The handler entry that covers *offset*; inside its region (or outside any), the
        entry of a try with an empty body that stands there, if not walked yet."""
        if not self.handlers:  # (the tries with an empty body are among them)
            return None
        entry = self.handler_of(offset)
        if entry is None or entry.target in ctx.active:
            return self.empty_tries.get(offset, entry)
        return entry

    def line_at(self, offset: int) -> Optional[int]:
        """The source line of the instruction at *offset* (3.8 - 3.10: only where a line starts)."""
        if self._line_at is None:
            self._line_at = instruction_lines(self.code)  # read when first asked: seldom needed
        return self._line_at(offset)

    def line_of(self, offset: int) -> Optional[int]:
        """The source line of the instruction at *offset*, also inside a line (3.10+): the copies
        of one statement share it."""
        if self._line_of is None:
            self._line_of = instruction_lines(self.code, every=True)
        return self._line_of(offset)

    # -- the walk -------------------------------------------------------------------------

    def run(self) -> List[ast.stmt]:
        stack: List[Any] = []
        return self.walk(0, Context(), stack)

    def walk(
        self,
        pos: Optional[int],
        ctx: Context,
        stack: List[Any],
        entering: bool = False,
        out: Optional[List[ast.stmt]] = None,
    ) -> List[ast.stmt]:
        """Statements from instruction index *pos* until a stop; ``self.exit`` is where it stopped.

        *entering* a region or a loop body: see :meth:`region_entry`. *out*: the list the
        statements go to (a side run's, which may refuse them: see PureBlocks._walked_to)."""
        if out is None:
            out = []
        saved, self.sim.out = self.sim.out, out
        stopped: Optional[int] = None  # where the walk stopped; None when its path ended
        try:
            first = True
            depth = len(stack)
            top = stack[-1] if stack else None  # a return's value swapped under it is no value gone
            n = len(self.instrs)
            limit = 50 * n + 5000  # each block is walked a few times at most
            handlers, blocks, block_of = self.handlers, self.blocks, self.block_of
            exit_copies = self.clause_exit_copies
            loopless = None  # (3.8 - 3.9) where loops without a jump back leave: most code has none
            if V.KEEPS_DEAD_CODE:
                loopless = self._loopless_exits
                if loopless is None:
                    loopless = self._loopless_exits = self.legacy_loopless_exits()
            # (all fields at once: one unpacking, not an attribute load each)
            stops, lo, hi, loop, _, finally_bodies, _, until, _ = ctx
            # 3.8 - 3.10: a jump out of a block to a loop's header or exit, or the dead final return
            loop_jumps = (
                (loop.continue_to, loop.break_to) if not V.HAS_EXCEPTION_TABLE and loop is not None else ()
            )
            final_return = self.legacy_final_return_at
            while pos is not None and pos < n:
                self.steps += 1
                ident = block_of[pos]
                if (
                    (pos == final_return or ident in loop_jumps)
                    and not (first and entering)
                    and self.legacy_loop_jump(pos, ctx, stack)
                ):
                    break
                if pos >= until and not self._break_past_bottom_test(pos, ctx):
                    if ident not in self.clause_tails or pos != blocks[ident].start:
                        stopped = pos
                        break
                    # an except clause's block laid out past its cut, which ends the path
                    until = blocks[ident].end
                    ctx = ctx._replace(until=until)
                if self.steps > limit:
                    raise self.fail(pos, "structuring does not terminate")
                block = blocks[ident]
                if pos == block.start and first and entering:
                    nxt = self.region_entry(block, ctx, stack)
                    if nxt != -1:
                        pos, first = nxt, False
                        continue
                elif pos == block.start:  # (not the region's entry)
                    if ident in exit_copies:
                        # (3.13+) an except clause's exit copied into a branch: the branch ends
                        # where the last copy starts (see ExceptClauses._last_exit_copy)
                        pos = blocks[exit_copies[ident]].start
                        continue
                    outside = not lo <= block.offset < hi
                    if (
                        loop is not None
                        and block.id == loop.break_to
                        and block.id not in stops
                        and (block.offset != hi or lo < blocks[loop.header].offset)
                    ):
                        # a region's body never falls through to the loop's exit: ``break`` (the
                        # code right after a region inside the loop is the statement after it, e.g.
                        # a try's; a loop inside the region may end where the region does)
                        self.sim.emit(ast.Break())
                        break
                    if finally_bodies and block.id not in stops and self.continues_through_finally(pos, ctx):
                        self.sim.emit(ast.Continue())  # leaves the region after running its finally
                        break
                    if block.id in stops or (
                        outside
                        and len(stack) <= depth
                        and (not stack or len(stack) < depth or stack[-1] is top)
                        and not self.returns_from_body(block, ctx)
                        and not self.continues_from_body(block, ctx)
                    ):
                        stopped = pos
                        break
                    if loop is not None and block.id == loop.continue_to:
                        self.sim.emit(ast.Continue())
                        break
                    if loop is not None and self.is_break(block.id, loop):
                        self.sim.emit(ast.Break())
                        break
                    if finally_bodies and self.starts_finally_copy(
                        pos, ctx
                    ):  # its loops and tries are part of the copy
                        first = False
                        pos = self.run_block(pos, ctx, stack)
                        continue
                    entry = self.try_entry_at(block.offset, ctx) if handlers else None
                    is_try = (
                        entry is not None and entry.target not in ctx.active and self.is_try_handler(entry)
                    )
                    if (
                        block.id in self.cfg.loop_candidates
                        and self.is_loop_header(block.id)
                        and (loop is None or loop.header != block.id)
                        and not (is_try and self.try_holding_loop(block, entry, ctx) is not None)
                    ):
                        pos = self.loop(block.id, ctx, stack)
                        first = False
                        continue
                    if loopless:
                        nxt = self.legacy_loop_without_back_edge(block, ctx, stack)
                        if nxt != -1:
                            pos, first = nxt, False
                            continue
                    if is_try:
                        pos = self.try_statement(pos, entry, ctx, stack)
                        first = False
                        continue
                first = False
                pos = self.run_block(pos, ctx, stack)
            self.exit = stopped
            if V.COPIES_SMALL_EXITS and len(out) > 1 and type(out[-1]) in COPYABLE_EXITS:
                join_copied_exits(self, out)
            return out
        finally:
            self.sim.out = saved

    def run_block(self, pos: int, ctx: Context, stack: List[Any]) -> Optional[int]:
        """Execute the rest of the block at *pos*; returns where the walk goes next."""
        block = self.blocks[self.block_of[pos]]
        last = block.end - 1
        instrs, sim = self.instrs, self.sim
        step, run_until = sim.step, sim.run_until
        _, _, _, loop, _, finally_bodies, _, until, except_name = ctx  # (see walk)
        copying = bool(finally_bodies)  # a finally body's copy may start anywhere
        # most instructions are only executed: those the checks below can stop at are known
        # (3.10) a block of a loop that ends in a return may hold a copied break (legacy_copied_break)
        copied_break = (
            _COPIED_BREAKS
            and loop is not None
            and loop.break_to is not None
            and instrs[last].op == "RETURN_VALUE"
        )
        # (3.10+) a loop's exit copied into the block ends the function with it (is_copied_break,
        # while_exit_copy)
        exit_copied = _COPIES_SMALL_EXITS and loop is not None and instrs[last].op in ENDS_PATH
        checked = None
        if not copying and not (
            copied_break and instrs[self.blocks[loop.header].start].op != "FOR_ITER"  # type: ignore[union-attr]
        ):  # (a for loop's copied break starts at POP_TOP)
            checked = self._checked_ops[self.entered_with or except_name is not None][exit_copied]
        i = pos
        left_with = False  # a with's exit call was skipped: a jump out of the block leaves the with
        exit_copy = while_exit_copy(self, block, ctx) if exit_copied else -1
        stop = until if until < last else last  # the walk ends at *until*, inside the block or after it
        while i < stop:
            if checked is not None:
                # the instructions no check can stop at are only executed, up to the next one
                # that may be (or where a copy of the loop's exit starts)
                end = exit_copy if i <= exit_copy < stop else stop
                # (one call for the run, scan and steps together: no frame of step's per instruction)
                i = run_until(instrs, i, end, checked, stack)
                if i == stop:
                    break
            if i == exit_copy and (not stack or M.is_marker(stack[-1])):
                self.sim.emit(ast.Break())  # the jump to the loop's exit became a copy of it
                return None
            ins = instrs[i]
            op = ins.op
            skip = self.skip_copies(i, ctx, stack) if copying or op in COPY_START_OPS else 0
            if skip:
                left_with = left_with or self.exit_call_at(i) > 0
                i += skip
                if left_with and self.jumps_to_next_iteration(i, ctx):
                    self.sim.emit(ast.Continue())  # leaves with blocks, calling their exits
                    return None
                if i > last:  # the copy spans blocks (a finally body with an if): go on after it
                    return self._return_after_copy(i, ctx, stack)
                continue
            if op in _WITH_STARTS:
                return self.with_statement(i, ctx, stack)
            if op in self.match_starts and self.is_match_start(i):
                return self.match_statement(i, ctx, stack)
            if copied_break and self.legacy_copied_break(i, ctx):
                self.sim.emit(ast.Break())
                return None
            if _COPIED_BREAKS and op == "POP_BLOCK" and self.legacy_copied_try_exit(i):
                return None  # the branch falls off the end of its try body
            if op == "POP_TOP" and is_copied_break(self, i, ctx, stack):
                self.sim.emit(ast.Break())
                return None
            step(ins, stack)
            i += 1
        if i < last or last >= until:
            return i  # (at *until*, or at the block's last instruction, *until* or after it)
        ins = instrs[last]
        op = ins.op
        skip = self.skip_copies(last, ctx, stack) if last >= pos and (copying or op in COPY_START_OPS) else 0
        if skip:
            return self._return_after_copy(last + skip, ctx, stack)
        if op in _CONDITIONAL_JUMPS:
            before_branch = getattr(self.sim, "before_branch", None)  # Dynamo's code: see stack_shuffles
            if before_branch is not None and stack:
                before_branch(stack, stack[-1])
            return self.conditional(block.id, ctx, stack)
        if op == "JUMP":
            self.sim.pending.append(ins.offset)
            return None if block.jump is None else self.blocks[block.jump].start
        if op == "RERAISE" and block.jump is not None:  # see legacy_link_reraise_copies
            return self.start_of(block.jump)
        if op in _WITH_STARTS:
            return self.with_statement(last, ctx, stack)
        if op == "SETUP_FINALLY" and not V.HAS_EXCEPTION_TABLE:
            return self.legacy_try(last, ctx, stack)
        if op == "FOR_ITER":
            raise self.fail(last, "for loop header outside a loop")
        step(ins, stack)
        if op in ENDS_PATH:
            if (
                V.COPIES_SMALL_EXITS
                and op == "RETURN_VALUE"
                and len(block.preds) >= 2
                and self.sim.out
                and block.end - block.start <= 2
            ):
                # a return reached from several places was written once: an explicit one (3.10+
                # copy the implicit one into each; 3.8 - 3.9 share it)
                self.sim.out[-1].uncompile_shared = True
            return None
        fall = block.fall
        return None if fall is None else self.blocks[fall].start

    def _return_after_copy(self, i: int, ctx: Context, stack: List[Any]) -> Optional[int]:
        """Where the walk goes on after a skipped exit call or finally copy that ends at *i*.

        A ``return x`` from a ``with`` (or ``try``/``finally``) body calls the exit with x on
        the stack and returns it next, in a block of its own: the return belongs to the path,
        and so do the copies of enclosing finally bodies (with tries of their own) before it.
        """
        while stack and not M.is_marker(stack[-1]) and i < len(self.instrs):
            call = self.past_swaps(i)  # the value goes under the next with's exit
            if call != i and self.exit_call_at(call):
                for swap in self.instrs[i:call]:
                    self.sim.step(swap, stack)
            skip = self.skip_copies(call, ctx, stack)
            if not skip:
                break
            i = call + skip
        ins = self.instrs[i] if i < len(self.instrs) else None
        if ins is None or ins.op != "RETURN_VALUE" or not stack or M.is_marker(stack[-1]):
            return i
        self.sim.step(ins, stack)
        return None

    # -- conditions ---------------------------------------------------------------------
