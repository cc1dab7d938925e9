"""The correctly rounded functions' soft-float algorithms against the
interpreter's exact oracle (float64 with a guard band, MPFR where that is not
enough; no code shared with the algorithms): every F16 and BF16 input, F32
specials, exact cases, the hardest inputs (those whose exact value lies
closest to a rounding boundary, found by an exhaustive scan) and random
samples; C's Annex F special values explicitly; and each function through
`vyre.run` on the interpreter and on the GPU, bit for bit."""

from __future__ import annotations

import numpy as np
import pytest

import vyre
from vyre.dialects import vyre as d
from vyre.ir import BufferDecl, DataType, Program
from vyre.ir import Expr as E
from vyre.ir import Node as N
from vyre.runtime.interp import floats as oracle
from vyre.transforms import softfloat as sf

SPECIALS = (
    0x0000_0000, 0x8000_0000, 0x0000_0001, 0x8000_0001, 0x007F_FFFF, 0x0080_0000, 0x3F80_0000,
    0xBF80_0000, 0x3F80_0001, 0x3F7F_FFFF, 0x7F7F_FFFF, 0xFF7F_FFFF, 0x7F80_0000, 0xFF80_0000,
    0x7FC0_0000, 0xFFC0_0001, 0x7F80_0001, 0x4000_0000, 0x3F00_0000, 0x42FE_0000, 0xC316_0000,
    0x3300_0000, 0xB300_0000, 0x32FF_FFFF, 0x3200_0000, 0x42B1_7218, 0x42B1_7217, 0xC2CF_F1B5,
    0xC2CE_8ED0, 0x421A_209B, 0x421A_209A, 0xC234_9E35, 0xC233_2BB6,
)  # fmt: skip

HARDEST: dict[str, tuple[int, ...]] = {
    "exp": (0xC16912CD, 0xBBF0EDF1, 0xC2B2E798, 0x377EFF81, 0xBAE0E25C, 0xB3000000, 0x39C6BE5B),
    "exp10": (0xBAC4C65C, 0x417D7F60, 0xB326C4E3, 0xBF230886, 0x35B1311F, 0xB25E5BD9, 0xB7D171CD),
    "exp2": (0xB52D1F9A, 0xBCF3A937, 0x3B429D37, 0xB8D3D026, 0xBAEC2B40, 0x3A07857C, 0x3C02A9AD),
    "log": (0x65D890D3, 0x4C5D65A5, 0x4D604EBE, 0x41178FEB, 0x1F116AB8, 0x66A8C860, 0x3C413D3A),
    "log2": (0x40207AB9, 0x3EA07AB9, 0x0048A548, 0x66914A90, 0x01114A90, 0x79114A90, 0x02114A90),
    "log10": (0x610567E4, 0x62A6C1DD, 0x45BDEDC8, 0x0EFEEE7A, 0x604DF02C, 0x13AE78D3, 0x120B93DC),
}
"""The F32 inputs with the largest hardness (bits past the rounding bit that
the exact value's expansion repeats) of each function, from all 2**32."""

NAMES = ("exp", "exp10", "exp2", "log", "log2", "log10")
OPS: dict[str, type[d.FloatOp]] = {op.SHORT_NAME: op for op in d.ops_of(d.FloatFunctionOp)}


def _algorithm(name: str, fmt: str, bits: np.ndarray) -> np.ndarray:
    machine = sf.NumpyMachine()
    return np.asarray(sf.algorithm_of(OPS[name], sf.FORMATS[fmt])(machine.word(bits)).v, dtype=np.uint32)


def _f32_inputs(name: str) -> np.ndarray:
    rng = np.random.default_rng(len(name))
    moderate = rng.integers(0x3000_0000, 0x4300_0000, 1500, dtype=np.uint64).astype(np.uint32)
    near_one = (0x3F80_0000 + rng.integers(-0x4_0000, 0x4_0000, 500)).astype(np.uint32)
    uniform = rng.integers(0, 1 << 32, 1000, dtype=np.uint64).astype(np.uint32)
    signs = rng.integers(0, 2, moderate.size, dtype=np.uint32) << np.uint32(31)
    powers = np.array(
        [float(10**k) for k in range(-10, 11)] + [2.0**k for k in range(-149, 128)], dtype=np.float32
    ).view(np.uint32)
    integers = np.arange(-160, 160, dtype=np.float32).view(np.uint32)
    return np.concatenate(
        [np.asarray(SPECIALS + HARDEST[name], dtype=np.uint32), moderate | signs, near_one, uniform, powers, integers]
    )


@pytest.mark.parametrize("name", NAMES)
def test_every_16_bit_input_and_f32_samples_match_the_exact_oracle(name: str) -> None:
    for fmt in ("f16", "bf16"):
        bits = np.arange(1 << 16, dtype=np.uint32)
        got = _algorithm(name, fmt, bits)
        want = oracle.evaluate(OPS[name], fmt, bits)
        assert np.array_equal(got, want), (fmt, [hex(int(v)) for v in bits[got != want][:8]])
    bits = _f32_inputs(name)
    got = _algorithm(name, "f32", bits)
    want = oracle.evaluate(OPS[name], "f32", bits)
    assert np.array_equal(got, want), [hex(int(v)) for v in bits[got != want][:8]]


def _f32(name: str, *values: float) -> list[float]:
    bits = np.array(values, dtype=np.float32).view(np.uint32)
    return _algorithm(name, "f32", bits).view(np.float32).tolist()


def _is_positive_zero(value: float) -> bool:
    return value == 0.0 and np.signbit(value).item() is False


def test_annex_f_special_values_and_exact_cases() -> None:
    inf, nan = float("inf"), float("nan")
    for name in ("exp", "exp2", "exp10"):
        results = _f32(name, 0.0, -0.0, inf, -inf, nan, 1000.0, -1000.0)
        assert results[:4] == [1.0, 1.0, inf, 0.0] and np.isnan(results[4])
        assert results[5] == inf and _is_positive_zero(results[6])
    assert _f32("exp2", 3.0, -149.0, -150.0, 127.0) == [8.0, 2.0**-149, 0.0, 2.0**127]
    assert _f32("exp10", *range(11)) == [float(10**k) for k in range(11)]
    for name in ("log", "log2", "log10"):
        results = _f32(name, 1.0, 0.0, -0.0, inf, -1.0, -inf, nan, 1e-45)
        assert _is_positive_zero(results[0]) and results[1:4] == [-inf, -inf, inf]
        assert all(np.isnan(v) for v in results[4:7]) and results[7] < -44
    assert _f32("log2", *(2.0**k for k in range(-149, 128))) == list(range(-149, 128))
    assert _f32("log10", *(float(10**k) for k in range(11))) == list(range(11))
    nan_bits = _algorithm("log", "f32", np.array([0xFFC0_0001, 0x7F80_0001, 0xBF80_0000], dtype=np.uint32))
    assert nan_bits.tolist() == [0x7FC0_0000] * 3  # canonical
    assert _algorithm("log", "f16", np.array([0x3C00, 0x0000, 0x8000, 0x7C00, 0xBC00], dtype=np.uint32)).tolist() == [
        0x0000, 0xFC00, 0xFC00, 0x7C00, 0x7E00
    ]
    assert _algorithm("exp", "bf16", np.array([0x0000, 0xFF80, 0x7F80], dtype=np.uint32)).tolist() == [
        0x3F80, 0x0000, 0x7F80
    ]


def test_the_functions_run_equal_on_the_interpreter_and_the_gpu(gpu_adapter: object) -> None:
    n = 128
    rng = np.random.default_rng(11)
    a = np.concatenate(
        [np.asarray(SPECIALS, dtype=np.uint32).view(np.float32), rng.uniform(-20, 20, n - len(SPECIALS)).astype(np.float32)]
    )
    a[len(SPECIALS) : len(SPECIALS) + 8] = [1.0 + 2.0**-23, 1.0 - 2.0**-24, 1000.0, 0.1, 1e-30, 3.0, 88.0, 37.0]
    builders = (E.fexp, E.fexp10, E.flog, E.flog2, E.flog10)
    names = [f"out{k}" for k in range(len(builders))]
    i = E.var("i")
    program = Program(
        [BufferDecl.read("a", 0, DataType.F32)]
        + [BufferDecl.read_write(name, k + 1, DataType.F32) for k, name in enumerate(names)],
        (64, 1, 1),
        [N.let("i", E.gid_x()), N.let("x", E.load("a", i))]
        + [N.store(name, i, build(E.var("x"))) for name, build in zip(names, builders)],
        name="functions",
    )
    outputs = {name: n for name in names}
    interp = vyre.run(program, {"a": a}, dispatch=(n // 64, 1, 1), outputs=outputs, backend="interp")
    gpu = vyre.run(program, {"a": a}, dispatch=(n // 64, 1, 1), outputs=outputs, backend="wgpu")
    for name, op in zip(names, ("exp", "exp10", "log", "log2", "log10")):
        assert np.array_equal(interp[name].view(np.uint32), gpu[name].view(np.uint32)), op
        assert np.array_equal(interp[name].view(np.uint32), oracle.evaluate(OPS[op], "f32", a.view(np.uint32))), op
