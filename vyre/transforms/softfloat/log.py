"""log2, log and log10, correctly rounded, for every format, in 64-bit fixed point.

The operand (F16/BF16 widened exactly to F32, subnormals normalised) is
x = 2**e * m with 1 <= m < 2. The index j = round(128 (m - 1)) picks an
inverse N_j / 2**12 of the centre of m's interval (a 12-bit integer; j = 128,
m just below 2, takes 1/2 and counts as e + 1 with j = 0), so that
z = m * N_j / 2**12 - 1 is exact and small (|z| < 2**-7.9): as m and N_j are
integers scaled by 2**23 and 2**12, z * 2**35 is the low word of the product
m * N_j (one wrapping multiply). Then

    log2(x) = e + log2(1 / inv_j) + log2(1 + z)

with log2(1 / inv_j) from a 128-entry Q0.64 table (0 for j = 0) and
log2(1 + z) = z * q(z), q(z) = sum (-z)**k / ((k + 1) ln 2), a degree-7
polynomial (truncation below 2**-65) evaluated by Horner on |z| with the
signs of z's powers folded into each step: four steps in one word, one with a
32 x 32-bit product, three with a 32 x 64-bit one, each value at a scale
chosen for its magnitude. z * q(z) is formed as a normalised significand
(relative error about 2**-61), so:

- near 1 (e + table value = 0: 1 - 2**-9 <= x < 1 + 2**-8) the result is
  z * q(z) itself, with full relative precision however small it is;
- elsewhere (|log2 x| >= 2**-8.5) it is added in fixed point (64 fraction
  bits) to e and the table value, exactly, and the sum normalised (absolute
  error below 2**-63: relative below 2**-54.5 at the smallest results).

log and log10 multiply that normalised log2 by ln 2 and log10(2) (64-bit
constants), so their relative precision near 1 is log2's. One `round_pack`
rounds to the target format. Exact cases: log2(2**k) = k (z = 0 and a zero
table value leave e alone), log(1) = log2(1) = log10(1) = +0, and
log10(10**k) = k because a value within 2**-54 of an integer of the format
rounds to it. The hardest F32 inputs need a relative error below about
2**-52 (log2: 2**-51.6). Special values: log(±0) = -inf, log(x < 0) = NaN,
log(+inf) = +inf, NaN canonical.
"""

from __future__ import annotations

from fractions import Fraction
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
    mulhi64x32,
    shr64,
    shr64_const,
)
from vyre.transforms.softfloat.formats import EB, F32, Format
from vyre.transforms.softfloat.ln import LN2, ONE, ln
from vyre.transforms.softfloat.machine import W, sel
from vyre.transforms.softfloat.pack import round_pack, to_f32, unpack
from vyre.transforms.softfloat.registry import algorithm

__all__ = ["EXCEPTIONS", "INVERSES", "flog", "flog10", "flog2"]

V = TypeVar("V")
_K = 12
"""Bits of the inverses: N_j / 2**12."""


def _interval(j: int) -> tuple[Fraction, Fraction]:
    """The m of index j: [1 + (j - 1/2)/128, 1 + (j + 1/2)/128) within [1, 2)."""
    return max(Fraction(1), 1 + Fraction(2 * j - 1, 256)), min(Fraction(2), 1 + Fraction(2 * j + 1, 256))


def _z_bound(j: int, n: int) -> Fraction:
    low, high = _interval(j)
    return max(abs(low * n / (1 << _K) - 1), abs(high * n / (1 << _K) - 1))


def _inverse(j: int) -> int:
    """N_j: 2**12 for j = 0 and 2**11 for j = 128 (exact log values 0 and 1,
    so that x near 1 gives z itself), else the 12-bit inverse of the
    interval's centre with the smallest |z|."""
    if j in (0, 128):
        return (1 << _K) >> (j // 128)
    centre = (1 << _K) * 128 / Fraction(128 + j)
    candidates = (centre.numerator // centre.denominator, centre.numerator // centre.denominator + 1)
    return min(candidates, key=lambda n: _z_bound(j, n))


_INV: tuple[int, ...] = tuple(_inverse(j) for j in range(129))
INVERSES = _INV
"""N_j of j = 0..128: z = m * N_j / 2**12 - 1 is exact and |z| < 2**-7.9 (pow.py
reduces its logarithm the same way)."""
_Z_MAX = max(_z_bound(j, n) for j, n in enumerate(_INV))
_LOG: tuple[int, ...] = tuple(
    round(Fraction(ln(1 << _K, n), ONE) / LN2 * (1 << 64)) for n in _INV[:128]
)
"""log2(2**12 / N_j) as Q0.64, j = 0..127 (j = 128 is j = 0 with e + 1)."""


def _a(k: int, scale: int) -> int:
    """round(2**scale / ((k + 1) ln 2)): |coefficient| of z**k in q(z)."""
    return round(Fraction(1 << scale) / ((k + 1) * LN2))


# q(z) by Horner on w = |z| (w = W / 2**35): s_k = a_k - (or +, for z < 0) w s_(k+1),
# s_k > 0, at scale 2**(scale of s_(k+1) + 3) (a 32-bit W times a value, over 2**32)
_A7 = _a(7, 24)
_A6, _A5, _A4 = _a(6, 27), _a(5, 30), _a(4, 33)  # one word each
_A3, _A2, _A1, _A0 = _a(3, 54), _a(2, 57), _a(1, 60), _a(0, 63)  # pairs; s0 = q(z) as Q1.63
_LN2_64 = round(LN2 * (1 << 64))
"""ln 2 as Q0.64."""
_LOG10_2_65 = round(LN2 / (LN2 + Fraction(ln(10, 8), ONE) + 2 * LN2) * (1 << 65))
"""log10(2) = ln 2 / ln 10 times 2**65 (ln 10 = 3 ln 2 + ln(10/8))."""

EXCEPTIONS: dict[str, dict[str, tuple[tuple[int, int], ...]]] = {
    name: {"f32": (), "f16": (), "bf16": ()} for name in ("log2", "log", "log10")
}
"""(input pattern, result pattern) the fixed-point path rounds the wrong way,
per function and format (none so far)."""


def _q(w: W[V], minus: W[V]) -> Pair[V]:
    """q(z) * 2**63 for w = |z| * 2**35; `minus` is all ones where z >= 0 (the
    odd powers subtract: x + ~y = x - y - 1, one unit)."""
    s6 = _A6 + (mulhi32(w, _A7) ^ minus)
    s5 = _A5 + (mulhi32(w, s6) ^ minus)
    s4 = _A4 + (mulhi32(w, s5) ^ minus)
    s: Pair[V] = shr64_const(mul32(w, s4), 14)
    s = add64(const64(w, _A3), (s[0] ^ minus, s[1] ^ minus))
    for a in (_A2, _A1, _A0):
        u = mulhi64x32(w, s)
        s = add64(const64(w, a), (u[0] ^ minus, u[1] ^ minus))
    return s


def _fixed_sum(top: W[V], table: Pair[V], zq: Pair[V], negative: W[V]) -> tuple[W[V], W[V], W[V]]:
    """top * 2**64 + table -/+ zq (zq subtracted where `negative` is 1), exactly,
    as a 96-bit two's complement number (high word first)."""
    minus = 0 - negative
    lo = table[1] + (zq[1] ^ minus)
    c = lo.lt(table[1])
    lo2 = lo + negative
    c = c + lo2.lt(lo)
    mid = table[0] + (zq[0] ^ minus)
    c2 = mid.lt(table[0])
    mid2 = mid + c
    c2 = c2 + mid2.lt(mid)
    return top + minus + c2, mid2, lo2


def _normalise(s: tuple[W[V], W[V], W[V]]) -> tuple[Pair[V], W[V], W[V], W[V]]:
    """(significand, sticky, exponent, sign) of a nonzero 96-bit two's
    complement number with 64 fraction bits: the magnitude's leading 1 at bit
    63 of the pair, the bits below the pair OR-ed into `sticky`, and the
    magnitude = significand / 2**63 * 2**exponent."""
    sign = s[0] >> 31
    minus = 0 - sign
    a0 = (s[2] ^ minus) + sign
    c = a0.lt(sign)
    a1 = (s[1] ^ minus) + c
    a2 = (s[0] ^ minus) + a1.lt(c)
    high = a2.ne(0)
    top, mid, low = sel(high, a2, a1), sel(high, a1, a0), sel(high, a0, 0)
    lz = top.clz()
    back = 31 - lz
    sig = ((top << lz) | ((mid >> 1) >> back), (mid << lz) | ((low >> 1) >> back))
    return sig, (low << lz).ne(0), back - ((high ^ 1) << 5), sign


def _log2_parts(fmt: Format, a: W[V]) -> tuple[W[V], Pair[V], W[V], W[V], W[V], W[V]]:
    """(x, significand, sticky, exponent, sign, is_one) of log2 of the operand
    `a` of format `fmt` (x its F32 pattern; valid for finite x > 0)."""
    x = to_f32(fmt, a)
    m, eb = unpack(F32, x & 0x7FFF_FFFF)
    j = ((m + (1 << 15)) >> 16) - 128  # 0..128
    e = eb + (j >> 7) - (EB + F32.bias)  # two's complement; j = 128 counts as e + 1
    jt = j & 127
    z = m * j.lookup(_INV)  # z * 2**35, two's complement
    negative = z >> 31
    w = (z ^ (0 - negative)) + negative
    q = _q(w, negative - 1)
    lz = w.clz()
    pz = mulhi64x32(w << lz, q)  # |z| q(z) * 2**(66 + lz), leading 1 at bit 63 or 62
    # near 1: the normalised product itself
    b = pz[0] >> 31
    sig_a = sel(b, pz[0], (pz[0] << 1) | (pz[1] >> 31)), sel(b, pz[1], pz[1] << 1)
    near = e.eq(0) & jt.eq(0)
    # elsewhere: e + table + z q(z) in fixed point
    total = _fixed_sum(e, lookup64(_LOG, jt), shr64(pz, lz + 2), negative)
    sig_b, sticky, exponent, sign = _normalise(total)
    sig = sel(near, sig_a[0], sig_b[0]), sel(near, sig_a[1], sig_b[1])
    exponent = sel(near, b - 4 - lz, exponent)
    return x, sig, sticky & (near ^ 1), exponent, sel(near, negative, sign), near & w.eq(0)


def _finish(fmt: Format, name: str, a: W[V], x: W[V], res: W[V], one: W[V]) -> W[V]:
    """The special values around the general path's result `res`."""
    mag = x & 0x7FFF_FFFF
    res = sel(one, 0, res)  # log(1) = +0
    res = sel(x >> 31, fmt.nan, res)  # x < 0, -inf
    res = sel(mag.eq(0), fmt.sign | fmt.inf, res)  # ±0: -inf
    res = sel(x.eq(0x7F80_0000), fmt.inf, res)
    res = sel(mag.gt(0x7F80_0000), fmt.nan, res)
    for pattern, result in EXCEPTIONS[name][fmt.name]:
        res = sel(a.eq(pattern), result, res)
    return res


@algorithm(d.FLog2Op)
def flog2(fmt: Format, a: W[V]) -> W[V]:
    """log2(a) of format `fmt`, correctly rounded."""
    x, sig, sticky, exponent, sign, one = _log2_parts(fmt, a)
    word = sig[0] | (sig[1] | sticky).ne(0)
    res = round_pack(fmt, word, sign, exponent + (fmt.bias + EB))
    return _finish(fmt, "log2", a, x, res, one)


def _scaled(fmt: Format, name: str, a: W[V], constant: int, shift: int) -> W[V]:
    """log2(a) * constant / 2**(64 + shift), for a constant in [2**63, 2**64)."""
    x, sig, _, exponent, sign, one = _log2_parts(fmt, a)
    p = mulhi64_trunc(sig, (constant >> 32, constant & 0xFFFF_FFFF))
    b = p[0] >> 31
    word = sel(b, p[0], (p[0] << 1) | (p[1] >> 31)) | sel(b, p[1], p[1] << 1).ne(0)
    res = round_pack(fmt, word, sign, exponent + b + (fmt.bias + EB - 1 - shift))
    return _finish(fmt, name, a, x, res, one)


@algorithm(d.FLogOp)
def flog(fmt: Format, a: W[V]) -> W[V]:
    """The natural logarithm of `a`, of format `fmt`, correctly rounded."""
    return _scaled(fmt, "log", a, _LN2_64, 0)


@algorithm(d.FLog10Op)
def flog10(fmt: Format, a: W[V]) -> W[V]:
    """The base-10 logarithm of `a`, of format `fmt`, correctly rounded."""
    return _scaled(fmt, "log10", a, _LOG10_2_65, 1)


assert _Z_MAX < Fraction(1, 1 << 7) * Fraction(97, 100)  # |z| < 2**-7.9 (w < 2**27.1)
assert all(2048 <= n <= 4096 for n in _INV) and _LOG[0] == 0 and all(v < 1 << 64 for v in _LOG)
assert _A4 + (_A5 >> 4) < 1 << 32 and _A0 + (_A1 >> 4) < 1 << 64
assert 1 << 63 <= _LN2_64 < 1 << 64 and 1 << 63 <= _LOG10_2_65 < 1 << 64
