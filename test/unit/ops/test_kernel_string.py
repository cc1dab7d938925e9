"""string.ascii_lower / ascii_upper, match.byte_class and string.split_offsets
against CPython (`bytes.lower`, `bytes.upper`, `bytes.translate`,
`bytes.split`) on the interpreter and on wgpu: every length 0-300, every byte
value, large inputs (wgpu), both paths of the scan-based split (one workgroup,
and count / scan / scatter past SMALL_CHUNKS), batches, bad arguments, the
certificate. Expected values are computed here from the standard library."""

from __future__ import annotations

import numpy as np
import pytest

from vyre import conform, ops
from vyre.kernels.families.codec_common import CHUNK, SMALL_CHUNKS
from vyre.kernels.run import evaluate_kernel_many
from vyre.ops import registry

pytestmark = pytest.mark.usefixtures("gpu_adapter")

BACKENDS = ("interp", "wgpu")
EVERY_BYTE = bytes(range(256)) * 3


def _data(n: int, seed: int) -> bytes:
    return np.random.default_rng(seed).integers(0, 256, n, dtype=np.uint8).tobytes()


@pytest.mark.parametrize("backend", BACKENDS)
def test_ascii_case_for_every_length_to_300_and_every_byte(backend: str) -> None:
    datas = [_data(n, n) for n in range(301)] + [EVERY_BYTE, b"Hello, World! [@`{] \xc3\x89T\xc3\xa9"]
    for op, oracle in (("string.ascii_lower", bytes.lower), ("string.ascii_upper", bytes.upper)):
        got = ops.evaluate_many(op, [[d] for d in datas], backend=backend)
        for d, g in zip(datas, got):
            assert g.dtype == np.uint8 and g.tobytes() == oracle(d), (op, len(d))


def test_ascii_case_large_on_wgpu() -> None:
    data = _data((1 << 20) + 3, 1)
    assert ops.evaluate("string.ascii_lower", [data], backend="wgpu").tobytes() == data.lower()
    assert ops.evaluate("string.ascii_upper", [data], backend="wgpu").tobytes() == data.upper()


@pytest.mark.parametrize("backend", BACKENDS)
def test_byte_class_for_every_length_to_300(backend: str) -> None:
    rng = np.random.default_rng(4)
    cases = [(_data(n, n + 7), rng.integers(0, 256, 256, dtype=np.uint8)) for n in range(301)]
    cases += [(EVERY_BYTE, np.arange(256, dtype=np.uint8)[::-1].copy()), (EVERY_BYTE, np.zeros(256, np.uint8))]
    got = ops.evaluate_many("match.byte_class", [[d, t] for d, t in cases], backend=backend)
    for (d, t), g in zip(cases, got):
        assert g.tobytes() == d.translate(t.tobytes()), len(d)


def test_byte_class_large_on_wgpu_and_a_class_table() -> None:
    data = _data(3_000_001, 2)
    digits = bytes(1 if 0x30 <= b <= 0x39 else 2 if chr(b).isalpha() and b < 128 else 0 for b in range(256))
    got = ops.evaluate("match.byte_class", [data, digits], backend="wgpu")
    assert got.tobytes() == data.translate(digits)
    assert int(np.count_nonzero(got == 1)) == sum(data.count(bytes([b])) for b in b"0123456789")


def test_byte_class_rejects_a_table_that_is_not_256_bytes() -> None:
    for table in (bytes(255), bytes(257), b""):
        with pytest.raises(ValueError, match="`table` of `match.byte_class` must be 256 bytes"):
            ops.evaluate("match.byte_class", [b"abc", table], backend="interp")


def split_oracle(data: bytes, delim: int) -> tuple[list[int], list[int]]:
    starts, ends, at = [], [], 0
    for token in data.split(bytes([delim])):
        starts.append(at)
        ends.append(at + len(token))
        at += len(token) + 1
    return starts, ends


def _split(cases: list[tuple[bytes, int]], backend: str) -> list[tuple[list[int], list[int]]]:
    got = evaluate_kernel_many(registry.get_kernel("string.split_offsets"), [[d, c] for d, c in cases], backend)
    out: list[tuple[list[int], list[int]]] = []
    for starts, ends, k in got:
        assert len(starts) == len(ends) == int(k[0])
        out.append(([int(s) for s in starts], [int(e) for e in ends]))
    return out


@pytest.mark.parametrize("backend", BACKENDS)
def test_split_offsets_for_every_length_to_300(backend: str) -> None:
    rng = np.random.default_rng(6)
    cases: list[tuple[bytes, int]] = []
    for n in range(301):
        cases.append((rng.choice(np.frombuffer(b",,ab\n\x00\xff", np.uint8), n).tobytes(), 0x2C))
        if n % (5 if backend == "wgpu" else 25) == 0:
            cases += [(b"\x00" * n, 0), (b"\xff" * n, 0xFF), (_data(n, n), int(rng.integers(0, 256)))]
    for (data, delim), (starts, ends) in zip(cases, _split(cases, backend)):
        assert (starts, ends) == split_oracle(data, delim), (data, delim)
        assert [data[s:e] for s, e in zip(starts, ends)] == data.split(bytes([delim]))


@pytest.mark.parametrize("backend", BACKENDS)
def test_split_offsets_past_one_workgroup(backend: str) -> None:
    # past SMALL_CHUNKS chunks: the count, scan and scatter passes
    n = SMALL_CHUNKS * CHUNK + 5
    rng = np.random.default_rng(2)
    text = rng.choice(np.frombuffer(b"a,\n", np.uint8), n).tobytes()
    cases = [(text, 0x2C), (text, 0x0A), (b"\x00" * n, 0)]
    if backend == "wgpu":
        cases.append((rng.choice(np.frombuffer(b"xy ", np.uint8), 3_000_000).tobytes(), 0x20))
    for (data, delim), got in zip(cases, _split(cases, backend)):
        assert got == split_oracle(data, delim), (len(data), delim)


def test_split_offsets_published_shape() -> None:
    starts = ops.evaluate("string.split_offsets", [b"a,,bc,", 0x2C], backend="interp")
    raw = ops.evaluate_raw("string.split_offsets", [b"a,,bc,", 0x2C], backend="wgpu")
    assert starts.tolist() == raw["starts"].tolist() == [0, 2, 3, 6]
    assert raw["ends"].tolist() == [1, 2, 5, 6] and raw["k"].tolist() == [4]
    empty = ops.evaluate_raw("string.split_offsets", [b"", 0x2C], backend="wgpu")
    assert (empty["starts"].tolist(), empty["ends"].tolist(), empty["k"].tolist()) == ([0], [0], [1])


def test_split_offsets_rejects_a_delimiter_that_is_not_a_byte() -> None:
    for delim in (256, 0xFFFF_FFFF):
        with pytest.raises(ValueError, match="`delim` of `string.split_offsets` must be a byte value"):
            ops.evaluate("string.split_offsets", [b"a b", delim], backend="interp")


@pytest.mark.slow  # a certification campaign: make test-all
def test_certified_on_wgpu_with_parity() -> None:
    wanted = ["string.ascii_lower", "string.ascii_upper", "match.byte_class", "string.split_offsets"]
    cert = conform.certify(backend="wgpu", ops=wanted, strength="fast", corpus=None, track="kernel")
    assert cert.passed, [str(f) for f in cert.failures]
    assert cert.level == "L2k"


@pytest.mark.parametrize("backend", BACKENDS)
def test_split_batches_mix_one_workgroup_and_multi_pass_evaluations(backend: str) -> None:
    rng = np.random.default_rng(11)
    big = rng.choice(np.frombuffer(b"ab,", np.uint8), SMALL_CHUNKS * CHUNK + 3).tobytes()
    cases = [(b"a,b", 0x2C), (big, 0x2C), (b"", 0x2C), (big[:999], 0x61), (b",,", 0x2C), (big, 0x62)]
    got = _split(cases, backend)
    for (data, delim), result in zip(cases, got):
        assert result == split_oracle(data, delim), (len(data), delim)


def test_histogram_of_lower_case_has_no_upper_case_mass() -> None:
    # a cross-op law: byte_histogram(ascii_lower(x)) has no mass on A-Z
    data = EVERY_BYTE + _data(5000, 12)
    lowered = ops.evaluate("string.ascii_lower", [data], backend="wgpu")
    histogram = ops.evaluate("stats.byte_histogram", [lowered], backend="wgpu")
    assert int(histogram[ord("A") : ord("Z") + 1].sum()) == 0
    before = np.bincount(np.frombuffer(data, np.uint8), minlength=256)
    assert histogram[ord("a") : ord("z") + 1].tolist() == (before[ord("a") : ord("z") + 1] + before[ord("A") : ord("Z") + 1]).tolist()
