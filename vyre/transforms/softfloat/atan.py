"""atan and atan2, correctly rounded, for every format, in 64- or 96-bit fixed
point on exact integers.

Both are the angle of a point: atan(x) is atan2(x, 1). The operands (F16/BF16
widened exactly to F32) fold into the first octant: with A = min(|y|, |x|) and
B = max(|y|, |x|), z = A / B is in [0, 1] and the angle is OFF +- atan(z) with
OFF in {0, pi/2, pi} (Annex F's zeros and infinities are the limits z = 0 and
z = 1 of the same formulas). With A = mA 2**-d and B = mB (24-bit significands):

1. two exact rotations: c1 = j / 128 (j = round(128 z) from a 16-bit
   reciprocal of mB) and c2 = k / 2**15 (k = round(2**15 t1) likewise): the
   integers N1 = 128 mA - j mB 2**d, D1 = 128 mB 2**d + j mA, then
   N2 = 2**15 N1 - k D1, D2 = 2**15 D1 + k N1, all exact in 64 bits (d <= 15),
   give atan(z) = atan(c1) + atan(c2) + atan(N2 / D2) with |N2 / D2| <= 2**-16;
   for d >= 16 (z < 2**-15) no rotation is needed: t = z;
2. the quotient t = N2 / D2 by long division: a 32-bit reciprocal of D2 (a 16-bit
   seed and one Newton step on the full divisor) estimates 22-bit quotient
   digits, the remainders are exact, a digit is at most two short (the next one
   makes up for it);
3. atan(t) = t (1 - t**2 / 3 + t**4 / 5) with t's own exponent (relative
   precision, however small t is);
4. atan(c1) and atan(c2) come from tables, each entry kept in its own binary
   frame (a fixed point whose top bit is 2**(e + 1) for the entry's exponent e),
   so the sum has the relative precision of the result; it is normalised and
   folded into its octant (pi/2 - R, pi - R, pi/2 + R in a frame with top bit 4).

The significand, with a relative error of about 2**-60 (two words) or 2**-88
(three), is rounded once to the target format by `round_pack`. F32 atan2 uses
three words: bivariate, it cannot be checked exhaustively, and its known
hardest cases need about 77 bits; everything else uses two. Exact cases
(atan(+-0) = +-0, atan2 of zeros) are exact; an exact quotient t below the
rounding precision (a tiny ratio y / x that is a midpoint) rounds down, as
atan(t) < t says.
"""

from __future__ import annotations

from typing import TypeVar

from vyre.dialects import vyre as d
from vyre.transforms.softfloat import arcs
from vyre.transforms.softfloat import multiword as mw
from vyre.transforms.softfloat.div import reciprocal
from vyre.transforms.softfloat.fixed import mul32
from vyre.transforms.softfloat.formats import EB, F32, Format
from vyre.transforms.softfloat.machine import W, sel
from vyre.transforms.softfloat.pack import round_pack, to_f32, unpack
from vyre.transforms.softfloat.registry import algorithm

__all__ = ["EXCEPTIONS", "EXCEPTIONS2", "PI_FRAMES", "XB", "angle", "fatan", "fatan2", "round_frame"]

V = TypeVar("V")
Words = mw.Words

J_BITS = 7
"""c1 = j / 2**J_BITS, j in 0..128."""
K_BITS = 15
"""c2 = k / 2**K_BITS, k in 0..131."""
R3_D = 16
"""Exponent gap from which z < 2**-15 is used as it is (no rotation)."""
XB = 4096
"""Offset of the exponents of intermediate values (kept positive in u32)."""


def _exponent(i: int) -> int:
    return i.bit_length() - 1


def _tables(bits: int, count: int) -> dict[int, tuple[int, ...]]:
    """atan(i / 2**bits) for i = 0..count - 1, each in its own frame (exponent
    floor(log2 i) - bits; entry 0 is 0), as two- and three-word integers."""
    values = tuple(arcs.atan_fixed(i, 1 << bits) for i in range(count))
    exponents = tuple(_exponent(i) - bits if i else 0 for i in range(count))
    return {n: arcs.frame_table(values, 32 * n, exponents) for n in (2, 3)}


_ATAN_J, _ATAN_K = _tables(J_BITS, 129), _tables(K_BITS, 133)
_TABLES: dict[int, tuple[tuple[int, ...], tuple[int, ...]]] = {
    n: (_ATAN_J[n], _ATAN_K[n]) for n in (2, 3)
}
"""Per word count: atan(j / 128) for j = 0..128 and atan(k / 2**15) for k = 0..132."""

EXCEPTIONS: dict[str, tuple[tuple[int, int], ...]] = {"f32": (), "f16": (), "bf16": ()}
"""atan: (input pattern, result pattern) the fixed-point path rounds the wrong way."""

EXCEPTIONS2: dict[str, tuple[tuple[int, int, int], ...]] = {"f32": (), "f16": (), "bf16": ()}
"""atan2: (y pattern, x pattern, result pattern) likewise."""


def _quotient(a2: Words[V], dn: Words[V], digits: tuple[int, ...], n: int) -> Words[V]:
    """floor(a2 * 2**sum(digits) / dn), a few units short, as n words, for dn
    (two words) in [2**61, 2**62) and a2 < 3 dn. Each digit is estimated from
    the remainder's top word and y2 ~ 2**93 / dn (at most two short); the
    remainder is exact (below 3 dn < 2**64, so computed modulo 2**64)."""
    y = reciprocal(dn[0] >> 6) - 1  # < 2**77 / dn, within 3.02 units (16 bits)
    res = mw.neg(mw.mul_small(dn, y))  # 2**77 - dn * y, exact (< 2**63.6)
    y2 = (y << 16) + ((y * (res[0] >> 16)) >> 13)  # ~ 2**93 / dn from below, 2**-26 relative
    r = a2
    q_acc: Words[V] | None = None
    for i, k in enumerate(digits):
        q = mw.mulhi_word(r[0], y2) >> (29 - k)  # floor(r 2**k / dn) or up to two less
        if i + 1 < len(digits):
            hi, lo = mul32(q, dn[1])
            r = mw.sub(_shl_const(r, k), (hi + q * dn[0], lo))  # exact: below 3 dn
        if q_acc is None:
            q_acc = tuple(q.const(0) for _ in range(n - 1)) + (q,)
        else:
            q_acc = mw.add_word(_shl_const(q_acc, k), q)
    assert q_acc is not None
    return q_acc


def _shl_const(a: Words[V], s: int) -> Words[V]:
    out = [(a[i] << s) | (a[i + 1] >> (32 - s)) for i in range(len(a) - 1)]
    return tuple(out) + (a[-1] << s,)


def _atan_poly(t: Words[V], et: W[V], n: int) -> Words[V]:
    """T (1 - w / 3 + w**2 / 5) - 1 for t = T / 2**(32 n - 1) * 2**-et (T
    normalised, |t| <= 2**-15): w = t**2, in T's units (two words: w**2 / 5 <
    2**-62 is left out). With Tn = T / 2**(32 n - 1) in [1, 2), T w / 3 =
    corr * 2**(2 - 2 et) for corr ~ T Tn**2 / 3 * 2**(30 - 32 (n - 1))."""
    th = t[0]
    if n == 2:
        sq = mw.mulhi_word(th, th)  # ~ Tn**2 * 2**30
        corr = mul32(th, mw.mulhi_word(sq, sq.const(0x5555_5555)))
    else:
        top = (t[0], t[1])
        w2 = mw.mulhi(top, top, 2)  # ~ Tn**2 * 2**62, to 2**-62
        # w2 / 3 = w2 * 0x5555_5555 * (2**-32 + 2**-64 + ...), to 2**-60
        p = mw.mulhi(w2, (th.const(0x5555_5555),), 3)
        third = mw.add(p[:2], (th.const(0), p[0]))
        # w / 3 - w**2 / 5 in the units of third: w**2 / 5 = sq**2 / 5 * 2**(2 - 2 et) there
        sq = w2[0]
        fifth = mul32(sq, mw.mulhi_word(sq, sq.const(0x3333_3333)))
        inner = mw.sub(third, mw.shr(fifth, et + et - 2))
        corr = mw.mulhi(top, inner, 3, 2)  # to 2**-62 of itself
    return mw.sub(mw.sub(t, mw.shr(corr, et + et - 2)), mw.const(th, 1, n))


PI_FRAMES = {n: arcs.pi_fixed(32 * n - 3 - arcs.P) for n in (2, 3)}
"""pi as an n-word fixed point whose top bit is 4 (frame exponent 1)."""


def _rotations(ma: W[V], mb: W[V], gap: W[V]) -> tuple[Words[V], Words[V], W[V], W[V], W[V], W[V], W[V]]:
    """The exact rotations of (mb 2**gap, ma) by c1 = j / 128 and c2 = k / 2**15:
    (|N2|, D2, j, k, sign of N1, sign of N2, r3) with atan(ma / (mb 2**gap)) =
    atan(c1) + s1 (atan(c2) + s2 atan(|N2| / D2)); for r3 (gap >= 16) j = k = 0
    and N2 / D2 = ma / mb."""
    zero = ma.const(0)
    zq = (ma >> 8) * reciprocal(mb)  # ~ (ma / mb) 2**31, 2**-14 relative
    j = sel(gap.gt(8), 0, ((zq >> (gap + 23)) + 1) >> 1)  # round(128 z)
    r3 = gap.ge(R3_D)
    dd = sel(r3, 0, gap)
    x: Words[V] = ((mb >> 1) >> (31 - dd), mb << dd)
    n1 = mw.sub((zero, ma << 7), mw.mul_small(x, j))
    d1 = mw.add(_shl_const(x, 7), (zero, j * ma))
    s1 = n1[0] >> 31
    n1 = mw.negate_if(s1, n1)
    # k = round(2**15 t1): from z itself when j = 0, else from N1 / D1 (d1 < 2**39.1)
    dw = (d1[0] << 24) | (d1[1] >> 8)
    lz = dw.clz()
    yd = reciprocal((dw << lz) >> 8)
    nw = ((n1[0] << 24) | (n1[1] >> 8)) << lz
    k_rot = ((((nw >> 9) * yd) >> 22) + 1) >> 1
    k_z = ((zq >> (gap + 15)) + 1) >> 1
    k = sel(r3, 0, sel(j.ne(0), k_rot, k_z))
    n2 = mw.sub(_shl_const(n1, K_BITS), mw.mul_small(d1, k))
    d2 = mw.add(_shl_const(d1, K_BITS), mw.mul_small(n1, k))
    s2 = n2[0] >> 31
    return mw.negate_if(s2, n2), d2, j, k, s1, s2, r3


def angle(y: W[V], x: W[V], n: int) -> tuple[Words[V], W[V]]:
    """|atan2(y, x)| for F32 patterns y, x (not NaN) as (F, e): an n-word
    fixed-point number F whose top bit stands for 2**(e - XB + 1) (value F *
    2**(e - XB + 2 - 32 n)): the octant folding, the rotations, the quotient,
    atan of it and the sum."""
    ay, ax = y & 0x7FFF_FFFF, x & 0x7FFF_FFFF
    sx = x >> 31
    swap = ay.gt(ax)
    low, high = sel(swap, ax, ay), sel(swap, ay, ax)
    ma, ea = unpack(F32, low)
    mb, eb = unpack(F32, high)
    gap = eb - ea
    a2, d2, j, k, s1, s2, r3 = _rotations(ma, mb, gap)
    # the quotient |t| = tq / 2**(32 n - 1) * 2**-et
    sh = mw.clz(d2) - 2
    r0 = mw.shl(a2, sh + sel(r3, 0, 16))
    digits = (22, 22, 19) if n == 2 else (22, 22, 22, 22)
    q = _quotient(r0, mw.shl(d2, sh), digits, n)
    tq, lzq = mw.normalize(q)
    et = sel(r3, gap, 16) + lzq + (sum(digits) + 1 - 32 * n)
    a = _atan_poly(tq, et, n)
    # the sum in one frame: the octant's (top bit 4) when folded, else atan(c1)'s,
    # atan(c2)'s or atan(t)'s (each table entry is in the frame of its exponent)
    t1, t2 = _TABLES[n]
    folded = swap | sx
    has_j, has_k = j.ne(0), k.ne(0)
    e1 = (31 - j.clz()) + (XB - J_BITS)
    e2 = (31 - k.clz()) + (XB - K_BITS)
    e = sel(folded, XB + 1, sel(has_j, e1, sel(has_k, e2, XB - et)))
    nothing = mw.const(y, 0, n)
    term1 = mw.select(has_j, mw.shr_small(mw.lookup(t1, j, n), e - e1), nothing)
    term2 = mw.select(has_k, mw.shr_small(mw.lookup(t2, k, n), e - e2), nothing)
    term3 = mw.select(mw.is_zero(q), nothing, mw.shr(a, e + et + (1 - XB)))
    total = mw.add(term2, mw.negate_if(s2, term3))
    total = mw.add(term1, mw.negate_if(s1, total))
    zero_ratio = low.eq(0) | (high.eq(F32.inf) & low.ne(F32.inf))  # z = 0: R = 0
    total = mw.select(zero_ratio, nothing, total)
    off = mw.select(swap, mw.const(y, PI_FRAMES[n] >> 1, n), mw.const(y, PI_FRAMES[n], n))
    minus = swap ^ sx  # pi/2 - R or pi - R
    return mw.add(mw.select(folded, off, nothing), mw.negate_if(minus, total)), e


def round_frame(fmt: Format, total: Words[V], e: W[V], sign: W[V]) -> W[V]:
    """The pattern of (-1)**sign * F * 2**(e - XB + 2 - 32 n) for an n-word F
    (the frame convention of `angle`), rounded once to `fmt`; +-0 for F = 0."""
    sig, lz = mw.normalize(total)
    res = round_pack(fmt, mw.top32(sig), sign, e + (fmt.bias + EB + 1 - XB) - lz)
    return sel(mw.is_zero(total), sign << (fmt.width - 1), res)


def _core(fmt: Format, y: W[V], x: W[V], n: int) -> W[V]:
    """atan2(y, x) for F32 patterns y, x, rounded to `fmt`."""
    total, e = angle(y, x, n)
    res = round_frame(fmt, total, e, y >> 31)
    nan = (y & 0x7FFF_FFFF).gt(F32.inf) | (x & 0x7FFF_FFFF).gt(F32.inf)
    return sel(nan, fmt.nan, res)


@algorithm(d.FAtanOp)
def fatan(fmt: Format, a: W[V]) -> W[V]:
    """atan(a) of format `fmt`, correctly rounded (atan(+-0) = +-0, canonical NaN)."""
    res = _core(fmt, to_f32(fmt, a), a.const(F32.one), 2)
    for pattern, result in EXCEPTIONS[fmt.name]:
        res = sel(a.eq(pattern), result, res)
    return res


@algorithm(d.FAtan2Op)
def fatan2(fmt: Format, y: W[V], x: W[V]) -> W[V]:
    """atan2(y, x) of format `fmt`, correctly rounded, Annex F's special values."""
    res = _core(fmt, to_f32(fmt, y), to_f32(fmt, x), 3 if fmt is F32 else 2)
    for py, px, result in EXCEPTIONS2[fmt.name]:
        res = sel(y.eq(py) & x.eq(px), result, res)
    return res
