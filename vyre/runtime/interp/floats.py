"""Exact strict-IEEE 754 float semantics over bit patterns (docs/floats.md).

The reference interpreter's oracle for F32 (binary32), F16 (binary16) and
BF16 (bfloat16, 1-8-7). Every function is pure and vectorised: it takes numpy
arrays of bit patterns and returns a fresh array of bit patterns; it never
writes to its arguments.

Invariants
----------
* Representation. Every float value is a ``np.uint32`` array of bit patterns:
  F32 uses all 32 bits, F16 and BF16 hold their 16-bit pattern in the low half
  with the upper half zero. Inputs may be any integer array-like (Python ints,
  ``uint16`` arrays, ...); they are converted to ``uint32`` (wrapping) and the
  16-bit formats are masked to their low 16 bits. Float-typed arrays are
  refused (pass bit patterns, e.g. ``a.view(np.uint32)``). Operands broadcast.
* Truth values (``compare``, ``predicate``) are ``np.uint32`` arrays holding
  0 or 1, the interpreter's Bool lane form.
* Rounding is round-to-nearest-even, once per op; subnormal inputs and results
  are preserved; overflow gives the correctly signed infinity.
* Every op that computes (add sub mul div fma sqrt, floor ceil round trunc,
  conversions between float formats, min/max when both operands are NaN)
  returns the canonical quiet NaN when its result is NaN: F32 ``0x7FC00000``,
  F16 ``0x7E00``, BF16 ``0x7FC0``. ``neg``/``abs`` only touch the sign bit
  and keep every other bit, NaN payloads included. ``min``/``max`` return an
  operand's bits unchanged (IEEE 754-2019 minimumNumber/maximumNumber,
  -0 < +0, a NaN is ignored when the other operand is a number).
* Results do not depend on the processor's flush-to-zero / denormals-are-zero
  state: decoding and rounding are integer arithmetic or exact power-of-two
  scalings, the float64 intermediates are always normal numbers, and the float32 fast path for F32
  arithmetic is used only after checking that subnormals survive float32
  arithmetic in the calling thread (otherwise an exact float64 path is used).

Method
------
F32 add/sub/mul/div/sqrt use numpy float32 arithmetic (IEEE, correctly
rounded). Everything else decodes the operands exactly to float64, computes
there and rounds once to the target format (``_narrow``: RNE on the float64
pattern, subnormal targets through an exact power-of-two scaling and
``np.rint``). One float64 operation followed by a rounding to <= 24 bits is
innocuous double rounding for + - * / sqrt (53 >= 2p + 2). FMA computes the
exact product in float64 (<= 48 bits), adds ``c`` with round-to-odd (TwoSum
error term, then a step toward the error when the sum's last bit is even) and
rounds that once to the target, which equals a single rounding of a*b+c.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum
from typing import Final

import numpy as np
import numpy.typing as npt

from vyre.dialects import vyre as d
from vyre.dialects.tables import OpTable
from vyre.runtime.interp import functions

__all__ = [
    "Bits",
    "FLOAT_FORMATS",
    "canonical_nan",
    "binary",
    "unary",
    "fma",
    "compare",
    "predicate",
    "convert",
    "bitcast",
    "encode",
    "decode",
    "evaluate",
    "approximate",
    "ORACLES",
]

Bits = npt.NDArray[np.uint32]
"""Bit patterns of float values (or integers / 0-1 truth values)."""

_F64 = npt.NDArray[np.float64]
_I64 = npt.NDArray[np.int64]
_Bool = npt.NDArray[np.bool_]

FLOAT_FORMATS: Final = ("f32", "f16", "bf16")
_INT_FORMATS: Final = ("u32", "i32")


@dataclass(frozen=True)
class _Format:
    """Layout of a binary interchange format: 1 sign, ``ebits``, ``mbits``."""

    name: str
    width: int
    ebits: int
    mbits: int
    nan: int
    scale: _F64 = field(repr=False, compare=False)

    @property
    def bias(self) -> int:
        return (1 << (self.ebits - 1)) - 1

    @property
    def sign(self) -> int:
        return 1 << (self.width - 1)

    @property
    def abs_mask(self) -> int:
        return self.sign - 1

    @property
    def inf(self) -> int:
        return ((1 << self.ebits) - 1) << self.mbits

    @property
    def emax_code(self) -> int:
        return (1 << self.ebits) - 1


def _make(name: str, width: int, ebits: int, mbits: int, nan: int) -> _Format:
    bias = (1 << (ebits - 1)) - 1
    codes = np.arange(1 << ebits)
    # value of a finite pattern = integer significand * scale[exponent code];
    # the all-ones code maps to inf so that its significand (>= 1) gives inf.
    exps = np.maximum(codes, 1) - bias - mbits
    scale = np.ldexp(np.ones(codes.size), exps)
    scale[-1] = np.inf
    return _Format(name, width, ebits, mbits, nan, scale)


_FORMATS: Final = {
    "f32": _make("f32", 32, 8, 23, 0x7FC0_0000),
    "f16": _make("f16", 16, 5, 10, 0x7E00),
    "bf16": _make("bf16", 16, 8, 7, 0x7FC0),
}


def _name(x: str | Enum) -> str:
    value = x.value if isinstance(x, Enum) else x
    if not isinstance(value, str):
        raise TypeError(f"expected a name, got {x!r}")
    return value.lower()


def _fmt(fmt: str | Enum) -> _Format:
    spec = _FORMATS.get(_name(fmt))
    if spec is None:
        raise ValueError(f"not a float format: {fmt!r} (expected one of {FLOAT_FORMATS})")
    return spec


def _op(op: str | Enum, table: frozenset[str], what: str) -> str:
    name = _name(op)
    if name not in table and name.startswith("f") and name[1:] in table:
        name = name[1:]
    if name not in table:
        raise ValueError(f"not a float {what} op: {op!r} (expected one of {sorted(table)})")
    return name


def _raw(x: npt.ArrayLike) -> Bits:
    arr = np.asarray(x)
    if arr.dtype.kind not in "uib":
        raise TypeError(f"float ops take integer bit patterns, got dtype {arr.dtype}")
    return arr.astype(np.uint32)


def _bits(f: _Format, x: npt.ArrayLike) -> Bits:
    arr = _raw(x)
    if f.width == 16:
        arr &= np.uint32(0xFFFF)
    return arr


def canonical_nan(fmt: str | Enum) -> int:
    """The canonical quiet NaN pattern of ``fmt`` (F32 0x7FC00000, F16 0x7E00, BF16 0x7FC0)."""
    return _fmt(fmt).nan


# ---------------------------------------------------------------------------
# Exact decoding to float64 and single RNE rounding from float64
# ---------------------------------------------------------------------------


def _is_nan(f: _Format, x: Bits) -> _Bool:
    return (x & np.uint32(f.abs_mask)) > np.uint32(f.inf)


def _widen_arith(f: _Format, x: Bits) -> _F64:
    expo = (x >> np.uint32(f.mbits)) & np.uint32(f.emax_code)
    frac = x & np.uint32((1 << f.mbits) - 1)
    sig = np.where(expo == 0, frac, frac | np.uint32(1 << f.mbits)).astype(np.float64)
    with np.errstate(all="ignore"):
        val = sig * f.scale[expo]
    val = np.where(_is_nan(f, x), np.nan, val)
    neg = (x & np.uint32(f.sign)) != 0
    return np.where(neg, -val, val)


_DECODE16: Final = {
    name: _widen_arith(f, np.arange(1 << 16, dtype=np.uint32))
    for name, f in _FORMATS.items()
    if f.width == 16
}


def _widen(f: _Format, x: Bits) -> _F64:
    """Exact float64 value of each pattern (NaN payloads are dropped).

    significand * 2^k with both factors normal float64 numbers (or a zero
    significand), so the product is exact and immune to DAZ/FTZ; the 16-bit
    formats read a table built that way.
    """
    table = _DECODE16.get(f.name)
    if table is not None:
        return table[x]
    return _widen_arith(f, x)


def _narrow(f: _Format, v: npt.ArrayLike) -> Bits:
    """Round float64 values to ``f`` (nearest, ties to even), exactly.

    Values at least ``f``'s smallest normal round on the float64 pattern with
    integer arithmetic: adding half an ulp minus one plus the kept last bit
    and shifting rounds the significand to nearest even, a carry moving into
    the exponent. Smaller values are scaled by a power of two onto the
    subnormal grid (exact) and rounded with ``np.rint`` (ties to even); float64
    subnormals, far below every target's range, become +-0. Overflow gives
    +-inf, the sign of zero and of values rounding to zero is kept and a NaN
    becomes the canonical NaN.
    """
    val = np.asarray(v, dtype=np.float64)
    u = val.view(np.uint64)
    ua = u & np.uint64(0x7FFF_FFFF_FFFF_FFFF)
    shift = 52 - f.mbits
    rounded = (
        ua + np.uint64((1 << (shift - 1)) - 1) + ((ua >> np.uint64(shift)) & np.uint64(1))
    ) >> np.uint64(shift)
    rebias = np.uint64((1023 - f.bias) << f.mbits)  # float64 exponent bias -> f's
    emin = 1 - f.bias
    normal = ua >= np.uint64((1023 + emin) << 52)
    with np.errstate(all="ignore"):
        tiny = np.minimum(np.abs(val), 2.0**emin) * 2.0 ** (f.mbits - emin)
        sub = np.rint(tiny).astype(np.uint64)
        # unselected lanes may wrap around: only the chosen branch is meaningful
        mag = np.where(normal, np.minimum(rounded, np.uint64(f.inf) + rebias) - rebias, sub)
    sign = (u >> np.uint64(63)).astype(np.uint32) << np.uint32(f.width - 1)
    out = mag.astype(np.uint32) | sign
    return np.where(np.isnan(val), np.uint32(f.nan), out).astype(np.uint32)


def encode(fmt: str | Enum, values: npt.ArrayLike) -> Bits:
    """Bit patterns of real numbers (float64 array-like) rounded once to ``fmt``, RNE.

    Literal rounding (``E.f32(0.1)``, ``E.bf16(2.0)``); NaN gives the canonical NaN.
    """
    return _narrow(_fmt(fmt), np.asarray(values, dtype=np.float64))


def decode(fmt: str | Enum, bits: npt.ArrayLike) -> _F64:
    """Exact float64 values of ``fmt`` bit patterns (a NaN decodes to a float64 NaN, payload lost)."""
    f = _fmt(fmt)
    return _widen(f, _bits(f, bits))


# ---------------------------------------------------------------------------
# Arithmetic
# ---------------------------------------------------------------------------

_TINY: Final = np.array([1, 0x0080_0000], dtype=np.uint32)  # min subnormal, min normal


def _f32_subnormals_work() -> bool:
    """True when float32 arithmetic keeps subnormals here (no DAZ/FTZ in this thread)."""
    t = _TINY.view(np.float32)
    doubled = (t[:1] + t[:1]).view(np.uint32)[0]
    halved = (t[1:] * np.float32(0.5)).view(np.uint32)[0]
    return int(doubled) == 2 and int(halved) == 0x0040_0000


def _canon(f: _Format, bits: Bits) -> Bits:
    return np.where(_is_nan(f, bits), np.uint32(f.nan), bits).astype(np.uint32)


_Native = Callable[..., npt.NDArray[np.generic]]


def _wide_arith(f: _Format, native: _Native, *operands: Bits) -> Bits:
    """One float64 op on exact operands, rounded once to ``f``."""
    with np.errstate(all="ignore"):
        r = native(*(_widen(f, x) for x in operands))
    return _narrow(f, r)


def _correctly_rounded(f: _Format, native: _Native, *operands: Bits) -> Bits:
    """+ - * / sqrt: numpy float32 for F32 where subnormals survive (IEEE, correctly
    rounded), else one float64 operation rounded once (innocuous double rounding:
    53 >= 2p + 2)."""
    if f.name == "f32" and _f32_subnormals_work():
        with np.errstate(all="ignore"):
            r = native(*(x.view(np.float32) for x in operands))
        return _canon(f, np.asarray(r).view(np.uint32))
    return _wide_arith(f, native, *operands)


def _order_key(f: _Format, x: Bits, signed_zero: bool) -> _I64:
    """Integer key with the numeric order of non-NaN patterns.

    With ``signed_zero`` -0 sorts just below +0 (minimumNumber); otherwise they tie.
    """
    xi = x.astype(np.int64)
    mag = xi & f.abs_mask
    neg = (xi & f.sign) != 0
    return np.where(neg, -mag - (1 if signed_zero else 0), mag)


def _min_max(f: _Format, minimum: bool, a: Bits, b: Bits) -> Bits:
    ka = _order_key(f, a, True)
    kb = _order_key(f, b, True)
    pick_a = ka <= kb if minimum else ka >= kb
    na = _is_nan(f, a)
    nb = _is_nan(f, b)
    pick_a = (pick_a & ~na) | nb
    out = np.where(pick_a, a, b)
    return np.where(na & nb, np.uint32(f.nan), out).astype(np.uint32)


def _round_integral(f: _Format, fn: _Native, a: Bits) -> Bits:
    x = _widen(f, a)
    with np.errstate(all="ignore"):
        r = np.copysign(fn(x), x)  # an integral result keeps x's sign; zero does too
    return _narrow(f, r)


def _fma(f: _Format, a: Bits, b: Bits, c: Bits) -> Bits:
    """``a*b + c`` with one rounding (RNE); canonical NaN results.

    The float64 product is exact (<= 48 significand bits, never subnormal or
    infinite for finite operands); the float64 sum is computed with
    round-to-odd (53 >= p + 2 bits), which a final RNE to ``fmt`` turns into
    the correctly rounded fused result. An exact zero sum is -0 only when
    a*b and c are both -0 (float64 addition already gives that), inf*0 and
    inf + -inf are NaN.
    """
    pa, pb, pc = _widen(f, a), _widen(f, b), _widen(f, c)
    with np.errstate(all="ignore"):
        p = pa * pb
        s = p + pc
        # TwoSum: s + err == p + pc exactly (both finite here)
        bv = s - p
        err = (p - (s - bv)) + (pc - bv)
    sb = np.asarray(s).view(np.uint64)
    inexact = np.isfinite(s) & (err != 0) & ((sb & np.uint64(1)) == 0)
    # step |s| one ulp toward the exact value: up when err has s's sign
    away = np.signbit(err) == np.signbit(s)
    step = np.where(away, np.uint64(1), np.uint64(0xFFFF_FFFF_FFFF_FFFF))
    odd = np.asarray(np.where(inexact, sb + step, sb)).view(np.float64)
    return _narrow(f, odd)


def _compare(f: _Format, predicate: str, x: Bits, y: Bits) -> Bits:
    kx = _order_key(f, x, False)
    ky = _order_key(f, y, False)
    ordered = ~(_is_nan(f, x) | _is_nan(f, y))
    if predicate == "eq":
        r = ordered & (kx == ky)
    elif predicate == "ne":
        r = ~(ordered & (kx == ky))
    elif predicate == "lt":
        r = ordered & (kx < ky)
    elif predicate == "le":
        r = ordered & (kx <= ky)
    elif predicate == "gt":
        r = ordered & (kx > ky)
    else:
        r = ordered & (kx >= ky)
    return r.astype(np.uint32)


def _approximate(native: _Native, x: Bits) -> Bits:
    """The exact value of an approximate op's function on F32 patterns: computed
    in float64 and rounded once to f32 (NaN results canonical)."""
    with np.errstate(all="ignore"):
        r = native(x.view(np.float32).astype(np.float64))
    return _narrow(_FORMATS["f32"], r)


# ---------------------------------------------------------------------------
# The oracle of each float op class
# ---------------------------------------------------------------------------

Oracle = Callable[[_Format, str, tuple[Bits, ...]], Bits]
"""(format, variant: a comparison's predicate or "", operand patterns) -> result."""

ORACLES: OpTable[type[d.FloatOp], Oracle] = OpTable(
    "interpreter float oracles", lambda: d.ops_of(d.FloatOp)
)
"""What each float op computes, exactly: the interpreter's oracle, keyed by op
class (an op's operands are already masked to its format)."""


def _arith(native: _Native) -> Oracle:
    return lambda f, _, xs: _correctly_rounded(f, native, *xs)


def _sign(flip: bool) -> Oracle:
    def sign(f: _Format, _: str, xs: tuple[Bits, ...]) -> Bits:
        return xs[0] ^ np.uint32(f.sign) if flip else xs[0] & np.uint32(f.abs_mask)

    return sign


def _integral(fn: _Native) -> Oracle:
    return lambda f, _, xs: _round_integral(f, fn, xs[0])


def _classify(nan: bool) -> Oracle:
    def classify(f: _Format, _: str, xs: tuple[Bits, ...]) -> Bits:
        mag = xs[0] & np.uint32(f.abs_mask)
        return (mag > np.uint32(f.inf) if nan else mag == np.uint32(f.inf)).astype(np.uint32)

    return classify


def _function(name: str) -> Oracle:
    """A correctly rounded function (`functions.py`: float64, a guard band, MPFR)."""

    def evaluate(f: _Format, _: str, xs: tuple[Bits, ...]) -> Bits:
        first, *more = (_widen(f, x) for x in xs)
        return functions.correctly_rounded(
            name, f.name, first, lambda y: _narrow(f, y), f.nan, *more
        )

    return evaluate


def _approx(native: _Native) -> Oracle:
    return lambda _f, _v, xs: _approximate(native, xs[0])


ORACLES.add(d.FAddOp, _arith(np.add))
ORACLES.add(d.FSubOp, _arith(np.subtract))
ORACLES.add(d.FMulOp, _arith(np.multiply))
ORACLES.add(d.FDivOp, _arith(np.divide))
ORACLES.add(d.FMinOp, lambda f, _, xs: _min_max(f, True, *xs))
ORACLES.add(d.FMaxOp, lambda f, _, xs: _min_max(f, False, *xs))
ORACLES.add(d.FCmpOp, lambda f, predicate, xs: _compare(f, predicate, *xs))
ORACLES.add(d.FmaOp, lambda f, _, xs: _fma(f, *xs))
ORACLES.add(d.FNegOp, _sign(flip=True))
ORACLES.add(d.FAbsOp, _sign(flip=False))
ORACLES.add(d.FSqrtOp, _arith(np.sqrt))
ORACLES.add(d.FFloorOp, _integral(np.floor))
ORACLES.add(d.FCeilOp, _integral(np.ceil))
ORACLES.add(d.FRoundOp, _integral(np.rint))
ORACLES.add(d.FTruncOp, _integral(np.trunc))
ORACLES.add(d.FIsNanOp, _classify(nan=True))
ORACLES.add(d.FIsInfOp, _classify(nan=False))
ORACLES.add(d.FExp2Op, _function("exp2"))
ORACLES.add(d.FExpOp, _function("exp"))
ORACLES.add(d.FExp10Op, _function("exp10"))
ORACLES.add(d.FLogOp, _function("log"))
ORACLES.add(d.FLog2Op, _function("log2"))
ORACLES.add(d.FLog10Op, _function("log10"))
ORACLES.add(d.FSinOp, _function("sin"))
ORACLES.add(d.FCosOp, _function("cos"))
ORACLES.add(d.FTanOp, _function("tan"))
ORACLES.add(d.FAsinOp, _function("asin"))
ORACLES.add(d.FAcosOp, _function("acos"))
ORACLES.add(d.FAtanOp, _function("atan"))
ORACLES.add(d.FAtan2Op, _function("atan2"))
ORACLES.add(d.FTanhOp, _function("tanh"))
ORACLES.add(d.FErfOp, _function("erf"))
ORACLES.add(d.FPowOp, _function("pow"))
ORACLES.add(d.FSqrtApproxOp, _approx(np.sqrt))
ORACLES.add(d.FExp2ApproxOp, _approx(np.exp2))
ORACLES.add(d.FLog2ApproxOp, _approx(np.log2))
ORACLES.add(d.FSinApproxOp, _approx(np.sin))
ORACLES.add(d.FCosApproxOp, _approx(np.cos))


def evaluate(op: type[d.FloatOp], fmt: str | Enum, *operands: npt.ArrayLike, variant: str = "") -> Bits:
    """The float op class `op` (with a comparison's predicate as `variant`) on
    operand patterns of format `fmt` (F32 for the approximate ops). Operands
    broadcast."""
    f = _FORMATS["f32"] if issubclass(op, d.ApproximateUnaryOp) else _fmt(fmt)
    xs = tuple(np.broadcast_arrays(*(_bits(f, x) for x in operands)))
    return ORACLES[op](f, variant, xs)


# -- by name: the short names of the op classes -----------------------------


def _family(base: type[d.FloatOp], *excluded: type[d.FloatOp]) -> dict[str, type[d.FloatOp]]:
    return {
        op.SHORT_NAME: op
        for op in d.ops_of(base)
        if not any(issubclass(op, other) for other in excluded)
    }


_BINARY: Final = _family(d.FloatBinaryOp)
_UNARY: Final = _family(d.FloatUnaryOp, d.FloatClassifyOp, d.ApproximateUnaryOp)
"""neg ... trunc and the correctly rounded functions (exp2 ...)."""
_PREDICATE: Final = _family(d.FloatClassifyOp)
_APPROXIMATE: Final = _family(d.ApproximateUnaryOp)
_COMPARE: Final = frozenset(d.FLOAT_PREDICATES)


def _named(op: str | Enum, family: dict[str, type[d.FloatOp]], what: str) -> type[d.FloatOp]:
    return family[_op(op, frozenset(family), what)]


def binary(op: str | Enum, fmt: str | Enum, a: npt.ArrayLike, b: npt.ArrayLike) -> Bits:
    """``a op b`` for op in add, sub, mul, div, min, max, ``atan2(a, b)`` and
    ``pow(a, b)`` (an ``f`` prefix is accepted).

    add/sub/mul/div are correctly rounded (RNE) with canonical NaN results;
    min/max are IEEE 754-2019 minimumNumber/maximumNumber (-0 < +0, a NaN
    operand is ignored when the other is a number, both NaN -> canonical NaN);
    atan2 (a is y, like C) and pow (a is x) are correctly rounded with Annex F's
    special values.
    """
    f = _fmt(fmt)
    return evaluate(_named(op, _BINARY, "binary"), f.name, a, b)


def unary(op: str | Enum, fmt: str | Enum, a: npt.ArrayLike) -> Bits:
    """``op(a)`` for op in neg, abs, sqrt, floor, ceil, round, trunc (``f`` prefix accepted).

    neg/abs flip/clear the sign bit only (NaN payloads kept). sqrt is correctly
    rounded (sqrt(-0) = -0, negative -> NaN). floor/ceil/trunc/round (half to
    even) keep the sign of zero and of values that round to zero. NaN results
    are canonical.
    """
    f = _fmt(fmt)
    return evaluate(_named(op, _UNARY, "unary"), f.name, a)


def fma(fmt: str | Enum, a: npt.ArrayLike, b: npt.ArrayLike, c: npt.ArrayLike) -> Bits:
    """``a*b + c`` with one rounding (RNE); canonical NaN results."""
    return evaluate(d.FmaOp, _fmt(fmt).name, a, b, c)


# ---------------------------------------------------------------------------
# Comparisons and classification
# ---------------------------------------------------------------------------


def compare(op: str | Enum, fmt: str | Enum, a: npt.ArrayLike, b: npt.ArrayLike) -> Bits:
    """IEEE comparison ``a op b`` for op in eq, ne, lt, le, gt, ge (``f`` prefix accepted).

    Returns ``np.uint32`` 0/1. A NaN operand makes every comparison false
    except ``ne``, which is true; -0 == +0.
    """
    f = _fmt(fmt)
    name = _op(op, _COMPARE, "comparison")
    return evaluate(d.FCmpOp, f.name, a, b, variant=name)


def predicate(op: str | Enum, fmt: str | Enum, a: npt.ArrayLike) -> Bits:
    """``is_nan`` / ``is_inf`` (``fis_nan``, ``fis_inf`` accepted) as ``np.uint32`` 0/1."""
    f = _fmt(fmt)
    return evaluate(_named(op, _PREDICATE, "predicate"), f.name, a)


# ---------------------------------------------------------------------------
# Value conversions and reinterpretations
# ---------------------------------------------------------------------------

_INT_RANGE: Final = {"i32": (-(2.0**31), 2.0**31 - 1), "u32": (0.0, 2.0**32 - 1)}


def convert(src: str | Enum, dst: str | Enum, x: npt.ArrayLike) -> Bits:
    """Value conversion (``E.cast``) between f32/f16/bf16 and u32/i32.

    * u32/i32 -> float: one RNE rounding of the exact integer (overflow -> inf).
    * float -> u32/i32: truncate toward zero and saturate; NaN -> 0, negative
      -> 0 for u32; the i32 result is its two's-complement pattern.
    * float -> float: RNE (overflow -> +-inf), exact when widening; F16 <-> BF16
      is F16/BF16 -> F32 (exact) -> target, i.e. one rounding. NaN -> canonical.
    * a format to itself: the identity on bits.

    At least one side must be a float format.
    """
    s, d = _name(src), _name(dst)
    if s == d and (s in _FORMATS or s in _INT_FORMATS):
        return _raw(x) if s in _INT_FORMATS else _bits(_FORMATS[s], x)
    if s in _INT_FORMATS and d in _FORMATS:
        raw = _raw(x)
        val = (raw.view(np.int32) if s == "i32" else raw).astype(np.float64)
        return _narrow(_FORMATS[d], val)
    if s in _FORMATS and d in _INT_FORMATS:
        f = _FORMATS[s]
        bits = _bits(f, x)
        lo, hi = _INT_RANGE[d]
        with np.errstate(all="ignore"):
            t = np.clip(np.trunc(_widen(f, bits)), lo, hi)
        t = np.where(_is_nan(f, bits), 0.0, t)
        return (t.astype(np.int64) & 0xFFFF_FFFF).astype(np.uint32)
    if s in _FORMATS and d in _FORMATS:
        fs = _FORMATS[s]
        return _narrow(_FORMATS[d], _widen(fs, _bits(fs, x)))
    raise ValueError(f"no float conversion from {src!r} to {dst!r}")


def bitcast(src: str | Enum, dst: str | Enum, x: npt.ArrayLike) -> Bits:
    """Reinterpretation of bits (``E.bitcast``).

    F32 <-> U32/I32 keep all 32 bits; F16/BF16 -> U32/I32 zero-extend the
    16-bit pattern; U32/I32 -> F16/BF16 keep the low 16 bits; U32 <-> I32 and a
    type to itself are the identity.
    """
    s, d = _name(src), _name(dst)
    known = set(_FORMATS) | set(_INT_FORMATS)
    if s not in known or d not in known:
        raise ValueError(f"no bitcast from {src!r} to {dst!r}")
    if s in _FORMATS and d in _FORMATS and s != d:
        raise ValueError(f"no bitcast from {src!r} to {dst!r}: go through u32")
    raw = _raw(x)
    if (s in _FORMATS and _FORMATS[s].width == 16) or (d in _FORMATS and _FORMATS[d].width == 16):
        raw &= np.uint32(0xFFFF)
    return raw


def approximate(op: str | Enum, a: npt.ArrayLike) -> Bits:
    """The exact value of an approximate op's function (``fsqrt_approx``,
    ``fexp2_approx``, ``flog2_approx``, ``fsin_approx``, ``fcos_approx``) on
    F32 patterns: computed in float64 and rounded once to
    f32 (NaN results canonical). What an approximate op's tolerance is measured
    against; the op itself is not bit-exact on any GPU."""
    return evaluate(_named(op, _APPROXIMATE, "approximate"), "f32", a)
