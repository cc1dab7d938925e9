"""Benchmark: the tensor level (`vyre.tensor`) against PyTorch on the same GPU, same run.

    python bench/tensor.py [--only sum,matmul,elementwise] [--sum-n N] [--ordered-n N]
                           [--mm-n N] [--mm-seq-n N] [--ew-rows R] [--ew-cols C]
                           [--reps 10] [--trials 5]

Rows (sizes default to the targets' on a GPU and to small ones on lavapipe):

- `sum`: `vt.sum(x, 0)` over one F32 axis of `--sum-n` elements (2^28 on a GPU),
  `exact` (the order-free exact accumulator, rounded once; on standard normal
  values, and on "wide" values spread over some 50 binades, N(0,1) times
  2^k for k uniform in -20..19: the speed of the exact sum depends on the
  spread of the exponents, torch's does not) against
  `torch.sum`: GB/s of the 4 bytes per element read, and the fraction of
  torch's; `sequential` and `tree` (one invocation per output: latency bound)
  over `--ordered-n`; and the exact sum of every row of a (n/256, 256) array
  (one invocation per output). Each result is checked: the 1-D exact sum
  against the exact integer sum of the inputs rounded once, the ordered sums
  against numpy float32 additions in their order (for `--ordered-n` up to 2^22).
- `matmul`: `vt.matmul` of n x n x n (4096 on a GPU) F32 `exact`, BF16 `exact`
  and F32 `sequential` (at `--mm-seq-n`), against torch fp32 `mm` with TF32
  off: TFLOPS (2n^3 / time) and the fraction of torch's; 16 outputs of each
  result checked against exact rationals.
- `elementwise`: `x + b` over (rows, cols) with `b` of shape (cols,) broadcast,
  and the transposed chain `(xT + bT)` in the same kernel, against torch: GB/s
  (the bytes each output element reads and writes) and the fraction of torch's;
  the kernel count of each graph (a view chain and one elementwise op is one kernel).
  The transposed chain has two peers: torch's own `t.T + b[:, None]`, whose
  result takes t.T's stride order (so it reads and writes in the same order and
  transposes nothing), and `torch.add(t.T, b[:, None], out=y)` into a row-major
  `y`, the bytes vyre's row-major result holds.

Timings: the graph is staged once on the device (`vyre.tensor.runner.stage`:
inputs uploaded, every dispatch bound), then a batch of runs of every dispatch
of the schedule goes into one submission, followed by a 4-byte readback; the
median of `--trials` such batches, divided by the runs. PyTorch: a batch of
launches, then a synchronisation. A batch is `--reps` runs or more, enough to
last `--batch-ms` (50 on a GPU): the read-back (0.2-0.4 ms on the H200) and
torch's synchronisation are then under 1 % of a batch, where at 10 runs the
read-back alone added 20-40 us to each run of vyre's and little to torch's.
"""

from __future__ import annotations

import argparse
import importlib
import math
import sys
import time
from collections.abc import Callable, Sequence
from fractions import Fraction
from pathlib import Path
from typing import Any

import _common  # noqa: F401  # pyright: ignore[reportUnusedImport]  (puts the repository on sys.path)
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "test" / "support"))
import tensor_oracles as O  # noqa: E402

from vyre import tensor as vt  # noqa: E402
from vyre.ir import DataType  # noqa: E402
from vyre.tensor import runner  # noqa: E402


def _torch() -> Any | None:
    try:
        torch: Any = importlib.import_module("torch")
    except ImportError:
        return None
    return torch if torch.cuda.is_available() else None


def _timed(run: Callable[[int], float], reps: int, trials: int, batch_s: float) -> float:
    """Seconds per run: the median of `trials` batches of `run(n)` (n runs, then one
    synchronisation), after batches for at least half a second: pipelines compiled,
    buffers placed, and the GPU's clocks up (an idle H200 sits at 345 MHz; the first
    graph timed cold read 4-5x slow). A batch holds `reps` runs, or more, so that it
    lasts `batch_s` at least: its one synchronisation (vyre's 4-byte read-back takes
    0.2-0.4 ms on the H200, torch's synchronize some 10 us) is then a small share of
    it on both sides."""
    start = time.perf_counter()
    one = run(reps)
    while time.perf_counter() - start < 0.5:
        one = run(reps)
    if batch_s > 0:
        reps = max(reps, math.ceil(batch_s / max(one, 1e-9)))
    return float(np.median([run(reps) for _ in range(trials)]))


def vyre_time(
    graph: vt.Graph, inputs: dict[str, np.ndarray], reps: int, trials: int, batch_s: float = 0.0
) -> tuple[float, dict[str, np.ndarray]]:
    """Seconds per run of `graph`'s schedule on the device, and its results."""
    from vyre.runtime import wgpu_backend
    from vyre.runtime.wgpu_device import Resident, gpu_device

    staged = runner.stage(graph, inputs)
    probe = Resident.allocate(gpu_device(), 1)
    wgpu_backend.run_steps(staged.encoded, clear=staged.clear)

    def run(n: int) -> float:
        submitted = wgpu_backend.run_steps(staged.encoded, repeat=n)
        probe.read()
        return (time.perf_counter() - submitted) / n

    seconds = _timed(run, reps, trials, batch_s)
    return seconds, staged.results()


def kernel_times(graph: vt.Graph, inputs: dict[str, np.ndarray], batch_s: float = 0.0) -> str:
    """ms of each dispatch of `graph` run alone (after one full run), by kernel."""
    from vyre.runtime import wgpu_backend
    from vyre.runtime.wgpu_device import Resident, gpu_device

    staged = runner.stage(graph, inputs)
    probe = Resident.allocate(gpu_device(), 1)
    wgpu_backend.run_steps(staged.encoded, clear=staged.clear)
    parts: list[str] = []
    for step in staged.encoded:
        def run(n: int, steps: list[Any] = [step]) -> float:
            submitted = wgpu_backend.run_steps(steps, repeat=n)
            probe.read()
            return (time.perf_counter() - submitted) / n

        parts.append(f"{step[0].name.split('_matmul_')[-1]} {_timed(run, 3, 3, batch_s) * 1e3:.3f}")  # ms
    return ", ".join(parts)


def torch_time(
    make: Callable[..., Callable[[], object]], arrays: Sequence[np.ndarray], reps: int, trials: int, batch_s: float = 0.0
) -> float | None:
    torch = _torch()
    if torch is None:
        return None
    fn = make(*[torch.from_numpy(np.ascontiguousarray(a)).cuda() for a in arrays])

    def run(n: int) -> float:
        torch.cuda.synchronize()
        start = time.perf_counter()
        for _ in range(n):
            fn()
        torch.cuda.synchronize()
        return (time.perf_counter() - start) / n

    return _timed(run, reps, trials, batch_s)


def _fraction(ours: float, theirs: float | None) -> str:
    return "-" if theirs is None else f"{theirs / ours:.3f}"


# ---------------------------------------------------------------------------
# Oracles fast enough for big inputs
# ---------------------------------------------------------------------------


def exact_sum_f32(x: np.ndarray) -> int:
    """The exact sum of finite F32 values rounded once: significands summed per
    exponent (in float64, exact: at most 2**28 of them below 2**24 a block), then
    combined as Python integers and rounded from the exact rational."""
    bits = x.view(np.uint32).astype(np.int64)
    exponent = (bits >> 23) & 0xFF
    fraction = bits & 0x7F_FFFF
    significand = np.where(exponent > 0, fraction | 0x80_0000, fraction)
    signed = np.where(bits >> 31 == 1, -significand, significand)
    shift = np.maximum(exponent, 1) - 1
    total = 0
    for start in range(0, len(x), 1 << 28):  # a block's sums per exponent stay below 2**52: exact in float64
        block = slice(start, start + (1 << 28))
        sums = np.bincount(shift[block], weights=signed[block].astype(np.float64), minlength=255)
        total += sum(int(value) << k for k, value in enumerate(sums.tolist()) if value)
    negative_zero = len(x) > 0 and bool(np.all(bits == 0x8000_0000))
    return O.round_rational(Fraction(total, 1 << 149), "f32", negative_zero=negative_zero)


def _ordered(x: np.ndarray, order: str) -> int:
    words = [int(v) for v in x.view(np.uint32)]
    return O.sequential_sum(words, "f32") if order == "sequential" else O.tree_sum(words, "f32")


# ---------------------------------------------------------------------------
# Rows
# ---------------------------------------------------------------------------


DATA = {"wide": "N(0,1) x 2^U(-20,20)", "normal": "N(0,1)"}


def sum_rows(args: argparse.Namespace) -> list[list[object]]:
    rng = np.random.default_rng(0)
    rows: list[list[object]] = []
    torch = _torch()
    for order, n, data in (
        ("exact", args.sum_n, "wide"),
        ("exact", args.sum_n, "normal"),
        ("sequential", args.ordered_n, "wide"),
        ("tree", args.ordered_n, "wide"),
    ):
        x = rng.standard_normal(n).astype(np.float32)
        if data == "wide":
            x = (x * 2.0 ** rng.integers(-20, 20, n)).astype(np.float32)
        g = vt.Graph(f"sum_{order}")
        g.output("s", vt.sum(g.input("x", DataType.F32, ("n",)), 0, order))
        seconds, out = vyre_time(g, {"x": x}, args.reps, args.trials, args.batch_ms / 1e3)
        if order == "exact":
            print(f"sum exact {n} {data}, each kernel alone: {kernel_times(g, {'x': x}, args.batch_ms / 1e3)}", flush=True)
        got = int(out["s"][0])
        if order == "exact":
            check = "ok" if got == exact_sum_f32(x) else "MISMATCH"
        elif n <= 1 << 22:
            check = "ok" if got == _ordered(x, order) else "MISMATCH"
        else:
            check = "not checked"
        theirs = torch_time(lambda t: (lambda: t.sum()), [x], args.reps, args.trials, args.batch_ms / 1e3) if torch else None
        gbs = 4 * n / seconds / 1e9
        label = f"sum {order}, {DATA[data]}"
        rows.append([label, n, f"{seconds * 1e3:.3f}", f"{gbs:.3g}", _fraction(seconds, theirs), len(vt.kernels(g)), check])
    cols = 256
    rows_n = max(1, args.sum_n // cols)
    x = rng.standard_normal((rows_n, cols)).astype(np.float32)
    g = vt.Graph("sum_rows")
    g.output("s", vt.sum(g.input("x", DataType.F32, ("r", cols)), 1))
    seconds, out = vyre_time(g, {"x": x}, args.reps, args.trials, args.batch_ms / 1e3)
    sample = rng.integers(0, rows_n, 8)
    ok = all(int(out["s"].view(np.uint32)[k]) == exact_sum_f32(x[k]) for k in sample)
    theirs = torch_time(lambda t: (lambda: t.sum(1)), [x], args.reps, args.trials, args.batch_ms / 1e3) if torch else None
    rows.append([f"sum exact, ({rows_n}, {cols}) axis 1", x.size, f"{seconds * 1e3:.3f}", f"{4 * x.size / seconds / 1e9:.3g}", _fraction(seconds, theirs), len(vt.kernels(g)), "ok" if ok else "MISMATCH"])
    return rows


def _check_matmul(a: np.ndarray, b: np.ndarray, c: np.ndarray, fmt: str, mode: str, rng: np.random.Generator) -> str:
    width = np.uint32 if fmt == "f32" else np.uint16
    ab, bb = a.view(width), b.view(width)
    for _ in range(16):
        i, j = int(rng.integers(0, a.shape[0])), int(rng.integers(0, b.shape[1]))
        row, col = [int(v) for v in ab[i]], [int(v) for v in bb[:, j]]
        if mode == "exact":
            want = O.exact_dot(row, col, fmt)
        else:
            acc = O.fma_f32(row[0], col[0], 0x8000_0000)
            for x, y in zip(row[1:], col[1:]):
                acc = O.fma_f32(x, y, acc)
            want = acc
        if int(c.view(np.uint32)[i, j]) != want:
            return "MISMATCH"
    return "ok (16 sampled)"


def matmul_rows(args: argparse.Namespace) -> list[list[object]]:
    rng = np.random.default_rng(1)
    torch = _torch()
    rows: list[list[object]] = []
    for fmt, mode, n in (("f32", "exact", args.mm_n), ("bf16", "exact", args.mm_n), ("f32", "sequential", args.mm_seq_n)):
        a32 = rng.standard_normal((n, n)).astype(np.float32)
        b32 = rng.standard_normal((n, n)).astype(np.float32)
        if fmt == "bf16":
            a, b = (a32.view(np.uint32) >> 16).astype(np.uint16), (b32.view(np.uint32) >> 16).astype(np.uint16)
            dtype = DataType.BF16
        else:
            a, b, dtype = a32, b32, DataType.F32
        g = vt.Graph(f"mm_{fmt}_{mode}")
        g.output("c", vt.matmul(g.input("a", dtype, (n, n)), g.input("b", dtype, (n, n)), mode))
        seconds, out = vyre_time(g, {"a": a, "b": b}, args.mm_reps, args.trials, args.batch_ms / 1e3)
        if mode == "exact":
            print(f"matmul {mode} {fmt} {n}^3, each kernel alone: {kernel_times(g, {'a': a, 'b': b})}", flush=True)
        check = _check_matmul(a, b, out["c"].view(np.float32).reshape(n, n), fmt, mode, rng)
        theirs = None
        if torch is not None:
            torch.backends.cuda.matmul.allow_tf32 = False
            theirs = torch_time(lambda x, y: (lambda: x @ y), [a32, b32], args.mm_reps, args.trials, args.batch_ms / 1e3)
        tflops = 2 * n**3 / seconds / 1e12
        rows.append([f"matmul {mode} {fmt}", f"{n}^3", f"{seconds * 1e3:.2f}", f"{tflops:.3g}", _fraction(seconds, theirs), len(vt.kernels(g)), check])
    return rows


def elementwise_rows(args: argparse.Namespace) -> list[list[object]]:
    rng = np.random.default_rng(2)
    torch = _torch()
    rows_n, cols = args.ew_rows, args.ew_cols
    x = rng.standard_normal((rows_n, cols)).astype(np.float32)
    bias = rng.standard_normal(cols).astype(np.float32)
    out: list[list[object]] = []

    def contiguous(t: Any, b: Any) -> Callable[[], object]:
        """torch writing the bytes vyre writes: the transposed sum laid out row-major."""
        y = torch.empty((cols, rows_n), dtype=t.dtype, device=t.device)
        return lambda: torch.add(t.T, b[:, None], out=y)

    Peer = tuple[str, Callable[[Any, Any], Callable[[], object]]]
    cases: list[tuple[str, Callable[[vt.Tensor, vt.Tensor], vt.Tensor], list[Peer], np.ndarray]] = [
        ("x + b (b broadcast)", lambda t, b: t + b, [("", lambda t, b: (lambda: t + b))], x + bias),
        (
            "transpose(x) + b[:, None] view chain",
            lambda t, b: vt.transpose(t) + vt.transpose(vt.broadcast_to(b, (1, cols))),
            # torch's own `t.T + b[:, None]` lays its result out like t.T (its output takes the
            # inputs' stride order): it moves no element across rows; `out=` a row-major
            # tensor makes it write what vyre writes
            [("torch's own layout", lambda t, b: (lambda: t.T + b[:, None])), ("torch into a row-major out", contiguous)],
            (x + bias).T,
        ),
    ]
    for name, build, peers, expected in cases:
        g = vt.Graph("ew")
        g.output("y", build(g.input("x", DataType.F32, ("r", cols)), g.input("b", DataType.F32, (cols,))))
        seconds, result = vyre_time(g, {"x": x, "b": bias}, args.reps, args.trials, args.batch_ms / 1e3)
        check = "ok" if np.array_equal(result["y"].view(np.float32).reshape(expected.shape), expected) else "MISMATCH"
        gbs = 8 * x.size / seconds / 1e9
        for peer, make in peers:
            theirs = torch_time(make, [x, bias], args.reps, args.trials, args.batch_ms / 1e3) if torch else None
            label = f"{name}, against {peer}" if peer else name
            out.append([label, f"({rows_n}, {cols})", f"{seconds * 1e3:.3f}", f"{gbs:.3g}", _fraction(seconds, theirs), len(vt.kernels(g)), check])
    return out


def main() -> None:
    gpu = not _common.gpu_is_cpu()
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", default="sum,matmul,elementwise")
    parser.add_argument("--sum-n", type=int, default=1 << 28 if gpu else 1 << 14)
    parser.add_argument("--ordered-n", type=int, default=1 << 20 if gpu else 1 << 10)
    parser.add_argument("--mm-n", type=int, default=4096 if gpu else 32)
    parser.add_argument("--mm-seq-n", type=int, default=1024 if gpu else 16)
    parser.add_argument("--ew-rows", type=int, default=1 << 16 if gpu else 256)
    parser.add_argument("--ew-cols", type=int, default=1024 if gpu else 64)
    parser.add_argument("--reps", type=int, default=10 if gpu else 2)
    parser.add_argument("--mm-reps", type=int, default=1)
    parser.add_argument("--trials", type=int, default=5 if gpu else 2)
    parser.add_argument(
        "--batch-ms", type=float, default=50.0 if gpu else 0.0,
        help="each timed batch runs --reps times or more, to last this long at least (default 50 on a GPU)",
    )
    args = parser.parse_args()
    print(f"# vyre.tensor on {_common.gpu_name()} ({_common.cpu_name()})")
    torch = _torch()
    print(f"torch: {'none (no CUDA torch: torch columns are -)' if torch is None else torch.__version__}\n")
    only = set(args.only.split(","))
    if "sum" in only:
        print(_common.table(["sum", "elements", "ms", "GB/s", "of torch", "kernels", "check"], sum_rows(args)), "\n")
    if "matmul" in only:
        print(_common.table(["matmul", "size", "ms", "TFLOPS", "of torch fp32", "kernels", "check"], matmul_rows(args)), "\n")
    if "elementwise" in only:
        print(_common.table(["elementwise", "shape", "ms", "GB/s", "of torch", "kernels", "check"], elementwise_rows(args)))


if __name__ == "__main__":
    main()
