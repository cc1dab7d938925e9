"""Rounding to an integral value in the same format:
floor, ceil, round (half to even) and trunc, for every format.

With e the biased exponent, a value with bias <= e < bias + M has
f = bias + M - e fraction bits below the units place; they are cleared, and the
unit added back when the mode rounds up (a carry into the exponent is correct:
1.5 -> 2.0). Below 1 (e < bias) the result is 0 or 1 with the sign kept; from
e >= bias + M the value is integral already (or inf). Signs of zero follow IEEE:
floor(-0.5) = -1, ceil(-0.5) = -0, trunc(-0.7) = -0, round(-0.4) = -0.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from vyre.dialects import vyre as d
from vyre.transforms.softfloat.formats import Format
from vyre.transforms.softfloat.machine import W, sel
from vyre.transforms.softfloat.registry import algorithm

__all__ = ["fceil", "ffloor", "fround", "ftrunc"]

V = TypeVar("V")


def _integral(
    fmt: Format,
    a: W[V],
    up: Callable[[W[V], W[V], W[V], W[V], W[V]], W[V]],
    up_below_one: Callable[[W[V], W[V]], W[V]],
) -> W[V]:
    """`up(sign, frac, half, t, unit)` and `up_below_one(sign, magnitude)` say
    whether the magnitude rounds up."""
    sign = a >> (fmt.width - 1)
    ax = a & fmt.abs_mask
    e = ax >> fmt.fraction
    f = (fmt.bias + fmt.fraction) - e
    unit = ax.const(1) << f
    frac = ax & (unit - 1)
    t = ax ^ frac
    half = unit >> 1
    magnitude = t + sel(up(sign, frac, half, t, unit), unit, 0)
    small = sel(up_below_one(sign, ax), fmt.one, 0)
    res = sel(e.lt(fmt.bias), small, magnitude) | (sign << (fmt.width - 1))
    res = sel(e.ge(fmt.bias + fmt.fraction), a, res)
    return sel(ax.gt(fmt.inf), fmt.nan, res)


@algorithm(d.FTruncOp)
def ftrunc(fmt: Format, a: W[V]) -> W[V]:
    return _integral(fmt, a, lambda s, fr, h, t, u: s.const(0), lambda s, ax: s.const(0))


@algorithm(d.FFloorOp)
def ffloor(fmt: Format, a: W[V]) -> W[V]:
    return _integral(fmt, a, lambda s, fr, h, t, u: s & fr.ne(0), lambda s, ax: s & ax.ne(0))


@algorithm(d.FCeilOp)
def fceil(fmt: Format, a: W[V]) -> W[V]:
    return _integral(
        fmt, a, lambda s, fr, h, t, u: (s ^ 1) & fr.ne(0), lambda s, ax: (s ^ 1) & ax.ne(0)
    )


@algorithm(d.FRoundOp)
def fround(fmt: Format, a: W[V]) -> W[V]:
    """Half to even: above half rounds up; exactly half rounds to the even unit."""
    return _integral(
        fmt,
        a,
        lambda s, fr, h, t, u: fr.gt(h) | (fr.eq(h) & (t & u).ne(0)),
        lambda s, ax: ax.gt(fmt.half),
    )
