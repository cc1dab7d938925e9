"""encode.uleb128_u32 and decode.uleb128_u32 against the DWARF 5 §7.6 vectors,
the `leb128` package (a test extra: skipped without it, the vectors are
asserted either way) and a left-to-right reader written here, on the
interpreter and on wgpu: every count 0-300, streams of every byte length 0-300
(cut inside values), overflow and truncation at every position class, inputs
past the one-workgroup form, 1 MiB (wgpu), the certificate."""

from __future__ import annotations

import io

import numpy as np
import pytest

import vyre
from vyre import conform, ops
from vyre.kernels.families.codec_common import SMALL_CHUNKS
from vyre.kernels.run import evaluate_kernel_many
from vyre.kernels.spec import NO_ERROR
from vyre.ops import registry

pytestmark = pytest.mark.usefixtures("gpu_adapter")

BACKENDS = ("interp", "wgpu")
DWARF = [(2, "02"), (127, "7f"), (128, "8001"), (129, "8101"), (130, "8201"), (12857, "b964"), (624485, "e58e26")]
EDGES = [(0, "00"), (0xFFFF_FFFF, "ffffffff0f"), (1 << 28, "8080808001"), ((1 << 28) - 1, "ffffff7f")]


def encode(values: list[int]) -> bytes:
    out = bytearray()
    for v in values:
        while v >= 0x80:
            out.append(v & 0x7F | 0x80)
            v >>= 7
        out.append(v)
    return bytes(out)


def read(stream: bytes) -> tuple[list[int], int, int]:
    """(values, error offset, code) by reading left to right."""
    values, i = [], 0
    while i < len(stream):
        start, value = i, 0
        for k in range(5):
            if i == len(stream):
                return [], start, 5
            if k == 4 and stream[i] > 0x0F:
                return [], i, 6
            value |= (stream[i] & 0x7F) << (7 * k)
            i += 1
            if stream[i - 1] < 0x80:
                break
        values.append(value)
    return values, NO_ERROR, 0


def values_of(n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    bits = rng.integers(0, 33, n).astype(np.uint64)
    return (rng.integers(0, 2**32, n, dtype=np.uint64) >> (np.uint64(32) - bits)).astype(np.uint32)


def decode_raw(streams: list[bytes], backend: str) -> list[tuple[list[int], int, int]]:
    got = evaluate_kernel_many(registry.get_kernel("decode.uleb128_u32"), [[s] for s in streams], backend, raise_errors=False)
    return [([int(v) for v in values], int(error[0]), int(code[0])) for values, _, error, code in got]


@pytest.mark.parametrize("backend", BACKENDS)
def test_dwarf_vectors(backend: str) -> None:
    cases = DWARF + EDGES
    encoded = ops.evaluate_many("encode.uleb128_u32", [[np.array([v], np.uint32)] for v, _ in cases], backend=backend)
    assert [e.tobytes().hex() for e in encoded] == [h for _, h in cases]
    decoded = ops.evaluate_many("decode.uleb128_u32", [[bytes.fromhex(h)] for _, h in cases], backend=backend)
    assert [d.tolist() for d in decoded] == [[v] for v, _ in cases]
    whole = ops.evaluate("encode.uleb128_u32", [np.array([v for v, _ in cases], np.uint32)], backend=backend)
    assert whole.tobytes().hex() == "".join(h for _, h in cases)
    padded = ops.evaluate("decode.uleb128_u32", [bytes.fromhex("80008100ff80808000")], backend=backend)
    assert padded.tolist() == [0, 1, 127]  # non-minimal forms (DWARF padding) decode


def test_the_leb128_package_agrees() -> None:
    leb128 = pytest.importorskip("leb128")
    values = values_of(2000, 1)
    stream = ops.evaluate("encode.uleb128_u32", [values], backend="wgpu").tobytes()
    assert stream == b"".join(bytes(leb128.u.encode(int(v))) for v in values)
    reader, back = io.BytesIO(stream), []
    while reader.tell() < len(stream):
        back.append(leb128.u.decode_reader(reader)[0])
    assert ops.evaluate("decode.uleb128_u32", [stream], backend="interp").tolist() == back == values.tolist()


@pytest.mark.parametrize("backend", BACKENDS)
def test_every_count_and_every_stream_length_to_300(backend: str) -> None:
    step = 1 if backend == "wgpu" else 3
    many = [values_of(n, n) for n in range(0, 301, step)]
    encoded = ops.evaluate_many("encode.uleb128_u32", [[v] for v in many], backend=backend)
    for values, got in zip(many, encoded):
        assert got.tobytes() == encode(values.tolist())
    stream = encode(values_of(400, 9).tolist())
    streams = [stream[:n] for n in range(0, 301, step)]
    for cut, got in zip(streams, decode_raw(streams, backend)):
        assert got == read(cut), cut.hex()


@pytest.mark.parametrize("backend", BACKENDS)
def test_overflow_and_truncation_at_every_position_class(backend: str) -> None:
    streams: list[bytes] = []
    for n in range(1, 30):
        values = values_of(n, 100 + n).tolist()
        for at in sorted({0, n // 2, n - 1}):
            for bad in ([0x80] * 5 + [0x00], [0xFF] * 4 + [0x10], [0x80] * 3, [0x80, 0x80, 0x80, 0x80, 0x8F, 0x01]):
                tail = values[at + 1 :] if at < n - 1 else []
                streams.append(encode(values[:at]) + bytes(bad) + encode(tail))
        streams.append(encode(values) + b"\x80")
        streams.append(encode(values) + b"\xff\xff\xff\xff")
        streams.append(encode(values) + b"\xff\xff\xff\xff\x0f")  # the largest value: fine
    results = decode_raw(streams, backend)
    for stream, got in zip(streams, results):
        assert got == read(stream), stream.hex()
    assert {code for _, _, code in results} == {0, 5, 6}
    with pytest.raises(vyre.OpInputError) as info:
        ops.evaluate("decode.uleb128_u32", [b"\x01\x80\x80\x80\x80\x80"], backend=backend)
    assert (info.value.offset, info.value.code) == (5, 6)
    with pytest.raises(vyre.OpInputError) as info:
        ops.evaluate("decode.uleb128_u32", [b"\x01\x02\x81"], backend=backend)
    assert (info.value.offset, info.value.code) == (2, 5)


@pytest.mark.parametrize("backend", BACKENDS)
def test_past_one_workgroup(backend: str) -> None:
    values = values_of(2 * SMALL_CHUNKS + 77, 5)  # encode: one chunk a value
    stream = ops.evaluate("encode.uleb128_u32", [values], backend=backend).tobytes()
    assert stream == encode(values.tolist())
    assert len(stream) > 4 * SMALL_CHUNKS  # decode: one chunk a word
    assert decode_raw([stream, stream[:-1]], backend) == [read(stream), read(stream[:-1])]


def test_one_mebibyte_on_wgpu() -> None:
    values = values_of(300_000, 6)
    stream = ops.evaluate("encode.uleb128_u32", [values], backend="wgpu").tobytes()
    assert stream == encode(values.tolist())
    assert ops.evaluate("decode.uleb128_u32", [stream], backend="wgpu").tobytes() == values.tobytes()
    damaged = bytearray(stream)
    damaged[len(stream) // 2 : len(stream) // 2 + 5] = b"\x80\x80\x80\x80\x20"
    assert decode_raw([bytes(damaged)], "wgpu")[0][1:] == read(bytes(damaged))[1:]


def test_certified_on_wgpu_with_parity() -> None:
    wanted = ["encode.uleb128_u32", "decode.uleb128_u32"]
    cert = conform.certify(backend="wgpu", ops=wanted, strength="fast", corpus=None, track="kernel")
    assert cert.passed, [str(f) for f in cert.failures]
    assert cert.level == "L2k"
