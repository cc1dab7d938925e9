"""Long loops on wgpu: lavapipe stops the loops of an invocation after
65,535 back-edges in all, silently. The lowering unrolls loops so they take
fewer back-edges, and every loop checks that it ended by its own condition;
a loop the driver stopped is a `DeviceLimitError`, never a wrong result
(vyre/lowering/loops.py). On adapters without the cap these run plain loops."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import vyre
from vyre.ir import BufferDecl, DataType, Expr as E, Node as N, Program
from vyre.runtime.wgpu_device import DeviceLimitError, gpu_device

GOLDEN = 0x9E37_79B9
ACC = E.var("acc")


def _one_loop() -> Program:
    """out[0] = sum over k < p[0] of (k ^ GOLDEN), mod 2**32."""
    return Program(
        [BufferDecl.read("p", 0, DataType.U32), BufferDecl.read_write("out", 1, DataType.U32)],
        (1, 1, 1),
        [
            N.let("acc", E.u32(0)),
            N.loop("k", E.u32(0), E.load("p", E.u32(0)), [N.assign("acc", E.add(ACC, E.bitxor(E.var("k"), E.u32(GOLDEN))))]),
            N.store("out", E.gid_x(), ACC),
        ],
        name="one_loop",
    )


def _oracle(n: int) -> int:
    k = np.arange(n, dtype=np.uint64)
    return int(np.sum(k ^ np.uint64(GOLDEN)) % (1 << 32))


def _run(program: Program, p: list[int], backend: str = "wgpu", out: int = 1) -> np.ndarray:
    return vyre.run(program, {"p": np.array(p, dtype=np.uint32)}, dispatch=(1, 1, 1), outputs={"out": out}, backend=backend)["out"]


def test_a_loop_of_100_000_iterations_matches_the_interpreter(gpu_adapter: Any) -> None:
    program = _one_loop()
    want = _run(program, [100_000], "interp")
    assert int(want[0]) == _oracle(100_000)
    assert np.array_equal(_run(program, [100_000]), want)


def test_a_loop_of_1_000_000_iterations(gpu_adapter: Any) -> None:
    # the interpreter takes about 20 s for this one; numpy gives the same sum
    assert int(_run(_one_loop(), [1_000_000])[0]) == _oracle(1_000_000)


def test_a_20_x_4096_nest_and_loops_in_sequence_match_the_interpreter(gpu_adapter: Any) -> None:
    """81,920 inner iterations, then two loops of 40,000: each far past 65,535
    back-edges in all without unrolling."""
    inner = [N.assign("acc", E.add(E.mul(ACC, E.u32(3)), E.bitxor(E.var("j"), E.var("o"))))]
    program = Program(
        [BufferDecl.read("p", 0, DataType.U32), BufferDecl.read_write("out", 1, DataType.U32)],
        (1, 1, 1),
        [
            N.let("acc", E.u32(1)),
            N.loop("o", E.u32(0), E.load("p", E.u32(0)), [N.loop("j", E.u32(0), E.load("p", E.u32(1)), inner)]),
            N.store("out", E.u32(0), ACC),
            N.loop("a", E.u32(0), E.load("p", E.u32(2)), [N.assign("acc", E.add(ACC, E.var("a")))]),
            N.loop("b", E.u32(0), E.load("p", E.u32(2)), [N.assign("acc", E.bitxor(ACC, E.var("b")))]),
            N.store("out", E.u32(1), ACC),
        ],
        name="nest",
    )
    want = _run(program, [20, 4096, 40_000], "interp", out=2)
    assert np.array_equal(_run(program, [20, 4096, 40_000], out=2), want)


def _big_body(var: str) -> list[N]:
    """A loop body of about 120 ops: unrolled twice at most."""
    value: E = ACC
    for k in range(40):
        value = E.bitxor(E.add(value, E.var(var)), E.u32(k * GOLDEN & 0xFFFF_FFFF))
    return [N.assign("acc", value)]


def test_a_loop_the_driver_would_stop_is_an_error_not_a_wrong_result(gpu_adapter: Any) -> None:
    if gpu_device().loop_limit is None:
        pytest.skip("this adapter runs loops to their end")
    program = Program(
        [BufferDecl.read("p", 0, DataType.U32), BufferDecl.read_write("out", 1, DataType.U32)],
        (1, 1, 1),
        [
            N.let("acc", E.u32(0)),
            N.loop("k", E.u32(0), E.load("p", E.u32(0)), _big_body("k")),
            N.store("out", E.gid_x(), ACC),
        ],
        name="too_long",
    )
    with pytest.raises(ValueError, match=r"kernel @too_long was stopped by the driver of .* 65,535 loop iterations") as info:
        _run(program, [300_000])
    assert isinstance(info.value, DeviceLimitError)
    assert int(_run(_one_loop(), [5])[0]) == _oracle(5)  # the status word was cleared
    # results kept on the device: the error comes when they are read
    kept = vyre.run(program, {"p": np.array([300_000], dtype=np.uint32)}, dispatch=(1, 1, 1), outputs={"out": 1}, on_device=True)
    with pytest.raises(DeviceLimitError, match="kernel @too_long"):
        kept["out"].numpy()
    assert int(_run(_one_loop(), [7])[0]) == _oracle(7)


def test_lanes_under_the_cap_each_but_not_together_are_caught(gpu_adapter: Any) -> None:
    """Eight invocations of one SIMD batch, each 40,000 iterations in a
    different round of an outer loop: each lane stays under 65,535 back-edges,
    the batch does not (lavapipe counts per batch). Never a silent wrong result."""
    body = [N.if_(E.eq(E.var("r"), E.local_id(0)), [N.loop("k", E.u32(0), E.load("p", E.u32(0)), _big_body("k"))])]
    program = Program(
        [BufferDecl.read("p", 0, DataType.U32), BufferDecl.read_write("out", 1, DataType.U32)],
        (8, 1, 1),
        [N.let("acc", E.u32(0)), N.loop("r", E.u32(0), E.u32(8), body), N.store("out", E.gid_x(), ACC)],
        name="divergent",
    )
    try:
        got = _run(program, [40_000], out=8)
    except DeviceLimitError:
        assert gpu_device().loop_limit is not None
        return
    acc = 0  # every lane runs the same loop once: the body in plain Python
    for k in range(40_000):
        for c in range(40):
            acc = ((acc + k) & 0xFFFF_FFFF) ^ (c * GOLDEN & 0xFFFF_FFFF)
    assert np.array_equal(got, np.full(8, acc, dtype=np.uint32))


def _empty_loop_then_a_half_word_store() -> Program:
    """The construct NVIDIA's Vulkan driver 580 crashed on in `create_compute_pipeline`
    (reduced from a random program to 50 lines of WGSL on the GPU machine): under a uniform
    `if`, a loop whose constant bounds give no iteration, a load from a vec2 buffer, then a
    BF16 store (in WGSL a compare-exchange loop on the half word)."""
    gl = E.gid_x()
    return Program(
        [
            BufferDecl.read_write("og", 0, DataType.BF16),
            BufferDecl.read_write("ov2", 1, DataType.VEC2U32),
            BufferDecl.read("rg", 2, DataType.BF16),
        ],
        (1, 2, 1),
        [
            N.if_(E.ne(E.buf_len("rg"), E.u32(0)), [
                N.loop("i30", E.u32(2), E.u32(0), [N.store("og", E.u32(0), E.bf16(1.0))]),
                N.let("v32", E.load("ov2", E.add(E.mul(gl, E.u32(4)), E.u32(3)))),
                N.store("og", E.add(E.mul(gl, E.u32(4)), E.u32(1)), E.float_bits(DataType.BF16, 49024)),
            ]),
        ],
        name="empty_loop_then_half_store",
    )


def test_a_loop_with_no_iteration_is_not_emitted_and_the_kernel_matches_the_interpreter(gpu_adapter: Any) -> None:
    """The lowering emits no loop whose constant bounds give no iteration, so the shape that
    crashed NVIDIA's driver never reaches a driver; the bits are the interpreter's."""
    from vyre.pipeline import lowered

    program = _empty_loop_then_a_half_word_store()
    wgsl = lowered(program).wgsl
    assert "atomicCompareExchangeWeak" in wgsl and "i30" not in wgsl
    inputs = {
        "og": np.full(16, 0x3F80, dtype=np.uint16),
        "ov2": np.arange(16, dtype=np.uint32).reshape(8, 2),
        "rg": np.array([1, 2], dtype=np.uint16),
    }
    want = vyre.run(program, inputs, dispatch=(4, 1, 1), backend="interp")["og"]
    assert want.view(np.uint16).tolist() == [49024 if k % 4 == 1 else 0x3F80 for k in range(16)]
    got = vyre.run(program, inputs, dispatch=(4, 1, 1))["og"]
    assert np.array_equal(got.view(np.uint16), want.view(np.uint16))
