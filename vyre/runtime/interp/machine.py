"""The lockstep machine: the state of one batch of lanes and the instructions
that the compiled program is made of.

All lanes of a batch (whole workgroups, workgroup-major then local linear
index, or the reverse) run each instruction together. A mask (None: every
lane) says which lanes the current statement applies to; If runs its branches
under `mask & cond` and `mask & ~cond`, Loop iterates while a lane is still in
range, Return removes lanes. Expressions are evaluated for every lane; only
the side effects of Store, Atomic and Assign are masked. Since barriers sit in
uniform control flow, lockstep execution is one valid schedule in which every
barrier is a real synchronisation point.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import ClassVar, Protocol

import numpy as np

from vyre.dialects.vyre import AtomicOpKind
from vyre.runtime.interp.budget import WorkBudget
from vyre.runtime.interp.errors import InterpError
from vyre.runtime.interp.memory import Index, Memory, atomic, load, store
from vyre.runtime.interp.values import WORD, Lanes, Truth, lane_width, truth

Mask = Truth | None  # None: every lane of the batch is active

MAX_SHARED_CONSTANTS = 64


@dataclass
class Batch:
    """Mutable state of one batch of lanes."""

    lanes: int
    workgroups: int
    slot_count: int
    memories: dict[str, Memory]
    workgroup_slots: Index  # workgroup slot of each lane, 0..workgroups-1
    ids: Callable[[str, int], Lanes]  # ("invocation"|"workgroup"|"local", axis) -> ids
    values: list[Lanes | None] = field(default_factory=lambda: [])
    variables: dict[str, Lanes] = field(default_factory=lambda: {})
    scopes: list[list[tuple[str, Lanes | None]]] = field(default_factory=lambda: [])
    alive: Truth | None = None
    constants: dict[tuple[int, ...], Lanes] = field(default_factory=lambda: {})
    budget: WorkBudget = field(default_factory=lambda: WorkBudget(None))
    """The run's work budget, shared by its batches (budget.py)."""

    def __post_init__(self) -> None:
        self.values = [None] * self.slot_count

    def value(self, slot: int) -> Lanes:
        value = self.values[slot]
        if value is None:
            raise InterpError(
                "an SSA value was read before it was evaluated (is an expression op "
                "placed after its user?)"
            )
        return value

    def constant(self, words: tuple[int, ...]) -> Lanes:
        """The same value in every lane; values are never written in place, so
        the arrays of the most used constants are shared."""
        value = self.constants.get(words)
        if value is not None:
            return value
        if len(words) == 1:
            value = np.full(self.lanes, words[0], dtype=WORD)
        else:
            value = np.tile(np.array(words, dtype=WORD), (self.lanes, 1))
        if len(self.constants) < MAX_SHARED_CONSTANTS:
            self.constants[words] = value
        return value

    def declare(self, name: str, value: Lanes) -> None:
        self.scopes[-1].append((name, self.variables.get(name)))
        self.variables[name] = value

    def end_scope(self) -> None:
        for name, previous in reversed(self.scopes.pop()):
            if previous is None:
                self.variables.pop(name, None)
            else:
                self.variables[name] = previous


def any_active(mask: Mask) -> bool:
    return mask is None or bool(mask.any())


def _select_lanes(mask: Truth, new: Lanes, old: Lanes) -> Lanes:
    condition = mask if new.ndim == 1 else mask[:, None]
    return np.where(condition, new, old)


class Step(Protocol):
    COST: ClassVar[tuple[float, int]]
    """Nanoseconds one run of the step costs per lane and in all (measured on a
    2-core host over random programs; budget.py): the interpreter's work units."""

    def run(self, batch: Batch, mask: Mask) -> Mask: ...


def step_cost(step: Step) -> tuple[float, int]:
    """The work units of one run of `step` (an invoke's depend on its routine)."""
    return step.work if isinstance(step, Invoke) else step.COST


@dataclass(frozen=True)
class Body:
    """A statement list (one block) with its own scope. `frees[k]` are the SSA
    slots whose last use is step k."""

    steps: tuple[Step, ...]
    frees: tuple[tuple[int, ...], ...]
    may_return: bool = field(init=False)
    """Whether a Return may run in it (nested lists included)."""
    cost: tuple[float, int] = field(init=False)
    """(per lane, fixed) work units of one run of its own steps."""
    certain: tuple[float, int] = field(init=False)
    """The work every run certainly costs: its own steps, plus the blocks and
    literal-bound loops before its first statement that may return."""

    def __post_init__(self) -> None:
        lane = sum(step_cost(step)[0] for step in self.steps)
        fixed = sum(step_cost(step)[1] for step in self.steps)
        object.__setattr__(self, "cost", (lane, fixed))
        may_return = False
        for step in self.steps:
            nested: tuple[float, int] = (0.0, 0)
            if isinstance(step, Loop):
                if step.trips is not None and not step.body.may_return:
                    nested = (step.trips * step.body.certain[0], step.trips * step.body.certain[1])
                may_return = step.body.may_return
            elif isinstance(step, Block):
                nested = step.body.certain
                may_return = step.body.may_return
            elif isinstance(step, If):
                may_return = step.then_body.may_return or step.else_body.may_return
            elif isinstance(step, Return):
                may_return = True
            lane, fixed = lane + nested[0], fixed + nested[1]
            if may_return:
                break
        object.__setattr__(self, "may_return", may_return)
        object.__setattr__(self, "certain", (lane, fixed))

    def run(self, batch: Batch, mask: Mask) -> Mask:
        batch.budget.charge(int(self.cost[0] * batch.lanes) + self.cost[1])
        batch.scopes.append([])
        try:
            for step, frees in zip(self.steps, self.frees):
                after = step.run(batch, mask)
                for slot in frees:
                    batch.values[slot] = None
                if after is not mask:
                    mask = after
                    if not any_active(mask):
                        break
        finally:
            batch.end_scope()
        return mask


# ---------------------------------------------------------------------------
# Expressions: each writes its slot and leaves the mask unchanged
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Constant:
    COST: ClassVar[tuple[float, int]] = (1.5, 5_000)
    slot: int
    words: tuple[int, ...]

    def run(self, batch: Batch, mask: Mask) -> Mask:
        batch.values[self.slot] = batch.constant(self.words)
        return mask


@dataclass(frozen=True)
class BufferLength:
    """`vyre.buf_len`: the logical element count of a buffer in this dispatch
    (a storage buffer's run-time count, a workgroup buffer's declared count),
    read when the step runs, so one compiled body serves every buffer size."""

    COST: ClassVar[tuple[float, int]] = Constant.COST
    slot: int
    buffer: str

    def run(self, batch: Batch, mask: Mask) -> Mask:
        count = batch.memories[self.buffer].count
        batch.values[self.slot] = batch.constant((count & 0xFFFF_FFFF,))
        return mask


@dataclass(frozen=True)
class Identity:
    COST: ClassVar[tuple[float, int]] = (24, 45_000)
    slot: int
    family: str
    axis: int

    def run(self, batch: Batch, mask: Mask) -> Mask:
        batch.values[self.slot] = batch.ids(self.family, self.axis)
        return mask


@dataclass(frozen=True)
class ReadVar:
    COST: ClassVar[tuple[float, int]] = (0.1, 700)
    slot: int
    name: str
    width: int

    def run(self, batch: Batch, mask: Mask) -> Mask:
        value = batch.variables.get(self.name)
        if value is None:
            raise InterpError(f"reference to undeclared variable `{self.name}` (V006)")
        if lane_width(value) != self.width:
            raise InterpError(
                f"variable `{self.name}` holds a {lane_width(value)}-word value but is "
                f"read as a {self.width}-word type"
            )
        batch.values[self.slot] = value
        return mask


@dataclass(frozen=True)
class Load:
    COST: ClassVar[tuple[float, int]] = (20, 40_000)
    slot: int
    buffer: str
    workgroup: bool
    index: int

    def run(self, batch: Batch, mask: Mask) -> Mask:
        slots = batch.workgroup_slots if self.workgroup else None
        memory = batch.memories[self.buffer]
        batch.values[self.slot] = load(memory, batch.value(self.index), slots)
        return mask


@dataclass(frozen=True)
class Apply1:
    COST: ClassVar[tuple[float, int]] = (33, 55_000)
    slot: int
    function: Callable[[Lanes], Lanes]
    operand: int

    def run(self, batch: Batch, mask: Mask) -> Mask:
        batch.values[self.slot] = self.function(batch.value(self.operand))
        return mask


@dataclass(frozen=True)
class Apply2:
    COST: ClassVar[tuple[float, int]] = (8, 21_000)
    slot: int
    function: Callable[[Lanes, Lanes], Lanes]
    lhs: int
    rhs: int

    def run(self, batch: Batch, mask: Mask) -> Mask:
        batch.values[self.slot] = self.function(batch.value(self.lhs), batch.value(self.rhs))
        return mask


@dataclass(frozen=True)
class ApplyN:
    COST: ClassVar[tuple[float, int]] = (240, 600_000)
    slot: int
    function: Callable[..., Lanes]
    operands: tuple[int, ...]

    def run(self, batch: Batch, mask: Mask) -> Mask:
        batch.values[self.slot] = self.function(*(batch.value(k) for k in self.operands))
        return mask


@dataclass(frozen=True)
class Invoke:
    """`vyre.invoke`: a routine (a straight-line function of lanes) over its
    arguments; it costs what its body's operations cost."""

    COST: ClassVar[tuple[float, int]] = (0.0, 0)
    slot: int
    function: Callable[..., Lanes]
    operands: tuple[int, ...]
    work: tuple[float, int]
    """What one call costs: its body's operations (`step_cost`)."""

    def run(self, batch: Batch, mask: Mask) -> Mask:
        value = self.function(*(batch.value(k) for k in self.operands))
        if value.shape[0] != batch.lanes:  # a routine of literals: one lane's worth
            value = np.broadcast_to(value, (batch.lanes, *value.shape[1:])).copy()
        batch.values[self.slot] = value
        return mask


@dataclass(frozen=True)
class Select:
    COST: ClassVar[tuple[float, int]] = (13, 3_500)
    slot: int
    cond: int
    if_true: int
    if_false: int

    def run(self, batch: Batch, mask: Mask) -> Mask:
        batch.values[self.slot] = _select_lanes(
            truth(batch.value(self.cond)),
            batch.value(self.if_true),
            batch.value(self.if_false),
        )
        return mask


@dataclass(frozen=True)
class Atomic:
    COST: ClassVar[tuple[float, int]] = (175, 250_000)
    slot: int
    kind: AtomicOpKind
    buffer: str
    index: int
    value: int
    expected: int | None
    workgroup: bool = False
    """A workgroup buffer: each lane reaches its own workgroup's region."""

    def run(self, batch: Batch, mask: Mask) -> Mask:
        expected = None if self.expected is None else batch.value(self.expected)
        batch.values[self.slot] = atomic(
            batch.memories[self.buffer],
            self.kind,
            batch.value(self.index),
            batch.value(self.value),
            expected,
            mask,
            batch.workgroup_slots if self.workgroup else None,
        )
        return mask


# ---------------------------------------------------------------------------
# Statements
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Let:
    COST: ClassVar[tuple[float, int]] = (0.1, 1_200)
    name: str
    value: int

    def run(self, batch: Batch, mask: Mask) -> Mask:
        batch.declare(self.name, batch.value(self.value))
        return mask


@dataclass(frozen=True)
class Assign:
    COST: ClassVar[tuple[float, int]] = (0.5, 2_800)
    name: str
    value: int

    def run(self, batch: Batch, mask: Mask) -> Mask:
        old = batch.variables.get(self.name)
        if old is None:
            raise InterpError(f"assignment to undeclared variable `{self.name}` (V006)")
        new = batch.value(self.value)
        if lane_width(new) != lane_width(old):
            raise InterpError(
                f"assignment of a {lane_width(new)}-word value to variable `{self.name}` "
                f"of {lane_width(old)} words"
            )
        batch.variables[self.name] = new if mask is None else _select_lanes(mask, new, old)
        return mask


@dataclass(frozen=True)
class Store:
    COST: ClassVar[tuple[float, int]] = (6.5, 120_000)
    buffer: str
    workgroup: bool
    index: int
    value: int

    def run(self, batch: Batch, mask: Mask) -> Mask:
        slots = batch.workgroup_slots if self.workgroup else None
        store(
            batch.memories[self.buffer],
            batch.value(self.index),
            batch.value(self.value),
            slots,
            mask,
        )
        return mask


@dataclass(frozen=True)
class If:
    COST: ClassVar[tuple[float, int]] = (3, 6_000)
    cond: int
    then_body: Body
    else_body: Body

    def run(self, batch: Batch, mask: Mask) -> Mask:
        taken = truth(batch.value(self.cond))
        then_mask = taken if mask is None else mask & taken
        else_mask = ~taken if mask is None else mask & ~taken
        then_out = self.then_body.run(batch, then_mask) if then_mask.any() else then_mask
        else_out = self.else_body.run(batch, else_mask) if else_mask.any() else else_mask
        if then_out is then_mask and else_out is else_mask:
            return mask
        assert then_out is not None and else_out is not None
        return then_out | else_out


@dataclass(frozen=True)
class Loop:
    COST: ClassVar[tuple[float, int]] = (3, 6_000)
    var: str
    lower: int
    upper: int
    body: Body
    trips: int | None = None
    """The trip count when both bounds are literals."""

    def run(self, batch: Batch, mask: Mask) -> Mask:
        counter = batch.value(self.lower)
        upper = batch.value(self.upper)
        in_range = counter < upper
        active = in_range if mask is None else mask & in_range
        if batch.budget.limit is not None and not self.body.may_return and active.any():
            trips = int(np.max(upper[active].astype(np.int64) - counter[active]))
            lane, fixed = self.body.certain
            units = trips * (int(lane * batch.lanes) + fixed)
            batch.budget.predict(units, f"a loop of {trips} iterations (over `{self.var}`)")
        returned: Truth | None = None
        batch.scopes.append([])
        try:
            batch.declare(self.var, counter)
            while active.any():
                batch.variables[self.var] = counter
                after = self.body.run(batch, active)
                assert after is not None
                if after is not active:
                    gone = active & ~after
                    returned = gone if returned is None else returned | gone
                counter = counter + WORD(1)
                active = after & (counter < upper)
        finally:
            batch.end_scope()
        if returned is None:
            return mask
        return ~returned if mask is None else mask & ~returned


@dataclass(frozen=True)
class Block:
    COST: ClassVar[tuple[float, int]] = (0, 500)
    body: Body

    def run(self, batch: Batch, mask: Mask) -> Mask:
        return self.body.run(batch, mask)


@dataclass(frozen=True)
class Return:
    COST: ClassVar[tuple[float, int]] = (0.7, 6_000)
    def run(self, batch: Batch, mask: Mask) -> Mask:
        if mask is None:
            batch.alive = np.zeros(batch.lanes, dtype=np.bool_)
        else:
            batch.alive = ~mask if batch.alive is None else batch.alive & ~mask
        return np.zeros(batch.lanes, dtype=np.bool_)


@dataclass(frozen=True)
class Barrier:
    """Lockstep makes the barrier a synchronisation point; this checks that it
    is reached by all live lanes of each workgroup or by none of them (V010)."""

    COST: ClassVar[tuple[float, int]] = (3.6, 6_400)
    def run(self, batch: Batch, mask: Mask) -> Mask:
        if mask is None:
            return mask
        slots = batch.workgroup_slots
        arrived = np.bincount(slots[mask], minlength=batch.workgroups)
        live = slots if batch.alive is None else slots[batch.alive]
        expected = np.bincount(live, minlength=batch.workgroups)
        partial = np.flatnonzero((arrived > 0) & (arrived < expected))
        if len(partial):
            raise InterpError(
                "barrier reached by only part of a workgroup (workgroup slot "
                f"{int(partial[0])} of the batch: {int(arrived[partial[0]])} of "
                f"{int(expected[partial[0]])} live invocations); vyre requires barriers "
                "in uniform control flow (V010)"
            )
        return mask
