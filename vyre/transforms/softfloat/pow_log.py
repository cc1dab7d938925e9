"""|log2 x| to about 2**-95 relative, for pow: a three-word significand.

x = 2**e * m (m in [1, 2), 24 bits, subnormals normalised) is reduced twice,
exactly, so that one word holds what is left:

1. j = round(128 (m - 1)) picks an 8-bit inverse N_j / 2**8 of the centre of
   m's interval (j = 128 takes 1/2 and counts as e + 1 with j = 0):
   z1 = m N_j / 2**8 - 1 is a multiple of 2**-31 with |z1| < 1.5 * 2**-8, so
   Z1 = z1 * 2**31 is the wrapping product m N_j (one multiply);
2. k = round(2**14 z1) picks a 15-bit factor F_k / 2**14 (the one of least
   |z2| over the interval): z2 = (1 + z1) F_k / 2**14 - 1 is a multiple of
   2**-45 with |z2| < 2**-14, so Z2 = z2 * 2**45 is the wrapping product
   m N_j F_k (its 2**45 vanishes modulo 2**32).

Then log2 x = e + log2(2**8 / N_j) + log2(2**14 / F_k) + z2 q(z2) with
q(z) = sum (-z)**i / ((i + 1) ln 2), degree 6 (truncation below 2**-101
relative), by Horner on w = |Z2| with the signs of z's powers folded into each
step (as log.py does): two steps in one word, two in two words, three in
three, each value at a scale chosen for its magnitude, s0 = q(z2) to about
2**-95. The product w s0 is exact (four words), so z2 q(z2) keeps that
relative precision however small z2 is. The sum is formed in a five-word
fixed-point frame (a word of integer part, 128 fraction bits; the tables are
Q0.128), which holds every case at the precision pow needs: |log2 x| >=
2**-14.5 whenever a table value is nonzero (then 2**-110 absolute suffices),
and where both are zero (x within 2**-15 of 1) the sum is z2 q(z2) alone,
whose 104 or more bits in the frame keep its relative precision. The
magnitude is normalised and rounded to 96 bits. log2 of a power of two is
exact (both table values and z2 are 0).
"""

from __future__ import annotations

from fractions import Fraction
from typing import TypeVar

from vyre.transforms.softfloat import multiword as mw
from vyre.transforms.softfloat.formats import EB, F32
from vyre.transforms.softfloat.ln import LN2, ONE, ln
from vyre.transforms.softfloat.machine import W
from vyre.transforms.softfloat.pack import unpack
from vyre.transforms.softfloat.fixed import mul32
from vyre.transforms.softfloat.truncated import mulhi32

__all__ = ["log2_wide", "mul_exact", "mul_top", "shr_const"]

V = TypeVar("V")
Words = mw.Words
K_MIN = -90
"""The least k = round(2**14 z1) (the greatest is 96)."""


def _interval(j: int) -> tuple[Fraction, Fraction]:
    """The m of index j: [1 + (j - 1/2)/128, 1 + (j + 1/2)/128) within [1, 2)."""
    return max(Fraction(1), 1 + Fraction(2 * j - 1, 256)), min(Fraction(2), 1 + Fraction(2 * j + 1, 256))


def _worst(low: Fraction, high: Fraction, factor: Fraction) -> Fraction:
    """max |v factor - 1| over v in [low, high]."""
    return max(abs(low * factor - 1), abs(high * factor - 1))


def _inverse(j: int) -> int:
    """N_j: 2**8 for j = 0 and 2**7 for j = 128 (exact), else the 8-bit inverse
    of the interval's centre with the smallest |z1|."""
    if j in (0, 128):
        return 256 >> (j // 128)
    centre = Fraction(256 * 128, 128 + j)
    low, high = _interval(j)
    floor = centre.numerator // centre.denominator
    return min((floor, floor + 1), key=lambda n: _worst(low, high, Fraction(n, 256)))


_INV = tuple(_inverse(j) for j in range(129))
_Z1 = (
    min(_interval(j)[0] * n / 256 - 1 for j, n in enumerate(_INV)),
    max(_interval(j)[1] * n / 256 - 1 for j, n in enumerate(_INV)),
)
"""The range of z1 (exclusive at the top)."""


def _factor(k: int) -> int:
    """F_k: the 15-bit factor of least max |z2| over z1 in [(k - 1/2), (k + 1/2)) * 2**-14."""
    if k == 0:
        return 1 << 14
    low = 1 + max(_Z1[0], Fraction(2 * k - 1, 1 << 15))
    high = 1 + min(_Z1[1], Fraction(2 * k + 1, 1 << 15))
    centre = Fraction(1 << 14) / (1 + Fraction(k, 1 << 14))
    floor = centre.numerator // centre.denominator
    return min(range(floor - 1, floor + 3), key=lambda f: _worst(low, high, Fraction(f, 1 << 14)))


_F = tuple(_factor(k) for k in range(K_MIN, 97))
_Z2 = max(
    _worst(1 + max(_Z1[0], Fraction(2 * k - 1, 1 << 15)), 1 + min(_Z1[1], Fraction(2 * k + 1, 1 << 15)), Fraction(f, 1 << 14))
    for k, f in zip(range(K_MIN, 97), _F, strict=True)
)


def _log2_q128(numerator: int, denominator: int) -> int:
    """round(log2(numerator / denominator) * 2**128) modulo 2**128 (two's complement)."""
    if numerator >= denominator:
        value = Fraction(ln(numerator, denominator), ONE) / LN2
    else:
        value = -Fraction(ln(denominator, numerator), ONE) / LN2
    return round(value * (1 << 128)) % (1 << 128)


_T1 = tuple(_log2_q128(256, n) for n in _INV[:128])
"""log2(2**8 / N_j) as Q0.128, j = 0..127."""
_T2 = tuple(_log2_q128(1 << 14, f) for f in _F)
"""log2(2**14 / F_k) as Q0.128 two's complement, k = K_MIN..96."""


def _a(i: int, scale: int) -> int:
    """round(2**scale / ((i + 1) ln 2)): |coefficient| of z**i in q(z)."""
    return round(Fraction(1 << scale) / ((i + 1) * LN2))


def shr_const(a: Words[V], k: int) -> Words[V]:
    """a >> k for a constant 0 < k < 32 (as many words)."""
    return (a[0] >> k,) + tuple((a[i] >> k) | (a[i - 1] << (32 - k)) for i in range(1, len(a)))


def mul_exact(w: W[V], s: Words[V]) -> Words[V]:
    """The exact (n + 1)-word product of a word and an n-word value."""
    parts = [mul32(w, x) for x in s]
    zero = w.const(0)
    first = (parts[0][0],) + tuple(p[1] for p in parts)
    second = (zero,) + tuple(p[0] for p in parts[1:]) + (zero,)
    return mw.add(first, second)


def mul_top(w: W[V], s: Words[V]) -> Words[V]:
    """floor(w * s / 2**32) less at most 4: the top n words of the (n + 1)-word
    product (the lowest partial product's high word approximated)."""
    parts = [mul32(w, x) for x in s[:-1]]
    first = (parts[0][0],) + tuple(p[1] for p in parts)
    second = (w.const(0),) + tuple(p[0] for p in parts[1:]) + (mulhi32(w, s[-1]),)
    return mw.add(first, second)


def _step(w: W[V], a: int, product: Words[V], shift: int, minus: W[V]) -> Words[V]:
    """a +- product >> shift (minus: all ones to subtract, a unit more)."""
    n = len(product)
    moved = shr_const(product, shift)
    return mw.add(mw.const(w, a, n), tuple(x ^ minus for x in moved))


def _z2_q(w: W[V], minus: W[V]) -> Words[V]:
    """w * q(z2) * 2**140 (four words; the product with the three-word q is
    exact) for w = |z2| * 2**45, `minus` all ones where z2 >= 0. The comments
    give each value's scale."""
    s5 = _a(5, 34) + (mulhi32(w, _a(6, 21)) ^ minus)  # 2**34
    s4 = _step(w, _a(4, 65), mul32(w, s5), 14, minus)  # 2**65
    s3 = _step(w, _a(3, 65), mul_top(w, s4), 13, minus)  # 2**65
    s2 = _step(w, _a(2, 97), mul_exact(w, s3), 13, minus)  # 2**97
    s1 = _step(w, _a(1, 96), mul_top(w, s2), 14, minus)  # 2**96
    s0 = _step(w, _a(0, 95) + 1, mul_top(w, s1), 14, minus)  # 2**95, centred (+1)
    return mul_exact(w, s0)


def log2_wide(x: W[V]) -> tuple[Words[V], W[V], W[V]]:
    """(M, e, s): |log2 x| = M / 2**95 * 2**e, M a three-word significand with
    its top bit set (rounded to nearest), e a two's complement word, s the
    sign of log2 x, for the magnitude x of a finite nonzero F32 pattern other
    than 1."""
    m, eb = unpack(F32, x)
    j = ((m + (1 << 15)) >> 16) - 128  # 0..128
    e = eb + (j >> 7) - (EB + F32.bias)  # j = 128 counts as e + 1
    mn = m * j.lookup(_INV)  # (1 + z1) * 2**31
    k = (mn + ((1 << 16) - (K_MIN << 17) - (1 << 31))) >> 17  # round(2**14 z1) - K_MIN
    z2 = mn * k.lookup(_F)  # z2 * 2**45, two's complement (2**45 vanishes modulo 2**32)
    negative = z2 >> 31
    w = (z2 ^ (0 - negative)) + negative
    minus = 0 - negative
    p = tuple(v ^ minus for v in shr_const(_z2_q(w, negative - 1), 12))  # +-z2 q(z2) * 2**128
    t2 = mw.lookup(_T2, k, 4)
    total = mw.add((e,) + mw.lookup(_T1, j & 127, 4), (0 - (t2[0] >> 31),) + t2)
    total = mw.add(total, (minus,) + p)  # log2 x * 2**128 (a unit short where z2 < 0)
    s = total[0] >> 31
    mag = mw.negate_if(s, total)
    high = mag[0].ne(0)
    win = mw.select(high, mag[:4], mag[1:])
    lz = win[0].clz()
    back = 31 - lz
    sig = tuple((win[i] << lz) | ((win[i + 1] >> 1) >> back) for i in range(3))
    sig = mw.add_word(sig, (win[3] << lz) >> 31)
    return sig, back - ((high ^ 1) << 5), s


assert all(128 <= n <= 256 for n in _INV) and _INV[0] == 256
assert -90.5 * 2**-14 < _Z1[0] and _Z1[1] < 96.5 * 2**-14
assert _Z2 * (1 << 45) < 1 << 31 and _F[-K_MIN] == 1 << 14
assert _T1[0] == 0 and _T2[-K_MIN] == 0
