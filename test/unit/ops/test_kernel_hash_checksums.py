"""hash.crc32, hash.crc32c and hash.adler32 against CPython and published vectors
on the interpreter and on wgpu: every length 0-300, random lengths (up to 1 MiB
on wgpu), adversarial data (all 0xFF: Adler's largest sums), garbage in the
padding bytes of the last word, chunk-size independence (several chunk sizes,
one to three passes), the host combine against zlib's running form, bad
arguments, and the certificates.

Oracles: `zlib.crc32`, `zlib.adler32`, the `crc32c` package (a dev extra; the
RFC 3720 vectors are asserted whether or not it is installed) and a bit-by-bit
CRC written here from the polynomial (no table, no vyre code)."""

from __future__ import annotations

import dataclasses
import zlib
from collections.abc import Callable

import numpy as np
import pytest

from vyre import conform, ops
from vyre.ir import DataType
from vyre.kernels.families import hash_adler, hash_crc
from vyre.kernels.run import evaluate_kernel, evaluate_kernel_many
from vyre.kernels.spec import KernelSpec
from vyre.ops import registry
from vyre.runtime.device_buffer import DeviceBuffer

pytestmark = pytest.mark.usefixtures("gpu_adapter")

BACKENDS = ("interp", "wgpu")
OPS = ("hash.crc32", "hash.crc32c", "hash.adler32")


def crc_bitwise(data: bytes, poly: int) -> int:
    """The reflected CRC from its definition, one bit at a time."""
    c = 0xFFFF_FFFF
    for byte in data:
        c ^= byte
        for _ in range(8):
            c = (c >> 1) ^ poly if c & 1 else c >> 1
    return c ^ 0xFFFF_FFFF


def crc32c_oracle() -> Callable[[bytes], int]:
    try:
        import crc32c  # pyright: ignore[reportMissingTypeStubs]
    except ImportError:
        return lambda data: crc_bitwise(data, 0x82F6_3B78)
    return crc32c.crc32c  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]


ORACLES: dict[str, Callable[[bytes], int]] = {
    "hash.crc32": zlib.crc32,
    "hash.crc32c": crc32c_oracle(),
    "hash.adler32": zlib.adler32,
}


def _check_many(op_id: str, inputs: list[np.ndarray], backend: str) -> None:
    """`evaluate_many` (the batched plan: one invocation per input when all are
    at most 64 KiB, else every input's chunk tree)."""
    outs = ops.evaluate_many(op_id, [[x] for x in inputs], backend=backend)
    oracle = ORACLES[op_id]
    for x, out in zip(inputs, outs):
        assert out.dtype == np.uint32 and out.shape == (1,)
        assert int(out[0]) == oracle(x.tobytes()), f"{op_id} of {len(x)} bytes: {int(out[0]):#010x}"


def _check_trees(op_id: str, inputs: list[np.ndarray], backend: str) -> None:
    """Each input with its own plan (the chunk tree, as `ops.evaluate` runs it),
    all in one submission on wgpu."""
    spec = dataclasses.replace(registry.get_kernel(op_id), plan_many=None)
    oracle = ORACLES[op_id]
    for x, out in zip(inputs, evaluate_kernel_many(spec, [[x] for x in inputs], backend)):
        assert out[0].dtype == np.uint32 and out[0].shape == (1,)
        assert int(out[0][0]) == oracle(x.tobytes()), f"{op_id} of {len(x)} bytes: {int(out[0][0]):#010x}"


@pytest.mark.parametrize("op_id", OPS)
@pytest.mark.parametrize("backend", BACKENDS)
def test_every_length_up_to_300(op_id: str, backend: str) -> None:
    """Batched and one by one; on the interpreter one by one for every length
    of CRC-32 (the chunk tree is shared; CRC-32C and Adler-32 differ in their
    tables and combine) and every 7th length of the others."""
    rng = np.random.default_rng(300)
    inputs = [rng.integers(0, 256, n, dtype=np.uint8) for n in range(301)]
    inputs += [np.full(n, 0xFF, dtype=np.uint8) for n in (15, 16, 17, 255, 256, 257, 300)]
    _check_many(op_id, inputs, backend)
    each = inputs if backend == "wgpu" or op_id == "hash.crc32" else inputs[::7] + inputs[-7:]
    _check_trees(op_id, each, backend)


@pytest.mark.parametrize("op_id", OPS)
@pytest.mark.parametrize("backend", BACKENDS)
def test_random_lengths(op_id: str, backend: str) -> None:
    """Up to 1 MiB on wgpu, 64 KiB on the interpreter: each input's chunk tree,
    a batch with inputs past 64 KiB (every input's own tree in one plan) and a
    batch of inputs up to 64 KiB (one invocation each, two dispatches past 32 KiB)."""
    rng = np.random.default_rng(7)
    top = 1 << 20 if backend == "wgpu" else 1 << 16
    lengths = [top, top - 1, 256 * 256 + 1, 5552, 5553, *rng.integers(301, top, 3).tolist()]
    inputs = [rng.integers(0, 256, n, dtype=np.uint8) for n in lengths]
    inputs += [np.full(5553, 0xFF, dtype=np.uint8), np.full(top - 3, 0xFF, dtype=np.uint8)]
    _check_trees(op_id, inputs, backend)
    _check_many(op_id, inputs, backend)
    walked = [40_000, 5553] if backend == "interp" else [1 << 16, (1 << 16) - 1, 40_000, 5553, 33]
    _check_many(op_id, [rng.integers(0, 256, n, dtype=np.uint8) for n in walked], backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_published_vectors(backend: str) -> None:
    for op_id, vectors in (
        ("hash.crc32", hash_crc.CRC32_VECTORS),
        ("hash.crc32c", hash_crc.CRC32C_VECTORS),
        ("hash.adler32", hash_adler.ADLER_VECTORS),
    ):
        outs = ops.evaluate_many(op_id, [[data] for data, _ in vectors], backend=backend)
        assert [int(o[0]) for o in outs] == [expected for _, expected in vectors], op_id
    # the check values again, written out (catalogue, RFC 3720 §B.4, RFC 1950)
    assert int(ops.evaluate("hash.crc32", [b"123456789"], backend=backend)[0]) == 0xCBF4_3926
    assert int(ops.evaluate("hash.crc32c", [b"123456789"], backend=backend)[0]) == 0xE306_9283
    assert int(ops.evaluate("hash.crc32c", [bytes(range(32))], backend=backend)[0]) == 0x46DD_794E
    assert int(ops.evaluate("hash.adler32", [b"Wikipedia"], backend=backend)[0]) == 0x11E6_0398


def test_oracles_agree_with_the_definition() -> None:
    rng = np.random.default_rng(1)
    for n in (0, 1, 3, 64, 1000):
        data = rng.integers(0, 256, n, dtype=np.uint8).tobytes()
        assert crc_bitwise(data, 0xEDB8_8320) == zlib.crc32(data)
        assert crc_bitwise(data, 0x82F6_3B78) == ORACLES["hash.crc32c"](data)


def test_crc32c_package_matches_the_rfc_vectors() -> None:
    crc32c = pytest.importorskip("crc32c")
    for data, expected in hash_crc.CRC32C_VECTORS:
        assert crc32c.crc32c(data) == expected  # pyright: ignore[reportUnknownMemberType]


def test_host_combine_is_zlibs_running_form() -> None:
    """The combine the laws use: crc(a ‖ b) from crc(a), crc(b), len(b)."""
    rng = np.random.default_rng(2)
    for la, lb in ((0, 0), (0, 5), (5, 0), (1, 1), (100, 37), (4096, 4097), (3, 70_000)):
        a = rng.integers(0, 256, la, dtype=np.uint8).tobytes()
        b = rng.integers(0, 256, lb, dtype=np.uint8).tobytes()
        assert hash_crc.combine(zlib.crc32(a), zlib.crc32(b), lb, hash_crc.CRC32) == zlib.crc32(b, zlib.crc32(a))
        assert hash_crc.combine(crc_bitwise(a, hash_crc.CRC32C), crc_bitwise(b, hash_crc.CRC32C), lb, hash_crc.CRC32C) == crc_bitwise(a + b, hash_crc.CRC32C)
        assert hash_adler.combine(zlib.adler32(a), zlib.adler32(b), lb) == zlib.adler32(b, zlib.adler32(a))
    # zlib.crc32_combine's published identity: shift by 0 bytes is the identity
    assert hash_crc.shift(0x1234_5678, 0, hash_crc.CRC32) == 0x1234_5678


CHUNKS = (4, 8, 12, 100, 1024, 4096)
"""Chunk sizes (bytes per invocation): the smallest make several passes of small inputs."""


def _variant(op_id: str, chunk: int) -> KernelSpec:
    spec = registry.get_kernel(op_id)
    if op_id == "hash.adler32":
        return dataclasses.replace(spec, plan=hash_adler.adler_plan(chunk))
    poly = hash_crc.CRC32 if op_id == "hash.crc32" else hash_crc.CRC32C
    return dataclasses.replace(spec, plan=hash_crc.crc_plan(poly, chunk))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("op_id", OPS)
def test_chunk_size_independence(op_id: str, backend: str) -> None:
    """The same checksum for every chunk size (one, two and three passes:
    chunk 4 over 270,001 bytes is 67,501 slots in 264 workgroups, then 2, then 1)."""
    rng = np.random.default_rng(3)
    lengths = (1, 5, 1023, 1025, 4097, 70_001) + ((270_001,) if backend == "wgpu" else ())
    for chunk in CHUNKS:
        spec = _variant(op_id, chunk)
        for n in lengths:
            if backend == "interp" and chunk >= 1024 and n > 5000:
                continue
            data = rng.integers(0, 256, n, dtype=np.uint8) if n % 2 else np.full(n, 0xFF, dtype=np.uint8)
            got = evaluate_kernel(spec, [data], backend)[0]
            assert int(got[0]) == ORACLES[op_id](data.tobytes()), f"{op_id} chunk {chunk}, {n} bytes"
    passes = hash_crc.crc_plan(hash_crc.CRC32, 4)({"data": 270_001}, {})
    assert [step.dispatch[0] for step in passes.steps] == [264, 2, 1]


def test_bad_chunk_sizes_are_rejected() -> None:
    for chunk in (0, 3, 6, -4):
        with pytest.raises(ValueError, match="chunk size"):
            hash_crc.crc_plan(hash_crc.CRC32, chunk)({"data": 10}, {})
    with pytest.raises(ValueError, match="5552"):
        hash_adler.adler_plan(5556)({"data": 10}, {})


@pytest.mark.parametrize("backend", BACKENDS)
def test_padding_bytes_of_the_last_word_are_ignored(backend: str) -> None:
    """C1: the padding of the last word is unspecified; a device buffer whose
    padding bytes are 0xAB gives the checksum of the n bytes alone."""
    from vyre.runtime.wgpu_device import Resident, gpu_device

    rng = np.random.default_rng(4)
    for n in (1, 2, 3, 5, 255, 257, 1025, 4097):
        data = rng.integers(0, 256, n, dtype=np.uint8)
        padded = np.full(-(-n // 4) * 4, 0xAB, dtype=np.uint8)
        padded[:n] = data
        words = padded.view(np.uint32).copy()
        buffer = DeviceBuffer(Resident.upload(gpu_device(), words), DataType.BYTES, n)
        for op_id in OPS:
            got = ops.evaluate(op_id, [buffer], backend=backend)
            assert int(got[0]) == ORACLES[op_id](data.tobytes()), (op_id, n)


def test_bad_arguments() -> None:
    with pytest.raises(TypeError, match="data"):
        ops.evaluate("hash.crc32", [np.zeros(3, dtype=np.uint32)])
    with pytest.raises(TypeError, match="data"):
        ops.evaluate("hash.adler32", ["text"])
    with pytest.raises(ValueError, match="1 input"):
        ops.evaluate("hash.crc32c", [b"a", b"b"])


@pytest.mark.slow  # a certification campaign: make test-all
def test_certified_on_wgpu() -> None:
    cert = conform.certify(backend="wgpu", ops=list(OPS), strength="fast", corpus=None, track="kernel")
    assert cert.passed, [str(f) for f in cert.failures]
    assert cert.level == "L2k"
    for op_id in OPS:
        assert set(cert.data["checks"][op_id]) == {"reference", "parity", "determinism"}
