"""Exact constants of the inverse trigonometric functions, from integer series
at import (no float literal anywhere): pi by Machin's formula, atan of a
rational by Euler's series, asin of a rational by its Taylor series, and
floor(x * 2**P) of each at the working precision P = 128 bits (every value
below is within a few units of 2**-128 of the exact one, far below the 2**-110
the frames of the three-word tables keep).
"""

from __future__ import annotations

from math import isqrt

__all__ = ["P", "asin_fixed", "atan_fixed", "frame_table", "pi_fixed", "sqrt1m_fixed"]

P = 128
"""Bits after the binary point of the fixed-point constants."""

_GUARD = 16
"""Extra bits the series run with (their truncations stay below 2**-P)."""


def _atan_inverse(n: int, bits: int) -> int:
    """atan(1/n) * 2**bits for an integer n > 1: the alternating series."""
    total = 0
    power = (1 << bits) // n  # 2**bits / n**(2k + 1)
    k = 0
    n2 = n * n
    while power:
        term = power // (2 * k + 1)
        total += -term if k & 1 else term
        power //= n2
        k += 1
    return total


def _pi(bits: int) -> int:
    """pi * 2**bits (Machin: pi = 16 atan(1/5) - 4 atan(1/239))."""
    work = bits + _GUARD
    return (16 * _atan_inverse(5, work) - 4 * _atan_inverse(239, work)) >> _GUARD


def pi_fixed(shift: int = 0) -> int:
    """floor(pi * 2**(P + shift)) (shift >= -P)."""
    return _PI >> -shift if shift < 0 else _PI << shift


def atan_fixed(p: int, q: int) -> int:
    """floor(atan(p / q) * 2**P) for 0 <= p <= q (Euler's series:
    atan(x) = sum (2k)!! / (2k + 1)!! * x / (1 + x**2) * (x**2 / (1 + x**2))**k,
    whose ratio is at most 1/2)."""
    if p == 0:
        return 0
    work = P + _GUARD
    s = p * p + q * q
    term = (p * q << work) // s
    total = 0
    k = 0
    while term:
        total += term
        k += 1
        term = term * (2 * k) * p * p // ((2 * k + 1) * s)
    return total >> _GUARD


def asin_fixed(p: int, q: int) -> int:
    """floor(asin(p / q) * 2**P) for 0 <= p, 2 p**2 <= q**2 (the Taylor series
    sum (2k)! / (4**k (k!)**2 (2k + 1)) x**(2k + 1), ratio at most 1/2)."""
    work = P + _GUARD
    power = (p << work) // q  # x**(2k + 1) * c_k, the coefficient without 1/(2k + 1)
    total = 0
    k = 0
    while power:
        total += power // (2 * k + 1)
        k += 1
        power = power * (2 * k - 1) * p * p // (2 * k * q * q)
    return total >> _GUARD


def sqrt1m_fixed(p: int, q: int) -> int:
    """floor(sqrt(1 - (p / q)**2) * 2**P) for 0 <= p <= q."""
    return isqrt(((q * q - p * p) << (2 * P)) // (q * q))


def frame_table(values: tuple[int, ...], bits: int, exponents: tuple[int, ...]) -> tuple[int, ...]:
    """Each value (a fixed-point number of P fraction bits) as an integer of
    `bits` bits whose top bit (bit `bits - 1`) stands for 2**(exponent + 1):
    floor(value * 2**(bits - 2 - exponent)), the value's own frame."""
    out: list[int] = []
    for value, e in zip(values, exponents, strict=True):
        shift = P - (bits - 2 - e)
        out.append(value >> shift if shift >= 0 else value << -shift)
    return tuple(out)


_PI = _pi(P)
