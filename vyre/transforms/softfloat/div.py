"""Strict division (the reciprocal variant), every format:
an integer reciprocal of the divisor's significand, quotient digits estimated
with it and corrected exactly with the integer remainder, one rounding.

Significands `ma`, `mb` (leading 1 at bit M of the format, subnormals
normalised). With `small = ma < mb`, `r0 = ma << small` lies in [D, 2D) for
D = mb, so Q = floor(r0 * 2**(M + 1) / D) has M + 2 bits (M + 1 significand bits
and the round bit) and the remainder is the sticky bit.

The reciprocal (`reciprocal`): for a divisor significand scaled to 24 bits
(D in [2**23, 2**24)), y ~ 2**39 / D in (2**15, 2**16], from an 8-bit linear seed
and two Newton steps y' = y (2 - D y) in fixed point, every truncation
downward; checked over all 2**23 significands: 0 < 2**39 / D - y < 2.01 (so y
is always below the true reciprocal, by less than 3 units).

A quotient digit (`_digit`): with r in [0, 2D), q = floor((r >> u) * y / 2**s)
is floor(r * 2**k / D) or one less: the error is below
(r >> u) * 2.01 / 2**s + 2**u * 2**k / D + 1 < 2. The next remainder
r * 2**k - q * D lies in [0, 2D) again; it is computed modulo 2**32 (wrapping
multiply and shift), exact because the true value fits. F32 takes two 12-bit
digits (Q = q1 * 2**12 + q2, 25 bits), F16 and BF16 one. One conditional
subtraction makes the final remainder exact; it is the sticky bit.

A quotient of two significands is never an exact tie in the normal range, but
subnormal results can be (3 * 2**-149 / 2), so `round_pack` rounds with the
remainder as the sticky bit, as for any result.
"""

from __future__ import annotations

from typing import TypeVar

from vyre.dialects import vyre as d
from vyre.transforms.softfloat.formats import EB, F32, Format
from vyre.transforms.softfloat.machine import W, sel
from vyre.transforms.softfloat.registry import algorithm
from vyre.transforms.softfloat.pack import round_pack, unpack

__all__ = ["fdiv", "quotient", "reciprocal"]

V = TypeVar("V")

SEED = (360, 15, 4)
"""y0 = 360 - ((D >> 16) * 15 >> 4) ~ 2**31 / D (8 bits, relative error < 0.066)."""


def reciprocal(d: W[V]) -> W[V]:
    """y with 2**39 / d - 2.01 < y < 2**39 / d, for d in [2**23, 2**24)."""
    c0, c1, s = SEED
    y0 = c0 - (((d >> 16) * c1) >> s)
    t = d * y0  # ~ 2**31 (1 +- 0.066), exact: d < 2**24, y0 < 2**8
    # y1 = y0 * 2**8 * (2 - t / 2**31), truncated down, then 2 units lower: below 2**39 / d
    y1 = (y0 << 9) - (((y0 * (t >> 8)) >> 15) + 2)
    # y2 = y1 * (2 - d * y1 / 2**39): the residual 2**39 - d * y1 is in [0, 2**32)
    residual = 0 - d * y1
    return y1 + ((y1 * (residual >> 16)) >> 23)


def _digit(r: W[V], d: W[V], y: W[V], k: int, u: int) -> tuple[W[V], W[V]]:
    """(q, r * 2**k - q * d) for r in [0, 2d), d in [2**23, 2**24): q is
    floor(r * 2**k / d) or one less."""
    q = ((r >> u) * y) >> (39 - k - u)
    return q, (r << k) - q * d


def quotient(fmt: Format, r0: W[V], d: W[V]) -> tuple[W[V], W[V]]:
    """(floor(r0 * 2**(M + 1) / d), remainder != 0) for d a significand with its
    leading 1 at bit M and r0 in [d, 2d)."""
    scale = 23 - fmt.fraction
    y = reciprocal(d << scale if scale else d)
    if fmt is F32:  # two 12-bit digits; r >> 9 keeps the products below 2**32
        q1, r1 = _digit(r0, d, y, 12, 9)
        q2, r2 = _digit(r1, d, y, 12, 9)
        q = (q1 << 12) + q2
        r = r2
    else:  # r0 * y < 2**(M + 2 + 16): one digit of M + 1 bits, no truncation
        q = (r0 * y) >> 15  # y ~ 2**(39 - scale) / d
        r = (r0 << (fmt.fraction + 1)) - q * d
    over = r.ge(d)
    return q + over, r.ne(0) & r.ne(d)


@algorithm(d.FDivOp)
def fdiv(fmt: Format, a: W[V], b: W[V]) -> W[V]:
    """a / b of format `fmt`, correctly rounded."""
    shift = fmt.width - 1
    sign = (a ^ b) >> shift
    ax, bx = a & fmt.abs_mask, b & fmt.abs_mask
    ma, ea = unpack(fmt, ax)
    mb, eb = unpack(fmt, bx)
    small = ma.lt(mb)
    q, sticky = quotient(fmt, ma << small, mb)
    m = (q << (30 - fmt.fraction)) | sticky  # q has M + 2 bits: leading 1 at bit 31
    res = round_pack(fmt, m, sign, ea - eb + (EB + fmt.bias) - small)
    za, zb = ax.eq(0), bx.eq(0)
    ia, ib = ax.eq(fmt.inf), bx.eq(fmt.inf)
    signed = sign << shift
    res = sel(ib | za, signed, res)  # x / inf, 0 / x
    res = sel(ia | zb, signed | fmt.inf, res)  # inf / x, x / 0
    nan = ax.gt(fmt.inf) | bx.gt(fmt.inf) | (za & zb) | (ia & ib)
    return sel(nan, fmt.nan, res)
