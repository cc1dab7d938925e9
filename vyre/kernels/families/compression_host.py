"""Host-side pieces of the decompressors (`compression.py`): CPython's
decompression (the oracle), the compressors that make valid streams (zlib's
every level, strategy, window size and memory level; gzip members built by
hand with FEXTRA, FNAME, FCOMMENT and FHCRC), and the proof system's sampler
of input streams.
"""

from __future__ import annotations

import gzip
import zlib
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from vyre.kernels.families.codec_host import damaged, raw_bytes
from vyre.kernels.families.inflate_walk import CORRUPT, DEFLATE, GZIP, TRUNCATED, ZLIB

__all__ = [
    "STRATEGIES",
    "Settings",
    "compress",
    "gzip_member",
    "sampler",
    "stdlib",
    "stdlib_code",
    "text_bytes",
]

STRATEGIES = (zlib.Z_DEFAULT_STRATEGY, zlib.Z_FILTERED, zlib.Z_HUFFMAN_ONLY, zlib.Z_RLE, zlib.Z_FIXED)


def stdlib(fmt: str, data: bytes) -> bytes:
    """CPython's decompression of `data` in format `fmt` (raises its errors):
    `zlib.decompress(data, -15)`, `zlib.decompress(data)`, `gzip.decompress`."""
    if fmt == DEFLATE:
        return zlib.decompress(data, -15)
    if fmt == ZLIB:
        return zlib.decompress(data)
    if fmt == GZIP:
        return gzip.decompress(data)
    raise ValueError(f"unknown format {fmt!r}")


def stdlib_code(error: Exception) -> int:
    """The C6 code of a CPython decompression error: 5 for a truncated stream
    (zlib's `Error -5`, gzip's `EOFError`), 7 for anything else."""
    if isinstance(error, EOFError) or (isinstance(error, zlib.error) and "Error -5" in str(error)):
        return TRUNCATED
    return CORRUPT


@dataclass(frozen=True)
class Settings:
    """How `compress` makes a stream."""

    level: int = 6
    strategy: int = zlib.Z_DEFAULT_STRATEGY
    window: int = 15
    """Window bits 9-15 (zlib writes CINFO = window - 8)."""
    memory: int = 8
    gzip_flags: int = 0
    """FTEXT/FHCRC/FEXTRA/FNAME/FCOMMENT of a gzip member (`gzip_member`)."""

    @staticmethod
    def pick(rng: np.random.Generator) -> Settings:
        return Settings(
            level=int(rng.integers(-1, 10)),
            strategy=int(rng.choice(np.array(STRATEGIES))),
            window=int(rng.integers(9, 16)),
            memory=int(rng.integers(1, 10)),
            gzip_flags=int(rng.integers(0, 32)) if rng.random() < 0.5 else 0,
        )


def _deflate(data: bytes, settings: Settings, wbits: int) -> bytes:
    compressor = zlib.compressobj(settings.level, zlib.DEFLATED, wbits, settings.memory, settings.strategy)
    return compressor.compress(data) + compressor.flush()


def gzip_member(data: bytes, settings: Settings, name: bytes = b"name.txt", comment: bytes = b"a comment",
                extra: bytes = b"XY\x04\x00abcd") -> bytes:
    """One gzip member (RFC 1952) with the header fields of `settings.gzip_flags`
    (FHCRC with the low 16 bits of the header's CRC-32), raw DEFLATE, CRC-32 and ISIZE."""
    flags = settings.gzip_flags & 0x1F
    header = bytes([0x1F, 0x8B, 8, flags]) + (1_700_000_000).to_bytes(4, "little") + bytes([0, 3])
    if flags & 4:
        header += len(extra).to_bytes(2, "little") + extra
    if flags & 8:
        header += name + b"\0"
    if flags & 16:
        header += comment + b"\0"
    if flags & 2:
        header += (zlib.crc32(header) & 0xFFFF).to_bytes(2, "little")
    trailer = zlib.crc32(data).to_bytes(4, "little") + (len(data) & 0xFFFF_FFFF).to_bytes(4, "little")
    return header + _deflate(data, settings, -settings.window) + trailer


def compress(fmt: str, data: bytes, settings: Settings = Settings()) -> bytes:
    """A valid stream of `data` in format `fmt`."""
    if fmt == DEFLATE:
        return _deflate(data, settings, -settings.window)
    if fmt == ZLIB:
        return _deflate(data, settings, settings.window)
    if fmt == GZIP:
        return gzip_member(data, settings)
    raise ValueError(f"unknown format {fmt!r}")


def text_bytes(rng: np.random.Generator, n: int) -> bytes:
    """n bytes of text-like data (words of a small vocabulary): literals and
    matches of every length and distance, as in real text."""
    vocabulary = [bytes(rng.integers(0x61, 0x7B, int(rng.integers(1, 9)), dtype=np.uint8)) for _ in range(64)]
    words = rng.integers(0, 64, n // 2 + 1)
    return b" ".join(vocabulary[int(w)] for w in words)[:n]


def _content(rng: np.random.Generator, n: int, pattern: str) -> bytes:
    if pattern == "text":
        return text_bytes(rng, n)
    return raw_bytes(rng, n, "random" if pattern == "few" else pattern).tobytes()


def sampler(fmt: str, stored_only: bool = False) -> Callable[[np.random.Generator, int, str], tuple[np.ndarray]]:
    """Input streams of exactly n bytes: content of the pattern ("random",
    "zeros", "ones", "text": text-like words) compressed with settings drawn
    from rng (stored blocks only for `stored_only`), the content shrunk until
    the stream fits and the stream filled up to n with what CPython skips after
    it (zero bytes after a gzip member, anything after a zlib or raw stream);
    "few": the same with one damaged byte. When not even empty content fits,
    the empty content's stream without header fields, or its first n bytes (a
    truncated stream)."""

    def sample(rng: np.random.Generator, n: int, pattern: str) -> tuple[np.ndarray]:
        settings = Settings.pick(rng)
        if stored_only:
            settings = Settings(level=0, window=15)
        length = n if pattern in ("random", "few", "text") else 2 * n
        data = _content(rng, length, pattern)
        stream = compress(fmt, data, settings)
        while len(stream) > n and length > 0:
            length = max(0, min(length - 1, (length * n) // max(1, len(stream))))
            stream = compress(fmt, data[:length], settings)
        if len(stream) > n and not stored_only:  # no header fields, the shortest window header
            stream = compress(fmt, b"", Settings())
        if len(stream) > n:
            stream = stream[:n]
        elif fmt == GZIP:
            stream += bytes(n - len(stream))
        else:
            stream += bytes(rng.integers(0, 256, n - len(stream), dtype=np.uint8))
        if pattern == "few":
            stream = damaged(rng, stream)
        return (np.frombuffer(stream, dtype=np.uint8).copy(),)

    return sample
