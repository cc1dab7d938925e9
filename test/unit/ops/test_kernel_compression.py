"""compression.deflate_decompress / zlib_decompress / gzip_decompress and
decode.inflate_stored against CPython (`zlib.decompress(data, -15)`,
`zlib.decompress(data)`, `gzip.decompress(data)`), the only oracles: on the
interpreter and on wgpu, every level 0-9, strategy and window size, every
length 0-300 of compressible and random data (many streams in one
`evaluate_many`), empty input, 65,535-byte stored blocks, matches of 258 at
distances 1 and 32,768, sizes up to 1 MiB, outputs past the first capacity
(re-planned), gzip members and header fields, and malformed input: the
`OpInputError` code is CPython's (5 where it says truncated, 7 otherwise),
never a partial result."""

from __future__ import annotations

import dataclasses
import gzip
import zlib
from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest

import vyre
from vyre import ops
from vyre.kernels.families.compression import initial_capacity
from vyre.kernels.families.compression_host import STRATEGIES, Settings, compress, gzip_member
from vyre.kernels.run import evaluate_kernel_many
from vyre.kernels.samplers import text_bytes
from vyre.kernels.spec import NO_ERROR
from vyre.ops import registry

pytestmark = pytest.mark.usefixtures("gpu_adapter")

BACKENDS = ("interp", "wgpu")
OPS = {
    "compression.deflate_decompress": "deflate",
    "compression.zlib_decompress": "zlib",
    "compression.gzip_decompress": "gzip",
}
Outcome = tuple[bytes, int]
"""(output, 0) or (b"", C6 code)."""


def cpython(fmt: str, data: bytes) -> Outcome:
    """CPython's result: the bytes, or the code its error means."""
    try:
        if fmt == "deflate":
            return zlib.decompress(data, -15), 0
        if fmt == "zlib":
            return zlib.decompress(data), 0
        return gzip.decompress(data), 0
    except EOFError:
        return b"", 5
    except zlib.error as error:
        return b"", 5 if "Error -5" in str(error) else 7
    except gzip.BadGzipFile:
        return b"", 7


def raw(op_id: str, streams: Sequence[bytes], backend: str) -> list[tuple[bytes, int, int]]:
    """(output, error offset, error code) of each stream, in one evaluate_many."""
    spec = registry.get_kernel(op_id)
    results = evaluate_kernel_many(spec, [[s] for s in streams], backend, raise_errors=False)
    return [(r[0].tobytes(), int(r[2][0]), int(r[3][0])) for r in results]


def check_all(op_id: str, streams: Sequence[bytes], backend: str) -> list[tuple[bytes, int, int]]:
    fmt = OPS[op_id]
    got = raw(op_id, streams, backend)
    for k, (stream, (out, offset, code)) in enumerate(zip(streams, got)):
        expected, expected_code = cpython(fmt, stream)
        assert code == expected_code, (k, len(stream), stream[:32].hex(), offset, code, expected_code)
        assert out == expected, (k, len(stream), len(out), len(expected))
        assert (offset == NO_ERROR) == (code == 0), (k, offset, code)
        if code:
            assert offset <= len(stream), (k, offset, len(stream))
    return got


def random_bytes(n: int, seed: int) -> bytes:
    return np.random.default_rng(seed).integers(0, 256, n, dtype=np.uint8).tobytes()


def text(n: int, seed: int) -> bytes:
    return text_bytes(np.random.default_rng(seed), n)


# ---------------------------------------------------------------------------
# Well-formed streams
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("op_id", sorted(OPS))
def test_every_level_strategy_and_window(op_id: str, backend: str) -> None:
    fmt = OPS[op_id]
    data = [text(200, 1), random_bytes(60, 2), bytes(150), b"ab" * 40]
    streams: list[bytes] = []
    for level in range(10):
        for k, strategy in enumerate(STRATEGIES):
            window = 9 + (level + k) % 7
            settings = Settings(level=level, strategy=strategy, window=window, memory=1 + (level * 5 + k) % 9)
            streams.append(compress(fmt, data[(level + k) % len(data)], settings))
    check_all(op_id, streams, backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_every_length_0_to_300(backend: str) -> None:
    # interp: one format, every 7th length; wgpu: all formats, every length
    lengths = range(0, 301) if backend == "wgpu" else range(0, 301, 7)
    op_ids = sorted(OPS) if backend == "wgpu" else ["compression.zlib_decompress"]
    for op_id in op_ids:
        fmt = OPS[op_id]
        streams: list[bytes] = []
        for n in lengths:
            streams.append(compress(fmt, text(n, n), Settings(level=n % 10)))
            streams.append(compress(fmt, random_bytes(n, n), Settings(level=(n * 3) % 10, strategy=STRATEGIES[n % 5])))
        got = check_all(op_id, streams, backend)
        assert all(code == 0 for _, _, code in got)


@pytest.mark.parametrize("backend", BACKENDS)
def test_empty_input(backend: str) -> None:
    # a raw or zlib stream needs at least a block header; gzip.decompress(b"") is b""
    assert [r[1:] for r in raw("compression.deflate_decompress", [b""], backend)] == [(0, 5)]
    assert [r[1:] for r in raw("compression.zlib_decompress", [b""], backend)] == [(0, 5)]
    assert raw("compression.gzip_decompress", [b""], backend) == [(b"", NO_ERROR, 0)]
    with pytest.raises(vyre.OpInputError) as info:
        ops.evaluate("compression.zlib_decompress", [b""], backend=backend)
    assert (info.value.offset, info.value.code) == (0, 5)
    assert ops.evaluate("compression.gzip_decompress", [b""], backend=backend).tobytes() == b""
    for op_id, fmt in sorted(OPS.items()):
        empty = [compress(fmt, b"", Settings(level=level)) for level in (0, 6)]
        assert [r[1:] for r in raw(op_id, empty, backend)] == [(NO_ERROR, 0), (NO_ERROR, 0)]


def test_long_matches_and_stored_blocks_on_wgpu() -> None:
    block = random_bytes(32768, 7)
    streams = [
        compress("zlib", bytes(70_000), Settings(level=9)),  # matches of 258 at distance 1
        compress("zlib", block + block + block[:1000], Settings(level=9)),  # matches at distance 32,768
        compress("zlib", b"xy" * 30_000, Settings(level=1, strategy=zlib.Z_RLE)),
        compress("zlib", random_bytes(65_535 * 2 + 17, 8), Settings(level=0)),  # stored blocks of 65,535
        compress("deflate", random_bytes(65_535, 9), Settings(level=0)),
    ]
    assert max(len(s) for s in streams) > 2 * 65_535
    check_all("compression.zlib_decompress", streams[:4], "wgpu")
    check_all("compression.deflate_decompress", streams[4:], "wgpu")


def test_long_matches_on_the_interpreter() -> None:
    streams = [
        compress("deflate", bytes(1100), Settings(level=9)),  # 258 at distance 1
        compress("deflate", b"abc" * 200 + b"abcdefg" * 100, Settings(level=9)),  # distances 3 and 7
        compress("deflate", random_bytes(40, 3) * 20, Settings(level=9)),  # distance 40
    ]
    got = check_all("compression.deflate_decompress", streams, "interp")
    assert all(code == 0 for _, _, code in got)


def test_sizes_up_to_one_mebibyte_on_wgpu() -> None:
    rng = np.random.default_rng(11)
    sizes = [int(s) for s in rng.integers(1, 1 << 18, 4)]
    streams = [compress("gzip", random_bytes(1 << 20, 1), Settings(level=6))]
    streams += [compress("gzip", text(n, n), Settings(level=k % 10)) for k, n in enumerate(sizes)]
    check_all("compression.gzip_decompress", streams, "wgpu")


@pytest.mark.parametrize("backend", BACKENDS)
def test_output_past_the_first_capacity_is_replanned(backend: str) -> None:
    spec = registry.get_kernel("compression.zlib_decompress")
    calls: list[int] = []
    original = spec.replan
    assert original is not None

    def counting(sizes: Any, scalars: Any, outputs: Any) -> Any:
        calls.append(int(outputs["error_code"]))
        return original(sizes, scalars, outputs)

    spec = dataclasses.replace(spec, replan=counting)
    big = 30_000 if backend == "wgpu" else 4_000
    small = compress("zlib", b"abc" * 10)
    huge = compress("zlib", bytes(big), Settings(level=9))
    assert big > initial_capacity(len(huge))
    # past the capacity and then broken: the error is found by the re-planned run
    broken = bytearray(compress("zlib", bytes(big) + b"tail", Settings(level=9)))
    broken[-1] ^= 1
    streams = [small, huge, bytes(broken)]
    results = evaluate_kernel_many(spec, [[s] for s in streams], backend, raise_errors=False)
    got = [(r[0].tobytes(), int(r[2][0]), int(r[3][0])) for r in results]
    assert got[:2] == [(b"abc" * 10, NO_ERROR, 0), (bytes(big), NO_ERROR, 0)]
    assert [code for _, _, code in got] == [0, 0, 7]
    assert got[2][1] == len(broken) - 4  # the Adler-32 trailer
    # after the batch two report code 8; after their second run (with their exact
    # lengths) none asks again
    assert calls[:3] == [0, 8, 8] and sorted(calls[3:]) == [0, 0, 7]


# ---------------------------------------------------------------------------
# Framing: gzip members and header fields, zlib headers, trailing data
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("backend", BACKENDS)
def test_gzip_members_and_header_fields(backend: str) -> None:
    a, b = text(120, 1), random_bytes(40, 2)
    streams = [gzip_member(a, Settings(gzip_flags=flags, level=flags % 10)) for flags in range(32)]
    bad_hcrc = bytearray(gzip_member(a, Settings(gzip_flags=2)))
    bad_hcrc[10] ^= 0xFF  # CPython skips FHCRC without checking it
    reserved = bytearray(gzip_member(a, Settings()))
    reserved[3] = 0xE0  # reserved flag bits: ignored by CPython
    one, two = gzip.compress(a), gzip.compress(b)
    streams += [
        bytes(bad_hcrc),
        bytes(reserved),
        one + two,  # concatenated members
        one + bytes(7) + two + bytes(3),  # zero padding between and after members
        one + bytes(5) + b"x",  # trailing garbage: BadGzipFile
        one + b"\x1f",  # half a magic
        one + b"\x1f\x8b\x08",  # a member cut in its header: EOFError
        gzip_member(a, Settings(gzip_flags=8), name=b"no end")[:14],  # FNAME runs to the end: EOFError
        one[:-4],  # cut in the trailer
        one[:-8] + (zlib.crc32(a) ^ 1).to_bytes(4, "little") + one[-4:],  # CRC-32
        one[:-4] + (len(a) + 1).to_bytes(4, "little"),  # ISIZE
        b"\x1f\x8b\x07" + one[3:],  # method
        b"\x1e" + one[1:],  # magic
    ]
    got = check_all("compression.gzip_decompress", streams, backend)
    assert [code for _, _, code in got[-9:]] == [7, 7, 5, 5, 5, 7, 7, 7, 7]
    assert [offset for _, offset, _ in got[-4:]] == [len(one) - 8, len(one) - 4, 2, 0]
    assert got[34] == (a + b, NO_ERROR, 0) and got[35] == (a + b, NO_ERROR, 0)


@pytest.mark.parametrize("backend", BACKENDS)
def test_zlib_headers_and_trailing_data(backend: str) -> None:
    good = zlib.compress(b"hello zlib" * 20)

    def header(cmf: int, flags: int) -> bytes:  # FCHECK makes CMF * 256 + FLG a multiple of 31
        return bytes([cmf, flags | (31 - (cmf << 8 | flags) % 31) % 31])

    dictionary = header(0x78, 0x20) + (12345).to_bytes(4, "big") + good[2:]  # FDICT
    streams = [
        good + b"trailing garbage",  # ignored, as zlib.decompress does
        good + bytes(100),
        dictionary,
        dictionary[:5],
        bytes([0x78, 0x9D]) + good[2:],  # header check
        header(0x79, 0) + good[2:],  # method 9
        header(0x88, 0) + good[2:],  # CINFO 8: a window of 64 KiB
        good[:1],
        good[:-1],
    ]
    got = check_all("compression.zlib_decompress", streams, backend)
    assert [(offset, code) for _, offset, code in got[2:]] == [(1, 7), (2, 5), (0, 7), (0, 7), (0, 7), (0, 5), (len(good) - 4, 5)]


# ---------------------------------------------------------------------------
# Malformed input
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("op_id", sorted(OPS))
def test_every_truncation_is_truncated(op_id: str, backend: str) -> None:
    fmt = OPS[op_id]
    stream = compress(fmt, text(150, 5) + random_bytes(30, 6), Settings(level=6, gzip_flags=0x1E))
    step = 1 if backend == "wgpu" else 5
    cuts = list(range(0, len(stream), step))
    got = check_all(op_id, [stream[:k] for k in cuts], backend)
    for k, (_, offset, code) in zip(cuts, got):
        if fmt == "gzip" and k <= 1:  # b"" is no member; b"\x1f" is a bad magic (BadGzipFile)
            assert (offset, code) == ((NO_ERROR, 0) if k == 0 else (0, 7))
        else:
            assert code == 5 and offset <= k, (k, offset, code)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("op_id", sorted(OPS))
def test_damaged_streams_agree_with_cpython(op_id: str, backend: str) -> None:
    fmt = OPS[op_id]
    rng = np.random.default_rng(21)
    sources = [compress(fmt, text(300, 8), Settings(level=9)), compress(fmt, random_bytes(100, 9), Settings(level=1)),
               compress(fmt, text(200, 10), Settings(level=6, strategy=zlib.Z_FIXED))]
    streams: list[bytes] = []
    count = 60 if backend == "wgpu" else 12
    for k in range(count):
        damaged = bytearray(sources[k % 3])
        for _ in range(1 + k % 3):
            at = int(rng.integers(0, len(damaged)))
            damaged[at] ^= 1 << int(rng.integers(0, 8)) if k % 2 else int(rng.integers(1, 256))
        streams.append(bytes(damaged))
    got = check_all(op_id, streams, backend)
    assert any(code == 7 for _, _, code in got)


def test_op_input_error_names_the_op_offset_code_and_cause() -> None:
    stream = bytearray(zlib.compress(text(400, 12), 9))
    stream[-2] ^= 0x10
    with pytest.raises(vyre.OpInputError) as info:
        ops.evaluate("compression.zlib_decompress", [bytes(stream)], backend="wgpu")
    error = info.value
    assert (error.op_id, error.offset, error.code) == ("compression.zlib_decompress", len(stream) - 4, 7)
    assert "Adler-32" in str(error) and "corrupt stream" in str(error)
    good = zlib.compress(b"fine")
    with pytest.raises(vyre.OpInputError):  # one bad stream fails the whole batch, nothing half-decoded
        ops.evaluate_many("compression.zlib_decompress", [[good], [bytes(stream)]], backend="wgpu")


@pytest.mark.parametrize("backend", BACKENDS)
def test_distance_too_far_back_and_invalid_codes(backend: str) -> None:
    # fixed blocks written bit by bit: literal 'a', then length 3 at distance 2 (1 byte out: too far)
    def fixed_block(codes: Sequence[tuple[int, int]]) -> bytes:
        bits, count_ = 0b011, 3  # BFINAL = 1, BTYPE = 01 (fixed)
        for value, width in codes:
            for k in range(width):  # Huffman codes go most significant bit first
                bits |= ((value >> (width - 1 - k)) & 1) << count_
                count_ += 1
        return bits.to_bytes((count_ + 7) // 8, "little")

    literal_a = (0x30 + ord("a"), 8)
    length_3 = (0b0000001, 7)  # symbol 257
    distance_2 = (0b00001, 5)
    end = (0, 7)
    streams = [
        fixed_block([literal_a, length_3, (0b00000, 5), end]),  # distance 1: fine ("aaaa")
        fixed_block([literal_a, length_3, distance_2, end]),  # distance 2 > 1 byte out
        fixed_block([literal_a, (0b11000110, 8), end]),  # symbol 286: invalid
        fixed_block([literal_a, length_3, (0b11110, 5), end]),  # distance code 30: invalid
        bytes([0b111]),  # block type 3
    ]
    got = check_all("compression.deflate_decompress", streams, backend)
    assert got[0] == (b"aaaa", NO_ERROR, 0)
    assert [(offset, code) for _, offset, code in got[1:]] == [(2, 7), (1, 7), (2, 7), (0, 7)]


# ---------------------------------------------------------------------------
# decode.inflate_stored
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("backend", BACKENDS)
def test_inflate_stored(backend: str) -> None:
    sizes = [0, 1, 3, 4, 5, 255, 1000] + ([65_535, 65_536 + 9] if backend == "wgpu" else [])
    level0 = [compress("deflate", random_bytes(n, n), Settings(level=0)) for n in sizes]
    spec = registry.get_kernel("decode.inflate_stored")
    results = evaluate_kernel_many(spec, [[s] for s in level0], backend, raise_errors=False)
    for n, s, r in zip(sizes, level0, results):
        assert r[0].tobytes() == zlib.decompress(s, -15) and int(r[3][0]) == 0, n
    fixed = compress("deflate", b"abcabcabc", Settings(level=6))
    with pytest.raises(vyre.OpInputError) as info:
        ops.evaluate("decode.inflate_stored", [fixed], backend=backend)
    assert (info.value.offset, info.value.code) == (0, 7)
    assert "not a stored block" in str(info.value)
    two = compress("deflate", b"", Settings(level=0))[:-5] + b"\x00\x00\x00\xff\xff" + fixed
    assert ops.evaluate("compression.deflate_decompress", [two], backend=backend).tobytes() == b"abcabcabc"
    with pytest.raises(vyre.OpInputError) as info:
        ops.evaluate("decode.inflate_stored", [two], backend=backend)
    assert (info.value.offset, info.value.code) == (5, 7)


def test_outputs_stay_on_the_device() -> None:
    streams = [zlib.compress(text(3000, 13)), zlib.compress(bytes(50_000))]
    outputs = ops.evaluate_many("compression.zlib_decompress", [[s] for s in streams], backend="wgpu", on_device=True)
    assert [o.numpy().tobytes() for o in outputs] == [zlib.decompress(s) for s in streams]


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_large_batch_goes_in_waves(backend: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from vyre.kernels.families import compression

    monkeypatch.setattr(compression, "WAVE", 3)  # 11 streams: waves of 3, 3, 3, 2
    streams = [compress("gzip", text(20 * k, k), Settings(level=k % 10, gzip_flags=k)) for k in range(10)]
    streams.append(b"\x1f\x8b\x08\x00")  # truncated, in the last wave
    got = check_all("compression.gzip_decompress", streams, backend)
    assert [code for _, _, code in got] == [0] * 10 + [5]
    spec = registry.get_kernel("compression.gzip_decompress")
    assert spec.plan_many is not None
    empty: dict[str, int] = {}
    batch = spec.plan_many([{"data": len(s)} for s in streams], [empty] * len(streams))
    assert len(batch.plan.repeats) == 4


@pytest.mark.parametrize("backend", BACKENDS)
def test_an_output_past_the_u32_limit_fails_with_code_6(backend: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from vyre.kernels.families import compression

    monkeypatch.setattr(compression, "MAX_OUTPUT", 1000)  # the limit is 2^32 - 65,536 bytes
    fits, bomb = zlib.compress(bytes(1000)), zlib.compress(bytes(1001))
    broken = bytearray(zlib.compress(bytes(2000)))
    broken[-1] ^= 1  # its checksum fails after the output passed the limit: 6 first
    spec = registry.get_kernel("compression.zlib_decompress")
    results = evaluate_kernel_many(spec, [[fits], [bomb], [bytes(broken)]], backend, raise_errors=False)
    assert [(r[0].tobytes(), int(r[2][0]), int(r[3][0])) for r in results] == [
        (bytes(1000), NO_ERROR, 0), (b"", 0, 6), (b"", 0, 6),
    ]
    for stream in (bomb, bytes(broken)):
        expected = spec.reference(np.frombuffer(stream, dtype=np.uint8))
        assert (int(expected[2][0]), int(expected[3][0])) == (0, 6)
    with pytest.raises(vyre.OpInputError) as info:
        ops.evaluate("compression.zlib_decompress", [bomb], backend=backend)
    assert (info.value.offset, info.value.code) == (0, 6) and "overflow" in str(info.value)


@pytest.mark.parametrize("backend", BACKENDS)
def test_codes_longer_than_the_root_tables(backend: str) -> None:
    # bytes of a geometric distribution, Huffman only: literal codes of up to 13
    # bits (the root table has 9); text with far matches: distance codes of up to
    # 12 bits (root 7); both decoded by the canonical slow path
    rng = np.random.default_rng(4)
    geometric = bytes(min(255, int(x)) for x in rng.geometric(0.35, 3000 if backend == "interp" else 20_000))
    far = text(6000 if backend == "interp" else 50_000, 14)
    streams = [
        compress("deflate", geometric, Settings(level=9, strategy=zlib.Z_HUFFMAN_ONLY, memory=9)),
        compress("deflate", far, Settings(level=9, memory=9)),
    ]
    got = check_all("compression.deflate_decompress", streams, backend)
    assert all(code == 0 for _, _, code in got)
