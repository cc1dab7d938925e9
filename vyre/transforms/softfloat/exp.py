"""2**x, e**x and 10**x, correctly rounded, for every format, in 64-bit fixed point.

All three reduce to 2**t = 2**k * 2**(j/128) * 2**r with k = floor(t), the
table index j (the next 7 bits of t) and the rest r < 2**-7, from t as a
fixed-point number with 64 fraction bits (F16/BF16 are widened exactly to F32
first):

- exp2: t = x, exact: x * 2**55 for |x| >= 2**-25 (below which the result
  rounds to 1);
- exp, exp10: t = x * log2(e), x * log2(10): the 24-bit significand times the
  constant to 72 bits (a 96-bit product, two 32 x 32-bit products and one
  small one), shifted by the exponent. Its error is below 2**-63 for every
  |x| < 128, so 2**t carries a relative error below 2**-63.

2**(j/128) comes from a table of 128 Q1.63 constants (integer square roots);
2**r - 1 is a degree-6 Taylor polynomial in r' = 128 r (its truncation error
is below 2**-65), evaluated by Horner in fixed point: the two innermost steps
in one word, the next with one 32 x 32-bit product, the last three with
truncated 64 x 64-bit products (`mulhi64_trunc`). Every coefficient and
intermediate has a scale chosen for its magnitude, so each step's truncation
costs a few units of 2**-64 or less of the result. The product with the table
value, a Q1.63 significand with a relative error below 2**-61, is rounded
once to the target format by `round_pack` (subnormal and overflowing results
included): no result is computed in F32 and converted. F32 inputs whose exact
result lies closer than that error to a rounding boundary would be the
exceptions an exhaustive comparison with the exact oracle lists
(`EXCEPTIONS`); the hardest F32 inputs need 2**-59 (exp2), 2**-53 (exp) and
2**-54 (exp10). exp(x) and exp10(x) are exact only at x = 0 (the tiny-argument
path gives 1); exp10 of the integers 0..10, whose results are F32 values, come
out exactly because the rounding of a value that close to a format value is
that value.
"""

from __future__ import annotations

from fractions import Fraction
from math import factorial, isqrt
from typing import TypeVar

from vyre.dialects import vyre as d
from vyre.transforms.softfloat.fixed import (
    Pair,
    add64,
    const64,
    lookup64,
    mul32,
    mulhi32,
    mulhi64_trunc,
    shl64,
    shr64_const,
    sub64,
)
from vyre.transforms.softfloat.formats import EB, F32, Format
from vyre.transforms.softfloat.ln import LN2, ONE, ln
from vyre.transforms.softfloat.machine import W, sel
from vyre.transforms.softfloat.pack import round_pack, to_f32
from vyre.transforms.softfloat.registry import algorithm

__all__ = ["EXCEPTIONS", "fexp", "fexp10", "fexp2"]

V = TypeVar("V")
def _exp2_frac(j: int) -> int:
    """round(2**(j/128) * 2**63), from integer square roots (exact floors)."""
    spare = 8
    value = (1 << j) << (128 * (63 + spare))
    for _ in range(7):
        value = isqrt(value)  # floor of the 2**k-th root, exactly
    return (value + (1 << (spare - 1))) >> spare


_TABLE: tuple[int, ...] = tuple(_exp2_frac(j) for j in range(128))
"""2**(j/128) as Q1.63, j = 0..127."""


def _d(i: int, scale: int) -> int:
    """round((ln 2)**i / i! / 128**i * 2**scale): the coefficient of r'**i."""
    return round(LN2**i / factorial(i) / Fraction(1 << (7 * i)) * (1 << scale))


# 2**(r'/128) - 1 = d1 r' + ... + d6 r'**6 (r' < 1); the scale of each Horner
# value q_i = d_i + r' q_(i+1) keeps it just below 2**64 (2**32 for a word)
_D6 = _d(6, 72)  # times r' to 14 bits (r'[0] >> 18): a 32-bit product at scale 2**86
_Q5 = _d(5, 76)  # q5, one word, scale 2**76
_Q4 = _d(4, 66)  # q4, one word, scale 2**66
_D3 = _d(3, 89)  # q3, a pair, scale 2**89
_D2 = _d(2, 80)  # q2, scale 2**80
_D1 = _d(1, 71)  # q1 and p = r' q1, scale 2**71

EXCEPTIONS: dict[str, dict[str, tuple[tuple[int, int], ...]]] = {
    name: {"f32": (), "f16": (), "bf16": ()} for name in ("exp2", "exp", "exp10")
}
"""(input pattern, result pattern) the fixed-point path rounds the wrong way,
per function and format (found by the exhaustive comparison with the exact
oracle; none so far)."""


def _exp2_fixed(fmt: Format, k: W[V], f: Pair[V]) -> W[V]:
    """2**(k + f) rounded to `fmt`: k a two's complement integer word, f the
    fraction in Q0.64."""
    j = f[0] >> 25
    r = ((f[0] << 7) | (f[1] >> 25), f[1] << 7)  # r' = 128 * (f - j/128), Q0.64
    q5 = _Q5 + (((r[0] >> 18) * _D6) >> 10)
    q4 = _Q4 + (mulhi32(r[0], q5) >> 10)
    q3 = add64(const64(k, _D3), shr64_const(mul32(r[0], q4), 9))
    q2 = add64(const64(k, _D2), shr64_const(mulhi64_trunc(r, q3), 9))
    q1 = add64(const64(k, _D1), shr64_const(mulhi64_trunc(r, q2), 9))
    p = mulhi64_trunc(r, q1)  # 2**(r'/128) - 1, scale 2**71
    t = lookup64(_TABLE, j)
    mm = add64(t, shr64_const(mulhi64_trunc(t, p), 7))  # 2**(j/128) * 2**(r'/128), Q1.63
    sig = mm[0] | mm[1].ne(0)
    return round_pack(fmt, sig, k.const(0), k + (fmt.bias + EB))


def _finish(fmt: Format, name: str, a: W[V], x: W[V], res: W[V], tiny: int, huge: int) -> W[V]:
    """The special values around the general path's result `res` for the F32
    pattern x: 1 below exponent `tiny`, 0 or inf from exponent `huge` on."""
    s, e = x >> 31, (x >> 23) & 0xFF
    mag = x & 0x7FFF_FFFF
    res = sel(e.lt(tiny), fmt.one, res)
    res = sel(e.ge(huge) | mag.eq(0x7F80_0000), sel(s, 0, fmt.inf), res)
    res = sel(mag.gt(0x7F80_0000), fmt.nan, res)
    for pattern, result in EXCEPTIONS[name][fmt.name]:
        res = sel(a.eq(pattern), result, res)
    return res


@algorithm(d.FExp2Op)
def fexp2(fmt: Format, a: W[V]) -> W[V]:
    """2**a of format `fmt`, correctly rounded (canonical NaN, +0 for -inf)."""
    x = to_f32(fmt, a)
    s, e = x >> 31, (x >> 23) & 0xFF
    # general path (102 <= e <= 134: 2**-25 <= |x| < 2**8)
    m = (x & 0x7F_FFFF) | 0x80_0000
    big = shl64((m.const(0), m), sel(e.lt(102), 7, e - 95))
    y = sel_pair(s, sub64((m.const(0), m.const(0)), big), big)  # x * 2**55, two's complement
    k = (y[0] >> 23) - ((y[0] >> 31) << 9)  # floor(x), from 9 bits of two's complement
    f = ((y[0] << 9) | (y[1] >> 23), y[1] << 9)
    return _finish(fmt, "exp2", a, x, _exp2_fixed(fmt, k, f), 102, 135)


def _scaled(fmt: Format, name: str, a: W[V], constant: int, tiny: int, huge: int) -> W[V]:
    """2**(a * c) for the constant c = constant / 2**70 (2 < c < 4 at most):
    exp and exp10. The general path serves tiny <= e < huge."""
    x = to_f32(fmt, a)
    s, e = x >> 31, (x >> 23) & 0xFF
    m = (x & 0x7F_FFFF) | 0x80_0000
    c2, c1, c0 = constant >> 64, (constant >> 32) & 0xFFFF_FFFF, constant & 0xFFFF_FFFF
    # the 96-bit product m * constant = x * c * 2**(220 - e)
    h0, p0 = mul32(m, c0)
    h1, l1 = mul32(m, c1)
    p1 = h0 + l1
    p2 = h1 + m * c2 + p1.lt(l1)
    # t * 2**64 = product >> (156 - e), 23 <= 156 - e <= 56 on the general path
    sh = 156 - e
    word = sh.ge(32)
    w2, w1, w0 = sel(word, 0, p2), sel(word, p2, p1), sel(word, p1, p0)
    n = sh & 31
    back = 31 - n
    t2 = w2 >> n
    t1 = (w1 >> n) | ((w2 << back) << 1)
    t0 = (w0 >> n) | ((w1 << back) << 1)
    # negative x: the two's complement (floor(t) in t2, the fraction in t1:t0)
    minus = 0 - s
    f0 = (t0 ^ minus) + s
    c = f0.lt(s)
    f1 = (t1 ^ minus) + c
    k = (t2 ^ minus) + f1.lt(c)
    return _finish(fmt, name, a, x, _exp2_fixed(fmt, k, (f1, f0)), tiny, huge)


_LOG2E = round(Fraction(1 << 70) / LN2)
"""log2(e) = 1 / ln 2 as Q2.70."""
_LOG2_10 = round((3 + Fraction(ln(10, 8), ONE) / LN2) * (1 << 70))
"""log2(10) = 3 + ln(10/8) / ln 2 as Q2.70."""


@algorithm(d.FExpOp)
def fexp(fmt: Format, a: W[V]) -> W[V]:
    """e**a of format `fmt`, correctly rounded (canonical NaN, +0 for -inf):
    the general path for 2**-25 <= |a| < 2**7."""
    return _scaled(fmt, "exp", a, _LOG2E, 102, 134)


@algorithm(d.FExp10Op)
def fexp10(fmt: Format, a: W[V]) -> W[V]:
    """10**a of format `fmt`, correctly rounded (canonical NaN, +0 for -inf):
    the general path for 2**-27 <= |a| < 2**6."""
    return _scaled(fmt, "exp10", a, _LOG2_10, 100, 133)


def sel_pair(c: W[V], t: tuple[W[V], W[V]], f: tuple[W[V], W[V]]) -> tuple[W[V], W[V]]:
    return sel(c, t[0], f[0]), sel(c, t[1], f[1])


assert _TABLE[0] == 1 << 63 and all(t < 1 << 64 for t in _TABLE)
assert _Q5 + (1 << 14) * _D6 // 1024 < 1 << 32 and _Q4 + _Q5 // 1024 + 1 < 1 << 32
assert _D3 + (_Q4 << 23) < 1 << 64 and _D2 + (_D3 >> 9) < 1 << 64 and _D1 + (_D2 >> 9) < 1 << 64
assert _LOG2_10 < 1 << 72 and F32.bias == 127
