"""hash.crc32 and hash.crc32c: reflected 32-bit CRCs of one buffer, and the GF(2)
combine, which lives here.

CRC-32/ISO-HDLC (`zlib.crc32`): reflected polynomial 0xEDB88320; CRC-32C
(Castagnoli, RFC 3720 §B.4): 0x82F63B78. Both start the register at 0xFFFFFFFF
and xor the result with 0xFFFFFFFF.

**The combine.** The raw register R (start 0, no xorout) is linear over GF(2):
R(a ‖ b) = shift(R(a), len b) ⊕ R(b), where shift(c, L) = c · x^(8L) mod P, and
crc(D) = R(D) ⊕ shift(0xFFFFFFFF, n) ⊕ 0xFFFFFFFF (zlib's `crc32_combine`).
Host side: `multmodp` and `x8nmodp` (x^(8L) mod P by squaring: the table of
x^(2^k) and one multiply per set bit of L), `shift`, `combine`. Device side:
shift by a *fixed* L is a 32 x 32 GF(2) matrix whose column i is shift(bit i,
L); `shift_expr` multiplies a register by the columns the host put in the
parameter block (32 masked xors, no loop, no table). The chunk tree
(`hash_chunks`) needs exactly that: one fixed L per tree level.

**The chunks.** Each invocation CRCs its C-byte chunk with slicing-by-4 tables
(4 x 256 words, copied from a constant buffer into workgroup memory once per
workgroup): per word, c ^= w; c = T3[c & 255] ^ T2[c >> 8 & 255] ^ T1[c >> 16 & 255]
^ T0[c >> 24]; single bytes (a chunk's unaligned ends) go through T0.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import Any

import numpy as np

from vyre.ir import DataType, Expr, Node
from vyre.ir import Expr as E
from vyre.kernels import laws as K
from vyre.kernels.families.common import param
from vyre.kernels.families.hash_chunks import CHUNK, FINISH, LinearChecksum, chunk_plan, merged_plan
from vyre.kernels.families.hash_stream import (
    BatchEqualsSingle,
    Message,
    StreamHash,
    batch_plan,
    block_words,
    tail_nodes,
)
from vyre.kernels.spec import BatchPlan, KernelLaw, KernelPlan, KernelSpec, Port, size_column

__all__ = [
    "CRC32",
    "CRC32C",
    "KERNELS",
    "CrcConcat",
    "combine",
    "crc_plan",
    "crc_plan_many",
    "crc_raw",
    "stream_crc",
    "multmodp",
    "shift",
    "shift_expr",
    "shift_tables",
    "tables",
    "x8nmodp",
]

CRC32 = 0xEDB8_8320
"""CRC-32/ISO-HDLC, reflected."""
CRC32C = 0x82F6_3B78
"""CRC-32C (Castagnoli), reflected."""
M32 = 0xFFFF_FFFF
STREAM_LIMIT = 1 << 16
"""The longest input of a batch that `plan_many` walks in one invocation."""
STREAM_BLOCKS = 1024
"""16-byte blocks per invocation and dispatch of the one-invocation walk (16 KiB)."""


# ---------------------------------------------------------------------------
# GF(2) arithmetic modulo P (reflected: bit 31 is x^0), host side
# ---------------------------------------------------------------------------


def multmodp(a: int, b: int, poly: int) -> int:
    """a * b mod P (zlib crc32.c `multmodp`)."""
    m, p = 1 << 31, 0
    while m:
        if a & m:
            p ^= b
        m >>= 1
        b = (b >> 1) ^ poly if b & 1 else b >> 1
    return p


_X2N: dict[int, list[int]] = {}


def _x2n(poly: int) -> list[int]:
    """x^(2^k) mod P for k = 0..63."""
    table = _X2N.get(poly)
    if table is None:
        table = [1 << 30]  # x^1
        for _ in range(63):
            table.append(multmodp(table[-1], table[-1], poly))
        _X2N[poly] = table
    return table


def x8nmodp(nbytes: int, poly: int) -> int:
    """x^(8 nbytes) mod P, by squaring (one multiply per set bit of nbytes)."""
    table = _x2n(poly)
    p, k = 1 << 31, 3  # x^0; bit j of nbytes is x^(2^(j+3))
    while nbytes:
        if nbytes & 1:
            p = multmodp(table[k & 63], p, poly)
        nbytes >>= 1
        k += 1
    return p


def shift(c: int, nbytes: int, poly: int) -> int:
    """The raw register c after nbytes zero bytes: c * x^(8 nbytes) mod P."""
    return multmodp(x8nmodp(nbytes, poly), c, poly)


def combine(crc_a: int, crc_b: int, len_b: int, poly: int) -> int:
    """crc(a ‖ b) from crc(a), crc(b) and len(b) (zlib `crc32_combine`; the
    init and xorout terms cancel to a shift of crc(a))."""
    return shift(crc_a, len_b, poly) ^ crc_b


def shift_columns(nbytes: int, poly: int) -> list[int]:
    """Column i of the GF(2) matrix of shift(., nbytes): shift(1 << i, nbytes)."""
    power = x8nmodp(nbytes, poly)
    return [multmodp(power, 1 << i, poly) for i in range(32)]


def tables(poly: int) -> list[int]:
    """The slicing-by-4 tables T0..T3 (256 words each), T0 first."""
    t0: list[int] = []
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ poly if c & 1 else c >> 1
        t0.append(c)
    out = list(t0)
    prev = t0
    for _ in range(3):
        prev = [(v >> 8) ^ t0[v & 0xFF] for v in prev]
        out += prev
    return out


def crc_raw(data: bytes, poly: int, c: int = 0) -> int:
    """The register after `data` from `c` (byte-wise table walk; the reference)."""
    t0 = _t0(poly)
    for b in data:
        c = t0[(c ^ b) & 0xFF] ^ (c >> 8)
    return c


_T0: dict[int, list[int]] = {}


def _t0(poly: int) -> list[int]:
    t0 = _T0.get(poly)
    if t0 is None:
        t0 = _T0[poly] = tables(poly)[:256]
    return t0


# ---------------------------------------------------------------------------
# Device side
# ---------------------------------------------------------------------------


def shift_tables(nbytes: int, poly: int) -> np.ndarray:
    """shift(., nbytes) as four 256-word byte tables (1,024 words, byte j of the
    register indexes table j): shift(c) = T0[c & 255] ^ T1[c >> 8 & 255] ^
    T2[c >> 16 & 255] ^ T3[c >> 24], by linearity (table j entry b is the xor
    of the matrix columns 8j + i over the set bits i of b)."""
    return _shift_tables(nbytes, poly).copy()


@lru_cache(maxsize=512)
def _shift_tables(nbytes: int, poly: int) -> np.ndarray:
    columns = shift_columns(nbytes, poly)
    out = np.zeros(1024, dtype=np.uint32)
    for j in range(4):
        table = out[256 * j : 256 * (j + 1)]
        for i in range(8):
            table[1 << i : 2 << i] = table[: 1 << i] ^ np.uint32(columns[8 * j + i])
    return out


def shift_expr(c: Expr, level: Expr) -> Expr:
    """c shifted by the tables of tree level `level` in the constant buffer `levels`."""
    base = E.mul(level, E.u32(1024))
    total: Expr | None = None
    for j in range(4):
        byte = E.bitand(c, E.u32(0xFF)) if j == 0 else E.shr(c, E.u32(24))
        if 0 < j < 3:
            byte = E.bitand(E.shr(c, E.u32(8 * j)), E.u32(0xFF))
        looked = E.load("levels", E.add(E.add(base, E.u32(256 * j)), byte))
        total = looked if total is None else E.bitxor(total, looked)
    assert total is not None
    return total


def _tab(k: int, index: Expr, table: str) -> Expr:
    return E.load(table, E.add(index, E.u32(256 * k)) if k else index)


def _byte_step(st: Sequence[str], byte: Expr, table: str = "tab") -> list[Node]:
    c = E.var(st[0])
    return [Node.assign(st[0], E.bitxor(_tab(0, E.bitand(E.bitxor(c, byte), E.u32(0xFF)), table), E.shr(c, E.u32(8))))]


def _word_step(st: Sequence[str], word: Expr, table: str = "tab") -> list[Node]:
    x = E.var("_x")
    looked = E.bitxor(
        E.bitxor(_tab(3, E.bitand(x, E.u32(0xFF)), table), _tab(2, E.bitand(E.shr(x, E.u32(8)), E.u32(0xFF)), table)),
        E.bitxor(_tab(1, E.bitand(E.shr(x, E.u32(16)), E.u32(0xFF)), table), _tab(0, E.shr(x, E.u32(24)), table)),
    )
    return [Node.let("_x", E.bitxor(E.var(st[0]), word)), Node.assign(st[0], looked)]


def _combine(r: Expr, left: Sequence[Expr], right: Sequence[Expr], names: Sequence[str]) -> list[Node]:
    return [Node.let("_c", left[0]), Node.let(names[0], E.bitxor(shift_expr(E.var("_c"), r), right[0]))]


def _finish(root: Sequence[Expr]) -> Expr:
    return E.bitxor(root[0], param(FINISH))


def checksum(name: str, poly: int) -> LinearChecksum:
    return LinearChecksum(
        name=name,
        words=1,
        level_words=1024,
        byte_step=_byte_step,
        word_step=_word_step,
        chunk_end=lambda st: [],
        combine=_combine,
        finish=_finish,
        level_params=lambda nbytes: shift_tables(nbytes, poly),
        finish_params=lambda n: [shift(M32, n, poly) ^ M32],
        empty=0,
        table=tuple(tables(poly)),
    )


_CHECKSUMS = {CRC32: checksum("crc32", CRC32), CRC32C: checksum("crc32c", CRC32C)}


def stream_crc(name: str, poly: int) -> StreamHash:
    """The CRC walked by one invocation per message (the batched plan of many
    short inputs): slicing-by-4 over 16-byte blocks, the tables in the constant
    buffer `k`; the tail's words and bytes, then the xorout."""

    def block(st: Sequence[str], msg: Message, blk: Expr) -> list[Node]:
        return [Node.block(_word_step(st, word, "k")) for word in block_words(msg, blk)]

    def finish(st: Sequence[str], msg: Message) -> tuple[list[Node], list[Expr]]:
        def tail_bytes(word: Expr, count: Expr) -> list[Node]:
            nodes = [Node.let("_tb", word)]
            for k in range(3):
                byte = E.bitand(E.shr(E.var("_tb"), E.u32(8 * k)), E.u32(0xFF))
                nodes.append(Node.if_(E.lt(E.u32(k), count), _byte_step(st, byte, "k")))
            return nodes

        nodes = tail_nodes(msg, lambda word: [Node.block(_word_step(st, word, "k"))], tail_bytes)
        return nodes, [E.bitxor(E.var(st[0]), E.u32(M32))]

    return StreamHash(
        name=f"{name}_stream",
        state_words=1,
        out_words=1,
        init=lambda n: [E.u32(M32)],
        blocks=lambda n: E.shr(n, E.u32(4)),
        host_blocks=lambda n: n >> 4,
        block=block,
        finish=finish,
        per_dispatch=STREAM_BLOCKS,
        constants=tuple(tables(poly)),
    )


_STREAMS = {CRC32: stream_crc("crc32", CRC32), CRC32C: stream_crc("crc32c", CRC32C)}


def crc_plan(poly: int, chunk: int = CHUNK) -> Callable[[Any, Any], KernelPlan]:
    """The planner of the CRC with `poly` and `chunk` bytes per invocation."""
    c = _CHECKSUMS[poly]

    def plan(sizes: Any, scalars: Any) -> KernelPlan:
        return chunk_plan(c, int(sizes["data"]), chunk)

    return plan


def crc_plan_many(poly: int) -> Callable[[Sequence[Any], Sequence[Any]], BatchPlan]:
    """The batched planner: one invocation per input when every input is at
    most STREAM_LIMIT bytes (one or two dispatches for any number of inputs),
    else every input's own chunk tree in one plan."""
    c, stream = _CHECKSUMS[poly], _STREAMS[poly]

    def plan_many(sizes: Sequence[Any], scalars: Sequence[Any]) -> BatchPlan:
        lengths = size_column(sizes, "data")
        if lengths.size == 0 or int(lengths.max()) <= STREAM_LIMIT:
            return batch_plan(stream, lengths, DataType.U32)
        return merged_plan(c, lengths.tolist())

    return plan_many


# ---------------------------------------------------------------------------
# References, laws and the specs
# ---------------------------------------------------------------------------


def _reference(poly: int) -> Callable[[np.ndarray], tuple[np.ndarray]]:
    def reference(data: np.ndarray) -> tuple[np.ndarray]:
        raw = crc_raw(np.asarray(data, dtype=np.uint8).tobytes(), poly, M32)
        return (np.array([raw ^ M32], dtype=np.uint32),)

    return reference


class CrcConcat(KernelLaw):
    """crc(a ‖ b) = combine(crc(a), crc(b), len b) (the combine law, zlib's
    running form crc32(b, crc32(a))), split a third of the way (every length
    mod 4 occurs among the cases, so the parts start on every byte offset)."""

    name = "CrcConcat"

    def __init__(self, poly: int):
        self.poly = poly

    def check(self, op: Callable[..., tuple[np.ndarray, ...]], args: tuple[Any, ...]) -> str | None:
        x = np.asarray(args[0], dtype=np.uint8)
        n = len(x)
        whole = int(op(x)[0][0])
        k = n // 3
        left, right = int(op(x[:k])[0][0]), int(op(x[k:])[0][0])
        joined = combine(left, right, n - k, self.poly)
        if joined != whole:
            return f"crc(a‖b) = {whole:#010x} but combine(crc(a), crc(b), {n - k}) = {joined:#010x} (split at {k})"
        return None


class CheckValue(KernelLaw):
    """The catalogue's check values (on every case, the vector at index
    len(case) mod the number of vectors, so every vector is witnessed)."""

    name = "CheckValue"

    def __init__(self, vectors: Sequence[tuple[bytes, int]]):
        self.vectors = tuple(vectors)

    def check(self, op: Callable[..., tuple[np.ndarray, ...]], args: tuple[Any, ...]) -> str | None:
        data, expected = self.vectors[len(args[0]) % len(self.vectors)]
        got = int(op(np.frombuffer(data, dtype=np.uint8))[0][0])
        if got != expected:
            return f"op({data[:16]!r}{'...' if len(data) > 16 else ''}) = {got:#010x}, published {expected:#010x}"
        return None


CRC32_VECTORS = (
    (b"123456789", 0xCBF4_3926),
    (b"", 0),
    (b"abc", 0x3524_41C2),
    (b"\0", 0xD202_EF8D),
    (b"The quick brown fox jumps over the lazy dog", 0x414F_A339),
)
"""Greg Cook's CRC catalogue (check value) and other published values."""

CRC32C_VECTORS = (
    (b"123456789", 0xE306_9283),
    (bytes(32), 0x8A91_36AA),
    (b"\xff" * 32, 0x62A8_AB43),
    (bytes(range(32)), 0x46DD_794E),
    (b"", 0),
)
"""RFC 3720 §B.4 and the catalogue's check value."""


def _spec(op_id: str, poly: int, summary: str, vectors: Sequence[tuple[bytes, int]]) -> KernelSpec:
    return KernelSpec(
        id=op_id,
        version=1,
        inputs=(Port("data", DataType.BYTES),),
        outputs=(Port("out", DataType.U32, scalar=True),),
        kind="reduce",
        reference=_reference(poly),
        plan=crc_plan(poly),
        plan_many=crc_plan_many(poly),
        summary=summary,
        laws=(CrcConcat(poly), CheckValue(vectors), BatchEqualsSingle(), K.EmptyIs(0)),
    )


KERNELS = (
    _spec("hash.crc32", CRC32, "CRC-32/ISO-HDLC of the bytes (zlib.crc32)", CRC32_VECTORS),
    _spec("hash.crc32c", CRC32C, "CRC-32C (Castagnoli, RFC 3720) of the bytes", CRC32C_VECTORS),
)
