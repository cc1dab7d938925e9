"""The correctly rounded functions' soft-float algorithms (vyre.transforms.softfloat)
on numpy, against the reference interpreter's exact oracle (float64 with a guard
band, MPFR for the inputs near a rounding boundary: no code shared with the
algorithms): every F16 and BF16 input, F32 specials, hard ranges and samples; the
special values of C's Annex F explicitly; and one program run on the interpreter
and on wgpu (the lowered integer code) giving the same bits."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

import vyre
from vyre.dialects import vyre as d
from vyre.ir import BufferDecl, DataType, Expr as E, Node as N, Program
from vyre.runtime.interp import floats as oracle
from vyre.transforms import softfloat as sf

U32 = npt.NDArray[np.uint32]
M = sf.NumpyMachine()


def _check(op: type[d.FloatOp], fmt: str, bits: npt.ArrayLike) -> list[str]:
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


def _f32_inputs(edges: list[int], seed: int) -> U32:
    """Specials, the neighbours of `edges`, every binade's ends from 2**-149 to
    2**4, and random patterns below 2**4 (uniform and per binade)."""
    rng = np.random.default_rng(seed)
    binades = [e << 23 for e in range(1, 132)] + [(e << 23) - 1 for e in range(1, 132)]
    specials = [0, 1, 2, 0x7F_FFFF, 0x80_0000, 0x7F7F_FFFF, 0x7F80_0000, 0x7FC0_0000, 0x7F80_0001]
    uniform = rng.integers(0, 0x4180_0000, 3000, dtype=np.int64)
    logs = rng.integers(0x3000_0000, 0x4180_0000, 3000, dtype=np.int64)
    signs = rng.integers(0, 2, 6000, dtype=np.int64) << 31
    return np.concatenate([
        _around(specials + binades, 2), _around(edges, 64),
        (np.concatenate([uniform, logs]) | signs).astype(np.uint32),
    ])  # fmt: skip


def _sixteen_bit() -> U32:
    return np.arange(1 << 16, dtype=np.uint32)


def _annex_f(op: type[d.FloatOp]) -> None:
    """f(+-0) = +-0, f(+-inf) = +-1, NaN in: the canonical NaN, in every format."""
    for fmt in (sf.F32, sf.F16, sf.BF16):
        one, sign, inf = fmt.one, fmt.sign, fmt.inf
        nans = [inf | 1, inf | (1 << (fmt.fraction - 1)), sign | inf | 3]
        x = np.array([0, sign, inf, sign | inf, *nans], dtype=np.uint32)
        got = sf.algorithm_of(op, fmt)(M.word(x)).v.tolist()
        assert got == [0, sign, one, sign | one, fmt.nan, fmt.nan, fmt.nan], (op.name, fmt.name)


def test_erf_is_correctly_rounded() -> None:
    """Every F16 and BF16 input; F32 around the subnormal range, the tiny-argument
    correction (2**-15), the interval edges of the first intervals (1/64, 1/32),
    the largest argument below 1 (0x407AD444) and the table's end (63/16)."""
    edges = [0x3780_0000, 0x3800_0000, 0x3C80_0000, 0x3D00_0000, 0x3D80_0000, 0x3F80_0000,
             0x4000_0000, 0x407A_D444, 0x407C_0000]  # fmt: skip
    bad = _check(d.FErfOp, "f16", _sixteen_bit()) + _check(d.FErfOp, "bf16", _sixteen_bit())
    bad += _check(d.FErfOp, "f32", _f32_inputs(edges, 1))
    assert bad == []


def test_erf_special_values() -> None:
    _annex_f(d.FErfOp)
    f32 = sf.algorithm_of(d.FErfOp, sf.F32)
    x = np.array([1, 0x8000_0001, 0x407A_D444, 0x407A_D445, 0x4080_0000, 0x7F7F_FFFF], dtype=np.uint32)
    # erf(2**-149) = 1.128 * 2**-149 rounds to 2**-149; 3.9192059 is the largest x with erf(x) < 1
    assert f32(M.word(x)).v.tolist() == [1, 0x8000_0001, 0x3F7F_FFFF, 0x3F80_0000, 0x3F80_0000, 0x3F80_0000]


def test_tanh_is_correctly_rounded() -> None:
    """Every F16 and BF16 input; F32 around the subnormal range, the tiny-argument
    correction (2**-14), where tanh(x) stops rounding to x (2**-12), the width
    changes (2, 4) and the largest argument below 1 (0x41102CB3), the table's end
    (73/8)."""
    edges = [0x3880_0000, 0x3900_0000, 0x3980_0000, 0x3A00_0000, 0x3D00_0000, 0x3D80_0000,
             0x4000_0000, 0x4080_0000, 0x4110_2CB3, 0x4112_0000]  # fmt: skip
    bad = _check(d.FTanhOp, "f16", _sixteen_bit()) + _check(d.FTanhOp, "bf16", _sixteen_bit())
    bad += _check(d.FTanhOp, "f32", _f32_inputs(edges, 2))
    assert bad == []


def test_tanh_special_values() -> None:
    _annex_f(d.FTanhOp)
    f32 = sf.algorithm_of(d.FTanhOp, sf.F32)
    x = np.array([1, 0x3980_0000, 0x3A00_0000, 0x4110_2CB3, 0x4110_2CB4, 0x7F7F_FFFF], dtype=np.uint32)
    # tanh(x) rounds to x up to 2**-12; from 2**-11 the power of two rounds down
    assert f32(M.word(x)).v.tolist() == [1, 0x3980_0000, 0x39FF_FFFF, 0x3F7F_FFFF, 0x3F80_0000, 0x3F80_0000]


def _values(dtype: DataType) -> npt.NDArray[Any]:
    rng = np.random.default_rng(5)
    x = np.concatenate([rng.uniform(-4.5, 4.5, 200), [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-30, 3.0]])
    return x.astype(np.float32 if dtype is DataType.F32 else np.float16)


@pytest.mark.parametrize("dtype", [DataType.F32, DataType.F16], ids=lambda t: t.value)
def test_erf_and_tanh_run_the_same_on_interp_and_wgpu(dtype: DataType, gpu_adapter: Any) -> None:
    """The interpreter evaluates the functions with its exact oracle, wgpu runs
    the float-strict integer code: the bits agree."""
    i = E.var("i")
    x = E.load("x", i)
    program = Program(
        buffers=[
            BufferDecl.read("x", 0, dtype),
            BufferDecl.read_write("erf", 1, dtype),
            BufferDecl.read_write("tanh", 2, dtype),
        ],
        workgroup_size=(64, 1, 1),
        entry=[
            N.let("i", E.invocation_id(0)),
            N.if_(E.lt(i, E.buf_len("x")), [N.store("erf", i, E.ferf(x)), N.store("tanh", i, E.ftanh(x))]),
        ],
    )
    values = _values(dtype)
    n = len(values)
    runs = [
        vyre.run(program, {"x": values}, dispatch=(-(-n // 64), 1, 1), outputs={"erf": n, "tanh": n}, backend=b)
        for b in ("interp", "wgpu")
    ]
    bits = np.uint32 if dtype is DataType.F32 else np.uint16
    for name in ("erf", "tanh"):
        assert np.asarray(runs[0][name]).view(bits).tolist() == np.asarray(runs[1][name]).view(bits).tolist()
