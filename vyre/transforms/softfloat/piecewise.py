"""Piecewise polynomials in 64-bit fixed point: the correctly rounded odd
functions whose values lie in (-1, 1) (erf, tanh).

An odd function f is computed for |x| (the sign is put back at the end). The
range of |x| below the saturation point (where f rounds to 1 in every format)
is cut into intervals; `Run`s of intervals of width 2**-s start at 0 or at a
power of two, so an interval's index and the position tau in [0, 1) inside it
come from the F32 fields with one shift: the 64-bit word `m << shift` holds
floor(|x| * 2**s) in its high word and T = tau * 2**32 in its low word (exact
for every |x| >= 2**(-9 - s0), s0 the first run's width).

Interval i has a polynomial P_i(tau) = a_0 + a_1 tau + ... + a_D tau**D,
evaluated by Horner's rule in fixed point with the least significant bit
2**-63: H_D = A_D, H_k = A_k + H_{k+1} * T / 2**32. The coefficients fall
geometrically (a_k ~ (w * f's k-th Taylor coefficient)), so the top ones
(k >= `narrow_from`) are single signed words and their products one truncated
32 x 32 multiplication (`mulhi32`); the rest are signed 64-bit pairs, whose
products are one full 32 x 32 multiplication (three 16-bit ones while
|H| < 2**47) and one truncated. Every product is 0 to 3 units below the exact
one, so each A_k is stored one unit higher (the error is centred, at most 2
units). For F16 and BF16 T keeps its high 16 bits (it has no others except for
the tiniest arguments, where the first interval's polynomial is flat) and the
products are 64 x 16-bit ones, exact floors. Interval 0 ([0, w0)) is different:
there P_0 is f(x) / (2x), an even polynomial in tau (odd coefficients 0), and
the result is 2 * x * P_0: so tiny arguments keep their relative precision (and
subnormal results round once, like every other). Below 2**(-9 - s0) T is
truncated; for F32 the first-order correction 2 a_2 tau dtau is added.

The coefficients come from each interval's Taylor series (the function module
computes it exactly, in integers) economised to degree D by Chebyshev
truncation on [0, 1), all in integer arithmetic when first used. `build` bounds the
error of every step (approximation, coefficient rounding, the floors of the
products) and the module asserts it stays below 2**-58 of the result's scale;
the result is normalised and rounded once by `round_pack` in the target format.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from math import comb
from typing import TypeVar

from vyre.transforms.softfloat.fixed import Pair, add64, mul32, mulhi32
from vyre.transforms.softfloat.formats import EB, F32, Format
from vyre.transforms.softfloat.machine import W, sel
from vyre.transforms.softfloat.pack import round_pack, to_f32, unpack
from vyre.transforms.softfloat.truncated import mul_u16

__all__ = ["PREC", "Polynomials", "Run", "build", "exp_fixed", "fixed", "odd_function"]

V = TypeVar("V")

PREC = 160
"""Fraction bits of the import-time fixed-point computations (integers scaled by 2**PREC)."""
ONE = 1 << PREC
LSB = 63
"""The Horner words' least significant bit is 2**-LSB."""
Series = Callable[[Fraction, int], list[int]]
"""(x0, n) -> the Taylor coefficients c_0 .. c_n of f at x0, scaled by 2**PREC."""


def fixed(q: Fraction) -> int:
    """q * 2**PREC, rounded down."""
    return (q.numerator << PREC) // q.denominator


def exp_fixed(y: int) -> int:
    """e**y for a fixed-point y >= 0 (scaled by 2**PREC), by its series."""
    total, term, k = ONE, ONE, 1
    while term:
        term = (term * y >> PREC) // k
        total += term
        k += 1
    return total


@dataclass(frozen=True)
class Run:
    """Intervals of width 2**-shift from `start` (0 or a power of two) to `end`."""

    start: Fraction
    end: Fraction
    shift: int

    def points(self) -> list[Fraction]:
        width = Fraction(1, 1 << self.shift)
        count = -(-(self.end - self.start) // width)
        return [self.start + j * width for j in range(count)]


@dataclass(frozen=True)
class Polynomials:
    """The coefficient tables of a piecewise polynomial (see the module docstring)."""

    degree: int
    narrow_from: int
    """H_k for k >= narrow_from is one signed word, with the LSB 2**(narrow_shift - 63)."""
    narrow_shift: int
    small_from: int
    """H_k for small_from <= k < narrow_from is below 2**47 in magnitude (a cheaper product)."""
    words: tuple[tuple[tuple[int, ...], ...], ...]
    """Per k: (high words, low words) of the 64-bit A_k, or (words,) of a narrow A_k."""
    a2: int
    """Interval 0's A_2 (the tiny-argument correction's coefficient)."""
    error: int
    """A bound on |H_0 - 2**63 P(tau)| in units of 2**-63, every step's error included."""


def _economize(g: Sequence[int], degree: int) -> tuple[list[int], int]:
    """The polynomial sum g[k] tau**k (tau in [0, 1)) truncated to `degree` in
    the Chebyshev basis of [0, 1): (its coefficients, the sum of the dropped
    Chebyshev coefficients, which bounds the change)."""
    n = len(g) - 1
    # tau = (1 + u) / 2: the coefficients in u in [-1, 1]
    b = [sum((g[k] * comb(k, j)) >> k for k in range(j, n + 1)) for j in range(n + 1)]
    # u**k = 2**-k sum_i binom(k, i) T_{|k - 2i|}
    cheb = [0] * (n + 1)
    for k in range(n + 1):
        for i in range(k // 2 + 1):
            m = k - 2 * i
            cheb[m] += (b[k] * comb(k, i) * (1 if m == 0 else 2)) >> k
    t: list[list[int]] = [[1], [0, 1]]
    for m in range(2, n + 1):
        nxt = [0] + [2 * c for c in t[m - 1]]
        for j, c in enumerate(t[m - 2]):
            nxt[j] -= c
        t.append(nxt)
    e = list(b)
    for m in range(degree + 1, n + 1):
        for j, c in enumerate(t[m]):
            e[j] -= cheb[m] * c
    # back to tau: u = 2 tau - 1
    d = [
        sum(e[j] * comb(j, k) * (-1) ** (j - k) for j in range(k, degree + 1)) << k
        for k in range(degree + 1)
    ]
    return d, sum(abs(c) for c in cheb[degree + 1 :])


def _round(value: int, shift: int) -> int:
    return (value + (1 << (shift - 1))) >> shift


def build(series: Series, runs: Sequence[Run], degree: int, extra: int = 12) -> Polynomials:
    """The tables of f on `runs` (each interval's Taylor series at its left end to
    degree `degree + extra`, economised); interval 0 from the series at 0."""
    rows: list[list[int]] = []
    approx = 0
    for run in runs:
        for x0 in run.points():
            c = series(x0, degree + extra)
            if x0 == 0:  # f(x) / (2x) = sum c_{2j+1} x**2j / 2, a polynomial in tau**2
                g = [c[2 * j + 1] >> (2 * j * run.shift + 1) for j in range((degree + extra) // 2)]
                even, err = _economize(g, degree // 2)
                d = [even[k // 2] if k % 2 == 0 else 0 for k in range(degree + 1)]
            else:
                g = [v >> (k * run.shift) if v >= 0 else -((-v) >> (k * run.shift)) for k, v in enumerate(c)]
                d, err = _economize(g, degree)
            rows.append([_round(v, PREC - LSB) for v in d])
            approx = max(approx, err)
    return _tables(rows, degree, -(-approx >> (PREC - LSB)) + 1)


def _tables(rows: list[list[int]], degree: int, approx: int) -> Polynomials:
    # |H_k| <= sum_{j >= k} |A_j| + 3 per product below it
    bound = [max(sum(abs(r[j]) for j in range(k, degree + 1)) for r in rows) + 12 * (degree - k) for k in range(degree + 1)]
    narrow_from, narrow_shift = degree + 1, 0
    for shift in (0, 1, 2):
        k = min((k for k in range(1, degree + 1) if all(b >> shift < 1 << 31 for b in bound[k:])), default=degree + 1)
        if k < narrow_from:
            narrow_from, narrow_shift = k, shift
    # each product is 0 to 3 units of its word below the exact one: one unit added
    # to the coefficient it is added to centres the error (at most 2 units)
    unit = [1 << narrow_shift if k >= narrow_from - 1 else 1 for k in range(degree)] + [0]
    words: list[tuple[tuple[int, ...], ...]] = []
    for k in range(degree + 1):
        column = [r[k] + unit[k] for r in rows]
        if k >= narrow_from:
            words.append((tuple(_round(v, narrow_shift) & 0xFFFF_FFFF if narrow_shift else v & 0xFFFF_FFFF for v in column),))
        else:
            column = [v & (1 << 64) - 1 for v in column]
            words.append((tuple(v >> 32 for v in column), tuple(v & 0xFFFF_FFFF for v in column)))
    narrow_unit = 1 << narrow_shift
    rounding = (degree + 1 - narrow_from) * narrow_unit + narrow_from  # the coefficients' roundings
    error = approx + rounding + 2 * sum(unit) + 4  # + the products and the tiny-argument correction
    small_from = min(k for k in range(1, degree + 2) if all(b < 1 << 47 for b in bound[k:]))
    return Polynomials(degree, narrow_from, narrow_shift, small_from, tuple(words), rows[0][2], error)


# -- the integer program ------------------------------------------------------


def _add_word(a: Pair[V], w: W[V]) -> Pair[V]:
    """a + w for an unsigned word w."""
    lo = a[1] + w
    return a[0] + lo.lt(w), lo


def _mul_narrow(h: W[V], t: W[V]) -> W[V]:
    """h * t / 2**32 less 0 to 3 (`mulhi32`), for a signed word h and an unsigned t."""
    return mulhi32(h, t) - sel(h >> 31, t, 0)


def _mul_wide(h: Pair[V], t: W[V]) -> Pair[V]:
    """h * t / 2**32 less 0 to 3, for a signed 64-bit h and an unsigned word t
    (the low word's product truncated by `mulhi32`)."""
    hi, lo = mul32(h[0], t)
    return _add_word((hi - sel(h[0] >> 31, t, 0), lo), mulhi32(h[1], t))


def _mul_small(h: Pair[V], t: W[V]) -> Pair[V]:
    """h * t / 2**32 less 0 to 3, for a signed 64-bit h with |h| < 2**47 and an
    unsigned word t: h's high word times t's halves are signed words."""
    p = h[0] * (t >> 16)  # |p| < 2**31
    q = h[0] * (t & 0xFFFF)
    lo = p << 16
    hi = (p >> 16) - ((p >> 31) << 16)  # p * 2**16's high word: p >> 16, arithmetic
    lo2 = lo + q
    hi = hi - (q >> 31) + lo2.lt(q)
    return _add_word((hi, lo2), mulhi32(h[1], t))


def _mul_narrow16(h: W[V], y: W[V]) -> W[V]:
    """floor(h * y / 2**16) for a signed word h and y < 2**16."""
    return (h >> 16) * y + (((h & 0xFFFF) * y) >> 16) - sel(h >> 31, y << 16, 0)


def _mul_wide16(h: Pair[V], y: W[V]) -> Pair[V]:
    """floor(h * y / 2**16) for a signed 64-bit h and y < 2**16."""
    hi, lo = mul_u16(h, y)
    return hi - sel(h[0] >> 31, y << 16, 0), lo


def horner(p: Polynomials, index: W[V], t: W[V], sixteen: bool = False) -> Pair[V]:
    """H_0: P_index(t / 2**32) * 2**63 (a signed pair). `sixteen`: t's low half
    is dropped, the products are 64 x 16-bit (16-bit formats, whose T has no
    low bits but for the tiniest arguments)."""
    d, k0 = p.degree, p.narrow_from
    y = t >> 16

    def narrow(h: W[V]) -> W[V]:
        return _mul_narrow16(h, y) if sixteen else _mul_narrow(h, t)

    if k0 > d:
        acc = (index.lookup(p.words[d][0]), index.lookup(p.words[d][1]))
    else:
        h = index.lookup(p.words[d][0])
        for k in range(d - 1, k0 - 1, -1):
            h = index.lookup(p.words[k][0]) + narrow(h)
        q = narrow(h)
        sign = 0 - (q >> 31)
        s = p.narrow_shift
        wide = (sign if s == 0 else (sign << s) | (q >> (32 - s)), q << s)
        acc = add64((index.lookup(p.words[k0 - 1][0]), index.lookup(p.words[k0 - 1][1])), wide)
        d = k0 - 1
    for k in range(d - 1, -1, -1):
        if sixteen:
            product = _mul_wide16(acc, y)
        else:
            product = _mul_small(acc, t) if k + 1 >= p.small_from else _mul_wide(acc, t)
        acc = add64((index.lookup(p.words[k][0]), index.lookup(p.words[k][1])), product)
    return acc


def _split(runs: Sequence[Run], m: W[V], e: W[V]) -> tuple[W[V], W[V], W[V]]:
    """(interval index, T, the 32 bits below T) of |x| = m * 2**(e - 150)."""
    s0 = runs[0].shift
    shift = e + (s0 - 118)  # x * 2**(32 + s) = m * 2**(e - 118 + s)
    offset: W[V] | int = 0
    first = 0
    for before, run in zip(runs, runs[1:]):
        first += len(before.points())
        c = e.ge(127 + run.start.numerator.bit_length() - run.start.denominator.bit_length())
        shift = sel(c, e + (run.shift - 118), shift)
        offset = sel(c, first - int(run.start * (1 << run.shift)), offset)
    left = e.ge(118 - s0)
    r = (118 - s0) - e
    index = sel(left, ((m >> 1) >> (31 - shift)) + offset, 0)
    t = sel(left, m << shift, sel(r.lt(32), m >> r, 0))
    below = sel(left, 0, m << (32 - r))
    return index, t, below


def _correction(p: Polynomials, t: W[V], below: W[V]) -> W[V]:
    """|2 a_2 tau dtau| * 2**63 for T truncated by `below` / 2**32 (T < 2**23 there)."""
    c = _round(abs(p.a2), 40)
    bits = c.bit_length()
    product = (t >> 7) * (below >> 16)  # ~ T * below / 2**23
    return ((product >> bits) * c) >> (32 - bits)


def odd_function(fmt: Format, a: W[V], p: Polynomials, runs: Sequence[Run]) -> W[V]:
    """f(a) of format `fmt`, correctly rounded, for an odd f in (-1, 1) tabulated by
    `p` on `runs` (f = +-1 from the last run's end; f(+-0) = +-0; NaN canonical)."""
    x = to_f32(fmt, a)
    sign = x >> 31
    mag = x & 0x7FFF_FFFF
    e = mag >> 23
    m = (mag & 0x7F_FFFF) | (e.ne(0) << 23)
    index, t, below = _split(runs, m, e)
    sixteen = fmt.width == 16
    h = horner(p, index, t, sixteen)
    mn, eb = unpack(F32, mag)
    mn = mn << 8
    if sixteen:  # a 16-bit significand: 2 * x * H_0 by a 16-bit product
        va = mul_u16(h, mn >> 16)
    else:
        corr = _correction(p, t, below)
        h = (h[0] - h[1].lt(corr), h[1] - corr) if p.a2 < 0 else _add_word(h, corr)
        hi, lo = mul32(h[0], mn)
        va = _add_word((hi, lo), mulhi32(h[1], mn))
    # interval 0: 2 * x * H_0 (the significand with its leading 1 at bit 31)
    first = index.eq(0)
    v = (sel(first, va[0], h[0]), sel(first, va[1], h[1]))
    base = sel(first, eb + (fmt.bias - 125), EB + fmt.bias)
    lz = v[0].clz()
    sig = (v[0] << lz) | ((v[1] >> 1) >> (31 - lz)) | (v[1] << lz).ne(0)
    res = round_pack(fmt, sig, sign, base - lz)
    saturated = _pattern(runs[-1].end)
    res = sel(mag.ge(saturated), (sign << (fmt.width - 1)) | fmt.one, res)
    res = sel(mag.eq(0), sign << (fmt.width - 1), res)
    return sel(mag.gt(F32.inf), fmt.nan, res)


def _pattern(value: Fraction) -> int:
    """The F32 pattern of a value of 24 significant bits or fewer."""
    e = value.numerator.bit_length() - value.denominator.bit_length()
    e = e if value >= Fraction(2) ** e else e - 1
    m = value / Fraction(2) ** e * (1 << 23)
    assert m.denominator == 1 and 1 << 23 <= m < 1 << 24
    return ((e + 127) << 23) | (int(m) & 0x7F_FFFF)
