"""F32 multiplication's fast path (`softfloat.mul_normal`) on numpy: wherever it
says it applies, its result is the correctly rounded a * b of the reference
interpreter's floats (numpy float32 products: no code shared); it applies to
normal operands with a normal result and to nothing else (the promises every
fast path shares: test_softfloat_fast_paths.py)."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pytest

from float_patterns import normal_f32

from vyre.runtime.interp import floats as oracle
from vyre.transforms import softfloat as sf
from vyre.transforms.softfloat.mul_normal import fmul_f32_normal

U32 = npt.NDArray[np.uint32]
M = sf.NumpyMachine()


def _run(a: U32, b: U32) -> tuple[npt.NDArray[np.bool_], U32]:
    applies, result = fmul_f32_normal(M.word(a), M.word(b))
    return np.asarray(applies.v).astype(bool), np.asarray(result.v, dtype=np.uint32)


@pytest.mark.parametrize(("low", "high"), [(1, 255), (100, 155), (1, 70), (180, 255), (120, 135)])
def test_where_it_applies_it_is_the_correctly_rounded_product(low: int, high: int) -> None:
    rng = np.random.default_rng(low * 1000 + high)
    n = 1 << 18
    a, b = normal_f32(rng, n, low, high), normal_f32(rng, n, low, high)
    for x, y in ((a, b), (a & np.uint32(0xFFFF_F000), b & np.uint32(0xFFFF_F800))):  # and exact products, ties
        applies, got = _run(x, y)
        want = oracle.binary("mul", "f32", x, y)
        bad = np.flatnonzero(applies & (got != want))[:3]
        assert bad.size == 0, [(hex(int(x[i])), hex(int(y[i])), hex(int(got[i])), hex(int(want[i]))) for i in bad]
        exact = x.view(np.float32).astype(np.float64) * y.view(np.float32).astype(np.float64)
        normal = (np.abs(exact) >= 2.0**-126) & (np.abs(exact) < 2.0**128)  # exact in float64
        assert np.array_equal(applies, normal)  # exactly the normal products (some round to infinity)


@pytest.mark.parametrize(
    ("a", "b", "applies", "want"),
    [
        (0x3F80_0000, 0x3F80_0000, True, 0x3F80_0000),  # 1 * 1
        (0x0080_0000, 0x3F80_0000, True, 0x0080_0000),  # the smallest normal result
        (0x0080_0000, 0x3F7F_FFFF, False, None),  # just below it: a subnormal result
        (0x7F7F_FFFE, 0x3F80_0001, True, 0x7F80_0000),  # 2**128 - 2**82: rounds up to infinity
        (0x7F7F_FFFF, 0x3F80_0001, False, None),  # 2**128 and more before rounding
        (0x3FFF_FFFF, 0x3FFF_FFFF, True, None),  # significands' product in [2, 4): no shift
        (0x3F80_0001, 0x3F80_0001, True, None),  # in [1, 2): one place of normalisation
    ],
)
def test_edges(a: int, b: int, applies: bool, want: int | None) -> None:
    words = [np.array([w], dtype=np.uint32) for w in (a, b)]
    got_applies, got = _run(*words)
    assert bool(got_applies[0]) is applies
    exact = int(oracle.binary("mul", "f32", *words)[0])
    if want is not None:
        assert exact == want
    if applies:
        assert int(got[0]) == exact
