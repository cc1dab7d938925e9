"""The correctly rounded tanh and erf (vyre.transforms.softfloat.tanh/erf over
piecewise.py) on numpy, against the reference interpreter's exact oracle (float64
with a guard band, MPFR for the inputs near a rounding boundary: no code shared
with the algorithms): every F16 and BF16 input, F32 specials, interval edges,
the hardest inputs and samples; the special values of C's Annex F explicitly;
and one program run on the interpreter and on wgpu (the lowered integer code)
giving the same bits."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pytest

import vyre
from vyre.dialects import vyre as d
from vyre.ir import BufferDecl, DataType, Expr as E, Node as N, Program
from vyre.runtime.interp import floats as oracle
from vyre.transforms import softfloat as sf
from vyre.transforms.softfloat import erf, piecewise, tanh

U32 = npt.NDArray[np.uint32]
M = sf.NumpyMachine()
FUNCTIONS = {"erf": (d.FErfOp, erf.RUNS), "tanh": (d.FTanhOp, tanh.RUNS)}

HARDEST = {
    "erf": (0x3940_EAD6, 0x39C0_057D, 0x358E_9D2D, 0x36AE_A466, 0x272A_320C),
    "tanh": (0x3AC3_7DE2, 0x3EEE_0566, 0x3CD4_1B91, 0x40AC_B4D0, 0x40C5_E8CA),
}
"""The F32 inputs whose exact value lies nearest a rounding midpoint (within
2**-32.6 of an ulp for erf's first, 2**-26.7 for tanh's), found by a float64 scan
of every positive input below the saturation point and resolved with MPFR."""


def _mismatches(op: type[d.FloatOp], fmt: str, bits: npt.ArrayLike) -> list[str]:
    x = np.asarray(bits, dtype=np.uint32)
    got = np.asarray(sf.algorithm_of(op, sf.FORMATS[fmt])(M.word(x)).v, dtype=np.uint32)
    want = oracle.evaluate(op, fmt, x)
    bad = np.flatnonzero(got != want)[:5]
    return [f"{fmt} {op.SHORT_NAME}({int(x[i]):#x}) = {int(got[i]):#x}, exact {int(want[i]):#x}" for i in bad]


def _around(patterns: list[int], radius: int) -> U32:
    """Each pattern and its `radius` neighbours on both sides, both signs."""
    offsets = np.arange(-radius, radius + 1, dtype=np.int64)
    near = (np.asarray(patterns, dtype=np.int64)[:, None] + offsets).reshape(-1) & 0x7FFF_FFFF
    return np.concatenate([near, near | 0x8000_0000]).astype(np.uint32)


def _edges(runs: tuple[piecewise.Run, ...]) -> list[int]:
    """The F32 patterns of every interval's ends."""
    points = [p for run in runs for p in run.points()] + [runs[-1].end]
    return [int(np.float32(float(p)).view(np.uint32)) for p in points]


def _f32_inputs(name: str, seed: int) -> U32:
    """Specials, every binade's ends from 2**-149 to 2**4, the neighbours of the
    interval edges and of the hardest inputs, and random patterns below 2**4
    (uniform and per binade), both signs."""
    rng = np.random.default_rng(seed)
    binades = [e << 23 for e in range(1, 132)] + [(e << 23) - 1 for e in range(1, 132)]
    specials = [0, 1, 2, 0x7F_FFFF, 0x80_0000, 0x7F7F_FFFF, 0x7F80_0000, 0x7FC0_0000, 0x7F80_0001]
    uniform = rng.integers(0, 0x4180_0000, 4000, dtype=np.int64)
    logs = rng.integers(0x3000_0000, 0x4180_0000, 4000, dtype=np.int64)
    signs = rng.integers(0, 2, 8000, dtype=np.int64) << 31
    return np.concatenate([
        _around(specials + binades, 2), _around(_edges(FUNCTIONS[name][1]), 8),
        _around(list(HARDEST[name]), 2), (np.concatenate([uniform, logs]) | signs).astype(np.uint32),
    ])  # fmt: skip


@pytest.mark.parametrize("name", FUNCTIONS)
def test_every_16_bit_input_is_correctly_rounded(name: str) -> None:
    op = FUNCTIONS[name][0]
    every = np.arange(1 << 16, dtype=np.uint32)
    assert _mismatches(op, "f16", every) + _mismatches(op, "bf16", every) == []


@pytest.mark.parametrize("name", FUNCTIONS)
def test_f32_edges_hard_cases_and_samples_are_correctly_rounded(name: str) -> None:
    assert _mismatches(FUNCTIONS[name][0], "f32", _f32_inputs(name, len(name))) == []


@pytest.mark.parametrize("name", FUNCTIONS)
def test_annex_f_special_values(name: str) -> None:
    """f(+-0) = +-0, f(+-inf) = +-1, a NaN gives the canonical NaN, in every format."""
    op = FUNCTIONS[name][0]
    for fmt in (sf.F32, sf.F16, sf.BF16):
        one, sign, inf = fmt.one, fmt.sign, fmt.inf
        nans = [inf | 1, inf | (1 << (fmt.fraction - 1)), sign | inf | 3]
        x = np.array([0, sign, inf, sign | inf, *nans], dtype=np.uint32)
        got = sf.algorithm_of(op, fmt)(M.word(x)).v.tolist()
        assert got == [0, sign, one, sign | one, fmt.nan, fmt.nan, fmt.nan], (name, fmt.name)


def test_erf_tiny_and_saturating_arguments() -> None:
    f32 = sf.algorithm_of(d.FErfOp, sf.F32)
    x = np.array([1, 0x8000_0001, 0x407A_D444, 0x407A_D445, 0x4080_0000, 0x7F7F_FFFF], dtype=np.uint32)
    # erf(2**-149) = 1.128 * 2**-149 rounds to 2**-149; 3.9192057 is the largest x with erf(x) < 1
    assert f32(M.word(x)).v.tolist() == [1, 0x8000_0001, 0x3F7F_FFFF, 0x3F80_0000, 0x3F80_0000, 0x3F80_0000]


def test_tanh_tiny_and_saturating_arguments() -> None:
    f32 = sf.algorithm_of(d.FTanhOp, sf.F32)
    x = np.array([1, 0x3980_0000, 0x3A00_0000, 0x4110_2CB3, 0x4110_2CB4, 0x7F7F_FFFF], dtype=np.uint32)
    # tanh(x) rounds to x up to 2**-12; from 2**-11 a power of two rounds down; 9.010913 is
    # the largest x with tanh(x) < 1
    assert f32(M.word(x)).v.tolist() == [1, 0x3980_0000, 0x39FF_FFFF, 0x3F7F_FFFF, 0x3F80_0000, 0x3F80_0000]


def test_the_error_bound_holds_for_both_tables() -> None:
    """`build` bounds every step's error: below 32 units of 2**-63 (2**-58)."""
    assert erf.polynomials().error < 32 and tanh.polynomials().error < 32


def test_a_program_gives_the_same_bits_on_the_interpreter_and_the_gpu() -> None:
    """The interpreter evaluates the functions with its exact oracle, wgpu runs the
    float-strict integer code: erf of F32 (the 32-bit products) and tanh of BF16
    (the 16-bit ones) give the same bits (the grid covers the buffers exactly)."""
    rng = np.random.default_rng(5)
    a = rng.uniform(-4.5, 4.5, 128).astype(np.float32)
    a[:8] = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-30, 3.0, -1e-40]
    b = (a * 2).view(np.uint32) >> 16  # BF16 patterns in [-9, 9]
    b = np.concatenate([b[:120], [0x0001, 0x8080, 0x4110, 0x4112, 0xFFC1, 0x3A00, 0x3F80, 0xC000]]).astype(np.uint16)
    i = E.gid_x()
    body = [N.store("erf", i, E.ferf(E.load("a", i))), N.store("tanh", i, E.ftanh(E.load("b", i)))]
    buffers = [
        BufferDecl.read("a", 0, DataType.F32),
        BufferDecl.read("b", 1, DataType.BF16),
        BufferDecl.read_write("erf", 2, DataType.F32),
        BufferDecl.read_write("tanh", 3, DataType.BF16),
    ]
    program = Program(buffers, (64, 1, 1), body, name="tanherf")
    sizes = {"erf": 128, "tanh": 128}
    runs = [vyre.run(program, {"a": a, "b": b}, dispatch=(2, 1, 1), outputs=sizes, backend=k) for k in ("interp", "wgpu")]
    for name, bits in (("erf", np.uint32), ("tanh", np.uint16)):
        assert runs[0][name].view(bits).tolist() == runs[1][name].view(bits).tolist(), name
