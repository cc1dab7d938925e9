"""Sign operations, classification, comparisons and minimumNumber/maximumNumber,
for every format directly on its patterns.

`key(x)` maps a non-NaN pattern to an unsigned word in IEEE order with -0 < +0:
negative patterns are complemented, positive ones get the sign bit set.
"""

from __future__ import annotations

from typing import TypeVar

from vyre.dialects import vyre as d
from vyre.transforms.softfloat.formats import Format
from vyre.transforms.softfloat.machine import W, sel
from vyre.transforms.softfloat.registry import algorithm, variants

__all__ = [
    "fabs", "feq", "fge", "fgt", "fis_inf", "fis_nan", "fle", "flt", "fmax", "fmin", "fne", "fneg",
]  # fmt: skip

V = TypeVar("V")


@algorithm(d.FNegOp)
def fneg(fmt: Format, a: W[V]) -> W[V]:
    return a ^ fmt.sign


@algorithm(d.FAbsOp)
def fabs(fmt: Format, a: W[V]) -> W[V]:
    return a & fmt.abs_mask


@algorithm(d.FIsNanOp)
def fis_nan(fmt: Format, a: W[V]) -> W[V]:
    return (a & fmt.abs_mask).gt(fmt.inf)


@algorithm(d.FIsInfOp)
def fis_inf(fmt: Format, a: W[V]) -> W[V]:
    return (a & fmt.abs_mask).eq(fmt.inf)


def _key(fmt: Format, x: W[V]) -> W[V]:
    negative = x >> (fmt.width - 1)
    flip = ((0 - negative) & ((1 << fmt.width) - 1)) | fmt.sign
    return x ^ flip


def _unordered(fmt: Format, a: W[V], b: W[V]) -> W[V]:
    return fis_nan(fmt, a) | fis_nan(fmt, b)


def feq(fmt: Format, a: W[V], b: W[V]) -> W[V]:
    both_zero = ((a | b) & fmt.abs_mask).eq(0)
    return (a.eq(b) | both_zero) & (_unordered(fmt, a, b) ^ 1)


def fne(fmt: Format, a: W[V], b: W[V]) -> W[V]:
    return feq(fmt, a, b) ^ 1


def flt(fmt: Format, a: W[V], b: W[V]) -> W[V]:
    both_zero = ((a | b) & fmt.abs_mask).eq(0)
    return _key(fmt, a).lt(_key(fmt, b)) & ((_unordered(fmt, a, b) | both_zero) ^ 1)


def fle(fmt: Format, a: W[V], b: W[V]) -> W[V]:
    both_zero = ((a | b) & fmt.abs_mask).eq(0)
    return (_key(fmt, a).le(_key(fmt, b)) | both_zero) & (_unordered(fmt, a, b) ^ 1)


def fgt(fmt: Format, a: W[V], b: W[V]) -> W[V]:
    return flt(fmt, b, a)


def fge(fmt: Format, a: W[V], b: W[V]) -> W[V]:
    return fle(fmt, b, a)


def _pick(fmt: Format, a: W[V], b: W[V], a_first: W[V]) -> W[V]:
    na, nb = fis_nan(fmt, a), fis_nan(fmt, b)
    r = sel(a_first, a, b)
    r = sel(na, b, r)
    r = sel(nb, a, r)
    return sel(na & nb, fmt.nan, r)


@algorithm(d.FMinOp)
def fmin(fmt: Format, a: W[V], b: W[V]) -> W[V]:
    """IEEE 754-2019 minimumNumber: a NaN is ignored beside a number; -0 < +0."""
    return _pick(fmt, a, b, _key(fmt, a).lt(_key(fmt, b)))


@algorithm(d.FMaxOp)
def fmax(fmt: Format, a: W[V], b: W[V]) -> W[V]:
    """IEEE 754-2019 maximumNumber: a NaN is ignored beside a number; -0 < +0."""
    return _pick(fmt, a, b, _key(fmt, a).gt(_key(fmt, b)))


variants(
    d.FCmpOp,
    {"eq": feq, "ne": fne, "lt": flt, "le": fle, "gt": fgt, "ge": fge},
)
