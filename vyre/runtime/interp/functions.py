"""The interpreter's oracle of the correctly rounded functions (exp2 ...,
atan2, pow).

Independent of the soft-float code: each function of one or two operands is
evaluated in float64 by numpy (whose elementary functions are accurate to about one unit of the last
place of a double, 2**-52 relative), the result rounded once to the target
format. That rounding is certain unless the exact value lies near a rounding
boundary of the format: the float64 value is widened by a guard band of
2**-44 relative on both sides, and an input whose band rounds to two different
results is resolved exactly with MPFR (gmpy2: the function computed in a
context of the format's precision and exponent range, subnormals included,
which rounds directly to the format). A function of two operands (atan2, pow) takes
them in C's order and is flagged and resolved the same way. Exact results (exp2(3) = 8) are exact
float64 values and are not flagged; an exact midpoint (exp2(-150) = 2**-150)
is flagged and rounded to even by MPFR. Special values are the float64
function's (C's Annex F). NaN results are canonical.
"""

from __future__ import annotations

import importlib
import math
from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = ["FUNCTIONS", "correctly_rounded"]

_F64 = npt.NDArray[np.float64]
Bits = npt.NDArray[np.uint32]


def _exp10(x: _F64) -> _F64:
    return np.power(10.0, x)


def _erf(x: _F64) -> _F64:
    """erf in float64: the C library's (`math.erf`, within about 2**-52) where it
    varies; 2/sqrt(pi) x below 2**-28 (the x**3 term is under 2**-56 of it) and
    +-1 from 6 (erfc(6) < 2**-54)."""
    ax = np.abs(x)
    y = np.where(ax >= 6.0, np.sign(x), x * (2.0 / np.sqrt(np.pi)))
    middle = np.flatnonzero((ax >= 2.0**-28) & (ax < 6.0))
    if middle.size:
        values: Any = np.frompyfunc(math.erf, 1, 1)(x[middle])  # an object array
        y[middle] = np.asarray(values, dtype=np.float64)
    return y


FUNCTIONS: dict[str, tuple[Callable[..., _F64], str]] = {
    "exp2": (np.exp2, "exp2"),
    "exp": (np.exp, "exp"),
    "exp10": (_exp10, "exp10"),
    "log": (np.log, "log"),
    "log2": (np.log2, "log2"),
    "log10": (np.log10, "log10"),
    "sin": (np.sin, "sin"),
    "cos": (np.cos, "cos"),
    "tan": (np.tan, "tan"),
    "asin": (np.arcsin, "asin"),
    "acos": (np.arccos, "acos"),
    "atan": (np.arctan, "atan"),
    "atan2": (np.arctan2, "atan2"),
    "tanh": (np.tanh, "tanh"),
    "erf": (_erf, "erf"),
    "pow": (np.power, "pow"),
}
"""Function name -> (numpy float64 function, the MPFR (gmpy2) function's name);
the functions take as many operands as the op (atan2: y, x; pow: x, y)."""

def _mpfr_pow(x: Any, y: Any) -> Any:
    return x**y


_MPFR_OPERATORS: dict[str, Callable[[Any, Any], Any]] = {"pow": _mpfr_pow}
"""The MPFR functions gmpy2 spells as Python operators (pow is `**`)."""

_BAND = 2.0**-44
"""Relative guard band around the float64 value: 2**8 times numpy's error bound."""

# (precision incl. the hidden bit, MPFR emin, MPFR emax) of each format: MPFR's
# numbers are 0.1xxx * 2**e, so the smallest subnormal 2**-149 of F32 is 0.1 * 2**-148.
_MPFR_FORMATS = {"f32": (24, -148, 128), "f16": (11, -23, 16), "bf16": (8, -132, 128)}


def correctly_rounded(
    name: str,
    fmt: str,
    x: _F64,
    narrow: Callable[[_F64], Bits],
    nan: int,
    *more: _F64,
) -> Bits:
    """`name`(x, *more) rounded once to `fmt` (`narrow`: the exact RNE rounding of
    float64 values to the format) for exactly decoded operands of one shape
    (`more`: the second operand of a function of two, atan2's x)."""
    function, _ = FUNCTIONS[name]
    with np.errstate(all="ignore"):
        y = function(x, *more)
        result = narrow(y)
        low = narrow(y - np.abs(y) * _BAND)
        high = narrow(y + np.abs(y) * _BAND)
    unsure = np.flatnonzero((low != high) & np.isfinite(y))
    if unsure.size:
        result = result.copy()
        for k in unsure.tolist():
            operands = (float(x[k]), *(float(m[k]) for m in more))
            result[k] = _exact(name, fmt, operands, narrow, nan)
    return result


def _exact(
    name: str, fmt: str, xs: tuple[float, ...], narrow: Callable[[_F64], Bits], nan: int
) -> int:
    """`name`(*xs) rounded to `fmt` exactly (MPFR)."""
    precision, emin, emax = _MPFR_FORMATS[fmt]
    gmpy2: Any = importlib.import_module("gmpy2")  # untyped: MPFR's Python binding
    context = gmpy2.context(precision=precision, emin=emin, emax=emax, subnormalize=True)
    with gmpy2.context(context):
        mpfr_name = FUNCTIONS[name][1]
        function = _MPFR_OPERATORS.get(mpfr_name) or getattr(gmpy2, mpfr_name)
        value: Any = function(*(gmpy2.mpfr(x) for x in xs))
        as_float = float(value)
    if np.isnan(as_float):
        return nan
    return int(narrow(np.array([as_float]))[0])  # exact: the value is a value of the format
