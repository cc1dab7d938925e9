"""hash.adler32: Adler-32 of one buffer (`zlib.adler32`; RFC 1950 §8.2).

A = 1 + Σ b_i, B = Σ_k A_k = n + Σ_i (n - i) b_i (0-based i), both mod
M = 65521, checksum B << 16 | A. The state of a chunk is (S, W) = (Σ b_i,
Σ (len - i) b_i) mod M, weights counted from the chunk's end, so chunks combine
as (S1, W1) ‖ (S2, W2) = (S1 + S2, W1 + len2 S1 + W2) mod M (zlib
`adler32_combine`; `combine` below), and the empty state (0, 0) is neutral. The
chunk tree (`hash_chunks`) does the rest: a right-hand length is fixed per tree
level, so level r's parameter is (C 2^r) mod M.

In a chunk the sums run unreduced: per byte s += b; w += s (four bytes at a
time: w += 4 s + 4 b0 + 3 b1 + 2 b2 + b3; s += b0 + b1 + b2 + b3), then both are
reduced mod M once at the chunk's end. That is exact while
w <= 255 C (C + 1) / 2 < 2^32, i.e. C <= 5,802; `MAX_CHUNK` = NMAX = 5,552 (zlib's
bound, for sums that start below M) with C = 1,024 in use. Every product in the
combine is of two residues below M, so below 2^32.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from vyre.ir import DataType, Expr, Node
from vyre.ir import Expr as E
from vyre.kernels import laws as K
from vyre.kernels.families.common import param
from vyre.kernels.families.hash_chunks import CHUNK, FINISH, LinearChecksum, chunk_plan, merged_plan
from vyre.kernels.families.hash_crc import STREAM_BLOCKS, STREAM_LIMIT, CheckValue
from vyre.kernels.families.hash_stream import (
    BatchEqualsSingle,
    Message,
    StreamHash,
    batch_plan,
    block_words,
    tail_nodes,
)
from vyre.kernels.spec import BatchPlan, KernelLaw, KernelPlan, KernelSpec, Port, size_column

__all__ = ["ADLER", "KERNELS", "MAX_CHUNK", "MOD", "STREAM", "AdlerConcat", "adler_plan", "combine"]

MOD = 65521
"""The largest prime below 2^16."""
MAX_CHUNK = 5552
"""zlib's NMAX: bytes whose sums fit a u32 before a reduction."""


def combine(adler_a: int, adler_b: int, len_b: int) -> int:
    """adler32(a ‖ b) from the two checksums and len(b) (zlib `adler32_combine`)."""
    a1, b1 = adler_a & 0xFFFF, adler_a >> 16
    a2, b2 = adler_b & 0xFFFF, adler_b >> 16
    # A = 1 + S1 + S2; B = n1 + n2 + W1 + len_b S1 + W2 = B1 + B2 + len_b (A1 - 1)
    a = (a1 + a2 - 1) % MOD
    b = (b1 + b2 + len_b % MOD * (a1 - 1)) % MOD
    return b << 16 | a


def _mod(x: Expr) -> Expr:
    return E.mod(x, E.u32(MOD))


def _byte_step(st: Sequence[str], byte: Expr) -> list[Node]:
    return [Node.assign(st[0], E.add(E.var(st[0]), byte)), Node.assign(st[1], E.add(E.var(st[1]), E.var(st[0])))]


def _word_step(st: Sequence[str], word: Expr) -> list[Node]:
    b = [E.bitand(E.shr(E.var("_x"), E.u32(8 * j)), E.u32(0xFF)) if j else E.bitand(E.var("_x"), E.u32(0xFF)) for j in range(4)]
    s, w = E.var(st[0]), E.var(st[1])
    weighted = E.add(
        E.add(E.mul(E.add(s, b[0]), E.u32(4)), E.mul(b[1], E.u32(3))),
        E.add(E.mul(b[2], E.u32(2)), b[3]),
    )
    return [
        Node.let("_x", word),
        Node.assign(st[1], E.add(w, weighted)),
        Node.assign(st[0], E.add(s, E.add(E.add(b[0], b[1]), E.add(b[2], b[3])))),
    ]


def _chunk_end(st: Sequence[str]) -> list[Node]:
    return [Node.assign(name, _mod(E.var(name))) for name in st]


def _combine(r: Expr, left: Sequence[Expr], right: Sequence[Expr], names: Sequence[str]) -> list[Node]:
    length = E.load("levels", r)
    return [
        Node.let(names[0], _mod(E.add(left[0], right[0]))),
        Node.let(names[1], _mod(E.add(E.add(left[1], _mod(E.mul(length, left[0]))), right[1]))),
    ]


def _finish(root: Sequence[Expr]) -> Expr:
    a = _mod(E.add(E.u32(1), root[0]))
    b = _mod(E.add(param(FINISH), root[1]))
    return E.bitor(E.shl(b, E.u32(16)), a)


ADLER = LinearChecksum(
    name="adler32",
    words=2,
    level_words=1,
    byte_step=_byte_step,
    word_step=_word_step,
    chunk_end=_chunk_end,
    combine=_combine,
    finish=_finish,
    level_params=lambda nbytes: np.array([nbytes % MOD], dtype=np.uint32),
    finish_params=lambda n: [n % MOD],
    empty=1,
    max_chunk=MAX_CHUNK,
)


def _stream_block(st: Sequence[str], msg: Message, blk: Expr) -> list[Node]:
    """16 bytes: B += 16 A + Σ (16 - i) b_i; A += Σ b_i; both mod M (every term
    is below 2^32: 16 A < 2^20, Σ (16 - i) b_i <= 34,680)."""
    a, b = E.var(st[0]), E.var(st[1])
    total: Expr = E.u32(0)
    weighted: Expr = E.u32(0)
    nodes: list[Node] = []
    for j, word in enumerate(block_words(msg, blk)):
        nodes.append(Node.let(f"_w{j}", word))
        for q in range(4):
            byte = E.bitand(E.shr(E.var(f"_w{j}"), E.u32(8 * q)), E.u32(0xFF)) if q else E.bitand(E.var(f"_w{j}"), E.u32(0xFF))
            i = 4 * j + q
            total = E.add(total, byte)
            weighted = E.add(weighted, E.mul(byte, E.u32(16 - i)) if i < 15 else byte)
    nodes += [
        Node.assign(st[1], _mod(E.add(E.add(b, E.shl(a, E.u32(4))), weighted))),
        Node.assign(st[0], _mod(E.add(a, total))),
    ]
    return nodes


def _stream_finish(st: Sequence[str], msg: Message) -> tuple[list[Node], list[Expr]]:
    a, b = E.var(st[0]), E.var(st[1])

    def word(w: Expr) -> list[Node]:
        bytes_ = [E.bitand(E.shr(E.var("_tw"), E.u32(8 * q)), E.u32(0xFF)) for q in range(4)]
        weighted = E.add(E.add(E.mul(bytes_[0], E.u32(4)), E.mul(bytes_[1], E.u32(3))), E.add(E.mul(bytes_[2], E.u32(2)), bytes_[3]))
        total = E.add(E.add(bytes_[0], bytes_[1]), E.add(bytes_[2], bytes_[3]))
        return [
            Node.let("_tw", w),
            Node.assign(st[1], _mod(E.add(E.add(b, E.shl(a, E.u32(2))), weighted))),
            Node.assign(st[0], _mod(E.add(a, total))),
        ]

    def tail_bytes(tail: Expr, count: Expr) -> list[Node]:
        nodes: list[Node] = [Node.let("_tb", tail)]
        for q in range(3):
            byte = E.bitand(E.shr(E.var("_tb"), E.u32(8 * q)), E.u32(0xFF))
            step = [Node.assign(st[0], _mod(E.add(a, byte))), Node.assign(st[1], _mod(E.add(b, a)))]
            nodes.append(Node.if_(E.lt(E.u32(q), count), step))
        return nodes

    return tail_nodes(msg, lambda w: [Node.block(word(w))], tail_bytes), [E.bitor(E.shl(b, E.u32(16)), a)]


STREAM = StreamHash(
    name="adler32_stream",
    state_words=2,
    out_words=1,
    init=lambda n: [E.u32(1), E.u32(0)],
    blocks=lambda n: E.shr(n, E.u32(4)),
    host_blocks=lambda n: n >> 4,
    block=_stream_block,
    finish=_stream_finish,
    per_dispatch=STREAM_BLOCKS,
)
"""Adler-32 walked by one invocation per message (the batched plan of many
short inputs): (A, B) reduced mod M after every 16-byte block."""


def adler_plan(chunk: int = CHUNK) -> Callable[[Any, Any], KernelPlan]:
    """The planner with `chunk` bytes per invocation (a multiple of 4, at most MAX_CHUNK)."""

    def plan(sizes: Any, scalars: Any) -> KernelPlan:
        return chunk_plan(ADLER, int(sizes["data"]), chunk)

    return plan


def _plan_many(sizes: Sequence[Any], scalars: Sequence[Any]) -> BatchPlan:
    """One invocation per input when every input is at most STREAM_LIMIT bytes,
    else every input's own chunk tree in one plan."""
    lengths = size_column(sizes, "data")
    if lengths.size == 0 or int(lengths.max()) <= STREAM_LIMIT:
        return batch_plan(STREAM, lengths, DataType.U32)
    return merged_plan(ADLER, lengths.tolist())


def _reference(data: np.ndarray) -> tuple[np.ndarray]:
    b = np.asarray(data, dtype=np.uint8).astype(np.int64)
    n = len(b)
    s = int(b.sum()) % MOD
    w = int(((n - np.arange(n, dtype=np.int64)) % MOD * b % MOD).sum()) % MOD if n else 0
    a, bb = (1 + s) % MOD, (n + w) % MOD
    return (np.array([bb << 16 | a], dtype=np.uint32),)


class AdlerConcat(KernelLaw):
    """adler(a ‖ b) = combine(adler(a), adler(b), len b) (zlib's running form
    adler32(b, adler32(a))), split a third of the way."""

    name = "AdlerConcat"

    def check(self, op: Callable[..., tuple[np.ndarray, ...]], args: tuple[Any, ...]) -> str | None:
        x = np.asarray(args[0], dtype=np.uint8)
        n = len(x)
        whole = int(op(x)[0][0])
        k = n // 3
        joined = combine(int(op(x[:k])[0][0]), int(op(x[k:])[0][0]), n - k)
        if joined != whole:
            return f"adler(a‖b) = {whole:#010x} but combine(adler(a), adler(b), {n - k}) = {joined:#010x} (split at {k})"
        return None


ADLER_VECTORS = (
    (b"Wikipedia", 0x11E6_0398),
    (b"", 1),
    (b"abc", 0x024D_0127),
)
"""Published values (RFC 1950's definition; "Wikipedia" is the example of
Wikipedia's article)."""


KERNELS = (
    KernelSpec(
        id="hash.adler32",
        version=1,
        inputs=(Port("data", DataType.BYTES),),
        outputs=(Port("out", DataType.U32, scalar=True),),
        kind="reduce",
        reference=_reference,
        plan=adler_plan(),
        plan_many=_plan_many,
        summary="Adler-32 of the bytes (zlib.adler32)",
        laws=(AdlerConcat(), CheckValue(ADLER_VECTORS), BatchEqualsSingle(), K.EmptyIs(1)),
    ),
)
