"""Wide arithmetic on u32 words: the high word of a 32x32 product, and 64-bit
values as (hi, lo) pairs for the fused multiply-add."""

from __future__ import annotations

from typing import TypeVar

from vyre.transforms.softfloat.machine import W, sel

__all__ = ["add64", "clz64", "mul_hi", "neg64", "shl64", "shr_jam64", "sub64"]

V = TypeVar("V")
Pair = tuple[W[V], W[V]]


def mul_hi(a: W[V], b: W[V]) -> W[V]:
    """The high 32 bits of a * b, from 16-bit limbs (no partial sum overflows)."""
    al, ah = a & 0xFFFF, a >> 16
    bl, bh = b & 0xFFFF, b >> 16
    ll, lh, hl, hh = al * bl, al * bh, ah * bl, ah * bh
    mid = (ll >> 16) + (lh & 0xFFFF) + (hl & 0xFFFF)
    return hh + (lh >> 16) + (hl >> 16) + (mid >> 16)


def add64(a: Pair[V], b: Pair[V]) -> Pair[V]:
    lo = a[1] + b[1]
    return a[0] + b[0] + lo.lt(a[1]), lo


def sub64(a: Pair[V], b: Pair[V]) -> Pair[V]:
    lo = a[1] - b[1]
    return a[0] - b[0] - a[1].lt(b[1]), lo


def neg64(a: Pair[V]) -> Pair[V]:
    lo = 0 - a[1]
    return (0 - a[0]) - a[1].ne(0), lo


def clz64(a: Pair[V]) -> W[V]:
    """Leading zeros of the 64-bit value (64 for zero)."""
    return sel(a[0].eq(0), a[1].clz() + 32, a[0].clz())


def shl64(a: Pair[V], n: W[V]) -> Pair[V]:
    """a << n for n in [0, 63]."""
    hi, lo = a
    small_hi = sel(n.eq(0), hi, (hi << n) | (lo >> (32 - n)))
    big = n.ge(32)
    return sel(big, lo << (n - 32), small_hi), sel(big, 0, lo << n)


def shr_jam64(a: Pair[V], d: W[V]) -> Pair[V]:
    """a >> d for any d, with every bit shifted out OR-ed into bit 0 ("jam")."""
    hi, lo = a
    # d < 32
    spill = 32 - d
    lo1 = (lo >> d) | sel(d.eq(0), 0, hi << spill)
    lost1 = sel(d.eq(0), 0, lo << spill).ne(0)
    # 32 <= d < 64
    dd = d - 32
    lo2 = hi >> dd
    lost2 = sel(dd.eq(0), 0, hi << (32 - dd)).ne(0) | lo.ne(0)
    small, mid = d.lt(32), d.lt(64)
    new_hi = sel(small, hi >> d, 0)
    new_lo = sel(small, lo1 | lost1, sel(mid, lo2 | lost2, (hi | lo).ne(0)))
    return new_hi, new_lo
