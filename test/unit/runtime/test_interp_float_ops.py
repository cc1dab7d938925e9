"""The reference interpreter runs strict floats (docs/floats.md).

Float ops are tested on unprepared but valid kernels (`execute_interp_unchecked`:
no pass rewrites them first), so the interpreter's own float steps run. The
oracles share no code with `vyre.runtime.interp.floats`: numpy float32/float16
arithmetic with explicit NaN canonicalisation, Python comparisons on decoded
values, and exact `Fraction` arithmetic with this file's own round-to-nearest-
even for BF16, fma and the conversions. Values and buffers follow the runtime
conventions: one word per float value (16-bit patterns in the low half), F32
buffers one element per word, F16/BF16 storage buffers two elements per word.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import pytest

from vyre.ir import BufferDecl, DataType, Expr as E, Node as N, Program
from vyre.runtime.interp import InterpError, execute
from vyre.testing.backends import execute_interp, execute_interp_unchecked

F32, F16, BF16 = DataType.F32, DataType.F16, DataType.BF16
U32, I32, BOOL = DataType.U32, DataType.I32, DataType.BOOL
FLOAT_TYPES = [F32, F16, BF16]

# ---------------------------------------------------------------------------
# An exact oracle: decode to Fraction, compute exactly, round to nearest even
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Fmt:
    width: int
    ebits: int
    mbits: int
    nan: int

    @property
    def bias(self) -> int:
        return (1 << (self.ebits - 1)) - 1

    @property
    def sign(self) -> int:
        return 1 << (self.width - 1)

    @property
    def inf(self) -> int:
        return ((1 << self.ebits) - 1) << self.mbits


FMT = {
    F32: Fmt(32, 8, 23, 0x7FC0_0000),
    F16: Fmt(16, 5, 10, 0x7E00),
    BF16: Fmt(16, 8, 7, 0x7FC0),
}


def is_nan(t: DataType, bits: int) -> bool:
    f = FMT[t]
    return bits & (f.sign - 1) > f.inf


def is_inf(t: DataType, bits: int) -> bool:
    f = FMT[t]
    return bits & (f.sign - 1) == f.inf


def negative(t: DataType, bits: int) -> bool:
    return bool(bits & FMT[t].sign)


def exact(t: DataType, bits: int) -> Fraction:
    """The exact value of a finite pattern."""
    f = FMT[t]
    code = (bits >> f.mbits) & ((1 << f.ebits) - 1)
    frac = bits & ((1 << f.mbits) - 1)
    sig = frac if code == 0 else frac | (1 << f.mbits)
    value = sig * Fraction(2) ** (max(code, 1) - f.bias - f.mbits)
    return -value if negative(t, bits) else value


def as_float(t: DataType, bits: int) -> float:
    """The value as a Python float (NaN and infinities included)."""
    if is_nan(t, bits):
        return math.nan
    if is_inf(t, bits):
        return -math.inf if negative(t, bits) else math.inf
    return math.copysign(float(exact(t, bits)), -1.0 if negative(t, bits) else 1.0)


def round_to(t: DataType, q: Fraction, neg_zero: bool = False) -> int:
    """`q` rounded once to `t`, ties to even; overflow gives the signed infinity;
    an exact zero is -0 when `neg_zero`."""
    f = FMT[t]
    sign = f.sign if q < 0 or (q == 0 and neg_zero) else 0
    mag = abs(q)
    if mag == 0:
        return sign
    e = mag.numerator.bit_length() - mag.denominator.bit_length()
    if Fraction(2) ** e > mag:
        e -= 1
    e = max(e, 1 - f.bias)
    scaled = mag / Fraction(2) ** (e - f.mbits)
    m = math.floor(scaled)
    rest = scaled - m
    if rest > Fraction(1, 2) or (rest == Fraction(1, 2) and m % 2):
        m += 1
    if m == 1 << (f.mbits + 1):
        m >>= 1
        e += 1
    if e > f.bias:
        return sign | f.inf
    if m < 1 << f.mbits:
        return sign | m
    return sign | ((e + f.bias) << f.mbits) | (m - (1 << f.mbits))


def from_float(t: DataType, x: float, neg_zero: bool | None = None) -> int:
    """A Python float result (NaN, infinity or an exact zero) as a pattern of `t`."""
    f = FMT[t]
    if math.isnan(x):
        return f.nan
    if math.isinf(x):
        return f.inf | (f.sign if x < 0 else 0)
    return round_to(t, Fraction(x), math.copysign(1.0, x) < 0 if neg_zero is None else neg_zero)


def exact_binary(t: DataType, op: str, a: int, b: int) -> int:
    """add/sub/mul/div by exact arithmetic (specials through IEEE float64)."""
    special = any(is_nan(t, v) or is_inf(t, v) for v in (a, b)) or (
        op == "div" and exact(t, b) == 0
    )
    if special:
        x, y = np.float64(as_float(t, a)), np.float64(as_float(t, b))
        with np.errstate(all="ignore"):
            r = {"add": x + y, "sub": x - y, "mul": x * y, "div": x / y}[op]
        return from_float(t, float(r))
    x, y = exact(t, a), exact(t, b)
    if op in ("add", "sub"):
        y_neg = negative(t, b) != (op == "sub")
        r = x + y if op == "add" else x - y
        return round_to(t, r, negative(t, a) and y_neg)
    r = x * y if op == "mul" else x / y
    return round_to(t, r, negative(t, a) != negative(t, b))


def exact_fma(t: DataType, a: int, b: int, c: int) -> int:
    if any(is_nan(t, v) or is_inf(t, v) for v in (a, b, c)):
        x, y, z = (np.float64(as_float(t, v)) for v in (a, b, c))
        with np.errstate(all="ignore"):
            return from_float(t, float(x * y + z))
    p = exact(t, a) * exact(t, b)
    p_neg = negative(t, a) != negative(t, b)
    return round_to(t, p + exact(t, c), p_neg and negative(t, c))


def exact_min_max(t: DataType, op: str, a: int, b: int) -> int:
    """minimumNumber / maximumNumber: an operand's bits, -0 < +0, NaN ignored."""
    if is_nan(t, a) and is_nan(t, b):
        return FMT[t].nan
    if is_nan(t, a):
        return b
    if is_nan(t, b):
        return a

    def key(v: int) -> tuple[float, int]:
        return (as_float(t, v), 0 if negative(t, v) else 1)

    if op == "min":
        return a if key(a) <= key(b) else b
    return a if key(a) >= key(b) else b


def exact_compare(t: DataType, op: str, a: int, b: int) -> int:
    x, y = as_float(t, a), as_float(t, b)  # Python float comparisons are IEEE's
    return int({"eq": x == y, "ne": x != y, "lt": x < y, "le": x <= y, "gt": x > y, "ge": x >= y}[op])


def exact_integral(t: DataType, op: str, a: int) -> int:
    if is_nan(t, a):
        return FMT[t].nan
    if is_inf(t, a):
        return a
    x = exact(t, a)
    fn: Callable[[Fraction], int] = {
        "floor": math.floor,
        "ceil": math.ceil,
        "trunc": math.trunc,
        "round": round,  # ties to even on Fractions
    }[op]
    return round_to(t, Fraction(fn(x)), negative(t, a))


def exact_convert(src: DataType, dst: DataType, v: int) -> int:
    if src == dst:
        return v
    if src in (U32, I32):
        value = v - (1 << 32) if src == I32 and v >= 1 << 31 else v
        return round_to(dst, Fraction(value))
    if is_nan(src, v):
        return 0 if dst in (U32, I32) else FMT[dst].nan
    if dst in (U32, I32):
        lo, hi = (0, 2**32 - 1) if dst == U32 else (-(2**31), 2**31 - 1)
        if is_inf(src, v):
            return (lo if negative(src, v) else hi) & 0xFFFF_FFFF
        return min(max(math.trunc(exact(src, v)), lo), hi) & 0xFFFF_FFFF
    if is_inf(src, v):
        return FMT[dst].inf | (FMT[dst].sign if negative(src, v) else 0)
    return round_to(dst, exact(src, v), negative(src, v))


def test_the_oracle_rounds_like_numpy() -> None:
    rng = np.random.default_rng(3)
    values = np.concatenate([rng.normal(0, 1e3, 400), rng.normal(0, 1e-6, 100), [65520.0, 65519.0]])
    for x in values.tolist():
        assert round_to(F32, Fraction(x)) == int(np.float32(x).view(np.uint32))
        with np.errstate(over="ignore"):
            assert round_to(F16, Fraction(x)) == int(np.float16(x).view(np.uint16))
    assert round_to(BF16, Fraction(1) + Fraction(1, 256)) == 0x3F80  # tie to even
    assert round_to(BF16, Fraction(1) + Fraction(3, 256)) == 0x3F82


# ---------------------------------------------------------------------------
# Running programs
# ---------------------------------------------------------------------------

def pack16(patterns: Sequence[int]) -> np.ndarray:
    """F16/BF16 storage words: element 2k in the low half, 2k+1 in the high half."""
    halves = list(patterns) + [0] * (len(patterns) % 2)
    words = [halves[k] | (halves[k + 1] << 16) for k in range(0, len(halves), 2)]
    return np.array(words, dtype=np.uint32)


def unpack16(words: np.ndarray, n: int) -> list[int]:
    out: list[int] = []
    for w in words.tolist():
        out += [w & 0xFFFF, w >> 16]
    return out[:n]


def words_of(t: DataType, patterns: Sequence[int]) -> np.ndarray:
    if t in (F16, BF16):
        return pack16(patterns)
    return np.array(patterns, dtype=np.uint64).astype(np.uint32)


def patterns_of(t: DataType, words: np.ndarray, n: int) -> list[int]:
    if t in (F16, BF16):
        return unpack16(words, n)
    return words.tolist()[:n]


def elementwise(
    in_types: Sequence[DataType],
    out_type: DataType,
    make: Callable[..., E],
    columns: Sequence[Sequence[int]],
    *,
    checked: bool = False,
) -> list[int]:
    """out[i] = make(in0[i], in1[i], ...) for every i, on the interpreter."""
    n = len(columns[0])
    buffers = [BufferDecl.read(f"in{k}", k, t) for k, t in enumerate(in_types)]
    buffers.append(BufferDecl.read_write("out", len(in_types), out_type))
    loads = [E.load(f"in{k}", E.var("i")) for k in range(len(in_types))]
    program = Program(
        buffers=buffers,
        workgroup_size=(64, 1, 1),
        entry=[
            N.let("i", E.gid_x()),
            N.if_(E.lt(E.var("i"), E.u32(n)), [N.store("out", E.var("i"), make(*loads))]),
        ],
    )
    words = {f"in{k}": words_of(t, col) for k, (t, col) in enumerate(zip(in_types, columns))}
    words["out"] = words_of(out_type, [0] * n)
    run = execute_interp if checked else execute_interp_unchecked
    result = run(program, words, ((n + 63) // 64, 1, 1))
    return patterns_of(out_type, result["out"], n)


# ---------------------------------------------------------------------------
# Operand samples
# ---------------------------------------------------------------------------

SPECIAL = {
    F32: [
        0x0000_0000, 0x8000_0000, 0x3F80_0000, 0xBF80_0000, 0x0000_0001, 0x8000_0001,
        0x007F_FFFF, 0x0080_0000, 0x7F7F_FFFF, 0xFF7F_FFFF, 0x7F80_0000, 0xFF80_0000,
        0x7FC0_0000, 0x7FC0_0001, 0x7F80_0001, 0xFFC0_0000, 0x3F00_0000, 0x3FC0_0000,
        0x4020_0000, 0x4040_0000, 0x3DCC_CCCD, 0x3F80_0001, 0x3380_0000, 0x4B00_0000,
    ],
    F16: [
        0x0000, 0x8000, 0x3C00, 0xBC00, 0x0001, 0x8001, 0x03FF, 0x0400, 0x7BFF, 0xFBFF,
        0x7C00, 0xFC00, 0x7E00, 0x7E01, 0x7C01, 0xFE00, 0x3800, 0x3E00, 0x4100, 0x4200,
        0x2E66, 0x3C01, 0x6400,
    ],
    BF16: [
        0x0000, 0x8000, 0x3F80, 0xBF80, 0x0001, 0x8001, 0x007F, 0x0080, 0x7F7F, 0xFF7F,
        0x7F80, 0xFF80, 0x7FC0, 0x7FC1, 0x7F81, 0xFFC0, 0x3F00, 0x3FC0, 0x4020, 0x4040,
        0x3DCD, 0x3F81, 0x4B00,
    ],
}  # fmt: skip


def random_patterns(t: DataType, count: int, seed: int) -> list[int]:
    rng = np.random.default_rng(seed)
    width = FMT[t].width
    raw = rng.integers(0, 1 << width, count, dtype=np.uint64)
    # half of them near 1.0 so that sums and differences round in interesting ways
    near = rng.integers(0, 1 << (width - 4), count, dtype=np.uint64) + (FMT[t].bias << FMT[t].mbits)
    near ^= rng.integers(0, 2, count, dtype=np.uint64) << (width - 1)
    return [int(v) for v in np.where(np.arange(count) % 2 == 0, raw, near)]


def pairs(t: DataType, count: int, seed: int) -> tuple[list[int], list[int]]:
    special = SPECIAL[t]
    lhs = [a for a in special for _ in special] + random_patterns(t, count, seed)
    rhs = [b for _ in special for b in special] + random_patterns(t, count, seed + 1)
    return lhs, rhs


def samples(t: DataType, count: int, seed: int) -> list[int]:
    return SPECIAL[t] + random_patterns(t, count, seed)


# ---------------------------------------------------------------------------
# F32 against numpy float32 (NaN canonicalised), F16 against numpy float16
# ---------------------------------------------------------------------------

NUMPY_TYPES = {F32: (np.float32, np.uint32), F16: (np.float16, np.uint16)}
NUMPY_BINARY = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide}
BUILDER_BINARY = {"add": E.fadd, "sub": E.fsub, "mul": E.fmul, "div": E.fdiv, "min": E.fmin, "max": E.fmax}
BUILDER_COMPARE = {"eq": E.feq, "ne": E.fne, "lt": E.flt, "le": E.fle, "gt": E.fgt, "ge": E.fge}


def numpy_values(t: DataType, patterns: Sequence[int]) -> np.ndarray:
    float_type, bits_type = NUMPY_TYPES[t]
    return np.array(patterns, dtype=np.uint64).astype(bits_type).view(float_type)


def numpy_patterns(t: DataType, values: np.ndarray) -> list[int]:
    float_type, bits_type = NUMPY_TYPES[t]
    bits = np.asarray(values, dtype=float_type).view(bits_type).astype(np.uint64)
    return np.where(np.isnan(values), FMT[t].nan, bits).tolist()


@pytest.mark.parametrize("t", [F32, F16], ids=str)
@pytest.mark.parametrize("op", list(NUMPY_BINARY))
def test_arithmetic_against_numpy(t: DataType, op: str) -> None:
    lhs, rhs = pairs(t, 1500, seed=11)
    with np.errstate(all="ignore"):
        want = numpy_patterns(t, NUMPY_BINARY[op](numpy_values(t, lhs), numpy_values(t, rhs)))
    got = elementwise([t, t], t, BUILDER_BINARY[op], [lhs, rhs])
    bad = [(hex(a), hex(b), hex(g), hex(w)) for a, b, g, w in zip(lhs, rhs, got, want) if g != w]
    assert not bad, bad[:5]


@pytest.mark.parametrize("t", FLOAT_TYPES, ids=str)
@pytest.mark.parametrize("op", ["min", "max"])
def test_min_max_are_minimum_number(t: DataType, op: str) -> None:
    lhs, rhs = pairs(t, 300, seed=12)
    got = elementwise([t, t], t, BUILDER_BINARY[op], [lhs, rhs])
    assert got == [exact_min_max(t, op, a, b) for a, b in zip(lhs, rhs)]
    if t == F32:  # numpy fmin/fmax agree where no NaN and not two zeros meet
        x, y = numpy_values(t, lhs), numpy_values(t, rhs)
        ref = numpy_patterns(t, (np.fmin if op == "min" else np.fmax)(x, y))
        plain = ~(np.isnan(x) | np.isnan(y) | ((x == 0) & (y == 0)))
        assert np.array(got)[plain].tolist() == np.array(ref)[plain].tolist()


def test_min_max_examples() -> None:
    neg0, pos0, nan, one = 0x8000_0000, 0x0000_0000, 0x7FC0_0001, 0x3F80_0000
    cases = [(E.fmin, neg0, pos0, neg0), (E.fmin, pos0, neg0, neg0), (E.fmax, neg0, pos0, pos0),
             (E.fmin, nan, one, one), (E.fmax, one, nan, one), (E.fmin, nan, nan, 0x7FC0_0000)]  # fmt: skip
    for make, a, b, want in cases:
        assert elementwise([F32, F32], F32, make, [[a], [b]]) == [want]


@pytest.mark.parametrize("t", FLOAT_TYPES, ids=str)
@pytest.mark.parametrize("op", list(BUILDER_COMPARE))
def test_comparisons_give_bool(t: DataType, op: str) -> None:
    lhs, rhs = pairs(t, 300, seed=13)
    got = elementwise([t, t], BOOL, BUILDER_COMPARE[op], [lhs, rhs])
    assert got == [exact_compare(t, op, a, b) for a, b in zip(lhs, rhs)]
    if t in NUMPY_TYPES:
        x, y = numpy_values(t, lhs), numpy_values(t, rhs)
        with np.errstate(all="ignore"):
            ref = {"eq": x == y, "ne": x != y, "lt": x < y, "le": x <= y, "gt": x > y, "ge": x >= y}[op]
        assert got == ref.astype(int).tolist()


NUMPY_UNARY = {
    "sqrt": (E.fsqrt, np.sqrt),
    "floor": (E.ffloor, np.floor),
    "ceil": (E.fceil, np.ceil),
    "trunc": (E.ftrunc, np.trunc),
    "round": (E.fround, np.rint),
}


@pytest.mark.parametrize("t", [F32, F16], ids=str)
@pytest.mark.parametrize("op", list(NUMPY_UNARY))
def test_unary_against_numpy(t: DataType, op: str) -> None:
    values = samples(t, 1500, seed=14) + ([0xBECC_CCCD, 0x3F00_0000, 0xBF00_0000, 0x3FC0_0000]
                                          if t == F32 else [0xB666, 0x3800, 0xB800, 0x3E00])  # fmt: skip
    make, fn = NUMPY_UNARY[op]
    with np.errstate(all="ignore"):
        want = numpy_patterns(t, fn(numpy_values(t, values)))
    assert elementwise([t], t, make, [values]) == want


@pytest.mark.parametrize("t", FLOAT_TYPES, ids=str)
def test_sign_ops_keep_payloads_and_classifications(t: DataType) -> None:
    values = samples(t, 200, seed=15)
    sign = FMT[t].sign
    assert elementwise([t], t, E.fneg, [values]) == [v ^ sign for v in values]
    assert elementwise([t], t, E.fabs, [values]) == [v & (sign - 1) for v in values]
    assert elementwise([t], BOOL, E.fis_nan, [values]) == [int(is_nan(t, v)) for v in values]
    assert elementwise([t], BOOL, E.fis_inf, [values]) == [int(is_inf(t, v)) for v in values]


def test_rounding_keeps_the_sign_of_zero() -> None:
    values = [0x8000_0000, 0xBECC_CCCD, 0xBF00_0000, 0x3F00_0000]  # -0.0, -0.4, -0.5, 0.5
    cases = {
        E.ffloor: [0x8000_0000, 0xBF80_0000, 0xBF80_0000, 0x0000_0000],
        E.fceil: [0x8000_0000, 0x8000_0000, 0x8000_0000, 0x3F80_0000],
        E.ftrunc: [0x8000_0000, 0x8000_0000, 0x8000_0000, 0x0000_0000],
        E.fround: [0x8000_0000, 0x8000_0000, 0x8000_0000, 0x0000_0000],  # ties to even
    }
    for make, want in cases.items():
        assert elementwise([F32], F32, make, [values]) == want, make


# ---------------------------------------------------------------------------
# BF16 and fma against exact rationals
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("op", list(NUMPY_BINARY))
def test_bf16_arithmetic_against_fractions(op: str) -> None:
    lhs, rhs = pairs(BF16, 400, seed=21)
    got = elementwise([BF16, BF16], BF16, BUILDER_BINARY[op], [lhs, rhs])
    want = [exact_binary(BF16, op, a, b) for a, b in zip(lhs, rhs)]
    bad = [(hex(a), hex(b), hex(g), hex(w)) for a, b, g, w in zip(lhs, rhs, got, want) if g != w]
    assert not bad, bad[:5]


@pytest.mark.parametrize("op", ["floor", "ceil", "trunc", "round"])
def test_bf16_integral_rounding_against_fractions(op: str) -> None:
    values = samples(BF16, 400, seed=22) + [0x3F40, 0xBF40, 0x3FA0, 0xBFA0, 0x4030]
    make = NUMPY_UNARY[op][0]
    assert elementwise([BF16], BF16, make, [values]) == [exact_integral(BF16, op, v) for v in values]


def test_bf16_sqrt_examples() -> None:
    values = [0x4080, 0x3F80, 0x8000, 0xBF80, 0x7F80, 0x7FC1, 0x4000]  # 4, 1, -0, -1, inf, nan, 2
    want = [0x4000, 0x3F80, 0x8000, 0x7FC0, 0x7F80, 0x7FC0, 0x3FB5]  # sqrt(2) = 1.4142 -> 0x3FB5
    assert round_to(BF16, Fraction(14142135623730951, 10**16)) == 0x3FB5
    assert elementwise([BF16], BF16, E.fsqrt, [values]) == want


@pytest.mark.parametrize("t", FLOAT_TYPES, ids=str)
def test_fma_rounds_once(t: DataType) -> None:
    rng = np.random.default_rng(31)
    n = 300
    a, b, c = (samples(t, n, seed=int(s)) for s in rng.integers(0, 1000, 3))
    c = c[::-1]
    if t == F32:  # a*b+c differs from round(round(a*b)+c) here
        a += [0x3F80_0001, 0x3F80_0001, 0x4040_0000]
        b += [0x3F7F_FFFE, 0x3F80_0001, 0x3EAA_AAAB]
        c += [0xBF80_0000, 0xBF80_0000, 0xBF80_0000]
    got = elementwise([t, t, t], t, E.fma, [a, b, c])
    want = [exact_fma(t, x, y, z) for x, y, z in zip(a, b, c)]
    bad = [tuple(map(hex, v)) for v in zip(a, b, c, got, want) if v[3] != v[4]]
    assert not bad, bad[:5]
    if t == F32:
        # (1+2^-23)(1-2^-23) - 1 = -2^-46 exactly (an unfused product would round to 1 and give 0)
        assert got[-3] == round_to(F32, Fraction(-1, 2**46))
        assert got[-3] != 0


# ---------------------------------------------------------------------------
# Literals, casts and bitcasts
# ---------------------------------------------------------------------------


def test_literals_are_their_bits() -> None:
    exprs = [E.f32(0.1), E.float_bits(F32, 0x7F80_0001), E.f16(0.5), E.bf16(2.0), E.float_bits(F16, 0x7E01)]
    types = [F32, F32, F16, BF16, F16]
    want = [0x3DCC_CCCD, 0x7F80_0001, 0x3800, 0x4000, 0x7E01]
    for expr, t, w in zip(exprs, types, want):
        program = Program(
            buffers=[BufferDecl.read_write("out", 0, U32)],
            workgroup_size=(1, 1, 1),
            entry=[N.store("out", E.u32(0), E.bitcast(U32, expr))],
        )
        assert execute_interp_unchecked(program, {"out": np.zeros(1, np.uint32)}, 1)["out"].tolist() == [w]


CAST_SOURCES = {
    U32: [0, 1, 2, 3, 255, 256, 257, 0x00FF_FFFF, 0x0100_0001, 0x7FFF_FFFF, 0x8000_0000, 0xFFFF_FFFF, 65504, 65520],
    I32: [0, 1, 0xFFFF_FFFF, 0x7FFF_FFFF, 0x8000_0000, 0x8000_0001, 0xFFFF_FF80, 0x0100_0001, 0xFEFF_FFFF],
}  # fmt: skip
EXTRA = {
    F32: [0x4F80_0000, 0x4F7F_FFFF, 0xCF00_0000, 0xCF00_0001, 0x4EFF_FFFF, 0xBF7F_FFFF, 0x477F_F000, 0x477F_EFFF,
          0x3380_0001, 0x3300_0000, 0x3F80_1000, 0x3F80_1001, 0x3F80_3000],
    F16: [0x7BFF, 0xF800, 0x5BFF],
    BF16: [0x4F80, 0xCF00, 0xCF01, 0x3F81, 0x7F7F],
}  # fmt: skip


def cast_inputs(t: DataType) -> list[int]:
    if t in CAST_SOURCES:
        return CAST_SOURCES[t] + [int(v) for v in np.random.default_rng(41).integers(0, 2**32, 100, dtype=np.uint64)]
    return samples(t, 150, seed=42) + EXTRA[t]


CAST_PAIRS = [
    (s, d) for s in [U32, I32, F32, F16, BF16] for d in [U32, I32, F32, F16, BF16]
    if (s in FLOAT_TYPES or d in FLOAT_TYPES)
]  # fmt: skip


@pytest.mark.parametrize(("src", "dst"), CAST_PAIRS, ids=lambda t: str(t))
def test_casts_against_the_exact_table(src: DataType, dst: DataType) -> None:
    values = cast_inputs(src)
    got = elementwise([src], dst, lambda x: E.cast(dst, x), [values])
    want = [exact_convert(src, dst, v) for v in values]
    bad = [(hex(v), hex(g), hex(w)) for v, g, w in zip(values, got, want) if g != w]
    assert not bad, bad[:5]


def test_casts_against_numpy() -> None:
    u = CAST_SOURCES[U32]
    assert elementwise([U32], F32, lambda x: E.cast(F32, x), [u]) == numpy_patterns(
        F32, np.array(u, dtype=np.float64).astype(np.float32)
    )
    f32 = samples(F32, 200, seed=43) + EXTRA[F32]
    with np.errstate(all="ignore"):
        want = numpy_patterns(F16, numpy_values(F32, f32).astype(np.float16))
    assert elementwise([F32], F16, lambda x: E.cast(F16, x), [f32]) == want
    f16 = samples(F16, 200, seed=44)
    want = numpy_patterns(F32, numpy_values(F16, f16).astype(np.float32))
    assert elementwise([F16], F32, lambda x: E.cast(F32, x), [f16]) == want


def test_cast_examples() -> None:
    cases = [  # (source type, pattern, target type, expected)
        (F32, 0x7FC0_0001, U32, 0), (F32, 0xFFC0_0000, I32, 0), (F32, 0x7F80_0000, I32, 0x7FFF_FFFF),
        (F32, 0xFF80_0000, I32, 0x8000_0000), (F32, 0xBF80_0000, U32, 0), (F32, 0x4F80_0000, U32, 0xFFFF_FFFF),
        (F32, 0xC0F0_0000, I32, 0xFFFF_FFF9), (F32, 0x477F_F000, F16, 0x7C00), (F32, 0x7F80_0001, F16, 0x7E00),
        (F16, 0x0001, F32, 0x3380_0000), (F16, 0x7C01, BF16, 0x7FC0), (BF16, 0x7F7F, F16, 0x7C00),
        (U32, 0xFFFF_FFFF, F32, 0x4F80_0000), (U32, 0x0100_0001, F32, 0x4B80_0000), (I32, 0xFFFF_FFFF, BF16, 0xBF80),
    ]  # fmt: skip
    for src, v, dst, want in cases:
        assert elementwise([src], dst, lambda x, dst=dst: E.cast(dst, x), [[v]]) == [want], (src, hex(v), dst)


BITCASTS = [  # (source, target, input, expected)
    (F32, U32, 0xBF80_0000, 0xBF80_0000), (F32, I32, 0x7FC0_0001, 0x7FC0_0001),
    (U32, F32, 0xFFFF_FFFF, 0xFFFF_FFFF), (I32, F32, 0x8000_0001, 0x8000_0001),
    (U32, F16, 0x1234_5678, 0x5678), (I32, BF16, 0xFFFF_7FC1, 0x7FC1), (U32, BF16, 0x0001_0000, 0),
    (F16, U32, 0xFC00, 0xFC00), (BF16, I32, 0xFFFF, 0xFFFF), (F16, F16, 0x7E01, 0x7E01),
    (F32, F32, 0x7F80_0001, 0x7F80_0001), (BF16, BF16, 0x8001, 0x8001),
]  # fmt: skip


@pytest.mark.parametrize(("src", "dst", "value", "want"), BITCASTS)
def test_bitcasts(src: DataType, dst: DataType, value: int, want: int) -> None:
    """Bitcasts keep the bits (16-bit floats: the low half, zero-extended)."""
    got = elementwise([src], dst, lambda x: E.bitcast(dst, x), [[value]])
    assert got == [want]
    # through a u32 value built in the kernel (the upper half of a word is dropped)
    if src in (U32, I32):
        assert elementwise([U32], dst, lambda x: E.bitcast(dst, E.cast(src, x)), [[value]]) == [want]


# ---------------------------------------------------------------------------
# Float values through select, let, var, assign, if and loops
# ---------------------------------------------------------------------------


def test_select_let_var_assign_and_loops() -> None:
    n = 40
    rng = np.random.default_rng(51)
    a = rng.normal(0, 10, n).astype(np.float16)
    b = rng.normal(0, 10, n).astype(np.float16)
    program = Program(
        buffers=[
            BufferDecl.read("a", 0, F16),
            BufferDecl.read("b", 1, F16),
            BufferDecl.read_write("lo", 2, F16),
            BufferDecl.read_write("acc", 3, F32),
            BufferDecl.read_write("flag", 4, BOOL),
        ],
        workgroup_size=(8, 1, 1),
        entry=[
            N.let("i", E.gid_x()),
            N.if_(
                E.lt(E.var("i"), E.u32(n)),
                [
                    N.let("x", E.load("a", E.var("i"))),
                    N.let("y", E.load("b", E.var("i"))),
                    N.store("lo", E.var("i"), E.select(E.flt(E.var("x"), E.var("y")), E.var("x"), E.var("y"))),
                    N.let("s", E.cast(F32, E.var("x"))),
                    N.loop("k", E.u32(0), E.u32(5), [N.assign("s", E.fadd(E.var("s"), E.f32(0.1)))]),
                    N.if_(E.fgt(E.var("s"), E.cast(F32, E.var("y"))), [N.assign("s", E.fneg(E.var("s")))]),
                    N.store("acc", E.var("i"), E.var("s")),
                    N.store("flag", E.var("i"), E.fis_nan(E.fdiv(E.var("x"), E.f16(0.0)))),
                ],
            ),
        ],
    )
    words = {
        "a": pack16(a.view(np.uint16).tolist()),
        "b": pack16(b.view(np.uint16).tolist()),
        "lo": np.zeros(n // 2, np.uint32),
        "acc": np.zeros(n, np.uint32),
        "flag": np.zeros(n, np.uint32),
    }
    for run in (execute_interp_unchecked, execute_interp):
        out = run(program, words, (n // 8, 1, 1))
        assert unpack16(out["lo"], n) == np.minimum(a, b).view(np.uint16).tolist()
        s = a.astype(np.float32)
        for _ in range(5):
            s = s + np.float32(0.1)
        s = np.where(s > b.astype(np.float32), -s, s)
        assert out["acc"].tolist() == s.view(np.uint32).tolist()
        assert out["flag"].tolist() == [int(x == 0) for x in a.tolist()]


def test_lane_order_does_not_change_float_results() -> None:
    lhs, rhs = pairs(F32, 200, seed=52)
    program = Program(
        buffers=[BufferDecl.read("a", 0, F32), BufferDecl.read("b", 1, F32), BufferDecl.read_write("out", 2, F32)],
        workgroup_size=(16, 1, 1),
        entry=[
            N.let("i", E.gid_x()),
            N.if_(
                E.lt(E.var("i"), E.buf_len("out")),
                [N.store("out", E.var("i"), E.fma(E.load("a", E.var("i")), E.load("b", E.var("i")), E.f32(1.0)))],
            ),
        ],
    )
    n = len(lhs)
    words = {"a": words_of(F32, lhs), "b": words_of(F32, rhs), "out": np.zeros(n, np.uint32)}
    prepared = program.kernel
    forward = execute(prepared, words, ((n + 15) // 16, 1, 1))["out"]
    backward = execute(prepared, words, ((n + 15) // 16, 1, 1), lane_order="reversed")["out"]
    assert forward.tolist() == backward.tolist() == [exact_fma(F32, x, y, 0x3F80_0000) for x, y in zip(lhs, rhs)]


# ---------------------------------------------------------------------------
# The interpreter's own defences (kernels that skipped validation)
# ---------------------------------------------------------------------------


def _store_u32(value: E, out: DataType = U32) -> Program:
    return Program(
        buffers=[BufferDecl.read_write("out", 0, out)],
        workgroup_size=(1, 1, 1),
        entry=[N.store("out", E.u32(0), value)],
    )


@pytest.mark.parametrize(
    ("value", "out", "message"),
    [
        (E.fadd(E.u32(1), E.u32(2)), U32, "V140"),
        (E.fsqrt(E.i32(1)), I32, "V140"),
        (E.fma(E.f32(1.0), E.f32(1.0), E.u32(1)), F32, "V140"),
        (E.fadd(E.f32(1.0), E.f16(1.0)), F32, "V141"),
        (E.flt(E.bf16(1.0), E.f16(1.0)), BOOL, "V141"),
        (E.bitcast(F16, E.f32(1.0)), F16, "V142"),
        (E.add(E.f32(1.0), E.u32(1)), U32, "V021"),
        (E.f32(1.0), U32, "store of a `f32` value"),
        (E.u32(1), F32, "store of a `u32` value"),
        (E.cast(BOOL, E.f32(1.0)), BOOL, "unsupported cast"),
        (E.select(E.bool_(True), E.f32(1.0), E.f16(1.0)), F32, "select arms"),
    ],
)
def test_broken_float_invariants_are_interp_errors(value: E, out: DataType, message: str) -> None:
    words = {"out": np.zeros(1, np.uint32)}
    with pytest.raises(InterpError, match=message):
        execute_interp_unchecked(_store_u32(value, out), words, 1)


def test_float_index_is_an_interp_error() -> None:
    program = Program(
        buffers=[BufferDecl.read_write("out", 0, U32)],
        workgroup_size=(1, 1, 1),
        entry=[N.store("out", E.f32(0.0), E.u32(1))],
    )
    with pytest.raises(InterpError, match="index"):
        execute_interp_unchecked(program, {"out": np.zeros(1, np.uint32)}, 1)
