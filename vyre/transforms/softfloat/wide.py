"""Wide arithmetic on u32 words: 64-bit values as (hi, lo) pairs, for the F32
fused multiply-add."""

from __future__ import annotations

from typing import TypeVar

from vyre.transforms.softfloat.machine import W, sel

__all__ = ["add64", "neg64", "normalize64", "shr_jam64", "sub64"]

V = TypeVar("V")
Pair = tuple[W[V], W[V]]


def add64(a: Pair[V], b: Pair[V]) -> Pair[V]:
    lo = a[1] + b[1]
    return a[0] + b[0] + lo.lt(a[1]), lo


def sub64(a: Pair[V], b: Pair[V]) -> Pair[V]:
    lo = a[1] - b[1]
    return a[0] - b[0] - a[1].lt(b[1]), lo


def neg64(a: Pair[V]) -> Pair[V]:
    lo = 0 - a[1]
    return (0 - a[0]) - a[1].ne(0), lo


def shr_jam64(a: Pair[V], d: W[V]) -> Pair[V]:
    """a >> d for any d, every bit shifted out OR-ed into bit 0 ("jam"), for
    a < 2**63: first a whole word if d >= 32, then d mod 32 places. A shift of
    n places is written (x << (31 - n)) << 1 where 32 - n places are wanted, so
    that n = 0 needs no special case."""
    hi, lo = a
    d = sel(d.gt(63), 63, d)  # a < 2**63: 63 places leave only the jam bit, as any more do
    word = d.ge(32)
    jam = word & lo.ne(0)
    hi, lo = sel(word, 0, hi), sel(word, hi, lo)
    n = d & 31
    back = 31 - n
    lost = (lo << back) << 1  # the bits of lo shifted out (0 when n == 0)
    new_lo = (lo >> n) | ((hi << back) << 1)
    return hi >> n, new_lo | (jam | lost.ne(0))


def normalize64(a: Pair[V]) -> tuple[W[V], W[V]]:
    """(m, lz): lz = leading zeros of the nonzero 64-bit value a, and the top
    32 bits of a << lz with the bits below OR-ed into bit 0 (sticky)."""
    hi, lo = a
    z = hi.eq(0)
    hi, lo = sel(z, lo, hi), sel(z, 0, lo)  # a word up if the high word is empty
    n = hi.clz()
    top = (hi << n) | ((lo >> 1) >> (31 - n))
    return top | (lo << n).ne(0), n + (z << 5)
