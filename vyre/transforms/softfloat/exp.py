"""2**x, correctly rounded, for every format, in 64-bit fixed point.

The argument (F16/BF16 widened exactly to F32 first) is made the fixed-point
number y = x * 2**55 (exact for |x| >= 2**-25, below which the result rounds to
1), split into k = floor(x), the table index j (the next 6 bits) and the rest
r < 2**-6: 2**x = 2**k * 2**(j/64) * 2**r. 2**(j/64) comes from a table of 64
Q1.63 constants; 2**r - 1 is a degree-6 Taylor polynomial in r (its truncation
error is below 2**-58, the fixed-point Horner steps add a few units of
2**-64). The product, a Q1.63 significand with a relative error of about
2**-60, is rounded once to the target format by `round_pack` (subnormal and
overflowing results included): no result is computed in F32 and converted. The
few F32 inputs whose exact result lies closer than that error to a rounding
boundary are the exceptions an exhaustive comparison with the exact oracle
lists (`EXCEPTIONS`).
"""

from __future__ import annotations

from fractions import Fraction
from math import factorial
from typing import TypeVar

from vyre.dialects import vyre as d
from vyre.transforms.softfloat.fixed import add64, const64, lookup64, mulhi64, shl64, sub64
from vyre.transforms.softfloat.formats import EB, F32, Format
from vyre.transforms.softfloat.machine import W, sel
from vyre.transforms.softfloat.pack import round_pack, to_f32
from vyre.transforms.softfloat.registry import algorithm

__all__ = ["EXCEPTIONS", "fexp2"]

V = TypeVar("V")

# ln 2 = sum over k >= 1 of 1 / (k * 2**k), to within 2**-125: for the coefficients.
_LN2 = sum((Fraction(1, k << k) for k in range(1, 120)), Fraction(0))


def _exp2_frac(j: int) -> int:
    """round(2**(j/64) * 2**63), from integer square roots (exact floors)."""
    from math import isqrt

    # 2**(j/64) = (2**j)**(1/64): six square roots of 2**j scaled by 2**(63*64)
    value = (1 << j) << (63 * 64 + 64)  # one spare bit (64 more: 2**(64/64) = 2)
    for _ in range(6):
        value = isqrt(value)
    # value = floor(2**(j/64) * 2**64) up to the floors of the roots; drop the spare bit, rounded
    return (value + 1) >> 1


_TABLE: tuple[int, ...] = tuple(_exp2_frac(j) for j in range(64))
"""2**(j/64) as Q1.63, j = 0..63."""

_COEFFICIENTS: tuple[int, ...] = tuple(
    round(_LN2**i / factorial(i) * (1 << 64)) for i in range(1, 7)
)
"""(ln 2)**i / i! as Q0.64, i = 1..6."""

EXCEPTIONS: dict[str, tuple[tuple[int, int], ...]] = {"f32": (), "f16": (), "bf16": ()}
"""(input pattern, result pattern) the fixed-point path rounds the wrong way,
per format (found by the exhaustive comparison with the exact oracle)."""


@algorithm(d.FExp2Op)
def fexp2(fmt: Format, a: W[V]) -> W[V]:
    """2**a of format `fmt`, correctly rounded (canonical NaN, +0 for -inf)."""
    x = to_f32(fmt, a)
    s, e = x >> 31, (x >> 23) & 0xFF
    mag = x & 0x7FFF_FFFF
    is_nan = mag.gt(0x7F80_0000)
    # general path (102 <= e <= 134: 2**-25 <= |x| < 2**8)
    m = (x & 0x7F_FFFF) | 0x80_0000
    big = shl64((m.const(0), m), sel(e.lt(102), 7, e - 95))
    y = sel_pair(s, sub64((m.const(0), m.const(0)), big), big)  # x * 2**55, two's complement
    k9 = y[0] >> 23  # floor(x) as a 9-bit two's complement number
    f_hi, f_lo = y[0] & 0x7F_FFFF, y[1]
    j = f_hi >> 17
    r = (((f_hi & 0x1_FFFF) << 9) | (f_lo >> 23), f_lo << 9)  # the rest, Q0.64 (< 2**-6)
    acc = const64(a, _COEFFICIENTS[5])
    for c in reversed(_COEFFICIENTS[:5]):
        acc = add64(const64(a, c), mulhi64(r, acc))
    p1 = mulhi64(r, acc)  # 2**r - 1, Q0.64
    t = lookup64(_TABLE, j)
    mm = add64(t, mulhi64(t, p1))  # 2**(j/64) * 2**r, Q1.63
    sig = mm[0] | mm[1].ne(0)
    eb = k9 + (fmt.bias + EB) - (k9.ge(256) << 9)
    res = round_pack(fmt, sig, s.const(0), eb)
    # the rest of the line
    res = sel(e.lt(102), fmt.one, res)  # |x| < 2**-25: 1
    res = sel(e.gt(134) | mag.eq(0x7F80_0000), sel(s, 0, fmt.inf), res)  # |x| >= 2**8, infinities
    res = sel(is_nan, fmt.nan, res)
    for pattern, result in EXCEPTIONS[fmt.name]:
        res = sel(a.eq(pattern), result, res)
    return res


def sel_pair(c: W[V], t: tuple[W[V], W[V]], f: tuple[W[V], W[V]]) -> tuple[W[V], W[V]]:
    return sel(c, t[0], f[0]), sel(c, t[1], f[1])


assert _TABLE[0] == 1 << 63 and all(t < 1 << 64 for t in _TABLE)
assert F32.bias == 127
