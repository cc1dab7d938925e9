"""64-bit fixed-point arithmetic on u32 words, for the correctly rounded functions.

A 64-bit value is a pair `(hi, lo)` of words (`wide.Pair`). The functions keep
their intermediate values as unsigned fixed-point numbers in such pairs (a
fraction `Q0.64`, or `Q1.63` for values in [1, 2)), so the machine needs only
u32 words: a 32 x 32 -> 64-bit product is `mul_high` and `mul` (one wide
multiply on a GPU with 64-bit integers, four 16 x 16-bit partial products
elsewhere: the lowering's choice, the same bits), and the high 64 bits of a
64 x 64-bit product are computed exactly (the floor of the 128-bit product over
2**64) from four such products.

Where an error budget allows, the truncated forms cost less: `mulhi32` and
`mulhi64_trunc` drop the lowest partial product and the carries out of it (a
result at most 2, respectively 6, units below the exact floor; their 16-bit
halves stay, since their results are not the exact high word), and
`mulhi64x32` multiplies a pair by one word. A Python int operand is a
constant: the truncated forms split its 16-bit halves at build time.
"""

from __future__ import annotations

from typing import TypeVar

from vyre.transforms.softfloat.machine import W, sel

__all__ = [
    "Pair",
    "add64",
    "const64",
    "lookup64",
    "mul32",
    "mulhi32",
    "mulhi64",
    "mulhi64_trunc",
    "mulhi64x32",
    "shl64",
    "shr64",
    "shr64_const",
    "sub64",
]

V = TypeVar("V")
Pair = tuple[W[V], W[V]]
MASK = 0xFFFF_FFFF


def const64(like: W[V], value: int) -> Pair[V]:
    """The 64-bit constant `value` (0 <= value < 2**64) on `like`'s machine."""
    return like.const((value >> 32) & MASK), like.const(value & MASK)


def add64(a: Pair[V], b: Pair[V]) -> Pair[V]:
    lo = a[1] + b[1]
    return a[0] + b[0] + lo.lt(a[1]), lo


def sub64(a: Pair[V], b: Pair[V]) -> Pair[V]:
    lo = a[1] - b[1]
    return a[0] - b[0] - a[1].lt(b[1]), lo


def _halves(b: W[V] | int) -> tuple[W[V] | int, W[V] | int]:
    """(low, high) 16-bit halves of a word, or of a constant at build time."""
    return b & 0xFFFF, b >> 16


def mul32(a: W[V], b: W[V] | int) -> Pair[V]:
    """The full 64-bit product of two words (`b` may be a constant): `mul_high`
    and `mul`, one wide multiply on a GPU with 64-bit integers."""
    return a.mul_high(b), a * b


def mulhi64(a: Pair[V], b: Pair[V]) -> Pair[V]:
    """floor(a * b / 2**64): the high 64 bits of the 128-bit product, exactly."""
    ah, al = a
    bh, bl = b
    hh = mul32(ah, bh)
    hl = mul32(ah, bl)
    lh = mul32(al, bh)
    ll_hi = mul32(al, bl)[0]
    # bits 32..63 of the product: the low words of hl and lh and the high word of ll
    s = hl[1] + lh[1]
    c = s.lt(hl[1])
    s2 = s + ll_hi
    c = c + s2.lt(s)
    # bits 64..127: hh + the high words of hl and lh + the carries out of bits 32..63
    return add64(add64(hh, (hl[0].const(0), hl[0])), (lh[0].const(0), lh[0] + c))


def shr64(a: Pair[V], n: W[V]) -> Pair[V]:
    """a >> n for 0 <= n < 64 (n a word)."""
    hi, lo = a
    word = n.ge(32)
    hi, lo = sel(word, 0, hi), sel(word, hi, lo)
    k = n & 31
    back = 31 - k
    return hi >> k, (lo >> k) | ((hi << back) << 1)


def shl64(a: Pair[V], n: W[V]) -> Pair[V]:
    """a << n (mod 2**64) for 0 <= n < 64 (n a word)."""
    hi, lo = a
    word = n.ge(32)
    hi, lo = sel(word, lo, hi), sel(word, 0, lo)
    k = n & 31
    back = 31 - k
    return (hi << k) | ((lo >> back) >> 1), lo << k


def lookup64(table: tuple[int, ...], index: W[V]) -> Pair[V]:
    """Entry `index` of a table of 64-bit constants (two word tables)."""
    return (
        index.lookup(tuple((v >> 32) & MASK for v in table)),
        index.lookup(tuple(v & MASK for v in table)),
    )


def shr64_const(a: Pair[V], n: int) -> Pair[V]:
    """a >> n for a constant 0 < n < 32."""
    hi, lo = a
    return hi >> n, (lo >> n) | (hi << (32 - n))


def mulhi32(a: W[V], b: W[V] | int) -> W[V]:
    """floor(a * b / 2**32) less 0, 1 or 2: the high word without the low
    partial product and the carries out of the middle ones."""
    al, ah = a & 0xFFFF, a >> 16
    bl, bh = _halves(b)
    return ah * bh + ((al * bh) >> 16) + ((ah * bl) >> 16)


def mulhi64x32(a: W[V], b: Pair[V]) -> Pair[V]:
    """floor(a * b / 2**32) less at most 2, for a word `a` and a pair `b`: the
    high 64 bits of the 96-bit product."""
    hi, lo = mul32(a, b[0])
    low = lo + mulhi32(a, b[1])
    return hi + low.lt(lo), low


def mulhi64_trunc(a: Pair[V], b: tuple[W[V] | int, W[V] | int]) -> Pair[V]:
    """floor(a * b / 2**64) less at most 6: `mulhi64` without the low x low
    partial product and with truncated middle ones (`b` may be a constant)."""
    hi, lo = mul32(a[0], b[0])
    x = mulhi32(a[0], b[1])
    y = mulhi32(a[1], b[0])
    lo1 = lo + x
    lo2 = lo1 + y
    return hi + lo1.lt(x) + lo2.lt(y), lo2
