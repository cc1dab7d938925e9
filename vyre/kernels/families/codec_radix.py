"""The RFC 4648 codecs: decode.base64 / base64url / base32 / hex and
encode.base64_encode / base64url_encode / base32_encode / hex_encode_lower
(docs/byte-codecs.md).

One generic codec: `bits` bits a symbol, `group` symbols a group (4 for base64,
8 for base32, 2 for hex), `group_bytes` bytes a group (3, 5, 1). The bytes of a
group are the big-endian bit string of its symbols, sliced at compile time
(`_bytes_of_symbols`, `_symbols_of_bytes`).

GPU algorithm (map, one dispatch): an invocation owns whole output words.
- Encoders: invocation i reads `group_bytes * GROUPS` bytes (whole words: 12
  bytes for base64, 20 for base32, 4 for hex) and writes the symbols of its four
  groups (16, 32, 8 symbols: whole words). Bytes past the input (the padding of
  the last word is unspecified, C1) are masked to zero; symbol j of a group is
  data when the byte holding its first bit exists, else the pad `=`. The host
  trims the output to `group * ceil(n / group_bytes)` symbols.
- Decoders: invocation i reads four groups (16 base64 symbols, 32 base32
  symbols, 8 hex digits: whole words) and writes their 12, 20, 4 bytes (whole
  words). Symbols are classified arithmetically (one compare per run of the
  alphabet). Each invocation flags the first bad position of its groups and
  `codec_common.first_error` merges the flags (atomicMin, deterministic); a
  one-invocation `finish` step adds the length check, derives the C6 code and
  the output length (0 on error, so nothing half-decoded is returned).

Strictness (the stdlib oracles, byte-exact on every well-formed input):
- base64: RFC 4648 §4 with padding, the oracle `base64.b64decode(s,
  validate=True)`. The length is a multiple of 4; `=` only completes the last
  group (`xx==`, `xxx=`). Non-zero bits under the padding ("Zh==") are
  accepted, as CPython does (RFC 4648 §3.5 leaves rejection optional). One
  difference: CPython 3.11 and 3.12 accept extra `=` after a complete final
  group ("Zm9v=" -> b"foo"), CPython bug gh-118314, fixed in 3.13 ("Excess
  padding not allowed"); vyre rejects them like 3.13 and RFC 4648.
- base64url: RFC 4648 §5 alphabet (`-`, `_`; `+` and `/` are malformed), padded.
- base32: RFC 4648 §6, `base64.b32decode(s)` exactly: upper case, length a
  multiple of 8, 0, 1, 3, 4 or 6 `=`.
- hex: `binascii.unhexlify` / `bytes.fromhex` without whitespace: digits of
  either case, even length.

The error offset is the length of the longest prefix of the input that is a
prefix of some well-formed input: the first byte that no well-formed input has
there, or the input length when the input is a well-formed prefix that ends
early. For hex this is the position `bytes.fromhex` reports. Codes (C6): 2
(bad length) at the input length, 1 (invalid symbol) at a byte outside the
alphabet and the pad, 3 (bad padding) at a pad where a group cannot end, a
symbol after a pad, or any symbol or pad after a padded group (a byte outside
the alphabet and the pad is code 1 wherever it is).
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np

from vyre.ir import BufferDecl, DataType, Expr, Node, Program
from vyre.ir import Expr as E
from vyre.kernels import samplers as S
from vyre.kernels.families import codec_laws as L
from vyre.kernels.families.codec_common import (
    BYTE_BOUNDARIES,
    DECODER_OUTPUTS,
    ERROR_WORKGROUP,
    JOB_BUFFERS,
    byte_at,
    byte_of,
    field,
    first_error,
    groups_for,
    job_buffers,
    locate,
    min_u32,
    one_each,
    pairs,
    single,
    unit_starts,
    word_starts,
)
from vyre.kernels.families.codec_host import as_bytes, decoded, describe_byte, malformed
from vyre.kernels.families.common import WORKGROUP
from vyre.kernels.spec import NO_ERROR, BatchPlan, Buffer, KernelLaw, KernelPlan, KernelSpec, Port, Step, size_column

__all__ = ["CODECS", "GROUPS", "KERNELS", "Radix", "decode_program", "encode_program", "finish_program"]

GROUPS = 4
"""Groups one invocation decodes or encodes (whole output words either way)."""

PAD = ord("=")


@dataclass(frozen=True)
class Radix:
    """An RFC 4648 alphabet and its grouping."""

    name: str
    bits: int
    group: int
    group_bytes: int
    alphabet: bytes
    """Symbol of each value (what the encoder writes)."""
    also: tuple[tuple[int, int, int], ...] = ()
    """Extra (low, high, value of low) runs the decoder accepts (hex upper case)."""
    padded: bool = True
    pad_ends: frozenset[int] = frozenset()
    """Positions in a group where padding may start (RFC 4648: base64 2, 3;
    base32 2, 4, 5, 7)."""

    @property
    def runs(self) -> tuple[tuple[int, int, int], ...]:
        """(low, high, value of low): runs of consecutive symbols with
        consecutive values, the decoder's classification."""
        runs: list[tuple[int, int, int]] = []
        for value, symbol in enumerate(self.alphabet):
            if runs and runs[-1][1] + 1 == symbol and runs[-1][2] + (symbol - runs[-1][0]) == value:
                runs[-1] = (runs[-1][0], symbol, runs[-1][2])
            else:
                runs.append((symbol, symbol, value))
        return (*runs, *self.also)

    @property
    def symbols_per_invocation(self) -> int:
        return self.group * GROUPS

    @property
    def bytes_per_invocation(self) -> int:
        return self.group_bytes * GROUPS

    def removed(self, pads: int) -> int:
        """Bytes a final group with `pads` pad symbols does not encode."""
        return self.group_bytes - (self.bits * (self.group - pads)) // 8


BASE64 = Radix("base64", 6, 4, 3, b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/",
               pad_ends=frozenset({2, 3}))
BASE64URL = Radix("base64url", 6, 4, 3, b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_",
                  pad_ends=frozenset({2, 3}))
BASE32 = Radix("base32", 5, 8, 5, b"ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", pad_ends=frozenset({2, 4, 5, 7}))
HEX = Radix("hex", 4, 2, 1, b"0123456789abcdef", also=((ord("A"), ord("F"), 10),), padded=False)
CODECS = {codec.name: codec for codec in (BASE64, BASE64URL, BASE32, HEX)}


# ---------------------------------------------------------------------------
# Bit slicing (compile time)
# ---------------------------------------------------------------------------


def _slice(value: Expr, width: int, start: int, stop: int, placed: int) -> Expr:
    """Bits [start, stop) of a `width`-bit big-endian field `value`, moved so that
    their last bit lands `placed` bits above bit 0."""
    shift = width - stop
    part = value if shift == 0 else E.shr(value, E.u32(shift))
    if start > 0:
        part = E.bitand(part, E.u32((1 << (stop - start)) - 1))
    return part if placed == 0 else E.shl(part, E.u32(placed))


def _or_all(parts: list[Expr]) -> Expr:
    result = parts[0]
    for part in parts[1:]:
        result = E.bitor(result, part)
    return result


def _bytes_of_symbols(codec: Radix, values: list[Expr]) -> list[Expr]:
    """The group_bytes bytes (u32 < 256) a group of symbol values decodes to."""
    out: list[Expr] = []
    b = codec.bits
    for k in range(codec.group_bytes):
        parts: list[Expr] = []
        for j, value in enumerate(values):
            lo, hi = max(b * j, 8 * k), min(b * j + b, 8 * k + 8)
            if lo < hi:
                parts.append(_slice(value, b, lo - b * j, hi - b * j, 8 * k + 8 - hi))
        out.append(_or_all(parts))
    return out


def _symbols_of_bytes(codec: Radix, data: list[Expr]) -> list[Expr]:
    """The `group` symbol values (u32 < 2^bits) of a group of bytes."""
    out: list[Expr] = []
    b = codec.bits
    for j in range(codec.group):
        parts: list[Expr] = []
        for k, byte in enumerate(data):
            lo, hi = max(b * j, 8 * k), min(b * j + b, 8 * k + 8)
            if lo < hi:
                parts.append(_slice(byte, 8, lo - 8 * k, hi - 8 * k, b * j + b - hi))
        out.append(_or_all(parts))
    return out


def _word(parts: list[Expr]) -> Expr:
    """A little-endian word of four byte expressions."""
    return _or_all([p if j == 0 else E.shl(p, E.u32(8 * j)) for j, p in enumerate(parts)])


# ---------------------------------------------------------------------------
# Programs
# ---------------------------------------------------------------------------


PAD_FLAG = 1 << 16
BAD_FLAG = 1 << 24


def decode_table(codec: Radix) -> np.ndarray:
    """The decoder's byte classes, 256 words: the symbol's value, PAD_FLAG for
    the pad, BAD_FLAG for every other byte. Flags sit at bits 16 and 24 so that
    `entry << j` ORed over a group's symbols gives its pad mask at bits 16..23
    and its bad-byte mask at bits 24..31."""
    table = np.full(256, BAD_FLAG, dtype=np.uint32)
    for low, high, first in codec.runs:
        for symbol in range(low, high + 1):
            table[symbol] = first + symbol - low
    if codec.padded:
        table[PAD] = PAD_FLAG
    return table


def encode_table(codec: Radix) -> np.ndarray:
    return np.frombuffer(codec.alphabet, dtype=np.uint8).astype(np.uint32)


def _load_table(size: int) -> list[Node]:
    """Copy constant `table` (size <= WORKGROUP words) into workgroup `tbl`."""
    local = E.local_id(0)
    copy = Node.store("tbl", local, E.load("table", local))
    return [copy if size == WORKGROUP else Node.if_(E.lt(local, E.u32(size)), [copy]), Node.barrier()]


ROW = 4
"""Job row of the codec programs: [n, first input word, first output word,
output words] (`codec_common.JOB_BUFFERS`)."""


def _job_row(job: Expr) -> list[Node]:
    return [
        Node.let("n", field(job, 0, ROW)),
        Node.let("in0", field(job, 1, ROW)),
        Node.let("out0", field(job, 2, ROW)),
        Node.let("out_words", field(job, 3, ROW)),
    ]


def _store_words(inv: Expr, words: list[Expr]) -> list[Node]:
    """Store this invocation's output words, none past its evaluation's."""
    nodes: list[Node] = []
    for w, word in enumerate(words):
        at = E.add(E.mul(inv, E.u32(len(words))), E.u32(w))
        nodes.append(Node.if_(E.lt(at, E.var("out_words")), [Node.store("out", E.add(E.var("out0"), at), word)]))
    return nodes


def _load_words(inv: Expr, count: int) -> list[Node]:
    return [
        Node.let(f"w{k}", E.load("data", E.add(E.var("in0"), E.add(E.mul(inv, E.u32(count)), E.u32(k)))))
        for k in range(count)
    ]


@cache
def decode_program(codec: Radix) -> Program:
    """Invocation i of an evaluation decodes its symbols [i*S, i*S + S) (S = 4
    groups) into output words [i*W, i*W + W) and merges its first bad
    position. An evaluation owns whole workgroups (`starts` counts workgroups),
    so the workgroup merge of the error serves one evaluation.

    Per group: the symbols' table entries ORed at shifts 0..G-1 give the pad
    mask P and the bad-byte mask X; with `low` the first pad, a symbol is bad
    when it is in X, when it is the first pad at a place where no group ends
    (`low & starts`), or when it is no pad and follows the first pad; after a
    padded group anything is bad (its first position). Positions past the input
    (the last invocation) are dropped: a flag only depends on the bytes at or
    before its position, so no such byte can hide a real one."""
    n = E.var("n")
    g_size = codec.group
    full = (1 << g_size) - 1
    pad_starts = sum(1 << j for j in range(g_size) if j not in codec.pad_ends) if codec.padded else 0
    symbols, words_in = codec.symbols_per_invocation, codec.symbols_per_invocation // 4
    inv, q0 = E.var("inv"), E.var("q0")
    body: list[Node] = [
        *_load_table(256),
        *locate(E.workgroup_id(0)),
        *_job_row(E.var("job")),
        Node.let("inv", E.add(E.mul(E.sub(E.workgroup_id(0), E.load("job_starts", E.var("job"))), E.u32(WORKGROUP)), E.local_id(0))),
        Node.let("q0", E.mul(inv, E.u32(symbols))),
        *_load_words(inv, words_in),
    ]
    out: list[Expr] = []
    group_first: list[Expr] = []
    for g in range(GROUPS):
        values: list[Expr] = []
        mask: Expr | None = None
        for j in range(g_size):
            t = g * g_size + j
            body.append(Node.let(f"e{t}", E.load("tbl", byte_of(E.var(f"w{t // 4}"), t % 4))))
            entry = E.var(f"e{t}")
            shifted = entry if j == 0 else E.shl(entry, E.u32(j))
            mask = shifted if mask is None else E.bitor(mask, shifted)
            values.append(E.bitand(entry, E.u32((1 << codec.bits) - 1)))
        assert mask is not None
        q = E.add(q0, E.u32(g * g_size)) if g else q0
        body.append(Node.let(f"m{g}", mask))
        bad: Expr = E.shr(E.var(f"m{g}"), E.u32(24))
        tail: Expr = E.u32(NO_ERROR)
        if codec.padded:
            pads = E.bitand(E.shr(E.var(f"m{g}"), E.u32(16)), E.u32(full))
            body += [Node.let(f"pm{g}", pads), Node.let(f"low{g}", E.bitand(E.var(f"pm{g}"), E.negate(E.var(f"pm{g}"))))]
            low = E.var(f"low{g}")
            after = E.bitand(E.negate(E.shl(low, E.u32(1))), E.u32(full))
            after = E.bitand(after, E.bitnot(E.var(f"pm{g}")))
            bad = E.bitor(E.bitor(bad, E.bitand(low, E.u32(pad_starts))), after)
            tail = E.select(E.ne(E.var(f"pm{g}"), E.u32(0)), E.add(q, E.u32(g_size)), E.u32(NO_ERROR))
        body.append(Node.let(f"x{g}", bad))
        candidate = E.select(E.ne(E.var(f"x{g}"), E.u32(0)), E.add(q, E.ctz(E.var(f"x{g}"))), tail)
        body.append(Node.let(f"first{g}", E.select(E.lt(candidate, n), candidate, E.u32(NO_ERROR))))
        group_first.append(E.var(f"first{g}"))
        out += _bytes_of_symbols(codec, values)
    body += _store_words(inv, [_word(out[4 * w : 4 * w + 4]) for w in range(codec.bytes_per_invocation // 4)])
    first: Expr = E.u32(NO_ERROR)
    for candidate in reversed(group_first):
        first = E.select(E.ne(candidate, E.u32(NO_ERROR)), candidate, first)
    body += first_error(first, index=E.var("job"))
    return Program(
        buffers=[
            BufferDecl.read("data", 0, DataType.U32),
            BufferDecl.read("table", 1, DataType.U32),
            BufferDecl.read_write("out", 2, DataType.U32),
            BufferDecl.read_write("error_offset", 3, DataType.U32),
            *JOB_BUFFERS,
            BufferDecl.workgroup("tbl", 256, DataType.U32),
            ERROR_WORKGROUP,
        ],
        workgroup_size=(WORKGROUP, 1, 1),
        entry=body,
        name=f"decode_{codec.name}",
    )


@cache
def finish_program(codec: Radix) -> Program:
    """Invocation k finishes evaluation k: the length check, the C6 code and
    the output length."""
    k = E.invocation_id(0)
    n, e = E.var("n"), E.var("e")

    def byte(at: Expr) -> Expr:
        return byte_at("data", E.add(E.shl(E.var("in0"), E.u32(2)), at))

    body: list[Node] = [
        *_job_row(k),
        Node.let("e", E.load("error_offset", k)),
    ]
    if codec.group > 1:
        short = E.ne(E.bitand(n, E.u32(codec.group - 1)), E.u32(0))
        body.append(Node.if_(short, [Node.assign("e", min_u32(e, n))]))
    entry = E.load("table", byte(e))
    symbol_code = E.select(E.ne(E.bitand(entry, E.u32(BAD_FLAG)), E.u32(0)), E.u32(1), E.u32(3))
    code = E.select(E.eq(e, E.u32(NO_ERROR)), E.u32(0), E.select(E.eq(e, n), E.u32(2), symbol_code))
    whole = E.mul(E.shr(n, E.u32(codec.group.bit_length() - 1)), E.u32(codec.group_bytes))
    length: Expr = whole
    if codec.padded:
        count: list[Node] = []
        for j in range(1, codec.group):
            is_pad = E.eq(byte(E.sub(n, E.u32(j))), E.u32(PAD))
            count.append(Node.if_(is_pad, [Node.assign("pads", E.add(E.var("pads"), E.u32(1)))]))
        body += [Node.let("pads", E.u32(0)), Node.if_(E.ge(n, E.u32(codec.group)), count)]
        removed: Expr = E.u32(0)
        for pads in range(codec.group - 1, 0, -1):
            if codec.removed(pads):
                removed = E.select(E.eq(E.var("pads"), E.u32(pads)), E.u32(codec.removed(pads)), removed)
        length = E.sub(whole, removed)
    body += [
        Node.store("error_offset", k, e),
        Node.store("error_code", k, code),
        Node.store("length", k, E.select(E.eq(e, E.u32(NO_ERROR)), length, E.u32(0))),
    ]
    return Program(
        buffers=[
            BufferDecl.read("data", 0, DataType.U32),
            BufferDecl.read("table", 1, DataType.U32),
            BufferDecl.read_write("error_offset", 2, DataType.U32),
            BufferDecl.read_write("error_code", 3, DataType.U32),
            BufferDecl.read_write("length", 4, DataType.U32),
            *JOB_BUFFERS,
        ],
        workgroup_size=(WORKGROUP, 1, 1),
        entry=[Node.if_(E.lt(k, E.load("job_params", E.u32(0))), body)],
        name=f"decode_{codec.name}_finish",
    )


@cache
def encode_program(codec: Radix) -> Program:
    """Invocation i of an evaluation encodes its bytes [i*B, i*B + B) (B = 4
    groups) into symbol words [i*W, i*W + W); symbols come from the alphabet in
    workgroup memory. `starts` counts invocations."""
    n = E.var("n")
    in_bytes = codec.bytes_per_invocation
    inv, base = E.var("inv"), E.var("base")
    body: list[Node] = [
        *_load_table(len(codec.alphabet)),
        *locate(E.invocation_id(0)),
        *_job_row(E.var("job")),
        Node.let("inv", E.sub(E.invocation_id(0), E.load("job_starts", E.var("job")))),
        Node.let("base", E.mul(inv, E.u32(in_bytes))),
        *_load_words(inv, in_bytes // 4),
    ]
    for t in range(in_bytes):
        raw = byte_of(E.var(f"w{t // 4}"), t % 4)
        if codec.padded:
            # a symbol of the last, partial group reads the next byte: zero past the input
            raw = E.select(E.lt(E.add(base, E.u32(t)) if t else base, n), raw, E.u32(0))
        body.append(Node.let(f"b{t}", raw))
    symbols: list[Expr] = []
    for g in range(GROUPS):
        data = [E.var(f"b{g * codec.group_bytes + k}") for k in range(codec.group_bytes)]
        for j, value in enumerate(_symbols_of_bytes(codec, data)):
            symbol = E.load("tbl", value)
            if codec.padded and j:
                lead = g * codec.group_bytes + (codec.bits * j) // 8
                symbol = E.select(E.lt(E.add(base, E.u32(lead)), n), symbol, E.u32(PAD))
            symbols.append(symbol)
    body += _store_words(inv, [_word(symbols[4 * w : 4 * w + 4]) for w in range(codec.symbols_per_invocation // 4)])
    return Program(
        buffers=[
            BufferDecl.read("data", 0, DataType.U32),
            BufferDecl.read("table", 1, DataType.U32),
            BufferDecl.read_write("out", 2, DataType.U32),
            *JOB_BUFFERS,
            BufferDecl.workgroup("tbl", len(codec.alphabet), DataType.U32),
        ],
        workgroup_size=(WORKGROUP, 1, 1),
        entry=body,
        name=f"encode_{codec.name}",
    )


# ---------------------------------------------------------------------------
# Plans: one evaluation is a batch of one
# ---------------------------------------------------------------------------


def encoded_length(codec: Radix, n: int) -> int:
    return codec.group * -(-n // codec.group_bytes)


def decoded_capacity(codec: Radix, n: int) -> int:
    return (n // codec.group) * codec.group_bytes


def _decode_batch(codec: Radix, ns: Sequence[int] | np.ndarray) -> BatchPlan:
    """Numpy passes over the input lengths `ns` (nothing per evaluation in Python)."""
    lengths = np.asarray(ns, dtype=np.int64).reshape(-1)
    count = len(lengths)
    capacities = (lengths // codec.group) * codec.group_bytes  # decoded_capacity
    ins, outs = word_starts(lengths), word_starts(capacities)
    starts = unit_starts(-(-(-(-lengths // codec.symbols_per_invocation)) // WORKGROUP))  # groups_for
    rows = np.stack([lengths, ins[:-1], outs[:-1], np.diff(outs)], axis=1)
    buffers = (
        Buffer("out", DataType.BYTES, 4 * int(outs[-1])),
        Buffer("length", DataType.U32, count),
        Buffer("error_offset", DataType.U32, count, fill=NO_ERROR),
        Buffer("error_code", DataType.U32, count),
        Buffer("table", DataType.U32, 256, words=decode_table(codec)),
        *job_buffers(starts, rows),
    )
    steps: list[Step] = []
    if starts[-1]:
        steps.append(Step(decode_program(codec), (int(starts[-1]), 1, 1)))
    if lengths.any():
        steps.append(Step(finish_program(codec), (groups_for(count), 1, 1)))
    splits = {
        "out": pairs(outs[:-1], capacities),
        **{name: one_each(count) for name in ("length", "error_offset", "error_code")},
    }
    return BatchPlan(KernelPlan(buffers, tuple(steps)), splits)


def _encode_batch(codec: Radix, ns: Sequence[int] | np.ndarray) -> BatchPlan:
    """Numpy passes over the input lengths `ns` (nothing per evaluation in Python)."""
    lengths = np.asarray(ns, dtype=np.int64).reshape(-1)
    encoded = codec.group * -(-lengths // codec.group_bytes)  # encoded_length
    ins, outs = word_starts(lengths), word_starts(encoded)
    starts = unit_starts(-(-lengths // codec.bytes_per_invocation))
    rows = np.stack([lengths, ins[:-1], outs[:-1], np.diff(outs)], axis=1)
    buffers = (
        Buffer("out", DataType.BYTES, 4 * int(outs[-1])),
        Buffer("table", DataType.U32, len(codec.alphabet), words=encode_table(codec)),
        *job_buffers(starts, rows),
    )
    steps = (Step(encode_program(codec), (groups_for(int(starts[-1])), 1, 1)),) if starts[-1] else ()
    return BatchPlan(KernelPlan(buffers, steps), {"out": pairs(outs[:-1], encoded)})


def _planners(
    batch: Callable[[Radix, np.ndarray], BatchPlan], codec: Radix
) -> tuple[Callable[[Any, Any], KernelPlan], Callable[[Any, Any], BatchPlan]]:
    def plan(sizes: Any, scalars: Any) -> KernelPlan:
        return single(batch(codec, np.array([int(sizes["data"])], dtype=np.int64)))

    def plan_many(sizes: Sequence[Any], scalars: Sequence[Any]) -> BatchPlan:
        return batch(codec, size_column(sizes, "data"))

    return plan, plan_many


# ---------------------------------------------------------------------------
# References: the stdlib codecs, and the first bad byte by a regular expression
# of the well-formed prefixes (an algorithm unlike the kernels' local flags)
# ---------------------------------------------------------------------------


def _prefix_pattern(codec: Radix) -> re.Pattern[bytes]:
    """Matches, from the start, the longest prefix of any input that is a prefix
    of a well-formed input."""
    symbol = b"[" + b"".join(re.escape(bytes([s])) for s in sorted(set(codec.alphabet) | _also(codec))) + b"]"
    g = codec.group
    tails: list[bytes] = []
    for end in sorted(codec.pad_ends, reverse=True):
        tails.append(symbol + b"{%d}={1,%d}" % (end, g - end))
    tails.append(symbol + b"{0,%d}" % (g - 1))
    return re.compile(b"(?:" + symbol + b"{%d})*(?:" % g + b"|".join(tails) + b")")


def _also(codec: Radix) -> set[int]:
    return {c for low, high, _ in codec.also for c in range(low, high + 1)}


_PREFIXES = {name: _prefix_pattern(codec) for name, codec in CODECS.items()}


def first_bad(codec: Radix, text: bytes) -> tuple[int, int] | None:
    """(offset, C6 code) of malformed `text`, None when it is well formed."""
    match = _PREFIXES[codec.name].match(text)
    assert match is not None
    offset = match.end()
    if offset == len(text):
        if len(text) % codec.group == 0 and (not text or not codec.padded or _complete(codec, text)):
            return None
        return offset, 2
    symbol = text[offset]
    known = symbol in codec.alphabet or symbol in _also(codec) or (codec.padded and symbol == PAD)
    return offset, 3 if known else 1


def _complete(codec: Radix, text: bytes) -> bool:
    pads = len(text) - len(text.rstrip(b"="))
    return pads == 0 or codec.group - pads in codec.pad_ends


_STD_DECODE: dict[str, Callable[[bytes], bytes]] = {
    "base64": lambda s: base64.b64decode(s, validate=True),
    "base64url": lambda s: base64.b64decode(s.translate(bytes.maketrans(b"-_+/", b"+/!!")), validate=True),
    "base32": base64.b32decode,
    "hex": binascii.unhexlify,
}
_STD_ENCODE: dict[str, Callable[[bytes], bytes]] = {
    "base64": base64.b64encode,
    "base64url": base64.urlsafe_b64encode,
    "base32": base64.b32encode,
    "hex": lambda b: b.hex().encode(),
}


def _decode_reference(codec: Radix) -> Callable[..., tuple[np.ndarray, ...]]:
    def reference(data: Any) -> tuple[np.ndarray, ...]:
        text = as_bytes(data)
        bad = first_bad(codec, text)
        if bad is not None:
            return malformed(*bad)
        return decoded(_STD_DECODE[codec.name](text))

    return reference


def _encode_reference(codec: Radix) -> Callable[..., tuple[np.ndarray, ...]]:
    def reference(data: Any) -> tuple[np.ndarray, ...]:
        return (np.frombuffer(_STD_ENCODE[codec.name](as_bytes(data)), dtype=np.uint8).copy(),)

    return reference


# ---------------------------------------------------------------------------
# The specs
# ---------------------------------------------------------------------------

_DECODE_IDS = {"base64": "decode.base64", "base64url": "decode.base64url", "base32": "decode.base32", "hex": "decode.hex"}
_ENCODE_IDS = {
    "base64": "encode.base64_encode",
    "base64url": "encode.base64url_encode",
    "base32": "encode.base32_encode",
    "hex": "encode.hex_encode_lower",
}
_SUMMARIES = {
    "base64": "RFC 4648 §4 base64 with padding (base64.b64decode(s, validate=True))",
    "base64url": "RFC 4648 §5 base64url with padding (-, _; + and / are malformed)",
    "base32": "RFC 4648 §6 base32 with padding (base64.b32decode)",
    "hex": "hex digits of either case, even length (binascii.unhexlify; bytes.fromhex without spaces)",
}


def _boundaries(span: int) -> tuple[int, ...]:
    """The byte maps' lengths plus one invocation's span +- 1."""
    return tuple(sorted(set(BYTE_BOUNDARIES) | {span - 1, span, span + 1}))


def _decoder(codec: Radix) -> KernelSpec:
    encode = _STD_ENCODE[codec.name]
    laws: tuple[KernelLaw, ...] = (
        L.DecodesEncoding(encode),
        L.ErrorLeavesNothing(),
        L.LongestValidPrefix(),
        L.DecodeSplit(codec.group),
    )
    filler = codec.alphabet
    plan, plan_many = _planners(_decode_batch, codec)
    return KernelSpec(
        id=_DECODE_IDS[codec.name],
        version=1,
        inputs=(Port("data", DataType.BYTES),),
        outputs=DECODER_OUTPUTS,
        kind="map",
        reference=_decode_reference(codec),
        plan=plan,
        plan_many=plan_many,
        summary=_SUMMARIES[codec.name],
        laws=laws,
        boundaries=_boundaries(codec.symbols_per_invocation),
        sample=S.encoded(encode, filler),
        error_from="error_offset",
        code_from="error_code",
        describe_error=describe_byte,
    )


def _encoder(codec: Radix) -> KernelSpec:
    decode = _STD_DECODE[codec.name]
    pattern = b"[" + re.escape(codec.alphabet) + (b"=" if codec.padded else b"") + b"]*"
    plan, plan_many = _planners(_encode_batch, codec)
    return KernelSpec(
        id=_ENCODE_IDS[codec.name],
        version=1,
        inputs=(Port("data", DataType.BYTES),),
        outputs=(Port("out", DataType.BYTES),),
        kind="map",
        reference=_encode_reference(codec),
        plan=plan,
        plan_many=plan_many,
        summary=f"RFC 4648 {codec.name} encoding" + (" with padding" if codec.padded else ", lower case"),
        laws=(
            L.EncodingDecodes(decode),
            L.EncodedLength(lambda n, c=codec: encoded_length(c, n), pattern),
            L.EncodeSplit(codec.group_bytes),
        ),
        boundaries=_boundaries(codec.bytes_per_invocation),
        max_length=max_encodable(codec),
    )


def max_encodable(codec: Radix) -> int:
    """The longest input whose encoding, `group` symbols per `group_bytes`
    bytes, still has at most 2^32 - 1 bytes (C5: counts are u32): longer
    inputs are a ValueError naming `data`, never a wrapped length."""
    return codec.group_bytes * (0xFFFF_FFFF // codec.group)


KERNELS = tuple(
    spec for codec in (BASE64, BASE64URL, BASE32, HEX) for spec in (_decoder(codec), _encoder(codec))
)
