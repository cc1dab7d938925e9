"""Strict IEEE float semantics of the reference interpreter (vyre.runtime.interp.floats)
against oracles that share no code with it (docs/floats.md).

The oracle decodes bit patterns to exact `Fraction`s with integer arithmetic,
computes the exact real result and rounds it with its own round-to-nearest-even
(`_round`, `_round_sqrt`). `struct` cross-checks the oracle's F32/F16 decoding and
rounding; numpy float16/float32 arithmetic is a second, vectorised oracle for
large random samples. Every 16-bit input is tested exhaustively for the unary
ops and the conversions.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cache

import numpy as np
import pytest

from vyre.runtime.interp import floats as F

# ---------------------------------------------------------------------------
# The oracle: exact decoding, exact arithmetic, exact rounding
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Fmt:
    name: str
    width: int
    ebits: int
    mbits: int

    @property
    def bias(self) -> int:
        return (1 << (self.ebits - 1)) - 1

    @property
    def emin(self) -> int:
        return 1 - self.bias

    @property
    def emax_code(self) -> int:
        return (1 << self.ebits) - 1

    @property
    def sign(self) -> int:
        return 1 << (self.width - 1)

    @property
    def inf(self) -> int:
        return self.emax_code << self.mbits

    @property
    def nan(self) -> int:
        return self.inf | (1 << (self.mbits - 1))

    @property
    def mask(self) -> int:
        return (1 << self.width) - 1


FMTS = {
    "f32": Fmt("f32", 32, 8, 23),
    "f16": Fmt("f16", 16, 5, 10),
    "bf16": Fmt("bf16", 16, 8, 7),
}
FORMATS = list(FMTS)
SIXTEEN = ["f16", "bf16"]


@dataclass(frozen=True)
class V:
    """A decoded value: kind is "num", "inf" or "nan"; mag is exact for "num"."""

    kind: str
    neg: bool
    mag: Fraction = Fraction(0)

    @property
    def value(self) -> Fraction | float:
        if self.kind == "inf":
            return -math.inf if self.neg else math.inf
        return -self.mag if self.neg else self.mag

    @property
    def is_zero(self) -> bool:
        return self.kind == "num" and self.mag == 0


def dec(fmt: str, bits: int) -> V:
    f = FMTS[fmt]
    neg = bool(bits & f.sign)
    e = (bits >> f.mbits) & f.emax_code
    m = bits & ((1 << f.mbits) - 1)
    if e == f.emax_code:
        return V("nan" if m else "inf", neg)
    if e == 0:
        return V("num", neg, Fraction(m, 1 << (f.mbits - f.emin)))
    x = e - f.bias - f.mbits
    sig = m | (1 << f.mbits)
    return V("num", neg, Fraction(sig << x) if x >= 0 else Fraction(sig, 1 << -x))


@cache
def dec_all(fmt: str) -> list[V]:
    return [dec(fmt, i) for i in range(1 << 16)]


def _pack(f: Fmt, neg: bool, k: int, e: int) -> int:
    """Pattern of (-1)^neg * k * 2^(e - mbits), k <= 2^(mbits+1), e >= emin."""
    s = f.sign if neg else 0
    if k < (1 << f.mbits):
        return s | k  # subnormal (e == emin) or zero
    if k == 1 << (f.mbits + 1):
        k >>= 1
        e += 1
    biased = e + f.bias
    if biased >= f.emax_code:
        return s | f.inf
    return s | (biased << f.mbits) | (k - (1 << f.mbits))


def _ilog2(q: Fraction) -> int:
    """floor(log2(q)) for q > 0."""
    n, d = q.numerator, q.denominator
    e = n.bit_length() - d.bit_length()
    if (n << max(0, -e)) < (d << max(0, e)):
        e -= 1
    return e


def _round(fmt: str, neg: bool, mag: Fraction) -> int:
    """Round-to-nearest-even of (-1)^neg * mag (mag >= 0) to fmt, overflow to inf."""
    f = FMTS[fmt]
    if mag == 0:
        return f.sign if neg else 0
    e = max(_ilog2(mag), f.emin)
    q = e - f.mbits
    n, d = mag.numerator, mag.denominator
    num, den = (n, d << q) if q >= 0 else (n << -q, d)
    k, r = divmod(num, den)
    if 2 * r > den or (2 * r == den and k & 1):
        k += 1
    return _pack(f, neg, k, e)


def _round_sqrt(fmt: str, mag: Fraction) -> int:
    """Round-to-nearest-even of sqrt(mag), mag > 0."""
    f = FMTS[fmt]
    e = max(_ilog2(mag) // 2, f.emin)
    q = e - f.mbits
    n, d = mag.numerator, mag.denominator
    num, den = (n, d << (2 * q)) if q >= 0 else (n << (-2 * q), d)
    k = math.isqrt(num // den)
    lhs, rhs = 4 * num, (2 * k + 1) ** 2 * den
    if lhs > rhs or (lhs == rhs and k & 1):
        k += 1
    return _pack(f, False, k, e)


def nan(fmt: str) -> int:
    return FMTS[fmt].nan


def inf(fmt: str, neg: bool) -> int:
    return FMTS[fmt].inf | (FMTS[fmt].sign if neg else 0)


def zero(fmt: str, neg: bool) -> int:
    return FMTS[fmt].sign if neg else 0


def o_add(fmt: str, a: int, b: int, negate_b: bool = False) -> int:
    x, y = dec(fmt, a), dec(fmt, b)
    if negate_b:
        y = V(y.kind, not y.neg, y.mag)
    if "nan" in (x.kind, y.kind):
        return nan(fmt)
    if x.kind == "inf" and y.kind == "inf":
        return nan(fmt) if x.neg != y.neg else inf(fmt, x.neg)
    if x.kind == "inf" or y.kind == "inf":
        return inf(fmt, x.neg if x.kind == "inf" else y.neg)
    s = x.value + y.value
    assert isinstance(s, Fraction)
    if s == 0:
        both_zero = x.is_zero and y.is_zero
        return zero(fmt, both_zero and x.neg and y.neg)
    return _round(fmt, s < 0, abs(s))


def o_sub(fmt: str, a: int, b: int) -> int:
    return o_add(fmt, a, b, negate_b=True)


def o_mul(fmt: str, a: int, b: int) -> int:
    x, y = dec(fmt, a), dec(fmt, b)
    neg = x.neg != y.neg
    if "nan" in (x.kind, y.kind):
        return nan(fmt)
    if "inf" in (x.kind, y.kind):
        return nan(fmt) if (x.is_zero or y.is_zero) else inf(fmt, neg)
    return _round(fmt, neg, x.mag * y.mag)


def o_div(fmt: str, a: int, b: int) -> int:
    x, y = dec(fmt, a), dec(fmt, b)
    neg = x.neg != y.neg
    if "nan" in (x.kind, y.kind):
        return nan(fmt)
    if x.kind == "inf":
        return nan(fmt) if y.kind == "inf" else inf(fmt, neg)
    if y.kind == "inf":
        return zero(fmt, neg)
    if y.is_zero:
        return nan(fmt) if x.is_zero else inf(fmt, neg)
    return _round(fmt, neg, x.mag / y.mag)


def _key(v: V) -> tuple[Fraction | float, int]:
    return (v.value, 0 if v.neg else 1)  # -0 below +0


def o_min(fmt: str, a: int, b: int, want_max: bool = False) -> int:
    x, y = dec(fmt, a), dec(fmt, b)
    if x.kind == "nan" and y.kind == "nan":
        return nan(fmt)
    if x.kind == "nan":
        return b
    if y.kind == "nan":
        return a
    a_first = _key(x) <= _key(y)
    return a if a_first != want_max else b


def o_max(fmt: str, a: int, b: int) -> int:
    return o_min(fmt, a, b, want_max=True)


BINARY: dict[str, Callable[[str, int, int], int]] = {
    "add": o_add,
    "sub": o_sub,
    "mul": o_mul,
    "div": o_div,
    "min": o_min,
    "max": o_max,
}

COMPARE: dict[str, Callable[[Fraction | float, Fraction | float], bool]] = {
    "eq": lambda x, y: x == y,
    "ne": lambda x, y: x != y,
    "lt": lambda x, y: x < y,
    "le": lambda x, y: x <= y,
    "gt": lambda x, y: x > y,
    "ge": lambda x, y: x >= y,
}


def o_compare(op: str, fmt: str, a: int, b: int) -> int:
    x, y = dec(fmt, a), dec(fmt, b)
    if "nan" in (x.kind, y.kind):
        return int(op == "ne")
    return int(COMPARE[op](x.value, y.value))


def o_fma(fmt: str, a: int, b: int, c: int) -> int:
    x, y, z = dec(fmt, a), dec(fmt, b), dec(fmt, c)
    pneg = x.neg != y.neg
    if "nan" in (x.kind, y.kind, z.kind):
        return nan(fmt)
    if "inf" in (x.kind, y.kind):
        if x.is_zero or y.is_zero:
            return nan(fmt)
        if z.kind == "inf" and z.neg != pneg:
            return nan(fmt)
        return inf(fmt, pneg)
    if z.kind == "inf":
        return inf(fmt, z.neg)
    p = x.mag * y.mag
    s = (-p if pneg else p) + z.value
    assert isinstance(s, Fraction)
    if s == 0:
        return zero(fmt, p == 0 and z.is_zero and pneg and z.neg)
    return _round(fmt, s < 0, abs(s))


def o_sqrt(fmt: str, a: int) -> int:
    x = dec(fmt, a)
    if x.kind == "nan" or (x.neg and not x.is_zero):
        return nan(fmt)
    if x.kind == "inf" or x.is_zero:
        return a
    return _round_sqrt(fmt, x.mag)


def _integral(fn: Callable[[Fraction], int]) -> Callable[[str, int], int]:
    def op(fmt: str, a: int) -> int:
        x = dec(fmt, a)
        if x.kind == "nan":
            return nan(fmt)
        if x.kind == "inf":
            return a
        r = fn(-x.mag if x.neg else x.mag)
        return zero(fmt, x.neg) if r == 0 else _round(fmt, r < 0, Fraction(abs(r)))

    return op


UNARY: dict[str, Callable[[str, int], int]] = {
    "neg": lambda fmt, a: a ^ FMTS[fmt].sign,
    "abs": lambda fmt, a: a & ~FMTS[fmt].sign,
    "sqrt": o_sqrt,
    "floor": _integral(math.floor),
    "ceil": _integral(math.ceil),
    "trunc": _integral(math.trunc),
    "round": _integral(round),  # Fraction.__round__ is half to even
}


def o_predicate(op: str, fmt: str, a: int) -> int:
    return int(dec(fmt, a).kind == ("nan" if op == "is_nan" else "inf"))


INT_RANGE = {"i32": (-(2**31), 2**31 - 1), "u32": (0, 2**32 - 1)}


def o_convert(src: str, dst: str, a: int) -> int:
    if src in INT_RANGE:
        v = a - (1 << 32) if src == "i32" and a >= 1 << 31 else a
        return _round(dst, v < 0, Fraction(abs(v)))
    x = dec(src, a)
    if dst in INT_RANGE:
        lo, hi = INT_RANGE[dst]
        if x.kind == "nan":
            return 0
        if x.kind == "inf":
            return (lo if x.neg else hi) & 0xFFFF_FFFF
        t = min(max(math.trunc(x.value), lo), hi)
        return t & 0xFFFF_FFFF
    if x.kind == "nan":
        return nan(dst)
    if x.kind == "inf":
        return inf(dst, x.neg)
    return _round(dst, x.neg, x.mag)


# ---------------------------------------------------------------------------
# Inputs
# ---------------------------------------------------------------------------


def specials(fmt: str) -> list[int]:
    """±0, ±smallest/largest subnormal, ±min normal, ±1 and neighbours, ±max, ±inf, NaNs."""
    f = FMTS[fmt]
    one = f.bias << f.mbits
    top = (1 << f.mbits) - 1
    pos = [
        0, 1, 2, 3, top - 1, top,
        1 << f.mbits, (1 << f.mbits) + 1,
        one - 1, one, one + 1, one | (1 << (f.mbits - 1)),  # 1.5
        (f.bias + 1) << f.mbits, ((f.bias + 1) << f.mbits) | (1 << (f.mbits - 1)),  # 2, 3
        (f.bias - 1) << f.mbits,  # 0.5
        f.inf - 2, f.inf - 1, f.inf,
        f.nan, f.nan | 1, f.inf | 1, f.inf | top,  # quiet/signalling NaNs with payloads
    ]
    return pos + [p | f.sign for p in pos]


def fma_specials(fmt: str) -> list[int]:
    f = FMTS[fmt]
    one = f.bias << f.mbits
    pos = [0, 1, (1 << f.mbits) - 1, 1 << f.mbits, one - 1, one, one + 1, f.inf - 1, f.inf, f.nan | 1]
    return pos + [p | f.sign for p in pos]


def rand_bits(fmt: str, n: int, seed: int) -> list[int]:
    rng = np.random.default_rng(seed)
    return [int(v) for v in rng.integers(0, 1 << FMTS[fmt].width, n, dtype=np.uint64)]


def near_pairs(fmt: str, n: int, seed: int) -> list[tuple[int, int]]:
    """Pairs with close exponents (cancellation, ties in add/sub) and opposite signs."""
    f = FMTS[fmt]
    rng = np.random.default_rng(seed)
    out: list[tuple[int, int]] = []
    for a in rand_bits(fmt, n, seed + 1):
        delta = int(rng.integers(-3, 4)) << f.mbits
        b = (a + delta + int(rng.integers(-8, 9))) & f.mask
        if rng.integers(0, 2):
            b ^= f.sign
        out.append((a, b))
    return out


def run(fn: Callable[..., np.ndarray], *cols: Sequence[int]) -> list[int]:
    arrays = [np.array(c, dtype=np.uint32) for c in cols]
    got = fn(*arrays)
    assert got.dtype == np.uint32 and got.shape == arrays[0].shape
    return [int(g) for g in got]


def expect_all(
    label: str, got: Iterable[int], rows: Iterable[tuple[int, ...]], oracle: Callable[..., int]
) -> None:
    bad: list[str] = []
    count = 0
    for g, row in zip(got, rows, strict=True):
        e = oracle(*row)
        if g != e:
            count += 1
            if len(bad) < 6:
                bad.append(f"{tuple(hex(r) for r in row)}: got {g:#x}, want {e:#x}")
    assert not count, f"{label}: {count} mismatches, e.g. " + "; ".join(bad)


# ---------------------------------------------------------------------------
# The oracle checks itself against struct
# ---------------------------------------------------------------------------


def test_oracle_decoding_matches_struct() -> None:
    for bits in specials("f32") + rand_bits("f32", 3000, 1):
        (want,) = struct.unpack("<f", struct.pack("<I", bits))
        v = dec("f32", bits)
        if v.kind == "nan":
            assert math.isnan(want)
        else:
            assert v.value == want and math.copysign(1, want) == (-1 if v.neg else 1)
    for bits in range(1 << 16):
        (want,) = struct.unpack("<e", struct.pack("<H", bits))
        v = dec("f16", bits)
        assert (v.kind == "nan" and math.isnan(want)) or v.value == want
        vb, v32 = dec("bf16", bits), dec("f32", bits << 16)
        assert (vb.kind, vb.neg, vb.mag) == (v32.kind, v32.neg, v32.mag)


def test_oracle_rounding_matches_struct() -> None:
    rng = np.random.default_rng(2)
    xs = list(rng.standard_normal(2000) * 2.0 ** rng.integers(-160, 140, 2000))
    xs += list(rng.standard_normal(2000) * 2.0 ** rng.integers(-26, 17, 2000))
    for x in xs:
        q = Fraction(x)
        for fmt, code, width in (("f32", "<f", "<I"), ("f16", "<e", "<H")):
            try:
                want = struct.unpack(width, struct.pack(code, x))[0]
            except OverflowError:
                want = inf(fmt, x < 0)
            assert _round(fmt, x < 0, abs(q)) == want, (fmt, x)


# ---------------------------------------------------------------------------
# Arithmetic, min/max and comparisons
# ---------------------------------------------------------------------------


CASES = ["f32", "f32-wide", "f16", "bf16"]
"""Formats; "f32-wide" runs F32 arithmetic on the exact float64 path used under FTZ/DAZ."""


def use(case: str, monkeypatch: pytest.MonkeyPatch) -> str:
    if case == "f32-wide":
        monkeypatch.setattr(F, "_f32_subnormals_work", lambda: False)
        return "f32"
    return case


def _pairs(fmt: str) -> list[tuple[int, int]]:
    sp = specials(fmt)
    rows = [(a, b) for a in sp for b in sp]
    rand = rand_bits(fmt, 3000, 11)
    rows += list(zip(rand[:1500], rand[1500:], strict=True))
    rows += near_pairs(fmt, 1500, 12)
    return rows


@pytest.mark.parametrize("op", list(BINARY))
@pytest.mark.parametrize("case", CASES)
def test_binary_matches_exact_oracle(op: str, case: str, monkeypatch: pytest.MonkeyPatch) -> None:
    fmt = use(case, monkeypatch)
    rows = _pairs(fmt)
    a, b = zip(*rows, strict=True)
    got = run(lambda x, y: F.binary(op, fmt, x, y), a, b)
    oracle = BINARY[op]
    expect_all(f"{fmt} {op}", got, rows, lambda x, y: oracle(fmt, x, y))


@pytest.mark.parametrize("op", list(COMPARE))
@pytest.mark.parametrize("fmt", FORMATS)
def test_compare_matches_exact_oracle(op: str, fmt: str) -> None:
    rows = _pairs(fmt)
    rows += [(a, a) for a in specials(fmt)]
    a, b = zip(*rows, strict=True)
    got = run(lambda x, y: F.compare(op, fmt, x, y), a, b)
    expect_all(f"{fmt} {op}", got, rows, lambda x, y: o_compare(op, fmt, x, y))


@pytest.mark.parametrize("fmt", FORMATS)
def test_min_max_zero_and_nan_rules(fmt: str) -> None:
    f = FMTS[fmt]
    one, pz, nz, q = f.bias << f.mbits, 0, f.sign, f.nan
    payload = f.inf | 5 | f.sign
    assert int(F.binary("min", fmt, pz, nz)) == nz and int(F.binary("min", fmt, nz, pz)) == nz
    assert int(F.binary("max", fmt, pz, nz)) == pz and int(F.binary("max", fmt, nz, pz)) == pz
    for n in (q, payload):
        assert int(F.binary("min", fmt, n, one)) == one and int(F.binary("max", fmt, one, n)) == one
        assert int(F.binary("min", fmt, n, nz)) == nz and int(F.binary("max", fmt, nz, n)) == nz
    assert int(F.binary("min", fmt, payload, payload)) == q
    assert int(F.binary("max", fmt, payload, f.inf | 1)) == q
    assert int(F.compare("eq", fmt, pz, nz)) == 1 and int(F.compare("lt", fmt, nz, pz)) == 0
    assert int(F.compare("ne", fmt, q, q)) == 1 and int(F.compare("eq", fmt, q, q)) == 0


def test_arithmetic_canonical_nan_and_zero_signs() -> None:
    for fmt in FORMATS:
        f = FMTS[fmt]
        one, pz, nz = f.bias << f.mbits, 0, f.sign
        snan = f.inf | 1 | f.sign
        for op in ("add", "sub", "mul", "div"):
            assert int(F.binary(op, fmt, snan, one)) == f.nan
            assert int(F.binary(op, fmt, one, snan)) == f.nan
        assert int(F.binary("add", fmt, nz, nz)) == nz
        assert int(F.binary("add", fmt, nz, pz)) == pz
        assert int(F.binary("sub", fmt, one, one)) == pz
        assert int(F.binary("sub", fmt, nz, pz)) == nz
        assert int(F.binary("mul", fmt, nz, one)) == nz
        assert int(F.binary("div", fmt, one, nz)) == f.inf | f.sign
        assert int(F.binary("div", fmt, pz, pz)) == f.nan
        assert int(F.binary("add", fmt, f.inf, f.inf | f.sign)) == f.nan
        assert int(F.unary("sqrt", fmt, nz)) == nz
        assert int(F.unary("sqrt", fmt, one | f.sign)) == f.nan
        assert int(F.canonical_nan(fmt)) == f.nan
    assert (F.canonical_nan("f32"), F.canonical_nan("f16"), F.canonical_nan("bf16")) == (
        0x7FC0_0000,
        0x7E00,
        0x7FC0,
    )


def _numpy_oracle(fmt: str, op: str, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """float16 arithmetic (numpy: float32 then one rounding, innocuous) or float64 -> float32."""
    if fmt == "f16":
        x, y = a.astype(np.uint16).view(np.float16), b.astype(np.uint16).view(np.float16)
        nan_bits, view = F.canonical_nan(fmt), np.uint16
    else:
        with np.errstate(all="ignore"):
            x, y = a.view(np.float32).astype(np.float64), b.view(np.float32).astype(np.float64)
        nan_bits, view = F.canonical_nan(fmt), np.uint32
    with np.errstate(all="ignore"):
        if op == "sqrt":
            r = np.sqrt(x)
        else:
            r = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide}[op](x, y)
        if fmt == "f32":
            r = r.astype(np.float32)
    bits = r.view(view).astype(np.uint32)
    return np.where(np.isnan(r), np.uint32(nan_bits), bits)


@pytest.mark.parametrize("case", ["f16", "f32", "f32-wide"])
def test_large_random_sample_matches_numpy(case: str, monkeypatch: pytest.MonkeyPatch) -> None:
    fmt = use(case, monkeypatch)
    rng = np.random.default_rng(3)
    n = 400_000
    hi = 1 << FMTS[fmt].width
    a = rng.integers(0, hi, n, dtype=np.uint64).astype(np.uint32)
    b = rng.integers(0, hi, n, dtype=np.uint64).astype(np.uint32)
    b[: n // 2] = (a[: n // 2] ^ rng.integers(0, 64, n // 2, dtype=np.uint32)) ^ np.uint32(
        FMTS[fmt].sign
    )  # near-cancellation
    for op in ("add", "sub", "mul", "div"):
        want = _numpy_oracle(fmt, op, a, b)
        np.testing.assert_array_equal(F.binary(op, fmt, a, b), want, err_msg=f"{fmt} {op}")
    want = _numpy_oracle(fmt, "sqrt", a, a)
    np.testing.assert_array_equal(F.unary("sqrt", fmt, a), want, err_msg=f"{fmt} sqrt")


# ---------------------------------------------------------------------------
# FMA
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", FORMATS)
def test_fma_specials_cubed(fmt: str) -> None:
    sp = fma_specials(fmt)
    rows = [(a, b, c) for a in sp for b in sp for c in sp]
    a, b, c = zip(*rows, strict=True)
    got = run(lambda x, y, z: F.fma(fmt, x, y, z), a, b, c)
    expect_all(f"{fmt} fma", got, rows, lambda x, y, z: o_fma(fmt, x, y, z))


@pytest.mark.parametrize("fmt", FORMATS)
def test_fma_random(fmt: str) -> None:
    r = rand_bits(fmt, 9000, 21)
    rows = list(zip(r[:3000], r[3000:6000], r[6000:], strict=True))
    # c close to -a*b: massive cancellation
    prods = F.binary("mul", fmt, np.array(r[:3000], np.uint32), np.array(r[3000:6000], np.uint32))
    rows += [(x, y, int(p) ^ FMTS[fmt].sign) for x, y, p in zip(r[:3000], r[3000:6000], prods, strict=True)]
    a, b, c = zip(*rows, strict=True)
    got = run(lambda x, y, z: F.fma(fmt, x, y, z), a, b, c)
    expect_all(f"{fmt} fma", got, rows, lambda x, y, z: o_fma(fmt, x, y, z))


def _exact(fmt: str, q: Fraction) -> int | None:
    """The pattern of q when fmt represents it exactly."""
    bits = _round(fmt, q < 0, abs(q))
    d = dec(fmt, bits)
    return bits if d.kind == "num" and d.value == q else None


def _tie_cases(fmt: str, n: int, seed: int) -> list[tuple[int, int, int]]:
    """a*b exactly halfway between two representable numbers, c tiny (double-rounding traps)."""
    f = FMTS[fmt]
    p = f.mbits + 1
    rng = np.random.default_rng(seed)
    rows: list[tuple[int, int, int]] = []
    tiny = [1, 2, 3, (1 << f.mbits) - 1, 1 << f.mbits]  # subnormals and min normal
    while len(rows) < n:
        ka = int(rng.integers(2, p + 1))
        kb = p + 2 - ka
        if not 2 <= kb <= p:
            continue
        sa = int(rng.integers(1 << (ka - 1), 1 << ka)) | 1
        sb = int(rng.integers(1 << (kb - 1), 1 << kb)) | 1
        if (sa * sb).bit_length() != p + 1:
            continue  # product must have exactly one bit more than the format
        lo = f.emin - 2 * f.mbits if rng.integers(0, 4) == 0 else -8
        ea = int(rng.integers(lo, 8)) - ka
        eb = int(rng.integers(-8, 8)) - kb
        qa, qb = Fraction(sa) * Fraction(2) ** ea, Fraction(sb) * Fraction(2) ** eb
        a = _exact(fmt, qa * (-1 if rng.integers(0, 2) else 1))
        b = _exact(fmt, qb)
        if a is None or b is None:
            continue
        for t in tiny:
            for s in (0, f.sign):
                rows.append((a, b, t | s))
        rows.append((a, b, 0))
        rows.append((a, b, f.sign))
    return rows


@pytest.mark.parametrize("fmt", FORMATS)
def test_fma_exact_ties_with_tiny_addend(fmt: str) -> None:
    f = FMTS[fmt]
    one = f.bias << f.mbits
    handmade: list[tuple[int, int, int]] = []
    if fmt == "f32":
        a = 0x3F80_0800  # 1 + 2^-12: a*a = 1 + 2^-11 + 2^-24, halfway
        handmade += [(a, a, 1), (a, a, 0x8000_0001), (a, a, 0), (a, a, 0x8000_0000)]
        handmade += [(a, a ^ 0x8000_0000, 1), (a, a ^ 0x8000_0000, 0x8000_0001)]
    if fmt == "bf16":
        a = one | (1 << (f.mbits - 4))  # 1 + 2^-4: a*a = 1 + 2^-3 + 2^-8, halfway
        handmade += [(a, a, 1), (a, a, 0x8001), (a, a, 0), (a, a ^ f.sign, 1)]
    if fmt == "f16":
        a, b = one | (1 << 5), one | (1 << 4)  # (1+2^-5)(1+2^-6) = 1+2^-5+2^-6+2^-11, halfway
        handmade += [(a, b, 1), (a, b, 0x8001), (a, b, 0), (a ^ f.sign, b, 1)]
    rows = handmade + _tie_cases(fmt, 2500, 31)
    a_, b_, c_ = zip(*rows, strict=True)
    got = run(lambda x, y, z: F.fma(fmt, x, y, z), a_, b_, c_)
    expect_all(f"{fmt} fma ties", got, rows, lambda x, y, z: o_fma(fmt, x, y, z))
    # the handmade tie really is sensitive to the tiny addend
    up, down = got[0], got[1]
    assert up != down


def test_fma_f32_known_values() -> None:
    a = 0x3F80_0800
    assert int(F.fma("f32", a, a, 1)) == 0x3F80_1001  # rounds up, not to the even tie
    assert int(F.fma("f32", a, a, 0x8000_0001)) == 0x3F80_1000
    assert int(F.fma("f32", a, a, 0)) == 0x3F80_1000  # the tie itself goes to even
    assert int(F.fma("f32", 0x8000_0000, 0x3F80_0000, 0x8000_0000)) == 0x8000_0000
    assert int(F.fma("f32", 0x8000_0000, 0x3F80_0000, 0)) == 0
    assert int(F.fma("f32", 0x3F80_0000, 0x3F80_0000, 0xBF80_0000)) == 0
    assert int(F.fma("f32", 0x7F80_0000, 0, 0x3F80_0000)) == 0x7FC0_0000
    assert int(F.fma("f32", 0x7F80_0000, 0x3F80_0000, 0xFF80_0000)) == 0x7FC0_0000
    assert int(F.fma("f32", 0x7F7F_FFFF, 0x4000_0000, 0xFF7F_FFFF)) == 0x7F7F_FFFF  # no overflow


# ---------------------------------------------------------------------------
# Unary ops, exhaustive for F16 and BF16
# ---------------------------------------------------------------------------

ALL16 = np.arange(1 << 16, dtype=np.uint32)


@pytest.mark.parametrize("op", list(UNARY))
@pytest.mark.parametrize("fmt", SIXTEEN)
def test_unary_exhaustive_16(op: str, fmt: str) -> None:
    got = F.unary(op, fmt, ALL16)
    assert got.dtype == np.uint32
    oracle = UNARY[op]
    expect_all(f"{fmt} {op}", (int(g) for g in got), ((int(i),) for i in ALL16), lambda x: oracle(fmt, x))


@pytest.mark.parametrize("op", ["is_nan", "is_inf"])
@pytest.mark.parametrize("fmt", FORMATS)
def test_predicates(op: str, fmt: str) -> None:
    xs = list(range(1 << 16)) if fmt != "f32" else specials(fmt) + rand_bits(fmt, 5000, 41)
    got = run(lambda x: F.predicate(op, fmt, x), xs)
    expect_all(f"{fmt} {op}", got, ((x,) for x in xs), lambda x: o_predicate(op, fmt, x))
    assert int(F.predicate("fis_nan", fmt, FMTS[fmt].nan)) == 1


@pytest.mark.parametrize("op", [*UNARY, "sqrt-wide"])
def test_unary_f32(op: str, monkeypatch: pytest.MonkeyPatch) -> None:
    if op == "sqrt-wide":
        op = "sqrt"
        use("f32-wide", monkeypatch)
    f = FMTS["f32"]
    xs = specials("f32") + rand_bits("f32", 6000, 51)
    # values around the integers and halves where rounding to integral changes
    for k in (0, 1, 2, 3, 4, 5, 2**22 - 1, 2**22, 2**23 - 1, 2**23, 2**24 + 1):
        for frac in (Fraction(0), Fraction(1, 2), Fraction(1, 4), Fraction(3, 4)):
            q = Fraction(k) + frac
            if q.denominator == 1 or k < 2**22:
                bits = _round("f32", False, q)
                xs += [bits, bits + 1, max(bits - 1, 0)]
                xs += [x | f.sign for x in xs[-3:]]
    got = run(lambda x: F.unary(op, "f32", x), xs)
    expect_all(f"f32 {op}", got, ((x,) for x in xs), lambda x: UNARY[op]("f32", x))


def test_rounding_to_integral_keeps_sign_of_zero() -> None:
    minus = {"f32": 0xBECC_CCCD, "f16": 0xB666, "bf16": 0xBECD}  # -0.4
    half = {"f32": 0xBF00_0000, "f16": 0xB800, "bf16": 0xBF00}  # -0.5
    for fmt in FORMATS:
        f = FMTS[fmt]
        for op in ("floor", "ceil", "trunc", "round"):
            assert int(F.unary(op, fmt, f.sign)) == f.sign, (fmt, op)
            assert int(F.unary(op, fmt, 0)) == 0
        assert int(F.unary("round", fmt, minus[fmt])) == f.sign
        assert int(F.unary("round", fmt, half[fmt])) == f.sign  # half to even: -0
        assert int(F.unary("ceil", fmt, minus[fmt])) == f.sign
        assert int(F.unary("trunc", fmt, minus[fmt])) == f.sign
        assert int(F.unary("floor", fmt, minus[fmt])) == (f.bias << f.mbits) | f.sign  # -1
        assert int(F.unary("floor", fmt, 1)) == 0 and int(F.unary("ceil", fmt, 1)) == f.bias << f.mbits
    # 2.5 -> 2, 3.5 -> 4 (ties to even)
    assert int(F.unary("round", "f32", 0x4020_0000)) == 0x4000_0000
    assert int(F.unary("round", "f32", 0x4060_0000)) == 0x4080_0000


def test_neg_abs_keep_nan_payloads() -> None:
    assert int(F.unary("neg", "f32", 0x7F80_0001)) == 0xFF80_0001
    assert int(F.unary("abs", "f32", 0xFFC0_1234)) == 0x7FC0_1234
    assert int(F.unary("neg", "f16", 0x7C01)) == 0xFC01
    assert int(F.unary("fabs", "bf16", 0xFF81)) == 0x7F81
    assert int(F.unary("neg", "f32", 0)) == 0x8000_0000


# ---------------------------------------------------------------------------
# Conversions
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("dst", ["f32", "f16", "bf16", "i32", "u32"])
@pytest.mark.parametrize("src", SIXTEEN)
def test_convert_exhaustive_16(src: str, dst: str) -> None:
    if src == dst:
        np.testing.assert_array_equal(F.convert(src, dst, ALL16), ALL16)
        return
    got = F.convert(src, dst, ALL16)
    assert got.dtype == np.uint32
    expect_all(
        f"{src}->{dst}", (int(g) for g in got), ((int(i),) for i in ALL16), lambda x: o_convert(src, dst, x)
    )


def _f32_to_16_inputs() -> list[int]:
    """Exact midpoints between neighbouring 16-bit values (as F32) and their F32 neighbours."""
    xs = specials("f32") + rand_bits("f32", 4000, 61)
    rng = np.random.default_rng(62)
    for fmt in SIXTEEN:
        for b in rng.integers(0, 1 << 16, 1500):
            lo, hi = dec(fmt, int(b)), dec(fmt, int(b) + 1)
            if lo.kind != "num" or hi.kind != "num" or lo.neg != hi.neg:
                continue
            mid = (lo.mag + hi.mag) / 2
            bits = _round("f32", lo.neg, mid)
            xs += [bits, bits - 1, bits + 1]
    # overflow thresholds: f16 65504 / 65520, bf16 max and its midpoint to 2^128
    xs += [0x477F_E000, 0x477F_EFFF, 0x477F_F000, 0x477F_F001, 0x7F7F_0000, 0x7F7F_7FFF, 0x7F7F_8000]
    xs += [x | 0x8000_0000 for x in xs[-7:]]
    return xs


@pytest.mark.parametrize("dst", ["f16", "bf16", "i32", "u32"])
def test_convert_from_f32(dst: str) -> None:
    xs = _f32_to_16_inputs()
    got = run(lambda x: F.convert("f32", dst, x), xs)
    expect_all(f"f32->{dst}", got, ((x,) for x in xs), lambda x: o_convert("f32", dst, x))


def test_convert_f32_to_16_large_sample() -> None:
    rng = np.random.default_rng(63)
    x = rng.integers(0, 1 << 32, 1 << 21, dtype=np.uint64).astype(np.uint32)
    nan_mask = (x & 0x7FFF_FFFF) > 0x7F80_0000
    # f16: numpy's float32 -> float16 cast (RNE)
    with np.errstate(all="ignore"):
        want16 = x.view(np.float32).astype(np.float16).view(np.uint16).astype(np.uint32)
    want16 = np.where(nan_mask, np.uint32(0x7E00), want16)
    np.testing.assert_array_equal(F.convert("f32", "f16", x), want16)
    # bf16: the classic integer RNE on the F32 pattern
    wantb = ((x.astype(np.uint64) + 0x7FFF + ((x >> 16) & 1)) >> 16).astype(np.uint32)
    wantb = np.where(nan_mask, np.uint32(0x7FC0), wantb)
    np.testing.assert_array_equal(F.convert("f32", "bf16", x), wantb)


def test_float_to_int_saturation_boundaries() -> None:
    cases = {
        # f32 pattern: (i32, u32)
        0x4EFF_FFFF: (2**31 - 128, 2**31 - 128),  # largest f32 below 2^31
        0x4F00_0000: (2**31 - 1, 2**31),  # 2^31
        0x4F00_0001: (2**31 - 1, 2**31 + 256),
        0x4F7F_FFFF: (2**31 - 1, 2**32 - 256),  # largest f32 below 2^32
        0x4F80_0000: (2**31 - 1, 2**32 - 1),  # 2^32
        0xCF00_0000: (-(2**31) & 0xFFFF_FFFF, 0),  # -2^31 exactly
        0xCF00_0001: (-(2**31) & 0xFFFF_FFFF, 0),  # just below -2^31
        0xBF80_0000: (0xFFFF_FFFF, 0),  # -1
        0xBF7F_FFFF: (0, 0),  # -0.99999994 truncates to 0
        0x3FFF_FFFF: (1, 1),  # 1.9999999
        0xC000_0000: (-2 & 0xFFFF_FFFF, 0),
        0x7F80_0000: (2**31 - 1, 2**32 - 1),
        0xFF80_0000: (-(2**31) & 0xFFFF_FFFF, 0),
        0x7FC0_0000: (0, 0),
        0xFFFF_FFFF: (0, 0),
        0x7F80_0001: (0, 0),
        0x8000_0000: (0, 0),
        0x0000_0001: (0, 0),
    }
    pats = list(cases)
    gi = run(lambda x: F.convert("f32", "i32", x), pats)
    gu = run(lambda x: F.convert("f32", "u32", x), pats)
    for p, i, u in zip(pats, gi, gu, strict=True):
        assert (i, u) == cases[p], hex(p)
        assert (i, u) == (o_convert("f32", "i32", p), o_convert("f32", "u32", p))
    # 16-bit extremes
    assert int(F.convert("f16", "i32", 0x7BFF)) == 65504
    assert int(F.convert("bf16", "i32", 0x7F7F)) == 2**31 - 1
    assert int(F.convert("bf16", "u32", 0x4F80)) == 2**32 - 1  # 2^32
    assert int(F.convert("bf16", "u32", 0x4F7F)) == 0xFF00_0000


def _int_inputs() -> list[int]:
    xs = rand_bits("f32", 4000, 71)
    for k in range(0, 33):
        for d in (-3, -2, -1, 0, 1, 2, 3):
            xs.append(((1 << k) + d) & 0xFFFF_FFFF)
            xs.append((-(1 << k) + d) & 0xFFFF_FFFF)
    # ties at 24/11/8 significant bits
    for p in (24, 11, 8):
        for shift in range(1, 33 - p):
            for sig in ((1 << p) + 1, (1 << p) + 3, (1 << (p + 1)) - 1):
                v = (sig << shift) >> 1
                xs += [v & 0xFFFF_FFFF, (-v) & 0xFFFF_FFFF]
    xs += [0, 1, 0x7FFF_FFFF, 0x8000_0000, 0x8000_0001, 0xFFFF_FFFF, 65504, 65519, 65520, 65535]
    return xs


@pytest.mark.parametrize("dst", FORMATS)
@pytest.mark.parametrize("src", ["u32", "i32"])
def test_convert_from_int(src: str, dst: str) -> None:
    xs = _int_inputs()
    got = run(lambda x: F.convert(src, dst, x), xs)
    expect_all(f"{src}->{dst}", got, ((x,) for x in xs), lambda x: o_convert(src, dst, x))
    assert int(F.convert(src, "f32", 16_777_217)) == 0x4B80_0000  # 2^24 + 1 ties to 2^24
    assert int(F.convert(src, "f16", 65520)) == 0x7C00  # overflow


def test_convert_int_inputs_accept_signed_arrays() -> None:
    assert int(F.convert("i32", "f32", np.array(-1, np.int32))) == 0xBF80_0000
    assert int(F.convert("i32", "f32", -(2**31))) == 0xCF00_0000
    assert int(F.convert("u32", "f32", 0xFFFF_FFFF)) == 0x4F80_0000


def test_float_to_float_nan_is_canonical() -> None:
    assert int(F.convert("f32", "f16", 0xFF80_0001)) == 0x7E00
    assert int(F.convert("f16", "f32", 0xFC01)) == 0x7FC0_0000
    assert int(F.convert("bf16", "f16", 0xFFFF)) == 0x7E00
    assert int(F.convert("f16", "bf16", 0x7D00)) == 0x7FC0
    assert int(F.convert("f32", "f32", 0xFF80_0001)) == 0xFF80_0001  # same type: identity


def test_bitcasts() -> None:
    x = np.array([0, 1, 0x7FC0_0001, 0xFFFF_FFFF, 0x8000_0000], np.uint32)
    for a, b in (("f32", "u32"), ("u32", "f32"), ("f32", "i32"), ("i32", "f32")):
        np.testing.assert_array_equal(F.bitcast(a, b, x), x)
    np.testing.assert_array_equal(F.bitcast("u32", "f16", x), x & 0xFFFF)
    np.testing.assert_array_equal(F.bitcast("i32", "bf16", x), x & 0xFFFF)
    np.testing.assert_array_equal(F.bitcast("f16", "u32", np.array([0xFC01], np.uint16)), [0xFC01])
    with pytest.raises(ValueError):
        F.bitcast("f32", "f16", x)


# ---------------------------------------------------------------------------
# Interface: representation, literal rounding, names, speed
# ---------------------------------------------------------------------------


def test_encode_decode() -> None:
    rng = np.random.default_rng(81)
    xs = rng.standard_normal(5000) * 2.0 ** rng.integers(-150, 130, 5000)
    with np.errstate(all="ignore"):
        want = xs.astype(np.float32).view(np.uint32)
    np.testing.assert_array_equal(F.encode("f32", xs), want)
    assert int(F.encode("f32", 0.1)) == struct.unpack("<I", struct.pack("<f", 0.1))[0]
    assert int(F.encode("bf16", 2.0)) == 0x4000 and int(F.encode("f16", 0.5)) == 0x3800
    assert int(F.encode("bf16", float("nan"))) == 0x7FC0
    assert int(F.encode("f16", -0.0)) == 0x8000
    for fmt in SIXTEEN:
        vals = F.decode(fmt, ALL16)
        for i in range(0, 1 << 16, 97):
            v = dec(fmt, i)
            if v.kind == "nan":
                assert math.isnan(vals[i])
            else:
                assert vals[i] == v.value and math.copysign(1, vals[i]) == (-1 if v.neg else 1)


def test_inputs_are_bit_patterns() -> None:
    a = np.array([0x3C00, 0x4000], np.uint16)
    before = a.copy()
    out = F.binary("add", "f16", a, a)
    assert out.dtype == np.uint32 and list(out) == [0x4000, 0x4400]
    np.testing.assert_array_equal(a, before)
    # upper bits of 16-bit formats are ignored; results keep them zero
    assert int(F.binary("add", "f16", 0xABCD_3C00, 0x3C00)) == 0x4000
    # broadcasting and 0-d inputs
    assert F.binary("mul", "f32", np.uint32(0x4000_0000), np.array([0x3F80_0000] * 3, np.uint32)).shape == (3,)
    assert F.unary("sqrt", "bf16", 0x4080).shape == ()
    with pytest.raises(TypeError):
        F.binary("add", "f32", np.array([1.0], np.float32), np.array([1.0], np.float32))
    with pytest.raises(ValueError):
        F.binary("mod", "f32", 1, 1)
    with pytest.raises(ValueError):
        F.unary("neg", "f64", 1)


def test_op_and_format_spellings() -> None:
    one = 0x3F80_0000
    assert int(F.binary("FADD", "F32", one, one)) == 0x4000_0000
    assert int(F.binary("fmul", "f32", one, one)) == one
    assert int(F.unary("FFLOOR", "f32", one)) == one
    assert int(F.compare("FLT", "BF16", 0x3F80, 0x4000)) == 1
    assert int(F.predicate("FIS_INF", "f16", 0xFC00)) == 1


def test_f32_subnormal_arithmetic_is_live() -> None:
    assert F._f32_subnormals_work()  # no flush-to-zero in this process
    assert int(F.binary("add", "f32", 1, 1)) == 2
    assert int(F.binary("mul", "f32", 0x0080_0000, 0x3F00_0000)) == 0x0040_0000
