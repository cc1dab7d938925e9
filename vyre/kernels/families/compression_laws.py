"""Laws of the decompressors (docs/compression.md): properties the proof
system witnesses on every case with the op evaluated on the CPU reference and
on the backend (`vyre.conform.kernel_track`). Each law compares the op with
itself, CPython's compressors and decompressors, and plain Python; never with
the op's reference. The inputs a law derives from one case are evaluated
together (`op.many`: one `evaluate_many` on a backend).
"""

from __future__ import annotations

import gzip
import zlib
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from vyre.kernels.families.compression_host import STRATEGIES, Settings, compress, stdlib, stdlib_code
from vyre.kernels.families.inflate_walk import CORRUPT, GZIP, TRUNCATED, ZLIB
from vyre.kernels.spec import NO_ERROR, KernelLaw

__all__ = ["CorruptIffCPython", "DecompressesCompression", "Members", "PrefixIsTruncated", "TrailingDataIgnored"]

Op = Callable[..., tuple[np.ndarray, ...]]
Result = tuple[bytes, int, int]
"""(output bytes, error offset, error code) of one evaluation."""


def _results(op: Op, streams: Sequence[bytes]) -> list[Result]:
    many: Callable[[list[tuple[Any, ...]]], list[tuple[np.ndarray, ...]]] | None = getattr(op, "many", None)
    args = [(np.frombuffer(s, dtype=np.uint8).copy(),) for s in streams]
    outputs = many(args) if many is not None and len(args) > 1 else [op(*a) for a in args]
    return [(np.asarray(o[0], dtype=np.uint8).tobytes(), int(o[2][0]), int(o[3][0])) for o in outputs]


def _stream(args: tuple[Any, ...]) -> bytes:
    return np.asarray(args[0], dtype=np.uint8).tobytes()


def _show(data: bytes) -> str:
    return repr(data) if len(data) <= 24 else f"{data[:24]!r}... ({len(data)} bytes)"


def _content(fmt: str, stream: bytes) -> bytes | None:
    try:
        return stdlib(fmt, stream)
    except (zlib.error, EOFError, gzip.BadGzipFile):
        return None


class DecompressesCompression(KernelLaw):
    """op(compress(x)) = x with no error, x the case's content (CPython's
    decompression of the case, or the case's bytes when it is malformed), for
    two settings picked from the case's length: over the cases every level
    0-9, strategy (default, filtered, Huffman only, RLE, fixed) and window
    9-15 occurs (`stored_only`: level 0)."""

    name = "DecompressesCompression"

    def __init__(self, fmt: str, stored_only: bool = False):
        self.fmt = fmt
        self.stored_only = stored_only

    def settings(self, n: int) -> list[Settings]:
        if self.stored_only:
            return [Settings(level=0, window=15), Settings(level=0, window=9 + n % 7)]
        return [
            Settings(level=n % 10, strategy=STRATEGIES[(n // 10) % 5], window=9 + n % 7, memory=1 + n % 9,
                     gzip_flags=n % 32),
            Settings(level=9 - n % 10, strategy=STRATEGIES[(n // 3) % 5], window=15, gzip_flags=(n * 7) % 32),
        ]

    def check(self, op: Op, args: tuple[Any, ...]) -> str | None:
        case = _stream(args)
        content = _content(self.fmt, case)
        x = case if content is None else content
        settings = self.settings(len(case))
        streams = [compress(self.fmt, x, s) for s in settings]
        for s, (out, offset, code) in zip(settings, _results(op, streams)):
            if offset != NO_ERROR:
                return f"the compression of {_show(x)} ({s}) is rejected at byte {offset} (code {code})"
            if out != x:
                return f"decompress(compress(x)) = {_show(out)}, x = {_show(x)} ({s})"
        return None


class TrailingDataIgnored(KernelLaw):
    """op(s ‖ t) = op(s) for a well-formed zlib or raw stream s (the case cut
    where CPython's decoder stops) and any bytes t: like CPython's
    `zlib.decompress`, the decoder stops at the end of the stream (t: the
    case's own bytes after s, a zero byte, bytes that would be a corrupt block)."""

    name = "TrailingDataIgnored"

    def __init__(self, fmt: str):
        self.fmt = fmt

    def check(self, op: Op, args: tuple[Any, ...]) -> str | None:
        case = _stream(args)
        decoder = zlib.decompressobj(-15 if self.fmt != ZLIB else 15)
        try:
            decoder.decompress(case)
        except zlib.error:
            return None
        if not decoder.eof:
            return None
        stream = case[: len(case) - len(decoder.unused_data)]
        tails = [case[len(stream) :], b"\x00", b"\xff\xfe\x07garbage"]
        results = _results(op, [stream, *(stream + t for t in tails)])
        for tail, result in zip(tails, results[1:]):
            if result != results[0]:
                return f"op(s ‖ {_show(tail)}) = {result[1:]} / {_show(result[0])}, op(s) = {results[0][1:]} / {_show(results[0][0])}"
        return None


class Members(KernelLaw):
    """gzip members concatenate (RFC 1952 §2.2, CPython's `gzip.decompress`):
    op(s ‖ zeros ‖ m) = op(s) ‖ x for a well-formed case s, zero padding and a
    member m of content x; and the padding alone changes nothing."""

    name = "Members"

    def check(self, op: Op, args: tuple[Any, ...]) -> str | None:
        case = _stream(args)
        if _content(GZIP, case) is None:
            return None
        x = bytes(range(len(case) % 7, 40)) * 3
        member = compress(GZIP, x, Settings(level=len(case) % 10, gzip_flags=len(case) % 32))
        pad = bytes(len(case) % 5)
        alone, joined, padded = _results(op, [case, case + pad + member, case + pad])
        if joined != (alone[0] + x, NO_ERROR, 0):
            return f"op(s ‖ {len(pad)} zeros ‖ member) = {joined[1:]} / {_show(joined[0])}, op(s) ‖ x = {_show(alone[0] + x)}"
        if padded != alone:
            return f"op(s ‖ {len(pad)} zeros) = {padded[1:]}, op(s) = {alone[1:]}"
        return None


class PrefixIsTruncated(KernelLaw):
    """A prefix of a well-formed stream is never corrupt: it is truncated (code
    5) at an offset within it, or (cut after a gzip member, or in the bytes
    after a zlib or raw stream) well formed with a prefix of the output. Cut
    at a half and at one byte short. One exception, CPython's: a gzip prefix
    that ends one byte into a member (its magic's first byte) is corrupt there
    (`gzip.decompress` reads a one-byte magic and raises `BadGzipFile`)."""

    name = "PrefixIsTruncated"

    def __init__(self, fmt: str):
        self.fmt = fmt

    def check(self, op: Op, args: tuple[Any, ...]) -> str | None:
        case = _stream(args)
        if not case or _content(self.fmt, case) is None:
            return None
        cuts = sorted({len(case) // 2, len(case) - 1})
        results = _results(op, [case, *(case[:k] for k in cuts)])
        whole = results[0][0]
        for k, (out, offset, code) in zip(cuts, results[1:]):
            if offset == NO_ERROR:
                if not whole.startswith(out):
                    return f"the prefix of {k} bytes decodes to {_show(out)}, not a prefix of {_show(whole)}"
            elif self.fmt == GZIP and (code, offset) == (CORRUPT, k - 1) and case[k - 1] == 0x1F and not out:
                continue
            elif code != TRUNCATED or offset > k or out:
                return f"the prefix of {k} of {len(case)} bytes fails with code {code} at byte {offset}"
        return None


class CorruptIffCPython(KernelLaw):
    """Damaged input (corrupt input ⇔ zlib.error): the case
    with one byte flipped at a quarter, a half and three quarters (all its bits
    but one inverted) is rejected exactly when CPython rejects it, truncated
    (code 5) exactly when CPython says the stream ended early, never with a
    partial output, and otherwise decodes to CPython's output."""

    name = "CorruptIffCPython"

    def __init__(self, fmt: str, stored_only: bool = False):
        self.fmt = fmt
        self.stored_only = stored_only

    def check(self, op: Op, args: tuple[Any, ...]) -> str | None:
        case = _stream(args)
        if not case:
            return None
        damaged: list[bytes] = []
        for at in sorted({len(case) // 4, len(case) // 2, 3 * len(case) // 4}):
            flipped = bytearray(case)
            flipped[at] ^= 0xFE
            damaged.append(bytes(flipped))
        for stream, (out, offset, code) in zip(damaged, _results(op, damaged)):
            try:
                expected = stdlib(self.fmt, stream)
            except (zlib.error, EOFError, gzip.BadGzipFile) as error:
                if offset == NO_ERROR:
                    return f"{_show(stream)} decodes to {_show(out)}, CPython raises {error!r}"
                if out or (code != stdlib_code(error) and not self.stored_only):
                    return f"{_show(stream)} fails with code {code} at {offset}; CPython raises {error!r}"
                continue
            if self.stored_only and offset != NO_ERROR:
                continue  # CPython decodes blocks that are not stored; inflate_stored rejects them
            if offset != NO_ERROR or out != expected:
                return f"{_show(stream)}: code {code} at {offset}, {_show(out)}; CPython decodes {_show(expected)}"
        return None
