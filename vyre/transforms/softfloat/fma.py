"""Strict fused multiply-add a * b + c with ONE rounding, every format directly.

The exact product and the addend are aligned, the one with the smaller
exponent shifted right with jamming (every bit shifted out OR-ed into bit 0),
added or subtracted, normalised and rounded once by `round_pack` of the format:

- F16 and BF16: the product of two significands has at most 22 bits, so the
  whole sum fits one u32 word: the product normalised to bit 29 and the addend
  at bit 29 (the sum stays below 2**31);
- F32: the product has 48 bits, so values are 64-bit (hi, lo) pairs: the
  product at bit 60 (or 61), the addend at bit 60; |sum| < 2**63, so bit 63 of a
  difference is its sign.

Significands are taken as stored (a subnormal keeps its leading zeros, with
exponent 1) and the final `clz` normalises whatever the sum is. Why the jam bit
is enough: it is lossy only when the smaller value is shifted by 2 or more
places; the larger value then has its leading 1 at most k places below the top
position (k <= 23: a subnormal addend or factor), the sum or difference at most
k + 2 places below it, so normalisation moves the jam bit up by at most k + 2
places, still below the round bit (bit 39 of the F32 sum, bit 20 of F16's, 23
of BF16's after normalisation), and the jammed and the exact smaller value round
alike. A zero addend is given the smallest exponent, so it is never the larger.
"""

from __future__ import annotations

from typing import TypeVar

from vyre.dialects import vyre as d
from vyre.transforms.softfloat.formats import EB, F32, Format
from vyre.transforms.softfloat.machine import W, sel
from vyre.transforms.softfloat.registry import algorithm
from vyre.transforms.softfloat.mul import significand
from vyre.transforms.softfloat.pack import round_pack
from vyre.transforms.softfloat.wide import add64, neg64, normalize64, shr_jam64, sub64

__all__ = ["fma"]

V = TypeVar("V")


def _specials(fmt: Format, res: W[V], ax: W[V], bx: W[V], cx: W[V], c: W[V], sp: W[V], sc: W[V]) -> W[V]:
    """The result where an operand is zero, infinite or NaN, in increasing priority."""
    za, zb, zc = ax.eq(0), bx.eq(0), cx.eq(0)
    ia, ib, ic = ax.eq(fmt.inf), bx.eq(fmt.inf), cx.eq(fmt.inf)
    zero_product, inf_product = za | zb, ia | ib
    signed_zero = (sp & sc) << (fmt.width - 1)  # -0 only if both the product and c are -0
    res = sel(zero_product, sel(zc, signed_zero, c), res)
    res = sel(ic, c, res)
    res = sel(inf_product, (sp << (fmt.width - 1)) | fmt.inf, res)
    nan = (
        ax.gt(fmt.inf) | bx.gt(fmt.inf) | cx.gt(fmt.inf)
        | (inf_product & zero_product)
        | (inf_product & ic & sp.ne(sc))
    )  # fmt: skip
    return sel(nan, fmt.nan, res)


def _narrow(fmt: Format, a: W[V], b: W[V], c: W[V]) -> W[V]:
    shift = fmt.width - 1
    sp, sc = (a ^ b) >> shift, c >> shift
    ax, bx, cx = a & fmt.abs_mask, b & fmt.abs_mask, c & fmt.abs_mask
    ma, ea = significand(fmt, ax)
    mb, eb = significand(fmt, bx)
    mc, ec = significand(fmt, cx)
    p = ma * mb  # exact: at most 2M + 2 bits, value p / 2**2M * 2**(ea + eb - 2 bias)
    lz = p.clz()
    # both as m / 2**29 * 2**(E - EB - bias)
    mp = p << (lz - 2)
    ep = ea + eb + (EB + 31 - 2 * fmt.fraction - fmt.bias) - lz
    mc = mc << (29 - fmt.fraction)
    ec = sel(cx.eq(0), 0, ec + EB)  # a zero addend is never the larger
    pbig = ep.ge(ec)
    x, y = sel(pbig, mp, mc), sel(pbig, mc, mp)
    exponent, sign = sel(pbig, ep, ec), sel(pbig, sp, sc)
    diff = ep - ec
    d = sel(pbig, diff, 0 - diff)
    d = sel(d.gt(31), 31, d)
    shifted = y >> d
    y = shifted | (shifted << d).ne(y)
    m = sel(sp.eq(sc), x + y, x - y)
    negative = m >> 31  # the larger exponent can hold the smaller value (a subnormal addend)
    m = sel(negative, 0 - m, m)
    lz = m.clz()
    res = round_pack(fmt, m << lz, sign ^ negative, exponent + 2 - lz)
    res = sel(m.eq(0), 0, res)  # exact cancellation: +0
    return _specials(fmt, res, ax, bx, cx, c, sp, sc)


def _f32(a: W[V], b: W[V], c: W[V]) -> W[V]:
    sp, sc = (a ^ b) >> 31, c >> 31
    ax, bx, cx = a & F32.abs_mask, b & F32.abs_mask, c & F32.abs_mask
    ma, ea = significand(F32, ax)
    mb, eb = significand(F32, bx)
    mc, ec = significand(F32, cx)
    # the exact 48-bit product from 16-bit halves and high bytes, as P << 14
    al, ah, bl, bh = ma & 0xFFFF, ma >> 16, mb & 0xFFFF, mb >> 16
    ll = al * bl
    top = ((ah * bh) << 16) + ah * bl + al * bh + (ll >> 16)  # P >> 16, exact
    p64 = (top >> 2, (top << 30) | ((ll & 0xFFFF) << 14))
    # both as X / 2**60 * 2**(E - EB - 127)
    ep = ea + eb + (EB - 127)
    c64 = (mc << 5, c.const(0))
    ec = sel(cx.eq(0), 0, ec + EB)  # a zero addend is never the larger
    pbig = ep.ge(ec)
    big = (sel(pbig, p64[0], c64[0]), sel(pbig, p64[1], c64[1]))
    small = (sel(pbig, c64[0], p64[0]), sel(pbig, c64[1], p64[1]))
    exponent, sign = sel(pbig, ep, ec), sel(pbig, sp, sc)
    diff = ep - ec
    small = shr_jam64(small, sel(pbig, diff, 0 - diff))
    total, difference = add64(big, small), sub64(big, small)
    same = sp.eq(sc)
    r = (sel(same, total[0], difference[0]), sel(same, total[1], difference[1]))
    negative = r[0] >> 31
    flipped = neg64(r)
    r = (sel(negative, flipped[0], r[0]), sel(negative, flipped[1], r[1]))
    m, lz = normalize64(r)
    res = round_pack(F32, m, sign ^ negative, exponent + 3 - lz)
    res = sel((r[0] | r[1]).eq(0), 0, res)  # exact cancellation: +0
    return _specials(F32, res, ax, bx, cx, c, sp, sc)


@algorithm(d.FmaOp)
def fma(fmt: Format, a: W[V], b: W[V], c: W[V]) -> W[V]:
    """a * b + c of format `fmt` (patterns of `fmt`), rounded once."""
    return _f32(a, b, c) if fmt is F32 else _narrow(fmt, a, b, c)
