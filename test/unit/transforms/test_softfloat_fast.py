"""The fast soft-float algorithms (reciprocal division, reciprocal-square-root
square root, direct F16/BF16 arithmetic, one-word narrow fma) on numpy, against
oracles that share no code with them: exact integer arithmetic, numpy's
float32, and the reference interpreter's exact floats. What they cost in
integer operations is pinned too (vyre.conform.float_cost)."""

from __future__ import annotations

import itertools

import numpy as np
import numpy.typing as npt
import pytest

from vyre.conform.float_cost import wgsl_cost
from vyre.runtime.interp import floats as oracle
from vyre.transforms import softfloat as sf
from vyre.transforms.softfloat.div import reciprocal
from vyre.transforms.softfloat.sqrt import isqrt24

U32 = npt.NDArray[np.uint32]
M = sf.NumpyMachine()
FORMATS = {"f32": sf.F32, "f16": sf.F16, "bf16": sf.BF16}


def _mismatches(got: U32, want: npt.ArrayLike, *inputs: U32) -> list[tuple[str, ...]]:
    want = np.asarray(want, dtype=np.uint32)
    bad = np.flatnonzero(got != want)[:5]
    return [(*(hex(int(x[i])) for x in inputs), f"got {int(got[i]):#x}", f"want {int(want[i]):#x}") for i in bad]


def test_the_reciprocal_is_below_and_within_2_01_units_for_every_divisor() -> None:
    """The bound the quotient digits rely on, for all 2**23 divisor significands:
    0 < 2**39 / d - y < 2.01, checked in integers (y * d < 2**39 and
    100 * (2**39 - y * d) < 201 * d)."""
    d = np.arange(1 << 23, 1 << 24, dtype=np.uint32)
    y = reciprocal(M.word(d)).v.astype(np.int64)
    gap = (1 << 39) - y * d.astype(np.int64)
    assert int(gap.min()) > 0
    assert bool((100 * gap < 201 * d.astype(np.int64)).all())


def test_the_integer_square_root_is_exact_for_every_significand_and_parity() -> None:
    """R = floor(sqrt(N)) and the remainder N - R**2, N = m * 2**(23 + odd), for
    all 2**24 cases (every F32 square root reduces to one of them)."""
    m = np.arange(1 << 23, 1 << 24, dtype=np.uint32)
    for odd in (0, 1):
        r, rem = isqrt24(M.word(m), M.word(np.full_like(m, odd)))
        big_r, big_rem = r.v.astype(np.int64), rem.v.astype(np.int64)
        n = m.astype(np.int64) << (23 + odd)
        assert bool((big_r * big_r + big_rem == n).all())
        assert bool(((big_rem >= 0) & (big_rem <= 2 * big_r)).all())


def _f32(values: npt.ArrayLike) -> U32:
    return np.asarray(values, dtype=np.float32).view(np.uint32)


def _divide(a: U32, b: U32) -> U32:
    with np.errstate(all="ignore"):
        r = a.view(np.float32) / b.view(np.float32)
    bits = r.view(np.uint32).copy()
    bits[np.isnan(r)] = 0x7FC0_0000
    return bits


def test_f32_division_hard_cases() -> None:
    """Significands near 1 and 2 (the reciprocal's ends), exact quotients,
    quotients a hair from a rounding midpoint, and subnormal results that are
    exact ties (3 * 2**-149 / 2), against numpy's float32 division."""
    rng = np.random.default_rng(21)
    n = 100_000
    ends = np.concatenate([np.arange(0, 64), 0x7F_FFFF - np.arange(0, 64)]).astype(np.uint32)
    fa = ends[rng.integers(0, len(ends), n)] | (rng.integers(1, 254, n).astype(np.uint32) << np.uint32(23))
    fb = ends[rng.integers(0, len(ends), n)] | (rng.integers(1, 254, n).astype(np.uint32) << np.uint32(23))
    short_b = (rng.integers(1 << 11, 1 << 12, n) << 12).astype(np.uint32) | np.uint32(127 << 23)
    short_q = (rng.integers(1 << 11, 1 << 12, n) << 12).astype(np.uint32) | np.uint32(128 << 23)
    exact_a = _f32(short_b.view(np.float32).astype(np.float64) * short_q.view(np.float32).astype(np.float64))
    mid = (rng.integers(1 << 24, 1 << 25, n) | 1).astype(np.float64) / 2**24  # odd 25-bit: a midpoint
    db = rng.integers(0, 1 << 23, n).astype(np.uint32) | np.uint32(127 << 23)
    near_a = _f32(db.view(np.float32).astype(np.float64) * mid)
    tiny = np.arange(1, 64, dtype=np.uint32)  # subnormal dividends
    tie_b = np.array([0x4000_0000, 0x4080_0000, 0x3FC0_0000, 0x4040_0000], dtype=np.uint32)
    ta, tb = (g.ravel() for g in np.meshgrid(tiny, tie_b))
    for a, b in ((fa, fb), (exact_a, short_b), (near_a, db), (ta, tb), (fb, fa)):
        got = sf.binary("div", sf.F32)(M.word(a), M.word(b)).v
        assert _mismatches(got, _divide(a, b), a, b) == []


SPECIALS16 = {
    "f16": (0x0000, 0x8000, 0x0001, 0x03FF, 0x0400, 0x3C00, 0xBC00, 0x3C01, 0x3BFF, 0x3E00, 0x7BFF, 0x7C00, 0xFC00, 0x7E00, 0x7C01, 0x1400, 0x0200, 0x5555, 0x3FFF, 0x4000),
    "bf16": (0x0000, 0x8000, 0x0001, 0x007F, 0x0080, 0x3F80, 0xBF80, 0x3F81, 0x3F7F, 0x3FC0, 0x7F7F, 0xFF7F, 0x7F80, 0xFF80, 0x7FC0, 0x7F81, 0x0040, 0x5555, 0x3FFF, 0x4000),
}  # fmt: skip


@pytest.mark.parametrize("fmt", ["f16", "bf16"])
@pytest.mark.parametrize("op", ["add", "sub", "mul", "div"])
def test_16_bit_arithmetic_directly_in_the_format(fmt: str, op: str) -> None:
    """Every pattern against the specials, both orders (the narrow formats no
    longer round through F32): 2.6 million pairs per op and format."""
    every = np.arange(1 << 16, dtype=np.uint32)
    specials = np.array(SPECIALS16[fmt], dtype=np.uint32)
    a = np.concatenate([np.repeat(every, len(specials)), np.tile(specials, len(every))])
    b = np.concatenate([np.tile(specials, len(every)), np.repeat(every, len(specials))])
    got = sf.binary(op, FORMATS[fmt])(M.word(a), M.word(b)).v
    assert _mismatches(got, oracle.binary(op, fmt, a, b), a, b) == []


@pytest.mark.parametrize("fmt", ["f16", "bf16"])
def test_16_bit_fma_in_one_word(fmt: str) -> None:
    """Random triples, c near -(a*b) (cancellation), subnormal operands, the
    specials cubed, and the jam-bit class: a*b an exact tie of the format with
    a tiny c of either sign."""
    f = FORMATS[fmt]
    rng = np.random.default_rng(22)
    n = 200_000
    a, b, c = (rng.integers(0, 1 << 16, n).astype(np.uint32) for _ in range(3))
    product = oracle.binary("mul", fmt, a, b)
    subnormal = np.uint32((1 << f.fraction) - 1 | 0x8000)
    cube = np.array(list(itertools.product(SPECIALS16[fmt][:16], repeat=3)), dtype=np.uint32).T
    # ties: odd significands whose product has exactly one bit beyond the format's
    half = (f.fraction + 2) // 2
    ma = rng.integers(1 << (half - 1), 1 << half, n).astype(np.uint32) * 2 + 1
    mb = rng.integers(1 << (f.fraction - half), 1 << (f.fraction - half + 1), n).astype(np.uint32) * 2 + 1
    ta = (np.uint32(f.bias << f.fraction)) | ((ma << np.uint32(f.fraction - half - 1)) & np.uint32((1 << f.fraction) - 1))
    tb = (np.uint32(f.bias << f.fraction)) | ((mb << np.uint32(half - 1)) & np.uint32((1 << f.fraction) - 1))
    tc = rng.integers(1, 1 << f.fraction, n).astype(np.uint32) | (rng.integers(0, 2, n).astype(np.uint32) << np.uint32(15))
    cases = [
        (a, b, c),
        (a, b, (product ^ np.uint32(0x8000)) ^ (c & np.uint32(3))),
        (a & subnormal, b, c),
        (a, b, c & subnormal),
        (cube[0], cube[1], cube[2]),
        (ta, tb, tc),
    ]
    for x, y, z in cases:
        got = sf.ternary("fma", f)(M.word(x), M.word(y), M.word(z)).v
        assert _mismatches(got, oracle.fma(fmt, x, y, z), x, y, z) == []


def test_f32_fma_with_subnormal_and_unnormalised_operands() -> None:
    """F32 fma takes the stored significands (no normalisation): subnormal
    factors and addends, with c near -(a*b) and far from it."""
    rng = np.random.default_rng(23)
    n = 200_000
    a = rng.integers(0, 1 << 32, n, dtype=np.uint64).astype(np.uint32)
    b = rng.integers(0, 1 << 32, n, dtype=np.uint64).astype(np.uint32)
    c = rng.integers(0, 1 << 32, n, dtype=np.uint64).astype(np.uint32)
    sub = np.uint32(0x807F_FFFF)
    product = oracle.binary("mul", "f32", a & sub, b)
    for x, y, z in (
        (a & sub, b, c),
        (a, b, c & sub),
        (a & sub, b | np.uint32(0x7000_0000), c & sub),
        (a & sub, b, (product ^ np.uint32(0x8000_0000)) ^ (c & np.uint32(7))),
    ):
        got = sf.ternary("fma", sf.F32)(M.word(x), M.word(y), M.word(z)).v
        assert _mismatches(got, oracle.fma("f32", x, y, z), x, y, z) == []


# Integer operations per element (IR: the soft-float program; WGSL: what the op
# adds to a copy kernel after lowering, portable). A regression here costs GPU
# time. F32 fma's product is a `mul_high` (one u64 product on adapters with
# 64-bit integers: 131 there, `INT64_COSTS`), which costs the portable form 2
# more than the inline 8-bit-by-16-bit digits did (142).
COSTS = {
    ("fadd", "f32"): (48, 62), ("fmul", "f32"): (50, 56), ("fdiv", "f32"): (71, 80),
    ("fsqrt", "f32"): (58, 64), ("fma", "f32"): (97, 144),
    ("fadd", "f16"): (61, 77), ("fmul", "f16"): (62, 78), ("fdiv", "f16"): (103, 125),
    ("fsqrt", "f16"): (78, 85), ("fma", "f16"): (116, 151),
    ("fadd", "bf16"): (61, 77), ("fmul", "bf16"): (62, 78), ("fdiv", "bf16"): (103, 125),
    ("fsqrt", "bf16"): (78, 85), ("fma", "bf16"): (116, 151),
}  # fmt: skip


INT64_COSTS = {("fma", "f32"): 131, ("fexp", "f32"): 287, ("flog", "f32"): 350, ("fasin", "f32"): 488}
"""WGSL operations where `mul_high` is one u64 product (`LoweringOptions.int64`)."""


def test_the_op_costs_stay_where_they_were_cut_to() -> None:
    over = {}
    for (op, fmt), (ir, wgsl) in COSTS.items():
        cost = wgsl_cost(op, fmt)
        if cost.ir > ir or cost.total > wgsl:
            over[(op, fmt)] = (cost.ir, cost.total)
    for (op, fmt), wgsl in INT64_COSTS.items():
        cost = wgsl_cost(op, fmt, int64=True)
        if cost.total > wgsl:
            over[(op, fmt, "int64")] = (cost.ir, cost.total)
    assert over == {}
    assert wgsl_cost("fadd", "f32").kinds["mul"] == 0  # a copy kernel subtracted: only the op is counted
