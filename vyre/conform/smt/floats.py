"""Strict float laws proved in SMT floating-point theory (z3 FPA), for all inputs.

The values are bit patterns (F32, F16; BF16 is Float(8, 8)) read as IEEE
numbers; results are bit patterns with vyre's canonical NaN (docs/floats.md:
any NaN result is the positive quiet NaN with a zero payload), so laws are
statements about bits, as the float track checks them. What is feasible
(measured: `bench/bench_conform.py --prove`, test_smt_floats.py): the
commutativity of FAdd and FMul and the FNeg/FAbs laws prove in seconds at
F16 and F32; associativity-like laws are false for floats (the solver finds
the counterexample). Proving that the integer soft-float composition
(float-strict) equals the IEEE operation is a different, much larger query
(a bit-blasted adder against z3's), not attempted here: the exhaustive F16/
BF16 campaigns cover those formats instead.
"""

# pyright: reportUnknownMemberType=false, reportUnknownVariableType=false, reportUnknownArgumentType=false, reportMissingTypeStubs=false, reportUnknownParameterType=false, reportMissingParameterType=false, reportUnknownLambdaType=false, reportAttributeAccessIssue=false

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import z3

from vyre.conform.kinds import ProofStatus

__all__ = ["FLOAT_LAWS", "FORMATS", "FloatLawProof", "prove_float_law"]

FORMATS: dict[str, tuple[int, int]] = {"f16": (5, 11), "bf16": (8, 8), "f32": (8, 24)}
"""(exponent bits, significand bits incl. the hidden bit)."""


def _canonical_nan(ebits: int, sbits: int) -> Any:
    width = ebits + sbits
    return z3.BitVecVal(((1 << ebits) - 1) << (sbits - 1) | 1 << (sbits - 2), width)


def _bits(x: Any, ebits: int, sbits: int) -> Any:
    return z3.If(z3.fpIsNaN(x), _canonical_nan(ebits, sbits), z3.fpToIEEEBV(x))


def _value(bits: Any, ebits: int, sbits: int) -> Any:
    return z3.fpBVToFP(bits, z3.FPSort(ebits, sbits))


def _sign_flip(bits: Any) -> Any:
    width = bits.size()
    return bits ^ z3.BitVecVal(1 << (width - 1), width)


def _sign_clear(bits: Any) -> Any:
    width = bits.size()
    return bits & z3.BitVecVal((1 << (width - 1)) - 1, width)


Law = Callable[[Any, Any, int, int], Any]

FLOAT_LAWS: dict[str, Law] = {
    "fadd Commutative": lambda a, b, e, s: _bits(z3.fpAdd(z3.RNE(), _value(a, e, s), _value(b, e, s)), e, s)
    == _bits(z3.fpAdd(z3.RNE(), _value(b, e, s), _value(a, e, s)), e, s),
    "fmul Commutative": lambda a, b, e, s: _bits(z3.fpMul(z3.RNE(), _value(a, e, s), _value(b, e, s)), e, s)
    == _bits(z3.fpMul(z3.RNE(), _value(b, e, s), _value(a, e, s)), e, s),
    "fneg Involution": lambda a, b, e, s: _sign_flip(_sign_flip(a)) == a,
    "fabs Idempotent": lambda a, b, e, s: _sign_clear(_sign_clear(a)) == _sign_clear(a),
    "fadd Identity(-0)": lambda a, b, e, s: z3.Or(
        z3.fpIsNaN(_value(a, e, s)),
        _bits(z3.fpAdd(z3.RNE(), _value(a, e, s), z3.fpMinusZero(z3.FPSort(e, s))), e, s) == a,
    ),
    "fadd Associative": lambda a, b, e, s: _bits(
        z3.fpAdd(z3.RNE(), z3.fpAdd(z3.RNE(), _value(a, e, s), _value(b, e, s)), _value(b, e, s)), e, s
    ) == _bits(z3.fpAdd(z3.RNE(), _value(a, e, s), z3.fpAdd(z3.RNE(), _value(b, e, s), _value(b, e, s))), e, s),
}
"""Float laws over two bit-pattern variables (`fadd Associative` is stated as
(a+b)+b = a+(b+b): false, the solver's counterexample shows rounding)."""


@dataclass(frozen=True)
class FloatLawProof:
    """`status` (proved, counterexample or timeout), the solver's `seconds`, and
    for a counterexample the two bit patterns `values` (a, b)."""

    status: ProofStatus
    seconds: float
    values: tuple[int, int] | None = None


def prove_float_law(name: str, fmt: str, timeout: float = 30.0) -> FloatLawProof:
    """Decide the float law `name` (a key of FLOAT_LAWS) in the format `fmt`."""
    ebits, sbits = FORMATS[fmt]
    width = ebits + sbits
    a, b = z3.BitVec("a", width), z3.BitVec("b", width)
    solver = z3.Solver()
    solver.set("timeout", max(1, int(timeout * 1000)))
    solver.add(z3.Not(FLOAT_LAWS[name](a, b, ebits, sbits)))
    started = time.perf_counter()
    answer = solver.check()
    seconds = time.perf_counter() - started
    if answer == z3.unsat:
        return FloatLawProof(ProofStatus.PROVED, seconds)
    if answer == z3.sat:
        model = solver.model()
        first, second = (int(model.eval(v, model_completion=True).as_long()) for v in (a, b))
        return FloatLawProof(ProofStatus.COUNTEREXAMPLE, seconds, (first, second))
    return FloatLawProof(ProofStatus.TIMEOUT, seconds)
