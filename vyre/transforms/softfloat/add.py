"""Strict addition and subtraction, every format directly:
order the operands by magnitude, align the smaller with guard bits and a sticky
("jam") bit, add or subtract the significands, normalise, round once.

The significands sit with their leading 1 at bit 29 (F32: 6 guard bits), so a
sum stays below 2**31 and `round_normal` rounds without overflow. Why the jam
bit is enough: with an alignment shift d >= 2 a difference keeps its leading 1
at bit 29 or 28, so normalisation shifts left by at most 2 and the jam bit stays
below the round bit; the jammed subtrahend and the exact one lie in the same
interval of jam-bit units, so both round alike.

Subnormal results are exact (both operands are multiples of the smallest
subnormal), so the result never needs a shift to the subnormal grid: the
normalisation shift stops at the exponent of the larger operand (its
significand then keeps the leading 1 below bit 30, and the exponent field is 0).
"""

from __future__ import annotations

from typing import TypeVar

from vyre.dialects import vyre as d
from vyre.transforms.softfloat.formats import Format
from vyre.transforms.softfloat.machine import W, sel
from vyre.transforms.softfloat.registry import algorithm
from vyre.transforms.softfloat.pack import round_normal

__all__ = ["fadd", "fsub"]

V = TypeVar("V")


@algorithm(d.FAddOp)
def fadd(fmt: Format, a: W[V], b: W[V]) -> W[V]:
    """a + b of format `fmt`, correctly rounded."""
    big = fmt.fraction
    ax, bx = a & fmt.abs_mask, b & fmt.abs_mask
    swap = ax.lt(bx)
    x = sel(swap, b, a)
    xa, ya = sel(swap, bx, ax), sel(swap, ax, bx)
    ds = (a ^ b) >> (fmt.width - 1)  # effective subtraction
    ex, ey = xa >> big, ya >> big
    nx, ny = ex.ne(0), ey.ne(0)
    fraction = (1 << big) - 1
    mx = ((xa & fraction) | (nx << big)) << (29 - big)  # leading 1 at bit 29
    my = ((ya & fraction) | (ny << big)) << (29 - big)
    ex1 = ex + (nx ^ 1)  # subnormals have exponent 1
    d = (ex - ey) - (nx ^ ny)  # = ex1 - ey1 (ny <= nx)
    d = sel(d.gt(31), 31, d)
    shifted = my >> d
    myj = shifted | (shifted << d).ne(my)  # the bits shifted out, jammed into bit 0
    m = sel(ds, mx - myj, mx + myj)  # never negative: |x| >= |y|
    s = m.clz() - 1  # leading 1 to bit 30 ...
    s = sel(s.gt(ex1), ex1, s)  # ... unless the exponent runs out first (subnormal)
    sign_bit = x & fmt.sign
    res = round_normal(fmt, m << s, ex1 - s, sign_bit)
    res = sel(m.eq(0), sel(ds, 0, sign_bit), res)  # exact cancellation: +0; -0 + -0 = -0
    nan = xa.gt(fmt.inf) | (ya.eq(fmt.inf) & ds)  # a NaN operand (xa is the larger), inf - inf
    return sel(xa.ge(fmt.inf), sel(nan, fmt.nan, x), res)


@algorithm(d.FSubOp)
def fsub(fmt: Format, a: W[V], b: W[V]) -> W[V]:
    """a - b of format `fmt`, correctly rounded."""
    return fadd(fmt, a, b ^ fmt.sign)
