"""F32 multiplication's fast path (`softfloat.mul_normal`) on numpy: wherever it
says it applies, its result is the correctly rounded a * b of the reference
interpreter's floats (numpy float32 products: no code shared); it applies to
normal operands with a normal result and to nothing else; and select(applies,
fast, general) is the general algorithm on every input."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pytest

from vyre.dialects import vyre as d
from vyre.runtime.interp import floats as oracle
from vyre.transforms import softfloat as sf
from vyre.transforms.softfloat.mul_normal import fmul_f32_normal

U32 = npt.NDArray[np.uint32]
M = sf.NumpyMachine()


def _run(a: U32, b: U32) -> tuple[npt.NDArray[np.bool_], U32]:
    applies, result = fmul_f32_normal(M.word(a), M.word(b))
    return np.asarray(applies.v).astype(bool), np.asarray(result.v, dtype=np.uint32)


def _normal(rng: np.random.Generator, n: int, low: int, high: int) -> U32:
    sign = rng.integers(0, 2, n, dtype=np.uint64) << np.uint64(31)
    exponent = rng.integers(low, high, n, dtype=np.uint64) << np.uint64(23)
    return (sign | exponent | rng.integers(0, 1 << 23, n, dtype=np.uint64)).astype(np.uint32)


@pytest.mark.parametrize(("low", "high"), [(1, 255), (100, 155), (1, 70), (180, 255), (120, 135)])
def test_where_it_applies_it_is_the_correctly_rounded_product(low: int, high: int) -> None:
    rng = np.random.default_rng(low * 1000 + high)
    n = 1 << 18
    a, b = _normal(rng, n, low, high), _normal(rng, n, low, high)
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


SPECIAL = [0x0000_0000, 0x8000_0000, 0x0000_0001, 0x807F_FFFF, 0x7F80_0000, 0xFF80_0000, 0x7FC0_0000, 0x7F80_0001]


def test_it_never_applies_to_a_zero_subnormal_infinite_or_nan_operand() -> None:
    normal = _normal(np.random.default_rng(7), 64, 100, 155)
    for special in SPECIAL:
        s = np.full(64, special, dtype=np.uint32)
        assert not _run(s, normal)[0].any() and not _run(normal, s)[0].any(), hex(special)


def test_the_fast_routine_is_the_general_algorithm_on_every_input() -> None:
    assert sf.fast_path_of(d.FMulOp, sf.F32) is fmul_f32_normal
    assert sf.fast_path_of(d.FMulOp, sf.F16) is None
    general = sf.algorithm_of(d.FMulOp, sf.F32)
    rng = np.random.default_rng(8)
    a, b = (rng.integers(0, 1 << 32, 1 << 18, dtype=np.uint64).astype(np.uint32) for _ in range(2))
    applies, value = fmul_f32_normal(M.word(a), M.word(b))
    picked = sf.sel(applies, value, general(M.word(a), M.word(b))).v
    assert np.array_equal(picked, oracle.binary("mul", "f32", a, b))
    assert 0.1 < float(np.asarray(applies.v).mean()) < 0.9
