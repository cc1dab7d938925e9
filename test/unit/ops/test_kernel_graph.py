"""graph.* kernel ops (CSR graphs) against plain-Python oracles written here
(a deque BFS, a union-find; scipy.sparse.csgraph and networkx where installed),
on the interpreter and on wgpu: boundaries (empty graph, one node, self loops,
repeated edges, hubs past the small-degree threshold), long paths (depth far
beyond the workgroup size), invalid CSR, device chaining, batches; the kernel
track certificate."""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from typing import Any, cast

import numpy as np
import pytest

import vyre
from vyre import conform, ops
from vyre.kernels.families.graph import GRAPH_BOUNDARIES, SMALL_DEGREE
from vyre.kernels.samplers import csr_graph

pytestmark = pytest.mark.usefixtures("gpu_adapter")

NONE = 0xFFFF_FFFF
BACKENDS = ("interp", "wgpu")
GRAPH_OPS = ("graph.csr_out_degree", "graph.csr_in_degree", "graph.bfs", "graph.connected_components")


# ---------------------------------------------------------------------------
# Oracles (plain Python, sharing nothing with vyre)
# ---------------------------------------------------------------------------


def _adjacency(offsets: Sequence[int], targets: Sequence[int]) -> list[list[int]]:
    return [list(targets[offsets[u] : offsets[u + 1]]) for u in range(len(offsets) - 1)]


def bfs_oracle(offsets: Sequence[int], targets: Sequence[int], source: int) -> tuple[list[int], list[int]]:
    adjacency = _adjacency(offsets, targets)
    n = len(adjacency)
    depth = [NONE] * n
    if not n:
        return [], []
    depth[source] = 0
    queue = deque([source])
    while queue:
        u = queue.popleft()
        for v in adjacency[u]:
            if depth[v] == NONE:
                depth[v] = depth[u] + 1
                queue.append(v)
    parent = [NONE] * n
    parent[source] = source
    for u in range(n):  # ascending u: the first parent found is the smallest
        for v in adjacency[u]:
            if depth[u] != NONE and depth[v] == depth[u] + 1 and parent[v] == NONE:
                parent[v] = u
    return depth, parent


def components_oracle(offsets: Sequence[int], targets: Sequence[int]) -> list[int]:
    n = len(offsets) - 1
    root = list(range(n))

    def find(x: int) -> int:
        while root[x] != x:
            root[x] = root[root[x]]
            x = root[x]
        return x

    for u, row in enumerate(_adjacency(offsets, targets)):
        for v in row:
            a, b = find(u), find(v)
            if a != b:
                root[max(a, b)] = min(a, b)
    return [find(v) for v in range(n)]


def _csr(n: int, edges: Sequence[tuple[int, int]]) -> tuple[np.ndarray, np.ndarray]:
    rows: list[list[int]] = [[] for _ in range(n)]
    for u, v in edges:
        rows[u].append(v)
    offsets = [0]
    for row in rows:
        offsets.append(offsets[-1] + len(row))
    return np.array(offsets, dtype=np.uint32), np.array([v for row in rows for v in row], dtype=np.uint32)


def _path(n: int, reverse_ids: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """A directed path through every node (ids descending along it when
    `reverse_ids`), so BFS from its start needs n - 1 levels."""
    order = list(range(n))[::-1] if reverse_ids else list(range(n))
    return _csr(n, list(zip(order, order[1:])))


SPECIAL: dict[str, tuple[tuple[np.ndarray, np.ndarray], int]] = {
    "empty graph": (_csr(0, []), 0),
    "one node": (_csr(1, []), 0),
    "one node, self loop": (_csr(1, [(0, 0)]), 0),
    "self loops and repeated edges": (_csr(4, [(0, 0), (0, 1), (0, 1), (1, 2), (1, 2), (2, 2), (3, 0)]), 0),
    "two parents at one level": (_csr(5, [(0, 3), (0, 2), (3, 4), (2, 4), (0, 1), (1, 4)]), 0),
    "unreachable part": (_csr(6, [(0, 1), (2, 3), (3, 2), (4, 5)]), 2),
    "hub past the small degree": (_csr(200, [(7, v) for v in range(200)] + [(v, 7) for v in range(0, 200, 3)]), 9),
    "hubs of exactly the threshold": (
        _csr(100, [(0, v) for v in range(1, SMALL_DEGREE + 1)] + [(1, v) for v in range(2, SMALL_DEGREE + 3)]),
        0,
    ),
    "source is the last node": (_csr(300, [(299, 0)] + [(v, v + 1) for v in range(0, 298, 2)]), 299),
}


def _cases(seed: int) -> list[tuple[str, np.ndarray, np.ndarray, int]]:
    rng = np.random.default_rng(seed)
    cases = [(label, o, t, s) for label, ((o, t), s) in SPECIAL.items()]
    for pattern in ("random", "ones", "ascending", "descending", "few", "wrap"):
        for n in (2, 33, 257, 700):
            offsets, targets = csr_graph(rng, n, pattern)
            cases.append((f"{pattern} n={n}", offsets, targets, int(rng.integers(0, n))))
    return cases


# ---------------------------------------------------------------------------
# Each op against its oracle, many graphs per submission
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("backend", BACKENDS)
def test_bfs_matches_a_deque_bfs(backend: str) -> None:
    cases = _cases(1)
    results = ops.evaluate_many("graph.bfs", [[o, t, s] for _, o, t, s in cases], backend=backend)
    raws = [ops.evaluate_raw("graph.bfs", [o, t, s], backend=backend) for _, o, t, s in cases[:12]]
    for (label, offsets, targets, source), depth in zip(cases, results):
        expected_depth, _ = bfs_oracle(offsets.tolist(), targets.tolist(), source)
        assert depth.dtype == np.uint32 and depth.tolist() == expected_depth, label
    for (label, offsets, targets, source), raw in zip(cases, raws):
        expected_depth, expected_parent = bfs_oracle(offsets.tolist(), targets.tolist(), source)
        assert raw["depth"].tolist() == expected_depth, label
        assert raw["parent"].tolist() == expected_parent, label


@pytest.mark.parametrize("backend", BACKENDS)
def test_connected_components_match_a_union_find(backend: str) -> None:
    cases = _cases(2)
    results = ops.evaluate_many("graph.connected_components", [[o, t] for _, o, t, _ in cases], backend=backend)
    for (label, offsets, targets, _), labels in zip(cases, results):
        assert labels.tolist() == components_oracle(offsets.tolist(), targets.tolist()), label


@pytest.mark.parametrize("backend", BACKENDS)
def test_degrees_match_numpy(backend: str) -> None:
    cases = _cases(3)
    outs = ops.evaluate_many("graph.csr_out_degree", [[o] for _, o, _, _ in cases], backend=backend)
    ins = ops.evaluate_many(
        "graph.csr_in_degree", [[t, len(o) - 1] for _, o, t, _ in cases], backend=backend
    )
    for (label, offsets, targets, _), out, into in zip(cases, outs, ins):
        n = len(offsets) - 1
        assert out.tolist() == [int(offsets[v + 1]) - int(offsets[v]) for v in range(n)], label
        assert into.tolist() == [int((targets == v).sum()) for v in range(n)], label
    # more nodes than a workgroup privatises (the global-atomic histogram)
    targets = np.random.default_rng(4).integers(0, 9000, 20_000).astype(np.uint32)
    assert ops.evaluate("graph.csr_in_degree", [targets, 9000], backend=backend).tolist() == np.bincount(
        targets, minlength=9000
    ).tolist()


def test_long_paths_need_many_levels() -> None:
    """Depth far beyond the workgroup size: one BFS level (and up to one
    components round) per node along the path; wgpu batches the rounds."""
    for backend, n in (("interp", 300), ("wgpu", 1200)):
        for reverse_ids in (False, True):
            offsets, targets = _path(n, reverse_ids)
            source = n - 1 if reverse_ids else 0
            depth = ops.evaluate("graph.bfs", [offsets, targets, source], backend=backend)
            assert depth.tolist() == list(range(n))[:: -1 if reverse_ids else 1], (backend, reverse_ids)
            middle = ops.evaluate("graph.bfs", [offsets, targets, n // 2], backend=backend)
            assert int((middle != NONE).sum()) == (n // 2 + 1 if reverse_ids else n - n // 2)
            labels = ops.evaluate("graph.connected_components", [offsets, targets], backend=backend)
            assert labels.tolist() == [0] * n


def test_against_scipy_and_networkx_where_installed() -> None:
    sparse = pytest.importorskip("scipy.sparse")
    csgraph = pytest.importorskip("scipy.sparse.csgraph")
    rng = np.random.default_rng(8)
    offsets, targets = csr_graph(rng, 3000, "random")
    n = len(offsets) - 1
    matrix = sparse.csr_matrix((np.ones(len(targets)), targets, offsets), shape=(n, n))
    distances = csgraph.shortest_path(matrix, unweighted=True, indices=5)
    expected = np.where(np.isinf(distances), NONE, distances).astype(np.uint32)
    assert ops.evaluate("graph.bfs", [offsets, targets, 5]).tolist() == expected.tolist()
    _, found = csgraph.connected_components(matrix, directed=False)
    labels: list[int] = [int(c) for c in found]
    first = {c: v for v, c in reversed(list(enumerate(labels)))}
    assert ops.evaluate("graph.connected_components", [offsets, targets]).tolist() == [first[c] for c in labels]


# ---------------------------------------------------------------------------
# Arguments
# ---------------------------------------------------------------------------

GOOD = np.array([0, 1, 2], dtype=np.uint32), np.array([1, 0], dtype=np.uint32)


@pytest.mark.parametrize(
    ("op_id", "args", "needle"),
    [
        ("graph.bfs", [GOOD[0], GOOD[1], 2], r"input `source` of `graph.bfs` must be a node \(< n = 2\), got 2"),
        ("graph.bfs", [np.zeros(0, np.uint32), GOOD[1][:0], 0], r"input `offsets` of `graph.bfs` must hold n \+ 1 >= 1"),
        ("graph.bfs", [np.array([1, 2], np.uint32), GOOD[1], 0], r"offsets\[0\] must be 0"),
        ("graph.bfs", [np.array([0, 2, 1], np.uint32), GOOD[1], 0], r"non-decreasing: offsets\[2\] = 1 < offsets\[1\] = 2"),
        ("graph.bfs", [np.array([0, 1, 1], np.uint32), GOOD[1], 0], r"offsets\[n\] = 1 must equal the number of targets \(2\)"),
        ("graph.bfs", [GOOD[0], np.array([1, 2], np.uint32), 0], r"input `targets` of `graph.bfs`: targets\[1\] = 2 is not a node"),
        ("graph.connected_components", [GOOD[0], np.array([5, 0], np.uint32)], r"`targets` of `graph.connected_components`: targets\[0\] = 5"),
        ("graph.csr_out_degree", [np.array([0, 3, 2], np.uint32)], r"`offsets` of `graph.csr_out_degree` must be non-decreasing"),
        ("graph.csr_in_degree", [np.array([0, 3], np.uint32), 3], r"`targets` of `graph.csr_in_degree`: targets\[1\] = 3 is not a node \(n = 3\)"),
        ("graph.csr_in_degree", [np.array([0], np.uint32), 1 << 29], r"input `n` of `graph.csr_in_degree` must be at most"),
        ("graph.bfs", [GOOD[0], GOOD[1], -1], r"input `source` of `graph.bfs` \(u32\) must be in"),
    ],
)
def test_invalid_graphs_are_value_errors_naming_the_input(op_id: str, args: list[Any], needle: str) -> None:
    for backend in BACKENDS:
        with pytest.raises(ValueError, match=needle):
            ops.evaluate(op_id, args, backend=backend)


@pytest.mark.parametrize(
    ("op_id", "args", "needle"),
    [
        ("graph.bfs", [np.array([1, 2], np.uint32), GOOD[1], 0], r"`offsets` of `graph.bfs`: offsets\[0\] must be 0"),
        ("graph.bfs", [np.array([0, 2, 1], np.uint32), GOOD[1], 0], r"non-decreasing: offsets\[2\] < offsets\[1\]"),
        ("graph.bfs", [np.array([0, 1, 1], np.uint32), GOOD[1], 0], r"offsets\[n\] = 1 must equal the number of targets \(2\)"),
        ("graph.connected_components", [GOOD[0], np.array([1, 2], np.uint32)], r"`targets` of `graph.connected_components`: targets\[1\] is not a node \(n = 2\)"),
        ("graph.csr_out_degree", [np.array([0, 3, 2, 5], np.uint32)], r"`offsets` of `graph.csr_out_degree` must be non-decreasing: offsets\[2\] < offsets\[1\]"),
        ("graph.csr_in_degree", [np.array([0, 9, 3, 9], np.uint32), 3], r"`targets` of `graph.csr_in_degree`: targets\[1\] is not a node \(n = 3\)"),
        ("graph.bfs", [GOOD[0], GOOD[1], 2], r"input `source` of `graph.bfs` must be a node \(< n = 2\), got 2"),
        ("graph.bfs", [np.zeros(0, np.uint32), GOOD[1][:0], 0], r"input `offsets` of `graph.bfs` must hold n \+ 1 >= 1"),
    ],
)
def test_invalid_device_graphs_are_found_on_the_device(op_id: str, args: list[Any], needle: str) -> None:
    device: list[Any] = [vyre.to_device(cast(np.ndarray, a)) if isinstance(a, np.ndarray) else a for a in args]
    for backend in BACKENDS:
        with pytest.raises(ValueError, match=needle):
            ops.evaluate(op_id, device, backend=backend)


def test_device_inputs_are_checked_without_reading_them_back(monkeypatch: pytest.MonkeyPatch) -> None:
    from vyre.runtime import wgpu_device

    reads: list[list[int]] = []
    original = wgpu_device.GpuDevice.read_many

    def counting(self: Any, residents: Any) -> Any:
        reads.append([r.words for r in residents])
        return original(self, residents)

    monkeypatch.setattr(wgpu_device.GpuDevice, "read_many", counting)
    offsets, targets = csr_graph(np.random.default_rng(12), 3000, "random")
    degrees = ops.evaluate("graph.csr_out_degree", [vyre.to_device(offsets)], on_device=True)
    assert reads == [[3]]  # the status words of the check, nothing else
    np.testing.assert_array_equal(degrees.numpy(), np.diff(offsets.astype(np.int64)))
    reads.clear()
    ops.evaluate("graph.bfs", [vyre.to_device(offsets), vyre.to_device(targets), 0], on_device=True)
    assert reads[0] == [3] and all(words == [1] for words in reads[1:])  # then the frontier counts only


def test_the_empty_graph_takes_any_source() -> None:
    offsets, targets = _csr(0, [])
    for backend in BACKENDS:
        raw = ops.evaluate_raw("graph.bfs", [offsets, targets, 12345], backend=backend)
        assert raw["depth"].tolist() == [] and raw["parent"].tolist() == []
        assert ops.evaluate("graph.connected_components", [offsets, targets], backend=backend).tolist() == []


# ---------------------------------------------------------------------------
# Device chaining, batches, certificates
# ---------------------------------------------------------------------------


def test_degrees_chain_on_the_device_into_a_scan() -> None:
    """in-degree -> exclusive scan (the row pointers of the reversed graph) and
    BFS from device inputs, with no host round trip in between."""
    offsets, targets = csr_graph(np.random.default_rng(6), 2000, "random")
    n = len(offsets) - 1
    into = ops.evaluate("graph.csr_in_degree", [vyre.to_device(targets), n], on_device=True)
    reversed_rows = ops.evaluate("scan.prefix_sum_exclusive_u32", [into], on_device=True)
    counts = np.bincount(targets, minlength=n)
    np.testing.assert_array_equal(reversed_rows.numpy(), np.cumsum(counts) - counts)
    depth = ops.evaluate("graph.bfs", [vyre.to_device(offsets), vyre.to_device(targets), 0], on_device=True)
    assert isinstance(depth, vyre.DeviceBuffer) and len(depth) == n
    assert depth.numpy().tolist() == bfs_oracle(offsets.tolist(), targets.tolist(), 0)[0]


def test_out_degree_batches_many_graphs_in_one_dispatch(monkeypatch: pytest.MonkeyPatch) -> None:
    from vyre.runtime import wgpu_backend

    dispatches: list[int] = []
    original = wgpu_backend.run_steps

    def counting(steps: Any, **kwargs: Any) -> float:
        dispatches.append(len(steps))
        return original(steps, **kwargs)

    monkeypatch.setattr(wgpu_backend, "run_steps", counting)
    rng = np.random.default_rng(9)
    graphs = [csr_graph(rng, int(n), "random")[0] for n in rng.integers(0, 40, 300)]
    graphs[:3] = [np.array([0], np.uint32), np.array([0, 0], np.uint32), np.array([0], np.uint32)]
    for backend in BACKENDS:
        got = ops.evaluate_many("graph.csr_out_degree", [[g] for g in graphs], backend=backend)
        for g, out in zip(graphs, got):
            assert out.tolist() == np.diff(g.astype(np.int64)).tolist()
    assert dispatches == [1]  # 300 graphs on wgpu: one dispatch


def test_specs_and_boundaries() -> None:
    for op_id in GRAPH_OPS:
        spec = ops.get(op_id)
        assert isinstance(spec, ops.KernelSpec) and spec.boundaries == GRAPH_BOUNDARIES
        assert spec.sample is not None and spec.laws
    assert str(ops.get("graph.bfs").signature) == "(u32[], u32[], u32) -> (u32[], u32[])"
    assert ops.get("graph.bfs").kind == "iterative"  # type: ignore[union-attr]


@pytest.mark.slow  # a certification campaign: make test-all
def test_certificate_on_wgpu() -> None:
    """L2k on lavapipe: reference, parity with the interpreter, determinism and
    every law on both targets (the interpreter's certificate is in
    test/unit/conform/test_kernel_track.py, which certifies every kernel op)."""
    cert = conform.certify(backend="wgpu", ops=list(GRAPH_OPS), strength="fast", corpus=None, track="kernel")
    assert cert.passed, [str(f) for f in cert.failures]
    assert cert.level == "L2k"
    assert all(o["level"] == "L2k" for o in cert.data["ops"])
