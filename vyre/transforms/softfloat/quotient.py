"""A quotient of two 64-bit fixed-point significands, on u32 words.

`divide(n, d)` for n and d with their leading 1 at bit 63 gives n/d * 2**63 to
within a few units. A 16-bit reciprocal y of d (a table of 256 tangent lines of
2**15/d, interpolated in d's next 16 bits) lies below 1/d by a relative eps
< 2**-13.3; then n/d = n y / (1 - eps) = n y (1 + eps + eps**2 + eps**3 + eps**4)
to within 2**-66, with eps = 1 - d y exact from one 64 x 16-bit product, its
powers in 32 bits and one product n y * S in 64 bits.
"""

from __future__ import annotations

from fractions import Fraction
from typing import TypeVar

from vyre.transforms.softfloat.fixed import Pair, add64, sub64
from vyre.transforms.softfloat.fixed import mul32
from vyre.transforms.softfloat.truncated import mul_u16, mulhi32, square32

__all__ = ["divide"]

V = TypeVar("V")


def _seed(i: int) -> tuple[int, int]:
    """(Y0, Y1) for d in [1/2 + i/512, 1/2 + (i + 1)/512): with f = (d - d_i) * 2**25,
    Y0 - floor(Y1 * f / 2**24) lies below 2**15/d, by at most three units (the
    tangent at the middle of the interval, lowered by two units)."""
    lo = Fraction(1, 2) + Fraction(i, 512)
    mid = lo + Fraction(1, 1024)
    slope = Fraction(2**15) / (mid * mid)  # -d(2**15/d)/dd at the middle
    return int(Fraction(2**15) / mid + slope * (mid - lo)) - 2, int(slope / 2)


_SEED: tuple[tuple[int, int], ...] = tuple(_seed(i) for i in range(256))
_Y0 = tuple(s[0] for s in _SEED)
_Y1 = tuple(s[1] for s in _SEED)


def divide(n: Pair[V], d: Pair[V]) -> Pair[V]:
    """floor(n / d * 2**63) within a few units, for n and d with bit 63 set."""
    dh = d[0]
    i = (dh >> 23) & 0xFF
    f = (dh >> 7) & 0xFFFF
    y = i.lookup(_Y0) - ((i.lookup(_Y1) * f) >> 24)  # 2**15/d (1 - eps)
    e_hi, e_lo = sub64((dh.const(1 << 31), dh.const(0)), mul_u16(d, y))  # eps * 2**63
    e_hi, e_lo = (e_hi << 14) | (e_lo >> 18), e_lo << 14  # E = eps * 2**77
    cross = (e_hi >> 16) * (e_lo >> 16)
    e2 = add64(square32(e_hi), (cross >> 31, cross << 1))  # eps**2 * 2**90
    e34 = mulhi32(e2[0], e_hi) + (((e2[0] >> 16) * (e2[0] >> 16)) >> 13)  # (eps**3 + eps**4) * 2**71
    s = add64((e_hi, e_lo), (e2[0] >> 13, (e2[0] << 19) | (e2[1] >> 13)))
    s_hi, s_lo = add64(s, (e34 >> 26, e34 << 6))  # S = (eps + ... + eps**4) * 2**77
    ny = mul_u16(n, y)  # n y * 2**63
    c1, c2 = mulhi32(ny[0], s_lo), mulhi32(ny[1], s_hi)
    c = c1 + c2
    p = add64(mul32(ny[0], s_hi), (c.lt(c1), c))  # n y S * 2**76
    return add64(ny, (p[0] >> 13, (p[1] >> 13) | (p[0] << 19)))
