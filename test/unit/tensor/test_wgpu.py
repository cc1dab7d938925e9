"""On lavapipe (wgpu) every tensor op gives the same bytes as the interpreter:
views and elementwise ops with broadcasting and dynamic dims, map, every
reduction order and format (including the multi-workgroup paths), and matmul
in both modes and every input format."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from tensor_oracles import random_bits, user_array

from vyre import tensor as vt
from vyre.ir import DataType
from vyre.ir import Expr as E

FORMATS = {"f32": DataType.F32, "f16": DataType.F16, "bf16": DataType.BF16}

pytestmark = pytest.mark.usefixtures("gpu_adapter")


def _same_bytes(g: vt.Graph, inputs: dict[str, Any]) -> None:
    interp = vt.run(g, inputs, backend="interp")
    gpu = vt.run(g, inputs, backend="wgpu")
    assert sorted(interp) == sorted(gpu)
    for name in interp:
        assert interp[name].shape == gpu[name].shape, name
        assert interp[name].tobytes() == gpu[name].tobytes(), name


def test_views_elementwise_and_map_on_the_gpu() -> None:
    rng = np.random.default_rng(1)
    g = vt.Graph("ew")
    x = g.input("x", DataType.F32, ("n", 6))
    b = g.input("b", DataType.F32, (6,))
    h = g.input("h", DataType.F16, (3, 6))
    i = g.input("i", DataType.I32, ("n", 1))
    g.output("chain", vt.neg(vt.transpose(x + b)[::-2, 1:]))
    g.output("ops", vt.sqrt(vt.abs(vt.maximum(x, b) / vt.minimum(x, b) - x * b)))
    g.output("half", vt.transpose(h)[::-1] * vt.transpose(h))
    g.output("ints", vt.maximum(i, vt.neg(i)) - i)
    g.output("map", vt.map(lambda p, q: E.fma(p, q, E.f32(0.5)), x, b))
    g.output("reshaped", vt.reshape(vt.transpose(h), (2, 9)))
    g.output("view_reshape", vt.abs(vt.reshape(x, (-1, 3))))
    g.output("broadcast", vt.broadcast_to(b, (2, "n", 6)) * x)
    inputs = {
        "x": user_array(random_bits(rng, (5, 6), "f32"), "f32"),
        "b": user_array(random_bits(rng, (6,), "f32"), "f32"),
        "h": user_array(random_bits(rng, (3, 6), "f16"), "f16"),
        "i": rng.integers(-(2**31), 2**31 - 1, (5, 1)).astype(np.int32),
    }
    _same_bytes(g, inputs)


@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_reductions_on_the_gpu(fmt: str) -> None:
    rng = np.random.default_rng(2)
    g = vt.Graph("red")
    x = g.input("x", FORMATS[fmt], (4, "c"))
    for order in ("exact", "sequential", "tree"):
        g.output(f"{order}_row", vt.sum(x, 1, order))
        g.output(f"{order}_col", vt.sum(x, 0, order))
    g.output("max", vt.max(x, 1))
    g.output("min", vt.min(x, 0))
    _same_bytes(g, {"x": user_array(random_bits(rng, (4, 37), fmt), fmt)})


def test_integer_reductions_on_the_gpu() -> None:
    rng = np.random.default_rng(3)
    g = vt.Graph("ired")
    x = g.input("x", DataType.I32, (3, 20))
    g.output("sum", vt.sum(x, 1))
    g.output("max", vt.max(x, 0))
    _same_bytes(g, {"x": rng.integers(-(2**31), 2**31 - 1, (3, 20)).astype(np.int32)})


@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_matmul_on_the_gpu(fmt: str) -> None:
    rng = np.random.default_rng(4)
    g = vt.Graph("mm")
    a = g.input("a", FORMATS[fmt], (2, "m", 7))
    b = g.input("b", FORMATS[fmt], (7, 3))
    g.output("exact", vt.matmul(a, b, "exact"))
    g.output("sequential", vt.matmul(vt.transpose(b), vt.transpose(a, (0, 2, 1)), "sequential"))
    inputs = {
        "a": user_array(random_bits(rng, (2, 5, 7), fmt), fmt),
        "b": user_array(random_bits(rng, (7, 3), fmt), fmt),
    }
    _same_bytes(g, inputs)



def test_functions_on_the_gpu() -> None:
    rng = np.random.default_rng(6)
    g = vt.Graph("fns")
    x = g.input("x", DataType.F32, ("n", 7))
    h = g.input("h", DataType.BF16, (3, 5))
    g.output("exp", vt.exp(x))
    g.output("log", vt.log(vt.transpose(h)))
    inputs = {
        "x": user_array(random_bits(rng, (5, 7), "f32"), "f32"),
        "h": user_array(random_bits(rng, (3, 5), "bf16"), "bf16"),
    }
    _same_bytes(g, inputs)


def test_softmax_and_layer_norm_on_the_gpu() -> None:
    rng = np.random.default_rng(7)
    g = vt.Graph("rows")
    x = g.input("x", DataType.F32, ("n", "c"))
    w = g.input("w", DataType.F32, ("c",))
    g.output("softmax", vt.softmax(x * w))
    g.output("layer_norm", vt.layer_norm(vt.transpose(x), w[:1], w[::-1][:1]))
    X = user_array(random_bits(rng, (37, 5), "f32"), "f32")
    _same_bytes(g, {"x": np.clip(X, -1e4, 1e4), "w": rng.standard_normal(5).astype(np.float32)})


@pytest.mark.parametrize("length", [200, 1024, 1100])
def test_rows_kept_in_locals_on_the_gpu(length: int) -> None:
    """Static rows an invocation keeps in locals (64 invocations: 4 elements
    with a guarded tail, 16 without) and one too long for that (1100):
    softmax with a causal-like -inf tail, NaNs and signed zeros, and layer
    norm; the interpreter's bytes."""
    rng = np.random.default_rng(17)
    g = vt.Graph("held")
    x = g.input("x", DataType.F32, (5, length))
    g.output("softmax", vt.softmax(x))
    g.output("layer_norm", vt.layer_norm(x, x[0], x[1]))
    X = (rng.standard_normal((5, length)) * 4).astype(np.float32)
    X[0, ::9] = np.nan
    X[1, length // 2 :] = -np.inf
    X[2, :] = -0.0
    X[2, 1::4] = 0.0
    X[3, :] = -np.inf
    X[3, length - 1] = np.float32(np.nan)
    _same_bytes(g, {"x": X})


@pytest.mark.parametrize("length", [1, 3, 100, 1024])
def test_the_row_max_keeps_signed_zeros_and_nan_payloads(length: int) -> None:
    """The row kernels' maximumNumber alone (merged with a workgroup atomic
    max of an order-preserving key): -0 below +0, a lone NaN's payload kept,
    several NaNs the canonical NaN, -inf; the reference's bits on both
    backends (softmax cannot show these: exp(x - m) hides them)."""
    import vyre
    from vyre.conform import tensor_reference as R
    from vyre.dialects.symbolic import sym
    from vyre.ir import Node
    from vyre.transforms.tensors.reduce import extreme
    from vyre.transforms.tensors.rows import RowKernel, row_width

    shape = (sym(6), sym(length))
    rows = RowKernel("rowmax", shape, 1, row_width(shape[1]))
    b = rows.b
    xb = b.buffer("x", DataType.F32)
    ob = b.buffer("o", DataType.U32, write=True)
    acc = b.workgroup_buffer("acc", rows.width * 2)
    top = rows.reduce(extreme(DataType.F32, maximum=True), acc, lambda k: E.load(xb, rows.flat(k)))
    b.emit(Node.if_(E.eq(rows.local, E.u32(0)), [Node.store(ob, rows.row, E.bitcast(DataType.U32, top))]))
    program = b.program()

    def nan(payload: int) -> np.float32:
        return np.array([payload], np.uint32).view(np.float32)[0]

    X = np.random.default_rng(length).standard_normal((6, length)).astype(np.float32)
    X[0, :] = -0.0
    X[1, :] = -0.0
    X[1, -1] = 0.0
    X[2, :] = nan(0xFFC0_BEEF)
    X[3, :] = nan(0x7F80_0001)
    X[3, 0] = nan(0x7FC0_0002)
    X[4, :] = -np.inf
    want = R.extreme(X, 1, True).view(np.uint32).reshape(-1).tolist()
    for backend in ("interp", "wgpu"):
        out = vyre.run(program, {xb: X.reshape(-1), ob: np.zeros(6, np.uint32)}, dispatch=(6, 1, 1), backend=backend)
        assert np.asarray(out[ob]).view(np.uint32).reshape(-1).tolist() == want, backend


@pytest.mark.parametrize("causal", [True, False])
def test_attention_on_the_gpu(causal: bool) -> None:
    rng = np.random.default_rng(8)
    g = vt.Graph("att")
    qkv = g.input("qkv", DataType.F32, (2, 5, 12))
    q, k, v = (vt.transpose(vt.reshape(qkv[:, :, 4 * p : 4 * p + 4], (2, 5, 2, 2)), (0, 2, 1, 3)) for p in range(3))
    g.output("o", vt.attention(q, k, v, causal=causal))
    QKV = (rng.standard_normal((2, 5, 12)) * 3).astype(np.float32)
    QKV[1, 2, 3] = np.inf
    _same_bytes(g, {"qkv": QKV})


def test_the_transformer_block_on_the_gpu() -> None:
    """The block of examples/transformer_block.py at (batch, tokens, width,
    heads) = (1, 16, 32, 2): the same bytes on lavapipe as on the interpreter."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[3] / "examples" / "transformer_block.py"
    spec = importlib.util.spec_from_file_location("transformer_block_example", path)
    assert spec is not None and spec.loader is not None
    block = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(block)
    _same_bytes(block.build(1, 16, 32, 2), block.inputs(0, 1, 16, 32))
