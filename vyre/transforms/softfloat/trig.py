"""sin, cos and tan, correctly rounded, for every format, in 64-bit fixed point.

The argument (F16/BF16 widened exactly to F32 first, the sign set aside: sin
and tan are odd, cos is even) is reduced by Payne and Hanek: for |x| = m * 2**E
the product t = |x| * 256/pi needs only the window of 2/pi's bits that starts
at bit E - 1 (the bits before it add multiples of 512 to t, whole turns): 128
bits of 2/pi, read from a table of its bits, times the 24-bit m give t modulo
512 with 87 fraction bits. Rounded to the nearest integer N, t = N + g with
|g| <= 1/2, and |x| = q * pi/2 + j * pi/256 + h (q = N / 128 mod 4, the
quadrant; j = N mod 128; h = g * pi/256). The F32 input nearest a multiple of
pi/2 lies 2**-29.9 of a quadrant from it, so |g| >= 2**-22.9 wherever the
result is sin(h) itself, and 64 significant bits of h survive.

sin and cos of |x| are then +-sin(theta) or +-cos(theta), theta = j*pi/256 + h:

    sin(theta) = S_j cos(h) + C_j sin(h),   cos(theta) = C_j cos(h) - S_j sin(h),

with S_j = sin(j*pi/256) and C_j = S_(128-j) from tables of 129 entries. With
A the table value multiplying cos(h), B = K * h the other term and v = h**2/6,

    A cos(h) + B sin(h)/h = A + B - v((3A + B) - v((3A/2 + 3B/10) - v(3A/10 + 3B/70)))

to within 2**-66 (|h| <= pi/512, v < 2**-17): the first level is computed in
64 bits, the inner ones in 32 and 16 bits. Where the result is sin(h) itself
(j = 0, A = 0) the same formula runs on h scaled by a power of two, so that the
result keeps its relative accuracy. The value, accurate to about 2**-60, is
rounded once to the target format by `round_pack`. tan is sin(theta)/cos(theta)
(-cos/sin in odd quadrants): the quotient of the two normalised values by a
32-bit reciprocal and one correction step. |x| < 2**-12 gives x (sin, tan) and
1 (cos) directly: there the exact result rounds to them in every format.

`EXCEPTIONS` per function and format holds (input, result) pairs the
fixed-point path rounds the wrong way (found by exhaustive comparison with the
exact oracle).
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
from vyre.transforms.softfloat.registry import algorithm

__all__ = ["EXCEPTIONS", "fcos", "fsin", "ftan"]

V = TypeVar("V")
MASK = 0xFFFF_FFFF
_PREC = 320
"""Bits of the fixed-point computations of the constants."""


def _atan_inverse(n: int, bits: int) -> int:
    """atan(1/n) * 2**bits (n >= 2), to within a few units, from its series."""
    total, power, k = 0, (1 << bits) // n, 0
    while power:
        term = power // (2 * k + 1)
        total += -term if k & 1 else term
        power //= n * n
        k += 1
    return total


_PI = (16 * _atan_inverse(5, _PREC + 16) - 4 * _atan_inverse(239, _PREC + 16)) >> 16
"""pi * 2**_PREC (Machin's formula), to within a unit."""

_TWO_OVER_PI: tuple[int, ...] = tuple(
    ((1 << (_PREC + 256)) // _PI >> (288 - 32 * w)) & MASK for w in range(10)
)
"""floor(2/pi * 2**255) as ten words, most significant first: bit p of this
sequence is bit p - 64 of 2/pi's fraction (the first 64 bits are zeros)."""


def _sin_fixed(i: int) -> int:
    """sin(i * pi/256) * 2**_PREC, from the Taylor series in integers."""
    a = i * _PI >> 8
    total, term, k = 0, a, 1
    while term:
        total += -term if k % 2 == 0 else term
        term = term * a * a // ((2 * k) * (2 * k + 1)) >> (2 * _PREC)
        k += 1
    return total


def _fixed(value: Fraction, bits: int = 64) -> int:
    return round(value * 2**bits)


_SINES = tuple(Fraction(_sin_fixed(i), 1 << _PREC) for i in range(129))
_PI_Q = Fraction(_PI, 1 << _PREC)
_A4: tuple[int, ...] = tuple(_fixed(s / 4) + (1 if i == 0 else -3) for i, s in enumerate(_SINES))
"""sin(i * pi/256) / 4 as Q0.64, i = 0..128, less 3 units (plus 1 for i = 0): the
evaluation's truncations leave its value above the exact one by 0 to 6 units
(below by about 1 where the result is sin(h)); the bias centres the error."""
_KC: tuple[int, ...] = tuple(_fixed(s * _PI_Q / 8) for s in _SINES)
"""sin(i * pi/256) * pi/8 as Q0.64, i = 0..128: times |g| * 2**(55 + lz) it is
|B|/4 * 2**(lz - 2)."""
_KV = _fixed(_PI_Q**2 / 12)
"""pi**2/12 as Q0.64: times (2|g|)**2 it is v * 2**17."""
_PI4 = _fixed(_PI_Q / 4)
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
class _Reduced(Generic[V]):
    """|x| = q * pi/2 + j * pi/256 + h, h = g * pi/256."""

    q: W[V]
    """The quadrant, 0..3."""
    j: W[V]
    """The table index, 0..127."""
    neg: W[V]
    """1 where g < 0."""
    wide: Pair[V]
    """|g| * 2**(55 + lz): |g| normalised (leading 1 at bit 63) where j = 0."""
    lz: W[V]
    """10..31."""
    v: Pair[V]
    """h**2 / 6 as Q0.64 (< 2**-17)."""
    v17: W[V]
    """h**2 / 6 * 2**49 (the top word of v * 2**17)."""


@dataclass(frozen=True)
class _Value(Generic[V]):
    """sin(theta) or cos(theta) / 4 as Q0.64, times 2**(lz - 2) where `scaled`."""

    r4: Pair[V]
    scaled: W[V]


def _mulhi32(a: W[V], b: W[V] | int) -> W[V]:
    """floor(a * b / 2**32), less by at most 3 (the low partial product and the
    low halves of the middle ones are dropped)."""
    al, ah = a & 0xFFFF, a >> 16
    if isinstance(b, int):
        return ah * (b >> 16) + ((ah * (b & 0xFFFF)) >> 16) + ((al * (b >> 16)) >> 16)
    bl, bh = b & 0xFFFF, b >> 16
    return ah * bh + ((ah * bl) >> 16) + ((al * bh) >> 16)


def _mul32(a: W[V], b: W[V] | int) -> Pair[V]:
    """The full 64-bit product of two words (b may be a constant)."""
    al, ah = a & 0xFFFF, a >> 16
    if isinstance(b, int):
        bl, bh = a.const(b & 0xFFFF), a.const(b >> 16)
    else:
        bl, bh = b & 0xFFFF, b >> 16
    ll, lh, hl, hh = al * bl, al * bh, ah * bl, ah * bh
    mid = lh + hl
    lo = ll + (mid << 16)
    return hh + (mid >> 16) + (mid.lt(lh) << 16) + lo.lt(ll), lo


def _mulhi64(a: Pair[V], b: Pair[V] | int, bias: W[V] | int = 0) -> Pair[V]:
    """floor(a * b / 2**64) + bias, less by at most 8 (the dropped partial
    products); b may be a constant, below 2**64 - 2**37 where bias is nonzero."""
    ah, al = a
    bh, bl = (b >> 32, b & MASK) if isinstance(b, int) else b
    c1, c2 = _mulhi32(ah, bl), _mulhi32(al, bh)
    c2 = c2 if isinstance(bias, int) and not bias else c2 + bias
    c = c1 + c2
    return add64(_mul32(ah, bh), (c.lt(c1), c))


def _square(a: W[V]) -> Pair[V]:
    """The full 64-bit square of a word."""
    al, ah = a & 0xFFFF, a >> 16
    ll, lh, hh = al * al, al * ah, ah * ah
    lo = ll + (lh << 17)
    return hh + (lh >> 15) + lo.lt(ll), lo


def _funnel(hi: W[V], lo: W[V], sh: W[V]) -> W[V]:
    """The word of hi:lo starting sh bits below hi's top (0 <= sh < 32)."""
    return (hi << sh) | ((lo >> 1) >> (31 - sh))


def _neg_if(c: W[V], a: Pair[V]) -> Pair[V]:
    """-a (two's complement, 64 bits) where the 0/1 word c is 1, else a."""
    mask = 0 - c
    lo = (a[1] ^ mask) + c
    return (a[0] ^ mask) + lo.lt(c), lo


def _reduce(x: W[V]) -> _Reduced[V]:
    """Payne-Hanek: |x| * 256/pi modulo 512 in fixed point (finite |x| >= 2**-12)."""
    e = (x >> 23) & 0xFF
    m = (x & 0x7F_FFFF) | 0x80_0000
    p = e - 87  # where the window of 2/pi starts in the padded bit sequence
    w, sh = p >> 5, p & 31
    t = [(w + k if k else w).lookup(_TWO_OVER_PI) for k in range(5)]
    c3, c2, c1, c0 = (_funnel(t[k], t[k + 1], sh) for k in range(4))
    # P = m * C mod 2**128; t mod 512 = P / 2**119 (the low word is junk below bit 24)
    hi2, lo2 = _mul32(m, c2)
    hi1, lo1 = _mul32(m, c1)
    p1 = lo1 + _mulhi32(m, c0)
    s2 = lo2 + hi1
    p2 = s2 + p1.lt(lo1)
    p3 = m * c3 + hi2 + s2.lt(lo2) + p2.lt(s2)
    p3 = p3 + (1 << 22)  # round t to the nearest integer N
    n = p3 >> 23
    neg = ((p3 >> 22) & 1) ^ 1
    mask = 0 - neg
    g2, g1, g0 = (p3 ^ mask) & 0x3F_FFFF, p2 ^ mask, p1 ^ mask  # |g| * 2**87 (86 bits)
    lz = g2.clz()
    lz = sel(lz.gt(31), 31, lz)
    back = 32 - lz
    wide = ((g2 << lz) | (g1 >> back), (g1 << lz) | (g0 >> back))
    gx_hi, gx_lo = (g2 << 10) | (g1 >> 22), (g1 << 10) | (g0 >> 22)  # 2|g| as Q0.64
    # (2|g|)**2 and v * 2**17 = (2|g|)**2 * pi**2/12, to within 2**-46 (cross terms from 16-bit halves)
    cross = (gx_hi >> 16) * (gx_lo >> 16)
    sq_hi, sq_lo = add64(_square(gx_hi), (cross >> 31, cross << 1))
    kv_hi, kv_lo = _KV >> 32, _KV & MASK
    c1, c2 = (sq_hi >> 16) * (kv_lo >> 16), (sq_lo >> 16) * (kv_hi >> 16)
    c = c1 + c2
    v17 = add64(_mul32(sq_hi, kv_hi), (c.lt(c1), c))
    v = (v17[0] >> 17, (v17[1] >> 17) | (v17[0] << 15))
    return _Reduced(n >> 7, n & 127, neg, wide, lz, v, v17[0])


def _evaluate(r: _Reduced[V], odd: W[V] | int) -> _Value[V]:
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
    x = _mulhi64(r.wide, kc)
    k = r.lz - 2
    b = (sel(scaled, x[0], x[0] >> k), sel(scaled, x[1], (x[1] >> k) | (x[0] << (32 - k))))  # |B|/4
    mb = 0 - bneg
    # inner levels: J = 3A/10 + 3B/70 (Q0.32), I = 3A/2 + 3B/10 - v J (* 2**33)
    j32 = (a4[0] >> 16) * _C_J_A + ((((b[0] >> 16) * _C_J_B) ^ mb) - mb)
    i33 = a4[0] + (a4[0] << 1) + ((_mulhi32(b[0], _C_I_B) ^ mb) - mb) - ((r.v[0] * (j32 >> 16)) >> 15)
    vi = _mulhi32(r.v17, i33)  # v * I * 2**50
    bs = _neg_if(bneg, b)
    ab = add64(a4, bs)
    m4 = sub64(add64(ab, (a4[0] << 1 | a4[1] >> 31, a4[1] << 1)), (vi >> 18, vi << 14))
    return _Value(sub64(ab, _mul_v(r.v, m4)), scaled)


def _mul_v(v: Pair[V], m: Pair[V], bias: W[V] | int = 0) -> Pair[V]:
    """floor(v * m / 2**64) within 5, for v < 2**-16 (v's top word < 2**16) and
    m < 2**64 - 2**48 (so the two cross terms add without a carry)."""
    vh, vl = v
    mh, ml = m
    top = vh * (mh >> 16)
    low = vh * (mh & 0xFFFF)
    lo = (top << 16) + low
    hi = (top >> 16) + lo.lt(low)
    cross = ((vh * (ml >> 16)) >> 16) + _mulhi32(vl, mh)
    cross = cross if isinstance(bias, int) and not bias else cross + bias
    return add64((hi, lo), (vh.const(0), cross))


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
    r = _reduce(x)
    # theta = j pi/256 + h; past pi/4, tan(theta) = 1/tan(j' pi/256 - h) with j' = 128 - j
    past = r.j.gt(64)
    jj = sel(past, 128 - r.j, r.j)
    scaled = r.j.eq(0)
    tneg = (r.neg ^ past) & (scaled ^ 1)  # the sign of tau' = +-tan(h)
    tau = _tan_h(r, scaled)  # |tan h| / 2, times 2**(lz - 3) where scaled
    t = (jj.lookup(tuple(v >> 32 for v in _T2)), jj.lookup(tuple(v & MASK for v in _T2)))  # t/2
    tt = _mulhi64(t, (tau[0] << 1 | tau[1] >> 31, tau[1] << 1), (scaled ^ 1) << 2)  # t |tau| / 2, centred
    # tan(j' pi/256 + tau'-angle) = (t + tau') / (1 - t tau'), both halved
    num = _add_signed(tneg, t, tau)
    den = _add_signed(tneg ^ 1, (x.const(1 << 31), x.const(0)), tt)
    num_n, den_n = _normalised(num, scaled, r.lz), _normalised(den, x.const(0), r.lz)
    odd = r.q & 1
    top, bottom = _swap(past ^ odd, num_n, den_n)
    q = _divide(top[0], bottom[0])  # the quotient * 2**63, in (2**62, 2**64)
    n = q[0].clz()  # 0 or 1
    sig = (q[0] << n) | ((q[1] >> 1) >> (31 - n))
    sig = sig | (q[1] << n).ne(0)
    sign = (x >> 31) ^ odd ^ (scaled & r.neg)
    general = round_pack(fmt, sig, sign, top[1] - bottom[1] - n + (fmt.bias + EB))
    return _finish(fmt, a, x, general, a, "tan")


def _tan_h(r: _Reduced[V], scaled: W[V]) -> Pair[V]:
    """tan|h| / 2 as Q0.64 (times 2**(lz - 3) where `scaled`): |h| (1 + V) with
    V = 2v + 24/5 v**2 + 3672/315 v**3 (the next term is below 2**-64 |h|)."""
    hx = _mulhi64(r.wide, _PI4)  # |h| * 2**(lz - 3)
    k = r.lz - 3
    h = (sel(scaled, hx[0], hx[0] >> k), sel(scaled, hx[1], (hx[1] >> k) | (hx[0] << (32 - k))))
    vh, vl = r.v
    w = _mulhi32(r.v17, r.v17)  # v**2 * 2**66
    w23 = _mulhi32(w, _C_V2) + ((((w >> 16) * (r.v17 >> 16)) >> 16) * _C_V3 >> 17)
    # (24/5 v**2 + 3672/315 v**3) * 2**63
    big = add64((vh << 1 | vl >> 31, vl << 1), (w23 >> 31, w23 << 1))  # V * 2**64
    hv = _mul_v(big, h, sel(scaled, 11, 0))  # the scaled value comes out 5 to 17 units low
    tau = add64(h, hv)
    return tau[0] >> 1, (tau[1] >> 1) | (tau[0] << 31)


def _add_signed(minus: W[V], a: Pair[V], b: Pair[V]) -> Pair[V]:
    """a - b where the 0/1 word `minus` is 1, else a + b (64 bits)."""
    return add64(a, _neg_if(minus, b))


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
    r = _reduce(x)
    q = r.q + shift
    value = _evaluate(r, q & 1)
    sign = ((q >> 1) & 1) ^ (value.scaled & r.neg)
    if not shift:
        sign = sign ^ (x >> 31)
    general = _result(fmt, value, r.lz, sign)
    return _finish(fmt, a, x, general, fmt.one if shift else a, "cos" if shift else "sin")


def _recip_seed(i: int) -> tuple[int, int]:
    """(Y0, Y1) for d in [1/2 + i/512, 1/2 + (i + 1)/512): with f = (d - d_i) * 2**25,
    Y0 - floor(Y1 * f / 2**24) lies below 2**15/d, by at most three units (the
    tangent at the middle of the interval, lowered by two units)."""
    lo = Fraction(1, 2) + Fraction(i, 512)
    mid = lo + Fraction(1, 1024)
    slope = Fraction(2**15) / (mid * mid)  # -d(2**15/d)/dd at the middle
    return int(Fraction(2**15) / mid + slope * (mid - lo)) - 2, int(slope / 2)


_SEED: tuple[tuple[int, int], ...] = tuple(_recip_seed(i) for i in range(256))


def _divide(n: Pair[V], dv: Pair[V]) -> Pair[V]:
    """floor(n / dv * 2**63) within a few units, for n, dv with bit 63 set."""
    dh = dv[0]
    i = (dh >> 23) & 0xFF
    f = (dh >> 7) & 0xFFFF
    y = i.lookup(tuple(s[0] for s in _SEED)) - ((i.lookup(tuple(s[1] for s in _SEED)) * f) >> 24)
    # y = 2**15/d (1 - eps), 0 <= eps < 2**-13.3: n/d = n y (1 + eps + eps**2 + eps**3 + eps**4)
    e_hi, e_lo = sub64((dh.const(1 << 31), dh.const(0)), _mul16(dv, y))  # eps * 2**63
    e_hi, e_lo = (e_hi << 14) | (e_lo >> 18), e_lo << 14  # E = eps * 2**77
    cross = (e_hi >> 16) * (e_lo >> 16)
    e2 = add64(_square(e_hi), (cross >> 31, cross << 1))  # eps**2 * 2**90
    e34 = _mulhi32(e2[0], e_hi) + ((((e2[0] >> 16) * (e2[0] >> 16))) >> 13)  # (eps**3 + eps**4) * 2**71
    s = add64((e_hi, e_lo), (e2[0] >> 13, (e2[0] << 19) | (e2[1] >> 13)))
    s_hi, s_lo = add64(s, (e34 >> 26, e34 << 6))  # S = (eps + ... + eps**4) * 2**77
    ny = _mul16(n, y)  # n y * 2**63
    c1, c2 = _mulhi32(ny[0], s_lo), _mulhi32(ny[1], s_hi)
    c = c1 + c2
    p = add64(_mul32(ny[0], s_hi), (c.lt(c1), c))  # n y S * 2**76
    return add64(ny, (p[0] >> 13, (p[1] >> 13) | (p[0] << 19)))


def _mul16(a: Pair[V], y: W[V]) -> Pair[V]:
    """floor(a * y / 2**16) within 1, for a 64-bit a and y < 2**16."""
    ah, al = a
    hh, hl = (ah >> 16) * y, (ah & 0xFFFF) * y
    low = (al >> 16) * y + (((al & 0xFFFF) * y) >> 16)  # < 2**32
    lo = (hl << 16) + low
    return hh + (hl >> 16) + lo.lt(low), lo
