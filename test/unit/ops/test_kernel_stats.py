"""stats.byte_histogram and stats.histogram_u32 against numpy on the interpreter
and on wgpu: every boundary length, adversarial data (all bytes equal: the most
contention; all 0xFF; sorted; reversed; values past nbins), both sides of every
privatisation capacity and the global-atomic path, large inputs on wgpu, the
laws, errors and the certificate.

The expected values are computed here with numpy (never the op's reference,
never vyre code)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

import vyre
from vyre import conform, ops
from vyre.ir import BufferAccess
from vyre.kernels.families import stats
from vyre.kernels.spec import BOUNDARY_LENGTHS, KernelSpec

pytestmark = pytest.mark.usefixtures("gpu_adapter")

BACKENDS = ("interp", "wgpu")
M32 = 0xFFFF_FFFF


def byte_oracle(data: np.ndarray) -> np.ndarray:
    counts = [0] * 256
    for byte in data.tobytes():
        counts[byte] += 1
    return np.array(counts, dtype=np.uint32)


def u32_oracle(values: np.ndarray, nbins: int) -> np.ndarray:
    kept = values[values < nbins].astype(np.int64)
    return np.bincount(kept, minlength=nbins).astype(np.uint32)


def _bytes(n: int, seed: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    random = rng.integers(0, 256, n, dtype=np.uint8)
    return {
        "random": random,
        "all equal": np.full(n, 0x41, dtype=np.uint8),
        "all zero": np.zeros(n, dtype=np.uint8),
        "all 0xFF": np.full(n, 0xFF, dtype=np.uint8),
        "sorted": np.sort(random),
        "reversed": np.sort(random)[::-1].copy(),
        "text": rng.integers(0x20, 0x7F, n, dtype=np.uint8),
    }


@pytest.mark.parametrize("backend", BACKENDS)
def test_byte_histogram_matches_numpy(backend: str) -> None:
    for n in BOUNDARY_LENGTHS:
        for label, data in _bytes(n, n).items():
            got = ops.evaluate("stats.byte_histogram", [data], backend=backend)
            expected = byte_oracle(data)
            assert got.dtype == np.uint32 and got.shape == (256,)
            assert got.tobytes() == expected.tobytes(), f"n={n} {label}: {np.flatnonzero(got != expected)[:8]}"


def test_byte_histogram_accepts_bytes_objects() -> None:
    text = b"the quick brown fox jumps over the lazy dog" * 3
    got = ops.evaluate("stats.byte_histogram", [text])
    assert int(got[ord("o")]) == 12 and int(got[ord(" ")]) == 24 and int(got.sum()) == len(text)
    assert ops.evaluate("stats.byte_histogram", [b""]).tolist() == [0] * 256


@pytest.mark.parametrize("n", [300_001, 4_000_003])
def test_byte_histogram_large_on_wgpu(n: int) -> None:
    # past MAX_GROUPS x 256 invocations x 4 bytes (several grid-stride rounds per
    # invocation); all-equal bytes are the most contended counter
    rng = np.random.default_rng(n)
    for label, data in (
        ("random", rng.integers(0, 256, n, dtype=np.uint8)),
        ("all equal", np.full(n, 0x7F, dtype=np.uint8)),
        ("two values", np.where(rng.random(n) < 0.5, 0, 255).astype(np.uint8)),
    ):
        got = ops.evaluate("stats.byte_histogram", [data], backend="wgpu")
        expected = np.bincount(data, minlength=256).astype(np.uint32)
        assert got.tobytes() == expected.tobytes(), label


@pytest.mark.parametrize("backend", BACKENDS)
def test_byte_histogram_whole_chunks_and_the_tail(backend: str) -> None:
    """The counting walks whole chunks of 16 bytes (vec4 loads, no per-byte
    test) and workgroup 0 counts the fewer than 16 bytes after them: every
    length 0..40 puts the end at each position of a chunk."""
    rng = np.random.default_rng(40)
    cases = [rng.integers(0, 256, n, dtype=np.uint8) for n in range(41)]
    for data, got in zip(cases, ops.evaluate_many("stats.byte_histogram", [[c] for c in cases], backend=backend)):
        assert got.tobytes() == np.bincount(data, minlength=256).astype(np.uint32).tobytes(), len(data)


def test_byte_histogram_over_two_rounds_of_chunks_on_wgpu() -> None:
    """More whole chunks than two rounds of the grid (2,048 workgroups x 256
    invocations x 2 chunks of 16 bytes = 16 MiB), plus a tail."""
    n = 2 * 16 * 2048 * 256 + 16 * 3 + 5
    data = np.random.default_rng(41).integers(0, 256, n, dtype=np.uint8)
    got = ops.evaluate("stats.byte_histogram", [data], backend="wgpu")
    assert got.tobytes() == np.bincount(data, minlength=256).astype(np.uint32).tobytes()


NBINS = (1, 2, 3, 17, 255, 256, 257, 1000, 1024, 1025, 4095, 4096, 4097, 70_000)
"""Both sides of every capacity class (256 .. 4096) and the global path."""


def _values(n: int, nbins: int, seed: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    mostly = np.where(
        rng.random(n) < 0.85, rng.integers(0, nbins, n), rng.integers(0, 2**32, n, dtype=np.int64)
    ).astype(np.uint32)
    return {
        "mostly in range": mostly,
        "all equal": np.full(n, nbins - 1, dtype=np.uint32),
        "all 0xFFFFFFFF": np.full(n, M32, dtype=np.uint32),
        "at nbins": np.full(n, nbins, dtype=np.uint32),
        "sorted": np.sort(mostly),
        "reversed": np.sort(mostly)[::-1].copy(),
    }


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("nbins", NBINS)
def test_histogram_u32_matches_numpy(backend: str, nbins: int) -> None:
    lengths = BOUNDARY_LENGTHS if backend == "wgpu" or nbins in (1, 256, 4097) else (0, 1, 5, 257, 4097)
    for n in lengths:
        for label, values in _values(n, nbins, n + nbins).items():
            got = ops.evaluate("stats.histogram_u32", [values, nbins], backend=backend)
            expected = u32_oracle(values, nbins)
            assert got.dtype == np.uint32 and got.shape == (nbins,)
            assert got.tobytes() == expected.tobytes(), f"nbins={nbins} n={n} {label}"


@pytest.mark.parametrize("nbins", [256, 4096, 100_000])
def test_histogram_u32_large_on_wgpu(nbins: int) -> None:
    n = 1_000_003
    rng = np.random.default_rng(nbins)
    for label, values in (
        ("mostly in range", _values(n, nbins, 1)["mostly in range"]),
        ("all equal", np.full(n, nbins // 2, dtype=np.uint32)),
        ("ascending", np.arange(n, dtype=np.uint32)),
        ("random words", rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)),
    ):
        got = ops.evaluate("stats.histogram_u32", [values, nbins], backend="wgpu")
        assert got.tobytes() == u32_oracle(values, nbins).tobytes(), label


def test_histogram_u32_largest_nbins() -> None:
    values = np.array([0, stats.MAX_BINS - 1, stats.MAX_BINS - 1, stats.MAX_BINS, M32], dtype=np.uint32)
    got = ops.evaluate("stats.histogram_u32", [values, stats.MAX_BINS], backend="wgpu")
    assert got.shape == (stats.MAX_BINS,)
    assert int(got[0]) == 1 and int(got[-1]) == 2 and int(got.sum()) == 3


def test_histograms_agree_with_each_other() -> None:
    data = np.random.default_rng(9).integers(0, 256, 10_007, dtype=np.uint8)
    by_bytes = ops.evaluate("stats.byte_histogram", [data])
    by_values = ops.evaluate("stats.histogram_u32", [data.astype(np.uint32), 256])
    assert by_bytes.tobytes() == by_values.tobytes()


def test_evaluate_many_and_device_buffers() -> None:
    rng = np.random.default_rng(4)
    inputs = [rng.integers(0, 256, n, dtype=np.uint8) for n in (0, 3, 4096, 70_001)]
    for backend in BACKENDS:
        results = ops.evaluate_many("stats.byte_histogram", [[d] for d in inputs], backend=backend)
        for data, got in zip(inputs, results):
            assert got.tolist() == np.bincount(data, minlength=256).tolist()
    values = rng.integers(0, 600, 50_000).astype(np.uint32)
    device = vyre.to_device(values)
    assert ops.evaluate("stats.histogram_u32", [device, 500]).tobytes() == u32_oracle(values, 500).tobytes()
    np.testing.assert_array_equal(device.numpy(), values)


@pytest.mark.parametrize(
    ("op_id", "args", "error", "needle"),
    [
        ("stats.histogram_u32", [np.arange(3, dtype=np.uint32), 0], ValueError, r"input `nbins` of `stats.histogram_u32` must be in \[1, 16777216\], got 0"),
        ("stats.histogram_u32", [np.arange(3, dtype=np.uint32), stats.MAX_BINS + 1], ValueError, "input `nbins` of `stats.histogram_u32`"),
        ("stats.histogram_u32", [np.arange(3, dtype=np.uint32), -1], ValueError, "input `nbins` of `stats.histogram_u32`"),
        ("stats.histogram_u32", [np.arange(3, dtype=np.uint32), 1.5], TypeError, "input `nbins` of `stats.histogram_u32`"),
        ("stats.histogram_u32", [np.arange(3, dtype=np.uint32)], ValueError, "takes 2 input"),
        ("stats.histogram_u32", [np.array([1.0]), 4], TypeError, "input `values` of `stats.histogram_u32`"),
        ("stats.byte_histogram", [[1, 2, 3]], TypeError, "input `data` of `stats.byte_histogram`"),
        ("stats.byte_histogram", [np.zeros(3, dtype=np.uint32)], TypeError, "input `data` of `stats.byte_histogram`"),
    ],
)
def test_bad_arguments_are_clear_errors(op_id: str, args: list[object], error: type, needle: str) -> None:
    with pytest.raises(error, match=needle):
        ops.evaluate(op_id, args)


def test_plans_privatise_up_to_4096_bins_then_use_global_atomics() -> None:
    spec = ops.get("stats.histogram_u32")
    assert isinstance(spec, KernelSpec)
    for nbins, capacity, copies in ((1, 256, 4), (256, 256, 4), (257, 512, 4), (1024, 1024, 4), (1025, 2048, 2), (4096, 4096, 1)):
        plan = spec.plan({"values": 10_000}, {"nbins": nbins})
        (step,) = plan.steps
        (shared,) = [d for d in step.program.buffers if d.access is BufferAccess.WORKGROUP]
        assert shared.count == capacity * copies <= 4096, nbins
        assert plan.buffer("out").count == nbins
    (step,) = spec.plan({"values": 10_000}, {"nbins": 4097}).steps
    assert not [d for d in step.program.buffers if d.access is BufferAccess.WORKGROUP]
    assert spec.plan({"values": 0}, {"nbins": 9}).steps == ()
    byte_spec = ops.get("stats.byte_histogram")
    assert isinstance(byte_spec, KernelSpec)
    assert byte_spec.plan({"data": 0}, {}).steps == ()
    (step,) = byte_spec.plan({"data": 5}, {}).steps
    assert step.dispatch == (1, 1, 1)


# ---------------------------------------------------------------------------
# Laws: they hold on the op, and they catch a wrong op
# ---------------------------------------------------------------------------

Op = Callable[..., tuple[np.ndarray, ...]]


def _numpy_op(*args: object) -> tuple[np.ndarray, ...]:
    if len(args) == 1:
        return (np.bincount(np.asarray(args[0]), minlength=256).astype(np.uint32),)
    values, nbins = np.asarray(args[0]), int(args[1])  # type: ignore[call-overload]
    return (u32_oracle(values, nbins),)


def _drops_the_last_value(*args: object) -> tuple[np.ndarray, ...]:
    trimmed = (np.asarray(args[0])[:-1], *args[1:])
    return _numpy_op(*trimmed)


def _bins_shifted_past_20_bins(*args: object) -> tuple[np.ndarray, ...]:
    values, nbins = np.asarray(args[0]), int(args[1])  # type: ignore[call-overload]
    return (u32_oracle((values + np.uint32(nbins > 20)).astype(np.uint32), nbins),)


def test_laws_hold_and_can_fail() -> None:
    data = np.random.default_rng(1).integers(0, 256, 999, dtype=np.uint8)
    values = np.random.default_rng(2).integers(0, 40, 999).astype(np.uint32)
    total, truncation = stats.HistogramTotal(), stats.BinTruncation()
    assert total.check(_numpy_op, (data,)) is None
    assert total.check(_numpy_op, (values, 33)) is None
    assert truncation.check(_numpy_op, (values, 33)) is None
    assert "Σ bins = 998" in (total.check(_drops_the_last_value, (data,)) or "")
    assert total.check(_drops_the_last_value, (values, 41)) is not None
    assert truncation.check(_bins_shifted_past_20_bins, (values, 33)) is not None
    for op_id in ("stats.byte_histogram", "stats.histogram_u32"):
        spec = ops.get(op_id)
        assert isinstance(spec, KernelSpec)
        args = (data,) if op_id == "stats.byte_histogram" else (values, 33)

        def backend_op(*a: object, _id: str = op_id) -> tuple[np.ndarray, ...]:
            return (ops.evaluate(_id, list(a), backend="wgpu"),)

        for law in spec.laws:
            assert law.check(backend_op, args) is None, (op_id, law.name)


def test_sampled_cases_cover_both_paths_and_dropped_values() -> None:
    spec = ops.get("stats.histogram_u32")
    assert isinstance(spec, KernelSpec) and spec.sample is not None
    rng = np.random.default_rng(0)
    seen_bins: set[int] = set()
    dropped = 0
    for pattern in ("random", "zeros", "ones", "ascending", "descending", "few", "wrap"):
        for _ in range(6):
            values, nbins = spec.sample(rng, 1000, pattern)
            assert len(values) == 1000 and values.dtype == np.uint32 and 1 <= nbins <= stats.MAX_BINS
            seen_bins.add(nbins)
            dropped += int(np.count_nonzero(values >= nbins))
    assert min(seen_bins) <= 256 < stats.MAX_PRIVATE_BINS < max(seen_bins)
    assert dropped > 0


@pytest.mark.slow  # a certification campaign: make test-all
def test_certificate_on_wgpu() -> None:
    cert = conform.certify(
        backend="wgpu",
        ops=["stats.byte_histogram", "stats.histogram_u32"],
        strength="fast",
        corpus=None,
        track="kernel",
    )
    assert cert.passed, [str(f) for f in cert.failures]
    assert cert.level == "L2k"
