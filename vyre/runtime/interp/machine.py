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
from typing import Protocol

import numpy as np

from vyre.dialects.vyre import AtomicOpKind
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
    def run(self, batch: Batch, mask: Mask) -> Mask: ...


@dataclass(frozen=True)
class Body:
    """A statement list (one block) with its own scope. `frees[k]` are the SSA
    slots whose last use is step k."""

    steps: tuple[Step, ...]
    frees: tuple[tuple[int, ...], ...]

    def run(self, batch: Batch, mask: Mask) -> Mask:
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
    slot: int
    words: tuple[int, ...]

    def run(self, batch: Batch, mask: Mask) -> Mask:
        batch.values[self.slot] = batch.constant(self.words)
        return mask


@dataclass(frozen=True)
class Identity:
    slot: int
    family: str
    axis: int

    def run(self, batch: Batch, mask: Mask) -> Mask:
        batch.values[self.slot] = batch.ids(self.family, self.axis)
        return mask


@dataclass(frozen=True)
class ReadVar:
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
    slot: int
    function: Callable[[Lanes], Lanes]
    operand: int

    def run(self, batch: Batch, mask: Mask) -> Mask:
        batch.values[self.slot] = self.function(batch.value(self.operand))
        return mask


@dataclass(frozen=True)
class Apply2:
    slot: int
    function: Callable[[Lanes, Lanes], Lanes]
    lhs: int
    rhs: int

    def run(self, batch: Batch, mask: Mask) -> Mask:
        batch.values[self.slot] = self.function(batch.value(self.lhs), batch.value(self.rhs))
        return mask


@dataclass(frozen=True)
class ApplyN:
    slot: int
    function: Callable[..., Lanes]
    operands: tuple[int, ...]

    def run(self, batch: Batch, mask: Mask) -> Mask:
        batch.values[self.slot] = self.function(*(batch.value(k) for k in self.operands))
        return mask


@dataclass(frozen=True)
class Select:
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
    name: str
    value: int

    def run(self, batch: Batch, mask: Mask) -> Mask:
        batch.declare(self.name, batch.value(self.value))
        return mask


@dataclass(frozen=True)
class Assign:
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
    var: str
    lower: int
    upper: int
    body: Body

    def run(self, batch: Batch, mask: Mask) -> Mask:
        counter = batch.value(self.lower)
        upper = batch.value(self.upper)
        in_range = counter < upper
        active = in_range if mask is None else mask & in_range
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
    body: Body

    def run(self, batch: Batch, mask: Mask) -> Mask:
        return self.body.run(batch, mask)


@dataclass(frozen=True)
class Return:
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
