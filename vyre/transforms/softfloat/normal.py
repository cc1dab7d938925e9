"""What the F32 fast paths share (add_normal.py, mul_normal.py, div_normal.py,
sqrt_normal.py, fma_normal.py): the test for a normal operand, and the rounding
of a result known to be normal.

A fast path is `fn(*words) -> (applies, result)`, registered with
`registry.fast_path`: where `applies` is 1 the result is the general algorithm's
bit pattern; float-strict calls the general routine only elsewhere.
"""

from __future__ import annotations

from typing import TypeVar

from vyre.transforms.softfloat.formats import F32
from vyre.transforms.softfloat.machine import W

__all__ = ["in_range", "is_normal", "round_normal_f32"]

V = TypeVar("V")

_NORMAL_LOW = 0x0080_0000
"""The smallest normal magnitude; the normal finite magnitudes are the 0x7F00_0000 from it."""


def is_normal(x: W[V]) -> W[V]:
    """1 where the F32 pattern `x` is a positive normal finite number (for a
    magnitude, the sign bit cleared: a normal finite one)."""
    return (x - _NORMAL_LOW).lt(F32.inf - _NORMAL_LOW)


def round_normal_f32(m: W[V], biased: W[V]) -> W[V]:
    """The F32 pattern (sign bit 0) of m / 2**31 * 2**(biased - 127), rounded to
    nearest, ties to even, for `m` with its leading 1 at bit 31 (anything below
    bit 0 already OR-ed into it) and `biased` in 1..254: no shift to the
    subnormal grid; a carry out of the significand moves into the exponent, up
    to infinity exactly."""
    kept = m >> 8
    up = ((m & 0xFF) + 0x7F + (kept & 1)) >> 8
    return ((biased - 1) << F32.fraction) + kept + up


def in_range(biased: W[V]) -> W[V]:
    """1 where the biased exponent `biased` (wrapped below 0) is in 1..254."""
    return (biased - 1).lt(F32.emax - 1)
