"""The F32 fused multiply-add on its common case: normal operands, a normal result.

`fma_f32_normal(a, b, c)` is `(applies, result)`: where `applies` is 1 the result
is the bit pattern `fma.fma` gives for a * b + c; elsewhere it is garbage and the
caller takes the general algorithm's result (float-strict makes the routine of
F32 fma this path with the general routine invoked where it does not apply; the
WGSL lowering calls it only there, so a warp whose lanes all apply skips it).

It applies when a, b and c are normal and finite, the product's and the
addend's exponents differ by less than 32, the exact sum keeps 32 of its 50
bits (a cancellation of at most 15 places) and the exact result is normal
(an overflow to infinity in the rounding itself included). That is what real
data almost always is: every element of the benchmark's operands (signed
values in [0.5, 2)) but about 2 in 100,000.

What the restriction buys (about two thirds of the general program's
operations): no special values and no subnormal significands; the 48-bit
product P = ma * mb in [2**46, 2**48) stays almost where the multiply leaves it
(one place up: a `mul_high` and a `mul` of 2 ma and mb, one wide multiply on a
GPU with 64-bit integers), the addend joins it at bit 47, and no sum reaches 2**50, so the larger
value needs no placing; the smaller is shifted by less than a word (jamming
what falls out, as fma.py argues is enough: the larger value's bit 0 is 0); the
high word of the sum holds its leading 1, so one `clz` normalises it; the
result is rounded without the shift to the subnormal grid.
"""

from __future__ import annotations

from typing import TypeVar

from vyre.dialects import vyre as d
from vyre.transforms.softfloat.formats import F32
from vyre.transforms.softfloat.machine import W, sel
from vyre.transforms.softfloat.normal import in_range, is_normal, significand
from vyre.transforms.softfloat.pack import round_in_range
from vyre.transforms.softfloat.registry import fast_path

__all__ = ["fma_f32_normal"]

V = TypeVar("V")

@fast_path(d.FmaOp, F32)
def fma_f32_normal(a: W[V], b: W[V], c: W[V]) -> tuple[W[V], W[V]]:
    """(applies, a * b + c rounded once) for F32 patterns; see the module docstring."""
    ax, bx, cx = a & F32.abs_mask, b & F32.abs_mask, c & F32.abs_mask
    applies = is_normal(ax) & is_normal(bx) & is_normal(cx)
    sp, sc = (a ^ b) >> 31, c >> 31
    ma, mb, mc = significand(a), significand(b), significand(c)
    # P << 1 = (2 ma) * mb as a (high, low) pair: one place up, so that bit 0 of
    # the larger value is 0: the jam bit OR-ed into the shifted smaller value is
    # then the only thing at bit 0, and the sum and difference carry what the
    # exact ones carry above it (with P odd at bit 0, P + (t | 1) could land on a
    # tie the exact sum is just off)
    ma2 = ma << 1
    product = (ma2.mul_high(mb), ma2 * mb)  # leading 1 at bit 47 or 48
    addend = (mc >> 8, mc << 24)  # leading 1 at bit 47
    # bit 47 stands for 2**(e - 127) with e = ea + eb - 127 (product) or ec (addend);
    # both are kept 127 higher so that they stay positive
    ep, ec = (ax >> 23) + (bx >> 23), (cx >> 23) + 127
    pbig = ec.le(ep)
    difference = ep - ec
    shift = sel(pbig, difference, 0 - difference)
    applies = applies & shift.lt(32)
    big = (sel(pbig, product[0], addend[0]), sel(pbig, product[1], addend[1]))
    small = (sel(pbig, addend[0], product[0]), sel(pbig, addend[1], product[1]))
    exponent, sign = sel(pbig, ep, ec), sel(pbig, sp, sc)
    back = 31 - shift  # a shift by 32 - n places is written (x << (31 - n)) << 1: n = 0 needs no case
    small_lo = (small[1] >> shift) | ((small[0] << back) << 1) | ((small[1] << back) << 1).ne(0)
    small_hi = small[0] >> shift
    same = sp.eq(sc)
    sum_lo = big[1] + small_lo
    sum_hi = big[0] + small_hi + sum_lo.lt(big[1])
    diff_lo = big[1] - small_lo
    diff_hi = big[0] - small_hi - big[1].lt(small_lo)
    hi, lo = sel(same, sum_hi, diff_hi), sel(same, sum_lo, diff_lo)
    negative = hi >> 31  # a difference below 0: equal exponents, or the product one place up
    flipped_hi, flipped_lo = (0 - hi) - lo.ne(0), 0 - lo
    hi, lo = sel(negative, flipped_hi, hi), sel(negative, flipped_lo, lo)
    n = hi.clz()  # at least 14 (the sum is below 2**50); 32 if the high word is empty
    m = (hi << n) | (lo >> (32 - n)) | (lo << n).ne(0)  # leading 1 at bit 31, sticky in bit 0
    biased = exponent + (63 - 47 - 127) - n  # the result's biased exponent
    applies = applies & hi.ne(0) & in_range(biased)
    return applies, round_in_range(F32, m, biased) | ((sign ^ negative) << 31)
