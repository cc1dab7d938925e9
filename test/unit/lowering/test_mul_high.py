"""`mul_high` (the high word of the 64-bit product) in its two WGSL forms: the
portable helper from 16-bit halves and, for an adapter with `shader-int64`, one
`u64` product. Both run on the test adapter (lavapipe offers `shader-int64`;
the portable form needs nothing) and must give numpy's bits; the strict float
programs that use it (F32 fma's fast path; the 64-bit products of the correctly
rounded functions) must give the interpreter's exact floats in both forms.

Oracles: numpy uint64 products; the interpreter's float semantics (float64 and
round-to-odd, no code shared with the soft-float IR).
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import numpy as np
import pytest

from test.support.float_patterns import normal_f32
from vyre.conform.float_cost import elementwise_program
from vyre.ir import BufferDecl, DataType, Expr as E, Node as N, Program
from vyre.lowering.options import LoweringOptions
from vyre.pipeline import prepare
from vyre.runtime.wgpu_device import GpuDevice, gpu_device, int64_wanted
from vyre.testing.backends import execute_interp, execute_wgpu

EDGES = [0, 1, 2, 0xFFFF, 0x10000, 0x1_0001, 0x7FFF_FFFF, 0x8000_0000, 0xFFFF_0000,
         0x0000_FFFF, 0xFFFF_FFFE, 0xFFFF_FFFF, 0x00FF_FFFF, 0x0100_0000]  # fmt: skip


def _columns(n: int = 4096) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(11)
    a = [x for x in EDGES for _ in EDGES] + rng.integers(0, 2**32, n, dtype=np.uint64).tolist()
    b = [y for _ in EDGES for y in EDGES] + rng.integers(0, 2**32, n, dtype=np.uint64).tolist()
    return np.array(a, dtype=np.uint32), np.array(b, dtype=np.uint32)


def _oracle(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return ((a.astype(np.uint64) * b.astype(np.uint64)) >> np.uint64(32)).astype(np.uint32)


@pytest.fixture(params=["int64", "portable"])
def form(request: pytest.FixtureRequest) -> Iterator[str]:
    """Runs the test with the device lowering `mul_high` one way, then the other
    (the device's `int64` flag, which keys the runtime's plans)."""
    gpu: GpuDevice = gpu_device()
    if request.param == "int64" and not gpu.int64:
        if os.environ.get("CI") == "true":
            pytest.fail(f"{gpu.adapter_name} was not requested with shader-int64 (CI's lavapipe offers it)")
        pytest.skip(f"{gpu.adapter_name} offers no shader-int64")
    saved = gpu.int64
    gpu.int64 = request.param == "int64"
    try:
        yield request.param
    finally:
        gpu.int64 = saved


def _program(value: E) -> Program:
    i = E.var("i")
    body = [N.let("i", E.invocation_id(0)), N.store("out", i, value)]
    buffers = [BufferDecl.read("a", 0, DataType.U32), BufferDecl.read("b", 1, DataType.U32),
               BufferDecl.read_write("out", 2, DataType.U32)]  # fmt: skip
    return Program(buffers, (64, 1, 1), body)


def test_both_forms_give_numpys_high_word(form: str) -> None:
    a, b = _columns()
    n = a.size
    i = E.var("i")
    cases = {
        "two operands": (_program(E.mul_high(E.load("a", i), E.load("b", i))), _oracle(a, b)),
        "a constant": (
            _program(E.mul_high(E.load("a", i), E.u32(0xDEAD_BEEF))),
            _oracle(a, np.full_like(a, 0xDEAD_BEEF)),
        ),
    }
    for name, (program, want) in cases.items():
        words = {"a": a, "b": b, "out": np.zeros(n, np.uint32)}
        got = execute_wgpu(program, words, ((n + 63) // 64, 1, 1))["out"]
        assert np.array_equal(got, want), f"{form}, {name}: {np.count_nonzero(got != want)} words differ"
        assert np.array_equal(execute_interp(program, words, ((n + 63) // 64, 1, 1))["out"], want), name


def test_the_forms_are_what_the_target_asks_for() -> None:
    a, b = E.load("a", E.var("i")), E.load("b", E.var("i"))
    prepared = prepare(_program(E.mul_high(a, b)))
    portable = prepared.lowered_for(LoweringOptions()).wgsl
    wide = prepared.lowered_for(LoweringOptions(int64=True)).wgsl
    assert "fn vyre_mul_high(" in portable and "u64" not in portable
    assert "vyre_mul_high" not in wide and "u32((u64(" in wide
    # the vectorised map lowering takes the form too
    assert "u64(" in prepared.lowered_for(LoweringOptions(vectorize=True, int64=True)).wgsl


def _f32_inputs(op: str, n: int) -> dict[str, np.ndarray]:
    """Operands that take the fast paths and their fallbacks: normal values of
    nearby and distant exponents, and raw patterns (subnormals, specials)."""
    rng = np.random.default_rng(5)
    names = "abc" if op == "fma" else "a"
    columns: dict[str, np.ndarray] = {}
    for k, name in enumerate(names):
        near = normal_f32(rng, n // 2, 110 + 3 * k, 140 + 3 * k)
        anything = rng.integers(0, 2**32, n - n // 2, dtype=np.uint64).astype(np.uint32)
        columns[name] = np.concatenate([near, anything])
    return columns


@pytest.mark.parametrize("op", ["fma", "fexp", "fasin"])
def test_strict_floats_give_the_exact_bits_in_both_forms(form: str, op: str) -> None:
    n = 2048
    program = elementwise_program(op, "f32", name=f"mul_high_{op}")
    words = {**_f32_inputs(op, n), "out": np.zeros(n, np.uint32)}
    dispatch = (n // 64, 1, 1)
    want = execute_interp(program, words, dispatch)["out"]
    got = execute_wgpu(program, words, dispatch)["out"]
    assert np.array_equal(got, want), f"{op} ({form}): {np.count_nonzero(got != want)} of {n} differ"


def test_vyre_int64_must_be_0_or_1(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("VYRE_INT64", "0")
    assert not int64_wanted()
    monkeypatch.setenv("VYRE_INT64", "1")
    assert int64_wanted()
    monkeypatch.delenv("VYRE_INT64")
    assert int64_wanted()
    monkeypatch.setenv("VYRE_INT64", "yes")
    with pytest.raises(ValueError, match="VYRE_INT64 must be 0"):
        int64_wanted()


def test_lowering_options_check_int64() -> None:
    with pytest.raises(TypeError, match="int64 must be a bool"):
        LoweringOptions(int64=1)  # type: ignore[arg-type]
