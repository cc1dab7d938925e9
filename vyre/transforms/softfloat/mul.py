"""Strict multiplication, every format directly.

F32: normalise both significands (24 bits, leading 1 at bit 23), split each
into a high byte and a low 16-bit half; the top 32 bits of the 48-bit product
are hh * 2**16 + hl + lh + (ll >> 16) exactly (no partial sum overflows), the
low 16 bits (those of ll) are the sticky bit; normalise by at most one bit,
round once.

F16 and BF16: the product of two significands (11 or 8 bits) fits one u32
word exactly, so there is no high word: the significands are taken as stored
(a subnormal keeps its leading zeros, with exponent 1), one `clz` normalises the
product, whatever the operands, and `round_pack` rounds it once.
"""

from __future__ import annotations

from typing import TypeVar

from vyre.dialects import vyre as d
from vyre.transforms.softfloat.formats import EB, F32, Format
from vyre.transforms.softfloat.machine import W, sel
from vyre.transforms.softfloat.registry import algorithm
from vyre.transforms.softfloat.pack import round_pack, unpack

__all__ = ["fmul", "product_top", "significand"]

V = TypeVar("V")


def significand(fmt: Format, magnitude: W[V]) -> tuple[W[V], W[V]]:
    """(m, e1) of a finite magnitude, not normalised: m = fraction | hidden bit,
    e1 = the biased exponent, 1 for subnormals (and zero)."""
    e = magnitude >> fmt.fraction
    normal = e.ne(0)
    m = (magnitude & ((1 << fmt.fraction) - 1)) | (normal << fmt.fraction)
    return m, e + (normal ^ 1)


def product_top(a: W[V], b: W[V]) -> W[V]:
    """The top 32 bits of the 48-bit product of two 24-bit words, with its low
    16 bits OR-ed into bit 0 (sticky)."""
    al, ah = a & 0xFFFF, a >> 16  # ah, bh < 2**8: the partial products stay below 2**32
    bl, bh = b & 0xFFFF, b >> 16
    ll = al * bl
    top = ((ah * bh) << 16) + ah * bl + al * bh + (ll >> 16)
    return top | (ll & 0xFFFF).ne(0)


@algorithm(d.FMulOp)
def fmul(fmt: Format, a: W[V], b: W[V]) -> W[V]:
    """a * b of format `fmt`, correctly rounded."""
    shift = fmt.width - 1
    sign = (a ^ b) >> shift
    ax, bx = a & fmt.abs_mask, b & fmt.abs_mask
    if fmt is F32:
        ma, ea = unpack(F32, ax)
        mb, eb = unpack(F32, bx)
        m = product_top(ma, mb)  # the product is in [2**46, 2**48): m in [2**30, 2**32)
        lz = m.clz()  # 0 or 1
        res = round_pack(F32, m << lz, sign, ea + eb - (EB + 126) - lz)
    else:
        ma, ea = significand(fmt, ax)
        mb, eb = significand(fmt, bx)
        p = ma * mb  # exact: at most 2M + 2 bits; value p / 2**2M * 2**(ea + eb - 2 bias)
        lz = p.clz()
        res = round_pack(fmt, p << lz, sign, ea + eb + (EB + 31 - 2 * fmt.fraction - fmt.bias) - lz)
    zero = ax.eq(0) | bx.eq(0)
    inf = ax.eq(fmt.inf) | bx.eq(fmt.inf)
    signed = sign << shift
    res = sel(zero, signed, res)
    res = sel(inf, signed | fmt.inf, res)
    nan = ax.gt(fmt.inf) | bx.gt(fmt.inf) | (inf & zero)  # a NaN operand, inf * 0
    return sel(nan, fmt.nan, res)
