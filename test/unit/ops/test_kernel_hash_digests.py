"""hash.md5, hash.sha1 and hash.sha256 (version 2, Bytes digests) against
`hashlib` and the published vectors (FIPS 180-4, RFC 1321 §A.5, RFC 3174) on the
interpreter and on wgpu: every length 0-300 in one batched evaluation (every
padding boundary), random lengths (past one dispatch on both backends, up to
1 MiB on wgpu), batch = single, garbage padding bytes, the certificate on
lavapipe (whose parity check runs the interpreter on every case)."""

from __future__ import annotations

import dataclasses
import hashlib

import numpy as np
import pytest

from vyre import conform, ops
from vyre.ir import DataType
from vyre.kernels.families import hash_digests
from vyre.kernels.run import evaluate_kernel, evaluate_kernel_many
from vyre.ops import registry
from vyre.runtime.device_buffer import DeviceBuffer

pytestmark = pytest.mark.usefixtures("gpu_adapter")

BACKENDS = ("interp", "wgpu")
OPS = {"hash.md5": "md5", "hash.sha1": "sha1", "hash.sha256": "sha256"}


def _check(op_id: str, inputs: list[np.ndarray], backend: str) -> None:
    outs = ops.evaluate_many(op_id, [[x] for x in inputs], backend=backend)
    for x, out in zip(inputs, outs):
        expected = hashlib.new(OPS[op_id], x.tobytes()).digest()
        assert out.dtype == np.uint8 and out.tobytes() == expected, f"{op_id} of {len(x)} bytes: {out.tobytes().hex()}"


@pytest.mark.parametrize("op_id", OPS)
@pytest.mark.parametrize("backend", BACKENDS)
def test_every_length_up_to_300(op_id: str, backend: str) -> None:
    rng = np.random.default_rng(21)
    inputs = [rng.integers(0, 256, n, dtype=np.uint8) for n in range(301)]
    inputs += [np.full(n, 0xFF, dtype=np.uint8) for n in (55, 56, 63, 64, 119, 120)]
    _check(op_id, inputs, backend)


HASHES = {"hash.md5": hash_digests.MD5, "hash.sha1": hash_digests.SHA1, "hash.sha256": hash_digests.SHA256}


@pytest.mark.parametrize("op_id", OPS)
def test_long_messages_carry_the_state_across_dispatches_on_wgpu(op_id: str) -> None:
    """One dispatch walks per_dispatch blocks of a message (128 for SHA-1 and
    SHA-256, 256 for MD5): lengths around that, and up to 1 MiB."""
    rng = np.random.default_rng(22)
    block = 64 * HASHES[op_id].per_dispatch
    lengths = [block - 9, block - 8, block + 1, 1 << 20, int(rng.integers(300, 1 << 20))]
    _check(op_id, [rng.integers(0, 256, n, dtype=np.uint8) for n in lengths], "wgpu")


@pytest.mark.parametrize("backend", BACKENDS)
def test_state_carry_with_two_blocks_per_dispatch(backend: str) -> None:
    """The same digests with per_dispatch = 2 (a 300-byte message is 5 blocks,
    3 dispatches), batched and one by one, so the interpreter sees the state
    carried between dispatches too."""
    rng = np.random.default_rng(25)
    inputs = [rng.integers(0, 256, n, dtype=np.uint8) for n in (0, 55, 119, 120, 183, 184, 300, 64)]
    for op_id, name in OPS.items():
        h = dataclasses.replace(HASHES[op_id], per_dispatch=2)
        spec = hash_digests.digest_spec(f"test.{name}_2", h, name, ())
        assert len(spec.plan({"data": 300}, {}).steps) == 3
        many = evaluate_kernel_many(spec, [[x] for x in inputs], backend)
        singles = [evaluate_kernel(spec, [x], backend) for x in inputs[-3:]]
        for x, out in [*zip(inputs, many), *zip(inputs[-3:], singles)]:
            assert out[0].tobytes() == hashlib.new(name, x.tobytes()).digest(), (op_id, len(x))


@pytest.mark.parametrize("backend", BACKENDS)
def test_published_vectors(backend: str) -> None:
    for op_id, vectors in (
        ("hash.md5", hash_digests.MD5_VECTORS),
        ("hash.sha1", hash_digests.SHA1_VECTORS),
        ("hash.sha256", hash_digests.SHA256_VECTORS),
    ):
        outs = ops.evaluate_many(op_id, [[data] for data, _ in vectors], backend=backend)
        assert [o.tobytes() for o in outs] == [d for _, d in vectors], op_id
        assert all(hashlib.new(OPS[op_id], data).digest() == d for data, d in vectors)
    got = ops.evaluate("hash.sha256", [b"abc"], backend=backend)
    assert got.dtype == np.uint8 and got.shape == (32,)
    assert got.tobytes().hex() == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    assert ops.evaluate("hash.md5", [b""], backend=backend).tobytes().hex() == "d41d8cd98f00b204e9800998ecf8427e"
    assert ops.evaluate("hash.sha1", [b"abc"], backend=backend).tobytes().hex() == "a9993e364706816aba3e25717850c26c9cd0d89d"


def test_constants_are_fips_180_4() -> None:
    assert hash_digests.SHA256_K[:2] == (0x428A_2F98, 0x7137_4491)
    assert hash_digests.SHA256_K[-1] == 0xC671_78F2
    assert hash_digests.SHA256_INIT == (
        0x6A09_E667, 0xBB67_AE85, 0x3C6E_F372, 0xA54F_F53A, 0x510E_527F, 0x9B05_688C, 0x1F83_D9AB, 0x5BE0_CD19,
    )
    assert hash_digests.MD5_K[0] == 0xD76A_A478 and hash_digests.MD5_K[63] == 0xEB86_D391


def test_signatures_are_version_2_bytes() -> None:
    for op_id, name in OPS.items():
        spec = registry.get_kernel(op_id)
        assert spec.version == 2 and spec.kind == "batch"
        assert [p.dtype for p in spec.inputs] == [DataType.BYTES]
        assert [p.dtype for p in spec.outputs] == [DataType.BYTES]
        assert spec.reference(np.frombuffer(b"abc", dtype=np.uint8))[0].tobytes() == hashlib.new(name, b"abc").digest()


@pytest.mark.parametrize("backend", BACKENDS)
def test_batch_equals_single(backend: str) -> None:
    rng = np.random.default_rng(23)
    inputs = [rng.integers(0, 256, n, dtype=np.uint8) for n in (0, 56, 3, 200, 64, 0, 1)]
    for op_id in OPS:
        many = ops.evaluate_many(op_id, [[x] for x in inputs], backend=backend)
        single = [ops.evaluate(op_id, [x], backend=backend) for x in inputs]
        assert [m.tobytes() for m in many] == [s.tobytes() for s in single], op_id


@pytest.mark.parametrize("backend", BACKENDS)
def test_padding_bytes_of_the_last_word_are_ignored(backend: str) -> None:
    from vyre.runtime.wgpu_device import Resident, gpu_device

    rng = np.random.default_rng(24)
    for n in (1, 2, 3, 53, 54, 55, 57, 63):
        data = rng.integers(0, 256, n, dtype=np.uint8)
        padded = np.full(-(-n // 4) * 4, 0xAB, dtype=np.uint8)
        padded[:n] = data
        buffer = DeviceBuffer(Resident.upload(gpu_device(), padded.view(np.uint32).copy()), DataType.BYTES, n)
        for op_id, name in OPS.items():
            got = ops.evaluate(op_id, [buffer], backend=backend)
            assert got.tobytes() == hashlib.new(name, data.tobytes()).digest(), (op_id, n)


@pytest.mark.slow  # a certification campaign: make test-all
def test_certified_on_wgpu() -> None:
    cert = conform.certify(backend="wgpu", ops=list(OPS), strength="fast", corpus=None, track="kernel")
    assert cert.passed, [str(f) for f in cert.failures]
    assert cert.level == "L2k"
    for op_id in OPS:
        assert set(cert.data["checks"][op_id]) == {"reference", "parity", "determinism"}
