"""Independent oracles of the strict float ops, one element at a time: exact
rationals (`fractions`) and numpy float64 for the arithmetic, MPFR (gmpy2) for
the correctly rounded functions. Written from docs/floats.md and C's
Annex F, sharing no code with vyre (the interpreter computes in float64 with a
guard band and falls back to MPFR; these oracles always ask MPFR, in a context
of the format's own precision and exponent range, subnormals included).

Values travel as bit patterns (Python ints) of a format ("f32", "f16",
"bf16"). `evaluate(name, variant, fmt, *operands)` is the result's pattern;
`name` is the op's short name (`add`, `cmp`, `sin`, `atan2`...), `variant` a
comparison's predicate. A function of the dialect that MPFR spells alike
(`tanh`, `erf`) needs nothing here; `has_oracle` says whether a name has one.
"""

from __future__ import annotations

import importlib
import math
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import numpy as np
from tensor_oracles import FORMATS, canonical, kind, round_rational, sign, to_fraction

__all__ = ["ARITHMETIC", "MPFR_NAMES", "evaluate", "has_oracle", "mpfr_function"]


def _width(fmt: str) -> int:
    return FORMATS[fmt][0]


def _infinity(fmt: str, negative: bool) -> int:
    width, ebits, fbits, _ = FORMATS[fmt]
    return ((1 << ebits) - 1) << fbits | (int(negative) << (width - 1))


def _zero(fmt: str, negative: bool) -> int:
    return int(negative) << (_width(fmt) - 1)


def to_float(bits: int, fmt: str) -> float:
    """The exact value of a pattern as a Python float (NaN: a NaN)."""
    k = kind(bits, fmt)
    if k == "nan":
        return math.nan
    if k == "inf":
        return -math.inf if sign(bits, fmt) else math.inf
    if k == "zero":
        return -0.0 if sign(bits, fmt) else 0.0
    return float(to_fraction(bits, fmt))


def from_float(value: float, fmt: str) -> int:
    """`value` rounded once to nearest-even in `fmt` (NaN canonical)."""
    if math.isnan(value):
        return canonical(fmt)
    if math.isinf(value):
        return _infinity(fmt, value < 0)
    return round_rational(Fraction(value), fmt, negative_zero=math.copysign(1.0, value) < 0)


def _wide(op: Callable[..., float]) -> Callable[[str, tuple[int, ...]], int]:
    """One float64 operation on the exact operands, rounded once to the format:
    exact for + - * / and sqrt (53 >= 2p + 2 bits: innocuous double rounding)."""

    def oracle(fmt: str, xs: tuple[int, ...]) -> int:
        with np.errstate(all="ignore"):
            value = float(op(*(np.float64(to_float(x, fmt)) for x in xs)))
        return from_float(value, fmt)

    return oracle


def _numeric_key(bits: int, fmt: str) -> tuple[Fraction, int]:
    """Order of non-NaN patterns, -0 just below +0."""
    if kind(bits, fmt) == "inf":
        return (Fraction(-(10**400)) if sign(bits, fmt) else Fraction(10**400), 0)
    return (to_fraction(bits, fmt), 0 if sign(bits, fmt) else 1)


def _extreme(maximum: bool) -> Callable[[str, tuple[int, ...]], int]:
    """maximumNumber / minimumNumber: an operand's own bits; a NaN loses to a
    number; two NaNs give the canonical NaN."""

    def oracle(fmt: str, xs: tuple[int, ...]) -> int:
        numbers = [x for x in xs if kind(x, fmt) != "nan"]
        if not numbers:
            return canonical(fmt)
        keyed = sorted(numbers, key=lambda b: _numeric_key(b, fmt))
        return keyed[-1] if maximum else keyed[0]

    return oracle


def _fma(fmt: str, xs: tuple[int, ...]) -> int:
    """a * b + c rounded once; specials as IEEE 754 lists them."""
    a, b, c = xs
    kinds = [kind(x, fmt) for x in xs]
    if "nan" in kinds:
        return canonical(fmt)
    product_sign = sign(a, fmt) ^ sign(b, fmt)
    if "inf" in kinds[:2]:
        if "zero" in kinds[:2]:
            return canonical(fmt)  # inf * 0
        if kinds[2] == "inf" and sign(c, fmt) != product_sign:
            return canonical(fmt)  # inf - inf
        return _infinity(fmt, bool(product_sign))
    if kinds[2] == "inf":
        return c
    total = to_fraction(a, fmt) * to_fraction(b, fmt) + to_fraction(c, fmt)
    if total == 0:
        product_zero = "zero" in kinds[:2]
        both_negative = product_zero and product_sign == 1 and sign(c, fmt) == 1 and kinds[2] == "zero"
        return _zero(fmt, both_negative)
    return round_rational(total, fmt)


def _integral(mode: str) -> Callable[[str, tuple[int, ...]], int]:
    """floor, ceil, round (half to even), trunc: exact, keeping the operand's
    sign on a zero result; infinities stay, NaN canonical."""

    def oracle(fmt: str, xs: tuple[int, ...]) -> int:
        (x,) = xs
        k = kind(x, fmt)
        if k == "nan":
            return canonical(fmt)
        if k in ("inf", "zero"):
            return x
        q = to_fraction(x, fmt)
        whole = {
            "floor": math.floor(q),
            "ceil": math.ceil(q),
            "trunc": math.trunc(q),
            "round": round(q),  # Fraction.__round__: half to even
        }[mode]
        return round_rational(Fraction(whole), fmt, negative_zero=q < 0)

    return oracle


def _compare(fmt: str, xs: tuple[int, ...], predicate: str) -> int:
    a, b = xs
    if kind(a, fmt) == "nan" or kind(b, fmt) == "nan":
        return int(predicate == "ne")
    ka, kb = _numeric_key(a, fmt)[0], _numeric_key(b, fmt)[0]
    return int(
        {"eq": ka == kb, "ne": ka != kb, "lt": ka < kb, "le": ka <= kb, "gt": ka > kb, "ge": ka >= kb}[predicate]
    )


def _sign_bit(flip: bool) -> Callable[[str, tuple[int, ...]], int]:
    def oracle(fmt: str, xs: tuple[int, ...]) -> int:
        top = 1 << (_width(fmt) - 1)
        return xs[0] ^ top if flip else xs[0] & (top - 1)

    return oracle


ARITHMETIC: dict[str, Callable[[str, tuple[int, ...]], int]] = {
    "add": _wide(np.add),
    "sub": _wide(np.subtract),
    "mul": _wide(np.multiply),
    "div": _wide(np.divide),
    "sqrt": _wide(np.sqrt),
    "min": _extreme(False),
    "max": _extreme(True),
    "fma": _fma,
    "neg": _sign_bit(True),
    "abs": _sign_bit(False),
    "floor": _integral("floor"),
    "ceil": _integral("ceil"),
    "round": _integral("round"),
    "trunc": _integral("trunc"),
    "is_nan": lambda fmt, xs: int(kind(xs[0], fmt) == "nan"),
    "is_inf": lambda fmt, xs: int(kind(xs[0], fmt) == "inf"),
}
"""The ops that are not functions, by short name (`cmp` takes its predicate apart)."""

def _mpfr_pow(x: Any, y: Any) -> Any:
    return x**y  # mpfr ** mpfr: MPFR's pow, correctly rounded in the context


MPFR_NAMES: dict[str, Callable[..., Any]] = {"pow": _mpfr_pow}
"""Functions whose MPFR spelling differs from the op's short name; every other
function is gmpy2's function of the same name."""

_MPFR_RANGE = {
    # precision (with the hidden bit), MPFR's emin and emax: MPFR numbers are
    # 0.1xxx * 2**e, so a format whose smallest subnormal is 2**s has emin s + 1
    # and one whose largest finite value is below 2**m has emax m.
    fmt: (fbits + 1, 2 - ((1 << (ebits - 1)) - 1) - fbits, 1 << (ebits - 1))
    for fmt, (_, ebits, fbits, _) in FORMATS.items()
}


def _gmpy2() -> Any:
    return importlib.import_module("gmpy2")  # MPFR's binding (untyped)


def mpfr_function(name: str) -> Callable[..., Any] | None:
    """gmpy2's function for the op `name`, or None."""
    found: Callable[..., Any] | None = MPFR_NAMES.get(name) or getattr(_gmpy2(), name, None)
    return found


def _function(name: str, fmt: str, xs: tuple[int, ...]) -> int:
    """The exact function rounded once to `fmt` by MPFR."""
    gmpy2 = _gmpy2()
    function = mpfr_function(name)
    if function is None:
        raise KeyError(f"no MPFR oracle for the float function `{name}`")
    precision, emin, emax = _MPFR_RANGE[fmt]
    with gmpy2.context(precision=precision, emin=emin, emax=emax, subnormalize=True, round=gmpy2.RoundToNearest):
        value = float(function(*(gmpy2.mpfr(to_float(x, fmt)) for x in xs)))
    return from_float(value, fmt)  # exact: MPFR's result is a value of the format


def has_oracle(name: str) -> bool:
    """Whether `evaluate` knows the op `name` (arithmetic, or an MPFR function)."""
    return name == "cmp" or name in ARITHMETIC or mpfr_function(name) is not None


def evaluate(name: str, variant: str, fmt: str, *operands: int) -> int:
    """The pattern the op `name` (a comparison's predicate: `variant`) gives on
    `operands` in `fmt`; a comparison or classification gives 0 or 1."""
    width = _width(fmt)
    xs = tuple(x & ((1 << width) - 1) for x in operands)
    if name == "cmp":
        return _compare(fmt, xs, variant)
    arithmetic = ARITHMETIC.get(name)
    if arithmetic is not None:
        return arithmetic(fmt, xs)
    return _function(name, fmt, xs)
