"""The decompressors' reference walk and laws, on the host (no device): the
walk (`inflate_walk`, which defines where a malformed stream fails) against
CPython on valid, damaged, truncated and extended streams of every format;
the sampler's streams; each law holding on CPython's own decompressor and
failing on a planted wrong one; and the lavapipe certificate (L2k, with the
interpreter's parity on every case)."""

from __future__ import annotations

import gzip
import zlib
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from vyre import conform
from vyre.kernels.families import compression_laws as L
from vyre.kernels.families.compression_host import STRATEGIES, Settings, compress, sampler, stdlib, stdlib_code
from vyre.kernels.families.inflate_walk import DEFLATE, FORMATS, GZIP, ZLIB, Failure, walk
from vyre.kernels.samplers import text_bytes
from vyre.kernels.spec import KernelLaw
from vyre.ops import registry

Op = Callable[..., tuple[np.ndarray, ...]]


def outcome_of_walk(fmt: str, data: bytes) -> tuple[bytes, int]:
    try:
        return walk(data, fmt), 0
    except Failure as failure:
        assert 0 <= failure.offset <= len(data)
        return b"", failure.code


def outcome_of_cpython(fmt: str, data: bytes) -> tuple[bytes, int]:
    try:
        return stdlib(fmt, data), 0
    except (zlib.error, EOFError, gzip.BadGzipFile) as error:
        return b"", stdlib_code(error)


@pytest.mark.parametrize("fmt", FORMATS)
def test_the_walk_fails_exactly_where_cpython_does(fmt: str) -> None:
    rng = np.random.default_rng(sum(map(ord, fmt)))
    checked = 0
    for k in range(150):
        n = int(rng.choice([0, 1, 7, 100, 1000, 5000]))
        content = text_bytes(rng, n) if k % 3 else rng.integers(0, 256, n, dtype=np.uint8).tobytes()
        settings = Settings(level=k % 10, strategy=STRATEGIES[k % 5], window=9 + k % 7, gzip_flags=k % 32)
        stream = compress(fmt, content, settings)
        variants = [stream, stream + bytes(k % 3) + b"\x01\x02"]
        for _ in range(4):
            damaged = bytearray(stream)
            at = int(rng.integers(0, len(damaged)))
            damaged[at] ^= 1 << int(rng.integers(0, 8))
            variants += [bytes(damaged), stream[: int(rng.integers(0, len(stream)))]]
        for data in variants:
            assert outcome_of_walk(fmt, data) == outcome_of_cpython(fmt, data), (k, data[:24].hex())
            checked += 1
    assert checked == 150 * 10


@pytest.mark.parametrize("fmt", FORMATS)
def test_the_sampler_makes_streams_of_exactly_n_bytes(fmt: str) -> None:
    sample = sampler(fmt)
    rng = np.random.default_rng(3)
    for n in (0, 1, 5, 18, 64, 258, 1000):
        for pattern in ("random", "zeros", "ones", "text", "few"):
            (stream,) = sample(rng, n, pattern)
            assert len(stream) == n and stream.dtype == np.uint8
            # well formed when a stream fits (a raw stream needs 2 bytes, zlib 8, a
            # gzip member 20; the content shrinks as needed); "few" damages a byte
            if n >= {DEFLATE: 2, ZLIB: 8, GZIP: 20}[fmt] and pattern != "few":
                assert outcome_of_cpython(fmt, stream.tobytes())[1] == 0, (n, pattern)


def cpython_op(fmt: str) -> Op:
    """The op as CPython would compute it (DECODER_OUTPUTS), the offset left 0."""

    def op(data: np.ndarray) -> tuple[np.ndarray, ...]:
        out, code = outcome_of_cpython(fmt, np.asarray(data, dtype=np.uint8).tobytes())
        return (
            np.frombuffer(out, dtype=np.uint8).copy(),
            np.array([len(out)], dtype=np.uint32),
            np.array([0xFFFF_FFFF if code == 0 else 0], dtype=np.uint32),
            np.array([code], dtype=np.uint32),
        )

    return op


def laws_of(fmt: str) -> list[KernelLaw]:
    laws: list[KernelLaw] = [L.DecompressesCompression(fmt), L.PrefixIsTruncated(fmt), L.CorruptIffCPython(fmt)]
    laws.append(L.Members() if fmt == GZIP else L.TrailingDataIgnored(fmt))
    return laws


def cases(fmt: str) -> list[tuple[Any, ...]]:
    sample = sampler(fmt)
    rng = np.random.default_rng(5)
    return [sample(rng, n, pattern) for n in (0, 3, 40, 300) for pattern in ("random", "text", "zeros", "few")]


@pytest.mark.parametrize("fmt", FORMATS)
def test_the_laws_hold_for_cpython(fmt: str) -> None:
    op = cpython_op(fmt)
    for law in laws_of(fmt):
        for case in cases(fmt):
            assert law.check(op, case) is None, (law.name, case[0][:16].tobytes().hex())


def test_the_laws_catch_wrong_decoders() -> None:
    right = cpython_op(ZLIB)

    def drops_last_byte(data: np.ndarray) -> tuple[np.ndarray, ...]:
        out = right(data)
        return (out[0][:-1], *out[1:]) if len(out[0]) else out

    def accepts_everything(data: np.ndarray) -> tuple[np.ndarray, ...]:
        out = right(data)
        return (out[0], out[1], np.array([0xFFFF_FFFF], dtype=np.uint32), np.array([0], dtype=np.uint32))

    def truncation_is_corrupt(data: np.ndarray) -> tuple[np.ndarray, ...]:
        out = right(data)
        code = 7 if int(out[3][0]) == 5 else int(out[3][0])
        return (*out[:3], np.array([code], dtype=np.uint32))

    def stops_at_first_member(data: np.ndarray) -> tuple[np.ndarray, ...]:
        raw = np.asarray(data, dtype=np.uint8).tobytes()
        first = zlib.decompressobj(31).decompress(raw) if raw else b""
        return cpython_op(GZIP)(np.frombuffer(gzip.compress(first), dtype=np.uint8))

    def rejects_trailing_data(data: np.ndarray) -> tuple[np.ndarray, ...]:  # the stricter reading: code 7
        out = right(data)
        decoder = zlib.decompressobj()
        try:
            decoder.decompress(np.asarray(data, dtype=np.uint8).tobytes())
        except zlib.error:
            return out
        if decoder.unused_data:
            return (out[0][:0], np.array([0], dtype=np.uint32), np.array([0], dtype=np.uint32), np.array([7], dtype=np.uint32))
        return out

    text = cases(ZLIB)[-3]
    assert L.DecompressesCompression(ZLIB).check(drops_last_byte, text) is not None
    assert L.CorruptIffCPython(ZLIB).check(accepts_everything, text) is not None
    assert L.PrefixIsTruncated(ZLIB).check(truncation_is_corrupt, text) is not None
    assert L.TrailingDataIgnored(ZLIB).check(rejects_trailing_data, text) is not None
    assert L.Members().check(stops_at_first_member, cases(GZIP)[-3]) is not None


def test_certified_on_wgpu_with_parity() -> None:
    # the cheapest of the four on the interpreter (its parity runs every case
    # there); the others are certified the same way on the GPU machine
    wanted = ["decode.inflate_stored"]
    cert = conform.certify(backend="wgpu", ops=wanted, strength="fast", corpus=None, track="kernel")
    assert cert.passed, [str(f) for f in cert.failures]
    assert cert.level == "L2k"
    assert len(cert.data["law_results"]) == 2 * len(registry.get_kernel(wanted[0]).laws)

