"""pow(x, y), correctly rounded, for every format (draft)."""

from __future__ import annotations

from typing import TypeVar

from vyre.dialects import vyre as d
from vyre.transforms.softfloat import multiword as mw
from vyre.transforms.softfloat.formats import EB, F32, Format
from vyre.transforms.softfloat.machine import W, sel
from vyre.transforms.softfloat.pow_exp import exp2_wide
from vyre.transforms.softfloat.pow_log import log2_wide, mul_exact
from vyre.transforms.softfloat.pack import round_pack, to_f32, unpack
from vyre.transforms.softfloat.registry import algorithm

__all__ = ["fpow"]

V = TypeVar("V")
Words = mw.Words
MASK = 0xFFFF_FFFF

# ---------------------------------------------------------------- y log2 x


def _times_y(lm: Words[V], le: W[V], my: W[V], ey: W[V]) -> tuple[Words[V], W[V], W[V]]:
    """(T, big, some): T = |t| * 2**88 as three words (floor) for t = y log2 x
    with |log2 x| = lm / 2**95 * 2**le and |y| = my / 2**23 * 2**ey (my the
    24-bit significand); big where |t| >= 256, some where T > 0 (|t| >= 2**-88).
    Exponents are two's complement words."""
    p = mul_exact(my << 8, lm)  # |t| * 2**(126 - le - ey), in [2**126, 2**128)
    b = p[0] >> 31
    top = mw.select(b, p[:3], tuple((p[i] << 1) | (p[i + 1] >> 31) for i in range(3)))
    top = mw.add_word(top, sel(b, p[3] >> 31, (p[3] >> 30) & 1))  # rounded to nearest
    et = le + ey + b  # 2**et <= |t| < 2**(et + 1)
    big = (et + 1024).ge(1032)
    return mw.shr(top, 7 - et), big, (et + 1024).ge(1024 - 88)


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
    lm, le, ls = log2_wide(ax)
    my, eyb = unpack(F32, ay)
    t, big, some = _times_y(lm, le, my, eyb - (EB + F32.bias))
    neg = (ls ^ (y >> 31)) & some
    t = mw.negate_if(neg, t)
    r, k = exp2_wide(t, neg)
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
