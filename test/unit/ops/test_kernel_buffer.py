"""buffer.* kernel ops against CPython and numpy, on the interpreter and on wgpu:
the boundary lengths, adversarial data (all bytes equal, the byte only in the
last position, all 0xFF, duplicate and out-of-range indices), padding bytes of
the last word that are not zero, large inputs on wgpu, the laws, errors.

The expected values come from `bytes.find`/`bytes.count`/`==`, numpy's
byteswap, boolean indexing and fancy indexing, and a plain Python loop for
scatter (never the op's reference, never vyre code). Cases are batched with
`ops.evaluate_many` (one submission on wgpu)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pytest

from vyre import ops
from vyre.ir import DataType
from vyre.kernels.families import buffer
from vyre.kernels.spec import BOUNDARY_LENGTHS, KernelSpec

pytestmark = pytest.mark.usefixtures("gpu_adapter")

NONE = 0xFFFF_FFFF
BACKENDS = ("interp", "wgpu")
INTERP_LENGTHS = (0, 1, 3, 4, 5, 64, 65, 257, 4097)
"""Fewer lengths on the (slower) interpreter; every boundary length on wgpu."""


def lengths(backend: str) -> Sequence[int]:
    return BOUNDARY_LENGTHS if backend == "wgpu" else INTERP_LENGTHS


def run(op_id: str, cases: Sequence[Sequence[Any]], backend: str) -> list[np.ndarray]:
    return ops.evaluate_many(op_id, [list(c) for c in cases], backend=backend)


def byte_data(n: int, seed: int) -> dict[str, bytes]:
    rng = np.random.default_rng(seed)
    at_end = bytearray(n)
    if n:
        at_end[-1] = 0x5A
    return {
        "random": rng.integers(0, 256, n, dtype=np.uint8).tobytes(),
        "all equal": b"\x41" * n,
        "all 0xFF": b"\xff" * n,
        "only the last": bytes(at_end),
        "text": rng.integers(0x61, 0x65, n, dtype=np.uint8).tobytes(),
    }


def poisoned(data: bytes) -> Any:
    """A Bytes device buffer whose padding bytes (past the length in the last
    word) are 0xFF, not zero (C1: padding is unspecified)."""
    from vyre.runtime.device_buffer import DeviceBuffer
    from vyre.runtime.wgpu_device import Resident, gpu_device

    padded = data + b"\xff" * (-len(data) % 4)
    words = np.frombuffer(padded, dtype="<u4").astype(np.uint32)
    return DeviceBuffer(Resident.upload(gpu_device(), words), DataType.BYTES, len(data))


# ---------------------------------------------------------------------------
# memchr, byte_count
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("backend", BACKENDS)
def test_memchr_and_byte_count_match_cpython(backend: str) -> None:
    cases: list[tuple[bytes, int]] = []
    for n in lengths(backend):
        for data in byte_data(n, n).values():
            for byte in sorted({0x00, 0x41, 0x5A, 0xFF, data[n // 2] if n else 7}):
                cases.append((data, byte))
    firsts = run("buffer.memchr", cases, backend)
    counts = run("buffer.byte_count", cases, backend)
    for (data, byte), first, count in zip(cases, firsts, counts):
        found = data.find(bytes([byte]))
        assert first.dtype == np.uint32 and first.shape == (1,)
        assert int(first[0]) == (NONE if found < 0 else found), (len(data), byte)
        assert int(count[0]) == data.count(bytes([byte])), (len(data), byte)


def test_memchr_finds_each_lane_of_a_word() -> None:
    # the byte in lane 0..3 of word 0, 1 and of the last word, with a decoy later
    cases: list[tuple[bytes, int]] = []
    for n in (4, 8, 12, 13, 4097):
        for at in sorted({0, 1, 2, 3, 4, 5, 6, 7, n - 1, n - 2, n - 3, n - 4}):
            if 0 <= at < n:
                data = bytearray(b"\x01" * n)
                data[at] = 0x80
                if at + 5 < n:
                    data[at + 5] = 0x80
                cases.append((bytes(data), 0x80))
    for backend in BACKENDS:
        got = run("buffer.memchr", cases, backend)
        assert [int(g[0]) for g in got] == [d.find(b"\x80") for d, _ in cases], backend


@pytest.mark.parametrize("backend", BACKENDS)
def test_padding_bytes_are_masked(backend: str) -> None:
    for n in (1, 2, 3, 5, 63, 4097):
        data = bytes(range(1, 1 + n % 250)) * (n // 249 + 1)
        data = data[:n]
        assert b"\xff" not in data
        device = poisoned(data)
        assert int(ops.evaluate("buffer.memchr", [device, 0xFF], backend=backend)[0]) == NONE
        assert int(ops.evaluate("buffer.byte_count", [device, 0xFF], backend=backend)[0]) == 0
        assert int(ops.evaluate("buffer.byte_count", [device, data[0]], backend=backend)[0]) == data.count(data[:1])
        assert int(ops.evaluate("buffer.memcmp", [device, data], backend=backend)[0]) == 1
        assert int(ops.evaluate("buffer.memcmp", [data, poisoned(data)], backend=backend)[0]) == 1


def test_large_byte_searches_on_wgpu() -> None:
    # past one grid-stride round (2,048 workgroups x 256 invocations x 4 words x 4 bytes)
    n = 9_000_003
    data = np.zeros(n, dtype=np.uint8)
    data[-1] = 0xAB
    data[n // 2] = 0xCD
    raw = data.tobytes()
    cases = [[data, 0xAB], [data, 0xCD], [data, 0], [data, 0x11]]
    firsts = run("buffer.memchr", cases, "wgpu")
    assert [int(f[0]) for f in firsts] == [n - 1, n // 2, 0, NONE]
    counts = run("buffer.byte_count", cases, "wgpu")
    assert [int(c[0]) for c in counts] == [raw.count(bytes([b])) for _, b in cases]
    other = data.copy()
    other[-1] = 0xAC
    assert int(ops.evaluate("buffer.memcmp", [data, data.copy()])[0]) == 1
    assert int(ops.evaluate("buffer.memcmp", [data, other])[0]) == 0


# ---------------------------------------------------------------------------
# memcmp, byte_swap_u32
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("backend", BACKENDS)
def test_memcmp_matches_equality(backend: str) -> None:
    cases: list[tuple[bytes, bytes]] = []
    for n in lengths(backend):
        for data in byte_data(n, 100 + n).values():
            cases.append((data, bytes(data)))
            cases.append((data, data[:-1]))
            cases.append((data, data + b"\x00"))
            if n:
                for at in sorted({0, n // 2, n - 1}):
                    changed = bytearray(data)
                    changed[at] ^= 0x80
                    cases.append((data, bytes(changed)))
    cases.append((b"", b""))
    got = run("buffer.memcmp", cases, backend)
    for (a, b), value in zip(cases, got):
        assert value.shape == (1,) and int(value[0]) == int(a == b), (len(a), len(b))


@pytest.mark.parametrize("backend", BACKENDS)
def test_byte_swap_matches_numpy(backend: str) -> None:
    cases: list[bytes] = []
    for words in lengths(backend):
        cases += list(byte_data(4 * words, words).values())
    got = run("buffer.byte_swap_u32", [[c] for c in cases], backend)
    for data, out in zip(cases, got):
        expected = np.frombuffer(data, dtype="<u4").byteswap().tobytes()
        assert out.dtype == np.uint8 and out.tobytes() == expected, len(data)


# ---------------------------------------------------------------------------
# compact, gather, scatter
# ---------------------------------------------------------------------------


def u32_data(n: int, seed: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    return {
        "random": rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32),
        "all 0xFFFFFFFF": np.full(n, NONE, dtype=np.uint32),
        "ascending": np.arange(n, dtype=np.uint32),
    }


def masks(n: int, seed: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    last = np.zeros(n, dtype=np.uint32)
    last[-1:] = NONE
    edges = np.zeros(n, dtype=np.uint32)
    for at in (0, 31, 32, 255, 256, 2047, 2048, 4095, 4096, 8191, 8192):
        if at < n:
            edges[at] = 3
    return {
        "none": np.zeros(n, dtype=np.uint32),
        "all": rng.integers(1, 2**32, n, dtype=np.uint64).astype(np.uint32),
        "half": (rng.random(n) < 0.5).astype(np.uint32) * 9,
        "sparse": (rng.random(n) < 0.01).astype(np.uint32),
        "only the last": last,
        "word and tile edges": edges,
    }


@pytest.mark.parametrize("backend", BACKENDS)
def test_compact_matches_boolean_indexing(backend: str) -> None:
    cases: list[tuple[np.ndarray, np.ndarray]] = []
    for n in lengths(backend):
        values = u32_data(n, n)
        for label, mask in masks(n, n).items():
            if backend == "interp" and label in ("half", "word and tile edges") and n > 300:
                continue
            cases += [(v, mask) for v in values.values()] if backend == "wgpu" else [(values["random"], mask)]
    got = run("buffer.compact", cases, backend)
    for (values, mask), out in zip(cases, got):
        expected = values[mask != 0]
        assert out.dtype == np.uint32 and out.tobytes() == expected.tobytes(), (len(values), int(np.count_nonzero(mask)))
    raw = ops.evaluate_raw("buffer.compact", [np.arange(10, dtype=np.uint32), np.array([0, 1] * 5)], backend=backend)
    assert raw["out"].tolist() == [1, 3, 5, 7, 9] and raw["count"].tolist() == [5]


def test_compact_over_many_tiles_on_wgpu() -> None:
    rng = np.random.default_rng(5)
    cases: list[tuple[np.ndarray, np.ndarray]] = []
    for n, density in ((300_007, 0.5), (300_007, 1.0), (300_007, 1e-4), (8192 * 3, 0.3), (8193, 1.0)):
        values = rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
        cases.append((values, (rng.random(n) < density).astype(np.uint32)))
    for (values, mask), out in zip(cases, run("buffer.compact", cases, "wgpu")):
        assert out.tobytes() == values[mask != 0].tobytes(), len(values)


def gather_oracle(src: np.ndarray, idx: np.ndarray) -> list[int]:
    return [int(src[i]) if i < len(src) else 0 for i in idx.tolist()]


@pytest.mark.parametrize("backend", BACKENDS)
def test_gather_matches_indexing(backend: str) -> None:
    cases: list[tuple[np.ndarray, np.ndarray]] = []
    for n in lengths(backend):
        rng = np.random.default_rng(n)
        src = rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
        for k in sorted({0, 1, n, 2 * n + 3} if backend == "wgpu" else {1, n}):
            inside = rng.integers(0, max(n, 1), k).astype(np.uint32)
            oob = rng.choice(np.array([n, n + 1, NONE, 0x8000_0000], dtype=np.uint32), k)
            cases.append((src, np.where(rng.random(k) < 0.2, oob, inside).astype(np.uint32)))
            cases.append((src, np.zeros(k, dtype=np.uint32)))
    got = run("buffer.gather", cases, backend)
    for (src, idx), out in zip(cases, got):
        assert out.tolist() == gather_oracle(src, idx), (len(src), len(idx))


def scatter_oracle(dst: np.ndarray, idx: np.ndarray, values: np.ndarray) -> list[int]:
    out = dst.tolist()
    for i, v in zip(idx.tolist(), values.tolist()):
        if i < len(out):
            out[i] = v
    return out


@pytest.mark.parametrize("backend", BACKENDS)
def test_scatter_is_a_sequential_loop(backend: str) -> None:
    cases: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
    for n in lengths(backend):
        rng = np.random.default_rng(n)
        dst = rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
        for k in sorted({0, 1, n, 3 * n + 1} if backend == "wgpu" else {n}):
            values = rng.integers(0, 2**32, k, dtype=np.uint64).astype(np.uint32)
            same = np.full(k, n // 2, dtype=np.uint32)  # every index equal: the last i wins
            few = rng.integers(0, max(n // 8, 1), k).astype(np.uint32)  # many duplicates
            oob = np.where(rng.random(k) < 0.3, NONE, rng.integers(0, n + 2, k)).astype(np.uint32)
            cases += [(dst, same, values), (dst, few, values), (dst, oob, values)]
    got = run("buffer.scatter", cases, backend)
    for (dst, idx, values), out in zip(cases, got):
        assert out.tolist() == scatter_oracle(dst, idx, values), (len(dst), len(idx))


def test_scatter_with_heavy_duplicates_on_wgpu() -> None:
    rng = np.random.default_rng(2)
    k, m = 400_003, 1000
    idx = rng.integers(0, 3, k).astype(np.uint32)
    idx[rng.random(k) < 0.1] = m
    values = np.arange(k, dtype=np.uint32)
    dst = np.full(m, 7, dtype=np.uint32)
    out = ops.evaluate("buffer.scatter", [dst, idx, values])
    assert out.tolist() == scatter_oracle(dst, idx, values)
    src = rng.integers(0, 2**32, 300_001, dtype=np.uint64).astype(np.uint32)
    where = rng.integers(0, 320_000, 500_000).astype(np.uint32)
    assert ops.evaluate("buffer.gather", [src, where]).tolist() == gather_oracle(src, where)


# ---------------------------------------------------------------------------
# Errors
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("op_id", "args", "error", "needle"),
    [
        ("buffer.memchr", [b"abc", 256], ValueError, r"input `byte` of `buffer.memchr` must be a byte value in \[0, 255\], got 256"),
        ("buffer.byte_count", [b"abc", -1], ValueError, "input `byte` of `buffer.byte_count`"),
        ("buffer.memchr", [b"abc", 1.5], TypeError, "input `byte` of `buffer.memchr`"),
        ("buffer.memchr", [np.zeros(3, np.uint32), 1], TypeError, "input `data` of `buffer.memchr`"),
        ("buffer.memcmp", [b"abc"], ValueError, "takes 2 input"),
        ("buffer.byte_swap_u32", [b"abcde"], ValueError, "input `data` of `buffer.byte_swap_u32` has 5 bytes; its length must be a multiple of 4"),
        ("buffer.compact", [np.zeros(3, np.uint32), np.zeros(4, np.uint32)], ValueError, "input `mask` of `buffer.compact` has 4 elements"),
        ("buffer.compact", [np.zeros(3, np.float32), np.zeros(3, np.uint32)], TypeError, "input `values` of `buffer.compact`"),
        ("buffer.gather", [np.zeros(3, np.uint32), np.array([-1])], ValueError, "input `idx` of `buffer.gather`"),
        ("buffer.scatter", [np.zeros(3, np.uint32), np.zeros(2, np.uint32), np.zeros(3, np.uint32)], ValueError, "input `values` of `buffer.scatter` has 3 elements, input `idx` 2"),
    ],
)
def test_bad_arguments_are_clear_errors(op_id: str, args: list[object], error: type, needle: str) -> None:
    with pytest.raises(error, match=needle):
        ops.evaluate(op_id, args, backend="interp")


# ---------------------------------------------------------------------------
# Laws: they hold on numpy models, and they catch wrong ops
# ---------------------------------------------------------------------------

Op = Callable[..., tuple[np.ndarray, ...]]


def _one(v: int) -> tuple[np.ndarray]:
    return (np.array([v], dtype=np.uint32),)


def model(op_id: str, *, wrong: bool = False) -> Op:
    """A numpy model of the op (optionally with a planted bug)."""

    def memchr(data: np.ndarray, byte: int) -> tuple[np.ndarray]:
        found = np.asarray(data, np.uint8).tobytes().find(bytes([byte]))
        if wrong and found > 0:  # reports the last occurrence instead
            found = np.asarray(data, np.uint8).tobytes().rfind(bytes([byte]))
        return _one(NONE if found < 0 else found)

    def byte_count(data: np.ndarray, byte: int) -> tuple[np.ndarray]:
        raw = np.asarray(data, np.uint8).tobytes()
        return _one(raw.count(bytes([byte])) + (1 if wrong and len(raw) % 4 == 3 else 0))

    def memcmp(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray]:
        x, y = np.asarray(a, np.uint8).tobytes(), np.asarray(b, np.uint8).tobytes()
        return _one(int(x[:-1] == y[:-1] if wrong else x == y))

    def swap(data: np.ndarray) -> tuple[np.ndarray]:
        raw = np.asarray(data, np.uint8)
        out = raw.view("<u4").byteswap().view(np.uint8)
        return (np.roll(out, 1) if wrong else out,)

    def compact(values: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        kept = np.asarray(values, np.uint32)[np.asarray(mask) != 0]
        if wrong:
            kept = kept[::-1].copy()
        return kept, np.array([len(kept)], np.uint32)

    def gather(src: np.ndarray, idx: np.ndarray) -> tuple[np.ndarray]:
        out = np.array(gather_oracle(np.asarray(src), np.asarray(idx)), dtype=np.uint32)
        if wrong:
            out[np.asarray(idx) >= len(src)] = 1
        return (out,)

    def scatter(dst: np.ndarray, idx: np.ndarray, values: np.ndarray) -> tuple[np.ndarray]:
        if wrong:  # first write wins
            return (np.array(scatter_oracle(np.asarray(dst), np.asarray(idx)[::-1], np.asarray(values)[::-1]), np.uint32),)
        return (np.array(scatter_oracle(np.asarray(dst), np.asarray(idx), np.asarray(values)), np.uint32),)

    table: dict[str, Op] = {
        "buffer.memchr": memchr,
        "buffer.byte_count": byte_count,
        "buffer.memcmp": memcmp,
        "buffer.byte_swap_u32": swap,
        "buffer.compact": compact,
        "buffer.gather": gather,
        "buffer.scatter": scatter,
    }
    return table[op_id]


LAW_OPS = ("buffer.memchr", "buffer.byte_count", "buffer.memcmp", "buffer.byte_swap_u32",
           "buffer.compact", "buffer.gather", "buffer.scatter")


@pytest.mark.parametrize("op_id", LAW_OPS)
def test_laws_hold_on_a_model_and_catch_a_planted_bug(op_id: str) -> None:
    spec = ops.get(op_id)
    assert isinstance(spec, KernelSpec) and spec.sample is not None
    rng = np.random.default_rng(11)
    right, wrong = model(op_id), model(op_id, wrong=True)
    caught = False
    for n in (0, 1, 7, 63, 600):
        for pattern in ("random", "few", "ones", "zeros", "text", "ascending"):
            args = spec.sample(rng, n, pattern)
            for law in spec.laws:
                assert law.check(right, args) is None, (law.name, n, pattern)
                caught = caught or law.check(wrong, args) is not None
    assert caught, f"no law of {op_id} saw the planted bug"


def test_samplers_make_valid_and_interesting_inputs() -> None:
    rng = np.random.default_rng(3)
    memchr = buffer.KERNELS[0]
    assert memchr.id == "buffer.memchr" and memchr.sample is not None
    found = absent = 0
    for _ in range(40):
        data, byte = memchr.sample(rng, 50, "random")
        assert 0 <= byte <= 255
        found += int(byte in data.tolist())
        absent += int(byte not in data.tolist())
    assert found and absent
    swap = ops.get("buffer.byte_swap_u32")
    assert isinstance(swap, KernelSpec) and swap.sample is not None
    swap_input: np.ndarray = swap.sample(rng, 7, "random")[0]
    assert len(swap_input) == 28


def test_certificate_on_wgpu() -> None:
    """The kernel track on lavapipe, with parity against the interpreter, for
    one op (every buffer op is certified on the interpreter by
    test/unit/conform/test_kernel_track.py, and on lavapipe/the GPU machine by
    `vyre-conform certify --track kernel --backend wgpu --ops 'buffer.*'`)."""
    from vyre import conform

    cert = conform.certify(backend="wgpu", ops=["buffer.memchr"], strength="fast", corpus=None, track="kernel")
    assert cert.passed, [str(f) for f in cert.failures]
    assert cert.level == "L2k"
    assert set(cert.data["checks"]["buffer.memchr"]) == {"reference", "parity", "determinism"}
