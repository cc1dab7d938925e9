"""Benchmark: a transformer block from `vyre.tensor` against PyTorch fp32, same GPU, same run.

    python bench/transformer.py [--sizes small,medium,large] [--reps 3] [--trials 3]
                                [--digest FILE] [--compare FILE]

The block is examples/transformer_block.py's (pre-norm: layer norm, QKV
projection, causal multi-head attention, output projection + residual, layer
norm, MLP 4C with GELU + residual; weights from numpy, seed 0) at (batch,
tokens, width, heads) = small (1, 128, 256, 4), medium (8, 512, 768, 12),
large (8, 1024, 1024, 16); on a GPU all three by default, on lavapipe the
small one. For each size:

- vyre: ms per block (the schedule staged once on the device, then `--reps`
  runs of every dispatch in one submission, median of `--trials`; a block
  whose first run takes over a second is timed one run at a time, median of
  at most two), dispatches
  and distinct kernels per block, and the time of each kind of kernel (each
  dispatch of the block run alone: 1 and 9 runs of it in one submission each,
  the difference per run (the submission's fixed cost cancels), summed by
  kind: layer_norm, matmul_exact (matmul_exact_acc and
  matmul_exact_round where the inner length passes one chunk), map, attention, copy);
- torch fp32 (TF32 off: `torch.backends.cuda.matmul.allow_tf32 = False`, and
  cuDNN's too) of the same block: ms per block;
- the largest absolute error of vyre's output and of torch fp32's against the
  same block in float64 (torch float64 on the GPU, else numpy);
- the SHA-256 of vyre's output bytes.

`--digest FILE` writes each size's SHA-256 (JSON); `--compare FILE` runs the
sizes the file holds that were asked for (`--sizes`) and checks the bytes are
the same here (e.g. the H100's digest against lavapipe on a CPU, or
`--backend interp`): the block is bit-identical on every device.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import _common  # noqa: F401  # pyright: ignore[reportUnusedImport]  (puts the repository on sys.path)
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples"))
import transformer_block as block  # noqa: E402

from vyre import tensor as vt  # noqa: E402
from vyre.tensor import runner  # noqa: E402

SIZES: dict[str, tuple[int, int, int, int]] = {
    "small": (1, 128, 256, 4),
    "medium": (8, 512, 768, 12),
    "large": (8, 1024, 1024, 16),
}
SEED = 0
KIND_REPS = 8
"""Extra runs of a dispatch timed alone (see `vyre_block`)."""
SLOW_BLOCK_S = 1.0
"""A block whose first run takes longer than this is timed one run at a time."""


def _torch() -> Any | None:
    try:
        torch: Any = importlib.import_module("torch")
    except ImportError:
        return None
    return torch if torch.cuda.is_available() else None


def _median(once: Callable[[], float], trials: int, warm: float = 0.5) -> float:
    """The median of `trials` calls of `once`, after calls for at least half a
    second, `warm` (an idle H200 sits at 345 MHz: a block timed cold on its
    own read 61 ms where warm it takes 23)."""
    start = time.perf_counter()
    once()
    while time.perf_counter() - start < warm:
        once()
    return float(np.median([once() for _ in range(trials)]))


# ---------------------------------------------------------------------------
# vyre
# ---------------------------------------------------------------------------


def _kind(program_name: str) -> str:
    """`block_5_matmul_exact_acc` -> `matmul_exact_acc`."""
    return program_name.split("_", 2)[2]


def vyre_block(graph: vt.Graph, values: dict[str, np.ndarray], reps: int, trials: int) -> dict[str, Any]:
    """ms per block, dispatches, kernels, ms per kernel kind, the output."""
    from vyre.runtime import wgpu_backend
    from vyre.runtime.wgpu_device import Resident, gpu_device

    staged = runner.stage(graph, values)
    probe = Resident.allocate(gpu_device(), 1)
    started = time.perf_counter()
    wgpu_backend.run_steps(staged.encoded, clear=staged.clear)
    output = staged.results()["y"]
    if time.perf_counter() - started > SLOW_BLOCK_S:  # a slow block: one run per timing, fewer trials
        reps, trials = 1, min(trials, 2)

    def timed(steps: list[Any], repeat: int) -> Callable[[], float]:
        def once() -> float:
            submitted = wgpu_backend.run_steps(steps, repeat=repeat)
            probe.read()
            return (time.perf_counter() - submitted) / repeat

        return once

    seconds = _median(timed(staged.encoded, reps), trials)
    kinds: dict[str, float] = {}
    for step in staged.encoded:
        kind = _kind(step[0].name)
        # One submission's fixed cost (~0.2 ms: submit, wait, a small read-back)
        # would dominate a small dispatch timed alone: time 1 and 1 + KIND_REPS
        # runs of it in one submission each and keep the difference per run.
        one = _median(timed([step], 1), 3, warm=0.0)
        many = _median(timed([step], 1 + KIND_REPS), 3, warm=0.0) * (1 + KIND_REPS)
        kinds[kind] = kinds.get(kind, 0.0) + max(many - one, 0.0) / KIND_REPS
    return {
        "ms": seconds * 1e3,
        "dispatches": len(staged.encoded),
        "kernels": len({step[0].name for step in staged.encoded}),
        "kinds": {k: v * 1e3 for k, v in sorted(kinds.items(), key=lambda kv: -kv[1])},
        "y": output.view(np.float32).reshape(values["x"].shape),
    }


# ---------------------------------------------------------------------------
# torch
# ---------------------------------------------------------------------------


def torch_block(torch: Any, values: dict[str, np.ndarray], heads: int, dtype: Any) -> Callable[[], Any]:
    """The block in torch at `dtype` (a function of no arguments returning y)."""
    F: Any = torch.nn.functional
    t = {name: torch.from_numpy(a).to(device="cuda", dtype=dtype) for name, a in values.items()}
    batch, tokens, width = values["x"].shape

    def split(qkv: Any, j: int) -> Any:
        part = qkv[:, :, j * width : (j + 1) * width]
        return part.reshape(batch, tokens, heads, width // heads).transpose(1, 2)

    def run() -> Any:
        x = t["x"]
        h = F.layer_norm(x, (width,), t["ln1_w"], t["ln1_b"], eps=1e-5)
        qkv = h @ t["w_qkv"] + t["b_qkv"]
        attn = F.scaled_dot_product_attention(split(qkv, 0), split(qkv, 1), split(qkv, 2), is_causal=True)
        x1 = x + (attn.transpose(1, 2).reshape(batch, tokens, width) @ t["w_o"] + t["b_o"])
        hidden = F.gelu(F.layer_norm(x1, (width,), t["ln2_w"], t["ln2_b"], eps=1e-5) @ t["w_1"] + t["b_1"])
        return x1 + (hidden @ t["w_2"] + t["b_2"])

    return run


def torch_time(torch: Any, run: Callable[[], Any], reps: int, trials: int) -> float:
    def once() -> float:
        torch.cuda.synchronize()
        start = time.perf_counter()
        for _ in range(reps):
            run()
        torch.cuda.synchronize()
        return (time.perf_counter() - start) / reps

    with torch.no_grad():
        return _median(once, trials)


def float64_reference(torch: Any | None, values: dict[str, np.ndarray], heads: int) -> np.ndarray:
    if torch is None:
        return block.float64_block(values, heads)
    with torch.no_grad():
        return torch_block(torch, values, heads, torch.float64)().cpu().numpy()


# ---------------------------------------------------------------------------
# Main
# ---------------------------------------------------------------------------


def _digest(y: np.ndarray) -> str:
    return hashlib.sha256(np.ascontiguousarray(y).tobytes()).hexdigest()


def measure(name: str, args: argparse.Namespace, torch: Any | None) -> dict[str, Any]:
    batch, tokens, width, heads = SIZES[name]
    graph = block.build(batch, tokens, width, heads)
    values = block.inputs(SEED, batch, tokens, width)
    started = time.perf_counter()
    ours = vyre_block(graph, values, args.reps, args.trials)
    row: dict[str, Any] = {"size": name, "shape": SIZES[name], **{k: v for k, v in ours.items() if k != "y"}}
    row["sha256"] = _digest(ours["y"])
    reference = float64_reference(torch, values, heads)
    row["vyre_error"] = float(np.abs(ours["y"].astype(np.float64) - reference).max())
    if torch is not None:
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = False
        run = torch_block(torch, values, heads, torch.float32)
        row["torch_ms"] = torch_time(torch, run, args.reps, args.trials) * 1e3
        with torch.no_grad():
            row["torch_error"] = float(np.abs(run().cpu().numpy().astype(np.float64) - reference).max())
    row["wall_s"] = time.perf_counter() - started
    return row


def _print(row: dict[str, Any]) -> None:
    b, t, c, h = row["shape"]
    torch_ms = row.get("torch_ms")
    ratio = "-" if torch_ms is None else f"{row['ms'] / torch_ms:.1f}x torch"
    print(f"## {row['size']}: (batch, tokens, width, heads) = ({b}, {t}, {c}, {h})")
    print(f"vyre        {row['ms']:10.3f} ms/block  ({ratio}); {row['dispatches']} dispatches, {row['kernels']} kernels")
    if torch_ms is not None:
        print(f"torch fp32  {torch_ms:10.3f} ms/block  (TF32 off)")
    theirs = row.get("torch_error")
    print(f"max |error| vs float64: vyre {row['vyre_error']:.3g}, torch fp32 {'-' if theirs is None else f'{theirs:.3g}'}")
    print("time per kernel kind (each dispatch alone):")
    for kind, ms in row["kinds"].items():
        print(f"  {kind:22s} {ms:10.3f} ms  ({ms / max(row['ms'], 1e-9):6.1%})")
    print(f"sha256 of y: {row['sha256']}   ({row['wall_s']:.0f} s)\n", flush=True)


def compare(args: argparse.Namespace, sizes: list[str]) -> int:
    recorded: dict[str, Any] = json.loads(Path(args.compare).read_text())["sizes"]
    failed = 0
    for name in sizes:
        if name not in recorded:
            continue
        batch, tokens, width, heads = SIZES[name]
        values = block.inputs(SEED, batch, tokens, width)
        started = time.perf_counter()
        y = vt.run(block.build(batch, tokens, width, heads), values, backend=args.backend)["y"]
        ours, theirs = _digest(y), recorded[name]["sha256"]
        same = ours == theirs
        failed += not same
        device = recorded[name].get("device", "?")
        print(f"{name}: {args.backend} {'==' if same else '!='} {device}: {ours} ({time.perf_counter() - started:.0f} s)")
    return 1 if failed else 0


def main(argv: list[str]) -> int:
    gpu = not _common.gpu_is_cpu()
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="small,medium,large" if gpu else "small")
    parser.add_argument("--reps", type=int, default=3 if gpu else 1)
    parser.add_argument("--trials", type=int, default=3 if gpu else 1)
    parser.add_argument("--digest", type=Path, help="write each size's SHA-256 of y here (JSON)")
    parser.add_argument("--compare", type=Path, help="check y against the SHA-256s of this file")
    parser.add_argument("--backend", choices=("wgpu", "interp"), default="wgpu", help="for --compare")
    args = parser.parse_args(argv)
    sizes = [s for s in args.sizes.split(",") if s]
    unknown = [s for s in sizes if s not in SIZES]
    if unknown:
        parser.error(f"unknown size(s) {unknown}; choose among {', '.join(SIZES)}")
    if args.compare is not None:
        return compare(args, sizes)
    torch = _torch()
    print(f"# a transformer block, vyre.tensor on {_common.gpu_name()} ({_common.cpu_name()})")
    print(f"torch: {'none (no CUDA torch)' if torch is None else torch.__version__}\n", flush=True)
    rows: list[dict[str, Any]] = []
    for name in sizes:
        rows.append(measure(name, args, torch))
        _print(rows[-1])
        if args.digest is not None:  # after each size: a run cut short keeps what it measured
            device = _common.gpu_name()
            sizes_done = {r["size"]: {"sha256": r["sha256"], "shape": r["shape"], "device": device} for r in rows}
            args.digest.write_text(json.dumps({"seed": SEED, "sizes": sizes_done}, indent=2) + "\n")
            print(f"digest written to {args.digest}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
