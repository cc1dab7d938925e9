"""F32 division on its common case: normal operands, a normal quotient.

`fdiv_f32_normal(a, b)` is `(applies, result)`: where `applies` is 1 the result
is the bit pattern `div.fdiv` gives for a / b; elsewhere the caller takes the
general algorithm's (float-strict invokes it only there; see fma_normal.py).

It applies when a and b are normal and finite and the exact quotient lies in
the normal range, before rounding (one that rounds up to infinity included). On that
domain it is div.py's arithmetic (the same integer reciprocal and quotient
digits, `quotient`) without its other cases: the significands need no `clz`
normalisation, the quotient no shift to the subnormal grid, and no special
value is tested.
"""

from __future__ import annotations

from typing import TypeVar

from vyre.dialects import vyre as d
from vyre.transforms.softfloat.div import quotient
from vyre.transforms.softfloat.formats import F32
from vyre.transforms.softfloat.machine import W
from vyre.transforms.softfloat.normal import in_range, is_normal, significand
from vyre.transforms.softfloat.pack import round_in_range
from vyre.transforms.softfloat.registry import fast_path

__all__ = ["fdiv_f32_normal"]

V = TypeVar("V")

@fast_path(d.FDivOp, F32)
def fdiv_f32_normal(a: W[V], b: W[V]) -> tuple[W[V], W[V]]:
    """(applies, a / b rounded) for F32 patterns; see the module docstring."""
    ax, bx = a & F32.abs_mask, b & F32.abs_mask
    applies = is_normal(ax) & is_normal(bx)
    ma, mb = significand(a), significand(b)
    small = ma.lt(mb)
    q, sticky = quotient(F32, ma << small, mb)  # 25 bits: the significand and the round bit
    m = (q << (30 - F32.fraction)) | sticky  # leading 1 at bit 31
    biased = (ax >> F32.fraction) - (bx >> F32.fraction) + (F32.bias - small)  # the quotient's
    return applies & in_range(biased), round_in_range(F32, m, biased) | ((a ^ b) & F32.sign)
