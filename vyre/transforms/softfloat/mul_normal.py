"""The F32 multiplication on its common case: normal operands, a normal result.

`fmul_f32_normal(a, b)` is `(applies, result)`: where `applies` is 1 the result
is the bit pattern `mul.fmul` gives for a * b; elsewhere the caller takes the
general algorithm's (float-strict invokes it only there; see fma_normal.py).

It applies when a and b are normal and finite and the exact product lies in
the normal range, before rounding (one that rounds up to infinity included; one
that rounds up from below to the smallest normal is left to the general
algorithm): no special values,
no subnormal significand to normalise (so no `clz` of an operand), no shift to
the subnormal grid. The top word of the 48-bit product, with its low 16 bits
OR-ed into bit 0, has its leading 1 at bit 31 or 30 (`product_top`); at most
one place of normalisation and the rounding to 24 bits follow, with the sticky
bit at least 6 places below the round bit.
"""

from __future__ import annotations

from typing import TypeVar

from vyre.dialects import vyre as d
from vyre.transforms.softfloat.formats import F32
from vyre.transforms.softfloat.machine import W
from vyre.transforms.softfloat.mul import product_top
from vyre.transforms.softfloat.normal import in_range, is_normal, significand
from vyre.transforms.softfloat.pack import round_in_range
from vyre.transforms.softfloat.registry import fast_path

__all__ = ["fmul_f32_normal"]

V = TypeVar("V")

@fast_path(d.FMulOp, F32)
def fmul_f32_normal(a: W[V], b: W[V]) -> tuple[W[V], W[V]]:
    """(applies, a * b rounded) for F32 patterns; see the module docstring."""
    ax, bx = a & F32.abs_mask, b & F32.abs_mask
    applies = is_normal(ax) & is_normal(bx)
    m = product_top(significand(a), significand(b))  # in [2**30, 2**32)
    lz = (m >> 31) ^ 1  # 0 or 1: the leading 1 to bit 31
    m = m << lz
    # m / 2**31 * 2**(e - 127), e = ea + eb - 126 - lz, the result's biased exponent
    biased = (ax >> 23) + (bx >> 23) - 126 - lz
    return applies & in_range(biased), round_in_range(F32, m, biased) | ((a ^ b) & F32.sign)
