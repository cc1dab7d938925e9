"""F32 division's fast path (`softfloat.div_normal`) on numpy: wherever it says
it applies, its result is the correctly rounded a / b of the reference
interpreter's floats (numpy float32: no code shared); it applies to normal
operands with a normal quotient and to nothing else (the promises every fast
path shares: test_softfloat_fast_paths.py)."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pytest

from float_patterns import normal_f32

from vyre.runtime.interp import floats as oracle
from vyre.transforms import softfloat as sf
from vyre.transforms.softfloat.div_normal import fdiv_f32_normal

U32 = npt.NDArray[np.uint32]
M = sf.NumpyMachine()


def _run(a: U32, b: U32) -> tuple[npt.NDArray[np.bool_], U32]:
    applies, result = fdiv_f32_normal(M.word(a), M.word(b))
    return np.asarray(applies.v).astype(bool), np.asarray(result.v, dtype=np.uint32)


@pytest.mark.parametrize(("low", "high"), [(1, 255), (100, 155), (1, 70), (180, 255), (120, 135)])
def test_where_it_applies_it_is_the_correctly_rounded_quotient(low: int, high: int) -> None:
    rng = np.random.default_rng(low * 1000 + high + 7)
    n = 1 << 18
    a, b = normal_f32(rng, n, low, high), normal_f32(rng, n, low, high)
    # and significands that divide exactly, or nearly: products of two short significands
    short = (normal_f32(rng, n, 120, 135) & np.uint32(0xFFFF_F000)).view(np.float32)
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
