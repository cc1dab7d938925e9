"""Every library op on both backends (reference interpreter and wgpu) against its
CPU reference and the independent oracle, and programs that nest library calls.

These tests run, never skip, when the backends exist: the wgpu ones take the
`gpu_adapter` fixture (lavapipe without a GPU; fails under CI=true without one).
Category C ops that stay calls (extract_bits, insert_bits) run as WGSL builtins
on wgpu and as the interpreter's own implementation of them."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import vyre
from vyre import ops
from vyre.ir import BufferDecl, DataType, Node, Program
from vyre.ir import Expr as E

IDS = [
    op_id
    for op_id in ops.known_op_ids()
    if op_id.startswith("primitive.") and not op_id.startswith("primitive.float.")
]
"""The integer primitives (the float family: test_float_ops.py)."""


def _check_backend(
    op_id: str,
    backend: str,
    oracles: dict[str, Callable[..., int]],
    inputs_for: Callable[[int, int, int], list[tuple[int, ...]]],
) -> None:
    spec = ops.get(op_id)
    rows = inputs_for(spec.signature.arity, 300, 11)
    columns = [np.array(col, dtype=np.uint32) for col in zip(*rows, strict=True)]
    got = ops.evaluate(op_id, columns, backend=backend)
    assert got.dtype == np.uint32 and got.shape == (len(rows),)
    expected = np.asarray(spec.reference(*columns))
    bad = np.flatnonzero(got != expected)
    assert bad.size == 0, (
        f"{op_id} on {backend} at {rows[bad[0]]}: {int(got[bad[0]]):#x},"
        f" reference {int(expected[bad[0]]):#x}"
    )
    oracle = oracles[op_id]
    assert got.tolist() == [oracle(*row) for row in rows]


@pytest.mark.parametrize("op_id", IDS)
def test_op_on_interpreter(
    op_id: str,
    oracles: dict[str, Callable[..., int]],
    inputs_for: Callable[[int, int, int], list[tuple[int, ...]]],
) -> None:
    _check_backend(op_id, "interp", oracles, inputs_for)


@pytest.mark.parametrize("op_id", IDS)
def test_op_on_wgpu(
    op_id: str,
    gpu_adapter: Any,
    oracles: dict[str, Callable[..., int]],
    inputs_for: Callable[[int, int, int], list[tuple[int, ...]]],
) -> None:
    _check_backend(op_id, "wgpu", oracles, inputs_for)


# -- evaluate's argument handling ----------------------------------------------


def test_evaluate_rejects_bad_inputs_with_clear_errors() -> None:
    a = np.arange(4, dtype=np.uint32)
    with pytest.raises(ValueError, match="takes 2 input"):
        ops.evaluate("primitive.math.add", [a], backend="interp")
    with pytest.raises(ValueError, match="equal lengths"):
        ops.evaluate("primitive.math.add", [a, a[:2]], backend="interp")
    with pytest.raises(ValueError, match="outside the u32 range"):
        ops.evaluate("primitive.math.add", [a, np.array([-1, 0, 0, 0])], backend="interp")
    with pytest.raises(TypeError, match="1-D integer array"):
        ops.evaluate("primitive.math.add", [a, np.ones(4)], backend="interp")
    with pytest.raises(TypeError, match="must be a list"):
        ops.evaluate("primitive.math.add", a, backend="interp")
    with pytest.raises(KeyError, match="did you mean"):
        ops.evaluate("primitive.math.addd", [a, a], backend="interp")


def test_evaluate_accepts_python_ints_and_empty_arrays() -> None:
    got = ops.evaluate("primitive.math.sub", [[0, 5], [1, 3]], backend="interp")
    assert got.tolist() == [0xFFFFFFFF, 2]
    assert ops.evaluate("primitive.math.add", [[], []], backend="interp").size == 0


def test_evaluate_spans_more_than_one_dispatch_row() -> None:
    """Beyond 65,535 workgroups of 64 the elementwise program uses the y axis."""
    n = 65_535 * 64 + 100
    a = np.arange(n, dtype=np.uint32)
    got = ops.evaluate("primitive.bitwise.xor", [a, a ^ np.uint32(0x55)], backend="interp")
    assert got.shape == (n,) and bool((got == 0x55).all())


# -- programs that nest library calls ---------------------------------------------


def _nested_program() -> Program:
    i = E.var("i")
    x = E.load("a", i)
    y = E.load("b", i)
    gcd = E.call("primitive.math.gcd", [x, y])
    clamped = E.call("primitive.math.clamp", [x, E.u32(1), E.u32(1000)])
    lcm = E.call("primitive.math.lcm", [clamped, y])
    rotated = E.call("primitive.bitwise.rotl", [E.call("primitive.bitwise.popcount", [x]), y])
    return Program(
        buffers=[
            BufferDecl.read("a", 0, DataType.U32),
            BufferDecl.read("b", 1, DataType.U32),
            BufferDecl.read_write("out", 2, DataType.U32),
        ],
        workgroup_size=(64, 1, 1),
        entry=[
            Node.let("i", E.gid_x()),
            Node.if_(
                E.call("primitive.logical.and", [E.lt(i, E.buf_len("a")), E.u32(1)]),
                [
                    Node.store("out", E.mul(i, E.u32(3)), gcd),
                    Node.store("out", E.add(E.mul(i, E.u32(3)), E.u32(1)), lcm),
                    Node.store("out", E.add(E.mul(i, E.u32(3)), E.u32(2)), rotated),
                ],
            ),
        ],
    )


def _nested_oracle(
    a: list[int], b: list[int], oracles: dict[str, Callable[..., int]]
) -> list[int]:
    out: list[int] = []
    for x, y in zip(a, b, strict=True):
        out.append(oracles["primitive.math.gcd"](x, y))
        out.append(oracles["primitive.math.lcm"](oracles["primitive.math.clamp"](x, 1, 1000), y))
        out.append(oracles["primitive.bitwise.rotl"](oracles["primitive.bitwise.popcount"](x), y))
    return out


def test_nested_calls_lower_to_wgsl_without_op_ids_or_calls() -> None:
    wgsl = vyre.lower_to_wgsl(_nested_program())
    assert "primitive." not in wgsl
    assert "call" not in wgsl.lower().replace("_vyre_", "")
    assert " loop" not in wgsl and "for (" not in wgsl and "while" not in wgsl
    lines = wgsl.splitlines()
    functions = {line.split("(")[0].split()[-1] for line in lines if line.startswith("fn ")}
    assert functions == {"main", "vyre_load_a", "vyre_load_b", "vyre_store_out", "vyre_div"}


@pytest.mark.parametrize("backend", ["interp", "wgpu"])
def test_nested_calls_run_on_both_backends(
    backend: str, request: pytest.FixtureRequest, oracles: dict[str, Callable[..., int]]
) -> None:
    if backend == "wgpu":
        request.getfixturevalue("gpu_adapter")
    rng = np.random.default_rng(5)
    a = np.concatenate([[0, 1, 12, 0xFFFFFFFF], rng.integers(0, 1 << 32, 96)]).astype(np.uint32)
    b = np.concatenate([[0, 7, 18, 0xFFFFFFFE], rng.integers(0, 1 << 32, 96)]).astype(np.uint32)
    out = vyre.run(
        _nested_program(), {"a": a, "b": b}, dispatch=(2, 1, 1),
        outputs={"out": 3 * len(a)}, backend=backend,
    )["out"]
    assert out.tolist() == _nested_oracle(a.tolist(), b.tolist(), oracles)


def test_category_c_ops_report_unsupported_backends() -> None:
    """No software fallback: an intrinsic outside its backends is a clear error."""
    spec = ops.OpSpec(
        id="user.hw.only_metal", version=1,
        signature=ops.get("primitive.bitwise.popcount").signature, category="C",
        reference=ops.get("primitive.bitwise.popcount").reference,
        composition=ops.Intrinsic(hardware="popcnt", wgsl="countOneBits", backends=("metal",)),
        boundaries=[0],
    )
    ops.register(spec)
    try:
        with pytest.raises(ops.UnsupportedByBackend, match="not supported by backend `interp`"):
            ops.evaluate("user.hw.only_metal", [[1, 3]], backend="interp")
    finally:
        ops.unregister("user.hw.only_metal")
