"""The transformer block of the tensor track (L4f): the graph, its parameters
and the same block composed from the independent reference's operations.

A pre-norm block on x (B, T, C): layer norm, QKV projection, causal multi-head
attention over heads viewed from the projection, output projection and
residual, layer norm, an MLP of width 4C with GELU, and residual. The two
compositions are written separately, operation for operation in the same
order, so the track compares the lowering with the reference, not with itself.
"""

from __future__ import annotations

import numpy as np

from vyre import tensor as vt
from vyre.conform import tensor_reference as R
from vyre.ir import DataType

__all__ = ["block_graph", "block_parameters", "block_reference", "block_weights"]

Inputs = dict[str, np.ndarray]
Outputs = dict[str, np.ndarray]

def block_parameters(width: int) -> list[tuple[str, tuple[int, ...]]]:
    """The parameters of a block of width C: (name, shape)."""
    c = width
    return [
        ("ln1_w", (c,)), ("ln1_b", (c,)), ("w_qkv", (c, 3 * c)), ("b_qkv", (3 * c,)),
        ("w_o", (c, c)), ("b_o", (c,)), ("ln2_w", (c,)), ("ln2_b", (c,)),
        ("w_1", (c, 4 * c)), ("b_1", (4 * c,)), ("w_2", (4 * c, c)), ("b_2", (c,)),
    ]


def block_weights(rng: np.random.Generator, width: int) -> Inputs:
    """Parameters: matrices normal / sqrt(fan-in), biases small, layer-norm
    weights near 1."""
    out: Inputs = {}
    for name, shape in block_parameters(width):
        if len(shape) == 2:
            out[name] = (rng.standard_normal(shape) / np.sqrt(shape[0])).astype(np.float32)
        elif name.startswith("ln") and name.endswith("_w"):
            out[name] = (1.0 + 0.1 * rng.standard_normal(shape)).astype(np.float32)
        else:
            out[name] = (0.02 * rng.standard_normal(shape)).astype(np.float32)
    return out


def block_graph(name: str, batch: int, tokens: int | str, width: int, heads: int) -> vt.Graph:
    """A pre-norm transformer block on x (B, T, C): `x1 = x + (attn @ w_o + b_o)`
    with `attn` the causal multi-head attention of the heads of
    `layer_norm(x) @ w_qkv + b_qkv`, then `y = x1 + (gelu(layer_norm(x1) @ w_1 + b_1) @ w_2 + b_2)`."""
    g = vt.Graph(name)
    x = g.input("x", DataType.F32, (batch, tokens, width))
    p = {n: g.input(n, DataType.F32, shape) for n, shape in block_parameters(width)}
    qkv = vt.matmul(vt.layer_norm(x, p["ln1_w"], p["ln1_b"]), p["w_qkv"]) + p["b_qkv"]
    q, k, v = (
        vt.transpose(vt.reshape(qkv[:, :, j * width : (j + 1) * width], (batch, tokens, heads, width // heads)), (0, 2, 1, 3))
        for j in range(3)
    )
    attn = vt.reshape(vt.transpose(vt.attention(q, k, v, causal=True), (0, 2, 1, 3)), (batch, tokens, width))
    x1 = x + (vt.matmul(attn, p["w_o"]) + p["b_o"])
    hidden = vt.gelu(vt.matmul(vt.layer_norm(x1, p["ln2_w"], p["ln2_b"]), p["w_1"]) + p["b_1"])
    g.output("y", x1 + (vt.matmul(hidden, p["w_2"]) + p["b_2"]))
    return g


def block_reference(i: Inputs, heads: int) -> Outputs:
    """`block_graph` composed from the reference's operations."""
    x = i["x"]
    batch, tokens, width = x.shape
    qkv = R.arith("add", R.matmul_exact(R.layer_norm(x, i["ln1_w"], i["ln1_b"]), i["w_qkv"]), i["b_qkv"])
    q, k, v = (
        np.ascontiguousarray(
            qkv[:, :, j * width : (j + 1) * width].reshape(batch, tokens, heads, width // heads).transpose(0, 2, 1, 3)
        )
        for j in range(3)
    )
    attn = np.ascontiguousarray(R.attention(q, k, v, True).transpose(0, 2, 1, 3)).reshape(batch, tokens, width)
    x1 = R.arith("add", x, R.arith("add", R.matmul_exact(attn, i["w_o"]), i["b_o"]))
    pre = R.arith("add", R.matmul_exact(R.layer_norm(x1, i["ln2_w"], i["ln2_b"]), i["w_1"]), i["b_1"])
    return {"y": R.arith("add", x1, R.arith("add", R.matmul_exact(R.gelu(pre), i["w_2"]), i["b_2"]))}
