"""Strict F32 multiplication (float-strict.md §4.2): normalise both significands
to bit 31, take the exact 64-bit product as (mul_hi, low word), keep the high
word with the low word as a sticky bit, normalise by at most one bit, round once."""

from __future__ import annotations

from typing import TypeVar

from vyre.transforms.softfloat.formats import EB, F32
from vyre.transforms.softfloat.machine import W, sel
from vyre.transforms.softfloat.pack import round_pack, unpack
from vyre.transforms.softfloat.wide import mul_hi

__all__ = ["f32_mul"]

V = TypeVar("V")


def f32_mul(a: W[V], b: W[V]) -> W[V]:
    sign = (a ^ b) >> 31
    ax, bx = a & F32.abs_mask, b & F32.abs_mask
    ma, ea = unpack(F32, ax)
    mb, eb = unpack(F32, bx)
    ma, mb = ma << 8, mb << 8  # leading 1 at bit 31: the product is in [2**62, 2**64)
    hi = mul_hi(ma, mb)
    m = hi | (ma * mb).ne(0)
    lz = m.clz()  # 0 or 1
    res = round_pack(F32, m << lz, sign, ea + eb - (EB + 126) - lz)
    za, zb = ax.eq(0), bx.eq(0)
    ia, ib = ax.eq(F32.inf), bx.eq(F32.inf)
    res = sel(za | zb, sign << 31, res)
    res = sel(ia | ib, (sign << 31) | F32.inf, res)
    nan = ax.gt(F32.inf) | bx.gt(F32.inf) | (ia & zb) | (ib & za)
    return sel(nan, F32.nan, res)
