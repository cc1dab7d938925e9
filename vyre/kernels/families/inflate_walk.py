"""The reference walk of DEFLATE / zlib / gzip streams (RFC 1951 / 1950 / 1952)
that says *where* and *why* a malformed stream fails: the byte offset and the
C6 code of the first failure in stream order (docs/compression.md "Errors").

CPython is the oracle of every accept/reject decision and of every output
(`zlib.decompress(data, 15)`, `zlib.decompress(data, -15)`,
`gzip.decompress(data)`); this walk reproduces zlib 1.2.13's `inflate` state
machine (and CPython 3.11's `gzip.decompress` loop over members) step for step,
so that it fails exactly where they do, and names the place:

- every *element* of the stream (a header field, a block header, a Huffman
  code, the extra bits after it, a stored block's LEN/NLEN, one stored byte, a
  trailer) starts at a bit; its offset is the byte holding that bit;
- the stream is **truncated** (code 5) when an element needs bits past the end:
  the offset is that element's (the input length when it starts at the end);
  a Huffman code needs exactly its own length (the bits past the end decide
  nothing), an invalid code (a hole of a one-code table or of the empty
  distance table) needs one bit, as zlib's tables say;
- it is **corrupt** (code 7) at the element that is invalid: a bad header
  field, an invalid code or symbol, a repeat with nothing to repeat or past
  the end of the lengths, a distance past the start of the output, a stored
  length whose complement does not match, a checksum. A code-length set that
  zlib's `inflate_table` rejects (over-subscribed, incomplete, too many
  symbols, no end-of-block code) fails at the block's header.

Written from the RFCs and zlib's `inflate.c` / `inftrees.c`, sharing nothing
with the GPU decoder (`inflate_program.py`), whose offsets the proof system
compares with these.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "CORRUPT",
    "DEFLATE",
    "NO_LIMIT",
    "OVERFLOW",
    "FORMATS",
    "GZIP",
    "TRUNCATED",
    "ZLIB",
    "Failure",
    "walk",
    "walk_stored",
]

TRUNCATED = 5
OVERFLOW = 6
CORRUPT = 7
NO_LIMIT = 1 << 64
DEFLATE, ZLIB, GZIP = "deflate", "zlib", "gzip"
FORMATS = (DEFLATE, ZLIB, GZIP)

_MAXBITS = 15
_ORDER = (16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15)


def _length_bases() -> list[tuple[int, int]]:
    """(base, extra bits) of length symbols 257..285 (RFC 1951 §3.2.5)."""
    out: list[tuple[int, int]] = []
    base = 3
    for sym in range(257, 285):
        extra = 0 if sym < 265 else (sym - 261) // 4
        out.append((base, extra))
        base += 1 << extra
    out.append((258, 0))
    return out


def _distance_bases() -> list[tuple[int, int]]:
    """(base, extra bits) of distance symbols 0..29."""
    out: list[tuple[int, int]] = []
    base = 1
    for sym in range(30):
        extra = 0 if sym < 4 else sym // 2 - 1
        out.append((base, extra))
        base += 1 << extra
    return out


_LENGTHS = _length_bases()
_DISTANCES = _distance_bases()


class Failure(Exception):
    """The first failure of a stream: C6 `code` at byte `offset`, and why."""

    def __init__(self, code: int, offset: int, why: str):
        super().__init__(f"{why} at byte {offset}")
        self.code = code
        self.offset = offset
        self.why = why


@dataclass
class _Table:
    """A canonical Huffman code as zlib decodes it: `lookup[bits]` for the next
    `bits_wide` bits (zero past the end) is (symbol, length) or None for an
    invalid code, which needs `invalid_bits` bits."""

    lookup: list[tuple[int, int] | None]
    bits_wide: int
    invalid_bits: int = 1


def _build(lengths: list[int], kind: str) -> _Table | None:
    """zlib's `inflate_table` decision for `kind` ('codes', 'lens', 'dists'),
    and the table: None when the set is rejected."""
    count = [0] * (_MAXBITS + 1)
    for length in lengths:
        count[length] += 1
    top = max((length for length in range(1, _MAXBITS + 1) if count[length]), default=0)
    if top == 0:
        if kind == "codes":
            # zlib's table of two invalid entries of one bit: CODELENS reads
            # their value (0) without looking at the invalid marker
            return _Table([(0, 1), (0, 1)], 1)
        return _Table([None, None], 1)
    left = 1
    for length in range(1, _MAXBITS + 1):
        left = 2 * left - count[length]
        if left < 0:
            return None
    if left > 0 and (kind == "codes" or top != 1):
        return None
    lookup: list[tuple[int, int] | None] = [None] * (1 << top)
    code = 0
    for length in range(1, top + 1):
        for sym, own in enumerate(lengths):
            if own != length:
                continue
            reversed_code = int(f"{code:0{length}b}"[::-1], 2)
            for fill in range(reversed_code, 1 << top, 1 << length):
                lookup[fill] = (sym, length)
            code += 1
        code <<= 1
    return _Table(lookup, top)


def _fixed() -> tuple[_Table, _Table]:
    lit = [8] * 144 + [9] * 112 + [7] * 24 + [8] * 8
    lit_table = _build(lit, "lens")
    dist_table = _build([5] * 32, "dists")
    assert lit_table is not None and dist_table is not None
    return lit_table, dist_table


_fixed_tables: list[tuple[_Table, _Table]] = []


class _Bits:
    """The input as a little-endian bit string (RFC 1951 §3.1.1)."""

    def __init__(self, data: bytes, pos: int = 0):
        self.data = data
        self.end = 8 * len(data)
        self.pos = pos

    def peek(self, k: int) -> int:
        """The next k bits, zero past the end."""
        first = self.pos >> 3
        chunk = int.from_bytes(self.data[first : first + (k + 7 + 7) // 8], "little")
        return (chunk >> (self.pos & 7)) & ((1 << k) - 1)

    def need(self, k: int, start: int) -> None:
        """k more bits must be there; else the element that starts at bit
        `start` is truncated."""
        if self.pos + k > self.end:
            raise Failure(TRUNCATED, start >> 3, "the stream ends inside an element")

    def take(self, k: int, start: int | None = None) -> int:
        self.need(k, self.pos if start is None else start)
        value = self.peek(k)
        self.pos += k
        return value

    def align(self) -> None:
        self.pos = (self.pos + 7) & ~7

    def decode(self, table: _Table, what: str) -> int:
        start = self.pos
        entry = table.lookup[self.peek(table.bits_wide)]
        if entry is None:
            self.need(table.invalid_bits, start)
            raise Failure(CORRUPT, start >> 3, f"invalid {what} code")
        sym, length = entry
        self.need(length, start)
        self.pos += length
        return sym


def _dynamic(bits: _Bits, header: int) -> tuple[_Table, _Table]:
    at = header >> 3
    start = bits.pos
    nlen = 257 + bits.take(5, start)
    ndist = 1 + bits.take(5, start)
    ncode = 4 + bits.take(4, start)
    if nlen > 286 or ndist > 30:
        raise Failure(CORRUPT, at, "too many length or distance symbols")
    code_lengths = [0] * 19
    for k in range(ncode):
        code_lengths[_ORDER[k]] = bits.take(3)
    codes = _build(code_lengths, "codes")
    if codes is None:
        raise Failure(CORRUPT, at, "invalid code lengths set")
    lengths: list[int] = []
    total = nlen + ndist
    while len(lengths) < total:
        start = bits.pos
        entry = codes.lookup[bits.peek(codes.bits_wide)]
        assert entry is not None  # a code-length table has no invalid entry
        sym, length = entry
        if sym < 16:
            bits.need(length, start)
            bits.pos += length
            lengths.append(sym)
            continue
        extra, base = {16: (2, 3), 17: (3, 3), 18: (7, 11)}[sym]
        bits.need(length + extra, start)
        bits.pos += length
        if sym == 16 and not lengths:
            raise Failure(CORRUPT, start >> 3, "invalid bit length repeat")
        value = lengths[-1] if sym == 16 else 0
        repeat = base + bits.take(extra)
        if len(lengths) + repeat > total:
            raise Failure(CORRUPT, start >> 3, "invalid bit length repeat")
        lengths.extend([value] * repeat)
    if lengths[256] == 0:
        raise Failure(CORRUPT, at, "invalid code -- missing end-of-block")
    lit = _build(lengths[:nlen], "lens")
    if lit is None:
        raise Failure(CORRUPT, at, "invalid literal/lengths set")
    dist = _build(lengths[nlen:], "dists")
    if dist is None:
        raise Failure(CORRUPT, at, "invalid distances set")
    return lit, dist


class _Output(bytearray):
    """The output so far, and the longest it may grow (`limit`)."""

    limit: int = NO_LIMIT

    def check(self) -> None:
        if len(self) > self.limit:
            raise Failure(OVERFLOW, 0, f"the output passes {self.limit} bytes")


def _codes(bits: _Bits, out: _Output, member: int, lit: _Table, dist: _Table) -> None:
    while True:
        start = bits.pos
        sym = bits.decode(lit, "literal/length")
        if sym < 256:
            out.append(sym)
            out.check()
            continue
        if sym == 256:
            return
        if sym > 285:
            raise Failure(CORRUPT, start >> 3, "invalid literal/length code")
        base, extra = _LENGTHS[sym - 257]
        length = base + bits.take(extra)
        dstart = bits.pos
        dsym = bits.decode(dist, "distance")
        if dsym > 29:
            raise Failure(CORRUPT, dstart >> 3, "invalid distance code")
        dbase, dextra = _DISTANCES[dsym]
        distance = dbase + bits.take(dextra)
        if distance > len(out) - member:
            raise Failure(CORRUPT, dstart >> 3, "invalid distance too far back")
        for _ in range(length):
            out.append(out[-distance])
        out.check()


def _inflate(bits: _Bits, out: _Output, member: int, stored_only: bool = False) -> None:
    """One raw DEFLATE stream from `bits.pos`, appended to `out` (whose bytes
    from `member` on are this stream's: a distance may not reach before);
    `stored_only`: a block that is not stored is corrupt at its header."""
    while True:
        header = bits.pos
        first = bits.take(3)
        final, kind = first & 1, first >> 1
        if stored_only and kind in (1, 2):
            raise Failure(CORRUPT, header >> 3, "not a stored block (decode.inflate_stored)")
        if kind == 0:
            bits.align()
            at = bits.pos >> 3
            word = bits.take(32)
            length, complement = word & 0xFFFF, word >> 16
            if length != complement ^ 0xFFFF:
                raise Failure(CORRUPT, at, "invalid stored block lengths")
            begin = bits.pos >> 3
            if begin + length > len(bits.data):
                raise Failure(TRUNCATED, len(bits.data), "the stream ends inside a stored block")
            out += bits.data[begin : begin + length]
            out.check()
            bits.pos += 8 * length
        elif kind == 1:
            if not _fixed_tables:
                _fixed_tables.append(_fixed())
            _codes(bits, out, member, *_fixed_tables[0])
        elif kind == 2:
            _codes(bits, out, member, *_dynamic(bits, header))
        else:
            raise Failure(CORRUPT, header >> 3, "invalid block type")
        if final:
            return


def _adler32(data: bytes | bytearray) -> int:
    a, b = 1, 0
    for k in range(0, len(data), 4096):
        for byte in data[k : k + 4096]:
            a += byte
            b += a
        a %= 65521
        b %= 65521
    return b << 16 | a


def _zlib(data: bytes, limit: int) -> bytes:
    bits = _Bits(data)
    if len(data) < 2:
        raise Failure(TRUNCATED, 0, "the stream ends inside the zlib header")
    cmf, flg = data[0], data[1]
    if (cmf << 8 | flg) % 31:
        raise Failure(CORRUPT, 0, "incorrect header check")
    if cmf & 15 != 8:
        raise Failure(CORRUPT, 0, "unknown compression method")
    if (cmf >> 4) + 8 > 15:
        raise Failure(CORRUPT, 0, "invalid window size")
    if flg & 0x20:
        if len(data) < 6:
            raise Failure(TRUNCATED, 2, "the stream ends inside the dictionary id")
        raise Failure(CORRUPT, 1, "a preset dictionary (FDICT) is required")
    bits.pos = 16
    out = _Output()
    out.limit = limit
    _inflate(bits, out, 0)
    bits.align()
    at = bits.pos >> 3
    if at + 4 > len(data):
        raise Failure(TRUNCATED, at, "the stream ends inside the Adler-32 trailer")
    if int.from_bytes(data[at : at + 4], "big") != _adler32(out):
        raise Failure(CORRUPT, at, "incorrect data check (Adler-32)")
    return bytes(out)


def _crc32(data: bytes | bytearray) -> int:
    import zlib

    return zlib.crc32(data)


def _cstring(data: bytes, at: int) -> int:
    """Past the NUL that ends the string at `at` (the end of the data if none:
    CPython stops there without an error)."""
    end = data.find(b"\0", at)
    return len(data) if end < 0 else end + 1


def _gzip(data: bytes, limit: int) -> bytes:
    out = _Output()
    out.limit = limit
    at = 0
    while True:
        if at == len(data):
            return bytes(out)
        if len(data) - at < 2 or data[at : at + 2] != b"\x1f\x8b":
            raise Failure(CORRUPT, at, "not a gzip member (magic)")
        if len(data) - at < 10:
            raise Failure(TRUNCATED, at + 2, "the stream ends inside the gzip header")
        if data[at + 2] != 8:
            raise Failure(CORRUPT, at + 2, "unknown compression method")
        flags = data[at + 3]
        at += 10
        if flags & 4:
            if len(data) - at < 2:
                raise Failure(TRUNCATED, at, "the stream ends inside FEXTRA's length")
            extra = int.from_bytes(data[at : at + 2], "little")
            if len(data) - at - 2 < extra:
                raise Failure(TRUNCATED, at + 2, "the stream ends inside FEXTRA")
            at += 2 + extra
        if flags & 8:
            at = _cstring(data, at)
        if flags & 16:
            at = _cstring(data, at)
        if flags & 2:
            if len(data) - at < 2:
                raise Failure(TRUNCATED, at, "the stream ends inside FHCRC")
            at += 2
        member = len(out)
        bits = _Bits(data, 8 * at)
        _inflate(bits, out, member)
        bits.align()
        at = bits.pos >> 3
        if len(data) - at < 8:
            raise Failure(TRUNCATED, at, "the stream ends inside the gzip trailer")
        if int.from_bytes(data[at : at + 4], "little") != _crc32(out[member:]):
            raise Failure(CORRUPT, at, "CRC check failed")
        if int.from_bytes(data[at + 4 : at + 8], "little") != (len(out) - member) & 0xFFFF_FFFF:
            raise Failure(CORRUPT, at + 4, "incorrect length of data produced (ISIZE)")
        at += 8
        while at < len(data) and data[at] == 0:
            at += 1


def walk_stored(data: bytes, limit: int = NO_LIMIT) -> bytes:
    """`walk` of a raw DEFLATE stream of stored blocks only (`decode.inflate_stored`)."""
    out = _Output()
    out.limit = limit
    _inflate(_Bits(data), out, 0, stored_only=True)
    return bytes(out)


def walk(data: bytes, fmt: str, limit: int = NO_LIMIT) -> bytes:
    """The decompressed bytes of `data` in format `fmt` (DEFLATE, ZLIB or GZIP),
    or `Failure` at the first failure (see the module doc); an output longer
    than `limit` bytes fails with code 6 (overflow) at byte 0 when it passes it."""
    if fmt == DEFLATE:
        out = _Output()
        out.limit = limit
        _inflate(_Bits(data), out, 0)
        return bytes(out)
    if fmt == ZLIB:
        return _zlib(data, limit)
    if fmt == GZIP:
        return _gzip(data, limit)
    raise ValueError(f"unknown format {fmt!r}; choose one of {FORMATS}")
