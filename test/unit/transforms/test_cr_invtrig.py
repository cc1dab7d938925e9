"""The correctly rounded inverse trigonometric functions (asin, acos, atan,
atan2): the soft-float algorithms on the numpy machine against the interpreter's
exact oracle (float64 with a guard band, MPFR where that is unsure; no shared
code) on every F16 and BF16 input, F32 specials, hard cases and samples, the
special values of C's Annex F spelled out, and one program on the interpreter
and the GPU giving equal bits."""

from __future__ import annotations

import itertools

import numpy as np
import numpy.typing as npt
import pytest

import vyre
from vyre.dialects import vyre as d
from vyre.ir import BufferDecl, DataType, Program
from vyre.ir import Expr as E
from vyre.ir import Node as N
from vyre.runtime.interp import floats as oracle
from vyre.transforms import softfloat as sf
from vyre.transforms.softfloat import atan as soft_atan

Bits = npt.NDArray[np.uint32]
M = sf.NumpyMachine()
UNARY = {"asin": d.FAsinOp, "acos": d.FAcosOp, "atan": d.FAtanOp}
SIGN = {"f32": 0x8000_0000, "f16": 0x8000, "bf16": 0x8000}
ONE = {"f32": 0x3F80_0000, "f16": 0x3C00, "bf16": 0x3F80}
INF = {"f32": 0x7F80_0000, "f16": 0x7C00, "bf16": 0x7F80}
NAN = {"f32": 0x7FC0_0000, "f16": 0x7E00, "bf16": 0x7FC0}
# pi/4, pi/2, 3pi/4 and pi rounded to nearest in each format
PI_4 = {"f32": 0x3F49_0FDB, "f16": 0x3A48, "bf16": 0x3F49}
PI_2 = {"f32": 0x3FC9_0FDB, "f16": 0x3E48, "bf16": 0x3FC9}
PI_3_4 = {"f32": 0x4016_CBE4, "f16": 0x40B6, "bf16": 0x4017}
PI = {"f32": 0x4049_0FDB, "f16": 0x4248, "bf16": 0x4049}

F32_SPECIALS = np.array(
    [0x0000_0000, 0x0000_0001, 0x007F_FFFF, 0x0080_0000, 0x3380_0000, 0x3980_0001, 0x3A00_0000,
     0x3EFF_FFFF, 0x3F00_0000, 0x3F00_0001, 0x3F35_04F3, 0x3F35_04F4, 0x3F7F_FFFE, 0x3F7F_FFFF,
     0x3F80_0000, 0x3F80_0001, 0x4000_0000, 0x4C70_0518, 0x5000_0000, 0x7F7F_FFFF, 0x7F80_0000,
     0x7F80_0001, 0x7FC0_0000, 0x7FFF_FFFF],
    dtype=np.uint32,
)  # fmt: skip
"""Zeros, subnormals, where asin/acos/atan turn to x, 1/2 (asin/acos switch
formulas), 1/sqrt(2), the ends of [-1, 1], just past 1, huge, infinities, NaNs
(the negatives are added)."""

HARD_ATAN2 = np.array(
    [(0x4A9A_E7D4, 0x4B61_0833), (0x4B1D_9023, 0x4AE0_AD42), (0x4B6B_844C, 0x4B2C_2A07),
     (0x4B28_A24D, 0x4A9A_EF38), (0x4A62_722C, 0x4B79_2D44)],
    dtype=np.uint32,
)  # fmt: skip
"""(y, x) whose atan2 is within 2**-31 to 2**-36 of a rounding boundary of F32
relative to the result: convergents p/q (p, q < 2**24) of tan(m) for midpoints
m of the F32 grid."""


def _run(op: type[d.FloatOp], fmt: str, *columns: Bits) -> Bits:
    algorithm = sf.algorithm_of(op, sf.FORMATS[fmt])
    return np.asarray(algorithm(*(M.word(c) for c in columns)).v, dtype=np.uint32)


def _mismatches(op: type[d.FloatOp], fmt: str, *columns: Bits) -> list[str]:
    got = _run(op, fmt, *columns)
    want = oracle.evaluate(op, fmt, *columns)
    bad = np.flatnonzero(got != want)
    return [
        f"{op.SHORT_NAME}({', '.join(hex(int(c[k])) for c in columns)}) = {int(got[k]):#x}, exact {int(want[k]):#x}"
        for k in bad[:8].tolist()
    ]


def _with_signs(values: Bits, fmt: str) -> Bits:
    return np.concatenate([values, values | np.uint32(SIGN[fmt])])


@pytest.mark.parametrize("fmt", ["f16", "bf16"])
@pytest.mark.parametrize("name", sorted(UNARY))
def test_every_16_bit_input_is_correctly_rounded(name: str, fmt: str) -> None:
    assert _mismatches(UNARY[name], fmt, np.arange(1 << 16, dtype=np.uint32)) == []


@pytest.mark.parametrize("name", sorted(UNARY))
def test_f32_specials_hard_cases_and_samples(name: str) -> None:
    rng = np.random.default_rng(3)
    near_one = rng.integers(0x3F7F_0000, 0x3F80_0000, 1500, dtype=np.uint64)
    near_half = rng.integers(0x3EFF_F000, 0x3F00_1000, 500, dtype=np.uint64)
    tiny = rng.integers(0x3000_0000, 0x3A00_0000, 500, dtype=np.uint64)
    wide = rng.integers(0, 0x7F80_0000, 1500, dtype=np.uint64)
    drawn = np.concatenate([near_one, near_half, tiny, wide]).astype(np.uint32)
    bits = _with_signs(np.concatenate([F32_SPECIALS, drawn]), "f32")
    assert _mismatches(UNARY[name], "f32", bits) == []


@pytest.mark.parametrize("fmt", ["f32", "f16", "bf16"])
def test_unary_special_values(fmt: str) -> None:
    """asin(+-0) = +-0, acos(1) = +0, atan(+-0) = +-0; asin(+-1) = +-pi/2,
    acos(-1) = pi, acos(+-0) = pi/2, atan(+-inf) = +-pi/2 rounded; NaN for
    |x| > 1 and NaN operands, the canonical NaN."""
    s, one, inf, nan = SIGN[fmt], ONE[fmt], INF[fmt], NAN[fmt]

    def f(name: str, x: int) -> int:
        return int(_run(UNARY[name], fmt, np.array([x], dtype=np.uint32))[0])

    assert (f("asin", 0), f("asin", s), f("atan", 0), f("atan", s)) == (0, s, 0, s)
    assert f("acos", one) == 0
    assert (f("asin", one), f("asin", one | s)) == (PI_2[fmt], PI_2[fmt] | s)
    assert (f("acos", one | s), f("acos", 0), f("acos", s)) == (PI[fmt], PI_2[fmt], PI_2[fmt])
    assert (f("atan", inf), f("atan", inf | s)) == (PI_2[fmt], PI_2[fmt] | s)
    for name in ("asin", "acos"):
        assert {f(name, x) for x in (one + 1, one | s | 1, inf, inf | s, nan, inf | 1)} == {nan}
    assert {f("atan", x) for x in (nan, inf | 1, nan | s)} == {nan}


def _specials(fmt: str) -> Bits:
    """Signed zeros, infinities, NaN, +-1, the smallest subnormal and the largest
    finite value of both signs, and 1/2, 2."""
    f = sf.FORMATS[fmt]
    top = ((f.emax - 1) << f.fraction) | ((1 << f.fraction) - 1)
    values = [0, 1, f.one, f.half, f.one + (1 << f.fraction), top, f.inf, f.nan]
    return _with_signs(np.array(values, dtype=np.uint32), fmt)


@pytest.mark.parametrize("fmt", ["f32", "f16", "bf16"])
def test_atan2_special_value_grid(fmt: str) -> None:
    specials = _specials(fmt)
    y, x = (np.ascontiguousarray(g.ravel()) for g in np.meshgrid(specials, specials))
    assert _mismatches(d.FAtan2Op, fmt, y, x) == []


@pytest.mark.parametrize("fmt", ["f32", "f16", "bf16"])
def test_atan2_annex_f(fmt: str) -> None:
    """atan2(+-0, +0) = +-0, atan2(+-0, -0) = +-pi, atan2(+-0, x < 0) = +-pi,
    atan2(+-0, x > 0) = +-0, atan2(y, +-0) = +-pi/2, atan2(+-y, -inf) = +-pi,
    atan2(+-y, +inf) = +-0, atan2(+-inf, x) = +-pi/2, atan2(+-inf, -inf) =
    +-3pi/4, atan2(+-inf, +inf) = +-pi/4 (y finite and positive)."""
    s, one, inf = SIGN[fmt], ONE[fmt], INF[fmt]

    def f(y: int, x: int) -> int:
        return int(_run(d.FAtan2Op, fmt, np.array([y], dtype=np.uint32), np.array([x], dtype=np.uint32))[0])

    for sy in (0, s):
        assert f(sy, 0) == sy and f(sy, s) == PI[fmt] | sy
        assert f(sy, one | s) == PI[fmt] | sy and f(sy, one) == sy
        assert f(one | sy, 0) == PI_2[fmt] | sy and f(one | sy, s) == PI_2[fmt] | sy
        assert f(one | sy, inf | s) == PI[fmt] | sy and f(one | sy, inf) == sy
        assert f(inf | sy, one) == PI_2[fmt] | sy and f(inf | sy, one | s) == PI_2[fmt] | sy
        assert f(inf | sy, inf | s) == PI_3_4[fmt] | sy and f(inf | sy, inf) == PI_4[fmt] | sy


@pytest.mark.parametrize("fmt", ["f16", "bf16"])
def test_atan2_16_bit_pairs(fmt: str) -> None:
    rng = np.random.default_rng(5)
    y = rng.integers(0, 1 << 16, 150_000, dtype=np.uint32)
    x = rng.integers(0, 1 << 16, 150_000, dtype=np.uint32)
    assert _mismatches(d.FAtan2Op, fmt, y, x) == []


def test_atan2_f32_pairs_and_hard_cases() -> None:
    rng = np.random.default_rng(9)
    uniform = rng.integers(0, 1 << 32, (2, 4000), dtype=np.uint64).astype(np.uint32)
    close_x = rng.integers(0x0080_0000, 0x7F00_0000, 4000, dtype=np.uint64)
    close_y = close_x.astype(np.int64) + rng.integers(-(1 << 25), 1 << 25, 4000)
    signs = rng.integers(0, 2, (2, 4000), dtype=np.uint32) << np.uint32(31)
    close = np.stack([close_y.astype(np.uint32), close_x.astype(np.uint32)]) | signs
    hard = np.concatenate([HARD_ATAN2.T, HARD_ATAN2.T ^ np.uint32(0x8000_0000)], axis=1)
    y, x = np.concatenate([uniform, close, hard], axis=1)
    assert _mismatches(d.FAtan2Op, "f32", y, x) == []


def test_f32_atan2_keeps_three_words() -> None:
    """Bivariate, F32 atan2 has pairs whose result lies within 2**-76 of a
    rounding boundary (relative), so its sum keeps three words: measured against
    MPFR before rounding, its error stays below 2**-84 where two words give
    about 2**-60."""
    gmpy2 = pytest.importorskip("gmpy2")
    gmpy2.get_context().precision = 200
    rng = np.random.default_rng(13)
    y = np.concatenate([HARD_ATAN2[:, 0], rng.integers(0, 0x7F80_0000, 300, dtype=np.uint64).astype(np.uint32)])
    x = np.concatenate([HARD_ATAN2[:, 1], rng.integers(0, 0x7F80_0000, 300, dtype=np.uint64).astype(np.uint32)])
    for words, bound in ((3, -84), (2, -58)):
        total, e = soft_atan.angle(M.word(y), M.word(x), words)
        columns = [np.asarray(w.v, dtype=np.uint64).tolist() for w in total]
        exponents = np.asarray(e.v, dtype=np.int64).tolist()
        worst = -1000.0
        for k in range(y.size):
            value = 0
            for column in columns:
                value = (value << 32) | int(column[k])
            got = gmpy2.mpfr(value) * gmpy2.mpfr(2) ** (exponents[k] - soft_atan.XB + 2 - 32 * words)
            yk, xk = (float(np.array(v, dtype=np.uint32).view(np.float32)) for v in (y[k], x[k]))
            exact = gmpy2.atan2(gmpy2.mpfr(yk), gmpy2.mpfr(xk))
            if exact != 0 and got != exact:
                worst = max(worst, float(gmpy2.log2(abs(got / exact - 1))))
        assert worst < bound, (words, worst)


def test_one_program_on_the_interpreter_and_the_gpu() -> None:
    """asin, acos, atan and atan2 of F32 values through float-strict: the
    interpreter (exact functions) and the GPU (integer routines) give equal bits."""
    values = _with_signs(F32_SPECIALS, "f32")
    rng = np.random.default_rng(11)
    n = 128
    drawn = rng.integers(0x3000_0000, 0x3F80_0000, n - values.size, dtype=np.uint64).astype(np.uint32)
    a = np.concatenate([values, drawn])
    b = rng.permutation(a)
    i = E.var("i")
    ya, yb = E.load("a", i), E.load("b", i)
    body = [N.let("i", E.gid_x())] + [
        N.store(name, i, value)
        for name, value in (
            ("asin", E.fasin(ya)), ("acos", E.facos(ya)), ("atan", E.fatan(ya)), ("atan2", E.fatan2(ya, yb)),
        )
    ]
    names = ("asin", "acos", "atan", "atan2")
    buffers = [BufferDecl.read("a", 0, DataType.F32), BufferDecl.read("b", 1, DataType.F32)] + [
        BufferDecl.read_write(name, 2 + k, DataType.F32) for k, name in enumerate(names)
    ]
    program = Program(buffers, (64, 1, 1), body, name="invtrig")
    args = {"a": a.view(np.float32), "b": b.view(np.float32)}
    outputs = {name: n for name in names}
    interp = vyre.run(program, args, dispatch=(n // 64, 1, 1), outputs=outputs, backend="interp")
    gpu = vyre.run(program, args, dispatch=(n // 64, 1, 1), outputs=outputs, backend="wgpu")
    for name in names:
        assert np.array_equal(interp[name].view(np.uint32), gpu[name].view(np.uint32)), name


def test_the_constants_are_exact() -> None:
    """pi from Machin's formula and the tables from integer series, against
    MPFR at 300 bits: within one unit of 2**-128."""
    gmpy2 = pytest.importorskip("gmpy2")
    from vyre.transforms.softfloat import arcs

    gmpy2.get_context().precision = 300
    scale = gmpy2.mpfr(2) ** arcs.P
    assert abs(gmpy2.mpfr(arcs.pi_fixed()) / scale - gmpy2.const_pi()) * scale < 1
    for p, q in itertools.product((0, 1, 7, 64, 127, 128), (128,)):
        exact = gmpy2.atan(gmpy2.mpfr(p) / q)
        assert abs(gmpy2.mpfr(arcs.atan_fixed(p, q)) / scale - exact) * scale < 2
