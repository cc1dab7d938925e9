"""The correctly rounded functions (`vyre.fsin`, `vyre.fcos`, `vyre.ftan` ...): each
soft-float algorithm on numpy against the reference interpreter's exact oracle
(float64 with a guard band, MPFR where the band straddles a rounding boundary; it
shares no code with the algorithms): every F16 and BF16 input, F32 inputs that are
hard for the argument reduction and the rounding, the special values of C's
Annex F, and one program giving the same bits on the interpreter and the GPU."""

from __future__ import annotations

import importlib
from typing import Any

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
from vyre.transforms.softfloat import pi_reduction, trig

U32 = npt.NDArray[np.uint32]
M = sf.NumpyMachine()
TRIG = (d.FSinOp, d.FCosOp, d.FTanOp)
NAN = {"f32": 0x7FC0_0000, "f16": 0x7E00, "bf16": 0x7FC0}


def _run(op: type[d.FloatOp], fmt: str, bits: U32) -> tuple[U32, U32]:
    got = np.asarray(sf.algorithm_of(op, sf.FORMATS[fmt])(M.word(bits)).v, dtype=np.uint32)
    return got, oracle.evaluate(op, fmt, bits)


def _assert_exact(op: type[d.FloatOp], fmt: str, bits: U32) -> None:
    got, want = _run(op, fmt, bits)
    bad = np.flatnonzero(got != want)
    assert not bad.size, [
        f"{op.SHORT_NAME}({int(bits[k]):#x}) = {int(got[k]):#x}, exact {int(want[k]):#x}" for k in bad[:5]
    ]


@pytest.mark.parametrize("fmt", ["f16", "bf16"])
@pytest.mark.parametrize("op", TRIG, ids=lambda op: op.SHORT_NAME)
def test_every_16_bit_input_is_correctly_rounded(op: type[d.FloatOp], fmt: str) -> None:
    _assert_exact(op, fmt, np.arange(1 << 16, dtype=np.uint32))


def _f32_hard_inputs() -> U32:
    near_pi = np.array([np.float32(k * np.pi / 2) for k in range(1, 2000)], dtype=np.float32).view(np.uint32)
    hard = np.array(
        [
            0x6F79_BE45, 0x50A3_E87F, 0x6FF9_BE45, 0x50A3_E87F + 1, 0x5A7C_E5F1,  # nearest multiples of pi/2
            0x3980_0000, 0x397F_FFFF, 0x3980_0001, 0x3BC9_0FDB, 0x3BC9_0FDC,  # 2**-12, pi/512
            0x3F49_0FDB, 0x3FC9_0FDB, 0x4049_0FDB, 0x4096_CBE4, 0x7F7F_FFFF, 0x0000_0001,
            0x0080_0000, 0x3F80_0000, 0x4B00_0000, 0x4B80_0000, 0x5000_0000, 0x7000_0000,
        ],
        dtype=np.uint32,
    )  # fmt: skip
    rng = np.random.default_rng(3)
    uniform = rng.integers(0, 1 << 31, 4000, dtype=np.uint64).astype(np.uint32)
    moderate = rng.integers(0x3980_0000, 0x4400_0000, 4000, dtype=np.uint64).astype(np.uint32)
    bits = np.concatenate([near_pi, near_pi + 1, near_pi - 1, hard, uniform, moderate])
    return np.concatenate([bits, bits | np.uint32(1 << 31)])


@pytest.mark.parametrize("op", TRIG, ids=lambda op: op.SHORT_NAME)
def test_hard_and_random_f32_inputs_are_correctly_rounded(op: type[d.FloatOp]) -> None:
    _assert_exact(op, "f32", _f32_hard_inputs())


def _pattern(fmt: str, value: float) -> int:
    return int(np.asarray(oracle.encode(fmt, np.array([value])), dtype=np.uint32)[0])


@pytest.mark.parametrize("fmt", ["f32", "f16", "bf16"])
def test_special_values_follow_annex_f(fmt: str) -> None:
    zero, negzero, one = _pattern(fmt, 0.0), _pattern(fmt, -0.0), _pattern(fmt, 1.0)
    inf, neginf = _pattern(fmt, np.inf), _pattern(fmt, -np.inf)
    nans = [NAN[fmt], NAN[fmt] | 1, NAN[fmt] | (1 << (31 if fmt == "f32" else 15))]
    inputs = np.array([zero, negzero, inf, neginf, *nans], dtype=np.uint32)
    expected = {
        d.FSinOp: [zero, negzero] + [NAN[fmt]] * 5,
        d.FCosOp: [one, one] + [NAN[fmt]] * 5,
        d.FTanOp: [zero, negzero] + [NAN[fmt]] * 5,
    }
    for op, want in expected.items():
        got, exact = _run(op, fmt, inputs)
        assert got.tolist() == want == exact.tolist(), op.SHORT_NAME


def test_tiny_arguments_give_the_argument_and_one() -> None:
    """Below 2**-12 the exact values round to x (sin, tan) and 1 (cos) in every
    format; subnormals included."""
    bits = np.array([0x0000_0001, 0x8000_0001, 0x0040_0000, 0x3000_0000, 0x397F_FFFF, 0xB97F_FFFF], dtype=np.uint32)
    for op, want in ((d.FSinOp, bits), (d.FTanOp, bits), (d.FCosOp, np.full(6, 0x3F80_0000, np.uint32))):
        got, exact = _run(op, "f32", bits)
        assert got.tolist() == want.tolist() == exact.tolist(), op.SHORT_NAME


def test_the_constants_are_those_of_the_literature() -> None:
    """2/pi's bits (after the 64 zero bits and the integer bit) and the table of
    sin(j pi/256), computed at import from integers, against independent values."""
    words = pi_reduction.TWO_OVER_PI
    bits = int("".join(f"{w:08x}" for w in words), 16)
    assert words[:2] == (0, 0)
    literature = int(  # 2/pi's first 384 fraction bits
        "A2F9836E4E441529FC2757D1F534DDC0DB6295993C439041FE5163ABDEBBC561B7246E3A424DD2E006492EEA09D1921C", 16
    )
    assert bits == literature >> (384 - 255)  # 64 zero bits, the integer bit 0, 255 fraction bits
    gmpy2: Any = importlib.import_module("gmpy2")
    with gmpy2.context(gmpy2.context(precision=200)):
        for j in (0, 1, 37, 64, 100, 127, 128):
            exact = gmpy2.sin(j * gmpy2.const_pi() / 256) / 4 * gmpy2.mpfr(2) ** 64
            bias = 1 if j == 0 else -3  # the table's centring of the evaluation's error
            assert abs(trig._A4[j] - bias - exact) <= 0.5  # pyright: ignore[reportPrivateUsage]


def test_a_program_gives_the_same_bits_on_the_interpreter_and_the_gpu() -> None:
    """The interpreter evaluates the function ops with its exact oracle; on the GPU
    float-strict runs the integer routines (sin, cos and tan of F32)."""
    rng = np.random.default_rng(5)
    a = (rng.standard_normal(256) * np.exp2(rng.integers(-14, 24, 256))).astype(np.float32)
    a[:10] = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-45, 3.4e38, 7.729179e28, 1.5707964, -3.1415927]
    body = [N.let("i", E.gid_x()), N.let("x", E.load("a", E.var("i")))]
    outputs = {"s": E.fsin, "c": E.fcos, "t": E.ftan}
    body += [N.store(name, E.var("i"), fn(E.var("x"))) for name, fn in outputs.items()]
    buffers = [BufferDecl.read("a", 0, DataType.F32)]
    buffers += [BufferDecl.read_write(name, k + 1, DataType.F32) for k, name in enumerate(outputs)]
    program = Program(buffers, (64, 1, 1), body, name="trig")
    sizes = {name: 256 for name in outputs}
    interp = vyre.run(program, {"a": a}, dispatch=(4, 1, 1), outputs=sizes, backend="interp")
    gpu = vyre.run(program, {"a": a}, dispatch=(4, 1, 1), outputs=sizes, backend="wgpu")
    for name in outputs:
        assert np.array_equal(interp[name].view(np.uint32), gpu[name].view(np.uint32)), name
