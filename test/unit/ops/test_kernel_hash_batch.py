"""The `hash.<h>_batch` ops: (Bytes data, U32[] offsets) -> one
hash per message data[offsets[i]:offsets[i+1]], messages at any byte offset,
empty ones, a first offset past 0 and a last one before the end; messages
longer than one round (`Repeat` rounds until every message is done) on both
backends; bad offsets; a planted bug caught by the batch = single law; the
certificate of hash.sha256_batch on lavapipe (the others on the GPU machine).

Oracles: hashlib, mmh3/xxhash (dev extras; skipped without them), FNV-1a written
here from its definition."""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Callable

import numpy as np
import pytest

from vyre import conform, ops
from vyre.ir import DataType
from vyre.kernels.families import hash_digests, hash_stream, hash_words
from vyre.kernels.run import evaluate_kernel

pytestmark = pytest.mark.usefixtures("gpu_adapter")

BACKENDS = ("interp", "wgpu")


def fnv1a32(data: bytes) -> int:
    h = 0x811C_9DC5
    for b in data:
        h = ((h ^ b) * 0x0100_0193) % 2**32
    return h


def oracle(op_id: str) -> Callable[[bytes], bytes]:
    """One message -> its output bytes (U32 hashes little-endian)."""
    if op_id in ("hash.md5_batch", "hash.sha1_batch", "hash.sha256_batch"):
        name = op_id.split(".")[1].removesuffix("_batch")
        return lambda data: hashlib.new(name, data).digest()
    if op_id == "hash.fnv1a32_batch":
        return lambda data: fnv1a32(data).to_bytes(4, "little")
    if op_id == "hash.murmur3_32_batch":
        mmh3 = pytest.importorskip("mmh3")
        return lambda data: int(mmh3.hash(data, 0, signed=False)).to_bytes(4, "little")  # pyright: ignore[reportUnknownMemberType, reportUnknownArgumentType]
    xxhash = pytest.importorskip("xxhash")
    return lambda data: int(xxhash.xxh32_intdigest(data, 0)).to_bytes(4, "little")  # pyright: ignore[reportUnknownMemberType, reportUnknownArgumentType]


OPS = (
    "hash.fnv1a32_batch", "hash.murmur3_32_batch", "hash.xxhash32_batch",
    "hash.md5_batch", "hash.sha1_batch", "hash.sha256_batch",
)


def _expected(op_id: str, data: np.ndarray, offsets: np.ndarray) -> bytes:
    raw = data.tobytes()
    one = oracle(op_id)
    return b"".join(one(raw[int(offsets[i]) : int(offsets[i + 1])]) for i in range(len(offsets) - 1))


def _as_bytes(out: np.ndarray) -> bytes:
    return out.tobytes() if out.dtype == np.uint8 else out.astype("<u4").tobytes()


def _cases(seed: int) -> list[tuple[np.ndarray, np.ndarray]]:
    rng = np.random.default_rng(seed)
    cases: list[tuple[np.ndarray, np.ndarray]] = []
    # every message length 0..130 at every byte offset mod 4, side by side
    lengths = [n for n in range(131)]
    rng.shuffle(lengths)
    starts = np.cumsum([0, *lengths])
    data = rng.integers(0, 256, int(starts[-1]) + 3, dtype=np.uint8)
    cases.append((data, (starts + 1).astype(np.uint32)))
    # empty messages, a first offset past 0, a last one before the end
    data = rng.integers(0, 256, 200, dtype=np.uint8)
    cases.append((data, np.array([3, 3, 3, 60, 60, 119, 183, 190], dtype=np.uint32)))
    cases.append((data, np.array([0, 200], dtype=np.uint32)))
    cases.append((data, np.array([17], dtype=np.uint32)))  # no message at all
    cases.append((np.zeros(0, dtype=np.uint8), np.array([0, 0, 0], dtype=np.uint32)))
    return cases


@pytest.mark.parametrize("op_id", OPS)
@pytest.mark.parametrize("backend", BACKENDS)
def test_messages_at_any_offset(op_id: str, backend: str) -> None:
    cases = _cases(31)
    outs = ops.evaluate_many(op_id, [list(c) for c in cases], backend=backend)
    for (data, offsets), out in zip(cases, outs):
        assert _as_bytes(out) == _expected(op_id, data, offsets), (op_id, offsets[:6].tolist())


@pytest.mark.parametrize("op_id", OPS)
def test_long_messages_take_several_rounds_on_wgpu(op_id: str) -> None:
    """Messages of more blocks than one round walks (SHA-256: 128 blocks, 8 KiB)
    beside short ones: rounds repeat until the flag clears."""
    rng = np.random.default_rng(32)
    data = rng.integers(0, 256, 150_003, dtype=np.uint8)
    offsets = np.array([1, 5, 40_000, 40_064, 150_001], dtype=np.uint32)
    out = ops.evaluate(op_id, [data, offsets], backend="wgpu")
    assert _as_bytes(out) == _expected(op_id, data, offsets)


@pytest.mark.parametrize("backend", BACKENDS)
def test_rounds_with_two_blocks_per_round(backend: str) -> None:
    """SHA-256 with per_dispatch = 2: a 300-byte message is 5 blocks, 3 rounds."""
    h = dataclasses.replace(hash_digests.SHA256, per_dispatch=2)
    spec = hash_stream.batch_spec(
        "test.sha256_batch_2", h, DataType.BYTES, lambda b: hashlib.sha256(b).digest(), "", (), (0,)
    )
    rng = np.random.default_rng(33)
    data = rng.integers(0, 256, 700, dtype=np.uint8)
    offsets = np.array([0, 300, 301, 301, 420, 698], dtype=np.uint32)
    plan = spec.plan({"data": 700, "offsets": 6}, {})
    assert plan.repeats[0].max_rounds == 6  # a message could hold all 700 bytes: 11 blocks
    out = evaluate_kernel(spec, [data, offsets], backend)[0]
    assert out.tobytes() == _expected("hash.sha256_batch", data, offsets)


@pytest.mark.parametrize("backend", BACKENDS)
def test_batch_equals_the_single_ops(backend: str) -> None:
    rng = np.random.default_rng(34)
    data = rng.integers(0, 256, 500, dtype=np.uint8)
    offsets = np.array([2, 57, 58, 183, 183, 499], dtype=np.uint32)
    for op_id in OPS:
        single = op_id.removesuffix("_batch")
        batch = ops.evaluate(op_id, [data, offsets], backend=backend)
        alone = ops.evaluate_many(single, [[data[offsets[i] : offsets[i + 1]]] for i in range(5)], backend=backend)
        assert _as_bytes(batch) == b"".join(_as_bytes(a) for a in alone), op_id


def test_bad_offsets_are_value_errors() -> None:
    data = b"abcdefgh"
    with pytest.raises(ValueError, match=r"offsets.*non-decreasing: offsets\[2\] = 1 < offsets\[1\] = 4"):
        ops.evaluate("hash.sha256_batch", [data, np.array([0, 4, 1], dtype=np.uint32)])
    with pytest.raises(ValueError, match="offsets.*ends at 9, past the 8 bytes"):
        ops.evaluate("hash.fnv1a32_batch", [data, np.array([0, 9], dtype=np.uint32)])
    with pytest.raises(ValueError, match="offsets.*at least one entry"):
        ops.evaluate("hash.md5_batch", [data, np.zeros(0, dtype=np.uint32)])
    with pytest.raises(TypeError, match="offsets"):
        ops.evaluate("hash.md5_batch", [data, np.array([0.5])])


def test_the_law_catches_a_message_hashed_from_the_wrong_offset() -> None:
    """batch(i) = single(i) (`MessagesAlone`) holds for the reference and fails
    for an op that starts every message after the first one byte late."""
    spec = hash_stream.batch_spec("test.fnv_batch", hash_words.FNV, DataType.U32, fnv1a32, "", (), (0,))
    law = spec.laws[0]

    def late(data: np.ndarray, offsets: np.ndarray) -> tuple[np.ndarray, ...]:
        out = np.array(spec.reference(data, offsets)[0], copy=True)
        for i in range(1, len(offsets) - 1):
            out[i] = fnv1a32(data[int(offsets[i]) + 1 : int(offsets[i + 1])].tobytes())
        return (out,)

    case = (np.arange(40, dtype=np.uint8), np.array([0, 10, 20, 40], dtype=np.uint32))
    assert law.check(spec.reference, case) is None
    found = law.check(late, case)
    assert found is not None and "message 1" in found


@pytest.mark.slow  # a certification campaign: make test-all
def test_certified_on_wgpu() -> None:
    wanted = ["hash.sha256_batch"]
    cert = conform.certify(backend="wgpu", ops=wanted, strength="fast", corpus=None, track="kernel")
    assert cert.passed, [str(f) for f in cert.failures]
    assert cert.level == "L2k"
