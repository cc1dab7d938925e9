"""F32 addition's and subtraction's fast paths (`softfloat.add_normal`) on numpy:
wherever they say they apply, the result is the correctly rounded sum of the
reference interpreter's floats (numpy float32: no code shared); they apply to
normal operands with a normal, non-zero sum and to nothing else (the promises
every fast path shares: test_softfloat_fast_paths.py)."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pytest

from float_patterns import normal_f32

from vyre.runtime.interp import floats as oracle
from vyre.transforms import softfloat as sf
from vyre.transforms.softfloat.add_normal import fadd_f32_normal, fsub_f32_normal

U32 = npt.NDArray[np.uint32]
M = sf.NumpyMachine()
PATHS = {"add": fadd_f32_normal, "sub": fsub_f32_normal}


def _run(op: str, a: U32, b: U32) -> tuple[npt.NDArray[np.bool_], U32]:
    applies, result = PATHS[op](M.word(a), M.word(b))
    return np.asarray(applies.v).astype(bool), np.asarray(result.v, dtype=np.uint32)


def _pairs(seed: int) -> list[tuple[U32, U32]]:
    rng = np.random.default_rng(seed)
    n = 1 << 17
    out: list[tuple[U32, U32]] = []
    for low, high in ((1, 255), (120, 135), (1, 40), (200, 255)):
        out.append((normal_f32(rng, n, low, high), normal_f32(rng, n, low, high)))
    a = normal_f32(rng, n, 1, 255)
    out.append((a, (a ^ np.uint32(0x8000_0000)) + rng.integers(-300, 301, n).astype(np.uint32)))  # cancellation
    shift = rng.integers(0, 40, n).astype(np.uint32)  # every alignment, and beyond a word
    exponent = ((a >> np.uint32(23)) & np.uint32(0xFF)) - shift
    out.append((a, (a & np.uint32(0x807F_FFFF)) | ((exponent & np.uint32(0xFF)) << np.uint32(23))))
    short = np.uint32(0xFFFF_0000)  # few significant bits: exact sums and ties
    out.append((a & short, normal_f32(rng, n, 1, 255) & short))
    return out


@pytest.mark.parametrize("op", ["add", "sub"])
def test_where_it_applies_it_is_the_correctly_rounded_sum(op: str) -> None:
    for a, b in _pairs(1):
        applies, got = _run(op, a, b)
        want = oracle.binary(op, "f32", a, b)
        bad = np.flatnonzero(applies & (got != want))[:3]
        assert bad.size == 0, [(hex(int(a[i])), hex(int(b[i])), hex(int(got[i])), hex(int(want[i]))) for i in bad]
        with np.errstate(invalid="ignore"):  # NaN patterns
            fa, fb = a.view(np.float32).astype(np.float64), b.view(np.float32).astype(np.float64)
        exact = np.abs(fa + fb if op == "add" else fa - fb)  # exact in float64 for operand pairs within 29 binades
        normal_operands = ((a & np.uint32(0x7F80_0000)) != 0) & ((a & np.uint32(0x7F80_0000)) != np.uint32(0x7F80_0000))
        normal_operands &= ((b & np.uint32(0x7F80_0000)) != 0) & ((b & np.uint32(0x7F80_0000)) != np.uint32(0x7F80_0000))
        near = np.abs(((a >> np.uint32(23)) & np.uint32(0xFF)).astype(np.int64) - ((b >> np.uint32(23)) & np.uint32(0xFF)).astype(np.int64)) < 29
        clear = normal_operands & near & (exact >= 2.0**-126) & (exact < 2.0**128)
        assert not (clear & ~applies).any()  # it covers every normal, non-zero sum it could be asked for
        assert not (applies & (exact < 2.0**-126)).any()  # and never a subnormal or zero one


@pytest.mark.parametrize(
    ("a", "b", "applies", "want"),
    [
        (0x3F80_0000, 0x3F80_0000, True, 0x4000_0000),  # 1 + 1
        (0x3F80_0000, 0xBF80_0000, False, None),  # 1 - 1 = +0: left to the general algorithm
        (0x0100_0000, 0x8080_0000, True, 0x0080_0000),  # 2**-125 - 2**-126: the smallest normal
        (0x0100_0000, 0x80C0_0000, False, None),  # 2**-125 - 1.5 * 2**-126: subnormal
        (0x7F7F_FFFF, 0x7300_0000, True, 0x7F80_0000),  # max + half an ulp: a tie, to even, infinity
        (0x7F7F_FFFF, 0x7380_0000, False, None),  # max + an ulp = 2**128: above the range before rounding
        (0x7F7F_FFFF, 0x7F7F_FFFF, False, None),  # 2 max: above the range before rounding
        (0x3F80_0000, 0x2F80_0000, True, 0x3F80_0000),  # 1 + 2**-32: shifted out, jammed
    ],
)
def test_edges(a: int, b: int, applies: bool, want: int | None) -> None:
    words = [np.array([w], dtype=np.uint32) for w in (a, b)]
    got_applies, got = _run("add", *words)
    assert bool(got_applies[0]) is applies
    exact = int(oracle.binary("add", "f32", *words)[0])
    if want is not None:
        assert exact == want
    if applies:
        assert int(got[0]) == exact
