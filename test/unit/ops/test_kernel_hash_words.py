"""hash.fnv1a32, hash.murmur3_32 and hash.xxhash32 against published vectors and
the `mmh3`/`xxhash` packages (dev extras: the tests that need one skip without
it, the vectors are asserted always) on the interpreter and on wgpu: every
length 0-300 in one batched evaluation, random lengths (up to 1 MiB on wgpu:
32 dispatches carrying the state), batch = single, garbage padding bytes, the
certificate on lavapipe (its parity check runs the interpreter on every case).

FNV-1a's oracle is written here from the definition; the op's own reference
is not used."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from vyre import conform, ops
from vyre.ir import DataType
from vyre.kernels.families import hash_words
from vyre.runtime.device_buffer import DeviceBuffer

pytestmark = pytest.mark.usefixtures("gpu_adapter")

BACKENDS = ("interp", "wgpu")
OPS = ("hash.fnv1a32", "hash.murmur3_32", "hash.xxhash32")


def fnv1a32(data: bytes) -> int:
    h = 0x811C_9DC5
    for b in data:
        h = ((h ^ b) * 0x0100_0193) % 2**32
    return h


def oracle(op_id: str) -> Callable[[bytes], int]:
    if op_id == "hash.fnv1a32":
        return fnv1a32
    if op_id == "hash.murmur3_32":
        mmh3 = pytest.importorskip("mmh3")
        return lambda data: mmh3.hash(data, 0, signed=False)  # pyright: ignore[reportUnknownMemberType, reportUnknownLambdaType]
    xxhash = pytest.importorskip("xxhash")
    return lambda data: xxhash.xxh32_intdigest(data, 0)  # pyright: ignore[reportUnknownMemberType, reportUnknownLambdaType]


def _check(op_id: str, inputs: list[np.ndarray], backend: str) -> None:
    expected = oracle(op_id)
    outs = ops.evaluate_many(op_id, [[x] for x in inputs], backend=backend)
    for x, out in zip(inputs, outs):
        assert out.dtype == np.uint32 and out.shape == (1,)
        assert int(out[0]) == expected(x.tobytes()), f"{op_id}, {len(x)} bytes: {int(out[0]):#010x}"


@pytest.mark.parametrize("op_id", OPS)
@pytest.mark.parametrize("backend", BACKENDS)
def test_every_length_up_to_300(op_id: str, backend: str) -> None:
    rng = np.random.default_rng(11)
    inputs = [rng.integers(0, 256, n, dtype=np.uint8) for n in range(301)]
    inputs += [np.full(n, 0xFF, dtype=np.uint8) for n in (15, 16, 17, 31, 32, 33)]
    _check(op_id, inputs, backend)


@pytest.mark.parametrize("op_id", OPS)
@pytest.mark.parametrize("backend", BACKENDS)
def test_random_lengths(op_id: str, backend: str) -> None:
    """Past one dispatch (32 KiB of a message per dispatch) on both backends;
    up to 1 MiB on wgpu."""
    rng = np.random.default_rng(12)
    lengths = [32 * 1024 - 1, 32 * 1024, 32 * 1024 + 17, 40_000]
    if backend == "wgpu":
        lengths += [1 << 20, *rng.integers(300, 1 << 20, 3).tolist()]
    _check(op_id, [rng.integers(0, 256, n, dtype=np.uint8) for n in lengths], backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_published_vectors(backend: str) -> None:
    for op_id, vectors in (
        ("hash.fnv1a32", hash_words.FNV_VECTORS),
        ("hash.murmur3_32", hash_words.MURMUR_VECTORS),
        ("hash.xxhash32", hash_words.XXH32_VECTORS),
    ):
        outs = ops.evaluate_many(op_id, [[data] for data, _ in vectors], backend=backend)
        assert [int(o[0]) for o in outs] == [v for _, v in vectors], op_id
        for data, value in vectors:  # one by one (the single plan) too
            assert int(ops.evaluate(op_id, [data], backend=backend)[0]) == value, (op_id, data)
    # written out: FNV "foobar", SMHasher 0x21436587, XXH32 "abc"
    assert int(ops.evaluate("hash.fnv1a32", [b"foobar"], backend=backend)[0]) == 0xBF9C_F968
    assert int(ops.evaluate("hash.murmur3_32", [bytes.fromhex("21436587")], backend=backend)[0]) == 0xF55B_516B
    assert int(ops.evaluate("hash.xxhash32", [b"abc"], backend=backend)[0]) == 0x32D1_53FF


def test_packages_reproduce_the_published_vectors() -> None:
    mmh3 = pytest.importorskip("mmh3")
    xxhash = pytest.importorskip("xxhash")
    for data, value in hash_words.MURMUR_VECTORS:
        assert mmh3.hash(data, 0, signed=False) == value  # pyright: ignore[reportUnknownMemberType]
    for data, value in hash_words.XXH32_VECTORS:
        assert xxhash.xxh32_intdigest(data, 0) == value  # pyright: ignore[reportUnknownMemberType]
    # the seeded SMHasher vectors, for the reference's seed handling
    assert mmh3.hash(b"Hello, world!", 0x9747_B28C, signed=False) == 0x2488_4CBA  # pyright: ignore[reportUnknownMemberType]
    assert hash_words.murmur3_32(b"Hello, world!", 0x9747_B28C) == 0x2488_4CBA
    assert hash_words.murmur3_32(b"", 1) == 0x514E_28B7
    assert hash_words.xxh32(b"", 1) == 0x0B2C_B792


@pytest.mark.parametrize("backend", BACKENDS)
def test_batch_equals_single(backend: str) -> None:
    rng = np.random.default_rng(13)
    inputs = [rng.integers(0, 256, n, dtype=np.uint8) for n in (0, 1, 17, 100, 3, 64, 1000, 0, 5)]
    for op_id in OPS:
        many = ops.evaluate_many(op_id, [[x] for x in inputs], backend=backend)
        single = [ops.evaluate(op_id, [x], backend=backend) for x in inputs]
        assert [int(m[0]) for m in many] == [int(s[0]) for s in single], op_id


@pytest.mark.parametrize("backend", BACKENDS)
def test_padding_bytes_of_the_last_word_are_ignored(backend: str) -> None:
    from vyre.runtime.wgpu_device import Resident, gpu_device

    rng = np.random.default_rng(14)
    for n in (1, 2, 3, 5, 17, 18, 19, 255):
        data = rng.integers(0, 256, n, dtype=np.uint8)
        padded = np.full(-(-n // 4) * 4, 0xAB, dtype=np.uint8)
        padded[:n] = data
        buffer = DeviceBuffer(Resident.upload(gpu_device(), padded.view(np.uint32).copy()), DataType.BYTES, n)
        for op_id in OPS:
            got = ops.evaluate(op_id, [buffer], backend=backend)
            assert int(got[0]) == oracle(op_id)(data.tobytes()), (op_id, n)


def test_bad_arguments() -> None:
    with pytest.raises(TypeError, match="data"):
        ops.evaluate("hash.fnv1a32", [np.zeros(3, dtype=np.int32)])
    with pytest.raises(ValueError, match="1 input"):
        ops.evaluate("hash.xxhash32", [b"a", 0])


@pytest.mark.slow  # a certification campaign: make test-all
def test_certified_on_wgpu() -> None:
    cert = conform.certify(backend="wgpu", ops=list(OPS), strength="fast", corpus=None, track="kernel")
    assert cert.passed, [str(f) for f in cert.failures]
    assert cert.level == "L2k"
    for op_id in OPS:
        assert set(cert.data["checks"][op_id]) == {"reference", "parity", "determinism"}
