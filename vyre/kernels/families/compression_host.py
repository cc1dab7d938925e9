"""Host-side pieces of the decompressors (`compression.py`): CPython's
decompression (the oracle), the compressors that make valid streams (zlib's
every level, strategy, window size and memory level; gzip members built by
hand with FEXTRA, FNAME, FCOMMENT and FHCRC), and the sampler of input streams
of each format (`vyre.kernels.samplers.compressed` with these compressors).
"""

from __future__ import annotations

import gzip
import zlib
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from vyre.kernels import samplers
from vyre.kernels.families.inflate_walk import CORRUPT, DEFLATE, GZIP, TRUNCATED, ZLIB
from vyre.kernels.spec import Sampler

__all__ = [
    "STRATEGIES",
    "Settings",
    "compress",
    "gzip_member",
    "sampler",
    "stdlib",
    "stdlib_code",
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


def sampler(fmt: str, stored_only: bool = False) -> Sampler:
    """Input streams of format `fmt` of exactly n bytes (`samplers.compressed`):
    settings drawn from rng (stored blocks only for `stored_only`); when not
    even empty content fits, the empty content's stream without header fields
    (the shortest window header), or its first n bytes; gzip members filled
    with zero bytes (what CPython skips after one), raw and zlib streams with
    any bytes."""

    def compressor(rng: np.random.Generator) -> Callable[[bytes], bytes]:
        settings = Settings.pick(rng)
        if stored_only:
            settings = Settings(level=0, window=15)
        return lambda data: compress(fmt, data, settings)

    bare = None if stored_only else compress(fmt, b"", Settings())
    return samplers.compressed(compressor, bare, zero_fill=fmt == GZIP)
