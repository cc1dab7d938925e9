"""F32 addition's and subtraction's fast paths (`softfloat.add_normal`) on numpy:
wherever they say they apply, the result is the correctly rounded sum of the
reference interpreter's floats (numpy float32: no code shared); they apply to
normal operands with a normal, non-zero sum and to nothing else; and
select(applies, fast, general) is the general algorithm on every input."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pytest

from vyre.dialects import vyre as d
from vyre.runtime.interp import floats as oracle
from vyre.transforms import softfloat as sf
from vyre.transforms.softfloat.add_normal import fadd_f32_normal, fsub_f32_normal

U32 = npt.NDArray[np.uint32]
M = sf.NumpyMachine()
PATHS = {"add": fadd_f32_normal, "sub": fsub_f32_normal}


def _run(op: str, a: U32, b: U32) -> tuple[npt.NDArray[np.bool_], U32]:
    applies, result = PATHS[op](M.word(a), M.word(b))
    return np.asarray(applies.v).astype(bool), np.asarray(result.v, dtype=np.uint32)


def _normal(rng: np.random.Generator, n: int, low: int, high: int) -> U32:
    sign = rng.integers(0, 2, n, dtype=np.uint64) << np.uint64(31)
    exponent = rng.integers(low, high, n, dtype=np.uint64) << np.uint64(23)
    return (sign | exponent | rng.integers(0, 1 << 23, n, dtype=np.uint64)).astype(np.uint32)


def _pairs(seed: int) -> list[tuple[U32, U32]]:
    rng = np.random.default_rng(seed)
    n = 1 << 17
    out: list[tuple[U32, U32]] = []
    for low, high in ((1, 255), (120, 135), (1, 40), (200, 255)):
        out.append((_normal(rng, n, low, high), _normal(rng, n, low, high)))
    a = _normal(rng, n, 1, 255)
    out.append((a, (a ^ np.uint32(0x8000_0000)) + rng.integers(-300, 301, n).astype(np.uint32)))  # cancellation
    shift = rng.integers(0, 40, n).astype(np.uint32)  # every alignment, and beyond a word
    exponent = ((a >> np.uint32(23)) & np.uint32(0xFF)) - shift
    out.append((a, (a & np.uint32(0x807F_FFFF)) | ((exponent & np.uint32(0xFF)) << np.uint32(23))))
    short = np.uint32(0xFFFF_0000)  # few significant bits: exact sums and ties
    out.append((a & short, _normal(rng, n, 1, 255) & short))
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


SPECIAL = [0x0000_0000, 0x8000_0000, 0x0000_0001, 0x807F_FFFF, 0x7F80_0000, 0xFF80_0000, 0x7FC0_0000, 0x7F80_0001]


@pytest.mark.parametrize("op", ["add", "sub"])
def test_it_never_applies_to_a_zero_subnormal_infinite_or_nan_operand(op: str) -> None:
    normal = (np.random.default_rng(9).integers(100, 155, 64).astype(np.uint32) << np.uint32(23)) | np.uint32(0x1234)
    for special in SPECIAL:
        s = np.full(64, special, dtype=np.uint32)
        assert not _run(op, s, normal)[0].any() and not _run(op, normal, s)[0].any(), hex(special)


@pytest.mark.parametrize(("op", "op_class"), [("add", d.FAddOp), ("sub", d.FSubOp)])
def test_the_fast_routine_is_the_general_algorithm_on_every_input(op: str, op_class: type[d.FloatOp]) -> None:
    assert sf.fast_path_of(op_class, sf.F32) is PATHS[op]
    assert sf.fast_path_of(op_class, sf.BF16) is None
    general = sf.algorithm_of(op_class, sf.F32)
    rng = np.random.default_rng(10)
    a, b = (rng.integers(0, 1 << 32, 1 << 18, dtype=np.uint64).astype(np.uint32) for _ in range(2))
    b[::4] = a[::4] ^ np.uint32(0x8000_0000 if op == "add" else 0)  # exact cancellations too
    applies, value = PATHS[op](M.word(a), M.word(b))
    picked = sf.sel(applies, value, general(M.word(a), M.word(b))).v
    assert np.array_equal(picked, oracle.binary(op, "f32", a, b))
    assert 0.1 < float(np.asarray(applies.v).mean()) < 0.9
