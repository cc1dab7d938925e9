"""scan.segmented_inclusive_u32 against a per-segment cumsum written here, on the
interpreter and on wgpu: every boundary length, heads at tile and block edges,
no heads / every element a head, wrapping values, large inputs on wgpu, the
block-carry scan over several rounds, the laws, errors and the certificate.

The expected values are computed here with numpy (never the op's reference,
never vyre code)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

import vyre
from vyre import conform, ops
from vyre.kernels.families import scan_segmented as seg
from vyre.kernels.spec import BOUNDARY_LENGTHS

pytestmark = pytest.mark.usefixtures("gpu_adapter")

OP = "scan.segmented_inclusive_u32"
BACKENDS = ("interp", "wgpu")
M32 = 0xFFFF_FFFF


def oracle(x: np.ndarray, flags: np.ndarray) -> np.ndarray:
    """np.split at every head (element 0 always starts a segment), cumsum each."""
    heads = [int(i) for i in np.flatnonzero(flags) if i != 0]
    pieces = np.split(x.astype(np.uint64), heads)
    out = [np.cumsum(piece) % 2**32 for piece in pieces]
    return np.concatenate(out).astype(np.uint32) if len(x) else np.zeros(0, dtype=np.uint32)


def _values(n: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
    random = rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
    return {
        "random": random,
        "all 0xFFFFFFFF": np.full(n, M32, dtype=np.uint32),
        "ones": np.ones(n, dtype=np.uint32),
        "sorted": np.sort(random),
        "reversed": np.sort(random)[::-1].copy(),
    }


def _flags(n: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
    edges = np.zeros(n, dtype=np.uint32)
    for at in (1, 3, 4, 255, 256, 1023, 1024, 4095, 4096):
        if at < n:
            edges[at] = 7
    head0 = np.zeros(n, dtype=np.uint32)
    head0[:1] = 1
    last = np.zeros(n, dtype=np.uint32)
    last[-1:] = M32
    return {
        "none": np.zeros(n, dtype=np.uint32),
        "every": rng.integers(1, 2**32, n, dtype=np.uint64).astype(np.uint32),
        "sparse": (rng.random(n) < 0.05).astype(np.uint32) * rng.integers(1, 99, n).astype(np.uint32),
        "dense": (rng.random(n) < 0.5).astype(np.uint32),
        "tile edges": edges,
        "only 0": head0,
        "only last": last,
    }


@pytest.mark.parametrize("backend", BACKENDS)
def test_matches_per_segment_cumsum(backend: str) -> None:
    for n in BOUNDARY_LENGTHS:
        rng = np.random.default_rng(n)
        values = _values(n, rng)
        flags = _flags(n, rng)
        pairs = [(v, f) for v in values for f in flags]
        if backend == "interp":  # fewer on the (slower) interpreter
            pairs = [("random", f) for f in ("none", "every", "sparse", "tile edges")]
            pairs.append(("all 0xFFFFFFFF", "dense"))
        for vlabel, flabel in pairs:
            x, f = values[vlabel], flags[flabel]
            got = ops.evaluate(OP, [x, f], backend=backend)
            expected = oracle(x, f)
            assert got.dtype == np.uint32 and got.shape == (n,)
            assert got.tobytes() == expected.tobytes(), (
                f"n={n} x {vlabel} flags {flabel}: first bad {np.flatnonzero(got != expected)[:4]}"
            )


@pytest.mark.parametrize("n", [300_001, 2_000_003])
def test_large_inputs_on_wgpu(n: int) -> None:
    # many blocks of 16,384 and heads at and around block edges
    rng = np.random.default_rng(n)
    x = rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
    for label, flags in (
        ("sparse", (rng.random(n) < 1e-4).astype(np.uint32)),
        ("none", np.zeros(n, dtype=np.uint32)),
        ("block edges", (np.arange(n) % seg.BLOCK < 2).astype(np.uint32) * np.uint32(5)),
        ("one per 1000", (np.arange(n) % 1000 == 999).astype(np.uint32)),
    ):
        got = ops.evaluate(OP, [x, flags], backend="wgpu")
        assert got.tobytes() == oracle(x, flags).tobytes(), label


@pytest.mark.parametrize("backend", BACKENDS)
def test_no_heads_equals_the_prefix_sum_op(backend: str) -> None:
    rng = np.random.default_rng(8)
    for n in (0, 1, 1000, 20_000):
        x = rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
        plain = ops.evaluate("scan.prefix_sum_inclusive_u32", [x], backend=backend)
        got = ops.evaluate(OP, [x, np.zeros(n, dtype=np.uint32)], backend=backend)
        assert got.tobytes() == plain.tobytes()


@pytest.mark.parametrize("backend", BACKENDS)
def test_block_carries_over_several_rounds(backend: str) -> None:
    """Step 2 (one workgroup, TILE block pairs per round with a carry) past one
    round, reached by inputs above 16 Mi elements: run here directly."""
    rng = np.random.default_rng(6)
    blocks = 3 * seg.TILE + 17
    sums = rng.integers(0, 2**32, blocks, dtype=np.uint64).astype(np.uint32)
    heads = (rng.random(blocks) < 0.002).astype(np.uint32)
    heads[seg.TILE] = 1  # a head on the first pair of a round
    params = np.array([blocks, -(-blocks // seg.TILE)], dtype=np.uint32)
    out = vyre.run(
        seg.scan_aggregates_program(),
        {"sums": sums, "heads": heads, "params": params},
        dispatch=(1, 1, 1),
        backend=backend,
    )["sums"]
    inclusive = oracle(sums, heads)
    expected = np.concatenate([[0], inclusive[:-1]]).astype(np.uint32)
    assert out.tobytes() == expected.tobytes()


def test_evaluate_many_and_device_buffers() -> None:
    rng = np.random.default_rng(2)
    cases = [(rng.integers(0, 9, n).astype(np.uint32), (rng.random(n) < 0.1).astype(np.uint32)) for n in (0, 7, 5000)]
    for backend in BACKENDS:
        for (x, f), got in zip(cases, ops.evaluate_many(OP, [list(c) for c in cases], backend=backend)):
            assert got.tobytes() == oracle(x, f).tobytes()
    x, f = cases[-1]
    dx, df = vyre.to_device(x), vyre.to_device(f)
    assert ops.evaluate(OP, [dx, df]).tobytes() == oracle(x, f).tobytes()
    np.testing.assert_array_equal(dx.numpy(), x)
    np.testing.assert_array_equal(df.numpy(), f)


@pytest.mark.parametrize(
    ("args", "error", "needle"),
    [
        ([np.arange(3, dtype=np.uint32), np.zeros(2, dtype=np.uint32)], ValueError, r"input `flags` of `scan.segmented_inclusive_u32` must have the length of `x` \(3\), got 2"),
        ([np.arange(3, dtype=np.uint32)], ValueError, "takes 2 input"),
        ([np.arange(3, dtype=np.uint32), np.array([0.0, 1.0, 0.0])], TypeError, "input `flags` of `scan.segmented_inclusive_u32`"),
        ([np.array([-1, 0]), np.zeros(2, dtype=np.uint32)], ValueError, "input `x` of `scan.segmented_inclusive_u32`"),
        ([b"abcd", np.zeros(4, dtype=np.uint32)], TypeError, "input `x` of `scan.segmented_inclusive_u32`"),
    ],
)
def test_bad_arguments_are_clear_errors(args: list[object], error: type, needle: str) -> None:
    with pytest.raises(error, match=needle):
        ops.evaluate(OP, args)


# ---------------------------------------------------------------------------
# Laws: they hold on the op, and they catch a wrong op
# ---------------------------------------------------------------------------

Op = Callable[..., tuple[np.ndarray, ...]]


def _right(x: np.ndarray, f: np.ndarray) -> tuple[np.ndarray, ...]:
    return (oracle(np.asarray(x, dtype=np.uint32), np.asarray(f)),)


def _ignores_heads(x: np.ndarray, f: np.ndarray) -> tuple[np.ndarray, ...]:
    return (np.cumsum(np.asarray(x, dtype=np.uint32), dtype=np.uint32),)


def _head_only_if_one(x: np.ndarray, f: np.ndarray) -> tuple[np.ndarray, ...]:
    return (oracle(np.asarray(x, dtype=np.uint32), (np.asarray(f) == 1).astype(np.uint32)),)


def _starts_at_one(x: np.ndarray, f: np.ndarray) -> tuple[np.ndarray, ...]:
    return ((oracle(np.asarray(x, dtype=np.uint32), np.asarray(f)) + np.uint32(1)).astype(np.uint32),)


def test_laws_hold_and_can_fail() -> None:
    rng = np.random.default_rng(3)
    x = rng.integers(0, 100, 500).astype(np.uint32)
    f = (rng.random(500) < 0.05).astype(np.uint32) * np.uint32(3)
    laws = {law.name: law for law in ops.get(OP).laws}  # type: ignore[union-attr]
    assert set(laws) == {"NoHeadsIsPrefixSum", "RestartsAtHeads", "SegmentSplit", "FlagsAreBooleans"}
    for law in laws.values():
        assert law.check(_right, (x, f)) is None, law.name
    assert laws["RestartsAtHeads"].check(_ignores_heads, (x, f)) is not None
    assert laws["SegmentSplit"].check(_ignores_heads, (x, f)) is not None
    assert laws["FlagsAreBooleans"].check(_head_only_if_one, (x, f)) is not None
    assert laws["NoHeadsIsPrefixSum"].check(_starts_at_one, (x, f)) is not None

    def on_wgpu(*args: object) -> tuple[np.ndarray, ...]:
        return (ops.evaluate(OP, list(args), backend="wgpu"),)

    for law in laws.values():
        assert law.check(on_wgpu, (x, f)) is None, law.name


def test_plan_shape() -> None:
    spec = ops.get(OP)
    plan = spec.plan({"x": 5 * seg.BLOCK + 1, "flags": 5 * seg.BLOCK + 1}, {})  # type: ignore[union-attr]
    assert [s.dispatch for s in plan.steps] == [(6, 1, 1), (1, 1, 1), (6, 1, 1)]
    assert spec.plan({"x": 0, "flags": 0}, {}).steps == ()  # type: ignore[union-attr]
    for step in plan.steps:
        shared = sum(d.count for d in step.program.buffers if d.access.value == "workgroup")
        assert shared * 4 <= 16_384  # WebGPU's default workgroup storage


@pytest.mark.slow  # a certification campaign: make test-all
def test_certificate_on_wgpu() -> None:
    cert = conform.certify(backend="wgpu", ops=[OP], strength="fast", corpus=None, track="kernel")
    assert cert.passed, [str(f) for f in cert.failures]
    assert cert.level == "L2k"
