"""What the F32 fast paths share (add_normal.py, mul_normal.py, div_normal.py,
sqrt_normal.py, fma_normal.py): the tests of their domain, a normal operand and
a result exponent in range, a normal pattern's significand (their rounding is
pack.py's `round_in_range` or `round_normal`).

A fast path is `fn(*words) -> (applies, result)`, registered with
`registry.fast_path`: where `applies` is 1 the result is the general algorithm's
bit pattern; float-strict calls the general routine only elsewhere.
"""

from __future__ import annotations

from typing import TypeVar

from vyre.transforms.softfloat.formats import F32
from vyre.transforms.softfloat.machine import W

__all__ = ["in_range", "is_normal", "significand"]

V = TypeVar("V")

_NORMAL_LOW = 0x0080_0000
"""The smallest normal magnitude; the normal finite magnitudes are the 0x7F00_0000 from it."""


def is_normal(x: W[V]) -> W[V]:
    """1 where the F32 pattern `x` is a positive normal finite number (for a
    magnitude, the sign bit cleared: a normal finite one)."""
    return (x - _NORMAL_LOW).lt(F32.inf - _NORMAL_LOW)


def in_range(biased: W[V]) -> W[V]:
    """1 where the biased exponent `biased` (wrapped below 0) is in 1..254."""
    return (biased - 1).lt(F32.emax - 1)


def significand(x: W[V]) -> W[V]:
    """The 24-bit significand of a normal F32 pattern (or magnitude): its
    fraction with the hidden 1 at bit 23."""
    return (x & ((1 << F32.fraction) - 1)) | (1 << F32.fraction)
