"""Conversions: integers to floats (one rounding, in the
target format), floats to integers (truncate toward zero, saturate, NaN -> 0),
and between float formats (widening is exact; narrowing rounds once).
"""

from __future__ import annotations

from typing import TypeVar

from vyre.transforms.softfloat.formats import BF16, EB, F32, Format
from vyre.transforms.softfloat.machine import W, sel
from vyre.transforms.softfloat.pack import round_pack, to_f32, unpack

__all__ = ["from_f32", "from_i32", "from_u32", "to_f32", "to_i32", "to_u32"]

V = TypeVar("V")

I32_MIN = 0x8000_0000
I32_MAX = 0x7FFF_FFFF


def from_u32(fmt: Format, x: W[V]) -> W[V]:
    lz = x.clz()
    res = round_pack(fmt, x << lz, x.const(0), (EB + fmt.bias + 31) - lz)
    return sel(x.eq(0), 0, res)


def from_i32(fmt: Format, x: W[V]) -> W[V]:
    sign = x >> 31
    magnitude = sel(sign, 0 - x, x)  # 0x80000000 stays itself: 2**31
    lz = magnitude.clz()
    res = round_pack(fmt, magnitude << lz, sign, (EB + fmt.bias + 31) - lz)
    return sel(x.eq(0), 0, res)


def _truncated(fmt: Format, a: W[V]) -> tuple[W[V], W[V], W[V], W[V]]:
    """(sign, magnitude of trunc(a) for e < limit, e, is NaN)."""
    f = to_f32(fmt, a)
    sign = f >> 31
    ax = f & F32.abs_mask
    e = ax >> 23
    m = (ax & 0x7F_FFFF) | 0x80_0000  # value m * 2**(e - 150)
    magnitude = sel(e.ge(150), m << (e - 150), m >> (150 - e))
    magnitude = sel(e.lt(127), 0, magnitude)
    return sign, magnitude, e, ax.gt(F32.inf)


def to_i32(fmt: Format, a: W[V]) -> W[V]:
    """Truncate toward zero; |a| >= 2**31 saturates by sign; NaN -> 0."""
    sign, magnitude, e, nan = _truncated(fmt, a)
    res = sel(sign, 0 - magnitude, magnitude)
    res = sel(e.ge(158), sel(sign, I32_MIN, I32_MAX), res)
    return sel(nan, 0, res)


def to_u32(fmt: Format, a: W[V]) -> W[V]:
    """Truncate toward zero; >= 2**32 saturates to 0xFFFFFFFF; negative, NaN -> 0."""
    sign, magnitude, e, nan = _truncated(fmt, a)
    res = sel(e.ge(159), 0xFFFF_FFFF, magnitude)
    return sel(sign | nan, 0, res)


def from_f32(fmt: Format, x: W[V]) -> W[V]:
    """An F32 pattern rounded to `fmt` (RNE; overflow -> inf; NaN -> canonical)."""
    if fmt is F32:
        return x
    ax = x & F32.abs_mask
    nan = ax.gt(F32.inf)
    if fmt is BF16:  # same exponent range: rounding at bit 16 is RNE, subnormals too
        return sel(nan, BF16.nan, (x + 0x7FFF + ((x >> 16) & 1)) >> 16)
    sign = x >> 31
    m, e = unpack(F32, ax)
    res = round_pack(fmt, m << 8, sign, e - (F32.bias - fmt.bias))
    res = sel(ax.eq(0), sign << (fmt.width - 1), res)
    res = sel(ax.eq(F32.inf), (sign << (fmt.width - 1)) | fmt.inf, res)
    return sel(nan, fmt.nan, res)
