"""pow(x, y), correctly rounded, for every format (draft)."""

from __future__ import annotations

from fractions import Fraction
from math import factorial, isqrt
from typing import TypeVar

from vyre.dialects import vyre as d
from vyre.transforms.softfloat import multiword as mw
from vyre.transforms.softfloat.fixed import Pair, add64, const64, mul32, mulhi32, mulhi64_trunc, mulhi64x32
from vyre.transforms.softfloat.formats import EB, F32, Format
from vyre.transforms.softfloat.ln import LN2, ONE, ln
from vyre.transforms.softfloat.log import INVERSES
from vyre.transforms.softfloat.machine import W, sel
from vyre.transforms.softfloat.pack import round_pack, to_f32, unpack
from vyre.transforms.softfloat.registry import algorithm

__all__ = ["fpow"]

V = TypeVar("V")
Words = mw.Words
MASK = 0xFFFF_FFFF

# ---------------------------------------------------------------- constants


def _words(value: int, n: int) -> tuple[int, ...]:
    return tuple((value >> (32 * (n - 1 - i))) & MASK for i in range(n))


_T1 = tuple(round(Fraction(ln(1 << 12, n), ONE) / LN2 * (1 << 128)) for n in INVERSES[:128])
"""log2(2**12 / N_j) as Q0.128, j = 0..127."""


def _a(k: int, scale: int) -> int:
    """round(2**scale / ((k + 1) ln 2)): |coefficient| of z**k in log2(1 + z) / z."""
    return round(Fraction(1 << scale) / ((k + 1) * LN2))


def _root2(k: int, bits: int) -> int:
    """floor(2**(k / 2**bits) * 2**31), by `bits` exact integer square roots."""
    value = 1 << (k + (31 << bits))
    for _ in range(bits):
        value = isqrt(value)
    return value


def _delta(k: int, bits: int, short: int) -> int:
    """round((k / 2**bits - log2(short / 2**31)) * 2**109) >= 0."""
    exact = Fraction(k, 1 << bits) - Fraction(ln(short, 1 << 31), ONE) / LN2
    assert exact >= 0
    return round(exact * (1 << 109))


_EA = tuple(_root2(j, 7) for j in range(128))
_EB = tuple(_root2(k, 14) for k in range(128))
_DA = tuple(_delta(j, 7, a) for j, a in enumerate(_EA))
_DB = tuple(_delta(k, 14, b) for k, b in enumerate(_EB))


def _c(i: int, scale: int) -> int:
    """floor(ln2**i / i! / 2**(14 i) * 2**scale): the coefficient of u**i in 2**(u / 2**14) - 1."""
    value = LN2**i / factorial(i) / Fraction(1 << (14 * i)) * (1 << scale)
    return value.numerator // value.denominator


_C5, _C4, _C3, _C2, _C1 = _c(5, 111), _c(4, 94), _c(3, 110), _c(2, 94), _c(1, 110)

# ---------------------------------------------------------------- multiword helpers


def _cw(like: W[V], value: int, n: int) -> Words[V]:
    return mw.const(like, value, n)


def _shr_const(a: Words[V], k: int) -> Words[V]:
    """a >> k for a constant 0 < k < 32 (same word count)."""
    out = [a[0] >> k]
    for i in range(1, len(a)):
        out.append((a[i] >> k) | (a[i - 1] << (32 - k)))
    return tuple(out)


def _flip(a: Words[V], minus: W[V]) -> Words[V]:
    return tuple(x ^ minus for x in a)


def _mul_exact(w: W[V], s: Words[V]) -> Words[V]:
    """The exact (n + 1)-word product of a word and an n-word value."""
    parts = [mul32(w, x) for x in s]
    zero = w.const(0)
    first = (parts[0][0],) + tuple(p[1] for p in parts)
    second = (zero,) + tuple(p[0] for p in parts[1:]) + (zero,)
    return mw.add(first, second)


def _mul_top(w: W[V], s: Words[V]) -> Words[V]:
    """floor(w * s / 2**32) less at most 3: the top n words of the (n + 1)-word
    product (the lowest partial product's high word approximated)."""
    parts = [mul32(w, x) for x in s[:-1]]
    last = mulhi32(w, s[-1])
    first = (parts[0][0],) + tuple(p[1] for p in parts)
    second = (w.const(0),) + tuple(p[0] for p in parts[1:]) + (last,)
    return mw.add(first, second)


# ---------------------------------------------------------------- log2


def _log_poly(w: W[V], minus: W[V]) -> Words[V]:
    """w * q(z) * 2**130 (four words, exact product of w and the 3-word q):
    log2(1 + z) for w = |z| * 2**35; `minus` all ones where z >= 0."""
    s: W[V] = w.const(_a(11, 25))
    for k, scale in ((10, 28), (9, 31), (8, 34)):
        s = _a(k, scale) + (mulhi32(w, s) ^ minus)
    s7 = mw.add(_cw(w, _a(7, 66), 2), _flip(_shr_const(mul32(w, s), 3), minus))
    s2w: Pair[V] = (s7[0], s7[1])
    for k, scale, shift in ((6, 66, 3), (5, 66, 3), (4, 65, 4)):
        p = _shr_const(mulhi64x32(w, s2w), shift)
        t = add64(const64(w, _a(k, scale)), (p[0] ^ minus, p[1] ^ minus))
        s2w = (t[0], t[1])
    s3 = mw.add(_cw(w, _a(3, 97), 3), _flip(_shr_const(_mul_exact(w, s2w), 3), minus))
    s = s3
    for k, scale, shift in ((2, 97, 3), (1, 96, 4), (0, 95, 4)):
        bias = 1 if k == 0 else 0  # centres s0's error (each step is up to 1.6 units short)
        s = mw.add(_cw(w, _a(k, scale) + bias, 3), _flip(_shr_const(_mul_top(w, s), shift), minus))
    return _mul_exact(w, s)


def _log2(x: W[V]) -> tuple[Words[V], W[V], W[V]]:
    """(M, e, s): |log2 x| = M / 2**95 * 2**e with M a normalised 3-word
    significand (top bit set), s the sign of log2 x, for a positive finite
    F32 pattern x other than 1."""
    m, eb = unpack(F32, x)
    j = ((m + (1 << 15)) >> 16) - 128  # 0..128
    e = eb + (j >> 7) - (EB + F32.bias)  # two's complement; j = 128 counts as e + 1
    jt = j & 127
    z = m * j.lookup(INVERSES)  # z * 2**35, two's complement
    negative = z >> 31
    w = (z ^ (0 - negative)) + negative
    p = _shr_const(_log_poly(w, negative - 1), 2)  # |log2(1 + z)| * 2**128
    minus = 0 - negative
    t1 = mw.lookup(_T1, jt, 4)
    total = mw.add((e,) + t1, (minus,) + _flip(p, minus))  # log2 x * 2**128, five words
    s = total[0] >> 31
    mag = mw.negate_if(s, total)  # |log2 x|
    high = mag[0].ne(0)
    win = mw.select(high, mag[:4], mag[1:])
    lz = win[0].clz()
    back = 31 - lz
    sig = tuple((win[i] << lz) | ((win[i + 1] >> 1) >> back) for i in range(3))
    sig = mw.add_word(sig, (win[3] << lz) >> 31)  # rounded to nearest
    return sig, back - ((high ^ 1) << 5), s


# ---------------------------------------------------------------- y log2 x


def _times_y(lm: Words[V], le: W[V], my: W[V], ey: W[V]) -> tuple[Words[V], W[V], W[V]]:
    """(T, big, some): T = |t| * 2**88 as three words (floor) for t = y log2 x
    with |log2 x| = lm / 2**95 * 2**le and |y| = my / 2**23 * 2**ey (my the
    24-bit significand); big where |t| >= 256, some where T > 0 (|t| >= 2**-88).
    Exponents are two's complement words."""
    p = _mul_exact(my << 8, lm)  # |t| * 2**(126 - le - ey), in [2**126, 2**128)
    b = p[0] >> 31
    top = mw.select(b, p[:3], tuple((p[i] << 1) | (p[i + 1] >> 31) for i in range(3)))
    top = mw.add_word(top, sel(b, p[3] >> 31, (p[3] >> 30) & 1))  # rounded to nearest
    et = le + ey + b  # 2**et <= |t| < 2**(et + 1)
    big = (et + 1024).ge(1032)
    return mw.shr(top, 7 - et), big, (et + 1024).ge(1024 - 88)


# ---------------------------------------------------------------- 2**t


def _exp2(t: Words[V], neg: W[V]) -> tuple[Words[V], W[V]]:
    """(R, k): 2**t = R / 2**95 * 2**k with R in [2**95, 2**96) three words,
    for t = T / 2**88 - 256 neg with T three words (k a two's complement word)."""
    t0 = t[0]
    k = (t0 >> 24) - (neg << 8)
    j = (t0 >> 17) & 127
    i = (t0 >> 10) & 127
    u: Words[V] = ((t0 & 0x3FF) << 21 | (t[1] >> 11), (t[1] << 21) | (t[2] >> 11), t[2] << 21)
    u = mw.add(mw.add(u, mw.lookup(_DA, j, 3)), mw.lookup(_DB, i, 3))  # u / 2**109 = t - log2(A B)
    # E = 2**(u / 2**109) - 1 by Horner on u (u's top words in Q1.31 and Q1.63)
    u0 = u[0]
    q4 = _C4 + (mulhi32(u0, _C5) >> 16)  # scale 2**94
    q3 = mw.add(_cw(u0, _C3, 2), _shr_const(mul32(u0, q4), 15))  # 2**110
    q2 = mw.add(_cw(u0, _C2, 2), _shr_const(mulhi64_trunc((u[0], u[1]), (q3[0], q3[1])), 15))  # 2**94
    q1 = mw.add(_cw(u0, _C1, 3), _shr_const(mw.mulhi((u[0], u[1]), q2, 3, 3), 15))  # 2**110
    e = mw.mulhi(u, q1, 3, 3)  # E * 2**109
    ab = mul32(j.lookup(_EA), i.lookup(_EB))  # A B * 2**62
    r = mw.add((ab[0] << 1 | ab[1] >> 31, ab[1] << 1, u0.const(0)), _shr_const(mw.mulhi(ab, e, 3, 3), 12))
    return r, k


# ---------------------------------------------------------------- pow


def _parity(y: W[V]) -> tuple[W[V], W[V]]:
    """(integer, odd) of an F32 pattern y (infinities are even integers)."""
    e = (y >> 23) & 0xFF
    m = (y & 0x7F_FFFF) | 0x80_0000
    integer = sel(e.ge(150), 1, sel(e.lt(127), 0, (m << (e - 118)).eq(0)))
    odd = integer & e.le(150) & (m >> (150 - e))
    return integer, odd & 1


def _snap(r: Words[V], may: W[V]) -> W[V]:
    """The significand word (sticky below) of R / 2**95, R moved onto the
    2**-24 grid where it lies within 2**-84 of it and `may` is 1: exact results
    and midpoints come out exact (they need y = n 2**f with n < 2**8, so y's low
    16 bits are zero)."""
    low = r[0] & 0x7F
    down = low.eq(0) & r[1].eq(0) & (r[2] >> 11).eq(0)
    up = low.eq(0x7F) & r[1].eq(MASK) & (r[2] >> 11).eq(0x1F_FFFF) & r[0].ne(MASK)
    snap = may & (down | up)
    return (r[0] + (snap & up)) | ((r[1] | r[2]).ne(0) & (snap ^ 1))


def _core(fmt: Format, x: W[V], y: W[V]) -> W[V]:
    """pow of the F32 patterns x, y rounded to `fmt`."""
    ax, ay = x & 0x7FFF_FFFF, y & 0x7FFF_FFFF
    lm, le, ls = _log2(ax)
    my, eyb = unpack(F32, ay)
    t, big, some = _times_y(lm, le, my, eyb - (EB + F32.bias))
    neg = (ls ^ (y >> 31)) & some
    t = mw.negate_if(neg, t)
    r, k = _exp2(t, neg)
    sig = _snap(r, (y & 0xFFFF).eq(0))
    integer, odd = _parity(y)
    sign = (x >> 31) & odd
    res = round_pack(fmt, sig, sign, k + (fmt.bias + EB))
    # zeros, infinities and |t| >= 256: 0 or inf, by whether |x| > 1 and y > 0 agree
    edge = ax.eq(0) | ax.eq(F32.inf) | ay.eq(F32.inf) | big
    huge = ax.gt(F32.one) ^ (y >> 31)
    special = sel(huge, fmt.inf, 0) | (sign << (fmt.width - 1))
    res = sel(edge, special, res)
    res = sel(ax.eq(F32.one), (sign << (fmt.width - 1)) | fmt.one, res)  # |x| = 1
    nan = ax.gt(F32.inf) | ay.gt(F32.inf) | ((x >> 31) & (integer ^ 1) & ax.ne(0) & ax.lt(F32.inf))
    res = sel(nan, fmt.nan, res)
    return sel(ay.eq(0) | x.eq(F32.one), fmt.one, res)


@algorithm(d.FPowOp)
def fpow(fmt: Format, a: W[V], b: W[V]) -> W[V]:
    """pow(a, b) of format `fmt`, correctly rounded, Annex F's special values."""
    return _core(fmt, to_f32(fmt, a), to_f32(fmt, b))
