"""F32 addition and subtraction on their common case: normal operands, a normal,
non-zero result.

`fadd_f32_normal(a, b)` is `(applies, result)`: where `applies` is 1 the result
is the bit pattern `add.fadd` gives for a + b; elsewhere the caller takes the
general algorithm's (float-strict invokes it only there; see fma_normal.py).
Subtraction is addition of b with its sign flipped, as in add.py.

It applies when a and b are normal and finite and the exact sum is not zero
and lies in the normal range, before rounding (one that rounds up to infinity
included). On that domain
it is add.py's arithmetic without its other cases: the significands have their
hidden bit set, no exponent stops the normalisation, no sign of zero is chosen
and no special value is tested.
"""

from __future__ import annotations

from typing import TypeVar

from vyre.dialects import vyre as d
from vyre.transforms.softfloat.formats import F32
from vyre.transforms.softfloat.machine import W, sel
from vyre.transforms.softfloat.normal import is_normal, significand
from vyre.transforms.softfloat.pack import round_normal
from vyre.transforms.softfloat.registry import fast_path

__all__ = ["fadd_f32_normal", "fsub_f32_normal"]

V = TypeVar("V")

@fast_path(d.FAddOp, F32)
def fadd_f32_normal(a: W[V], b: W[V]) -> tuple[W[V], W[V]]:
    """(applies, a + b rounded) for F32 patterns; see the module docstring."""
    ax, bx = a & F32.abs_mask, b & F32.abs_mask
    applies = is_normal(ax) & is_normal(bx)
    swap = ax.lt(bx)
    xa, ya = sel(swap, bx, ax), sel(swap, ax, bx)
    mx = significand(xa) << (29 - F32.fraction)  # leading 1 at bit 29
    my = significand(ya) << (29 - F32.fraction)
    ex = xa >> F32.fraction
    distance = ex - (ya >> F32.fraction)
    distance = sel(distance.gt(31), 31, distance)
    shifted = my >> distance
    jammed = shifted | (shifted << distance).ne(my)  # the bits shifted out, in bit 0
    m = sel(((a ^ b) >> 31), mx - jammed, mx + jammed)  # never negative: |x| >= |y|
    s = m.clz() - 1  # the leading 1 to bit 30
    field = ex - s  # the result's biased exponent - 1
    applies = applies & m.ne(0) & field.lt(F32.emax - 1)
    return applies, round_normal(F32, m << s, field, sel(swap, b, a) & F32.sign, overflow=False)


@fast_path(d.FSubOp, F32)
def fsub_f32_normal(a: W[V], b: W[V]) -> tuple[W[V], W[V]]:
    """(applies, a - b rounded) for F32 patterns."""
    return fadd_f32_normal(a, b ^ F32.sign)
