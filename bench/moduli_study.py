"""How many moduli the exact matmul's tiles take, against the fewest that the
true products would need: is the bound on `|C'|` the lever for a faster GEMM?

    python bench/moduli_study.py [--rows 4096]

Host only (numpy; no GPU). For two linears of examples/transformer_block.py's
medium block, (8, 512, 768, 12), with activations computed in numpy float32
(close to the block's, not its bits: this is a study of magnitudes), each line
(a row of `a`, a column of `b`) gets the facts `_stats` of
vyre/transforms/tensors/matmul_dp4a.py computes, recomputed here from the
float bits (the lowest set bit, the width `W`, the doubled norm width `D`);
the lines are sorted by width and cut into 128 x 128 tiles as the kernels do,
and each tile's moduli count is the kernels' rule (the fewest `n` with
`PREFIX_BITS[n] >= min(W_a + W_b + ceil(log2 K), ceil((D_a + D_b + 1) / 2) - F) + 1`).
The "oracle" count takes instead the largest true `|C'|` of the tile (the
float64 product, scaled by the lines' shifts): no bound computed before the
GEMM can need fewer moduli. Printed: the mean count of each, and which bound
(width or norm) decided the tiles.

Measured (this script, 2026-11-29): QKV projection (K = 768) 10.18 moduli a
tile against 9.72 for the oracle; the MLP's second linear (K = 3,072, first
1,024 rows) 11.71 against 10.96; the norm bound decides every tile. So a
better bound could save at most 4-6 % of the GEMM's work: what separates the
two is the cancellation of random signs in the dot products (|C| ~ the norms'
product / sqrt(K)), which no bound from the lines' norms or widths sees.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import _common  # noqa: F401  # pyright: ignore[reportUnusedImport]  (puts the repository on sys.path)
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples"))
import transformer_block as block  # noqa: E402

from vyre.transforms.tensors import moduli as Mo  # noqa: E402
from vyre.transforms.tensors.matmul_dp4a import F, TILE  # noqa: E402


def line_facts(lines: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(lowest set bit's shift, width W, doubled norm width D) of each row of
    `lines` (float32, no inf/NaN), as matmul_dp4a's `_stats` defines them."""
    bits = lines.view(np.uint32).astype(np.int64)
    exponent = (bits >> 23) & 0xFF
    fraction = bits & 0x7F_FFFF
    significand = np.where(exponent > 0, fraction | (1 << 23), fraction)
    nonzero = significand != 0
    shift = np.maximum(exponent, 1) - 1  # value = significand * 2**(shift - 149)
    trailing = np.zeros_like(significand)
    for k in range(24):
        trailing += nonzero & (trailing == k) & (((significand >> k) & 1) == 0)
    low = np.where(nonzero, shift + trailing, 1 << 30).min(axis=1)
    tops = np.where(nonzero, shift + np.floor(np.log2(np.maximum(significand, 1))).astype(np.int64), -1)
    high = tops.max(axis=1)
    width = high - low + 1
    gap = 2 * (high[:, None] - tops)
    q = np.where(nonzero, np.where(gap >= F, 1.0, np.exp2(F - np.minimum(gap, F))), 0.0).sum(axis=1)
    doubled = 2 * width + np.array([int(v).bit_length() for v in q.astype(np.int64)])
    return low, width, doubled


def _moduli(bits: int) -> int:
    """The fewest moduli recovering every integer below 2**(bits - 1) in magnitude."""
    return next(n for n in range(Mo.N_MAX + 1) if Mo.PREFIX_BITS[n] >= bits)


def study(a: np.ndarray, b: np.ndarray, name: str) -> None:
    inner = a.shape[1]
    low_a, width_a, doubled_a = line_facts(a)
    low_b, width_b, doubled_b = line_facts(np.ascontiguousarray(b.T))
    k_bits = (inner - 1).bit_length()
    order_a, order_b = np.argsort(width_a, kind="stable"), np.argsort(width_b, kind="stable")
    product = a.astype(np.float64) @ b.astype(np.float64)
    kernels, oracle, by_width = [], [], 0
    for i0 in range(0, a.shape[0], TILE):
        rows = order_a[i0 : i0 + TILE]
        for j0 in range(0, b.shape[1], TILE):
            cols = order_b[j0 : j0 + TILE]
            width_bound = int(width_a[rows].max() + width_b[cols].max() + k_bits)
            norm_bound = max(int(doubled_a[rows].max() + doubled_b[cols].max() + 2) // 2 - F, 0)
            by_width += width_bound <= norm_bound
            kernels.append(_moduli(min(width_bound, norm_bound) + 1))
            scaled = np.abs(product[np.ix_(rows, cols)]) * np.exp2(298 - low_a[rows][:, None] - low_b[cols][None, :])
            oracle.append(_moduli(int(np.ceil(np.log2(scaled.max() + 1))) + 1))
    print(
        f"{name}: K = {inner}, {len(kernels)} tiles: {np.mean(kernels):.2f} moduli a tile, "
        f"oracle {np.mean(oracle):.2f}; decided by the width bound in {by_width} tiles, "
        f"by the norm bound in {len(kernels) - by_width}"
    )


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=4096, help="rows of the QKV projection's input (at most 4096)")
    args = parser.parse_args(argv)
    values = block.inputs(0, 8, 512, 768)
    x = values["x"].reshape(-1, 768)[: args.rows]
    mean, var = x.mean(1, keepdims=True), x.var(1, keepdims=True)
    h = ((x - mean) / np.sqrt(var + 1e-5) * values["ln1_w"] + values["ln1_b"]).astype(np.float32)
    study(h, values["w_qkv"], "QKV projection")
    hidden = (h[:1024] @ values["w_1"] + values["b_1"]).astype(np.float32)
    gelu = (0.5 * hidden * (1 + np.tanh(0.7978845608 * (hidden + 0.044715 * hidden**3)))).astype(np.float32)
    study(gelu, values["w_2"], "MLP second linear (1,024 rows)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
