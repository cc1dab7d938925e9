"""F32 square root on its common case: a positive normal operand.

`fsqrt_f32_normal(a)` is `(applies, result)`: where `applies` is 1 the result is
the bit pattern `sqrt.fsqrt` gives for sqrt(a); elsewhere the caller takes the
general algorithm's (float-strict invokes it only there; see fma_normal.py).

It applies when a is positive, normal and finite: sqrt.py's arithmetic (the
same `isqrt24` and remainder rounding) without the `clz` normalisation of a
subnormal operand and without the zero, infinity and NaN cases. The root of a
normal number is normal and never rounds out of the range.
"""

from __future__ import annotations

from typing import TypeVar

from vyre.dialects import vyre as d
from vyre.transforms.softfloat.formats import F32
from vyre.transforms.softfloat.machine import W
from vyre.transforms.softfloat.normal import is_normal
from vyre.transforms.softfloat.registry import fast_path
from vyre.transforms.softfloat.sqrt import isqrt24

__all__ = ["fsqrt_f32_normal"]

V = TypeVar("V")

@fast_path(d.FSqrtOp, F32)
def fsqrt_f32_normal(a: W[V]) -> tuple[W[V], W[V]]:
    """(applies, sqrt(a) rounded) for an F32 pattern; see the module docstring."""
    applies = is_normal(a)  # the sign bit 0 too
    e = a >> F32.fraction
    odd = (e & 1) ^ 1  # the unbiased exponent e - 127 is odd
    r, rem = isqrt24((a & ((1 << F32.fraction) - 1)) | (1 << F32.fraction), odd)
    root = r + rem.gt(r)  # above R + 1/2 exactly when N - R**2 > R
    # the root's biased exponent - 1: (e - 127 - odd) / 2 + 126
    return applies, (((e + F32.bias - 2) >> 1) << F32.fraction) + root
