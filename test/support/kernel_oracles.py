"""Independent oracles of every kernel op (`vyre/kernels/families/`), for the kernel
fuzzer (`kernel_fuzz.py`, beside this module).

Each oracle is written from the op's specification (docs/kernel-library.md,
docs/byte-codecs.md, docs/compression.md, the families' docstrings) on top of
CPython (`zlib`, `hashlib`, `base64`, `binascii`, `urllib.parse`, `str.decode`),
numpy, the dev-only packages that publish the hashes (`crc32c`, `mmh3`,
`xxhash`) and plain Python loops. **This module imports nothing from vyre**
(a test enforces it): it shares no code with the ops, their references, the
interpreter or the lowering, so an agreement is evidence.

An oracle takes the user arguments in canonical form (`bytes` for Bytes inputs,
1-D `uint32` arrays for U32 inputs, 1-D `float32` arrays for F32 inputs, `int`
for scalar inputs) and returns every output it specifies, by port name, in
canonical form (`bytes` for Bytes outputs, `uint32` arrays for U32/Bool arrays,
`int` for scalars, F32 scalars as their bit pattern). Arguments the op must
refuse make it raise `Refused` (the exception type and the input it must name);
a decoder's malformed input gives the error outputs, which `evaluate` turns into
`vyre.OpInputError`.
"""

from __future__ import annotations

import base64
import binascii
import gzip
import hashlib
import re
import urllib.parse
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["ANY_OFFSET", "DECODERS", "NONE", "ORACLES", "Refused", "Value", "oracle"]

NONE = 0xFFFF_FFFF
"""'No index' (C5, docs/kernels.md) and a decoder's error offset on valid input."""
M32 = 0xFFFF_FFFF
CANONICAL_NAN = 0x7FC0_0000
ANY_OFFSET = -1
"""An error offset the oracle does not pin (a corrupt compressed stream: CPython
says that and why it fails, not where): any offset but NONE is accepted."""

Value = bytes | int | np.ndarray
Outputs = dict[str, Value]


@dataclass(frozen=True)
class Refused(Exception):
    """The op must reject these arguments: `TypeError` or `ValueError`, and the
    message must name input `names`."""

    error: type[Exception]
    names: str

    def __str__(self) -> str:
        return f"{self.error.__name__} naming `{self.names}`"


U32 = np.uint32


def _u32(values: Any) -> np.ndarray:
    return np.ascontiguousarray(np.asarray(values, dtype=np.uint64) & M32, dtype=U32)


# ---------------------------------------------------------------------------
# bitset, buffer, collection, match, string
# ---------------------------------------------------------------------------


def _same_words(a: np.ndarray, b: np.ndarray, name: str = "b") -> None:
    if len(a) != len(b):
        raise Refused(ValueError, name)


def _bitset(fn: Callable[[np.ndarray, np.ndarray], np.ndarray]) -> Callable[..., Outputs]:
    def run(a: np.ndarray, b: np.ndarray) -> Outputs:
        _same_words(a, b)
        return {"out": _u32(fn(a.astype(np.uint64), b.astype(np.uint64)))}

    return run


def _popcount(a: np.ndarray) -> Outputs:
    bits = np.unpackbits(np.ascontiguousarray(a, dtype="<u4").view(np.uint8))
    return {"out": int(bits.sum(dtype=np.int64))}


def _byte(byte: int, name: str = "byte") -> None:
    if not 0 <= byte <= 255:
        raise Refused(ValueError, name)


def _memchr(data: bytes, byte: int) -> Outputs:
    _byte(byte)
    at = data.find(bytes([byte]))
    return {"out": NONE if at < 0 else at}


def _byte_count(data: bytes, byte: int) -> Outputs:
    _byte(byte)
    return {"out": data.count(bytes([byte]))}


def _byte_swap(data: bytes) -> Outputs:
    if len(data) % 4:
        raise Refused(ValueError, "data")
    return {"out": b"".join(data[i : i + 4][::-1] for i in range(0, len(data), 4))}


def _compact(values: np.ndarray, mask: np.ndarray) -> Outputs:
    _same_words(values, mask, "mask")
    kept = [int(v) for v, m in zip(values.tolist(), mask.tolist()) if m != 0]
    return {"out": _u32(kept), "count": len(kept)}


def _gather(src: np.ndarray, idx: np.ndarray) -> Outputs:
    n = len(src)
    table = src.tolist()
    return {"out": _u32([table[i] if i < n else 0 for i in idx.tolist()])}


def _scatter(dst: np.ndarray, idx: np.ndarray, values: np.ndarray) -> Outputs:
    if len(idx) != len(values):
        raise Refused(ValueError, "values")
    out = dst.astype(np.uint64)
    n = len(dst)
    keep = idx < n
    # Sequential last-write-wins without relying on numpy's duplicate-index
    # order: the last occurrence of each index is the first one of the reversal.
    order = np.flatnonzero(keep)[::-1]
    uniq, first = np.unique(idx[order], return_index=True)
    out[uniq.astype(np.int64)] = values[order[first]]
    return {"out": _u32(out)}


def _unique(x: np.ndarray) -> Outputs:
    values = sorted(set(x.tolist()))
    return {"out": _u32(values), "count": len(values)}


def _contains(members: np.ndarray, queries: np.ndarray) -> Outputs:
    seen = set(members.tolist())
    return {"out": _u32([1 if q in seen else 0 for q in queries.tolist()])}


def _find_all(hay: bytes, needle: bytes) -> Outputs:
    starts = [m.start() for m in re.finditer(b"(?=" + re.escape(needle) + b")", hay)]
    return {"out": _u32(starts), "count": len(starts)}


def _byte_class(data: bytes, table: bytes) -> Outputs:
    if len(table) != 256:
        raise Refused(ValueError, "table")
    return {"out": data.translate(table)}


def _split_offsets(data: bytes, delim: int) -> Outputs:
    _byte(delim, "delim")
    starts: list[int] = [0]
    ends: list[int] = []
    for at, byte in enumerate(data):
        if byte == delim:
            ends.append(at)
            starts.append(at + 1)
    ends.append(len(data))
    return {"starts": _u32(starts), "ends": _u32(ends), "k": len(starts)}


# ---------------------------------------------------------------------------
# reductions, scans, sort, stats
# ---------------------------------------------------------------------------


def _arg_extreme(x: np.ndarray, largest: bool) -> int:
    """The first index of the extreme (NONE for no elements)."""
    if not len(x):
        return NONE
    values = [int(v) for v in x.tolist()]
    return values.index(max(values) if largest else min(values))


def _f32_bits(value: np.float32) -> int:
    return int(np.array([value], dtype=np.float32).view(U32)[0])


def _nan_canonical(value: np.float32) -> int:
    return CANONICAL_NAN if np.isnan(value) else _f32_bits(value)


def _f32_sum_strict(x: np.ndarray) -> Outputs:
    """((a0 + a1) + a2) + ... in binary32 (`np.add.accumulate` adds in order)."""
    if len(x) == 0:
        return {"out": 0}
    if len(x) == 1:
        return {"out": int(x.view(U32)[0])}
    with np.errstate(all="ignore"):
        total = np.add.accumulate(x.astype(np.float32), dtype=np.float32)[-1]
    return {"out": _nan_canonical(total)}


def _tree(x: np.ndarray) -> np.float32:
    n = len(x)
    if n == 1:
        return np.float32(x[0])
    if n & (n - 1) == 0:
        level = x
        while len(level) > 1:
            level = (level[0::2] + level[1::2]).astype(np.float32)
        return np.float32(level[0])
    mid = 1 << ((n - 1).bit_length() - 1)
    return np.float32(_tree(x[:mid]) + _tree(x[mid:]))


def _f32_sum_tree(x: np.ndarray) -> Outputs:
    """The canonical tree (docs/tensors.md): split at the largest power of two below n."""
    if len(x) == 0:
        return {"out": 0}
    if len(x) == 1:
        return {"out": int(x.view(U32)[0])}
    with np.errstate(all="ignore"):
        return {"out": _nan_canonical(_tree(x.astype(np.float32)))}


def _scan(x: np.ndarray, inclusive: bool) -> np.ndarray:
    total = 0
    out: list[int] = []
    for value in [int(v) for v in x.tolist()]:
        if not inclusive:
            out.append(total)
        total = (total + value) & M32
        if inclusive:
            out.append(total)
    return _u32(out)


def _segmented(x: np.ndarray, flags: np.ndarray) -> Outputs:
    if len(x) != len(flags):
        raise Refused(ValueError, "flags")
    total = 0
    out: list[int] = []
    for value, flag in zip(x.tolist(), flags.tolist()):
        total = value if flag else (total + value) & M32
        out.append(total)
    return {"out": _u32(out)}


def _key_value(keys: np.ndarray, values: np.ndarray) -> Outputs:
    if len(keys) != len(values):
        raise Refused(ValueError, "values")
    pairs = sorted(zip(keys.tolist(), range(len(keys))))  # stable: ties by position
    vals = values.tolist()
    return {"values_out": _u32([vals[i] for _, i in pairs]), "keys_out": _u32([k for k, _ in pairs])}


MAX_BINS = 1 << 24
"""stats.histogram_u32's largest bin count (stats.py: ValueError past it)."""


def _histogram(values: np.ndarray, nbins: int) -> Outputs:
    if not 1 <= nbins <= MAX_BINS:
        raise Refused(ValueError, "nbins")
    counts = [0] * nbins
    for v in values.tolist():
        if v < nbins:
            counts[v] += 1
    return {"out": _u32(counts)}


def _byte_histogram(data: bytes) -> Outputs:
    counts = [0] * 256
    for byte in data:
        counts[byte] += 1
    return {"out": _u32(counts)}


# ---------------------------------------------------------------------------
# graph (CSR)
# ---------------------------------------------------------------------------


def _csr(offsets: np.ndarray, targets: np.ndarray) -> int:
    """n of a valid CSR graph, else Refused naming the bad input."""
    row = offsets.tolist()
    if not row or row[0] != 0 or any(b < a for a, b in zip(row, row[1:])) or row[-1] != len(targets):
        raise Refused(ValueError, "offsets")
    n = len(row) - 1
    if any(t >= n for t in targets.tolist()):
        raise Refused(ValueError, "targets")
    return n


def _bfs(offsets: np.ndarray, targets: np.ndarray, source: int) -> Outputs:
    n = _csr(offsets, targets)
    if n == 0:
        return {"depth": _u32([]), "parent": _u32([])}
    if source >= n:
        raise Refused(ValueError, "source")
    row, tgt = offsets.tolist(), targets.tolist()
    depth = [NONE] * n
    parent = [NONE] * n
    depth[source], parent[source] = 0, source
    frontier = [source]
    level = 0
    while frontier:
        following: list[int] = []
        for u in sorted(frontier):
            for v in tgt[row[u] : row[u + 1]]:
                if depth[v] == NONE:
                    depth[v] = level + 1
                    parent[v] = u
                    following.append(v)
                elif depth[v] == level + 1 and u < parent[v]:
                    parent[v] = u
        frontier = following
        level += 1
    return {"depth": _u32(depth), "parent": _u32(parent)}


def _components(offsets: np.ndarray, targets: np.ndarray) -> Outputs:
    n = _csr(offsets, targets)
    up = list(range(n))

    def root(v: int) -> int:
        while up[v] != v:
            up[v] = up[up[v]]
            v = up[v]
        return v

    row, tgt = offsets.tolist(), targets.tolist()
    for u in range(n):
        for v in tgt[row[u] : row[u + 1]]:
            a, b = root(u), root(v)
            if a != b:
                up[max(a, b)] = min(a, b)
    return {"label": _u32([root(v) for v in range(n)])}


MAX_NODES = 1 << 28
"""graph.csr_in_degree's largest node count (graph.py)."""


def _in_degree(targets: np.ndarray, n: int) -> Outputs:
    if n > MAX_NODES:
        raise Refused(ValueError, "n")
    if any(t >= n for t in targets.tolist()):
        raise Refused(ValueError, "targets")
    counts = [0] * n
    for t in targets.tolist():
        counts[t] += 1
    return {"out": _u32(counts)}


def _out_degree(offsets: np.ndarray) -> Outputs:
    row = offsets.tolist()
    if not row or row[0] != 0 or any(b < a for a, b in zip(row, row[1:])):
        raise Refused(ValueError, "offsets")
    return {"out": _u32([b - a for a, b in zip(row, row[1:])])}


# ---------------------------------------------------------------------------
# hashes
# ---------------------------------------------------------------------------


def _fnv1a(data: bytes) -> int:
    h = 0x811C9DC5
    for byte in data:
        h = ((h ^ byte) * 0x01000193) & M32
    return h


def _crc32c(data: bytes) -> int:
    import crc32c  # pyright: ignore[reportMissingTypeStubs]

    return int(crc32c.crc32c(data))  # pyright: ignore[reportUnknownMemberType]


def _murmur3(data: bytes) -> int:
    import mmh3  # pyright: ignore[reportMissingTypeStubs]

    return int(mmh3.hash(data, 0, signed=False))


def _xxh32(data: bytes) -> int:
    import xxhash  # pyright: ignore[reportMissingTypeStubs]

    return int(xxhash.xxh32_intdigest(data, 0))


_WORD_HASHES: dict[str, Callable[[bytes], int]] = {
    "crc32": zlib.crc32,
    "crc32c": _crc32c,
    "adler32": zlib.adler32,
    "fnv1a32": _fnv1a,
    "murmur3_32": _murmur3,
    "xxhash32": _xxh32,
}
def _md5(data: bytes) -> bytes:
    return hashlib.md5(data).digest()


def _sha1(data: bytes) -> bytes:
    return hashlib.sha1(data).digest()


def _sha256(data: bytes) -> bytes:
    return hashlib.sha256(data).digest()


_DIGESTS: dict[str, Callable[[bytes], bytes]] = {
    "md5": _md5,
    "sha1": _sha1,
    "sha256": _sha256,
}


def _messages(data: bytes, offsets: np.ndarray) -> list[bytes]:
    cuts = offsets.tolist()
    if not cuts or any(b < a for a, b in zip(cuts, cuts[1:])) or cuts[-1] > len(data):
        raise Refused(ValueError, "offsets")
    return [data[a:b] for a, b in zip(cuts, cuts[1:])]


def _word_hash(fn: Callable[[bytes], int]) -> Callable[..., Outputs]:
    def run(data: bytes) -> Outputs:
        return {"out": fn(data) & M32}

    return run


def _word_hash_batch(fn: Callable[[bytes], int]) -> Callable[..., Outputs]:
    def run(data: bytes, offsets: np.ndarray) -> Outputs:
        return {"out": _u32([fn(m) & M32 for m in _messages(data, offsets)])}

    return run


def _digest(fn: Callable[[bytes], bytes]) -> Callable[..., Outputs]:
    def run(data: bytes) -> Outputs:
        return {"out": fn(data)}

    return run


def _digest_batch(fn: Callable[[bytes], bytes]) -> Callable[..., Outputs]:
    def run(data: bytes, offsets: np.ndarray) -> Outputs:
        return {"out": b"".join(fn(m) for m in _messages(data, offsets))}

    return run


# ---------------------------------------------------------------------------
# codecs (docs/byte-codecs.md)
# ---------------------------------------------------------------------------


def _decoded(out: bytes) -> Outputs:
    return {"out": out, "length": len(out), "error_offset": NONE, "error_code": 0}


def _malformed(offset: int, code: int, primary: str = "out", length: str = "length") -> Outputs:
    empty: Value = b"" if primary == "out" else _u32([])
    return {primary: empty, length: 0, "error_offset": offset, "error_code": code}


B64 = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
B64URL = B64[:62] + b"-_"
B32 = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
HEX = b"0123456789abcdefABCDEF"
PAD = 0x3D


def radix_error(data: bytes, alphabet: bytes, group: int, data_symbols: tuple[int, ...]) -> tuple[int, int] | None:
    """(offset, code) of the first byte of `data` that no well-formed padded
    RFC 4648 text has there (the longest valid prefix), or None when `data` is
    well formed. `data_symbols`: how many symbols a padded final group may
    carry before its `=` (base64: 2, 3; base32: 2, 4, 5, 7)."""
    symbols = frozenset(alphabet)
    padding = False  # inside the pad run of the final group
    done = False  # the padded final group is complete
    for at, byte in enumerate(data):
        j = at % group
        if done:  # anything after a padded group: bad padding, but a byte outside the alphabet is invalid
            return at, 3 if byte in symbols or byte == PAD else 1
        if padding:
            if byte == PAD:
                done = j == group - 1
                continue
            return at, 3 if byte in symbols else 1  # a symbol after a pad / a bad byte
        if byte in symbols:
            continue
        if byte == PAD:
            if j not in data_symbols:
                return at, 3  # a pad where the group cannot end
            padding, done = True, j == group - 1
            continue
        return at, 1
    if len(data) % group:
        return len(data), 2
    return None


def _radix_decoder(alphabet: bytes, group: int, data_symbols: tuple[int, ...], stdlib: Callable[[bytes], bytes]) -> Callable[..., Outputs]:
    def run(data: bytes) -> Outputs:
        error = radix_error(data, alphabet, group, data_symbols)
        if error is not None:
            return _malformed(*error)
        return _decoded(stdlib(data))

    return run


def _hex_decode(data: bytes) -> Outputs:
    for at, byte in enumerate(data):
        if byte not in HEX:
            return _malformed(at, 1)
    if len(data) % 2:
        return _malformed(len(data), 2)
    return _decoded(binascii.unhexlify(data))


def _percent_decode(data: bytes) -> Outputs:
    at = 0
    n = len(data)
    while at < n:
        if data[at] == 0x25:
            digits = data[at + 1 : at + 3]
            hexes = all(d in HEX for d in digits)
            if len(digits) < 2:
                return _malformed(at, 5 if hexes else 1)
            if not hexes:
                return _malformed(at, 1)
            at += 3
            continue
        at += 1
    return _decoded(urllib.parse.unquote_to_bytes(data))


def _uleb_decode(data: bytes) -> Outputs:
    values: list[int] = []
    at = 0
    n = len(data)
    while at < n:
        start, value, shift = at, 0, 0
        while True:
            if at == n:
                return _malformed(start, 5, "values", "count")
            byte = data[at]
            if shift == 28 and byte > 0x0F:
                return _malformed(at, 6, "values", "count")
            value |= (byte & 0x7F) << shift
            at += 1
            shift += 7
            if not byte & 0x80:
                break
        values.append(value)
    return {"values": _u32(values), "count": len(values), "error_offset": NONE, "error_code": 0}


def _uleb_encode(values: np.ndarray) -> Outputs:
    out = bytearray()
    for value in values.tolist():
        while True:
            low = value & 0x7F
            value >>= 7
            if value:
                out.append(low | 0x80)
            else:
                out.append(low)
                break
    return {"out": bytes(out), "length": len(out)}


def _utf8(data: bytes) -> Outputs:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as error:
        code = 5 if error.reason == "unexpected end of data" else 1
        return {"valid": 0, "first_bad": error.start, "code": code}
    return {"valid": 1, "first_bad": NONE, "code": 0}


def _percent_encode(data: bytes) -> Outputs:
    out = urllib.parse.quote_from_bytes(data, safe="").encode("ascii")
    return {"out": out, "length": len(out)}


def _inflate(fmt: str) -> Callable[..., Outputs]:
    """CPython decides: the output, or the code its error means (5 truncated:
    zlib's Error -5, EOFError; 7 corrupt: Error -3, BadGzipFile); where it
    fails is not pinned (ANY_OFFSET)."""

    def run(data: bytes) -> Outputs:
        try:
            if fmt == "gzip":
                out = gzip.decompress(data)
            else:
                out = zlib.decompress(data, 15 if fmt == "zlib" else -15)
        except EOFError:
            return _malformed(ANY_OFFSET, 5)
        except (zlib.error, gzip.BadGzipFile, OSError) as error:
            return _malformed(ANY_OFFSET, 5 if "Error -5" in str(error) else 7)
        return _decoded(out)

    return run


def _inflate_stored(data: bytes) -> Outputs:
    """Raw DEFLATE of stored blocks only (RFC 1951 §3.2.4): a block header of 3
    bits (BFINAL, BTYPE = 00), the rest of its byte skipped, LEN and NLEN (the
    one's complement), LEN bytes. Anything else fails: code 5 where an element
    (header, LEN/NLEN, a stored byte) needs bytes past the end (offset: the
    byte of its first bit, the input length for a stored byte), 7 at a header
    whose BTYPE is not 00 and at a LEN whose NLEN does not match. The output of
    a stream that passes is checked against `zlib.decompress(data, -15)`."""
    n = len(data)
    bit = 0
    out = bytearray()
    while True:
        at = bit // 8
        if at >= n or (bit % 8 > 5 and at + 1 >= n):
            return _malformed(at, 5)
        header = (int.from_bytes(data[at : at + 2], "little") >> (bit % 8)) & 7
        if header >> 1 != 0:
            return _malformed(at, 7)
        bit = ((bit + 3 + 7) // 8) * 8
        at = bit // 8
        if at + 4 > n:
            return _malformed(at, 5)
        length = int.from_bytes(data[at : at + 2], "little")
        if length ^ int.from_bytes(data[at + 2 : at + 4], "little") != 0xFFFF:
            return _malformed(at, 7)
        start = at + 4
        if start + length > n:
            return _malformed(n, 5)
        out += data[start : start + length]
        bit = (start + length) * 8
        if header & 1:
            break
    if bytes(out) != zlib.decompress(data, -15):
        raise AssertionError("the stored-block oracle disagrees with zlib.decompress")
    return _decoded(bytes(out))


# ---------------------------------------------------------------------------
# the table
# ---------------------------------------------------------------------------


def _and_not(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return a & ~b


def _not(a: np.ndarray) -> np.ndarray:
    return _u32(~a.astype(np.uint64))


def _equal(a: bytes, b: bytes) -> int:
    return int(a == b)


def _ints(x: np.ndarray) -> list[int]:
    return [int(v) for v in x.tolist()]


def _sum(x: np.ndarray) -> int:
    return sum(_ints(x)) & M32


def _min(x: np.ndarray) -> int:
    return min(_ints(x), default=NONE)


def _max(x: np.ndarray) -> int:
    return max(_ints(x), default=0)


def _argmin(x: np.ndarray) -> int:
    return _arg_extreme(x, largest=False)


def _argmax(x: np.ndarray) -> int:
    return _arg_extreme(x, largest=True)


def _count(x: np.ndarray) -> int:
    return sum(1 for v in _ints(x) if v)


def _any(x: np.ndarray) -> int:
    return int(any(_ints(x)))


def _all(x: np.ndarray) -> int:
    return int(all(_ints(x)))


def _inclusive(x: np.ndarray) -> np.ndarray:
    return _scan(x, inclusive=True)


def _exclusive(x: np.ndarray) -> np.ndarray:
    return _scan(x, inclusive=False)


def _sorted(x: np.ndarray) -> np.ndarray:
    return _u32(sorted(_ints(x)))


def _b64decode(text: bytes) -> bytes:
    return base64.b64decode(text, validate=True)


def _b64url_decode(text: bytes) -> bytes:
    return base64.b64decode(text, altchars=b"-_", validate=True)


def _hex_encode(data: bytes) -> bytes:
    return data.hex().encode("ascii")


def _one(fn: Callable[..., Value], name: str = "out") -> Callable[..., Outputs]:
    def run(*args: Any) -> Outputs:
        return {name: fn(*args)}

    return run


ORACLES: dict[str, Callable[..., Outputs]] = {
    "bitset.and": _bitset(np.bitwise_and),
    "bitset.or": _bitset(np.bitwise_or),
    "bitset.xor": _bitset(np.bitwise_xor),
    "bitset.and_not": _bitset(_and_not),
    "bitset.not": _one(_not),
    "bitset.popcount": _popcount,
    "buffer.memchr": _memchr,
    "buffer.byte_count": _byte_count,
    "buffer.memcmp": _one(_equal),
    "buffer.byte_swap_u32": _byte_swap,
    "buffer.compact": _compact,
    "buffer.gather": _gather,
    "buffer.scatter": _scatter,
    "collection.unique_u32": _unique,
    "collection.contains_u32": _contains,
    "match.find_all": _find_all,
    "match.byte_class": _byte_class,
    "string.ascii_lower": _one(bytes.lower),
    "string.ascii_upper": _one(bytes.upper),
    "string.split_offsets": _split_offsets,
    "reductions.reduce_sum_u32": _one(_sum),
    "reductions.reduce_min_u32": _one(_min),
    "reductions.reduce_max_u32": _one(_max),
    "reductions.argmin_u32": _one(_argmin),
    "reductions.argmax_u32": _one(_argmax),
    "reductions.reduce_count": _one(_count),
    "reductions.reduce_any": _one(_any),
    "reductions.reduce_all": _one(_all),
    "reductions.f32_sum_strict": _f32_sum_strict,
    "reductions.f32_sum_tree": _f32_sum_tree,
    "scan.prefix_sum_inclusive_u32": _one(_inclusive),
    "scan.prefix_sum_exclusive_u32": _one(_exclusive),
    "scan.segmented_inclusive_u32": _segmented,
    "sort.u32": _one(_sorted),
    "sort.key_value_u32": _key_value,
    "stats.byte_histogram": _byte_histogram,
    "stats.histogram_u32": _histogram,
    "graph.bfs": _bfs,
    "graph.connected_components": _components,
    "graph.csr_in_degree": _in_degree,
    "graph.csr_out_degree": _out_degree,
    "decode.base64": _radix_decoder(B64, 4, (2, 3), _b64decode),
    "decode.base64url": _radix_decoder(B64URL, 4, (2, 3), _b64url_decode),
    "decode.base32": _radix_decoder(B32, 8, (2, 4, 5, 7), base64.b32decode),
    "decode.hex": _hex_decode,
    "decode.url_percent": _percent_decode,
    "decode.uleb128_u32": _uleb_decode,
    "decode.utf8_validate": _utf8,
    "encode.base64_encode": _one(base64.b64encode),
    "encode.base64url_encode": _one(base64.urlsafe_b64encode),
    "encode.base32_encode": _one(base64.b32encode),
    "encode.hex_encode_lower": _one(_hex_encode),
    "encode.url_percent_encode": _percent_encode,
    "encode.uleb128_u32": _uleb_encode,
    "compression.deflate_decompress": _inflate("deflate"),
    "compression.zlib_decompress": _inflate("zlib"),
    "compression.gzip_decompress": _inflate("gzip"),
    "decode.inflate_stored": _inflate_stored,
}
for _name, _fn in _WORD_HASHES.items():
    ORACLES[f"hash.{_name}"] = _word_hash(_fn)
    if _name not in ("crc32", "crc32c", "adler32"):
        ORACLES[f"hash.{_name}_batch"] = _word_hash_batch(_fn)
for _name, _dg in _DIGESTS.items():
    ORACLES[f"hash.{_name}"] = _digest(_dg)
    ORACLES[f"hash.{_name}_batch"] = _digest_batch(_dg)

DECODERS = frozenset(
    {
        "decode.base64", "decode.base64url", "decode.base32", "decode.hex", "decode.url_percent",
        "decode.uleb128_u32", "decode.inflate_stored", "compression.deflate_decompress",
        "compression.zlib_decompress", "compression.gzip_decompress",
    }
)  # fmt: skip
"""Ops that raise `vyre.OpInputError` on malformed input (error offset, code)."""


def oracle(op_id: str) -> Callable[..., Outputs]:
    """The oracle of `op_id` (KeyError for an op this module does not know)."""
    return ORACLES[op_id]
