"""Packing and unpacking: the shared RNE rounding core and exact widening.

`round_pack` rounds a significand word with its leading 1
at bit 31 to a format, to nearest, ties to even, with subnormal results and
overflow to infinity: the one place where every algorithm rounds. Its cheaper
forms for results known to need no shift to the subnormal grid sit beside it:
`round_normal` (leading 1 at bit 30), and `round_in_range` (leading 1 at bit 31,
a biased exponent known to be in range: the fast paths').
"""

from __future__ import annotations

from typing import TypeVar

from vyre.transforms.softfloat.formats import EB, F32, Format
from vyre.transforms.softfloat.machine import W, sel

__all__ = ["round_in_range", "round_normal", "round_pack", "to_f32", "unpack"]

V = TypeVar("V")


def round_pack(fmt: Format, m: W[V], sign: W[V], eb: W[V]) -> W[V]:
    """The pattern of (-1)**sign * m / 2**31 * 2**(eb - EB - bias), rounded.

    `m` has its leading 1 at bit 31 (anything below bit 0 must already be OR-ed
    into bit 0, "sticky"); `sign` is 0 or 1; `eb` is the biased exponent + EB.
    A result below the normal range is first shifted right (at most 31 places,
    which already leaves only the sticky bit) with the bits shifted out jammed
    into bit 0, so it rounds once, on the subnormal grid."""
    r = 31 - fmt.fraction
    half = 1 << (r - 1)
    t = sel(eb.lt(EB + 1), EB + 1, eb)  # max(eb, EB + 1)
    sh = t - eb  # 1 - biased exponent, if that is positive
    sh = sel(sh.gt(31), 31, sh)
    m2 = m >> sh
    m2 = m2 | (m2 << sh).ne(m)  # jam what was shifted out
    mm = m2 >> r
    up = ((m2 & ((1 << r) - 1)) + (half - 1) + (mm & 1)) >> r  # RNE increment
    res = ((t - (EB + 1)) << fmt.fraction) + mm + up  # the hidden bit adds 1 to the exponent
    res = sel(eb.ge(EB + fmt.emax), fmt.inf, res)
    return res | (sign << (fmt.width - 1))


def round_normal(fmt: Format, m: W[V], field: W[V], sign_bit: W[V], overflow: bool = True) -> W[V]:
    """The pattern of m / 2**30 * 2**(field + 1 - bias) with the sign bit
    `sign_bit` (already in place), rounded to nearest even: for results whose
    significand needs no shift to the subnormal grid.

    Either m is in [2**30, 2**31) (leading 1 at bit 30, biased exponent
    field + 1), or field == 0 and m < 2**30 (a subnormal, or a result that
    rounds up to the smallest normal). Bit 31 is headroom, so the rounding
    increment cannot overflow; a carry out of the significand moves into the
    exponent (up to infinity). field >= emax - 1 overflows to infinity (with
    `overflow=False` the caller knows field is below emax - 1)."""
    r = 30 - fmt.fraction
    half = 1 << (r - 1)
    rounded = (m + (half - 1) + ((m >> r) & 1)) >> r
    res = (field << fmt.fraction) + rounded
    if overflow:
        res = sel(field.ge(fmt.emax - 1), fmt.inf, res)
    return res | sign_bit


def round_in_range(fmt: Format, m: W[V], biased: W[V]) -> W[V]:
    """The pattern (sign bit 0) of m / 2**31 * 2**(biased - bias), rounded to
    nearest even, for `m` with its leading 1 at bit 31 (anything below bit 0
    already OR-ed into it) and `biased` known to be in 1..emax - 1: `round_pack`
    without the shift to the subnormal grid and the overflow test (a carry out of
    the significand still moves into the exponent, up to infinity exactly)."""
    r = 31 - fmt.fraction
    kept = m >> r
    up = ((m & ((1 << r) - 1)) + ((1 << (r - 1)) - 1) + (kept & 1)) >> r
    return ((biased - 1) << fmt.fraction) + kept + up


def unpack(fmt: Format, magnitude: W[V]) -> tuple[W[V], W[V]]:
    """(m, eb) of a finite nonzero magnitude: `m` has its leading 1 at bit
    `fmt.fraction` (subnormals are normalised), `eb` = biased exponent + EB.
    Zero gives garbage that callers select away."""
    e = magnitude >> fmt.fraction
    normal = e.ne(0)
    m = (magnitude & ((1 << fmt.fraction) - 1)) | (normal << fmt.fraction)
    lz = m.clz() - (31 - fmt.fraction)
    return m << lz, e + (normal ^ 1) + EB - lz


def to_f32(fmt: Format, x: W[V]) -> W[V]:
    """A pattern of `fmt` as the F32 pattern of the same value (exact; NaNs
    become the canonical NaN)."""
    if fmt is F32:
        return x
    shift = F32.fraction - fmt.fraction
    rebias = F32.bias - fmt.bias
    sign = (x >> (fmt.width - 1)) << 31
    magnitude = x & fmt.abs_mask
    if rebias == 0:  # bf16: f32 with the low 16 fraction bits zero
        return sel(magnitude.gt(fmt.inf), F32.nan, x << 16)
    e = magnitude >> fmt.fraction
    fraction = magnitude & ((1 << fmt.fraction) - 1)
    normal = (magnitude << shift) + (rebias << F32.fraction)
    # a subnormal is fraction * 2**(1 - bias - M): with its leading 1 at bit
    # p = 31 - clz, the f32 biased exponent is p + 1 - bias - M + 127
    lz = fraction.clz()
    top = 31 + 1 - fmt.bias - fmt.fraction + F32.bias
    subnormal = ((top - lz) << F32.fraction) | ((fraction << (lz - 8)) & 0x7F_FFFF)
    res = sel(e.eq(0), sel(fraction.eq(0), 0, subnormal), normal)
    res = sel(e.eq(fmt.emax), F32.inf, res) | sign
    return sel(magnitude.gt(fmt.inf), F32.nan, res)
