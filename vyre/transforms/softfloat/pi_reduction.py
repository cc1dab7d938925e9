"""Payne-Hanek argument reduction of an F32 value modulo pi/256, in fixed point.

For |x| = m * 2**E (m the 24-bit significand) the product t = |x| * 256/pi
needs only the window of 2/pi's bits that starts at bit E - 1: the bits before
it add multiples of 512 to t, whole turns. 128 bits of 2/pi, read from a table
of its bits (`TWO_OVER_PI`, ten words with 64 leading zero bits so that small
exponents read zeros), times m give t modulo 512 with 87 fraction bits. Rounded
to the nearest integer N, t = N + g with |g| <= 1/2, so

    |x| = q * pi/2 + j * pi/256 + h,   q = N / 128 mod 4,  j = N mod 128,  h = g * pi/256.

The F32 value nearest a multiple of pi/2 lies 2**-29.9 of a quadrant from it
(0x6F79BE45), so where j = 0 and N is a multiple of 128, |g| >= 2**-22.9 and
the 87 bits hold at least 64 significant bits of g: a result sin(h) keeps its
relative accuracy. `reduce_argument` also gives v = h**2/6, the variable of the
functions' polynomials. The constants come from integers at import: pi by
Machin's formula, 2/pi by one integer division.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Generic, TypeVar

from vyre.transforms.softfloat.fixed import Pair, add64
from vyre.transforms.softfloat.machine import W, sel
from vyre.transforms.softfloat.fixed import mul32
from vyre.transforms.softfloat.truncated import mulhi32, square32

__all__ = ["PI", "TWO_OVER_PI", "Reduced", "reduce_argument"]

V = TypeVar("V")
MASK = 0xFFFF_FFFF
_PREC = 320
"""Bits of the fixed-point computation of pi."""


def _atan_inverse(n: int, bits: int) -> int:
    """atan(1/n) * 2**bits (n >= 2), to within a few units, from its series."""
    total, power, k = 0, (1 << bits) // n, 0
    while power:
        term = power // (2 * k + 1)
        total += -term if k & 1 else term
        power //= n * n
        k += 1
    return total


_PI_FIXED = (16 * _atan_inverse(5, _PREC + 16) - 4 * _atan_inverse(239, _PREC + 16)) >> 16
PI = Fraction(_PI_FIXED, 1 << _PREC)
"""pi to within 2**-319 (Machin's formula: 16 atan(1/5) - 4 atan(1/239))."""

TWO_OVER_PI: tuple[int, ...] = tuple(
    ((1 << (_PREC + 256)) // _PI_FIXED >> (288 - 32 * w)) & MASK for w in range(10)
)
"""floor(2/pi * 2**255) as ten words, most significant first: bit p of the
sequence (from the top) is the coefficient of 2**(64 - p) in 2/pi."""

_KV = round(PI**2 / 12 * 2**64)
"""pi**2/12 as Q0.64: times (2|g|)**2 it is v * 2**17."""


@dataclass(frozen=True)
class Reduced(Generic[V]):
    """|x| = q * pi/2 + j * pi/256 + h, h = g * pi/256."""

    q: W[V]
    """The quadrant, 0..3."""
    j: W[V]
    """The table index, 0..127."""
    neg: W[V]
    """1 where g < 0."""
    wide: Pair[V]
    """|g| * 2**(55 + lz): |g| normalised (leading 1 at bit 63) wherever |g| >= 2**-23."""
    lz: W[V]
    """10..31."""
    v: Pair[V]
    """h**2 / 6 as Q0.64 (< 2**-17), less by at most 4 units."""
    v17: W[V]
    """h**2 / 6 * 2**49 (the top word of v * 2**17)."""


def _funnel(hi: W[V], lo: W[V], sh: W[V]) -> W[V]:
    """The word of hi:lo starting sh bits below hi's top (0 <= sh < 32)."""
    return (hi << sh) | ((lo >> 1) >> (31 - sh))


def reduce_argument(x: W[V]) -> Reduced[V]:
    """The reduction of the F32 pattern x (finite, |x| >= 2**-12; the sign is ignored)."""
    e = (x >> 23) & 0xFF
    m = (x & 0x7F_FFFF) | 0x80_0000
    p = e - 87  # where the window of 2/pi starts in the padded bit sequence
    w, sh = p >> 5, p & 31
    t = [(w + k if k else w).lookup(TWO_OVER_PI) for k in range(5)]
    c3, c2, c1, c0 = (_funnel(t[k], t[k + 1], sh) for k in range(4))
    # P = m * C mod 2**128; t mod 512 = P / 2**119 (the low word is junk below bit 24)
    hi2, lo2 = mul32(m, c2)
    hi1, lo1 = mul32(m, c1)
    p1 = lo1 + mulhi32(m, c0)
    s2 = lo2 + hi1
    p2 = s2 + p1.lt(lo1)
    p3 = m * c3 + hi2 + s2.lt(lo2) + p2.lt(s2)
    p3 = p3 + (1 << 22)  # round t to the nearest integer N
    n = p3 >> 23
    neg = ((p3 >> 22) & 1) ^ 1
    mask = 0 - neg  # |g| = 1/2 - frac(t + 1/2) where g < 0: the complement, to a unit
    g2, g1, g0 = (p3 ^ mask) & 0x3F_FFFF, p2 ^ mask, p1 ^ mask  # |g| * 2**87 (86 bits)
    lz = g2.clz()
    lz = sel(lz.gt(31), 31, lz)
    back = 32 - lz
    wide = ((g2 << lz) | (g1 >> back), (g1 << lz) | (g0 >> back))
    v, v17 = _v(g2, g1, g0)
    return Reduced(n >> 7, n & 127, neg, wide, lz, v, v17)


def _v(g2: W[V], g1: W[V], g0: W[V]) -> tuple[Pair[V], W[V]]:
    """(v, the top word of v * 2**17) for v = h**2/6 = (2|g|)**2 * pi**2/12 * 2**-17:
    (2|g|)**2 to within 2**-47 (its cross term from 16-bit halves), times the constant."""
    gx_hi, gx_lo = (g2 << 10) | (g1 >> 22), (g1 << 10) | (g0 >> 22)  # 2|g| as Q0.64
    cross = (gx_hi >> 16) * (gx_lo >> 16)
    sq_hi, sq_lo = add64(square32(gx_hi), (cross >> 31, cross << 1))
    kv_hi, kv_lo = _KV >> 32, _KV & MASK
    c1, c2 = (sq_hi >> 16) * (kv_lo >> 16), (sq_lo >> 16) * (kv_hi >> 16)
    c = c1 + c2
    v17 = add64(mul32(sq_hi, kv_hi), (c.lt(c1), c))
    return (v17[0] >> 17, (v17[1] >> 17) | (v17[0] << 15)), v17[0]
