"""Strict F32 division (float-strict.md §4.3): restoring division of the
normalised significands, 25 quotient bits (24 + the round bit) and the remainder
as the sticky bit, then one rounding. A quotient of two 24-bit significands is
never an exact tie, so the round and sticky bits carry all the information."""

from __future__ import annotations

from typing import TypeVar

from vyre.transforms.softfloat.formats import EB, F32
from vyre.transforms.softfloat.machine import W, sel
from vyre.transforms.softfloat.pack import round_pack, unpack

__all__ = ["QUOTIENT_BITS", "f32_div"]

V = TypeVar("V")

QUOTIENT_BITS = 25


def f32_div(a: W[V], b: W[V]) -> W[V]:
    sign = (a ^ b) >> 31
    ax, bx = a & F32.abs_mask, b & F32.abs_mask
    ma, ea = unpack(F32, ax)
    mb, eb = unpack(F32, bx)
    small = ma.lt(mb)
    r = ma << small  # now mb <= r < 2 mb: the quotient is in [1, 2)
    q = r.const(0)
    for _ in range(QUOTIENT_BITS):
        bit = r.ge(mb)
        r = sel(bit, r - mb, r)
        q = (q << 1) | bit
        r = r << 1
    m = (q << 7) | r.ne(0)
    res = round_pack(F32, m, sign, ea - eb + (EB + 127) - small)
    za, zb = ax.eq(0), bx.eq(0)
    ia, ib = ax.eq(F32.inf), bx.eq(F32.inf)
    res = sel(ib | za, sign << 31, res)  # x / inf, 0 / x
    res = sel(ia | zb, (sign << 31) | F32.inf, res)  # inf / x, x / 0
    nan = ax.gt(F32.inf) | bx.gt(F32.inf) | (za & zb) | (ia & ib)
    return sel(nan, F32.nan, res)
