"""sin, cos and tan, correctly rounded, for every format, in 64-bit fixed point.

The argument (F16/BF16 widened exactly to F32 first, the sign set aside: sin
and tan are odd, cos is even) is reduced by Payne and Hanek
(`pi_reduction.py`): |x| = q * pi/2 + j * pi/256 + h with |h| <= pi/512, and
v = h**2/6 < 2**-17. |x| < 2**-12 gives x (sin, tan) and 1 (cos) directly: there
the exact result rounds to them in every format.

sin and cos of |x| are +-sin(theta) or +-cos(theta) with theta = j*pi/256 + h:

    sin(theta) = S_j cos(h) + C_j sin(h),   cos(theta) = C_j cos(h) - S_j sin(h),

S_j = sin(j*pi/256) and C_j = S_(128-j) from tables of 129 entries. With A the
table value multiplying cos(h) and B = K * h the other term,

    A cos(h) + B sin(h)/h = A + B - v((3A + B) - v((3A/2 + 3B/10) - v(3A/10 + 3B/70)))

to within 2**-66: the first level is computed in 64 bits, the inner ones in 32
and 16 bits (the tables hold A/4 and K * pi/8, so that B/4 is one product with
the normalised g). Where the result is sin(h) itself (j = 0, A = 0) the same
formula runs on h scaled by a power of two, so that the result keeps its
relative accuracy.

tan of |x| is +-T or -+1/T with T = tan(j' pi/256 +- h) = (t + tau)/(1 - t tau),
j' = j or 128 - j (past pi/4: tan(theta) = 1/tan(pi/2 - theta)), t = tan(j' pi/256)
from a table of 65 entries, tau = tan(+-h) = h (1 + 2v + 24/5 v**2 + 3672/315 v**3)
(scaled where j = 0), and one quotient (`quotient.py`).

Each value, accurate to about 2**-60 (the truncated products' errors centred by
biases in the tables and products), is rounded once to the target format by
`round_pack`: no result is an F32 result rounded again. `EXCEPTIONS` per
function and format holds (input, result) pairs the fixed-point path rounds the
wrong way (found by exhaustive comparison with the exact oracle).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Generic, TypeVar

from vyre.dialects import vyre as d
from vyre.transforms.softfloat.fixed import Pair, add64, sub64
from vyre.transforms.softfloat.formats import EB, Format
from vyre.transforms.softfloat.machine import W, sel
from vyre.transforms.softfloat.pack import round_pack, to_f32
from vyre.transforms.softfloat.pi_reduction import PI, Reduced, reduce_argument
from vyre.transforms.softfloat.quotient import divide
from vyre.transforms.softfloat.registry import algorithm
from vyre.transforms.softfloat.truncated import mul_small, mulhi32, mulhi64, neg_if

__all__ = ["EXCEPTIONS", "fcos", "fsin", "ftan"]

V = TypeVar("V")
MASK = 0xFFFF_FFFF
_PREC = 320
"""Bits of the fixed-point computation of the tables."""


def _sin_fixed(i: int) -> int:
    """sin(i * pi/256) * 2**_PREC, from the Taylor series in integers."""
    a = i * PI.numerator * (1 << _PREC) // (PI.denominator << 8)
    total, term, k = 0, a, 1
    while term:
        total += -term if k % 2 == 0 else term
        term = term * a * a // ((2 * k) * (2 * k + 1)) >> (2 * _PREC)
        k += 1
    return total


def _fixed(value: Fraction, bits: int = 64) -> int:
    return round(value * 2**bits)


_SINES = tuple(Fraction(_sin_fixed(i), 1 << _PREC) for i in range(129))
_A4: tuple[int, ...] = tuple(_fixed(s / 4) + (1 if i == 0 else -3) for i, s in enumerate(_SINES))
"""sin(i * pi/256) / 4 as Q0.64, i = 0..128, less 3 units (plus 1 for i = 0): the
evaluation's truncations leave its value above the exact one by 0 to 6 units
(below by about 1 where the result is sin(h)); the bias centres the error."""
_KC: tuple[int, ...] = tuple(_fixed(s * PI / 8) for s in _SINES)
"""sin(i * pi/256) * pi/8 as Q0.64, i = 0..128: times |g| * 2**(55 + lz) it is
|B|/4 * 2**(lz - 2)."""
_PI4 = _fixed(PI / 4)
"""pi/4 as Q0.64: times |g| * 2**(55 + lz) it is |h| * 2**(lz - 3)."""
_T2: tuple[int, ...] = (0,) + tuple(
    _fixed(s / c / 2) for s, c in zip(_SINES[1:65], reversed(_SINES[64:128]), strict=True)
)
"""tan(j * pi/256) / 2 as Q0.64, j = 0..64."""
_C_V2 = _fixed(Fraction(24, 5) / 8, 32)
_C_V3 = _fixed(Fraction(3672, 315), 13)
"""tan's inner coefficients: 24/5 / 8 to 32 bits, 3672/315 to 13 fraction bits."""
_C_J_A = _fixed(Fraction(3, 10), 16)
_C_J_B = _fixed(Fraction(3, 70), 16)
_C_I_B = _fixed(Fraction(6, 10), 32)
"""The inner coefficients (3/10 and 3/70 to 16 bits, 2 * 3/10 to 32 bits)."""

EXCEPTIONS: dict[str, dict[str, tuple[tuple[int, int], ...]]] = {
    name: {"f32": (), "f16": (), "bf16": ()} for name in ("sin", "cos", "tan")
}
"""(input pattern, result pattern) the fixed-point path rounds the wrong way,
per function and format (found by exhaustive comparison with the exact oracle)."""


@dataclass(frozen=True)
class _Value(Generic[V]):
    """sin(theta) or cos(theta) / 4 as Q0.64, times 2**(lz - 2) where `scaled`."""

    r4: Pair[V]
    scaled: W[V]


def _evaluate(r: Reduced[V], odd: W[V] | int) -> _Value[V]:
    """sin(theta) (odd = 0) or cos(theta) (odd = 1), as `_Value`."""
    if isinstance(odd, int):
        ia, ik = (128 - r.j, r.j) if odd else (r.j, 128 - r.j)
        scaled = r.j.const(0) if odd else r.j.eq(0)
        bneg = r.neg ^ 1 if odd else r.neg & (scaled ^ 1)
    else:
        ia, ik = sel(odd, 128 - r.j, r.j), sel(odd, r.j, 128 - r.j)
        scaled = r.j.eq(0) & (odd ^ 1)
        bneg = (r.neg ^ odd) & (scaled ^ 1)
    a4 = (ia.lookup(tuple(a >> 32 for a in _A4)), ia.lookup(tuple(a & MASK for a in _A4)))
    kc = (ik.lookup(tuple(k >> 32 for k in _KC)), ik.lookup(tuple(k & MASK for k in _KC)))
    x = mulhi64(r.wide, kc)
    k = r.lz - 2
    b = (sel(scaled, x[0], x[0] >> k), sel(scaled, x[1], (x[1] >> k) | (x[0] << (32 - k))))  # |B|/4
    mb = 0 - bneg
    # inner levels: J = 3A/10 + 3B/70 (Q0.32), I = 3A/2 + 3B/10 - v J (* 2**33)
    j32 = (a4[0] >> 16) * _C_J_A + ((((b[0] >> 16) * _C_J_B) ^ mb) - mb)
    i33 = a4[0] + (a4[0] << 1) + ((mulhi32(b[0], _C_I_B) ^ mb) - mb) - ((r.v[0] * (j32 >> 16)) >> 15)
    vi = mulhi32(r.v17, i33)  # v * I * 2**50
    bs = neg_if(bneg, b)
    ab = add64(a4, bs)
    m4 = sub64(add64(ab, (a4[0] << 1 | a4[1] >> 31, a4[1] << 1)), (vi >> 18, vi << 14))
    return _Value(sub64(ab, mul_small(r.v, m4)), scaled)


def _result(fmt: Format, value: _Value[V], lz: W[V], sign: W[V]) -> W[V]:
    """The value rounded to `fmt` with `sign`."""
    hi, lo = value.r4
    n = hi.clz()  # 1..10
    sig = (hi << n) | (lo >> (32 - n))
    sig = sig | (lo << n).ne(0)
    eb = sel(value.scaled, (fmt.bias + EB + 3) - n - lz, (fmt.bias + EB + 1) - n)
    return round_pack(fmt, sig, sign, eb)


def _finish(fmt: Format, a: W[V], x: W[V], general: W[V], small: W[V] | int, name: str) -> W[V]:
    """Specials around the general path's result: |x| < 2**-12 -> `small`,
    infinities and NaN -> NaN, then the exceptions."""
    e = (x >> 23) & 0xFF
    res = sel(e.lt(115), small, general)
    res = sel(e.eq(255), fmt.nan, res)
    for pattern, result in EXCEPTIONS[name][fmt.name]:
        res = sel(a.eq(pattern), result, res)
    return res


@algorithm(d.FSinOp)
def fsin(fmt: Format, a: W[V]) -> W[V]:
    """sin(a) of format `fmt`, correctly rounded (sin(+-0) = +-0, sin(+-inf) = NaN)."""
    return _sin_cos(fmt, a, 0)


@algorithm(d.FCosOp)
def fcos(fmt: Format, a: W[V]) -> W[V]:
    """cos(a) of format `fmt`, correctly rounded (cos(+-0) = 1, cos(+-inf) = NaN)."""
    return _sin_cos(fmt, a, 1)


@algorithm(d.FTanOp)
def ftan(fmt: Format, a: W[V]) -> W[V]:
    """tan(a) of format `fmt`, correctly rounded (tan(+-0) = +-0, tan(+-inf) = NaN)."""
    x = to_f32(fmt, a)
    r = reduce_argument(x)
    # theta = j pi/256 + h; past pi/4, tan(theta) = 1/tan(j' pi/256 - h) with j' = 128 - j
    past = r.j.gt(64)
    jj = sel(past, 128 - r.j, r.j)
    scaled = r.j.eq(0)
    tneg = (r.neg ^ past) & (scaled ^ 1)  # the sign of tau' = +-tan(h)
    tau = _tan_h(r, scaled)  # |tan h| / 2, times 2**(lz - 3) where scaled
    t = (jj.lookup(tuple(v >> 32 for v in _T2)), jj.lookup(tuple(v & MASK for v in _T2)))  # t/2
    tt = mulhi64(t, (tau[0] << 1 | tau[1] >> 31, tau[1] << 1), (scaled ^ 1) << 2)  # t |tau| / 2, centred
    # tan(j' pi/256 + tau'-angle) = (t + tau') / (1 - t tau'), both halved
    num = _add_signed(tneg, t, tau)
    den = _add_signed(tneg ^ 1, (x.const(1 << 31), x.const(0)), tt)
    num_n, den_n = _normalised(num, scaled, r.lz), _normalised(den, x.const(0), r.lz)
    odd = r.q & 1
    top, bottom = _swap(past ^ odd, num_n, den_n)
    q = divide(top[0], bottom[0])  # the quotient * 2**63, in (2**62, 2**64)
    n = q[0].clz()  # 0 or 1
    sig = (q[0] << n) | ((q[1] >> 1) >> (31 - n))
    sig = sig | (q[1] << n).ne(0)
    sign = (x >> 31) ^ odd ^ (scaled & r.neg)
    general = round_pack(fmt, sig, sign, top[1] - bottom[1] - n + (fmt.bias + EB))
    return _finish(fmt, a, x, general, a, "tan")


def _tan_h(r: Reduced[V], scaled: W[V]) -> Pair[V]:
    """tan|h| / 2 as Q0.64 (times 2**(lz - 3) where `scaled`): |h| (1 + V) with
    V = 2v + 24/5 v**2 + 3672/315 v**3 (the next term is below 2**-64 |h|)."""
    hx = mulhi64(r.wide, _PI4)  # |h| * 2**(lz - 3)
    k = r.lz - 3
    h = (sel(scaled, hx[0], hx[0] >> k), sel(scaled, hx[1], (hx[1] >> k) | (hx[0] << (32 - k))))
    vh, vl = r.v
    w = mulhi32(r.v17, r.v17)  # v**2 * 2**66
    w23 = mulhi32(w, _C_V2) + ((((w >> 16) * (r.v17 >> 16)) >> 16) * _C_V3 >> 17)
    # (24/5 v**2 + 3672/315 v**3) * 2**63
    big = add64((vh << 1 | vl >> 31, vl << 1), (w23 >> 31, w23 << 1))  # V * 2**64
    hv = mul_small(big, h, sel(scaled, 11, 0))  # the scaled value comes out 5 to 17 units low
    tau = add64(h, hv)
    return tau[0] >> 1, (tau[1] >> 1) | (tau[0] << 31)


def _add_signed(minus: W[V], a: Pair[V], b: Pair[V]) -> Pair[V]:
    """a - b where the 0/1 word `minus` is 1, else a + b (64 bits)."""
    return add64(a, neg_if(minus, b))


def _normalised(value: Pair[V], scaled: W[V], lz: W[V]) -> tuple[Pair[V], W[V]]:
    """(m, e): value / 2**64 (times 2**(3 - lz) where `scaled`) is m / 2**64 *
    2**(e - 1024), m with its leading 1 at bit 63."""
    hi, lo = value
    n = hi.clz()  # 0..10
    m = ((hi << n) | ((lo >> 1) >> (31 - n)), lo << n)
    return m, sel(scaled, (EB + 3) - n - lz, EB - n)


def _swap(c: W[V], a: tuple[Pair[V], W[V]], b: tuple[Pair[V], W[V]]) -> tuple[tuple[Pair[V], W[V]], tuple[Pair[V], W[V]]]:
    """(b, a) where the 0/1 word c is 1, else (a, b)."""
    first = ((sel(c, b[0][0], a[0][0]), sel(c, b[0][1], a[0][1])), sel(c, b[1], a[1]))
    second = ((sel(c, a[0][0], b[0][0]), sel(c, a[0][1], b[0][1])), sel(c, a[1], b[1]))
    return first, second


def _sin_cos(fmt: Format, a: W[V], shift: int) -> W[V]:
    x = to_f32(fmt, a)
    r = reduce_argument(x)
    q = r.q + shift
    value = _evaluate(r, q & 1)
    sign = ((q >> 1) & 1) ^ (value.scaled & r.neg)
    if not shift:
        sign = sign ^ (x >> 31)
    general = _result(fmt, value, r.lz, sign)
    return _finish(fmt, a, x, general, fmt.one if shift else a, "cos" if shift else "sin")
