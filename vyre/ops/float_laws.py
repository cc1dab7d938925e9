"""The float laws: what a strict F32 function satisfies for every input, as values.

The level L2f ("declared float laws verified") needs laws with a float
meaning; the twelve of `vyre.ops.laws` speak of u32 words (`Monotone` is the
unsigned order, `Bounded` unsigned bounds). A float law speaks of an op on
F32 bit patterns, the way vyre-conform checks it:

- the order is IEEE 754 totalOrder on non-NaN values (-inf < ... < -0 < +0 <
  ... < +inf), so a signed zero is a value like any other;
- every NaN result of a strict op is the canonical quiet NaN 0x7FC00000, and a
  law says what it requires of NaNs itself.

Correct rounding to nearest even is monotone and symmetric (RN(-x) = -RN(x)),
so a correctly rounded function keeps its exact function's odd or even
symmetry and monotonicity, and an exact range [lo, hi] becomes [RN(lo),
RN(hi)]: these laws are true for every input of such a function, and a
rounding bug that breaks them is a conformance failure.

Laws of one input variable speak of unary ops; `FloatOdd`, `FloatEven` and
`FloatRange` take `inputs=2` for a binary op, where they speak of its first
input (`atan2(-y, x) = -atan2(y, x)`) with the others free. `FloatExactCases`
fits the arity of its cases.
"""

from __future__ import annotations

import hashlib
import struct
from collections.abc import Iterable
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from vyre.ops.laws import Law

__all__ = [
    "CANONICAL_NAN",
    "F32_3PI_4",
    "F32_INF",
    "F32_NEG_INF",
    "F32_NEG_ONE",
    "F32_NEG_ZERO",
    "F32_ONE",
    "F32_PI",
    "F32_PI_2",
    "F32_PI_4",
    "F32_ZERO",
    "FLOAT_LAWS",
    "FloatEven",
    "FloatExactCases",
    "FloatLaw",
    "FloatMonotone",
    "FloatOdd",
    "FloatRange",
    "f32_bits",
    "f32_text",
    "is_nan_bits",
    "even_cases",
    "odd_cases",
    "order_key",
]

CANONICAL_NAN = 0x7FC0_0000
"""The one NaN a strict op returns."""

F32_ZERO, F32_NEG_ZERO = 0x0000_0000, 0x8000_0000
F32_ONE, F32_NEG_ONE = 0x3F80_0000, 0xBF80_0000
F32_INF, F32_NEG_INF = 0x7F80_0000, 0xFF80_0000
F32_PI = 0x4049_0FDB
"""RN(pi), as the bounds and exact cases of the inverse trigonometric functions
need it; likewise RN(pi/2), RN(pi/4) and RN(3 pi/4) below."""
F32_PI_2 = 0x3FC9_0FDB
F32_PI_4 = 0x3F49_0FDB
F32_3PI_4 = 0x4016_CBE4

_U32_MAX = 0xFFFF_FFFF
_SIGN = 0x8000_0000
_MAX_INPUTS = 3


def is_nan_bits(bits: int) -> bool:
    """Whether an F32 bit pattern is a NaN."""
    return (bits & 0x7FFF_FFFF) > 0x7F80_0000


def order_key(bits: int) -> int:
    """An unsigned key of an F32 bit pattern: keys of non-NaN patterns compare
    as IEEE 754 totalOrder (-0 before +0)."""
    return bits ^ _U32_MAX if bits & _SIGN else bits | _SIGN


def f32_bits(value: float) -> int:
    """The bit pattern of `value` rounded to F32 (exact for the values the laws name)."""
    return int.from_bytes(struct.pack("<f", value), "little")


def f32_text(bits: int) -> str:
    """The shortest decimal that reads back as the F32 pattern `bits` ("-0.0", "inf")."""
    return str(np.asarray([bits], dtype=np.uint32).view(np.float32)[0])


def _check_bits(law: str, what: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{law}: {what} must be an F32 bit pattern (an int), got {type(value).__name__}")
    if not 0 <= value <= _U32_MAX:
        raise ValueError(f"{law}: {what} must be an F32 bit pattern in [0, 2**32), got {value}")
    return value


def _check_inputs(law: str, inputs: object) -> None:
    if isinstance(inputs, bool) or not isinstance(inputs, int):
        raise TypeError(f"{law}: inputs must be an int, got {type(inputs).__name__}")
    if not 1 <= inputs <= _MAX_INPUTS:
        raise ValueError(f"{law}: inputs must be 1..{_MAX_INPUTS}, got {inputs}")


def _with_inputs(name: str, inputs: int) -> str:
    return name if inputs == 1 else f"{name}(inputs={inputs})"


@dataclass(frozen=True)
class FloatLaw(Law):
    """Base of the float laws (checked by vyre-conform's float relations)."""


@dataclass(frozen=True)
class FloatOdd(FloatLaw):
    """f(-a) = -f(a): odd in the first input. A NaN result is the same NaN on
    both sides, and a NaN first input gives the canonical NaN."""

    inputs: int = 1
    statement: ClassVar[str] = (
        "f(-a,…) = -f(a,…) for every a, a NaN result being the same NaN on both sides;"
        " f(NaN,…) = NaN (canonical)"
    )

    def __post_init__(self) -> None:
        _check_inputs("FloatOdd", self.inputs)

    @property
    def arity(self) -> int:
        return self.inputs

    def __str__(self) -> str:
        return _with_inputs(self.name, self.inputs)


@dataclass(frozen=True)
class FloatEven(FloatLaw):
    """f(-a) = f(a) bit for bit: even in the first input; a NaN first input
    gives the canonical NaN."""

    inputs: int = 1
    statement: ClassVar[str] = "f(-a,…) = f(a,…) for every a; f(NaN,…) = NaN (canonical)"

    def __post_init__(self) -> None:
        _check_inputs("FloatEven", self.inputs)

    @property
    def arity(self) -> int:
        return self.inputs

    def __str__(self) -> str:
        return _with_inputs(self.name, self.inputs)


@dataclass(frozen=True)
class FloatMonotone(FloatLaw):
    """f(a) ≤ f(a⁺) (≥ when `decreasing`) in totalOrder, a⁺ the F32 after a
    (+0 after -0), wherever a, a⁺, f(a) and f(a⁺) are not NaN. Over every input
    this is monotonicity on each run of inputs with non-NaN results (for the
    library's functions, one interval: their whole domain)."""

    decreasing: bool = False
    ARITY: ClassVar[int] = 1
    statement: ClassVar[str] = (
        "f(a) ≤ f(a⁺) (≥ if decreasing) in totalOrder, a⁺ the next F32 after a (+0 after -0),"
        " where a, a⁺, f(a), f(a⁺) are not NaN"
    )

    def __post_init__(self) -> None:
        if not isinstance(self.decreasing, bool):  # pyright: ignore[reportUnnecessaryIsInstance]
            raise TypeError(f"FloatMonotone: decreasing must be a bool, got {type(self.decreasing).__name__}")

    def __str__(self) -> str:
        return "FloatMonotone(decreasing)" if self.decreasing else self.name


@dataclass(frozen=True)
class FloatRange(FloatLaw):
    """lo ≤ f(a, …) ≤ hi in totalOrder for every non-NaN result; `lo` and `hi`
    are F32 bit patterns (a range of the exact function rounded: [RN(lo), RN(hi)])."""

    lo: int
    hi: int
    inputs: int = 1
    statement: ClassVar[str] = "lo ≤ f(a,…) ≤ hi in totalOrder (-0 < +0) for every non-NaN result"

    def __post_init__(self) -> None:
        lo = _check_bits("FloatRange", "lo", self.lo)
        hi = _check_bits("FloatRange", "hi", self.hi)
        _check_inputs("FloatRange", self.inputs)
        if is_nan_bits(lo) or is_nan_bits(hi):
            raise ValueError(f"FloatRange: the bounds must not be NaN, got {lo:#x}, {hi:#x}")
        if order_key(lo) > order_key(hi):
            raise ValueError(f"FloatRange: lo ({f32_text(lo)}) must not exceed hi ({f32_text(hi)})")

    @property
    def arity(self) -> int:
        return self.inputs

    def __str__(self) -> str:
        bounds = f"{f32_text(self.lo)}, {f32_text(self.hi)}"
        return f"{self.name}({bounds})" if self.inputs == 1 else f"{self.name}({bounds}, inputs={self.inputs})"


Case = tuple[tuple[int, ...], int]
"""(input bit patterns, result bit pattern)."""


@dataclass(frozen=True)
class FloatExactCases(FloatLaw):
    """f(x) = y bit for bit for every listed case (x, y): the results IEEE 754
    fixes (specials, signed zeros, infinities, NaN) and the exact ones
    (exp2(k) = 2**k, log2(2**k) = k)."""

    cases: tuple[Case, ...]
    statement: ClassVar[str] = "f(x) = y bit for bit for every listed case (x, y)"

    def __init__(self, cases: Iterable[tuple[Iterable[int], int]]):
        found: list[Case] = []
        for number, case in enumerate(cases):
            inputs, result = case
            values = tuple(_check_bits("FloatExactCases", f"input of case {number}", v) for v in inputs)
            found.append((values, _check_bits("FloatExactCases", f"result of case {number}", result)))
        if not found:
            raise ValueError("FloatExactCases: give at least one case")
        widths = {len(inputs) for inputs, _ in found}
        if len(widths) != 1 or not 1 <= min(widths) <= _MAX_INPUTS:
            raise ValueError(f"FloatExactCases: every case needs the same number of inputs (1..{_MAX_INPUTS})")
        seen: dict[tuple[int, ...], int] = {}
        for inputs, result in found:
            if seen.setdefault(inputs, result) != result:
                raise ValueError(f"FloatExactCases: two results for the inputs {[hex(v) for v in inputs]}")
        object.__setattr__(self, "cases", tuple(found))

    @property
    def arity(self) -> int:
        return len(self.cases[0][0])

    @property
    def fingerprint(self) -> str:
        """8 hex digits of a SHA-256 of the cases: what tells two case lists apart by name."""
        text = ";".join(",".join(f"{v:08x}" for v in (*inputs, result)) for inputs, result in self.cases)
        return hashlib.sha256(text.encode()).hexdigest()[:8]

    def __str__(self) -> str:
        return f"{self.name}({len(self.cases)} cases, {self.fingerprint})"


def _negated(bits: int) -> int:
    return bits if is_nan_bits(bits) else bits ^ _SIGN


def odd_cases(cases: Iterable[tuple[Iterable[int], int]]) -> list[Case]:
    """Each case (x, y) and its mirror (-x, -y) for a function odd in its first
    input (a NaN result stays as it is)."""
    out: list[Case] = []
    for inputs, result in cases:
        first, *rest = inputs
        out += [((first, *rest), result), ((first ^ _SIGN, *rest), _negated(result))]
    return out


def even_cases(cases: Iterable[tuple[Iterable[int], int]]) -> list[Case]:
    """Each case (x, y) and its mirror (-x, y) for a function even in its first input."""
    out: list[Case] = []
    for inputs, result in cases:
        first, *rest = inputs
        out += [((first, *rest), result), ((first ^ _SIGN, *rest), result)]
    return out


FLOAT_LAWS: tuple[type[FloatLaw], ...] = (FloatOdd, FloatEven, FloatMonotone, FloatRange, FloatExactCases)
"""The float law kinds."""
