"""Natural logarithms of rationals as exact integers, for the constants of the
correctly rounded functions (exp.py, log.py), computed at import with integer
arithmetic only (no float literal decides a bit of a coefficient or a table).
"""

from __future__ import annotations

from fractions import Fraction

__all__ = ["LN2", "ONE", "ln"]

ONE = 1 << 200
"""The scale of `ln`'s results."""


def ln(numerator: int, denominator: int) -> int:
    """ln(numerator / denominator) * 2**200, within 2**-190 relative, for
    1 <= numerator / denominator <= 2: 2 * atanh(u) = 2 * (u + u**3/3 + ...)
    with u = (n - d) / (n + d) <= 1/3 (every term floored)."""
    if not denominator <= numerator <= 2 * denominator:
        raise ValueError(f"ln: {numerator}/{denominator} is outside [1, 2]")
    u = (numerator - denominator) * ONE // (numerator + denominator)
    u2 = u * u // ONE
    total, power, k = 0, u, 1
    while power:
        total += power // k
        power = power * u2 // ONE
        k += 2
    return 2 * total


LN2 = Fraction(ln(2, 1), ONE)
"""ln 2 to about 2**-190."""
