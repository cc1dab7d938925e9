"""Strict F32 addition and subtraction (float-strict.md §4.1): order the operands
by magnitude, align the smaller with 7 guard bits and a sticky ("jam") bit, add
or subtract the significands, normalise, round once with `round_pack`.

Why the jam bit is enough: with an alignment shift d >= 2 the difference keeps
its leading 1 at bit 30 or 29, so normalisation shifts left by at most 2 and the
jam bit stays below the round bit; the jammed subtrahend and the exact one lie
in the same interval of jam-bit units, so both round alike. Results that are
subnormal are exact (both operands are multiples of 2**-149).
"""

from __future__ import annotations

from typing import TypeVar

from vyre.transforms.softfloat.formats import EB, F32
from vyre.transforms.softfloat.machine import W, sel
from vyre.transforms.softfloat.pack import round_pack

__all__ = ["f32_add", "f32_sub"]

V = TypeVar("V")


def f32_add(a: W[V], b: W[V]) -> W[V]:
    ax, bx = a & F32.abs_mask, b & F32.abs_mask
    swap = ax.lt(bx)
    x = sel(swap, b, a)
    xa, ya = sel(swap, bx, ax), sel(swap, ax, bx)
    sx = x >> 31
    ds = (a ^ b) >> 31  # effective subtraction
    ex, ey = xa >> 23, ya >> 23
    nx, ny = ex.ne(0), ey.ne(0)
    mx = ((xa & 0x7F_FFFF) | (nx << 23)) << 7  # leading 1 at bit 30, bit 31 free
    my = ((ya & 0x7F_FFFF) | (ny << 23)) << 7
    ex1, ey1 = ex + (nx ^ 1), ey + (ny ^ 1)  # subnormals have exponent 1
    d = ex1 - ey1
    d = sel(d.gt(31), 31, d)
    jam = (my & ((my.const(1) << d) - 1)).ne(0)
    myj = (my >> d) | jam
    m = sel(ds, mx - myj, mx + myj)
    lz = m.clz()
    res = round_pack(F32, m << lz, sx, ex1 + (EB + 1) - lz)
    res = sel(m.eq(0), sel(ds, 0, sx << 31), res)  # exact cancellation: +0; -0 + -0 = -0
    res = sel(xa.ge(F32.inf), x, res)  # the larger magnitude is infinite
    nan = ax.gt(F32.inf) | bx.gt(F32.inf) | (ya.eq(F32.inf) & ds)  # NaN operand, inf - inf
    return sel(nan, F32.nan, res)


def f32_sub(a: W[V], b: W[V]) -> W[V]:
    return f32_add(a, b ^ F32.sign)
