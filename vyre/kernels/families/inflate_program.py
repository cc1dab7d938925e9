"""The GPU inflater: one vyre Program that decodes DEFLATE streams (RFC 1951),
optionally wrapped in zlib (RFC 1950) or gzip (RFC 1952) framing, one stream
per invocation, a bounded number of steps per dispatch (docs/compression.md).

**One invocation, one stream, a state machine.** DEFLATE is a sequential bit
stream, so the parallelism is across streams (C2 kind `batch`):
invocation w of a wave decodes stream first + w. Its whole decoder state (bit position, output
position, block and copy state, table-building progress, checksum, error) is
a row of `STATE_WORDS` words of the `state` buffer, loaded into locals at the
start of a dispatch and stored at its end; its Huffman tables live in its
region of the `tables` buffer (`inflate_format.py`). A dispatch runs at most
`steps` iterations of one flat loop (a parameter word; the only other loop,
clearing a dynamic block's code lengths, has 44 iterations), each iteration
one *step* of the state machine:

- `CODES`: one literal/length code by one root-table load (a hole: the
  canonical slow path over the longer lengths) and up to three more literals
  whose codes are in the bits already peeked, or a length code, its extra
  bits, the distance code and its extra bits, and the first chunk of the
  match copy; copying goes on in later steps, 8 bytes a step (4 while the distance is below 8; a
  distance d below 8 is doubled while the copied bytes allow, since a copy at
  distance d is one at distance 2d once d bytes of it are out);
- `SCOPY`: 8 bytes of a stored block;
- table building: 8 code lengths counted or sorted, 4 codes placed or 8 entries
  doubled per step (the root table of 2^R entries is built by placing the
  codes of length L into the first 2^L entries and doubling, L = 1..R);
- headers, block headers, trailers, gzip's optional fields and zero padding.

Output goes through `append`: up to 8 bytes at any byte position, the partial
last word kept in a local (`acc`) and every touched word stored whole (a
stream's output region starts on a word and is its own); a chunk that would
pass the capacity is counted, not stored. The checksum of the
framing (Adler-32 for zlib, CRC-32 for gzip, the slicing-by-4 tables of
`hash_crc`) is updated with every appended chunk.

**Output capacity** (`cap` bytes per stream, from the plan): bytes past it are
counted, not stored, and copies and stored blocks are skipped once past it; a stream that needs
more ends with code 8 and its full length (or, if it also fails later, the
length up to the failure), and the op re-plans it with that capacity
(`KernelSpec.replan`): a result is never truncated. Checksums are verified
only within the capacity (a re-planned run verifies them).

**Rounds**: the plan repeats the decode step while any stream of the wave is
unfinished (`Repeat` on the wave's word of `left`, the count of unfinished
streams: a stream takes itself off with an atomic add of -1 when it
finishes); a finished stream writes its `length`, `error_offset` and
`error_code` once and returns at once in later rounds.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from itertools import count

import numpy as np

from vyre.ir import AtomicOp, BufferDecl, DataType, Expr, Node, Program
from vyre.ir import Expr as E
from vyre.kernels.families import inflate_format as F
from vyre.kernels.families.common import param
from vyre.kernels.families.hash_adler import MOD as ADLER_MOD
from vyre.kernels.families.hash_crc import CRC32, tables
from vyre.kernels.spec import NO_ERROR

__all__ = [
    "DEFLATE",
    "FORMATS",
    "GZIP",
    "PARAMS",
    "MODES",
    "STATE_VARS",
    "STATE_WORDS",
    "STREAM_WORDS",
    "WORKGROUP",
    "ZLIB",
    "crc_table",
    "decode_program",
    "prepare_program",
    "reset_program",
]

DEFLATE, ZLIB, GZIP = "deflate", "zlib", "gzip"
FORMATS = {DEFLATE: 0, ZLIB: 1, GZIP: 2}
"""The format's parameter word."""

PARAMS = ("streams", "steps", "format", "stored_only", "first", "wave", "limit")
"""The decode program's parameter words: the streams of the wave, steps per
dispatch, the format (`FORMATS`), 1 to reject blocks that are not stored, the
wave's first stream, the wave's index (its word of `left`), the longest
output (longer fails with code 6 at byte 0). Invocation w of a
wave decodes stream first + w with state row w and table region w: waves of a
large batch reuse them."""
STREAMS, STEPS, FORMAT, STORED_ONLY, FIRST, WAVE_INDEX, LIMIT = range(len(PARAMS))

WORKGROUP = 64
"""Invocations per workgroup: a small batch of streams keeps the interpreter's
lockstep lanes few, and 64 is two warps on a GPU."""

STREAM_WORDS = 4
"""Words per stream of the `streams` table: first input word, input bytes,
first output word, output capacity in bytes."""

STATE_VARS = (
    "mode", "bitpos", "opos", "acc", "bfinal", "clen", "cd", "ce", "cp", "srem",
    "litbase", "distbase", "chk1", "chk2", "mstart", "hdr", "nlen", "ndist", "ncl",
    "bi", "prev", "tid", "ph", "bl", "gfl", "err", "ecode",
)
"""The decoder state kept between dispatches: bit position, output position,
the partial last output word, BFINAL, the match copy (remaining, distance,
effective distance, copied), stored bytes remaining, the tables in use, the
checksum, the member's first output byte, the block header's bit, the dynamic
header, table-building progress (index, previous length, table, phase, code
length), gzip flags still to read, and the error."""
STATE_WORDS = 32

MODES = (
    "START", "ZHEAD", "GHEAD", "GFIELDS", "BLOCK", "STORED", "SCOPY", "CODES",
    "DYNHEAD", "CLREAD", "BUILD", "LENS", "TRAILER", "GZEROS", "DONE",
)
(START, ZHEAD, GHEAD, GFIELDS, BLOCK, STORED, SCOPY, CODES,
 DYNHEAD, CLREAD, BUILD, LENS, TRAILER, GZEROS, DONE) = range(len(MODES))

CLEAR, COUNTING, META, SORT, PLACE, DOUBLE = range(6)
"""Phases of building one table."""

_TRUNCATED, _OVERFLOW, _CORRUPT, _TOO_SMALL = 5, 6, 7, 8

LITERALS_PER_STEP = 4
"""Literals one `CODES` step may decode (they fill the first output word)."""


def crc_table() -> np.ndarray:
    """CRC-32's slicing-by-4 tables T0..T3 (`hash_crc.tables`)."""
    return np.array(tables(CRC32), dtype=np.uint32)


# ---------------------------------------------------------------------------
# Small IR helpers
# ---------------------------------------------------------------------------


def u(value: int) -> Expr:
    return E.u32(value & 0xFFFF_FFFF)


def v(name: str) -> Expr:
    return E.var(name)


def _sel(cond: Expr, a: Expr, b: Expr) -> Expr:
    return E.select(cond, a, b)


def _min(a: Expr, b: Expr) -> Expr:
    return E.select(E.lt(b, a), b, a)


def _mask_bits(count_: Expr) -> Expr:
    """(1 << count) - 1 for count in 0..31."""
    return E.sub(E.shl(u(1), count_), u(1))


def _mask_bytes(value: Expr, count_: Expr) -> Expr:
    """`value` with only its `count` low bytes kept (count may be any u32)."""
    keep = _sel(E.ge(count_, u(4)), u(0xFFFF_FFFF), _mask_bits(E.shl(count_, u(3))))
    return E.bitand(value, keep)


def _funnel(low: Expr, high: Expr, shift: Expr) -> Expr:
    """The 32 bits from bit `shift` (0..31) of high:low; `shift` = 0 needs no
    select: (high << 1) << 31 is 0."""
    return E.bitor(E.shr(low, shift), E.shl(E.shl(high, u(1)), E.sub(u(31), shift)))


def _byte(value: Expr, k: int) -> Expr:
    return E.bitand(E.shr(value, u(8 * k)), u(0xFF)) if k else E.bitand(value, u(0xFF))


class _Builder:
    """The decode program of one framing format (see the module doc)."""

    def __init__(self) -> None:
        self._names = count()

    # -- names and small statement helpers ------------------------------------

    def fresh(self, stem: str) -> str:
        return f"{stem}_{next(self._names)}"

    def fail(self, code: int, offset: Expr) -> list[Node]:
        """The first failure: C6 `code` at byte `offset`; the stream is done."""
        return [Node.assign("err", offset), Node.assign("ecode", u(code)), Node.assign("mode", u(DONE))]

    def peek(self, name: str, bitpos: Expr) -> list[Node]:
        """`name` = the 32 input bits from stream bit `bitpos` (bits past the
        stream are whatever the buffer holds there: every use checks lengths)."""
        at, sh = self.fresh("pw"), self.fresh("ps")
        return [
            Node.let(at, E.add(v("base"), E.shr(bitpos, u(5)))),
            Node.let(sh, E.bitand(bitpos, u(31))),
            Node.let(name, _funnel(E.load("data", v(at)), E.load("data", E.add(v(at), u(1))), v(sh))),
        ]

    def table(self, index: Expr) -> Expr:
        return E.load("tables", index)

    def region(self, offset: int | Expr) -> Expr:
        """Word `offset` of this stream's table region."""
        return E.add(v("tb"), offset if isinstance(offset, Expr) else u(offset))

    def next_block(self) -> Expr:
        """The mode after a block: the next block, or the trailer (none for raw DEFLATE)."""
        last = _sel(E.eq(v("fmt"), u(FORMATS[DEFLATE])), u(DONE), u(TRAILER))
        return _sel(E.ne(v("bfinal"), u(0)), last, u(BLOCK))

    # -- Huffman decoding -------------------------------------------------------

    def slow(self, name: str, bits: Expr, meta: int, sorted_at: int, root: int) -> list[Node]:
        """`name` = the entry of the code longer than `root` bits that starts
        the 32 bits `bits` (canonical decoding over lengths root+1..15), or an
        invalid code of one bit when none does."""
        rev, found = self.fresh("rv"), self.fresh("fi")
        nodes = [Node.let(rev, E.reverse_bits(bits)), Node.let(found, u(NO_ERROR))]
        for length in range(root + 1, F.MAXBITS + 1):
            code = E.shr(v(rev), u(32 - length))
            j = self.fresh("j")
            first = self.table(self.region(meta + F.FIRST + length))
            nodes += [
                Node.let(j, E.sub(code, first)),
                Node.if_(
                    E.lt(v(j), self.table(self.region(meta + F.COUNT + length))),
                    [Node.assign(found, E.add(self.table(self.region(meta + F.INDEX + length)), v(j)))],
                ),
            ]
        nodes.append(
            Node.if_(
                E.eq(v(found), u(NO_ERROR)),
                [Node.assign(name, u(F.INVALID_ONE_BIT))],
                [Node.assign(name, self.table(self.region(E.add(u(sorted_at), v(found)))))],
            )
        )
        return nodes

    def lookup(self, name: str, bits: Expr, base: str, root: int, meta: int, sorted_at: int) -> list[Node]:
        return [
            Node.let(name, self.table(E.add(v(base), E.bitand(bits, u((1 << root) - 1))))),
            Node.if_(E.eq(E.bitand(v(name), u(15)), u(0)), self.slow(name, bits, meta, sorted_at, root)),
        ]

    # -- output -----------------------------------------------------------------

    def append(self) -> list[Node]:
        """Append the `c` (1..8) bytes of v0:v1 (bytes past c are zero) at
        `opos`: stored, with the checksum, when they all fit the capacity;
        counted always (a stream past its capacity is run again, so its bytes
        past the capacity need not be kept)."""
        s = v("as")
        high0 = _sel(E.eq(v("ar"), u(0)), u(0), E.shr(v("v0"), E.sub(u(32), s)))
        high1 = _sel(E.eq(v("ar"), u(0)), u(0), E.shr(v("v1"), E.sub(u(32), s)))
        third = [
            Node.let("w2", high1),
            Node.if_(E.gt(v("aend"), u(8)), [Node.store("out", E.add(v("aq"), u(2)), v("w2"))]),
            Node.assign("acc", v("w2")),
        ]
        second = [
            Node.let("w1", E.bitor(high0, E.shl(v("v1"), s))),
            Node.if_(E.gt(v("aend"), u(4)), [Node.store("out", E.add(v("aq"), u(1)), v("w1"))]),
            Node.if_(E.lt(v("aend"), u(8)), [Node.assign("acc", v("w1"))], third),
        ]
        stores = [
            Node.let("ar", E.bitand(v("opos"), u(3))),
            Node.let("as", E.shl(v("ar"), u(3))),
            Node.let("aq", E.add(v("obase"), E.shr(v("opos"), u(2)))),
            Node.let("w0", E.bitor(v("acc"), E.shl(v("v0"), s))),
            Node.store("out", v("aq"), v("w0")),
            Node.let("aend", E.add(v("ar"), v("c"))),
            Node.if_(E.lt(v("aend"), u(4)), [Node.assign("acc", v("w0"))], second),
            *self.checksum(),
        ]
        return [
            Node.if_(E.le(E.add(v("opos"), v("c")), v("cap")), stores),
            Node.assign("opos", E.add(v("opos"), v("c"))),
        ]

    def checksum(self) -> list[Node]:
        fmt = v("fmt")
        return [
            Node.if_(
                E.eq(fmt, u(FORMATS[ZLIB])),
                self.adler(),
                [Node.if_(E.eq(fmt, u(FORMATS[GZIP])), self.crc())],
            )
        ]

    def adler(self) -> list[Node]:
        """A += bytes; B += each running A, for the c bytes of v0:v1, mod 65521:
        for a word of cc bytes b0..b3 (zero past cc), B += cc A + cc S - (b1 +
        2 b2 + 3 b3) and A += S, S the sum of its bytes."""

        def word(value: str, cc: Expr) -> list[Node]:
            b = [self.fresh("ab") for _ in range(4)]
            sum_, weights = self.fresh("as"), self.fresh("aw")
            return [
                *[Node.let(name, _byte(v(value), k)) for k, name in enumerate(b)],
                Node.let(sum_, E.add(E.add(v(b[0]), v(b[1])), E.add(v(b[2]), v(b[3])))),
                Node.let(weights, E.add(E.add(v(b[1]), E.shl(v(b[2]), u(1))), E.mul(v(b[3]), u(3)))),
                Node.assign("chk2", E.sub(E.add(v("chk2"), E.mul(cc, E.add(v("chk1"), v(sum_)))), v(weights))),
                Node.assign("chk1", E.add(v("chk1"), v(sum_))),
            ]

        return [
            *word("v0", _min(v("c"), u(4))),
            Node.if_(E.gt(v("c"), u(4)), word("v1", E.sub(v("c"), u(4)))),
            Node.assign("chk1", E.mod(v("chk1"), u(ADLER_MOD))),
            Node.assign("chk2", E.mod(v("chk2"), u(ADLER_MOD))),
        ]

    def crc(self) -> list[Node]:
        """The CRC-32 register over the c bytes of v0:v1: whole words by
        slicing-by-4, then up to 3 single bytes."""

        def tab(k: int, index: Expr) -> Expr:
            return E.load("crct", E.add(index, u(256 * k)) if k else index)

        def word(value: str) -> list[Node]:
            x = self.fresh("cx")
            return [
                Node.let(x, E.bitxor(v("chk1"), v(value))),
                Node.assign(
                    "chk1",
                    E.bitxor(
                        E.bitxor(tab(3, _byte(v(x), 0)), tab(2, _byte(v(x), 1))),
                        E.bitxor(tab(1, _byte(v(x), 2)), tab(0, E.shr(v(x), u(24)))),
                    ),
                ),
            ]

        c = v("c")
        nodes: list[Node] = [
            Node.if_(E.ge(c, u(4)), word("v0")),
            Node.if_(E.ge(c, u(8)), word("v1")),
            Node.let("crest", _sel(E.ge(c, u(4)), v("v1"), v("v0"))),
            Node.let("crc_n", _sel(E.ge(c, u(8)), u(0), _sel(E.ge(c, u(4)), E.sub(c, u(4)), c))),
        ]
        for k in range(3):
            step = Node.assign(
                "chk1",
                E.bitxor(tab(0, E.bitand(E.bitxor(v("chk1"), _byte(v("crest"), k)), u(0xFF))), E.shr(v("chk1"), u(8))),
            )
            nodes.append(Node.if_(E.lt(u(k), v("crc_n")), [step]))
        return nodes

    # -- the steps ----------------------------------------------------------------

    def codes_step(self) -> list[Node]:
        """A literal/length code and what follows it, then a chunk of the copy."""
        pos = v("bitpos")
        length_entry = [
            Node.let("lx", E.bitand(E.shr(v("e"), u(8)), u(15))),
            Node.if_(
                E.gt(E.add(v("el"), v("lx")), v("av")),
                self.fail(_TRUNCATED, E.shr(E.add(pos, v("el")), u(3))),
                self.distance(),
            ),
        ]
        decode = [
            *self.peek("pk", pos),
            *self.lookup("e", v("pk"), "litbase", F.LIT_ROOT, F.META + F.META_WORDS, F.LIT_SORTED),
            Node.let("el", E.bitand(v("e"), u(15))),
            Node.let("ek", E.bitand(E.shr(v("e"), u(4)), u(3))),
            Node.let("av", E.sub(v("nbits"), pos)),
            Node.if_(
                E.gt(v("el"), v("av")),
                self.fail(_TRUNCATED, E.shr(pos, u(3))),
                [
                    Node.if_(
                        E.eq(v("ek"), u(F.LITERAL)),
                        [
                            Node.assign("v0", E.shr(v("e"), u(16))),
                            Node.assign("c", u(1)),
                            Node.let("used", v("el")),
                            Node.let("lim", _min(v("av"), u(32))),
                            *self.more_literals(1),
                            Node.assign("bitpos", E.add(pos, v("used"))),
                        ],
                        [
                            Node.if_(
                                E.eq(v("ek"), u(F.END)),
                                [Node.assign("bitpos", E.add(pos, v("el"))), Node.assign("mode", self.next_block())],
                                [
                                    Node.if_(
                                        E.eq(v("ek"), u(F.INVALID)),
                                        self.fail(_CORRUPT, E.shr(pos, u(3))),
                                        length_entry,
                                    )
                                ],
                            )
                        ],
                    )
                ],
            ),
        ]
        return [Node.if_(E.eq(v("clen"), u(0)), decode), Node.if_(E.ne(v("clen"), u(0)), self.copy_chunk())]

    def more_literals(self, k: int) -> list[Node]:
        """Literal k (1..3) of the step, when the next code in the bits already
        peeked is a literal of the root table that the stream holds: up to four
        literals take one step (one append, one checksum update)."""
        if k == LITERALS_PER_STEP:
            return []
        e, length = f"e{k}", f"el{k}"
        # a literal of the root table (kind 0, length 1..15) whose bits are peeked and there
        fits = E.and_(
            E.lt(E.sub(E.bitand(v(e), u(0x3F)), u(1)), u(15)),
            E.le(E.add(v("used"), v(length)), v("lim")),
        )
        take = [
            Node.assign("v0", E.bitor(v("v0"), E.shl(E.shr(v(e), u(16)), u(8 * k)))),
            Node.assign("c", u(k + 1)),
            Node.assign("used", E.add(v("used"), v(length))),
            *self.more_literals(k + 1),
        ]
        return [
            Node.let(e, self.table(E.add(v("litbase"), E.bitand(E.shr(v("pk"), v("used")), u((1 << F.LIT_ROOT) - 1))))),
            Node.let(length, E.bitand(v(e), u(15))),
            Node.if_(fits, take),
        ]

    def distance(self) -> list[Node]:
        """After a length code: its extra bits, the distance code and its extra bits."""
        pos = v("bitpos")
        dp = v("dp")
        ok = [
            Node.let("dx", E.bitand(E.shr(v("de"), u(8)), u(15))),
            Node.if_(
                E.gt(E.add(v("dl"), v("dx")), v("dav")),
                self.fail(_TRUNCATED, E.shr(E.add(dp, v("dl")), u(3))),
                [
                    Node.let("dist", E.add(E.shr(v("de"), u(16)), E.bitand(E.shr(v("dk"), v("dl")), _mask_bits(v("dx"))))),
                    Node.if_(
                        E.gt(v("dist"), E.sub(v("opos"), v("mstart"))),
                        self.fail(_CORRUPT, E.shr(dp, u(3))),
                        [
                            Node.assign("clen", v("mlen")),
                            Node.assign("cd", v("dist")),
                            Node.assign("ce", v("dist")),
                            Node.assign("cp", u(0)),
                            Node.assign("bitpos", E.add(E.add(dp, v("dl")), v("dx"))),
                        ],
                    ),
                ],
            ),
        ]
        return [
            Node.let("mlen", E.add(E.shr(v("e"), u(16)), E.bitand(E.shr(v("pk"), v("el")), _mask_bits(v("lx"))))),
            Node.let("dp", E.add(E.add(pos, v("el")), v("lx"))),
            *self.peek("dk", dp),
            *self.lookup("de", v("dk"), "distbase", F.DIST_ROOT, F.META + 2 * F.META_WORDS, F.DIST_SORTED),
            Node.let("dl", E.bitand(v("de"), u(15))),
            Node.let("dav", E.sub(v("nbits"), dp)),
            Node.if_(
                E.gt(v("dl"), v("dav")),
                self.fail(_TRUNCATED, E.shr(dp, u(3))),
                [
                    Node.if_(
                        E.eq(E.bitand(E.shr(v("de"), u(4)), u(3)), u(F.INVALID)),
                        self.fail(_CORRUPT, E.shr(dp, u(3))),
                        ok,
                    )
                ],
            ),
        ]

    def copy_chunk(self) -> list[Node]:
        """The next up-to-8 bytes of the match copy (see the module doc), or the
        rest of it counted at once past the capacity."""
        ce = v("ce")
        src = v("src")
        wide = [
            Node.let("q0", E.load("out", E.add(v("obase"), E.shr(src, u(2))))),
            Node.let("q1", E.load("out", E.add(E.add(v("obase"), E.shr(src, u(2))), u(1)))),
            Node.let("q2", E.load("out", E.add(E.add(v("obase"), E.shr(src, u(2))), u(2)))),
            Node.let("qs", E.shl(E.bitand(src, u(3)), u(3))),
            Node.assign("a0", _funnel(v("q0"), v("q1"), v("qs"))),
            Node.assign("a1", _funnel(v("q1"), v("q2"), v("qs"))),
            Node.assign("c", _min(v("clen"), u(8))),
        ]
        p = v("pt")
        narrow = [
            Node.let("n0", E.load("out", E.add(v("obase"), E.shr(src, u(2))))),
            Node.let("n1", E.load("out", E.add(E.add(v("obase"), E.shr(src, u(2))), u(1)))),
            Node.let("pt", _funnel(v("n0"), v("n1"), E.shl(E.bitand(src, u(3)), u(3)))),
            Node.assign(
                "a0",
                _sel(
                    E.ge(ce, u(4)),
                    p,
                    _sel(
                        E.eq(ce, u(1)),
                        E.mul(E.bitand(p, u(0xFF)), u(0x0101_0101)),
                        _sel(
                            E.eq(ce, u(2)),
                            E.mul(E.bitand(p, u(0xFFFF)), u(0x0001_0001)),
                            E.bitor(E.bitand(p, u(0xFF_FFFF)), E.shl(p, u(24))),
                        ),
                    ),
                ),
            ),
            Node.assign("a1", u(0)),
            Node.assign("c", _min(v("clen"), u(4))),
        ]
        produce = [
            Node.let("src", E.sub(v("opos"), ce)),
            Node.let("a0", u(0)),
            Node.let("a1", u(0)),
            Node.if_(E.ge(ce, u(8)), wide, narrow),
            Node.assign("v0", _mask_bytes(v("a0"), v("c"))),
            Node.assign("v1", _mask_bytes(v("a1"), _sel(E.gt(v("c"), u(4)), E.sub(v("c"), u(4)), u(0)))),
            Node.assign("clen", E.sub(v("clen"), v("c"))),
            Node.assign("cp", E.add(v("cp"), v("c"))),
        ]
        for _ in range(3):  # d < 8 reaches 8 in at most 3 doublings
            produce.append(
                Node.if_(
                    E.and_(E.lt(ce, u(8)), E.le(E.shl(ce, u(1)), E.add(v("cp"), v("cd")))),
                    [Node.assign("ce", E.shl(ce, u(1)))],
                )
            )
        return [
            Node.if_(
                E.gt(v("opos"), v("cap")),
                [Node.assign("opos", E.add(v("opos"), v("clen"))), Node.assign("clen", u(0))],
                produce,
            )
        ]

    def scopy_step(self) -> list[Node]:
        """Up to 8 bytes of a stored block (the input is byte aligned here)."""
        pos = v("bitpos")
        at = E.add(v("base"), E.shr(pos, u(5)))
        produce = [
            Node.let("t0", E.load("data", at)),
            Node.let("t1", E.load("data", E.add(at, u(1)))),
            Node.let("t2", E.load("data", E.add(at, u(2)))),
            Node.let("ts", E.bitand(pos, u(31))),
            Node.assign("c", _min(v("srem"), u(8))),
            Node.assign("v0", _mask_bytes(_funnel(v("t0"), v("t1"), v("ts")), v("c"))),
            Node.assign(
                "v1",
                _mask_bytes(_funnel(v("t1"), v("t2"), v("ts")), _sel(E.gt(v("c"), u(4)), E.sub(v("c"), u(4)), u(0))),
            ),
            Node.assign("bitpos", E.add(pos, E.shl(v("c"), u(3)))),
            Node.assign("srem", E.sub(v("srem"), v("c"))),
        ]
        skip = [
            Node.assign("opos", E.add(v("opos"), v("srem"))),
            Node.assign("bitpos", E.add(pos, E.shl(v("srem"), u(3)))),
            Node.assign("srem", u(0)),
        ]
        return [
            Node.if_(E.gt(v("opos"), v("cap")), skip, produce),
            Node.if_(E.eq(v("srem"), u(0)), [Node.assign("mode", self.next_block())]),
        ]

    # -- dynamic tables -------------------------------------------------------------

    def write_nibbles(self, first: Expr, count_: Expr, value: Expr) -> list[Node]:
        """OR `count` (1..6) nibbles of `value` into the region from nibble
        `first` (they are zero: the lengths are cleared per block)."""
        g, w, o, bits = self.fresh("g"), self.fresh("gw"), self.fresh("go"), self.fresh("gb")
        return [
            Node.let(g, first),
            Node.let(w, self.region(E.shr(v(g), u(3)))),
            Node.let(o, E.shl(E.bitand(v(g), u(7)), u(2))),
            Node.let(bits, E.bitand(E.mul(value, u(0x1111_1111)), _mask_bits(E.shl(count_, u(2))))),
            Node.store("tables", v(w), E.bitor(self.table(v(w)), E.shl(v(bits), v(o)))),
            Node.if_(
                E.gt(E.add(v(o), E.shl(count_, u(2))), u(32)),
                [
                    Node.store(
                        "tables",
                        E.add(v(w), u(1)),
                        E.bitor(self.table(E.add(v(w), u(1))), E.shr(v(bits), E.sub(u(32), v(o)))),
                    )
                ],
            ),
        ]

    def dynhead_step(self) -> list[Node]:
        pos = v("bitpos")
        ok = [
            Node.assign("nlen", E.add(u(257), E.bitand(v("pk"), u(31)))),
            Node.assign("ndist", E.add(u(1), E.bitand(E.shr(v("pk"), u(5)), u(31)))),
            Node.assign("ncl", E.add(u(4), E.bitand(E.shr(v("pk"), u(10)), u(15)))),
            Node.if_(
                E.or_(E.gt(v("nlen"), u(286)), E.gt(v("ndist"), u(30))),
                self.fail(_CORRUPT, E.shr(v("hdr"), u(3))),
                [
                    Node.assign("bitpos", E.add(pos, u(14))),
                    Node.loop("z", u(0), u(F.REGION - F.LENGTHS), [Node.store("tables", self.region(E.add(u(F.LENGTHS), v("z"))), u(0))]),
                    Node.assign("bi", u(0)),
                    Node.assign("mode", u(CLREAD)),
                ],
            ),
        ]
        return [
            *self.peek("pk", pos),
            Node.if_(E.lt(E.sub(v("nbits"), pos), u(14)), self.fail(_TRUNCATED, E.shr(pos, u(3))), ok),
        ]

    def clread_step(self) -> list[Node]:
        pos = v("bitpos")
        read = [
            Node.let("cs", E.load("symtab", E.add(u(F.SYMTAB_ORDER), v("bi")))),
            *self.write_nibbles(E.add(u(F.CL_LENGTHS * 8), v("cs")), u(1), E.bitand(v("pk"), u(7))),
            Node.assign("bitpos", E.add(pos, u(3))),
            Node.assign("bi", E.add(v("bi"), u(1))),
            Node.if_(
                E.eq(v("bi"), v("ncl")),
                [Node.assign("mode", u(BUILD)), Node.assign("tid", u(0)), Node.assign("ph", u(CLEAR))],
            ),
        ]
        return [
            *self.peek("pk", pos),
            Node.if_(E.lt(E.sub(v("nbits"), pos), u(3)), self.fail(_TRUNCATED, E.shr(pos, u(3))), read),
        ]

    def lens_step(self) -> list[Node]:
        """One code-length symbol: a length, or a repeat (16: the previous
        length 3-6 times, 17/18: zeros 3-10 / 11-138 times)."""
        pos = v("bitpos")
        total = E.add(v("nlen"), v("ndist"))
        single = [
            Node.if_(
                E.gt(v("ll"), v("av")),
                self.fail(_TRUNCATED, E.shr(pos, u(3))),
                [
                    Node.if_(
                        E.ne(v("ls"), u(0)),
                        self.write_nibbles(E.add(u(F.LENGTHS * 8), v("bi")), u(1), v("ls")),
                    ),
                    Node.assign("bi", E.add(v("bi"), u(1))),
                    Node.assign("prev", v("ls")),
                    Node.assign("bitpos", E.add(pos, v("ll"))),
                ],
            )
        ]
        repeat_ok = [
            Node.let("rr", E.add(v("rb"), E.bitand(E.shr(v("pk"), v("ll")), _mask_bits(v("rx"))))),
            Node.let("rv", _sel(E.eq(v("ls"), u(16)), v("prev"), u(0))),
            Node.if_(
                E.gt(E.add(v("bi"), v("rr")), total),
                self.fail(_CORRUPT, E.shr(pos, u(3))),
                [
                    Node.if_(
                        E.ne(v("rv"), u(0)),
                        self.write_nibbles(E.add(u(F.LENGTHS * 8), v("bi")), v("rr"), v("rv")),
                    ),
                    Node.assign("bi", E.add(v("bi"), v("rr"))),
                    Node.assign("prev", v("rv")),
                    Node.assign("bitpos", E.add(E.add(pos, v("ll")), v("rx"))),
                ],
            ),
        ]
        repeat = [
            Node.let("rx", _sel(E.eq(v("ls"), u(16)), u(2), _sel(E.eq(v("ls"), u(17)), u(3), u(7)))),
            Node.let("rb", _sel(E.eq(v("ls"), u(18)), u(11), u(3))),
            Node.if_(
                E.gt(E.add(v("ll"), v("rx")), v("av")),
                self.fail(_TRUNCATED, E.shr(pos, u(3))),
                [
                    Node.if_(
                        E.and_(E.eq(v("ls"), u(16)), E.eq(v("bi"), u(0))),
                        self.fail(_CORRUPT, E.shr(pos, u(3))),
                        repeat_ok,
                    )
                ],
            ),
        ]
        end_block = self.table(self.region(F.LENGTHS + 32))
        return [
            *self.peek("pk", pos),
            Node.let("le", self.table(self.region(E.add(u(F.LIT_TABLE), E.bitand(v("pk"), u(127)))))),
            Node.let("ll", E.bitand(v("le"), u(15))),
            Node.let("ls", E.shr(v("le"), u(16))),
            Node.let("av", E.sub(v("nbits"), pos)),
            Node.if_(E.lt(v("ls"), u(16)), single, repeat),
            Node.if_(
                E.and_(E.eq(v("mode"), u(LENS)), E.eq(v("bi"), total)),
                [
                    Node.if_(
                        E.eq(E.bitand(end_block, u(15)), u(0)),
                        self.fail(_CORRUPT, E.shr(v("hdr"), u(3))),
                        [Node.assign("mode", u(BUILD)), Node.assign("tid", u(1)), Node.assign("ph", u(CLEAR))],
                    )
                ],
            ),
        ]

    def build_step(self) -> list[Node]:
        """One step of building table `tid` (0 code lengths, 1 literal/length,
        2 distance) in phase `ph` (see the module doc)."""
        tid = v("tid")
        is_cl, is_lit = E.eq(tid, u(0)), E.eq(tid, u(1))
        nodes: list[Node] = [
            Node.let("bn", _sel(is_cl, u(F.CL_SYMBOLS), _sel(is_lit, v("nlen"), v("ndist")))),
            Node.let(
                "bz",
                _sel(
                    is_cl,
                    u(F.CL_LENGTHS * 8),
                    _sel(is_lit, u(F.LENGTHS * 8), E.add(u(F.LENGTHS * 8), v("nlen"))),
                ),
            ),
            Node.let("broot", _sel(is_lit, u(F.LIT_ROOT), u(F.DIST_ROOT))),
            Node.let("bt", self.region(_sel(E.eq(tid, u(2)), u(F.DIST_TABLE), u(F.LIT_TABLE)))),
            Node.let("bs", self.region(_sel(E.eq(tid, u(2)), u(F.DIST_SORTED), u(F.LIT_SORTED)))),
            Node.let("bm", self.region(E.add(u(F.META), E.mul(tid, u(F.META_WORDS))))),
            Node.let("bsym", _sel(is_cl, u(F.SYMTAB_CL), _sel(is_lit, u(F.SYMTAB), u(F.SYMTAB_DIST)))),
        ]
        ph = v("ph")
        nodes.append(
            Node.if_(
                E.eq(ph, u(DOUBLE)),
                self.double_phase(),
                [
                    Node.if_(
                        E.eq(ph, u(PLACE)),
                        self.place_phase(),
                        [
                            Node.if_(
                                E.eq(ph, u(SORT)),
                                self.nibble_phase(sort=True),
                                [
                                    Node.if_(
                                        E.eq(ph, u(COUNTING)),
                                        self.nibble_phase(sort=False),
                                        [Node.if_(E.eq(ph, u(CLEAR)), self.clear_phase(), self.meta_phase())],
                                    )
                                ],
                            )
                        ],
                    )
                ],
            )
        )
        return nodes

    def meta_word(self, which: int, length: Expr | int) -> Expr:
        at = E.add(v("bm"), u(which))
        return E.add(at, length if isinstance(length, Expr) else u(length))

    def clear_phase(self) -> list[Node]:
        nodes = [Node.store("tables", self.meta_word(F.COUNT, k), u(0)) for k in range(16)]
        nodes += [
            Node.store("tables", v("bt"), u(0)),
            Node.store("tables", E.add(v("bt"), u(1)), u(0)),
            Node.assign("bi", u(0)),
            Node.assign("ph", u(COUNTING)),
        ]
        return nodes

    def nibble_phase(self, sort: bool) -> list[Node]:
        """8 code lengths from symbol `bi`: counted per length, or (sort) each
        non-zero one's entry put at the next index of its length."""
        g = E.add(v("bz"), v("bi"))
        w = self.region(E.shr(g, u(3)))
        nodes: list[Node] = [
            Node.let("nw", w),
            Node.let("nb", _funnel(self.table(v("nw")), self.table(E.add(v("nw"), u(1))), E.shl(E.bitand(g, u(7)), u(2)))),
        ]
        for k in range(8):
            length = E.bitand(E.shr(v("nb"), u(4 * k)), u(15)) if k else E.bitand(v("nb"), u(15))
            inside = E.lt(E.add(v("bi"), u(k)), v("bn"))
            name = f"nl{k}"
            if sort:
                at = self.meta_word(F.NEXT, v(name))
                body = [
                    Node.let(f"ni{k}", self.table(at)),
                    Node.store("tables", at, E.add(v(f"ni{k}"), u(1))),
                    Node.store(
                        "tables",
                        E.add(v("bs"), v(f"ni{k}")),
                        E.bitor(E.load("symtab", E.add(E.add(v("bsym"), v("bi")), u(k))), v(name)),
                    ),
                ]
                nodes += [Node.let(name, length), Node.if_(E.and_(inside, E.ne(v(name), u(0))), body)]
            else:
                at = self.meta_word(F.COUNT, v(name))
                nodes += [
                    Node.let(name, length),
                    Node.if_(inside, [Node.store("tables", at, E.add(self.table(at), u(1)))]),
                ]
        done = [Node.assign("bi", u(0)), Node.assign("bl", u(1)), Node.assign("ph", u(PLACE))] if sort else [
            Node.assign("ph", u(META))
        ]
        nodes += [
            Node.assign("bi", E.add(v("bi"), u(8))),
            Node.if_(E.ge(v("bi"), v("bn")), done),
        ]
        return nodes

    def meta_phase(self) -> list[Node]:
        """Counts -> first codes, first indices, the set's validity (zlib's
        `inflate_table`: over-subscribed and incomplete sets are errors, except
        a literal/length or distance set of one code of one bit; an empty
        code-length set reads every bit as length 0)."""
        nodes: list[Node] = [
            Node.let("mleft", u(1)),
            Node.let("mover", u(0)),
            Node.let("mtop", u(0)),
            Node.let("mcode", u(0)),
            Node.let("midx", u(0)),
            Node.let("mprev", u(0)),
        ]
        for length in range(1, F.MAXBITS + 1):
            cnt = f"mc{length}"
            nodes += [
                Node.let(cnt, self.table(self.meta_word(F.COUNT, length))),
                Node.assign("mover", E.bitor(v("mover"), _sel(E.lt(E.shl(v("mleft"), u(1)), v(cnt)), u(1), u(0)))),
                Node.assign("mleft", E.sub(E.shl(v("mleft"), u(1)), v(cnt))),
                Node.if_(E.ne(v(cnt), u(0)), [Node.assign("mtop", u(length))]),
                Node.assign("mcode", E.shl(E.add(v("mcode"), v("mprev")), u(1))),
                Node.store("tables", self.meta_word(F.FIRST, length), v("mcode")),
                Node.store("tables", self.meta_word(F.INDEX, length), v("midx")),
                Node.store("tables", self.meta_word(F.NEXT, length), v("midx")),
                Node.assign("midx", E.add(v("midx"), v(cnt))),
                Node.assign("mprev", v(cnt)),
            ]
        incomplete = E.and_(
            E.and_(E.ne(v("mleft"), u(0)), E.ne(v("mtop"), u(0))),
            E.or_(E.eq(v("tid"), u(0)), E.ne(v("mtop"), u(1))),
        )
        empty_codes = [
            Node.store("tables", v("bt"), u(F.entry(1, F.LITERAL, 0))),
            Node.store("tables", E.add(v("bt"), u(1)), u(F.entry(1, F.LITERAL, 0))),
        ]
        nodes.append(
            Node.if_(
                E.or_(E.ne(v("mover"), u(0)), incomplete),
                self.fail(_CORRUPT, E.shr(v("hdr"), u(3))),
                [
                    Node.if_(E.and_(E.eq(v("mtop"), u(0)), E.eq(v("tid"), u(0))), empty_codes),
                    Node.assign("bi", u(0)),
                    Node.assign("ph", u(SORT)),
                ],
            )
        )
        return nodes

    def place_phase(self) -> list[Node]:
        """Up to 4 codes of length `bl` into the first 2^bl entries."""
        bl = v("bl")
        nodes: list[Node] = [
            Node.let("pc", self.table(self.meta_word(F.COUNT, bl))),
            Node.let("pf", self.table(self.meta_word(F.FIRST, bl))),
            Node.let("px", self.table(self.meta_word(F.INDEX, bl))),
        ]
        for k in range(4):
            j = E.add(v("bi"), u(k))
            rev = E.shr(E.reverse_bits(E.add(v("pf"), j)), E.sub(u(32), bl))
            nodes.append(
                Node.if_(
                    E.lt(j, v("pc")),
                    [Node.store("tables", E.add(v("bt"), rev), self.table(E.add(E.add(v("bs"), v("px")), j)))],
                )
            )
        finished = [
            Node.if_(
                E.eq(bl, v("broot")),
                self.table_done(),
                [Node.assign("ph", u(DOUBLE)), Node.assign("bi", u(0))],
            )
        ]
        nodes += [Node.assign("bi", E.add(v("bi"), u(4))), Node.if_(E.ge(v("bi"), v("pc")), finished)]
        return nodes

    def double_phase(self) -> list[Node]:
        """Up to 8 entries of the 2^bl-entry table copied after it."""
        size = E.shl(u(1), v("bl"))
        nodes: list[Node] = [Node.let("dsz", size)]
        for k in range(8):
            i = E.add(v("bi"), u(k))
            nodes.append(
                Node.if_(
                    E.lt(i, v("dsz")),
                    [Node.store("tables", E.add(E.add(v("bt"), v("dsz")), i), self.table(E.add(v("bt"), i)))],
                )
            )
        nodes += [
            Node.assign("bi", E.add(v("bi"), u(8))),
            Node.if_(
                E.ge(v("bi"), v("dsz")),
                [Node.assign("bl", E.add(v("bl"), u(1))), Node.assign("ph", u(PLACE)), Node.assign("bi", u(0))],
            ),
        ]
        return nodes

    def table_done(self) -> list[Node]:
        tid = v("tid")
        return [
            Node.if_(
                E.eq(tid, u(0)),
                [Node.assign("mode", u(LENS)), Node.assign("bi", u(0)), Node.assign("prev", u(0))],
                [
                    Node.if_(
                        E.eq(tid, u(1)),
                        [Node.assign("tid", u(2)), Node.assign("ph", u(CLEAR))],
                        [
                            Node.assign("mode", u(CODES)),
                            Node.assign("litbase", self.region(F.LIT_TABLE)),
                            Node.assign("distbase", self.region(F.DIST_TABLE)),
                        ],
                    )
                ],
            )
        ]

    # -- block headers, framing ----------------------------------------------------------

    def block_step(self) -> list[Node]:
        pos = v("bitpos")
        kinds = [
            Node.assign("hdr", pos),
            Node.assign("bfinal", E.bitand(v("pk"), u(1))),
            Node.let("bt3", E.bitand(E.shr(v("pk"), u(1)), u(3))),
        ]
        stored = [Node.assign("bitpos", E.bitand(E.add(pos, u(10)), u(0xFFFF_FFF8))), Node.assign("mode", u(STORED))]
        fixed = [
            Node.assign("bitpos", E.add(pos, u(3))),
            Node.assign("litbase", u(F.FIXED_LIT)),
            Node.assign("distbase", u(F.FIXED_DIST)),
            Node.assign("mode", u(CODES)),
        ]
        dynamic = [Node.assign("bitpos", E.add(pos, u(3))), Node.assign("mode", u(DYNHEAD))]
        kinds.append(
            Node.if_(
                E.eq(v("bt3"), u(0)),
                stored,
                [
                    Node.if_(
                        E.or_(E.eq(v("bt3"), u(3)), E.ne(param(STORED_ONLY), u(0))),
                        self.fail(_CORRUPT, E.shr(pos, u(3))),
                        [Node.if_(E.eq(v("bt3"), u(1)), fixed, dynamic)],
                    )
                ],
            )
        )
        return [
            *self.peek("pk", pos),
            Node.if_(E.lt(E.sub(v("nbits"), pos), u(3)), self.fail(_TRUNCATED, E.shr(pos, u(3))), kinds),
        ]

    def stored_step(self) -> list[Node]:
        pos = v("bitpos")
        at = E.shr(pos, u(3))
        lengths = [
            *self.peek("pk", pos),
            Node.let("sl", E.bitand(v("pk"), u(0xFFFF))),
            Node.if_(
                E.ne(v("sl"), E.bitxor(E.shr(v("pk"), u(16)), u(0xFFFF))),
                self.fail(_CORRUPT, at),
                [
                    Node.if_(
                        E.lt(E.sub(E.sub(v("n"), at), u(4)), v("sl")),
                        self.fail(_TRUNCATED, v("n")),
                        [
                            Node.assign("srem", v("sl")),
                            Node.assign("bitpos", E.add(pos, u(32))),
                            Node.assign("mode", _sel(E.eq(v("sl"), u(0)), self.next_block(), u(SCOPY))),
                        ],
                    )
                ],
            ),
        ]
        return [Node.if_(E.lt(E.sub(v("n"), at), u(4)), self.fail(_TRUNCATED, at), lengths)]

    def zhead_step(self) -> list[Node]:
        cmf, flg = v("zc"), v("zf")
        dictionary = [Node.if_(E.lt(v("n"), u(6)), self.fail(_TRUNCATED, u(2)), self.fail(_CORRUPT, u(1)))]
        ok = [
            Node.assign("bitpos", u(16)),
            Node.assign("chk1", u(1)),
            Node.assign("chk2", u(0)),
            Node.assign("mode", u(BLOCK)),
        ]
        checks = [
            *self.peek("pk", u(0)),
            Node.let("zc", E.bitand(v("pk"), u(0xFF))),
            Node.let("zf", E.bitand(E.shr(v("pk"), u(8)), u(0xFF))),
            Node.if_(
                E.or_(
                    E.or_(
                        E.ne(E.mod(E.bitor(E.shl(cmf, u(8)), flg), u(31)), u(0)),
                        E.ne(E.bitand(cmf, u(15)), u(8)),
                    ),
                    E.gt(E.shr(cmf, u(4)), u(7)),
                ),
                self.fail(_CORRUPT, u(0)),
                [Node.if_(E.ne(E.bitand(flg, u(0x20)), u(0)), dictionary, ok)],
            ),
        ]
        return [Node.if_(E.lt(v("n"), u(2)), self.fail(_TRUNCATED, u(0)), checks)]

    def trailer_step(self) -> list[Node]:
        return [
            Node.if_(E.eq(v("fmt"), u(FORMATS[ZLIB])), self.trailer(ZLIB), self.trailer(GZIP)),
        ]

    def trailer(self, fmt: str) -> list[Node]:
        at = E.shr(E.add(v("bitpos"), u(7)), u(3))
        within = E.le(v("opos"), v("cap"))
        if fmt == ZLIB:
            word = v("pk")
            big_endian = E.bitor(
                E.bitor(E.shl(_byte(word, 0), u(24)), E.shl(_byte(word, 1), u(16))),
                E.bitor(E.shl(_byte(word, 2), u(8)), _byte(word, 3)),
            )
            check = [
                *self.peek("pk", E.shl(v("ta"), u(3))),
                Node.if_(
                    E.and_(within, E.ne(big_endian, E.bitor(E.shl(v("chk2"), u(16)), v("chk1")))),
                    self.fail(_CORRUPT, v("ta")),
                    [Node.assign("mode", u(DONE))],
                ),
            ]
            need = 4
        else:
            check = [
                *self.peek("pk", E.shl(v("ta"), u(3))),
                *self.peek("pk2", E.add(E.shl(v("ta"), u(3)), u(32))),
                Node.if_(
                    E.and_(within, E.ne(v("pk"), E.bitnot(v("chk1")))),
                    self.fail(_CORRUPT, v("ta")),
                    [
                        Node.if_(
                            E.and_(within, E.ne(v("pk2"), E.sub(v("opos"), v("mstart")))),
                            self.fail(_CORRUPT, E.add(v("ta"), u(4))),
                            [Node.assign("bitpos", E.shl(E.add(v("ta"), u(8)), u(3))), Node.assign("mode", u(GZEROS))],
                        )
                    ],
                ),
            ]
            need = 8
        return [
            Node.let("ta", at),
            Node.if_(E.lt(E.sub(v("n"), v("ta")), u(need)), self.fail(_TRUNCATED, v("ta")), check),
        ]

    def first_zero_byte(self, name: str, word: Expr, limit: Expr) -> list[Node]:
        """`name` = the index of the first zero byte among the first `limit`
        (0..4) bytes of `word`, 4 if none."""
        nodes: list[Node] = [Node.let(name, u(4))]
        for k in (3, 2, 1, 0):
            nodes.append(
                Node.if_(
                    E.and_(E.lt(u(k), limit), E.eq(_byte(word, k), u(0))),
                    [Node.assign(name, u(k))],
                )
            )
        return nodes

    def gzeros_step(self) -> list[Node]:
        """Zero bytes after a member (CPython strips them), then the next member."""
        at = E.shr(v("bitpos"), u(3))
        nonzero = E.ctz(v("pk"))
        scan = [
            *self.peek("pk", v("bitpos")),
            Node.let("gk", _min(v("gav"), u(4))),
            Node.let("gz", _min(E.shr(nonzero, u(3)), v("gk"))),
            Node.if_(
                E.lt(v("gz"), v("gk")),
                [Node.assign("bitpos", E.shl(E.add(at, v("gz")), u(3))), Node.assign("mode", u(GHEAD))],
                [Node.assign("bitpos", E.shl(E.add(at, v("gk")), u(3)))],
            ),
        ]
        return [Node.let("gav", E.sub(v("n"), at)), Node.if_(E.eq(v("gav"), u(0)), [Node.assign("mode", u(DONE))], scan)]

    def ghead_step(self) -> list[Node]:
        at = E.shr(v("bitpos"), u(3))
        member = [
            Node.assign("gfl", E.bitand(E.shr(v("pk"), u(24)), u(0x1E))),
            Node.assign("bitpos", E.shl(E.add(at, u(10)), u(3))),
            Node.assign("mstart", v("opos")),
            Node.assign("chk1", u(0xFFFF_FFFF)),
            Node.assign("mode", u(GFIELDS)),
        ]
        checks = [
            *self.peek("pk", v("bitpos")),
            Node.if_(
                E.or_(E.lt(v("gav"), u(2)), E.ne(E.bitand(v("pk"), u(0xFFFF)), u(0x8B1F))),
                self.fail(_CORRUPT, at),
                [
                    Node.if_(
                        E.lt(v("gav"), u(10)),
                        self.fail(_TRUNCATED, E.add(at, u(2))),
                        [
                            Node.if_(
                                E.ne(_byte(v("pk"), 2), u(8)),
                                self.fail(_CORRUPT, E.add(at, u(2))),
                                member,
                            )
                        ],
                    )
                ],
            ),
        ]
        return [Node.let("gav", E.sub(v("n"), at)), Node.if_(E.eq(v("gav"), u(0)), [Node.assign("mode", u(DONE))], checks)]

    def gfields_step(self) -> list[Node]:
        """FEXTRA, FNAME, FCOMMENT, FHCRC in this order (CPython 3.11's
        `_read_gzip_header`: FHCRC is skipped, not checked; a name or comment
        that runs to the end of the data ends there)."""
        at = v("fa")
        gfl = v("gfl")
        extra = [
            Node.if_(
                E.lt(v("fav"), u(2)),
                self.fail(_TRUNCATED, at),
                [
                    Node.let("fx", E.bitand(v("pk"), u(0xFFFF))),
                    Node.if_(
                        E.lt(E.sub(v("fav"), u(2)), v("fx")),
                        self.fail(_TRUNCATED, E.add(at, u(2))),
                        [
                            Node.assign("bitpos", E.shl(E.add(E.add(at, u(2)), v("fx")), u(3))),
                            Node.assign("gfl", E.bitand(gfl, u(~4))),
                        ],
                    ),
                ],
            )
        ]
        clear = Node.assign("gfl", _sel(E.ne(E.bitand(gfl, u(8)), u(0)), E.bitand(gfl, u(~8)), E.bitand(gfl, u(~16))))
        string = [
            Node.let("fk", _min(v("fav"), u(4))),
            *self.first_zero_byte("fz", v("pk"), v("fk")),
            Node.if_(
                E.lt(v("fz"), u(4)),
                [Node.assign("bitpos", E.shl(E.add(E.add(at, v("fz")), u(1)), u(3))), clear],
                [Node.assign("bitpos", E.shl(E.add(at, v("fk")), u(3))), Node.if_(E.eq(v("fk"), u(0)), [clear])],
            ),
        ]
        header_crc = [
            Node.if_(
                E.lt(v("fav"), u(2)),
                self.fail(_TRUNCATED, at),
                [Node.assign("bitpos", E.shl(E.add(at, u(2)), u(3))), Node.assign("gfl", u(0))],
            )
        ]
        chain = Node.if_(
            E.ne(E.bitand(gfl, u(4)), u(0)),
            extra,
            [
                Node.if_(
                    E.ne(E.bitand(gfl, u(24)), u(0)),
                    string,
                    [Node.if_(E.ne(E.bitand(gfl, u(2)), u(0)), header_crc, [Node.assign("mode", u(BLOCK))])],
                )
            ],
        )
        return [
            Node.let("fa", E.shr(v("bitpos"), u(3))),
            Node.let("fav", E.sub(v("n"), at)),
            *self.peek("pk", v("bitpos")),
            chain,
        ]

    def rare_step(self) -> list[Node]:
        """Every mode but the four hot ones, as a chain of tests."""
        steps: list[tuple[int, Callable[[], list[Node]]]] = [
            (BLOCK, self.block_step),
            (STORED, self.stored_step),
            (DYNHEAD, self.dynhead_step),
            (CLREAD, self.clread_step),
            (TRAILER, self.trailer_step),
            (GZEROS, self.gzeros_step),
            (GHEAD, self.ghead_step),
            (GFIELDS, self.gfields_step),
            (ZHEAD, self.zhead_step),
        ]
        chain: list[Node] = []
        for mode, make in reversed(steps):
            chain = [Node.if_(E.eq(v("mode"), u(mode)), make(), chain)]
        return chain

    def step(self) -> list[Node]:
        mode = v("mode")
        return [
            Node.let("c", u(0)),
            Node.let("v0", u(0)),
            Node.let("v1", u(0)),
            Node.if_(
                E.eq(mode, u(CODES)),
                self.codes_step(),
                [
                    Node.if_(
                        E.eq(mode, u(SCOPY)),
                        self.scopy_step(),
                        [
                            Node.if_(
                                E.eq(mode, u(BUILD)),
                                self.build_step(),
                                [Node.if_(E.eq(mode, u(LENS)), self.lens_step(), self.rare_step())],
                            )
                        ],
                    )
                ],
            ),
            Node.if_(E.ne(v("c"), u(0)), self.append()),
            # outputs are counted in u32: one that passes the limit (below 2^32 -
            # 65,536, so no step wraps the count) fails, never wraps
            Node.if_(E.gt(v("opos"), param(LIMIT)), self.fail(_OVERFLOW, u(0))),
        ]

    # -- the program ------------------------------------------------------------------

    def first_mode(self) -> Expr:
        fmt = v("fmt")
        return _sel(E.eq(fmt, u(FORMATS[ZLIB])), u(ZHEAD), _sel(E.eq(fmt, u(FORMATS[GZIP])), u(GHEAD), u(BLOCK)))

    def finish(self) -> list[Node]:
        """Write the stream's outputs (its state says done)."""
        t = v("t")
        over = E.gt(v("opos"), v("cap"))
        return [
            Node.store("length", t, _sel(over, v("opos"), _sel(E.ne(v("ecode"), u(0)), u(0), v("opos")))),
            Node.store("error_code", t, _sel(over, u(_TOO_SMALL), v("ecode"))),
            Node.store(
                "error_offset",
                t,
                _sel(E.or_(over, E.eq(v("ecode"), u(0))), u(NO_ERROR), v("err")),
            ),
            Node.store("state", v("sb"), u(DONE)),
            Node.let("was", E.atomic(AtomicOp.ADD, "left", param(WAVE_INDEX), u(0xFFFF_FFFF))),
        ]

    def program(self) -> Program:
        t = v("t")
        row = E.mul(t, u(STREAM_WORDS))
        load = [Node.let(name, E.load("state", E.add(v("sb"), u(k)))) for k, name in enumerate(STATE_VARS)]
        save = [Node.store("state", E.add(v("sb"), u(k)), v(name)) for k, name in enumerate(STATE_VARS)]
        body: list[Node] = [
            Node.let("base", E.load("streams", row)),
            Node.let("n", E.load("streams", E.add(row, u(1)))),
            Node.let("obase", E.load("streams", E.add(row, u(2)))),
            Node.let("cap", E.load("streams", E.add(row, u(3)))),
            Node.let("nbits", E.shl(v("n"), u(3))),
            Node.let("tb", E.add(u(F.FIXED_WORDS), E.mul(v("w"), u(F.REGION)))),
            Node.let("sb", E.mul(v("w"), u(STATE_WORDS))),
            Node.let("fmt", param(FORMAT)),
            *load,
            Node.if_(E.eq(v("mode"), u(DONE)), [Node.return_()]),
            Node.if_(E.eq(v("mode"), u(START)), [Node.assign("mode", self.first_mode())]),
            Node.loop(
                "it",
                u(0),
                param(STEPS),
                [Node.if_(E.eq(v("mode"), u(DONE)), [*self.finish(), Node.return_()]), *self.step()],
            ),
            Node.if_(
                E.eq(v("mode"), u(DONE)),
                self.finish(),
                save,
            ),
        ]
        entry: list[Node] = [
            Node.let("w", E.add(E.mul(E.workgroup_id(0), u(WORKGROUP)), E.local_id(0))),
            Node.let("t", E.add(param(FIRST), v("w"))),
            Node.if_(E.lt(v("w"), param(STREAMS)), body),
        ]
        buffers = [
            BufferDecl.read("data", 0, DataType.U32),
            BufferDecl.read("streams", 1, DataType.U32),
            BufferDecl.read("symtab", 2, DataType.U32),
            BufferDecl.read_write("state", 3, DataType.U32),
            BufferDecl.read_write("tables", 4, DataType.U32),
            BufferDecl.read_write("out", 5, DataType.U32),
            BufferDecl.read_write("length", 6, DataType.U32),
            BufferDecl.read_write("error_offset", 7, DataType.U32),
            BufferDecl.read_write("error_code", 8, DataType.U32),
            BufferDecl.read_write("left", 9, DataType.U32),
            BufferDecl.uniform("params", 10, DataType.U32),
            BufferDecl.read("crct", 11, DataType.U32),
        ]
        return Program(buffers=buffers, workgroup_size=(WORKGROUP, 1, 1), entry=entry, name="inflate")


@cache
def decode_program() -> Program:
    """The decode step of every format (the format, and whether only stored
    blocks are accepted, are parameter words: see `PARAMS`)."""
    return _Builder().program()


@cache
def reset_program() -> Program:
    """state[i] = 0 for the state rows of a wave (params[STREAMS] streams): the
    streams of the next wave start afresh."""
    i = E.add(E.mul(E.workgroup_id(0), u(WORKGROUP)), E.local_id(0))
    return Program(
        buffers=[BufferDecl.read_write("state", 0, DataType.U32), BufferDecl.uniform("params", 1, DataType.U32)],
        workgroup_size=(WORKGROUP, 1, 1),
        entry=[Node.if_(E.lt(i, E.mul(param(STREAMS), u(STATE_WORDS))), [Node.store("state", i, u(0))])],
        name="inflate_reset",
    )


@cache
def prepare_program() -> Program:
    """tables[i] = fixed[i] for the fixed code's tables (FIXED_WORDS words)."""
    i = E.add(E.mul(E.workgroup_id(0), u(WORKGROUP)), E.local_id(0))
    return Program(
        buffers=[BufferDecl.read("fixed", 0, DataType.U32), BufferDecl.read_write("tables", 1, DataType.U32)],
        workgroup_size=(WORKGROUP, 1, 1),
        entry=[Node.if_(E.lt(i, u(F.FIXED_WORDS)), [Node.store("tables", i, E.load("fixed", i))])],
        name="inflate_fixed_tables",
    )
