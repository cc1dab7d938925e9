"""pow(x, y), correctly rounded, for every format, in three-word fixed point.

The operands (F16/BF16 widened exactly to F32) give x**y = 2**t with
t = y log2|x|:

1. |log2|x|| as a normalised 96-bit significand with a relative error below
   2**-95 (pow_log.py: two exact table reductions, a degree-6 polynomial,
   a five-word fixed-point sum);
2. t = y log2|x|: the 24-bit significand of y times it (exact, rounded to 96
   bits), shifted into a fixed-point number with 8 integer and 88 fraction
   bits (|t| >= 256 overflows or underflows whatever the rounding; |t| below
   2**-88 is 0), negated where t < 0;
3. 2**t = 2**k * R / 2**95 (pow_exp.py: two one-word tables with exact
   corrections, a degree-5 polynomial), R with a relative error below 2**-90.

The error of R 2**k against x**y is below 2**-87 relative (t's error is at
most |t| 1.5 * 2**-95 plus 2**-88, and |t| < 152 wherever the result is
finite and nonzero; the largest seen on samples is 2**-88.2). One `round_pack` rounds it to the target format, subnormal results
included: an F16 or BF16 result is never an F32 result rounded again. Known
F32 pairs whose x**y lies closest to a rounding boundary (within 2**-78 of
it, relative) are rounded correctly with that margin.

Exact results and midpoints (x**y = 2**k with t an integer, x**2, 9**0.5,
4097**2, a subnormal (2i + 1) 2**-150) need y = n 2**f with n < 2**8 (an
exact power of an F32 value other than a power of two needs y an integer of
at most 15 or n / 2**f with n <= 15 and f <= 3; a power of two gives a
midpoint only at 2**-150, y = -150 / e): where y's low 16 bits are zero and R
lies within 2**-84 of the 2**-24 grid (which holds every midpoint and value
of the three formats, subnormals included), R is moved onto it, so the
rounding sees the exact value and ties go to even. A value that close to the
grid but not on it would be within 2**-84 of a midpoint: no F32 pair of that
kind is known, and every F16 and BF16 pair is checked.

Special values follow C's Annex F: pow(x, +-0) = 1 and pow(+1, y) = 1 even
for NaN; a NaN operand otherwise gives NaN; |x| = 1 gives 1 (pow(-1, +-inf) =
1, pow(-1, odd) = -1); x = +-0, x = +-inf, y = +-inf and |t| >= 256 give 0 or
inf by whether |x| > 1 and y > 0 agree; x < 0 gives NaN for a finite
non-integer y and the sign of x for an odd integer y (infinite y is even).
NaN results are canonical.
"""

from __future__ import annotations

from typing import TypeVar

from vyre.dialects import vyre as d
from vyre.transforms.softfloat import multiword as mw
from vyre.transforms.softfloat.formats import EB, F32, Format
from vyre.transforms.softfloat.machine import W, sel
from vyre.transforms.softfloat.pack import round_pack, to_f32, unpack
from vyre.transforms.softfloat.pow_exp import exp2_wide
from vyre.transforms.softfloat.pow_log import log2_wide, mul_exact
from vyre.transforms.softfloat.registry import algorithm

__all__ = ["EXCEPTIONS", "fpow", "power"]

V = TypeVar("V")
Words = mw.Words
MASK = 0xFFFF_FFFF

EXCEPTIONS: dict[str, tuple[tuple[int, int, int], ...]] = {"f32": (), "f16": (), "bf16": ()}
"""(x pattern, y pattern, result pattern) the fixed-point path rounds the wrong
way, per format (none found)."""


def _times_y(lm: Words[V], le: W[V], my: W[V], ey: W[V]) -> tuple[Words[V], W[V], W[V]]:
    """(T, big, some): T = floor(|t| * 2**88) as three words for t = y log2|x|
    with |log2|x|| = lm / 2**95 * 2**le and |y| = my / 2**23 * 2**ey (my the
    24-bit significand); big where |t| >= 256, some where |t| >= 2**-88 (T > 0).
    Exponents are two's complement words."""
    p = mul_exact(my << 8, lm)  # |t| * 2**(126 - le - ey), in [2**126, 2**128)
    b = p[0] >> 31
    top = mw.select(b, p[:3], tuple((p[i] << 1) | (p[i + 1] >> 31) for i in range(3)))
    top = mw.add_word(top, sel(b, p[3] >> 31, (p[3] >> 30) & 1))  # rounded to nearest
    et = le + ey + b  # 2**et <= |t| < 2**(et + 1)
    return mw.shr(top, 7 - et), (et + 1024).ge(1032), (et + 1024).ge(1024 - 88)


def _parity(y: W[V]) -> tuple[W[V], W[V]]:
    """(integer, odd) of an F32 pattern y (infinities are even integers)."""
    e = (y >> 23) & 0xFF
    m = (y & 0x7F_FFFF) | 0x80_0000
    integer = sel(e.ge(150), 1, sel(e.lt(127), 0, (m << (e - 118)).eq(0)))
    return integer, integer & e.le(150) & (m >> (150 - e)) & 1


def _snap(r: Words[V], may: W[V]) -> W[V]:
    """The significand word (sticky below) of R / 2**95, R moved onto the
    2**-24 grid where `may` is 1 and R lies within 2**-84 of it."""
    low = r[0] & 0x7F
    down = low.eq(0) & r[1].eq(0) & (r[2] >> 11).eq(0)
    up = low.eq(0x7F) & r[1].eq(MASK) & (r[2] >> 11).eq(0x1F_FFFF) & r[0].ne(MASK)
    snap = may & (down | up)
    return (r[0] + (snap & up)) | ((r[1] | r[2]).ne(0) & (snap ^ 1))


def power(x: W[V], y: W[V]) -> tuple[Words[V], W[V], W[V]]:
    """(R, k, big): |x|**y = R / 2**95 * 2**k (R three words in [2**95,
    2**96), k a two's complement word) before rounding, for F32 patterns x, y
    (x finite, nonzero, |x| != 1; y finite), or big where |y log2|x|| >= 256."""
    lm, le, ls = log2_wide(x & 0x7FFF_FFFF)
    my, eyb = unpack(F32, y & 0x7FFF_FFFF)
    t, big, some = _times_y(lm, le, my, eyb - (EB + F32.bias))
    neg = (ls ^ (y >> 31)) & some
    r, k = exp2_wide(mw.negate_if(neg, t), neg)
    return r, k, big


def _core(fmt: Format, x: W[V], y: W[V]) -> W[V]:
    """pow of the F32 patterns x, y rounded to `fmt`."""
    ax, ay = x & 0x7FFF_FFFF, y & 0x7FFF_FFFF
    r, k, big = power(x, y)
    integer, odd = _parity(y)
    sign = (x >> 31) & odd
    res = round_pack(fmt, _snap(r, (y & 0xFFFF).eq(0)), sign, k + (fmt.bias + EB))
    # zeros, infinities and |t| >= 256: 0 or inf, by whether |x| > 1 and y > 0 agree
    edge = ax.eq(0) | ax.eq(F32.inf) | ay.eq(F32.inf) | big
    huge = ax.gt(F32.one) ^ (y >> 31)
    res = sel(edge, sel(huge, fmt.inf, 0) | (sign << (fmt.width - 1)), res)
    res = sel(ax.eq(F32.one), (sign << (fmt.width - 1)) | fmt.one, res)
    nan = ax.gt(F32.inf) | ay.gt(F32.inf) | ((x >> 31) & (integer ^ 1) & ax.ne(0) & ax.lt(F32.inf))
    res = sel(nan, fmt.nan, res)
    return sel(ay.eq(0) | x.eq(F32.one), fmt.one, res)


@algorithm(d.FPowOp)
def fpow(fmt: Format, a: W[V], b: W[V]) -> W[V]:
    """pow(a, b) of format `fmt`, correctly rounded, Annex F's special values."""
    res = _core(fmt, to_f32(fmt, a), to_f32(fmt, b))
    for px, py, result in EXCEPTIONS[fmt.name]:
        res = sel(a.eq(px) & b.eq(py), result, res)
    return res
