"""The correctly rounded elementwise functions and the composites (softmax,
layer_norm, gelu, attention, a transformer block) on the interpreter against the independent reference
(vyre.conform.tensor_reference: MPFR for exp and log, exact integer sums and
dot products, numpy binary32 arithmetic, composed as docs/tensors.md writes
them), bit for bit: special values, size-1 dims, every axis, dynamic dims,
broadcast weights, batched heads through views, causal masks. Each composite
is one kernel."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from tensor_oracles import random_bits, user_array

from vyre import tensor as vt
from vyre.transforms.tensors import lower, matmul
from vyre.conform import tensor_reference as R
from vyre.ir import DataType

F32 = DataType.F32
FORMATS = {"f32": DataType.F32, "f16": DataType.F16, "bf16": DataType.BF16}
UINT = {"f32": np.uint32, "f16": np.uint16, "bf16": np.uint16}


def _bits(a: np.ndarray, fmt: str = "f32") -> list[int]:
    return np.ascontiguousarray(a).view(UINT[fmt]).reshape(-1).tolist()


def _normal(rng: np.random.Generator, shape: tuple[int, ...], scale: float = 1.0) -> np.ndarray:
    return (rng.standard_normal(shape) * scale).astype(np.float32)


@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_exp_and_log_are_correctly_rounded(fmt: str) -> None:
    rng = np.random.default_rng(11)
    g = vt.Graph("fns")
    x = g.input("x", FORMATS[fmt], (4, 9))
    g.output("exp", vt.exp(x))
    g.output("log", vt.log(vt.transpose(x)[::-1]))
    bits = random_bits(rng, (4, 9), fmt)
    bits[0, :4] = [0, 1 << (31 if fmt == "f32" else 15), 0x3F80_0000 if fmt == "f32" else 0x3C00 if fmt == "f16" else 0x3F80, 5]
    X = user_array(bits, fmt)
    out = vt.run(g, {"x": X}, backend="interp")
    assert _bits(out["exp"], fmt) == _bits(R.function("exp", X, fmt), fmt)
    assert _bits(out["log"], fmt) == _bits(R.function("log", X.T[::-1], fmt), fmt)


@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_tanh_and_erf_are_correctly_rounded(fmt: str) -> None:
    rng = np.random.default_rng(12)
    g = vt.Graph("fns")
    x = g.input("x", FORMATS[fmt], (40,))
    g.output("tanh", vt.tanh(x))
    g.output("erf", vt.erf(x[::-1]))
    X = user_array(random_bits(rng, (40,), fmt), fmt)
    out = vt.run(g, {"x": X}, backend="interp")
    assert _bits(out["tanh"], fmt) == _bits(R.function("tanh", X, fmt), fmt)
    assert _bits(out["erf"], fmt) == _bits(R.function("erf", X[::-1], fmt), fmt)


def test_gelu_fuses_into_its_reader() -> None:
    rng = np.random.default_rng(13)
    g = vt.Graph("gelu")
    x = g.input("x", F32, (6, 7))
    b = g.input("b", F32, (7,))
    g.output("y", vt.sum(vt.gelu(x + b), 1))
    g.output("z", vt.gelu(vt.transpose(x)))
    assert [p.name for p in vt.kernels(g)] == ["gelu_0_sum_exact", "gelu_1_map"]
    X = user_array(random_bits(rng, (6, 7), "f32"), "f32")
    B = _normal(rng, (7,))
    out = vt.run(g, {"x": X, "b": B}, backend="interp")
    assert _bits(out["y"]) == _bits(R.exact_sum(R.gelu(R.arith("add", X, B)), 1))
    assert _bits(out["z"]) == _bits(R.gelu(np.ascontiguousarray(X.T)))
    with pytest.raises(ValueError, match="vt.gelu is defined for f32 tensors, not bf16"):
        vt.gelu(g.input("h", DataType.BF16, (2,)))


def _special_rows() -> np.ndarray:
    inf, nan = np.inf, np.nan
    return np.array(
        [
            [1.0, 2.0, 3.0, -1.0, 0.5],
            [-inf, -inf, 0.0, 1.0, -inf],
            [nan, 1.0, 2.0, nan, 0.0],
            [inf, 1.0, 2.0, 3.0, 4.0],
            [-inf, -inf, -inf, -inf, -inf],
            [88.0, 89.0, -100.0, 1e-40, -0.0],
            [nan, nan, nan, nan, nan],
            [-0.0, -0.0, 0.0, -0.0, -0.0],
        ],
        dtype=np.float32,
    )


def test_softmax_along_every_axis_with_special_values() -> None:
    rng = np.random.default_rng(1)
    g = vt.Graph("softmax")
    x = g.input("x", F32, (8, 5))
    y = g.input("y", F32, (2, 1, 3, 7))
    g.output("rows", vt.softmax(x))
    g.output("cols", vt.softmax(x, 0))
    g.output("view", vt.softmax(vt.transpose(x)[:, ::2], -1))
    for axis in range(4):
        g.output(f"y{axis}", vt.softmax(y, axis))
    X = _special_rows()
    Y = _normal(rng, (2, 1, 3, 7), 4.0)
    out = vt.run(g, {"x": X, "y": Y}, backend="interp")
    assert _bits(out["rows"]) == _bits(R.softmax(X, -1))
    assert _bits(out["cols"]) == _bits(R.softmax(X, 0))
    assert _bits(out["view"]) == _bits(R.softmax(np.ascontiguousarray(X.T[:, ::2]), -1))
    for axis in range(4):
        assert _bits(out[f"y{axis}"]) == _bits(R.softmax(Y, axis)), axis


def test_softmax_of_a_dynamic_axis_and_a_fused_operand() -> None:
    rng = np.random.default_rng(2)
    g = vt.Graph("dyn")
    x = g.input("x", F32, ("n", "m"))
    b = g.input("b", F32, ("m",))
    g.output("p", vt.softmax(x * b + b))
    assert [p.name for p in vt.kernels(g)] == ["dyn_0_softmax"]
    for shape in ((3, 40), (1, 1), (2, 300)):
        X, B = _normal(rng, shape, 3.0), _normal(rng, shape[1:])
        got = vt.run(g, {"x": X, "b": B}, backend="interp")["p"]
        assert _bits(got) == _bits(R.softmax(R.arith("add", R.arith("mul", X, B), B), -1)), shape
    with pytest.raises(ValueError, match=r"vt.softmax: axis 1 of shape \(2, 0\) is empty"):
        vt.run(g, {"x": np.zeros((2, 0), np.float32), "b": np.zeros(0, np.float32)}, backend="interp")


def test_layer_norm_with_broadcast_weights_and_eps() -> None:
    rng = np.random.default_rng(3)
    g = vt.Graph("ln")
    x = g.input("x", F32, (2, 3, 33))
    w = g.input("w", F32, (33,))
    b = g.input("b", F32, (3, 1))
    g.output("y", vt.layer_norm(x, w, b))
    g.output("big_eps", vt.layer_norm(vt.transpose(x, (1, 0, 2)), w, w, eps=0.25))
    g.output("one", vt.layer_norm(x[:, :, :1], w[:1], w[:1]))
    X = _normal(rng, (2, 3, 33), 10.0) + np.float32(100)
    X[0, 0, :] = 7.0
    X[1, 2, 5] = np.inf
    W, B = _normal(rng, (33,)), _normal(rng, (3, 1))
    out = vt.run(g, {"x": X, "w": W, "b": B}, backend="interp")
    assert _bits(out["y"]) == _bits(R.layer_norm(X, W, B))
    assert _bits(out["big_eps"]) == _bits(R.layer_norm(np.ascontiguousarray(X.transpose(1, 0, 2)), W, W, 0.25))
    assert _bits(out["one"]) == _bits(R.layer_norm(np.ascontiguousarray(X[:, :, :1]), W[:1], W[:1]))
    assert [p.name for p in vt.kernels(g)] == ["ln_0_layer_norm", "ln_1_layer_norm", "ln_2_layer_norm"]


def _held_rows(rng: np.random.Generator, shape: tuple[int, int]) -> np.ndarray:
    """Rows with special values where an invocation holds several elements:
    NaNs, infinities, signed zeros, a masked (-inf) tail, a row of one NaN
    payload among -infs, a constant row."""
    x = _normal(rng, shape, 4.0)
    rows, n = shape
    x[0, ::7] = np.nan
    x[1, 3::11] = np.inf
    x[2, :] = -0.0
    x[2, 1::5] = 0.0
    x[3, n // 2 :] = -np.inf
    x[4, :] = -np.inf
    x[4, n - 1] = np.array([0x7FC0_1234], np.uint32).view(np.float32)[0]
    x[5 % rows, :] = 3.0
    return x


@pytest.mark.parametrize("length", [200, 1024, 1100])
def test_rows_kept_in_locals_equal_the_reference(length: int) -> None:
    """softmax and layer_norm over static rows whose elements each invocation
    keeps in locals between the passes (64 invocations: 4 elements with a
    guarded tail, 16) and over rows too long for that (1100: 18 elements, the
    passes re-read the row): the reference's bits either way."""
    rng = np.random.default_rng(length)
    g = vt.Graph("held")
    x = g.input("x", F32, (6, length))
    w = g.input("w", F32, (length,))
    g.output("softmax", vt.softmax(x * w))
    g.output("layer_norm", vt.layer_norm(x, w, w[::-1]))
    X = _held_rows(rng, (6, length))
    W = _normal(rng, (length,))
    out = vt.run(g, {"x": X, "w": W}, backend="interp")
    assert _bits(out["softmax"]) == _bits(R.softmax(R.arith("mul", X, W), -1))
    assert _bits(out["layer_norm"]) == _bits(R.layer_norm(X, W, np.ascontiguousarray(W[::-1])))


def _heads(qkv: vt.Tensor, part: int, heads: int, width: int) -> vt.Tensor:
    """(B, T, 3C) -> the (B, H, T, C/H) view of q, k or v."""
    b, tokens = qkv.shape[0], qkv.shape[1]
    one = qkv[:, :, part * width : (part + 1) * width]
    return vt.transpose(vt.reshape(one, (b, tokens, heads, width // heads)), (0, 2, 1, 3))


DP4A = ("stats_a", "stats_b", "plan", "res_a", "res_b", "gemm", "crt", "rest")
ORDERED = ("stats_a", "stats_b", "order_a", "order_b", "plan", "res_a", "res_b", "gemm", "crt", "rest")
"""The dp4a kernels; with lines sorted by width where no causal mask forbids it."""


@pytest.mark.parametrize("composed", [True, False])
@pytest.mark.parametrize("causal", [False, True])
def test_attention_over_heads_viewed_from_one_projection(causal: bool, composed: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """Both forms give the reference's bits: op by op (the two matmuls on
    8-bit dot products, the scale and mask where the softmax reads), and the
    one-kernel form used when the dp4a matmul does not apply."""
    if composed:  # small: the dp4a path only when told
        monkeypatch.setattr(matmul, "DP4A_MIN_PRODUCTS", 0)
    else:
        monkeypatch.setattr(lower, "dp4a_applies", lambda shape, inner: False)
    rng = np.random.default_rng(4 + causal)
    heads, width, tokens = 2, 8, 5
    g = vt.Graph("att")
    qkv = g.input("qkv", F32, (2, tokens, 3 * width))
    q, k, v = (_heads(qkv, p, heads, width) for p in range(3))
    g.output("o", vt.attention(q, k, v, causal=causal))
    assert [p.name for p in vt.kernels(g)] == (
        [*(f"att_0_attention_scores_{k}" for k in (DP4A if causal else ORDERED)), "att_1_attention_softmax", *(f"att_2_attention_values_{k}" for k in (DP4A if causal else ORDERED))]
        if composed
        else ["att_0_attention"]
    )
    QKV = _normal(rng, (2, tokens, 3 * width), 2.0)
    parts = [
        np.ascontiguousarray(QKV[:, :, p * width : (p + 1) * width].reshape(2, tokens, heads, width // heads).transpose(0, 2, 1, 3))
        for p in range(3)
    ]
    got = vt.run(g, {"qkv": QKV}, backend="interp")["o"]
    assert _bits(got) == _bits(R.attention(*parts, causal=causal))


@pytest.mark.usefixtures("gpu_adapter")
def test_causal_attention_skips_work_above_the_diagonal_on_the_gpu(monkeypatch: pytest.MonkeyPatch) -> None:
    """Three 128-token tiles each way: the scores' tiles above the diagonal
    and the values' keys past each tile's last query are skipped, the bits
    stay the reference's. An infinity in `v` at a late key still turns every
    earlier query's output in its column into NaN (0 * inf: that column is
    excluded from the 8-bit path, whose outputs the per-product kernel
    computes over every key), and a NaN query makes its row NaN."""
    monkeypatch.setattr(matmul, "DP4A_MIN_PRODUCTS", 0)
    rng = np.random.default_rng(31)
    tokens, depth = 300, 4
    g = vt.Graph("causal")
    q, k, v = (g.input(name, F32, (1, tokens, depth)) for name in "qkv")
    g.output("o", vt.attention(q, k, v, causal=True))
    assert "causal_0_attention_scores_gemm" in [p.name for p in vt.kernels(g)]
    Q, K, V = (_normal(rng, (1, tokens, depth), 2.0) for _ in range(3))
    V[0, 290, 1] = np.inf
    Q[0, 7, 2] = np.nan
    got = vt.run(g, {"q": Q, "k": K, "v": V}, backend="wgpu")["o"]
    want = R.attention(Q, K, V, causal=True)
    assert np.isnan(want[0, :290, 1]).all() and np.isnan(want[0, 7]).all()
    assert _bits(got) == _bits(want)


def test_attention_broadcasts_batches_and_keeps_special_values() -> None:
    rng = np.random.default_rng(6)
    g = vt.Graph("bc")
    q = g.input("q", F32, (2, 1, 3, 4))
    k = g.input("k", F32, (3, 6, 4))
    v = g.input("v", F32, (1, 6, 5))
    g.output("full", vt.attention(q, k, v))
    g.output("single", vt.attention(q[:, :, :1], k[:, :1], v[:, :1], causal=True))
    Q, K, V = _normal(rng, (2, 1, 3, 4), 3.0), _normal(rng, (3, 6, 4), 3.0), _normal(rng, (1, 6, 5))
    Q[0, 0, 0, 0] = np.nan
    K[1, 2, 3] = np.inf
    V[0, 4, 1] = -np.inf
    out = vt.run(g, {"q": Q, "k": K, "v": V}, backend="interp")
    assert _bits(out["full"]) == _bits(R.attention(Q, K, V))
    single = R.attention(np.ascontiguousarray(Q[:, :, :1]), np.ascontiguousarray(K[:, :1]), np.ascontiguousarray(V[:, :1]), True)
    assert _bits(out["single"]) == _bits(single)


def test_causal_attention_with_dynamic_tokens() -> None:
    rng = np.random.default_rng(7)
    g = vt.Graph("dyn_att")
    q = g.input("q", F32, ("t", 3))
    k = g.input("k", F32, ("s", 3))
    v = g.input("v", F32, ("s", 2))
    g.output("o", vt.attention(q, k, v, causal=True))
    for tokens in (1, 4, 33):
        Q, K, V = (_normal(rng, (tokens, c)) for c in (3, 3, 2))
        got = vt.run(g, {"q": Q, "k": K, "v": V}, backend="interp")["o"]
        assert _bits(got) == _bits(R.attention(Q, K, V, True)), tokens
    ones = np.ones((3, 3), np.float32)
    with pytest.raises(ValueError, match="causal attention needs as many queries as keys, got q"):
        vt.run(g, {"q": ones, "k": np.ones((4, 3), np.float32), "v": np.ones((4, 2), np.float32)}, backend="interp")
    with pytest.raises(ValueError, match=r"vt.attention: axis 0 of k's shape \(0, 3\) is empty"):
        vt.run(g, {"q": ones[:0], "k": ones[:0], "v": ones[:0, :2]}, backend="interp")


def test_composites_reject_other_types_and_shapes_at_once() -> None:
    g = vt.Graph("bad")
    h = g.input("h", DataType.F16, (2, 3))
    x = g.input("x", F32, (2, 3))
    w = g.input("w", F32, (4,))
    with pytest.raises(ValueError, match="vt.softmax is defined for f32 tensors, not f16"):
        vt.softmax(h)
    with pytest.raises(ValueError, match=r"vt.softmax: axis 1 of shape \(2, 0\) is empty"):
        vt.softmax(x[:, :0])
    with pytest.raises(ValueError, match=r"vt.layer_norm's weight: cannot broadcast shape \(4,\) to \(2, 3\)"):
        vt.layer_norm(x, w, w)
    with pytest.raises(ValueError, match=r"vt.attention: q \(2, 3\) and k \(2, 4\) differ in their last dim"):
        vt.attention(x, g.input("k", F32, (2, 4)), x)
    with pytest.raises(ValueError, match="causal attention needs as many queries as keys"):
        vt.attention(x, x[:1], x[:1], causal=True)
    with pytest.raises(TypeError, match="causal must be True or False"):
        vt.attention(x, x, x, causal=1)  # type: ignore[arg-type]


def test_the_transformer_block_example_is_the_reference_block() -> None:
    """examples/transformer_block.py's block equals the conform track's
    reference block (tensor_block.block_reference) bit for bit."""
    from vyre.conform.tensor_block import block_reference

    example = _example()
    batch, tokens, width, heads = 1, 6, 16, 2
    values = example.inputs(3, batch, tokens, width)
    y = vt.run(example.build(batch, tokens, width, heads), values, backend="interp")["y"]
    assert _bits(y) == _bits(block_reference(values, heads)["y"])
    assert float(np.abs(y - example.float64_block(values, heads)).max()) < 1e-5


def _example() -> Any:
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[3] / "examples" / "transformer_block.py"
    spec = importlib.util.spec_from_file_location("transformer_block", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_example_runs(capsys: pytest.CaptureFixture[str]) -> None:
    assert _example().main(["--backend", "interp", "--tokens", "4", "--width", "8", "--heads", "2"]) == 0
    printed = capsys.readouterr().out
    assert "block_3_attention" in printed and "sha256" in printed
