"""Strict fused multiply-add a * b + c with ONE rounding (float-strict.md §4.5).

The exact 48-bit product and the addend are placed in 64-bit (hi, lo) values
with their leading 1 at bit 60 (the product's may be at 61): P64 = P << 14,
C64 = mc << 37. The one with the smaller exponent is shifted right with jamming,
they are added or subtracted (|R| < 2**63, so bit 63 is the sign of a
difference), normalised, and rounded once by `round_pack` of the target format.

Jamming loses information only when the smaller value is shifted past its
trailing zeros (37 for C64, 14 for P64); then it is below 2**23 (2**47) against
a larger one of at least 2**60, normalisation moves by at most two bits, and the
jam bit stays far under the round bit.

F16 and BF16 use the same code on their exactly widened F32 values, with the
final rounding in their own format (a detour through an F32 rounding would round
twice, which is not innocuous for fma).
"""

from __future__ import annotations

from typing import TypeVar

from vyre.transforms.softfloat.formats import EB, F32, Format
from vyre.transforms.softfloat.machine import W, sel
from vyre.transforms.softfloat.pack import round_pack, to_f32, unpack
from vyre.transforms.softfloat.wide import add64, clz64, mul_hi, neg64, shl64, shr_jam64, sub64

__all__ = ["fma"]

V = TypeVar("V")


def fma(fmt: Format, a: W[V], b: W[V], c: W[V]) -> W[V]:
    """a * b + c of format `fmt` (patterns of `fmt`), rounded once."""
    c_in = c
    a, b, c = to_f32(fmt, a), to_f32(fmt, b), to_f32(fmt, c)
    sp = (a ^ b) >> 31
    sc = c >> 31
    ax, bx, cx = a & F32.abs_mask, b & F32.abs_mask, c & F32.abs_mask
    ma, ea = unpack(F32, ax)
    mb, eb = unpack(F32, bx)
    mc, ec = unpack(F32, cx)
    # product: exact 48 bits, value P / 2**46 * 2**(ea + eb - 2EB - 254)
    plo, phi = ma * mb, mul_hi(ma, mb)
    p64 = ((phi << 14) | (plo >> 18), plo << 14)
    ep = ea + eb - (EB + 127)  # both now value X / 2**60 * 2**(E - EB - 127)
    zc = cx.eq(0)
    c64 = (sel(zc, 0, mc << 5), c.const(0))
    ec = sel(zc, 0, ec)  # a zero addend is never the larger
    pbig = ep.ge(ec)
    big = (sel(pbig, p64[0], c64[0]), sel(pbig, p64[1], c64[1]))
    small = (sel(pbig, c64[0], p64[0]), sel(pbig, c64[1], p64[1]))
    exponent = sel(pbig, ep, ec)
    sign = sel(pbig, sp, sc)
    small = shr_jam64(small, sel(pbig, ep - ec, ec - ep))
    total = add64(big, small)
    difference = sub64(big, small)
    same = sp.eq(sc)
    r = (sel(same, total[0], difference[0]), sel(same, total[1], difference[1]))
    negative = r[0] >> 31
    flipped = neg64(r)
    r = (sel(negative, flipped[0], r[0]), sel(negative, flipped[1], r[1]))
    sign = sign ^ negative
    lz = clz64(r)
    n = shl64(r, lz)
    m = n[0] | n[1].ne(0)
    res = round_pack(fmt, m, sign, exponent + (3 + fmt.bias - F32.bias) - lz)
    res = sel((r[0] | r[1]).eq(0), 0, res)  # exact cancellation: +0
    # specials, in increasing priority
    za, zb = ax.eq(0), bx.eq(0)
    ia, ib, ic = ax.eq(F32.inf), bx.eq(F32.inf), cx.eq(F32.inf)
    zero_product = za | zb
    signed_zero = (sp & sc) << (fmt.width - 1)  # -0 only if both are -0
    res = sel(zero_product, sel(zc, signed_zero, c_in), res)
    res = sel(ic, c_in, res)
    res = sel(ia | ib, (sp << (fmt.width - 1)) | fmt.inf, res)
    nan = (
        ax.gt(F32.inf) | bx.gt(F32.inf) | cx.gt(F32.inf)
        | (ia & zb) | (ib & za)
        | ((ia | ib) & ic & sp.ne(sc))
    )  # fmt: skip
    return sel(nan, fmt.nan, res)
