"""Strict F32 square root (float-strict.md §4.4): bitwise digit recurrence on
the normalised significand (the exponent made even first), 26 root bits and the
remainder as the sticky bit, one rounding. The result is never subnormal, never
overflows, and is never an exact tie."""

from __future__ import annotations

from typing import TypeVar

from vyre.transforms.softfloat.formats import EB, F32
from vyre.transforms.softfloat.machine import W, sel
from vyre.transforms.softfloat.pack import round_pack, unpack

__all__ = ["ROOT_BITS", "f32_sqrt"]

V = TypeVar("V")

ROOT_BITS = 26


def f32_sqrt(a: W[V]) -> W[V]:
    ax = a & F32.abs_mask
    m, e = unpack(F32, ax)  # leading 1 at bit 23
    odd = (e & 1) ^ 1  # the unbiased exponent is odd (EB and the bias 127: e even)
    rad = (m << odd) << 7
    rem = a.const(0)
    root = a.const(0)
    for step in range(ROOT_BITS):
        if step < 16:  # 32 radicand bits, two per step; zeros after
            rem = (rem << 2) | (rad >> 30)
            rad = rad << 2
        else:
            rem = rem << 2
        trial = (root << 2) | 1
        bit = rem.ge(trial)
        rem = sel(bit, rem - trial, rem)
        root = (root << 1) | bit
    mo = (root << 6) | rem.ne(0)
    res = round_pack(F32, mo, a.const(0), (e + (EB + 127) - odd) >> 1)
    res = sel(ax.eq(0), a, res)  # sqrt(+-0) = +-0
    res = sel(a.eq(F32.inf), F32.inf, res)
    nan = ax.gt(F32.inf) | ((a >> 31) & ax.ne(0))  # NaN, or negative
    return sel(nan, F32.nan, res)
