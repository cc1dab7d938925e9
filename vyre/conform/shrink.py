"""Counterexample minimisation.

`shrink(failing, first_failing)` reduces a failing input tuple, one coordinate at
a time, to a smaller tuple that still fails. Per coordinate it offers, in a
single batch, every simpler value: 0, small values, the value shifted right
(binary search towards 0 from below), the value minus a power-of-two fraction
of itself (binary search from above), and the value with each set bit cleared
(delta debugging on bits). The smallest candidate that still fails replaces the
coordinate; rounds repeat until no coordinate changes. Every candidate is
strictly smaller than the value it replaces, so shrinking terminates.

`first_failing(candidates)` evaluates a batch of tuples (one backend dispatch)
and returns the index of the first one that still fails, or None.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

__all__ = ["candidates", "shrink"]

FirstFailing = Callable[[Sequence[tuple[int, ...]]], int | None]

MAX_ROUNDS = 48
"""Rounds over all coordinates; each round costs one batch per coordinate."""


def candidates(value: int) -> list[int]:
    """Values simpler (smaller) than `value`, ascending."""
    if value <= 0:
        return []
    found: set[int] = {0, 1, 2, 3, 4, 8, 16, 31, 32, 33, value - 1}
    for shift in range(1, 33):
        found.add(value >> shift)
        found.add(value - (value >> shift))
    bit = 0
    rest = value
    while rest:
        if rest & 1:
            found.add(value & ~(1 << bit))
        rest >>= 1
        bit += 1
    top = value.bit_length() - 1
    found.add(value & ~(1 << top))
    found.add(1 << top)
    return sorted(v for v in found if 0 <= v < value)


def shrink(failing: Sequence[int], first_failing: FirstFailing) -> tuple[int, ...]:
    """A minimal tuple that still fails, reached from `failing` by greedy
    per-coordinate reduction (keeping each step only while it still fails)."""
    current = tuple(int(v) for v in failing)
    for _ in range(MAX_ROUNDS):
        changed = False
        for position in range(len(current)):
            trials = [
                current[:position] + (value,) + current[position + 1 :]
                for value in candidates(current[position])
            ]
            if not trials:
                continue
            index = first_failing(trials)
            if index is not None:
                current = trials[index]
                changed = True
        if not changed:
            break
    return current
