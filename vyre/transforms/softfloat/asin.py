"""asin and acos, correctly rounded, for every format, in 64-bit fixed point.

Both come from one function of an exact argument, F(v) = asin(sqrt(v)) /
sqrt(v) = sum C(2n, n) / (4**n (2n + 1)) v**n, on v in [0, 1/4]:

- |x| < 1/2: asin(x) = x F(x**2), acos(x) = pi/2 - x F(x**2);
- |x| >= 1/2: with v = (1 - |x|) / 2 (exact), asin(|x|) = pi/2 - 2 sqrt(v) F(v),
  acos(|x|) = 2 sqrt(v) F(v) and acos(-|x|) = pi - 2 sqrt(v) F(v).

So acos is never computed as a difference where it is tiny (near x = 1 it is
2 sqrt(v) F(v), relative), and asin near 0 is x F(x**2). F(v) is a Taylor
polynomial of degree 6 around v_j = j / 512 (j = floor(512 v), 129 entries of 7
coefficients computed at import from the exact series), evaluated by Horner's
rule in h = v - v_j < 2**-9 with each step as wide as the bits it feeds (one
word for the high powers, two for the low ones): F to about 2**-62. sqrt(v),
v = m 2**-25 with a 23-bit m, is the integer square root R of the scaled m
(`sqrt.isqrt24`, with its exact remainder) refined by sqrt(R**2 + rem) = R +
rem / (2R) - (rem / (2R))**2 / (2R): rem / (2R) by long division. The product
(or pi/2 or pi minus twice it, in a frame whose top bit is 4) is rounded once
to the target format by `round_pack` (`atan.round_frame`).

Exact cases: asin(+-0) = +-0, acos(1) = +0, asin(+-1) = +-pi/2 and
acos(-1) = pi rounded, acos(+-0) = pi/2 rounded; |x| > 1 gives NaN.
"""

from __future__ import annotations

from typing import TypeVar

from vyre.dialects import vyre as d
from vyre.transforms.softfloat import multiword as mw
from vyre.transforms.softfloat.atan import PI_FRAMES, XB, round_frame
from vyre.transforms.softfloat.div import reciprocal
from vyre.transforms.softfloat.fixed import mul32
from vyre.transforms.softfloat.formats import EB, F32, Format
from vyre.transforms.softfloat.machine import W, sel
from vyre.transforms.softfloat.pack import to_f32, unpack
from vyre.transforms.softfloat.registry import algorithm
from vyre.transforms.softfloat.sqrt import isqrt24

__all__ = ["EXCEPTIONS", "arc", "facos", "fasin"]

V = TypeVar("V")
Words = mw.Words

B_BITS = 9
"""v_j = j / 2**B_BITS, j = 0..128."""
DEGREE = 6
"""The Taylor polynomial's degree (the next term is below 2**-66)."""
SERIES_BITS = 96
"""Fraction bits of the coefficients as computed (the tables keep 64)."""


def _series_coefficients(j: int) -> tuple[int, ...]:
    """The Taylor coefficients of F at v_j = j / 2**B_BITS, k = 0..DEGREE, as
    integers of 2**SERIES_BITS: sum over n >= k of a_n C(n, k) v_j**(n - k),
    a_n = b_n / (2n + 1) with b_n = C(2n, n) / 4**n. With c_n = b_n C(n, k)
    v_j**(n - k), c_n = c_(n - 1) (2n - 1) j / (2 (n - k) 2**B_BITS): integers of
    2**(SERIES_BITS + 64), each step floored (the sum is within a few hundred
    units of 2**-(SERIES_BITS + 64))."""
    work = SERIES_BITS + 64
    out: list[int] = []
    b = 1 << work  # b_0
    for k in range(DEGREE + 1):
        if k:
            b = b * (2 * k - 1) // (2 * k)  # b_k
        c = b
        total = c // (2 * k + 1)
        n = k
        while c and j:
            n += 1
            c = c * (2 * n - 1) * j // ((2 * (n - k)) << B_BITS)
            total += c // (2 * n + 1)
        out.append(total >> 64)
    return tuple(out)


def _tables() -> tuple[tuple[int, ...], ...]:
    coefficients = [_series_coefficients(j) for j in range(129)]
    shift = SERIES_BITS
    formatted: list[tuple[int, ...]] = []
    for k in range(DEGREE + 1):
        # k = 0: Q1.63; k = 1..3: Q0.64; k = 4..6: Q0.32
        bits = 63 if k == 0 else (64 if k <= 3 else 32)
        formatted.append(tuple(c[k] >> (shift - bits) for c in coefficients))
    return tuple(formatted)


_F_TABLES = _tables()
"""Per degree k, the coefficient of h**k for every j (fixed point, see `_tables`)."""

EXCEPTIONS: dict[str, dict[str, tuple[tuple[int, int], ...]]] = {
    "asin": {"f32": (), "f16": (), "bf16": ()},
    "acos": {"f32": (), "f16": (), "bf16": ()},
}
"""(input pattern, result pattern) the fixed-point path rounds the wrong way."""


def _horner(eta: Words[V], j: W[V]) -> Words[V]:
    """F(v_j + eta 2**-9) as Q1.63 (two words), eta a Q0.64 fraction."""
    t = _F_TABLES
    e0 = eta[0]
    q = j.lookup(t[6])
    for k in (5, 4):  # one word: Q0.32
        q = j.lookup(t[k]) + (mw.mulhi_word(e0, q) >> B_BITS)
    wide = _shr_const(mul32(e0, q), B_BITS)  # eta * Q4, Q0.64
    q2 = mw.add(mw.lookup(t[3], j, 2), wide)
    for k in (2, 1):
        q2 = mw.add(mw.lookup(t[k], j, 2), _shr_const(mw.mulhi(eta, q2, 2), B_BITS))
    return mw.add(mw.lookup(t[0], j, 2), _shr_const(mw.mulhi(eta, q2, 2), B_BITS + 1))


def _shr_const(a: Words[V], s: int) -> Words[V]:
    out = [a[0] >> s]
    for i in range(1, len(a)):
        out.append((a[i] >> s) | (a[i - 1] << (32 - s)))
    return tuple(out)


def _sqrt_v(mv: W[V]) -> tuple[Words[V], W[V]]:
    """sqrt(mv 2**-25) for 0 < mv <= 2**23 as (S, e): S / 2**63 in [1, 2),
    the value S / 2**63 * 2**(e - XB); within a few units of S."""
    lz = mv.clz()  # >= 8
    m = mv << (lz - 8)  # [2**23, 2**24): mv 2**-25 = m 2**-(17 + lz)
    odd = lz & 1
    r, rem = isqrt24(m, odd)  # R = floor(sqrt(m 2**(23 + odd))), rem = N - R**2 <= 2R
    y = reciprocal(r)
    # Q = floor(rem 2**39 / R) (or one less): four quotient digits, exact remainders
    digits: list[W[V]] = []
    rr = rem
    for k in (12, 12, 12, 3):
        q = ((rr >> 9) * y) >> (30 - k)
        digits.append(q)
        if k != 3:
            rr = (rr << k) - q * r
    a = (digits[0] << 12) + digits[1]
    low = (digits[2] << 3) + digits[3]
    quotient = mw.add_word((a >> 17, a << 15), low)  # delta 2**40, delta = rem / (2R)
    d15 = quotient[0] << 7 | quotient[1] >> 25  # delta 2**15
    c = (((d15 * d15) >> 14) * y) >> 16  # delta**2 / (2R) 2**40
    s = mw.sub(mw.add((r << 8, r.const(0)), quotient), (r.const(0), c))
    # sqrt(v) = sqrt(N) 2**-((40 + lz + odd) / 2), sqrt(N) = S / 2**40
    return s, (XB + 23) - ((lz + odd + 40) >> 1)


def arc(x: W[V], cosine: bool) -> tuple[Words[V], W[V], W[V]]:
    """asin or acos of the F32 pattern x (|x| <= 1) as (F, e, sign) in the frame
    convention of `atan.angle` (value F * 2**(e - XB - 62), two words)."""
    ax, sx = x & 0x7FFF_FFFF, x >> 31
    mx, ex = unpack(F32, ax)
    zero = ax.const(0)
    big = ax.ge(0x3F00_0000)  # |x| >= 1/2
    kx = (EB + 150) - ex  # |x| = mx 2**-kx
    # v: x**2 (kx >= 25) or (1 - |x|) / 2 = (2**24 - mx) 2**-25 (kx = 24; 0 at |x| = 1)
    small_v = mw.shr(_shl_const(mul32(mx, mx), 14), kx + kx - 50)
    mv = sel(ax.eq(F32.one), 0, (1 << 24) - mx)
    v: Words[V] = mw.select(big, (mv << 7, zero), small_v)
    j = v[0] >> (32 - B_BITS)
    eta = ((v[0] << B_BITS) | (v[1] >> (32 - B_BITS)), v[1] << B_BITS)
    f = _horner(eta, j)
    root, er = _sqrt_v(mv)
    m_sig = mw.select(big, root, (mx << 8, zero))
    em = sel(big, er + 1, ex + (XB - EB - 127))  # 2 sqrt(v) for |x| >= 1/2
    w = mw.mulhi(m_sig, f, 2)  # m F = w / 2**62 * 2**(em - XB)
    w = mw.select(ax.eq(0) | mv.eq(0) & big, (zero, zero), w)
    if cosine:
        off = mw.select(big, mw.const(x, PI_FRAMES[2], 2), mw.const(x, PI_FRAMES[2] >> 1, 2))
        folded = (big ^ 1) | sx
        minus = big | (sx ^ 1)  # pi/2 - xF (x > 0), pi - 2 sqrt(v) F
        sign = zero
    else:
        off = mw.const(x, PI_FRAMES[2] >> 1, 2)
        folded = big
        minus = big
        sign = sx
    e = sel(folded, XB + 1, em)
    w = mw.shr(w, e - em)  # into the frame whose top bit is 4 when folded
    total = mw.add(mw.select(folded, off, (zero, zero)), mw.negate_if(minus & folded, w))
    return total, e, sign


def _arc(fmt: Format, a: W[V], cosine: bool) -> W[V]:
    x = to_f32(fmt, a)
    total, e, sign = arc(x, cosine)
    res = round_frame(fmt, total, e, sign)
    return sel((x & 0x7FFF_FFFF).gt(F32.one), fmt.nan, res)


def _shl_const(a: Words[V], s: int) -> Words[V]:
    out = [(a[i] << s) | (a[i + 1] >> (32 - s)) for i in range(len(a) - 1)]
    return tuple(out) + (a[-1] << s,)


@algorithm(d.FAsinOp)
def fasin(fmt: Format, a: W[V]) -> W[V]:
    """asin(a) of format `fmt`, correctly rounded (asin(+-0) = +-0, NaN for |a| > 1)."""
    res = _arc(fmt, a, cosine=False)
    for pattern, result in EXCEPTIONS["asin"][fmt.name]:
        res = sel(a.eq(pattern), result, res)
    return res


@algorithm(d.FAcosOp)
def facos(fmt: Format, a: W[V]) -> W[V]:
    """acos(a) of format `fmt`, correctly rounded (acos(1) = +0, NaN for |a| > 1)."""
    res = _arc(fmt, a, cosine=True)
    for pattern, result in EXCEPTIONS["acos"][fmt.name]:
        res = sel(a.eq(pattern), result, res)
    return res
