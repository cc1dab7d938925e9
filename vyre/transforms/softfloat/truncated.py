"""Cheap fixed-point products on u32 words, for the correctly rounded functions.

`fixed.py` computes the high half of a product exactly; these drop the partial
products below the precision their callers need, so each result is within a
few units of the exact floor (the bound is in each docstring, always from
below unless a `bias` is added to centre it). Constant operands of the
truncated products are split into 16-bit halves when the program is built; the
exact `square32` is `mul_high` and `mul` (the exact product of two words is
`fixed.mul32`). A 64-bit value is a pair `(hi, lo)`.
"""

from __future__ import annotations

from typing import TypeVar

from vyre.transforms.softfloat.fixed import Pair, add64, mul32
from vyre.transforms.softfloat.machine import W

__all__ = ["mul_small", "mul_u16", "mulhi32", "mulhi64", "neg_if", "square32"]

V = TypeVar("V")
MASK = 0xFFFF_FFFF


def mulhi32(a: W[V], b: W[V] | int) -> W[V]:
    """floor(a * b / 2**32), less by at most 3 (the low partial product and the
    low halves of the middle ones are dropped)."""
    al, ah = a & 0xFFFF, a >> 16
    if isinstance(b, int):
        return ah * (b >> 16) + ((ah * (b & 0xFFFF)) >> 16) + ((al * (b >> 16)) >> 16)
    bl, bh = b & 0xFFFF, b >> 16
    return ah * bh + ((ah * bl) >> 16) + ((al * bh) >> 16)


def mulhi64(a: Pair[V], b: Pair[V] | int, bias: W[V] | int = 0) -> Pair[V]:
    """floor(a * b / 2**64) + bias, less by at most 8 (the low partial product
    and the middle ones' approximations); b may be a constant, below
    2**64 - 2**37 where `bias` is nonzero."""
    ah, al = a
    bh, bl = (b >> 32, b & MASK) if isinstance(b, int) else b
    c1, c2 = mulhi32(ah, bl), mulhi32(al, bh)
    c2 = c2 if isinstance(bias, int) and not bias else c2 + bias
    c = c1 + c2
    return add64(mul32(ah, bh), (c.lt(c1), c))


def square32(a: W[V]) -> Pair[V]:
    """The full 64-bit square of a word (`mul_high` and `mul`: one wide multiply
    on a GPU with 64-bit integers)."""
    return a.mul_high(a), a * a


def mul_u16(a: Pair[V], y: W[V]) -> Pair[V]:
    """floor(a * y / 2**16) within 1, for a 64-bit a and y < 2**16."""
    ah, al = a
    hh, hl = (ah >> 16) * y, (ah & 0xFFFF) * y
    low = (al >> 16) * y + (((al & 0xFFFF) * y) >> 16)  # < 2**32
    lo = (hl << 16) + low
    return hh + (hl >> 16) + lo.lt(low), lo


def mul_small(v: Pair[V], m: Pair[V], bias: W[V] | int = 0) -> Pair[V]:
    """floor(v * m / 2**64) + bias, less by at most 5, for v < 2**48 (its top
    word below 2**16) and m < 2**64 - 2**48 (the cross terms add without a carry)."""
    vh, vl = v
    mh, ml = m
    top = vh * (mh >> 16)
    low = vh * (mh & 0xFFFF)
    lo = (top << 16) + low
    hi = (top >> 16) + lo.lt(low)
    cross = ((vh * (ml >> 16)) >> 16) + mulhi32(vl, mh)
    cross = cross if isinstance(bias, int) and not bias else cross + bias
    return add64((hi, lo), (vh.const(0), cross))


def neg_if(c: W[V], a: Pair[V]) -> Pair[V]:
    """-a (two's complement, 64 bits) where the 0/1 word c is 1, else a."""
    mask = 0 - c
    lo = (a[1] ^ mask) + c
    return (a[0] ^ mask) + lo.lt(c), lo
