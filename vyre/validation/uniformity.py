"""V010: a flow-sensitive uniformity analysis that finds divergent barriers.

A value is *uniform* when every invocation of a workgroup that computes it gets
the same result. Control is *divergent* inside an If whose condition is not
uniform, inside a Loop whose bounds are not uniform, and after a Return taken
under divergent control (until the end of the kernel, and on the later
iterations of every enclosing loop). A Barrier under divergent control may be
reached by only part of a workgroup.

Non-uniform sources: LocalId, InvocationId, a Load from a writable
(read_write or workgroup) buffer or at a non-uniform index, any Atomic, any
Call. Locals carry the uniformity of their last assignment; an assignment made
under divergent control makes the variable non-uniform. Branches merge by
"non-uniform in either"; loops iterate to a fixpoint, so an assignment in a
loop body reaches the reads of the next iteration.

Cost: each loop body is walked at most three times per entry (after two
unstable passes the variables the body assigns are widened to non-uniform).
Deep nests of loops that each need those passes could still multiply; a global
work budget bounds that, after which the analysis restarts in a mode that
widens at every loop entry and walks each body once (sound, linear, less
precise).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from xdsl.ir import Attribute, Block, Operation, SSAValue

from vyre.dialects import vyre as d
from vyre.dialects.tables import Dispatch

_WRITABLE = frozenset({d.AccessKind.READ_WRITE.value, d.AccessKind.WORKGROUP.value})
_UNSTABLE_PASSES_BEFORE_WIDENING = 2
# The precise analysis may visit this many ops before it restarts in widening mode.
WORK_PER_NODE = 16
BASE_WORK = 10_000


class _Diverged:
    """The state key of "some invocations have returned under divergent control"."""


_DIVERGED = _Diverged()

_Key = Operation | _Diverged


class _BudgetExceeded(Exception):
    pass


@dataclass(frozen=True)
class _LoopSummary:
    """What a loop body can change: the outer locals it assigns, whether it returns."""

    assigned: tuple[Operation, ...]
    returns: bool


EXPRESSIONS: Dispatch[UniformityAnalysis, [], bool] = Dispatch("uniformity of expressions", lambda: ())
"""Whether an expression op's value may differ between the invocations of a
workgroup (ops without an entry: when any operand may)."""
STATEMENTS: Dispatch[UniformityAnalysis, [bool], None] = Dispatch("uniformity of statements", lambda: ())
"""What a statement does to the divergence state (ops without an entry: their
regions are walked as they are)."""


@dataclass
class UniformityAnalysis:
    """Finds the barriers that may be reached by only part of a workgroup.

    `bindings` maps every resolved `vyre.var` and `vyre.assign` op to the op
    declaring its local (the `vyre.let` or the `vyre.loop`)."""

    writable_buffers: frozenset[Attribute]
    bindings: Mapping[Operation, Operation]
    budget: int
    widen_at_entry: bool = False
    divergent_barriers: set[Operation] = field(default_factory=lambda: set[Operation]())
    _non_uniform_values: dict[SSAValue, bool] = field(default_factory=lambda: {})
    # True = non-uniform (for locals) / diverged (for _DIVERGED); absent = False.
    _state: dict[_Key, bool] = field(default_factory=lambda: {})
    _undo_log: list[tuple[_Key, bool]] = field(default_factory=lambda: [])
    _declared: list[Operation] = field(default_factory=lambda: [])
    _summaries: dict[d.LoopOp, _LoopSummary] = field(default_factory=lambda: {})
    _work: int = 0

    @classmethod
    def run(
        cls,
        kernel: d.KernelOp,
        bindings: Mapping[Operation, Operation],
        node_count: int,
    ) -> set[Operation]:
        writable = frozenset(
            decl.buffer_name for decl in kernel.buffer_decls if decl.access.data in _WRITABLE
        )
        budget = WORK_PER_NODE * node_count + BASE_WORK
        analysis = cls(writable, bindings, budget)
        try:
            analysis.walk_regions(kernel, divergent=False)
        except _BudgetExceeded:
            analysis = cls(writable, bindings, budget, widen_at_entry=True)
            analysis.walk_regions(kernel, divergent=False)
        return analysis.divergent_barriers

    # -- state with an undo log -------------------------------------------
    def _get(self, key: _Key) -> bool:
        return self._state.get(key, False)

    def _set(self, key: _Key, value: bool) -> None:
        old = self._state.get(key, False)
        if old != value:
            self._undo_log.append((key, old))
            self._state[key] = value

    def _changes_since(self, mark: int, declared_mark: int) -> dict[_Key, bool]:
        """Current values of the keys written since `mark`, less locals declared
        since `declared_mark` (they go out of scope with the region)."""
        local = set(self._declared[declared_mark:])
        return {
            key: self._state.get(key, False)
            for key, _ in self._undo_log[mark:]
            if key not in local
        }

    def _undo(self, mark: int, declared_mark: int) -> None:
        while len(self._undo_log) > mark:
            key, old = self._undo_log.pop()
            self._state[key] = old
        del self._declared[declared_mark:]

    def _walk_scoped(self, blocks: Iterable[Block], divergent: bool) -> dict[_Key, bool]:
        """Walk `blocks` from the current state; return their effects and undo them."""
        mark, declared_mark = len(self._undo_log), len(self._declared)
        for block in blocks:
            self.walk_block(block, divergent)
        changes = self._changes_since(mark, declared_mark)
        self._undo(mark, declared_mark)
        return changes

    # -- walking ------------------------------------------------------------
    def walk_regions(self, op: Operation, divergent: bool) -> None:
        for region in op.regions:
            for block in region.blocks:
                self.walk_block(block, divergent)

    def walk_block(self, block: Block, divergent: bool) -> None:
        for op in block.ops:
            self._work += 1
            if self._work > self.budget and not self.widen_at_entry:
                raise _BudgetExceeded
            if op.results:
                self._expression(op)
            else:
                self._statement(op, divergent or self._get(_DIVERGED))

    def _walk_body(self, op: Operation, divergent: bool) -> None:
        for block in op.regions[0].blocks:
            self.walk_block(block, divergent)

    def _non_uniform(self, value: SSAValue) -> bool:
        return self._non_uniform_values.get(value, True)

    def _expression(self, op: Operation) -> None:
        judge = EXPRESSIONS.get(type(op))
        non_uniform = judge(self, op) if judge is not None else self._any_non_uniform(op)
        for result in op.results:
            self._non_uniform_values[result] = non_uniform

    def _any_non_uniform(self, op: Operation) -> bool:
        return any(self._non_uniform(v) for v in op.operands)

    @EXPRESSIONS.on(d.InvocationIdOp, d.LocalIdOp, d.AtomicOp, d.CallOp)
    def _always_non_uniform(self, op: Operation) -> bool:
        return True

    @EXPRESSIONS.on(d.WorkgroupIdOp, d.LitU32Op, d.LitI32Op, d.LitBoolOp, d.BufLenOp)
    def _always_uniform(self, op: Operation) -> bool:
        return False

    @EXPRESSIONS.on(d.VarOp)
    def _var(self, op: d.VarOp) -> bool:
        binding = self.bindings.get(op)
        return binding is not None and self._get(binding)

    @EXPRESSIONS.on(d.LoadOp)
    def _load(self, op: d.LoadOp) -> bool:
        return op.properties["buffer"] in self.writable_buffers or self._any_non_uniform(op)

    def _statement(self, op: Operation, divergent: bool) -> None:
        handle = STATEMENTS.get(type(op))
        if handle is None:
            self.walk_regions(op, divergent)
        else:
            handle(self, op, divergent)

    @STATEMENTS.on(d.LetOp)
    def _let(self, op: d.LetOp, divergent: bool) -> None:
        self._declared.append(op)
        self._set(op, self._non_uniform(op.operands[0]))

    @STATEMENTS.on(d.AssignOp)
    def _assign(self, op: d.AssignOp, divergent: bool) -> None:
        binding = self.bindings.get(op)
        if binding is not None:
            self._set(binding, divergent or self._non_uniform(op.operands[0]))

    @STATEMENTS.on(d.ReturnOp)
    def _return(self, op: d.ReturnOp, divergent: bool) -> None:
        if divergent:
            self._set(_DIVERGED, True)

    @STATEMENTS.on(d.BarrierOp)
    def _barrier(self, op: d.BarrierOp, divergent: bool) -> None:
        if divergent:
            self.divergent_barriers.add(op)

    @STATEMENTS.on(d.BlockOp)
    def _block(self, op: d.BlockOp, divergent: bool) -> None:
        self._walk_body(op, divergent)

    @STATEMENTS.on(d.StoreOp)
    def _store(self, op: d.StoreOp, divergent: bool) -> None:
        pass

    @STATEMENTS.on(d.IfOp)
    def _if(self, op: d.IfOp, divergent: bool) -> None:
        inner = divergent or self._non_uniform(op.operands[0])
        then_region, else_region = op.regions
        then_changes = self._walk_scoped(then_region.blocks, inner)
        else_changes = self._walk_scoped(else_region.blocks, inner)
        for key in then_changes | else_changes:
            before = self._get(key)
            self._set(key, then_changes.get(key, before) or else_changes.get(key, before))

    @STATEMENTS.on(d.LoopOp)
    def _loop(self, op: d.LoopOp, divergent: bool) -> None:
        lower, upper = op.operands
        bounds_non_uniform = self._non_uniform(lower) or self._non_uniform(upper)
        inner = divergent or bounds_non_uniform
        self._declared.append(op)
        self._set(op, bounds_non_uniform)
        if self.widen_at_entry:
            self._widen(op)
        unstable_passes = 0
        while True:
            # The loop header state: the entry state met with every back edge.
            changes = self._walk_scoped(op.regions[0].blocks, inner)
            lowered = [key for key, value in changes.items() if value and not self._get(key)]
            if not lowered:
                return
            for key in lowered:
                self._set(key, True)
            unstable_passes += 1
            if unstable_passes >= _UNSTABLE_PASSES_BEFORE_WIDENING:
                self._widen(op)

    def _widen(self, op: d.LoopOp) -> None:
        summary = self._summary(op)
        for binding in summary.assigned:
            self._set(binding, True)
        if summary.returns:
            self._set(_DIVERGED, True)

    def _summary(self, loop: d.LoopOp) -> _LoopSummary:
        if loop in self._summaries:
            return self._summaries[loop]
        assigned: dict[Operation, None] = {}
        returns = False
        for op in loop.walk():
            if isinstance(op, d.AssignOp) and (binding := self.bindings.get(op)):
                assigned[binding] = None
            elif isinstance(op, d.ReturnOp):
                returns = True
        summary = _LoopSummary(tuple(assigned), returns)
        self._summaries[loop] = summary
        return summary
