"""erf(x), correctly rounded, for every format, in 64-bit fixed point.

erf is odd, so |x| is evaluated and the sign put back. |x| < 63/16 is cut into
127 intervals: two of width 1/64 on [0, 1/32), then width 1/32. Each has a
degree-7 polynomial in the position tau in [0, 1) inside it (`piecewise`:
Horner's rule on signed 64-bit words, the top two steps on single words), and
the first, [0, 1/64), the even polynomial erf(x) / (2x) so that tiny arguments
(subnormal ones included) keep their relative precision. The polynomials are
Chebyshev economisations of the Taylor series at each interval's left end,
computed in integers when first used:

    erf(x0 + t) = erf(x0) + 2/sqrt(pi) e**(-x0**2) * sum_j h_j t**(j + 1) / (j + 1)

with h the series of e**(-2 x0 t - t**2) (h_{j+1} = (-2 x0 h_j - 2 h_{j-1}) / (j + 1))
and erf(x0) = 2/sqrt(pi) e**(-x0**2) sum_n 2**n x0**(2n+1) / (2n+1)!! (positive
terms). The value, within 2**-58 of the result's scale, is rounded once to the
target format; |x| >= 63/16 gives +-1 (erf rounds to 1 from 3.9192059 in F32,
earlier in F16/BF16). `EXCEPTIONS` holds the inputs the fixed-point path rounds
the wrong way (none: see `bench/cr_check.py` and the docs for the searches).
"""

from __future__ import annotations

from fractions import Fraction
from functools import cache
from math import isqrt
from typing import TypeVar

from vyre.dialects import vyre as d
from vyre.transforms.softfloat.formats import Format
from vyre.transforms.softfloat.machine import W, sel
from vyre.transforms.softfloat.piecewise import ONE, PREC, Polynomials, Run, build, exp_fixed, fixed, odd_function
from vyre.transforms.softfloat.registry import algorithm

__all__ = ["EXCEPTIONS", "RUNS", "ferf", "polynomials"]

V = TypeVar("V")

RUNS = (Run(Fraction(0), Fraction(1, 32), 6), Run(Fraction(1, 32), Fraction(63, 16), 5))
"""Two intervals of width 1/64 on [0, 1/32), then width 1/32 to 63/16."""

EXCEPTIONS: dict[str, tuple[tuple[int, int], ...]] = {"f32": (), "f16": (), "bf16": ()}
"""(input pattern, result pattern) the fixed-point path rounds the wrong way."""


def _atan_inverse(n: int) -> int:
    """atan(1/n) * 2**PREC by its series."""
    total, term, k, sign = 0, ONE // n, 1, 1
    while term:
        total += sign * (term // k)
        term //= n * n
        k, sign = k + 2, -sign
    return total


def _two_over_sqrt_pi() -> int:
    pi = 16 * _atan_inverse(5) - 4 * _atan_inverse(239)  # Machin
    return (2 << 2 * PREC) // isqrt(pi << PREC)


def _series(x0: Fraction, n: int) -> list[int]:
    """The Taylor coefficients of erf at x0, c_0 .. c_n, scaled by 2**PREC."""
    x = fixed(x0)
    x2 = x * x >> PREC
    scale = _two_over_sqrt_pi() * ONE // exp_fixed(x2)  # 2/sqrt(pi) e**(-x0**2)
    total, term, k = 0, x, 0
    while term:
        total += term
        k += 1
        term = (term * 2 * x2 >> PREC) // (2 * k + 1)
    h = [ONE, -2 * x]
    for j in range(1, n):
        h.append((-2 * (x * h[j] >> PREC) - 2 * h[j - 1]) // (j + 1))
    return [scale * total >> PREC] + [(scale * h[j] >> PREC) // (j + 1) for j in range(n)]


@cache
def polynomials() -> Polynomials:
    """erf's coefficient tables (built once, on first use)."""
    p = build(_series, RUNS, 7)
    assert p.error < 1 << 5, p.error  # below 2**-58: 32 units of 2**-63
    return p


@algorithm(d.FErfOp)
def ferf(fmt: Format, a: W[V]) -> W[V]:
    """erf(a) of format `fmt`, correctly rounded (+-0 and +-1 exact, NaN canonical)."""
    res = odd_function(fmt, a, polynomials(), RUNS)
    for pattern, result in EXCEPTIONS[fmt.name]:
        res = sel(a.eq(pattern), result, res)
    return res
