"""2**t to about 2**-90 relative, for pow: a three-word significand.

t = T / 2**88 - 256 neg is a fixed-point number (T three words: 8 integer
bits, 88 fraction bits). With k = floor(t) and the fraction f = j / 2**7 +
i / 2**14 + r (r < 2**-14):

    2**t = 2**k * A_j * B_i * 2**(r + dA_j + dB_i)

where A_j = floor(2**(j / 128) * 2**31) / 2**31 and B_i = floor(2**(i / 2**14)
* 2**31) / 2**31 are one-word values (integer square roots) and dA_j = j / 128 -
log2 A_j, dB_i = i / 2**14 - log2 B_i >= 0 their corrections (below 2**-30.5,
two-word tables to 2**-94), so the product A_j B_i is one exact 32 x 32-bit
multiply. With u =
(r + dA_j + dB_i) * 2**14 in [0, 1 + 2**-16) (Q1.95), 2**(u / 2**14) - 1 =
E = sum c_i u**i, c_i = ln(2)**i / i! / 2**(14 i), degree 5 (truncation below
2**-96), by Horner: one word, two words, two words (the products cut to what
each step needs), three words; then R = A B (1 + E) in Q1.95. Every
coefficient is floored and every product truncated, so R errs low, by less
than 2**-90 (the constant term of q1 is raised by the mean truncation). 2**0
is exactly 1 (u = 0 gives E = 0).
"""

from __future__ import annotations

from fractions import Fraction
from math import factorial, isqrt
from typing import TypeVar

from vyre.transforms.softfloat import multiword as mw
from vyre.transforms.softfloat.fixed import mulhi64_trunc
from vyre.transforms.softfloat.ln import LN2, ONE, ln
from vyre.transforms.softfloat.machine import W
from vyre.transforms.softfloat.pow_log import shr_const
from vyre.transforms.softfloat.fixed import mul32
from vyre.transforms.softfloat.truncated import mulhi32

__all__ = ["exp2_wide"]

V = TypeVar("V")
Words = mw.Words


_FRACTION = 256
"""Fraction bits of the fixed-point square roots of `_root`."""


def _root(k: int, bits: int) -> int:
    """floor(2**(k / 2**bits) * 2**31) for 0 <= k < 2**bits, by `bits` square
    roots in fixed point with `_FRACTION` fraction bits. Each root is floored,
    so the fixed-point value ends within 2 units below the true one: the floor
    is exact when both ends of that interval give the same one (checked; it
    holds for every entry of these tables)."""
    value = 1 << (k + _FRACTION)
    for _ in range(bits):
        value = isqrt(value << _FRACTION)
    low, high = (value << 31) >> _FRACTION, ((value + 2) << 31) >> _FRACTION
    assert low == high, f"2**({k}/2**{bits}) lies too near a multiple of 2**-31: widen _FRACTION"
    return low


def _delta(k: int, bits: int, short: int) -> int:
    """round((k / 2**bits - log2(short / 2**31)) * 2**93), >= 0 (two words)."""
    return round((Fraction(k, 1 << bits) - Fraction(ln(short, 1 << 31), ONE) / LN2) * (1 << 93))


_A = tuple(_root(j, 7) for j in range(128))
_B = tuple(_root(i, 14) for i in range(128))
_DA = tuple(_delta(j, 7, a) for j, a in enumerate(_A))
_DB = tuple(_delta(i, 14, b) for i, b in enumerate(_B))


def _c(i: int, scale: int) -> int:
    """floor(c_i * 2**scale), c_i = ln(2)**i / i! / 2**(14 i)."""
    value = LN2**i / factorial(i) / Fraction(1 << (14 * i)) * (1 << scale)
    return value.numerator // value.denominator


def _columns(columns: list[list[W[V]]]) -> Words[V]:
    """The words of sum(column c * 2**(32 (n - 1 - c))) modulo 2**(32 n) for n
    columns of word terms (most significant first), each carried upwards."""
    out: list[W[V]] = []
    carry: W[V] | None = None
    for c in range(len(columns) - 1, -1, -1):
        terms = columns[c] + ([carry] if carry is not None else [])
        total = terms[0]
        count = total.const(0)
        for term in terms[1:]:
            s = total + term
            if c:
                count = count + s.lt(term)
            total = s
        out.append(total)
        carry = count
    return tuple(reversed(out))


def _mulhi(a: Words[V], b: Words[V]) -> Words[V]:
    """floor(a * b / 2**(32 len(a))) as len(b) words, a few units short: the
    partial products whose high word lands in the top len(b) words, those in
    the lowest of them by their high words alone (len(a) <= len(b) = 3)."""
    n = len(b)
    columns: list[list[W[V]]] = [[] for _ in range(n)]
    for i in range(len(a)):
        for k in range(n):
            c = i + k
            if c == n - 1:
                columns[c].append(mulhi32(a[i], b[k]))
            elif c < n - 1:
                hi, lo = mul32(a[i], b[k])
                columns[c].append(hi)
                columns[c + 1].append(lo)
    return _columns(columns)


_C5, _C4, _C3, _C2 = _c(5, 111), _c(4, 94), _c(3, 110), _c(2, 94)
_C1 = _c(1, 110) + (3 << 17)
"""Scales 2**111, 2**94, 2**110, 2**94, 2**110; C1 raised by three units of
2**-93, the middle of u q2's truncation."""


def exp2_wide(t: Words[V], neg: W[V]) -> tuple[Words[V], W[V]]:
    """(R, k): 2**t = R / 2**95 * 2**k with R in [2**95, 2**96) three words,
    k a two's complement word, for t = T / 2**88 - 256 neg (T three words)."""
    t0 = t[0]
    k = (t0 >> 24) - (neg << 8)
    j, i = (t0 >> 17) & 127, (t0 >> 10) & 127
    u: Words[V] = (((t0 & 0x3FF) << 21) | (t[1] >> 11), (t[1] << 21) | (t[2] >> 11), t[2] << 21)
    dd = mw.add(mw.lookup(_DA, j, 2), mw.lookup(_DB, i, 2))  # (dA + dB) * 2**93
    u = mw.add(u, (dd[0] >> 16, (dd[0] << 16) | (dd[1] >> 16), dd[1] << 16))  # Q1.95
    u0, u01 = u[0], (u[0], u[1])
    q4 = _C4 + (mulhi32(u0, _C5) >> 16)  # 2**94
    q3 = mw.add(mw.const(u0, _C3, 2), shr_const(mul32(u0, q4), 15))  # 2**110
    q2 = mw.add(mw.const(u0, _C2, 2), shr_const(mulhi64_trunc(u01, (q3[0], q3[1])), 15))  # 2**94
    p = mulhi64_trunc(u01, (q2[0], q2[1]))  # u q2 2**93
    q1 = mw.add(mw.const(u0, _C1, 3), (p[0] >> 15, (p[0] << 17) | (p[1] >> 15), p[1] << 17))  # 2**110
    e = _mulhi(u, q1)  # E 2**109
    ab = mul32(j.lookup(_A), i.lookup(_B))  # A B 2**62
    r = mw.add(((ab[0] << 1) | (ab[1] >> 31), ab[1] << 1, u0.const(0)), shr_const(_mulhi(ab, e), 12))
    return r, k


assert _A[0] == _B[0] == 1 << 31 and _DA[0] == _DB[0] == 0
assert all(0 <= v < 1 << 63 for v in _DA + _DB)
assert _C5 < 1 << 32 and _C4 + (_C5 >> 16) < 1 << 32 and _C3 < 1 << 64 and _C2 < 1 << 64 and _C1 < 1 << 96
