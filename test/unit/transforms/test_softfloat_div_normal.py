"""F32 division's fast path (`softfloat.div_normal`) on numpy: wherever it says
it applies, its result is the correctly rounded a / b of the reference
interpreter's floats (numpy float32: no code shared); it applies to normal
operands with a normal quotient and to nothing else; and select(applies, fast,
general) is the general algorithm on every input."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pytest

from vyre.dialects import vyre as d
from vyre.runtime.interp import floats as oracle
from vyre.transforms import softfloat as sf
from vyre.transforms.softfloat.div_normal import fdiv_f32_normal

U32 = npt.NDArray[np.uint32]
M = sf.NumpyMachine()


def _run(a: U32, b: U32) -> tuple[npt.NDArray[np.bool_], U32]:
    applies, result = fdiv_f32_normal(M.word(a), M.word(b))
    return np.asarray(applies.v).astype(bool), np.asarray(result.v, dtype=np.uint32)


def _normal(rng: np.random.Generator, n: int, low: int, high: int) -> U32:
    sign = rng.integers(0, 2, n, dtype=np.uint64) << np.uint64(31)
    exponent = rng.integers(low, high, n, dtype=np.uint64) << np.uint64(23)
    return (sign | exponent | rng.integers(0, 1 << 23, n, dtype=np.uint64)).astype(np.uint32)


@pytest.mark.parametrize(("low", "high"), [(1, 255), (100, 155), (1, 70), (180, 255), (120, 135)])
def test_where_it_applies_it_is_the_correctly_rounded_quotient(low: int, high: int) -> None:
    rng = np.random.default_rng(low * 1000 + high + 7)
    n = 1 << 18
    a, b = _normal(rng, n, low, high), _normal(rng, n, low, high)
    # and significands that divide exactly, or nearly: products of two short significands
    short = (_normal(rng, n, 120, 135) & np.uint32(0xFFFF_F000)).view(np.float32)
    with np.errstate(over="ignore", under="ignore"):
        product = (short.astype(np.float64) * b.view(np.float32)).astype(np.float32).view(np.uint32)
    for x, y in ((a, b), (product, b), (product + np.uint32(1), b)):
        applies, got = _run(x, y)
        want = oracle.binary("div", "f32", x, y)
        bad = np.flatnonzero(applies & (got != want))[:3]
        assert bad.size == 0, [(hex(int(x[i])), hex(int(y[i])), hex(int(got[i])), hex(int(want[i]))) for i in bad]
    applies, _ = _run(a, b)
    with np.errstate(over="ignore", under="ignore"):
        exact = np.abs(a.view(np.float32).astype(np.float64) / b.view(np.float32).astype(np.float64))
    clear = (exact > 2.0**-126 * (1 + 2.0**-20)) & (exact < 2.0**128 * (1 - 2.0**-20))  # away from the rounding's edges
    assert not (clear & ~applies).any()  # every normal quotient
    assert not (applies & (exact < 2.0**-126 * (1 - 2.0**-20))).any()  # never a subnormal one


@pytest.mark.parametrize(
    ("a", "b", "applies", "want"),
    [
        (0x4040_0000, 0x4000_0000, True, 0x3FC0_0000),  # 3 / 2
        (0x3F80_0000, 0x4040_0000, True, 0x3EAA_AAAB),  # 1 / 3
        (0x0080_0000, 0x3F80_0000, True, 0x0080_0000),  # the smallest normal / 1
        (0x0080_0000, 0x4000_0000, False, None),  # / 2: a subnormal quotient
        (0x7F7F_FFFF, 0x3F7F_FFFF, False, None),  # max / (1 - 2**-24): above the range before rounding
        (0x7F7F_FFFF, 0x3F80_0000, True, 0x7F7F_FFFF),  # max / 1
    ],
)
def test_edges(a: int, b: int, applies: bool, want: int | None) -> None:
    words = [np.array([w], dtype=np.uint32) for w in (a, b)]
    got_applies, got = _run(*words)
    assert bool(got_applies[0]) is applies
    exact = int(oracle.binary("div", "f32", *words)[0])
    if want is not None:
        assert exact == want
    if applies:
        assert int(got[0]) == exact


SPECIAL = [0x0000_0000, 0x8000_0000, 0x0000_0001, 0x807F_FFFF, 0x7F80_0000, 0xFF80_0000, 0x7FC0_0000, 0x7F80_0001]


def test_it_never_applies_to_a_zero_subnormal_infinite_or_nan_operand() -> None:
    normal = _normal(np.random.default_rng(11), 64, 100, 155)
    for special in SPECIAL:
        s = np.full(64, special, dtype=np.uint32)
        assert not _run(s, normal)[0].any() and not _run(normal, s)[0].any(), hex(special)


def test_the_fast_routine_is_the_general_algorithm_on_every_input() -> None:
    assert sf.fast_path_of(d.FDivOp, sf.F32) is fdiv_f32_normal
    assert sf.fast_path_of(d.FDivOp, sf.F16) is None
    general = sf.algorithm_of(d.FDivOp, sf.F32)
    rng = np.random.default_rng(12)
    a, b = (rng.integers(0, 1 << 32, 1 << 18, dtype=np.uint64).astype(np.uint32) for _ in range(2))
    applies, value = fdiv_f32_normal(M.word(a), M.word(b))
    picked = sf.sel(applies, value, general(M.word(a), M.word(b))).v
    assert np.array_equal(picked, oracle.binary("div", "f32", a, b))
    assert 0.1 < float(np.asarray(applies.v).mean()) < 0.9
