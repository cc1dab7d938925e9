"""tanh(x), correctly rounded, for every format, in 64-bit fixed point.

tanh is odd, so |x| is evaluated and the sign put back. |x| < 73/8 is cut into
137 intervals: width 1/32 on [0, 2), 1/16 on [2, 4) and 1/8 on [4, 73/8) (the
derivatives of tanh fall like e**(-2x), so wider intervals keep the same
accuracy). Each has a degree-8 polynomial in the position tau in [0, 1) inside
it (`piecewise`: Horner's rule on signed 64-bit words, the top steps on single
words), and the first, [0, 1/32), the even polynomial tanh(x) / (2x) so that
tiny arguments keep their relative precision (up to 2**-12 tanh(x) rounds to x
in F32; from 2**-11 on, a power of two rounds to the number below it). The
polynomials are Chebyshev economisations of the Taylor series at each
interval's left end, computed in integers when first used from y = tanh(x0 + t),
y' = 1 - y**2:

    y_{k+1} = ([k = 0] - sum_{j <= k} y_j y_{k-j}) / (k + 1),  y_0 = (e**2x0 - 1) / (e**2x0 + 1)

The value, within 2**-58 of the result's scale, is rounded once to the target
format; |x| >= 73/8 gives +-1 (tanh rounds to 1 from 9.0109134 in F32, earlier
in F16/BF16). `EXCEPTIONS` holds the inputs the fixed-point path rounds the
wrong way (none: see `bench/cr_check.py` and the docs for the searches).
"""

from __future__ import annotations

from fractions import Fraction
from functools import cache
from typing import TypeVar

from vyre.dialects import vyre as d
from vyre.transforms.softfloat.formats import Format
from vyre.transforms.softfloat.machine import W, sel
from vyre.transforms.softfloat.piecewise import ONE, PREC, Polynomials, Run, build, exp_fixed, fixed, odd_function
from vyre.transforms.softfloat.registry import algorithm

__all__ = ["EXCEPTIONS", "RUNS", "ftanh", "polynomials"]

V = TypeVar("V")

RUNS = (
    Run(Fraction(0), Fraction(2), 5),
    Run(Fraction(2), Fraction(4), 4),
    Run(Fraction(4), Fraction(73, 8), 3),
)
"""Intervals of width 1/32, 1/16 and 1/8."""

EXCEPTIONS: dict[str, tuple[tuple[int, int], ...]] = {"f32": (), "f16": (), "bf16": ()}
"""(input pattern, result pattern) the fixed-point path rounds the wrong way."""


def _series(x0: Fraction, n: int) -> list[int]:
    """The Taylor coefficients of tanh at x0, y_0 .. y_n, scaled by 2**PREC."""
    e = exp_fixed(2 * fixed(x0))
    y = [((e - ONE) << PREC) // (e + ONE)]
    for k in range(n):
        s = sum(y[j] * y[k - j] for j in range(k + 1)) >> PREC
        y.append(((ONE if k == 0 else 0) - s) // (k + 1))
    return y


@cache
def polynomials() -> Polynomials:
    """tanh's coefficient tables (built once, on first use)."""
    p = build(_series, RUNS, 8)
    assert p.error < 1 << 5, p.error  # below 2**-58: 32 units of 2**-63
    return p


@algorithm(d.FTanhOp)
def ftanh(fmt: Format, a: W[V]) -> W[V]:
    """tanh(a) of format `fmt`, correctly rounded (+-0 and +-1 exact, NaN canonical)."""
    res = odd_function(fmt, a, polynomials(), RUNS)
    for pattern, result in EXCEPTIONS[fmt.name]:
        res = sel(a.eq(pattern), result, res)
    return res
