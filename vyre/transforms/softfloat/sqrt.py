"""Strict square root (the reciprocal-square-root variant), every format: an
integer reciprocal square root refined by two Newton steps, one Newton
correction of the root, and an exact integer remainder that fixes the last unit
and decides the rounding.

The significand, scaled to 24 bits (leading 1 at bit 23) and shifted by one or
two so that the exponent left over is even, is X in [2**24, 2**26); the root
wanted is R = floor(sqrt(X * 2**22)) in [2**23, 2**24):

1. y0 ~ 2**20 / sqrt(X): an 8-bit linear seed in the top significand bits, one
   line per exponent parity (relative error < 0.028);
2. two Newton steps y' = y (3 - X y**2) / 2 in fixed point (X y**2 through the
   root estimate X * y, so every product fits 32 bits), then 3 units down:
   y ~ 2**28 / sqrt(X) from below;
3. the root estimate s = (X >> 10) * y / 2**15 ~ 8 sqrt(X), its exact residual
   e = X * 2**6 - s**2, and one Newton correction R' = s * 2**8 + e * y / 2**24
   (R' * 2**8 / (2 s) = e / (2 s): `e * y` stands for e / s);
4. checked over every significand and parity (2**24 cases): R' is R or R - 1.
   The remainder N - R'**2 (computed modulo 2**32, exact: it is below 2**27)
   fixes it with one conditional step.

A square root is never an exact tie (the square of a midpoint has more bits
than the operand), never subnormal and never overflows, so rounding needs no
`round_pack`: F32 rounds up exactly when the remainder exceeds R (the root is
above R + 1/2); the narrow formats take the bit below their last one.
"""

from __future__ import annotations

from typing import TypeVar

from vyre.dialects import vyre as d
from vyre.transforms.softfloat.formats import EB, F32, Format
from vyre.transforms.softfloat.machine import W, sel
from vyre.transforms.softfloat.registry import algorithm
from vyre.transforms.softfloat.pack import unpack

__all__ = ["fsqrt", "isqrt24"]

V = TypeVar("V")

SEEDS = ((324, 37), (228, 26))
"""(c0, c1) per exponent parity: y0 = c0 - ((m >> 15) * c1 >> 7) ~ 2**20 / sqrt(X)."""


def isqrt24(m: W[V], odd: W[V]) -> tuple[W[V], W[V]]:
    """(R, N - R**2) for N = m * 2**(23 + odd), m in [2**23, 2**24), odd 0 or 1:
    R = floor(sqrt(N)) in [2**23, 2**24)."""
    (even0, even1), (odd0, odd1) = SEEDS
    x = m << (odd + 1)  # [2**24, 2**26)
    xh = x >> 10  # [2**14, 2**16)
    y0 = sel(odd, odd0, even0) - (((m >> 15) * sel(odd, odd1, even1)) >> 7)
    # Newton step 1 (y0 ~ 2**20 / sqrt(x) -> y1 ~ 2**28 / sqrt(x))
    s0 = (xh * y0) >> 7  # ~ 8 sqrt(x)
    y1 = (y0 * (((3 << 23) - s0 * y0) >> 1)) >> 15
    # Newton step 2, then 3 units down: y from below
    s1 = (xh * y1) >> 15
    y = ((y1 * (((3 << 30) - ((s1 * y1) >> 1)) >> 15)) >> 16) - 3
    # the root: estimate, exact residual, one Newton correction
    s = (xh * y) >> 15
    e = (x << 6) - s * s  # [0, 2**21)
    r = (s << 8) + (((e >> 5) * y) >> 19)  # R or R - 1
    rem = (x << 22) - r * r  # modulo 2**32; the true value is below 2**27
    twice = r << 1
    low = rem.gt(twice)  # rem >= 2r + 1: r was one short
    return r + low, rem - sel(low, twice + 1, 0)


@algorithm(d.FSqrtOp)
def fsqrt(fmt: Format, a: W[V]) -> W[V]:
    """sqrt(a) of format `fmt`, correctly rounded (sqrt(-0) = -0)."""
    ax = a & fmt.abs_mask
    m, e = unpack(fmt, ax)  # leading 1 at bit M
    scale = 23 - fmt.fraction
    odd = (e & 1) ^ 1  # the unbiased exponent e - EB - bias is odd (bias odd, EB even)
    r, rem = isqrt24(m << scale if scale else m, odd)
    if fmt is F32:
        root = r + rem.gt(r)  # above R + 1/2 exactly when N - R**2 > R
    else:
        root = (r >> scale) + ((r >> (scale - 1)) & 1)
    # biased exponent - 1 of the root: (e - EB - bias - odd) / 2 + bias - 1
    res = (((e - (EB - fmt.bias + 2)) >> 1) << fmt.fraction) + root
    res = sel(ax.eq(0), a, res)  # sqrt(+-0) = +-0
    res = sel(a.eq(fmt.inf), fmt.inf, res)
    nan = ax.gt(fmt.inf) | ((a >> (fmt.width - 1)) & ax.ne(0))  # NaN, or negative
    return sel(nan, fmt.nan, res)
