"""A pre-norm transformer block from `vyre.tensor`: the same bits on every GPU.

    python examples/transformer_block.py [--backend wgpu|interp] [--batch 1] [--tokens 16]
                                         [--width 32] [--heads 2] [--seed 0]

x (B, T, C) -> layer_norm -> QKV projection -> causal multi-head attention (the
heads are views of the projection) -> output projection + residual ->
layer_norm -> MLP of width 4C with GELU + residual. Every operation has
vyre.tensor's exact meaning (exact matmuls and sums rounded once, correctly
rounded exp and erf), so the output's bytes do not depend on the device, the
driver or the schedule. The weights come from numpy with a fixed seed. The
script prints the kernels the block lowers to, the SHA-256 of the output's
bytes and its largest error against the same block evaluated in float64.
"""

from __future__ import annotations

import argparse
import hashlib
import math
import sys

import numpy as np

from vyre import tensor as vt
from vyre.cli.pipes import quiet_on_closed_pipe
from vyre.ir import DataType

F32 = DataType.F32


def parameters(width: int) -> list[tuple[str, tuple[int, ...]]]:
    """The block's parameters for a width C: (name, shape)."""
    c = width
    return [
        ("ln1_w", (c,)), ("ln1_b", (c,)), ("w_qkv", (c, 3 * c)), ("b_qkv", (3 * c,)),
        ("w_o", (c, c)), ("b_o", (c,)), ("ln2_w", (c,)), ("ln2_b", (c,)),
        ("w_1", (c, 4 * c)), ("b_1", (4 * c,)), ("w_2", (4 * c, c)), ("b_2", (c,)),
    ]


def inputs(seed: int, batch: int, tokens: int, width: int) -> dict[str, np.ndarray]:
    """x and the parameters, float32, from numpy's generator with `seed`."""
    rng = np.random.default_rng(seed)
    out = {"x": rng.standard_normal((batch, tokens, width)).astype(np.float32)}
    for name, shape in parameters(width):
        if len(shape) == 2:  # matrices: normal / sqrt(fan-in)
            value = rng.standard_normal(shape) / math.sqrt(shape[0])
        elif name.startswith("ln") and name.endswith("_w"):
            value = 1.0 + 0.1 * rng.standard_normal(shape)
        else:
            value = 0.02 * rng.standard_normal(shape)
        out[name] = value.astype(np.float32)
    return out


def heads(t: vt.Tensor, batch: int, tokens: int, count: int) -> vt.Tensor:
    """(B, T, C) viewed as (B, H, T, C/H): no copy."""
    width = t.shape[-1]
    assert isinstance(width, int)
    return vt.transpose(vt.reshape(t, (batch, tokens, count, width // count)), (0, 2, 1, 3))


def build(batch: int, tokens: int, width: int, count: int) -> vt.Graph:
    """The block as a graph: inputs "x" and the parameters, output "y"."""
    g = vt.Graph("block")
    x = g.input("x", F32, (batch, tokens, width))
    p = {name: g.input(name, F32, shape) for name, shape in parameters(width)}
    qkv = vt.matmul(vt.layer_norm(x, p["ln1_w"], p["ln1_b"]), p["w_qkv"]) + p["b_qkv"]
    q, k, v = (heads(qkv[:, :, j * width : (j + 1) * width], batch, tokens, count) for j in range(3))
    attn = vt.attention(q, k, v, causal=True)  # (B, H, T, C/H)
    attn = vt.reshape(vt.transpose(attn, (0, 2, 1, 3)), (batch, tokens, width))
    x1 = x + (vt.matmul(attn, p["w_o"]) + p["b_o"])
    hidden = vt.gelu(vt.matmul(vt.layer_norm(x1, p["ln2_w"], p["ln2_b"]), p["w_1"]) + p["b_1"])
    g.output("y", x1 + (vt.matmul(hidden, p["w_2"]) + p["b_2"]))
    return g


def float64_block(values: dict[str, np.ndarray], count: int) -> np.ndarray:
    """The same block in float64 numpy (for the error figure)."""
    v = {name: a.astype(np.float64) for name, a in values.items()}
    x = v["x"]
    batch, tokens, width = x.shape

    def norm(t: np.ndarray, w: np.ndarray, b: np.ndarray) -> np.ndarray:
        mu = t.mean(-1, keepdims=True)
        var = ((t - mu) ** 2).mean(-1, keepdims=True)
        return (t - mu) / np.sqrt(var + 1e-5) * w + b

    qkv = norm(x, v["ln1_w"], v["ln1_b"]) @ v["w_qkv"] + v["b_qkv"]
    q, k, val = (
        qkv[:, :, j * width : (j + 1) * width].reshape(batch, tokens, count, -1).transpose(0, 2, 1, 3) for j in range(3)
    )
    s = q @ k.transpose(0, 1, 3, 2) / math.sqrt(width // count)
    s = np.where(np.triu(np.ones((tokens, tokens), bool), 1), -np.inf, s)
    e = np.exp(s - s.max(-1, keepdims=True))
    attn = ((e / e.sum(-1, keepdims=True)) @ val).transpose(0, 2, 1, 3).reshape(batch, tokens, width)
    x1 = x + attn @ v["w_o"] + v["b_o"]
    pre = norm(x1, v["ln2_w"], v["ln2_b"]) @ v["w_1"] + v["b_1"]
    gelu = 0.5 * pre * (1.0 + np.vectorize(math.erf)(pre / math.sqrt(2.0)))
    return x1 + gelu @ v["w_2"] + v["b_2"]


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", choices=("wgpu", "interp"), default="wgpu")
    parser.add_argument("--batch", type=int, default=1)
    parser.add_argument("--tokens", type=int, default=16)
    parser.add_argument("--width", type=int, default=32)
    parser.add_argument("--heads", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if args.width % args.heads:
        parser.error(f"--width {args.width} is not a multiple of --heads {args.heads}")
    graph = build(args.batch, args.tokens, args.width, args.heads)
    values = inputs(args.seed, args.batch, args.tokens, args.width)
    y = vt.run(graph, values, backend=args.backend)["y"]
    error = float(np.abs(y - float64_block(values, args.heads)).max())
    print(f"kernels: {', '.join(p.name for p in vt.kernels(graph))}")
    print(f"y {y.shape} on {args.backend}: sha256 {hashlib.sha256(y.tobytes()).hexdigest()}")
    print(f"largest error against float64: {error:.3g}")
    if not error < 1e-3:
        print("error: the block is far from its float64 evaluation", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(quiet_on_closed_pipe(main)(sys.argv[1:]))
