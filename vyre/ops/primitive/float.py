"""`primitive.float`: strict IEEE 754 binary32 operations (docs/floats.md).

Every op is Category A: its composition is the vyre float operation itself
(`vyre.fadd`, ...), which the `float-strict` pass rewrites into integer IR, so a
call costs what the hand-written float expression costs. Inputs and outputs are
F32; the CPU references take and return `np.float32` arrays.

The references are independent of the soft-float rewrite and of the interpreter:
numpy float32 arithmetic (correctly rounded, subnormals kept on x86) for add, sub,
mul, div and sqrt; exact float64 products with a round-to-odd sum for fma; sign
bit operations for neg and abs; numpy's rounding functions (which keep the sign
of zero) for floor, ceil, round (half to even) and trunc; MPFR in a binary32
context for the correctly rounded functions (exp2, asin, acos, atan, atan2, pow).
Every NaN result is the canonical quiet NaN 0x7FC00000.

Laws are the ones that hold for every input, NaN payloads included: add, mul,
min and max commute (a NaN result is canonical whatever the order); min and max
associate; neg is an involution.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt

from vyre.dialects import vyre as d
from vyre.dialects.tables import OpTable
from vyre.ir import DataType, Expr, float_op_expr
from vyre.ops import float_laws as FL
from vyre.ops import laws as L
from vyre.ops.laws import Law
from vyre.ops.spec import EquivalenceClass, OpSignature, OpSpec

P = "primitive.float."

F32Array = npt.NDArray[np.float32]

CANONICAL_NAN = 0x7FC0_0000
SIGN = 0x8000_0000

F32_BOUNDARIES: tuple[int, ...] = (
    0x0000_0000,  # +0
    0x8000_0000,  # -0
    0x0000_0001,  # smallest subnormal
    0x007F_FFFF,  # largest subnormal
    0x0080_0000,  # smallest normal
    0x3F80_0000,  # 1
    0xBF80_0000,  # -1
    0x7F7F_FFFF,  # largest finite
    0x7F80_0000,  # +inf
    0xFF80_0000,  # -inf
    0x7FC0_0000,  # canonical NaN
    0xFFC0_0001,  # negative NaN with a payload
    0x7F80_0001,  # signalling NaN
)
"""Bit patterns every F32 op is exercised at."""


def _f32(x: Any) -> F32Array:
    return np.asarray(x, dtype=np.float32)


def _bits(x: Any) -> npt.NDArray[np.uint32]:
    return np.ascontiguousarray(_f32(x)).view(np.uint32)


def _from_bits(bits: Any) -> F32Array:
    return np.asarray(bits, dtype=np.uint32).view(np.float32)


def _canonical(result: Any) -> F32Array:
    """`result` as float32 with every NaN replaced by the canonical quiet NaN."""
    out = _bits(result).copy()
    out[np.isnan(_from_bits(out))] = CANONICAL_NAN
    return _from_bits(out)


def _arith(fn: Callable[[F32Array, F32Array], Any]) -> Callable[[Any, Any], F32Array]:
    def reference(a: Any, b: Any) -> F32Array:
        with np.errstate(all="ignore"):
            return _canonical(fn(_f32(a), _f32(b)))

    return reference


def _sqrt(a: Any) -> F32Array:
    with np.errstate(all="ignore"):
        return _canonical(np.sqrt(_f32(a)))


def _fma(a: Any, b: Any, c: Any) -> F32Array:
    """a * b + c rounded once: the product is exact in float64 (48 bits); the sum
    is rounded to odd in float64 (53 >= 24 + 2 bits), then to float32 once."""
    with np.errstate(all="ignore"):
        x, y, z = (_f32(v).astype(np.float64) for v in (a, b, c))
        p = x * y
        s = p + z
        # TwoSum: the exact error of the float64 sum
        bb = s - p
        err = (p - (s - bb)) + (z - bb)
        odd = (s.view(np.uint64) & np.uint64(1)) == 1
        fix = (err != 0) & ~odd & np.isfinite(s)
        toward = np.where(err > 0, np.inf, -np.inf)
        s = np.where(fix, np.nextafter(s, toward), s)
        exact_zero = (s == 0) & (err == 0)
        # an exact zero sum is -0 only when both addends are -0
        both_negative = np.signbit(p) & np.signbit(z)
        s = np.where(exact_zero, np.where(both_negative, -0.0, 0.0), s)
        return _canonical(s.astype(np.float32))


def _min_max(pick_min: bool) -> Callable[[Any, Any], F32Array]:
    """IEEE 754-2019 minimumNumber / maximumNumber: a NaN operand is ignored
    when the other is a number, -0 < +0, two NaNs give the canonical NaN."""

    def reference(a: Any, b: Any) -> F32Array:
        x, y = _f32(a), _f32(b)
        with np.errstate(all="ignore"):
            chosen = np.fmin(x, y) if pick_min else np.fmax(x, y)
        zeros = (x == 0) & (y == 0)
        xs, ys = _bits(x), _bits(y)
        signed_zero = (xs | ys) if pick_min else (xs & ys)
        out = np.where(zeros, _from_bits(signed_zero), chosen)
        return _canonical(out)

    return reference


def _neg(a: Any) -> F32Array:
    return _from_bits(_bits(a) ^ np.uint32(SIGN))


def _abs(a: Any) -> F32Array:
    return _from_bits(_bits(a) & np.uint32(~SIGN & 0xFFFF_FFFF))


def _mpfr_pow(x: Any, y: Any) -> Any:
    """MPFR's pow: gmpy2 spells it `**`."""
    return x**y


def _mpfr(name: str) -> Callable[[Any], F32Array]:
    """A correctly rounded function computed element by element with MPFR in a
    binary32 context (24 bits, the F32 exponent range, subnormals): exact, slow,
    and independent of the interpreter's float64-and-guard-band oracle."""

    def reference(*operands: Any) -> F32Array:
        gmpy2: Any = importlib.import_module("gmpy2")  # untyped: MPFR's Python binding
        xs = np.broadcast_arrays(*(_f32(a) for a in operands))
        out = np.empty(xs[0].shape, dtype=np.float32)
        context = gmpy2.context(precision=24, emin=-148, emax=128, subnormalize=True)
        with gmpy2.context(context):
            function: Any = _mpfr_pow if name == "pow" else getattr(gmpy2, name)
            columns = [x.reshape(-1).tolist() for x in xs]
            for k, values in enumerate(zip(*columns)):
                out.reshape(-1)[k] = float(function(*(gmpy2.mpfr(v) for v in values)))
        return _canonical(out)

    return reference


def _integral(fn: Callable[[F32Array], Any]) -> Callable[[Any], F32Array]:
    def reference(a: Any) -> F32Array:
        with np.errstate(all="ignore"):
            return _canonical(fn(_f32(a)))

    return reference


_CLASSES = (
    EquivalenceClass("zeros and subnormals", [(0x0000_0000,), (0x8000_0001,), (0x007F_FFFF,)]),
    EquivalenceClass("normal numbers", [(0x3F80_0000,), (0xC0490FDB,), (0x7F7F_FFFF,)]),
    EquivalenceClass("infinities and NaNs", [(0x7F80_0000,), (0xFF80_0000,), (0x7FC0_0000,)]),
)


LIBRARY: OpTable[type[d.FloatOp], OpSpec] = OpTable(
    "float library ops (primitive.float)",
    lambda: [op for op in d.strict_float_ops() if op.RESULT is None],
)
"""The `primitive.float.<short name>` op of every strict float op that yields a
float (comparisons and classifications are not library ops)."""


def _op(
    op: type[d.FloatOp],
    reference: Callable[..., F32Array],
    hard_cases: EquivalenceClass,
    laws: tuple[Law, ...] = (),
    summary: str = "",
) -> OpSpec:
    """The F32 library op of the dialect's op class `op`: id, arity and composition
    come from the class; `hard_cases` is the class of inputs its algorithm finds
    hardest (and what sets its rule material apart from the other float ops')."""
    arity = op.ARITY
    classes = tuple(
        EquivalenceClass(c.description, [rep * arity for rep in c.representatives]) for c in _CLASSES
    ) + (hard_cases,)

    def composition(*operands: Expr) -> Expr:
        return float_op_expr(op, operands)

    spec = OpSpec(
        id=P + op.SHORT_NAME,
        version=1,
        signature=OpSignature(inputs=[DataType.F32] * arity, output=DataType.F32),
        category="A",
        reference=reference,
        composition=composition,
        laws=laws,
        equivalence_classes=classes,
        boundaries=F32_BOUNDARIES,
        summary=summary,
    )
    LIBRARY.add(op, spec)
    return spec


def _hard(description: str, *representatives: tuple[int, ...]) -> EquivalenceClass:
    return EquivalenceClass(description, representatives)


SPECS: tuple[OpSpec, ...] = (
    _op(d.FAddOp, _arith(np.add),
        _hard("cancellation", (0x3F80_0000, 0xBF80_0000), (0x3F80_0001, 0xBF80_0000)),
        (L.Commutative(),), "a + b, RNE"),
    _op(d.FSubOp, _arith(np.subtract),
        _hard("equal operands", (0x3F80_0000, 0x3F80_0000), (0x7F80_0000, 0x7F80_0000)),
        summary="a - b, RNE"),
    _op(d.FMulOp, _arith(np.multiply),
        _hard("overflow and underflow", (0x7F00_0000, 0x4000_0000), (0x0080_0000, 0x3F00_0000)),
        (L.Commutative(),), "a * b, RNE"),
    _op(d.FDivOp, _arith(np.divide),
        _hard("zero divisors", (0x3F80_0000, 0x0000_0000), (0x0000_0000, 0x0000_0000)),
        summary="a / b, correctly rounded"),
    _op(d.FmaOp, _fma,
        _hard("exact product beside a tiny addend", (0x3F80_0001, 0x3F80_0001, 0x0C00_0000)),
        summary="a * b + c, one rounding"),
    _op(d.FSqrtOp, _sqrt,
        _hard("negative operands", (0xBF80_0000,), (0x8000_0001,)),
        summary="sqrt(a), correctly rounded"),
    _op(d.FMinOp, _min_max(True),
        _hard("signed zeros: min is -0", (0x8000_0000, 0x0000_0000), (0x0000_0000, 0x8000_0000)),
        (L.Commutative(), L.Associative()), "IEEE 754-2019 minimumNumber"),
    _op(d.FMaxOp, _min_max(False),
        _hard("signed zeros: max is +0", (0x8000_0000, 0x0000_0000), (0x0000_0000, 0x8000_0000)),
        (L.Commutative(), L.Associative()), "IEEE 754-2019 maximumNumber"),
    _op(d.FNegOp, _neg,
        _hard("NaN payloads keep their bits", (0x7FC0_0001,), (0xFF80_0001,)),
        (L.Involution(),), "sign bit flipped"),
    _op(d.FAbsOp, _abs,
        _hard("negative NaN payloads", (0xFFC0_0001,), (0x8000_0000,)),
        summary="sign bit cleared"),
    _op(d.FFloorOp, _integral(np.floor),
        _hard("negative fractions", (0xBF00_0000,), (0xBF80_0001,)), summary="round down"),
    _op(d.FCeilOp, _integral(np.ceil),
        _hard("positive fractions", (0x3F00_0000,), (0x3F80_0001,)), summary="round up"),
    _op(d.FRoundOp, _integral(np.rint),
        _hard("halfway cases", (0x3FC0_0000,), (0x4020_0000,), (0xBEE6_6666,)),
        summary="round half to even"),
    _op(d.FTruncOp, _integral(np.trunc),
        _hard("magnitudes below one", (0xBF33_3333,), (0x3F7F_FFFF,)), summary="round toward zero"),
    _op(d.FExp2Op, _mpfr("exp2"),
        _hard("integers, ties and the range ends", (0x4040_0000,), (0xC316_0000,), (0xC315_8000,),
              (0x42FF_FFFF,), (0xB52D_1F9A,), (0x3B42_9D37,)),
        (FL.FloatMonotone(), FL.FloatRange(FL.F32_ZERO, FL.F32_INF),
         FL.FloatExactCases([((FL.f32_bits(k),), FL.f32_bits(2.0**k)) for k in range(-149, 128)] + [
             ((FL.F32_NEG_ZERO,), FL.F32_ONE), ((FL.f32_bits(128),), FL.F32_INF),
             ((FL.f32_bits(-150),), FL.F32_ZERO), ((FL.F32_INF,), FL.F32_INF),
             ((FL.F32_NEG_INF,), FL.F32_ZERO), ((FL.CANONICAL_NAN,), FL.CANONICAL_NAN)])),
        summary="2**a, correctly rounded"),
    _op(d.FExpOp, _mpfr("exp"),
        _hard("zero, the range ends and the hardest inputs", (0x0000_0000,), (0x42B1_7218,),
              (0xC2CF_F1B5,), (0xC169_12CD,), (0xBBF0_EDF1,)),
        (FL.FloatMonotone(), FL.FloatRange(FL.F32_ZERO, FL.F32_INF),
         FL.FloatExactCases([
             ((FL.F32_ZERO,), FL.F32_ONE), ((FL.F32_NEG_ZERO,), FL.F32_ONE), ((FL.F32_INF,), FL.F32_INF),
             ((FL.F32_NEG_INF,), FL.F32_ZERO), ((FL.CANONICAL_NAN,), FL.CANONICAL_NAN)])),
        summary="e**a, correctly rounded"),
    _op(d.FExp10Op, _mpfr("exp10"),
        _hard("powers of ten, the range ends and the hardest inputs", (0x4040_0000,), (0x4120_0000,),
              (0x421A_209B,), (0xC234_9E35,), (0xBAC4_C65C,), (0x417D_7F60,)),
        (FL.FloatMonotone(), FL.FloatRange(FL.F32_ZERO, FL.F32_INF),
         FL.FloatExactCases([((FL.f32_bits(k),), FL.f32_bits(10.0**k)) for k in range(11)] + [
             ((FL.F32_NEG_ZERO,), FL.F32_ONE), ((FL.F32_INF,), FL.F32_INF),
             ((FL.F32_NEG_INF,), FL.F32_ZERO), ((FL.CANONICAL_NAN,), FL.CANONICAL_NAN)])),
        summary="10**a, correctly rounded"),
    _op(d.FLogOp, _mpfr("log"),
        _hard("one, its neighbours and subnormals", (0x3F80_0000,), (0x3F80_0001,), (0x3F7F_FFFF,),
              (0x0000_0001,)),
        (FL.FloatMonotone(),
         FL.FloatExactCases([
             ((FL.F32_ONE,), FL.F32_ZERO), ((FL.F32_ZERO,), FL.F32_NEG_INF), ((FL.F32_NEG_ZERO,), FL.F32_NEG_INF), ((FL.F32_INF,), FL.F32_INF),
             ((FL.F32_NEG_INF,), FL.CANONICAL_NAN), ((FL.F32_NEG_ONE,), FL.CANONICAL_NAN),
             ((0x8000_0001,), FL.CANONICAL_NAN), ((FL.CANONICAL_NAN,), FL.CANONICAL_NAN)])),
        summary="the natural logarithm, correctly rounded"),
    _op(d.FLog2Op, _mpfr("log2"),
        _hard("powers of two, the neighbours of one and subnormals", (0x4100_0000,), (0x3F80_0001,),
              (0x3F7F_FFFF,), (0x0000_0001,), (0x4020_7AB9,)),
        (FL.FloatMonotone(),
         FL.FloatExactCases([((FL.f32_bits(2.0**k),), FL.f32_bits(k)) for k in range(-149, 128)] + [
             ((FL.F32_ZERO,), FL.F32_NEG_INF), ((FL.F32_NEG_ZERO,), FL.F32_NEG_INF), ((FL.F32_INF,), FL.F32_INF),
             ((FL.F32_NEG_INF,), FL.CANONICAL_NAN), ((FL.F32_NEG_ONE,), FL.CANONICAL_NAN),
             ((0x8000_0001,), FL.CANONICAL_NAN), ((FL.CANONICAL_NAN,), FL.CANONICAL_NAN)])),
        summary="the base-2 logarithm, correctly rounded"),
    _op(d.FLog10Op, _mpfr("log10"),
        _hard("powers of ten, the neighbours of one and subnormals", (0x447A_0000,), (0x3F80_0001,),
              (0x3F7F_FFFF,), (0x0000_0001,)),
        (FL.FloatMonotone(),
         FL.FloatExactCases([((FL.f32_bits(10.0**k),), FL.f32_bits(k)) for k in range(11)] + [
             ((FL.F32_ZERO,), FL.F32_NEG_INF), ((FL.F32_NEG_ZERO,), FL.F32_NEG_INF), ((FL.F32_INF,), FL.F32_INF),
             ((FL.F32_NEG_INF,), FL.CANONICAL_NAN), ((FL.F32_NEG_ONE,), FL.CANONICAL_NAN),
             ((0x8000_0001,), FL.CANONICAL_NAN), ((FL.CANONICAL_NAN,), FL.CANONICAL_NAN)])),
        summary="the base-10 logarithm, correctly rounded"),
    _op(d.FSinOp, _mpfr("sin"),
        _hard("nearest multiples of pi, huge and tiny arguments", (0x6F79_BE45,), (0x50A3_E87F,),
              (0x4049_0FDB,), (0x7F7F_FFFF,), (0x3980_0000,), (0x397F_FFFF,), (0x8000_0000,)),
        (FL.FloatOdd(), FL.FloatRange(FL.F32_NEG_ONE, FL.F32_ONE),
         FL.FloatExactCases(FL.odd_cases([
             ((FL.F32_ZERO,), FL.F32_ZERO), ((FL.F32_INF,), FL.CANONICAL_NAN), ((0x0000_0001,), 0x0000_0001), ((0x007F_FFFF,), 0x007F_FFFF), ((0x0080_0000,), 0x0080_0000),
             ((0x3580_0000,), 0x3580_0000)]))),
        summary="sin(a), correctly rounded"),
    _op(d.FCosOp, _mpfr("cos"),
        _hard("nearest odd multiples of pi/2, huge and tiny arguments", (0x6F79_BE45,),
              (0x3FC9_0FDB,), (0x7F7F_FFFF,), (0x3980_0000,), (0x397F_FFFF,), (0x8000_0000,)),
        (FL.FloatEven(), FL.FloatRange(FL.F32_NEG_ONE, FL.F32_ONE),
         FL.FloatExactCases(FL.even_cases([
             ((FL.F32_ZERO,), FL.F32_ONE), ((FL.F32_INF,), FL.CANONICAL_NAN), ((0x0000_0001,), FL.F32_ONE),
             ((0x0080_0000,), FL.F32_ONE), ((0x3580_0000,), FL.F32_ONE),
             ((FL.CANONICAL_NAN,), FL.CANONICAL_NAN)]))),
        summary="cos(a), correctly rounded"),
    _op(d.FTanOp, _mpfr("tan"),
        _hard("poles and zeros of the nearest multiples of pi/2", (0x6F79_BE45,), (0x50A3_E87F,),
              (0x3FC9_0FDB,), (0x7F7F_FFFF,), (0x3980_0000,), (0x397F_FFFF,), (0x8000_0000,)),
        (FL.FloatOdd(),
         FL.FloatExactCases(FL.odd_cases([
             ((FL.F32_ZERO,), FL.F32_ZERO), ((FL.F32_INF,), FL.CANONICAL_NAN), ((0x0000_0001,), 0x0000_0001), ((0x007F_FFFF,), 0x007F_FFFF), ((0x0080_0000,), 0x0080_0000),
             ((0x3580_0000,), 0x3580_0000)]))),
        summary="tan(a), correctly rounded"),
    _op(d.FAsinOp, _mpfr("asin"),
        _hard("the ends of the domain and beyond", (0x3F80_0000,), (0xBF7F_FFFF,), (0x3F80_0001,),
              (0x3F35_04F3,), (0x3900_0001,)),
        (FL.FloatOdd(), FL.FloatMonotone(), FL.FloatRange(FL.F32_PI_2 ^ SIGN, FL.F32_PI_2),
         FL.FloatExactCases(FL.odd_cases([
             ((FL.F32_ZERO,), FL.F32_ZERO), ((FL.F32_ONE,), FL.F32_PI_2), ((0x3F80_0001,), FL.CANONICAL_NAN),
             ((FL.F32_INF,), FL.CANONICAL_NAN), ((0x0000_0001,), 0x0000_0001), ((0x007F_FFFF,), 0x007F_FFFF), ((0x0080_0000,), 0x0080_0000),
             ((0x3580_0000,), 0x3580_0000)]))),
        summary="asin(a), correctly rounded"),
    _op(d.FAcosOp, _mpfr("acos"),
        _hard("near one, where acos is tiny", (0x3F80_0000,), (0x3F7F_FFFF,), (0xBF80_0000,),
              (0x3F35_04F3,), (0x0000_0001,)),
        (FL.FloatMonotone(decreasing=True), FL.FloatRange(FL.F32_ZERO, FL.F32_PI),
         FL.FloatExactCases([
             ((FL.F32_ONE,), FL.F32_ZERO), ((FL.F32_NEG_ONE,), FL.F32_PI), ((FL.F32_ZERO,), FL.F32_PI_2),
             ((FL.F32_NEG_ZERO,), FL.F32_PI_2), ((0x3F80_0001,), FL.CANONICAL_NAN),
             ((0xBF80_0001,), FL.CANONICAL_NAN), ((FL.F32_INF,), FL.CANONICAL_NAN),
             ((FL.F32_NEG_INF,), FL.CANONICAL_NAN), ((FL.CANONICAL_NAN,), FL.CANONICAL_NAN)])),
        summary="acos(a), correctly rounded"),
    _op(d.FAtanOp, _mpfr("atan"),
        _hard("one, tiny and huge arguments", (0x3F80_0000,), (0x3F7F_FFFF,), (0x3980_0001,),
              (0x4C70_0518,), (0xFF80_0000,)),
        (FL.FloatOdd(), FL.FloatMonotone(), FL.FloatRange(FL.F32_PI_2 ^ SIGN, FL.F32_PI_2),
         FL.FloatExactCases(FL.odd_cases([
             ((FL.F32_ZERO,), FL.F32_ZERO), ((FL.F32_ONE,), FL.F32_PI_4), ((FL.F32_INF,), FL.F32_PI_2),
             ((0x7F7F_FFFF,), FL.F32_PI_2), ((0x0000_0001,), 0x0000_0001), ((0x007F_FFFF,), 0x007F_FFFF), ((0x0080_0000,), 0x0080_0000),
             ((0x3580_0000,), 0x3580_0000)]))),
        summary="atan(a), correctly rounded"),
    _op(d.FAtan2Op, _mpfr("atan2"),
        _hard("signed zeros, infinities and far-apart magnitudes", (0x8000_0000, 0x8000_0000),
              (0x7F80_0000, 0xFF80_0000), (0x0000_0001, 0x7F7F_FFFF), (0x3F80_0000, 0xBF80_0001)),
        (FL.FloatOdd(inputs=2), FL.FloatRange(FL.F32_PI ^ SIGN, FL.F32_PI, inputs=2),
         FL.FloatExactCases(FL.odd_cases([
             ((FL.F32_ZERO, FL.F32_ZERO), FL.F32_ZERO), ((FL.F32_ZERO, FL.F32_NEG_ZERO), FL.F32_PI),
             ((FL.F32_ZERO, FL.F32_NEG_ONE), FL.F32_PI), ((FL.F32_ZERO, FL.F32_ONE), FL.F32_ZERO),
             ((FL.F32_ONE, FL.F32_ZERO), FL.F32_PI_2), ((FL.F32_ONE, FL.F32_NEG_ZERO), FL.F32_PI_2),
             ((FL.F32_INF, FL.F32_INF), FL.F32_PI_4), ((FL.F32_INF, FL.F32_NEG_INF), FL.F32_3PI_4),
             ((FL.F32_INF, FL.F32_ONE), FL.F32_PI_2), ((FL.F32_INF, FL.F32_NEG_ONE), FL.F32_PI_2),
             ((FL.F32_ONE, FL.F32_INF), FL.F32_ZERO), ((FL.F32_ONE, FL.F32_NEG_INF), FL.F32_PI),
             ((FL.F32_ONE, FL.F32_ONE), FL.F32_PI_4), ((FL.F32_ONE, FL.F32_NEG_ONE), FL.F32_3PI_4),
             ((FL.CANONICAL_NAN, FL.F32_ONE), FL.CANONICAL_NAN),
             ((FL.F32_ONE, FL.CANONICAL_NAN), FL.CANONICAL_NAN)]))),
        summary="atan2(y, x) (a is y), correctly rounded"),
    _op(d.FTanhOp, _mpfr("tanh"),
        _hard("tiny arguments, the width changes, the saturation edge and the hardest input",
              (0x3980_0000,), (0x0000_0001,), (0x4000_0000,), (0x4080_0000,), (0x4110_2CB3,),
              (0x4110_2CB4,), (0x3AC3_7DE2,)),
        (FL.FloatOdd(), FL.FloatMonotone(), FL.FloatRange(FL.F32_NEG_ONE, FL.F32_ONE),
         FL.FloatExactCases(FL.odd_cases([
             ((FL.F32_ZERO,), FL.F32_ZERO), ((FL.F32_INF,), FL.F32_ONE), ((0x4110_2CB4,), FL.F32_ONE),
             ((0x7F7F_FFFF,), FL.F32_ONE), ((0x0000_0001,), 0x0000_0001), ((0x007F_FFFF,), 0x007F_FFFF), ((0x0080_0000,), 0x0080_0000),
             ((0x3580_0000,), 0x3580_0000)]))),
        summary="tanh(a), correctly rounded"),
    _op(d.FErfOp, _mpfr("erf"),
        _hard("tiny arguments, the first intervals, the saturation edge and the hardest input",
              (0x0000_0001,), (0x3880_0000,), (0x3C80_0000,), (0x3D00_0000,), (0x407A_D444,),
              (0x407A_D445,), (0x3940_EAD6,)),
        (FL.FloatOdd(), FL.FloatMonotone(), FL.FloatRange(FL.F32_NEG_ONE, FL.F32_ONE),
         FL.FloatExactCases(FL.odd_cases([
             ((FL.F32_ZERO,), FL.F32_ZERO), ((FL.F32_INF,), FL.F32_ONE), ((0x4080_0000,), FL.F32_ONE),
             ((0x7F7F_FFFF,), FL.F32_ONE), ((0x0000_0001,), 0x0000_0001)]))),
        summary="erf(a), correctly rounded"),
    _op(d.FPowOp, _mpfr("pow"),
        _hard("exact powers and midpoints, x near 1 with large y, the range ends", (0x4000_0000, 0x4120_0000),
              (0x4580_0800, 0x4000_0000), (0x3F80_0001, 0x4E80_0000), (0x3F7F_FFFF, 0xCF00_0000),
              (0x2080_0000, 0x4000_0000), (0xC040_0000, 0x4040_0000), (0xBF80_0000, 0x7F80_0000)),
        (FL.FloatExactCases([
             ((FL.f32_bits(2.0), FL.f32_bits(10.0)), FL.f32_bits(1024.0)),
             ((FL.f32_bits(9.0), FL.f32_bits(0.5)), FL.f32_bits(3.0)),
             ((FL.f32_bits(-3.0), FL.f32_bits(3.0)), FL.f32_bits(-27.0)),
             ((FL.f32_bits(4097.0), FL.f32_bits(2.0)), FL.f32_bits(16785408.0)),
             ((FL.F32_ONE, FL.CANONICAL_NAN), FL.F32_ONE), ((FL.CANONICAL_NAN, FL.F32_ZERO), FL.F32_ONE),
             ((FL.CANONICAL_NAN, FL.F32_NEG_ZERO), FL.F32_ONE), ((FL.CANONICAL_NAN, FL.F32_ONE), FL.CANONICAL_NAN),
             ((FL.F32_NEG_ONE, FL.F32_INF), FL.F32_ONE), ((FL.F32_NEG_ONE, FL.F32_NEG_INF), FL.F32_ONE),
             ((FL.f32_bits(-2.0), FL.f32_bits(0.5)), FL.CANONICAL_NAN),
             ((FL.F32_ZERO, FL.F32_NEG_ONE), FL.F32_INF), ((FL.F32_NEG_ZERO, FL.F32_NEG_ONE), FL.F32_NEG_INF),
             ((FL.F32_NEG_ZERO, FL.f32_bits(-2.0)), FL.F32_INF), ((FL.F32_NEG_ZERO, FL.F32_ONE), FL.F32_NEG_ZERO),
             ((FL.f32_bits(2.0), FL.F32_NEG_INF), FL.F32_ZERO), ((FL.f32_bits(0.5), FL.F32_NEG_INF), FL.F32_INF),
             ((FL.f32_bits(0.5), FL.F32_INF), FL.F32_ZERO), ((FL.F32_NEG_INF, FL.f32_bits(3.0)), FL.F32_NEG_INF),
             ((FL.F32_NEG_INF, FL.f32_bits(-3.0)), FL.F32_NEG_ZERO), ((FL.f32_bits(2.0), FL.f32_bits(128.0)), FL.F32_INF),
             ((FL.f32_bits(2.0), FL.f32_bits(-150.0)), FL.F32_ZERO), ((FL.f32_bits(2.0), FL.f32_bits(-149.0)), 0x0000_0001)]),),  # no symmetry, order or range holds over every pair (x < 0)
        summary="a**b, correctly rounded"),
)  # fmt: skip
