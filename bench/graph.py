"""graph.bfs (and graph.connected_components) against CPU and GPU peers, same
machine, same run, reported in GTEPS (giga traversed edges per second).

    python bench/graph.py [--nodes 1048576] [--degree 16] [--grid 1024] [--trials 3] [--out FILE]

Graphs (CSR, built here with numpy):
- `random`: `--nodes` nodes, `--degree` x nodes directed edges with uniformly
  random ends (BFS depth about log n; 1 Mi nodes x 16 = 16 Mi edges);
- `grid`: a `--grid` x `--grid` 2-D lattice, edges both ways (depth 2 x grid:
  a road-network-like shape, where every level is a dispatch).

Rows, each the median of `--trials` after a warm-up:
- vyre `graph.bfs` with the CSR already on the device (`vyre.DeviceBuffer`s,
  as a pipeline would hold it) and the depths left there (`on_device=True`):
  the device CSR check, every level's dispatches and the frontier-count
  readbacks, then a 4-byte readback to wait for the end. The levels and
  submissions it took are reported;
- vyre `graph.bfs` from host arrays, depths back on the host (upload, host CSR
  check, readback included);
- scipy `csgraph.breadth_first_order` / `shortest_path(unweighted)` on the
  host's CPU when scipy is installed, else a numpy level-synchronous BFS
  (named as such);
- torch: a level-synchronous BFS on the GPU written with tensor ops (frontier
  -> its edges by `repeat_interleave`, unvisited filter, `unique`), the
  natural way to write BFS in torch, when torch with CUDA is present.
- `graph.connected_components` vs scipy `connected_components(directed=False)`
  (or a numpy label propagation) on the same graphs.

Every result is checked against a plain-Python / numpy BFS (and the peers
against it) while it is measured. GTEPS = edges of the graph / time (every
edge is looked at once per traversal).
"""

from __future__ import annotations

import _common  # noqa: F401  # pyright: ignore[reportUnusedImport]  (puts the checkout on sys.path)

import argparse
import importlib
import json
import time
from collections.abc import Callable
from typing import Any

import numpy as np
from _common import cpu_name, gpu_is_cpu, gpu_name, median, table
from vyre.cli.pipes import quiet_on_closed_pipe

NONE = 0xFFFF_FFFF


# ---------------------------------------------------------------------------
# Graphs and oracles
# ---------------------------------------------------------------------------


def csr(n: int, tails: np.ndarray, heads: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    order = np.argsort(tails, kind="stable")
    offsets = np.concatenate([[0], np.cumsum(np.bincount(tails, minlength=n))]).astype(np.uint32)
    return offsets, heads[order].astype(np.uint32)


def random_graph(n: int, degree: int, seed: int = 1) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    m = n * degree
    return csr(n, rng.integers(0, n, m), rng.integers(0, n, m))


def grid_graph(side: int) -> tuple[np.ndarray, np.ndarray]:
    n = side * side
    v = np.arange(n, dtype=np.int64)
    right = v[(v % side) != side - 1]
    down = v[v < n - side]
    tails = np.concatenate([right, right + 1, down, down + side])
    heads = np.concatenate([right + 1, right, down + side, down])
    return csr(n, tails, heads)


def numpy_bfs(offsets: np.ndarray, targets: np.ndarray, source: int) -> np.ndarray:
    """Level-synchronous BFS in numpy (the oracle, and the CPU peer without scipy)."""
    n = len(offsets) - 1
    depth = np.full(n, NONE, dtype=np.uint32)
    depth[source] = 0
    frontier = np.array([source], dtype=np.int64)
    level = 0
    starts = offsets[:-1].astype(np.int64)
    counts = np.diff(offsets.astype(np.int64))
    while frontier.size:
        reps = counts[frontier]
        firsts = np.repeat(starts[frontier], reps)
        within = np.arange(int(reps.sum()), dtype=np.int64) - np.repeat(np.cumsum(reps) - reps, reps)
        found = targets[firsts + within].astype(np.int64)
        found = np.unique(found[depth[found] == NONE])
        level += 1
        depth[found] = level
        frontier = found
    return depth


def numpy_components(offsets: np.ndarray, targets: np.ndarray) -> np.ndarray:
    n = len(offsets) - 1
    tails = np.repeat(np.arange(n, dtype=np.int64), np.diff(offsets.astype(np.int64)))
    heads = targets.astype(np.int64)
    label = np.arange(n, dtype=np.int64)
    while True:
        low = np.minimum(label[tails], label[heads])
        new = label.copy()
        np.minimum.at(new, tails, low)
        np.minimum.at(new, heads, low)
        new = new[new]
        if np.array_equal(new, label):
            return label.astype(np.uint32)
        label = new


# ---------------------------------------------------------------------------
# Peers
# ---------------------------------------------------------------------------


def scipy_peer(offsets: np.ndarray, targets: np.ndarray) -> tuple[str, Callable[[int], np.ndarray], Callable[[], np.ndarray]] | None:
    try:
        sparse: Any = importlib.import_module("scipy.sparse")
        csgraph: Any = importlib.import_module("scipy.sparse.csgraph")
    except ImportError:
        return None
    n = len(offsets) - 1
    matrix = sparse.csr_matrix(
        (np.ones(len(targets), dtype=np.int8), targets.astype(np.int32), offsets.astype(np.int64)), shape=(n, n)
    )

    def bfs(source: int) -> np.ndarray:
        distances = csgraph.shortest_path(matrix, unweighted=True, directed=True, indices=source)
        return np.where(np.isinf(distances), NONE, distances).astype(np.uint32)

    def components() -> np.ndarray:
        labels: np.ndarray = csgraph.connected_components(matrix, directed=False)[1]
        first = np.full(int(labels.max()) + 1 if len(labels) else 0, n, dtype=np.int64)
        np.minimum.at(first, labels, np.arange(n))
        return first[labels].astype(np.uint32)

    return "scipy.sparse.csgraph (CPU)", bfs, components


def torch_bfs(offsets: np.ndarray, targets: np.ndarray) -> Callable[[int], Callable[[], np.ndarray]] | None:
    try:
        torch: Any = importlib.import_module("torch")
    except ImportError:
        return None
    if not torch.cuda.is_available():
        return None
    row = torch.from_numpy(offsets.astype(np.int64)).cuda()
    col = torch.from_numpy(targets.astype(np.int64)).cuda()
    counts = row[1:] - row[:-1]
    n = len(offsets) - 1

    def make(source: int) -> Callable[[], np.ndarray]:
        def run() -> np.ndarray:
            depth = torch.full((n,), -1, dtype=torch.int64, device="cuda")
            depth[source] = 0
            frontier = torch.tensor([source], device="cuda")
            level = 0
            while frontier.numel():
                reps = counts[frontier]
                firsts = torch.repeat_interleave(row[frontier], reps)
                within = torch.arange(int(reps.sum()), device="cuda") - torch.repeat_interleave(torch.cumsum(reps, 0) - reps, reps)
                found = col[firsts + within]
                found = torch.unique(found[depth[found] < 0])
                level += 1
                depth[found] = level
                frontier = found
            torch.cuda.synchronize()
            out = depth.cpu().numpy()
            return np.where(out < 0, NONE, out).astype(np.uint32)

        return run

    return make


# ---------------------------------------------------------------------------
# Measuring
# ---------------------------------------------------------------------------


def timed(fn: Callable[[], Any], trials: int) -> tuple[float, Any]:
    result = fn()  # warm-up (pipelines, caches)
    samples: list[float] = []
    for _ in range(trials):
        start = time.perf_counter()
        result = fn()
        samples.append(time.perf_counter() - start)
    return median(samples), result


def measure(label: str, offsets: np.ndarray, targets: np.ndarray, trials: int, record: dict[str, Any]) -> list[list[str]]:
    import vyre
    from vyre import ops
    from vyre.runtime import wgpu_backend, wgpu_device

    n, m = len(offsets) - 1, len(targets)
    source = 0
    expected = numpy_bfs(offsets, targets, source)
    levels = int(expected[expected != NONE].max()) + 1
    rows: list[list[str]] = []
    entry: dict[str, Any] = {"nodes": n, "edges": m, "levels": levels}

    def row(what: str, seconds: float, note: str = "") -> None:
        rows.append([label, f"{n:,}", f"{m:,}", str(levels), what, f"{seconds * 1e3:,.2f}", f"{m / seconds / 1e9:.3f}", note])
        entry[what] = seconds

    device_offsets, device_targets = vyre.to_device(offsets), vyre.to_device(targets)
    probe = wgpu_device.Resident.allocate(wgpu_device.gpu_device(), 1)
    submissions: list[int] = []
    original = wgpu_backend.run_steps

    def counting(steps: Any, **kwargs: Any) -> float:
        submissions.append(len(steps))
        return original(steps, **kwargs)

    def on_device() -> Any:
        depth = ops.evaluate("graph.bfs", [device_offsets, device_targets, source], on_device=True)
        probe.read()
        return depth

    seconds, depth = timed(on_device, trials)
    assert np.array_equal(depth.numpy(), expected), f"{label}: vyre graph.bfs (device) differs from the numpy BFS"
    wgpu_backend.run_steps = counting
    try:
        on_device()
    finally:
        wgpu_backend.run_steps = original
    row("vyre graph.bfs, CSR on device", seconds, f"{len(submissions)} submissions, {sum(submissions)} dispatches")
    seconds, host_depth = timed(lambda: ops.evaluate("graph.bfs", [offsets, targets, source]), trials)
    assert np.array_equal(host_depth, expected), f"{label}: vyre graph.bfs (host) differs"
    row("vyre graph.bfs, host arrays in and out", seconds, "upload, CSR check, readback included")

    peer = scipy_peer(offsets, targets)
    if peer is not None:
        name, bfs, _ = peer
        seconds, got = timed(lambda: bfs(source), trials)
        assert np.array_equal(got, expected), f"{label}: scipy differs from the numpy BFS"
        row(name, seconds, cpu_name())
    else:
        seconds, _ = timed(lambda: numpy_bfs(offsets, targets, source), trials)
        row("numpy level-synchronous BFS (CPU; scipy not installed)", seconds, cpu_name())
    make = torch_bfs(offsets, targets)
    if make is not None:
        seconds, got = timed(make(source), trials)
        assert np.array_equal(got, expected), f"{label}: torch BFS differs"
        row("torch level-synchronous BFS (GPU tensor ops)", seconds, "repeat_interleave + unique per level")

    expected_labels = numpy_components(offsets, targets)
    seconds, labels = timed(
        lambda: ops.evaluate("graph.connected_components", [device_offsets, device_targets], on_device=True).numpy(),
        trials,
    )
    assert np.array_equal(labels, expected_labels), f"{label}: vyre connected_components differs"
    row("vyre graph.connected_components, CSR on device", seconds, "labels read back")
    if peer is not None:
        seconds, got = timed(peer[2], trials)
        assert np.array_equal(got, expected_labels), f"{label}: scipy components differ"
        row("scipy connected_components(directed=False)", seconds, cpu_name())
    record[label] = entry
    return rows


@quiet_on_closed_pipe
def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--nodes", type=int, default=None, help="nodes of the random graph (default 1 Mi; lavapipe 16 Ki)")
    parser.add_argument("--degree", type=int, default=16, help="edges per node of the random graph")
    parser.add_argument("--grid", type=int, default=None, help="side of the lattice (default 1024; lavapipe 64)")
    parser.add_argument("--trials", type=int, default=3)
    parser.add_argument("--out", default=None, help="write the measurements as JSON here")
    args = parser.parse_args()
    small = gpu_is_cpu()
    nodes = args.nodes or (1 << 14 if small else 1 << 20)
    side = args.grid or (64 if small else 1024)
    record: dict[str, Any] = {"device": gpu_name(), "cpu": cpu_name()}
    rows = measure("random", *random_graph(nodes, args.degree), args.trials, record)
    rows += measure("grid", *grid_graph(side), args.trials, record)
    print(f"graph.bfs on {gpu_name()} (CPU peers on {cpu_name()})\n")
    print(table(["graph", "nodes", "edges", "levels", "implementation", "ms", "GTEPS", "notes"], rows))
    if args.out:
        with open(args.out, "w") as handle:
            json.dump(record, handle, indent=2)


if __name__ == "__main__":
    main()
