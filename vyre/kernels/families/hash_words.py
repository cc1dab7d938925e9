"""hash.fnv1a32, hash.murmur3_32 and hash.xxhash32: 32-bit non-cryptographic
hashes of a byte string, one message per invocation (`hash_stream`), each
walking the message in 16-byte blocks (four words), then up to three whole words
and three bytes of tail.

- FNV-1a 32 (draft-eastlake-fnv): h = 0x811C9DC5; per byte h = (h ^ b) * 0x01000193.
- MurmurHash3_x86_32 (SMHasher `MurmurHash3.cpp`), seed 0: per 4-byte block
  k = rotl(k * c1, 15) * c2; h = rotl(h ^ k, 13) * 5 + 0xE6546B64; the 1-3 tail
  bytes as a little-endian k mixed into h without the rotate-multiply-add; then
  h ^= n and fmix32.
- XXH32 (Cyan4973/xxHash `xxhash.h`), seed 0: four lanes v1..v4 over 16-byte
  stripes when n >= 16, merged by rotations (else h = seed + P5); h += n; each
  remaining word h = rotl(h + w P3, 17) P4; each remaining byte
  h = rotl(h + b P5, 11) P1; then the avalanche.

The signatures are (Bytes) -> U32 with seed 0: the public signature has no seed
input.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from vyre.ir import DataType, Expr, Node
from vyre.ir import Expr as E
from vyre.kernels import laws as K
from vyre.kernels.families.hash_stream import (
    MAX_MESSAGE,
    BatchEqualsSingle,
    Message,
    StreamHash,
    batch_plan,
    batch_spec,
    block_words,
    rotl,
    single_plan,
    tail_nodes,
)
from vyre.kernels.spec import BatchPlan, KernelLaw, KernelPlan, KernelSpec, Port, size_column

__all__ = [
    "FNV",
    "FNV_VECTORS",
    "KERNELS",
    "MURMUR",
    "MURMUR_VECTORS",
    "XXH32",
    "XXH32_VECTORS",
    "fnv1a32",
    "murmur3_32",
    "word_hash_spec",
    "xxh32",
]

M32 = 0xFFFF_FFFF
PER_DISPATCH = 1024
"""16-byte blocks per invocation and dispatch (16 KiB of a message)."""


# ---------------------------------------------------------------------------
# FNV-1a 32
# ---------------------------------------------------------------------------

FNV_BASIS = 0x811C_9DC5
FNV_PRIME = 0x0100_0193


def _fnv_byte(h: Expr, byte: Expr) -> Expr:
    return E.mul(E.bitxor(h, byte), E.u32(FNV_PRIME))


def _fnv_word(name: str, word: Expr) -> list[Node]:
    nodes = [Node.let(f"_w{name}", word)]
    for k in range(4):
        byte = E.bitand(E.shr(E.var(f"_w{name}"), E.u32(8 * k)), E.u32(0xFF)) if k else E.bitand(E.var(f"_w{name}"), E.u32(0xFF))
        nodes.append(Node.assign("h0", _fnv_byte(E.var("h0"), byte)))
    return nodes


def _fnv_block(st: Sequence[str], msg: Message, blk: Expr) -> list[Node]:
    out: list[Node] = []
    for j, word in enumerate(block_words(msg, blk)):
        out += _fnv_word(f"b{j}", word)
    return out


def _fnv_finish(st: Sequence[str], msg: Message) -> tuple[list[Node], list[Expr]]:
    counter = iter(range(3))

    def word(w: Expr) -> list[Node]:
        return _fnv_word(f"t{next(counter)}", w)

    def tail_bytes(word: Expr, count: Expr) -> list[Node]:
        nodes = [Node.let("_tb", word)]
        for k in range(3):
            byte = E.bitand(E.shr(E.var("_tb"), E.u32(8 * k)), E.u32(0xFF))
            nodes.append(Node.if_(E.lt(E.u32(k), count), [Node.assign("h0", _fnv_byte(E.var("h0"), byte))]))
        return nodes

    return tail_nodes(msg, word, tail_bytes), [E.var("h0")]


FNV = StreamHash(
    name="fnv1a32",
    state_words=1,
    out_words=1,
    init=lambda n: [E.u32(FNV_BASIS)],
    blocks=lambda n: E.shr(n, E.u32(4)),
    host_blocks=lambda n: n >> 4,
    block=_fnv_block,
    finish=_fnv_finish,
    per_dispatch=PER_DISPATCH,
)


def fnv1a32(data: bytes, h: int = FNV_BASIS) -> int:
    """FNV-1a from basis h (the reference, and the law's continuation)."""
    for b in data:
        h = ((h ^ b) * FNV_PRIME) & M32
    return h


# ---------------------------------------------------------------------------
# MurmurHash3_x86_32
# ---------------------------------------------------------------------------

C1, C2 = 0xCC9E_2D51, 0x1B87_3593


def _murmur_k(k: Expr) -> list[Node]:
    """`_k` = rotl(k * c1, 15) * c2 (each value computed once)."""
    return [Node.let("_k1", E.mul(k, E.u32(C1))), Node.let("_k", E.mul(rotl(E.var("_k1"), 15), E.u32(C2)))]


def _murmur_word(word: Expr) -> list[Node]:
    mixed = [
        *_murmur_k(word),
        Node.let("_h", E.bitxor(E.var("h0"), E.var("_k"))),
        Node.assign("h0", E.add(E.mul(rotl(E.var("_h"), 13), E.u32(5)), E.u32(0xE654_6B64))),
    ]
    return [Node.block(mixed)]


def _murmur_block(st: Sequence[str], msg: Message, blk: Expr) -> list[Node]:
    out: list[Node] = []
    for word in block_words(msg, blk):
        out += _murmur_word(word)
    return out


def _fmix(h: Expr, name: str) -> list[Node]:
    v = E.var(name)
    return [
        Node.let(name, h),
        Node.assign(name, E.mul(E.bitxor(v, E.shr(v, E.u32(16))), E.u32(0x85EB_CA6B))),
        Node.assign(name, E.mul(E.bitxor(v, E.shr(v, E.u32(13))), E.u32(0xC2B2_AE35))),
        Node.assign(name, E.bitxor(v, E.shr(v, E.u32(16)))),
    ]


def _murmur_finish(st: Sequence[str], msg: Message) -> tuple[list[Node], list[Expr]]:
    def tail_bytes(word: Expr, count: Expr) -> list[Node]:
        mixed = [*_murmur_k(word), Node.assign("h0", E.bitxor(E.var("h0"), E.var("_k")))]
        return [Node.if_(E.ne(count, E.u32(0)), mixed)]

    nodes = tail_nodes(msg, _murmur_word, tail_bytes)
    nodes += _fmix(E.bitxor(E.var("h0"), msg.n), "_f")
    return nodes, [E.var("_f")]


MURMUR = StreamHash(
    name="murmur3_32",
    state_words=1,
    out_words=1,
    init=lambda n: [E.u32(0)],
    blocks=lambda n: E.shr(n, E.u32(4)),
    host_blocks=lambda n: n >> 4,
    block=_murmur_block,
    finish=_murmur_finish,
    per_dispatch=PER_DISPATCH,
)


def _rotl(x: int, s: int) -> int:
    return ((x << s) | (x >> (32 - s))) & M32


def murmur3_32(data: bytes, seed: int = 0) -> int:
    """MurmurHash3_x86_32 (the reference, written from SMHasher's MurmurHash3.cpp)."""
    h = seed
    n = len(data)
    for i in range(0, n - n % 4, 4):
        k = int.from_bytes(data[i : i + 4], "little")
        k = (_rotl((k * C1) & M32, 15) * C2) & M32
        h = (_rotl(h ^ k, 13) * 5 + 0xE654_6B64) & M32
    tail = data[n - n % 4 :]
    if tail:
        k = int.from_bytes(tail, "little")
        h ^= (_rotl((k * C1) & M32, 15) * C2) & M32
    h ^= n
    h = ((h ^ (h >> 16)) * 0x85EB_CA6B) & M32
    h = ((h ^ (h >> 13)) * 0xC2B2_AE35) & M32
    return h ^ (h >> 16)


# ---------------------------------------------------------------------------
# XXH32
# ---------------------------------------------------------------------------

P1, P2, P3, P4, P5 = 0x9E37_79B1, 0x85EB_CA77, 0xC2B2_AE3D, 0x27D4_EB2F, 0x1656_67B1


def _xxh_round(name: str, word: Expr) -> Node:
    """v = rotl(v + word P2, 13) P1 for state variable `name`."""
    return Node.block([
        Node.let("_a", E.add(E.var(name), E.mul(word, E.u32(P2)))),
        Node.assign(name, E.mul(rotl(E.var("_a"), 13), E.u32(P1))),
    ])


def _xxh_block(st: Sequence[str], msg: Message, blk: Expr) -> list[Node]:
    return [_xxh_round(name, w) for name, w in zip(st, block_words(msg, blk))]


def _xxh_finish(st: Sequence[str], msg: Message) -> tuple[list[Node], list[Expr]]:
    n = msg.n
    v = [E.var(name) for name in st]
    merged = E.add(E.add(rotl(v[0], 1), rotl(v[1], 7)), E.add(rotl(v[2], 12), rotl(v[3], 18)))
    nodes: list[Node] = [
        Node.let("_x", E.add(E.select(E.ge(n, E.u32(16)), merged, E.u32(P5)), n)),
    ]
    x = E.var("_x")

    def word(w: Expr) -> list[Node]:
        return [Node.let("_a", E.add(x, E.mul(w, E.u32(P3)))), Node.assign("_x", E.mul(rotl(E.var("_a"), 17), E.u32(P4)))]

    def tail_bytes(tail: Expr, count: Expr) -> list[Node]:
        out = [Node.let("_tb", tail)]
        for k in range(3):
            byte = E.bitand(E.shr(E.var("_tb"), E.u32(8 * k)), E.u32(0xFF))
            step = [
                Node.let("_a", E.add(x, E.mul(byte, E.u32(P5)))),
                Node.assign("_x", E.mul(rotl(E.var("_a"), 11), E.u32(P1))),
            ]
            out.append(Node.if_(E.lt(E.u32(k), count), step))
        return out

    nodes += tail_nodes(msg, word, tail_bytes)
    nodes += [
        Node.assign("_x", E.mul(E.bitxor(x, E.shr(x, E.u32(15))), E.u32(P2))),
        Node.assign("_x", E.mul(E.bitxor(x, E.shr(x, E.u32(13))), E.u32(P3))),
        Node.assign("_x", E.bitxor(x, E.shr(x, E.u32(16)))),
    ]
    return nodes, [x]


XXH32 = StreamHash(
    name="xxhash32",
    state_words=4,
    out_words=1,
    init=lambda n: [E.u32((P1 + P2) & M32), E.u32(P2), E.u32(0), E.u32((-P1) & M32)],
    blocks=lambda n: E.shr(n, E.u32(4)),
    host_blocks=lambda n: n >> 4,
    block=_xxh_block,
    finish=_xxh_finish,
    per_dispatch=PER_DISPATCH,
)


def xxh32(data: bytes, seed: int = 0) -> int:
    """XXH32 (the reference, written from xxhash.h)."""
    n = len(data)
    p = 0

    def rnd(v: int, w: int) -> int:
        return (_rotl((v + w * P2) & M32, 13) * P1) & M32

    if n >= 16:
        v = [(seed + P1 + P2) & M32, (seed + P2) & M32, seed, (seed - P1) & M32]
        while p + 16 <= n:
            v = [rnd(v[j], int.from_bytes(data[p + 4 * j : p + 4 * j + 4], "little")) for j in range(4)]
            p += 16
        h = (_rotl(v[0], 1) + _rotl(v[1], 7) + _rotl(v[2], 12) + _rotl(v[3], 18)) & M32
    else:
        h = (seed + P5) & M32
    h = (h + n) & M32
    while p + 4 <= n:
        h = (_rotl((h + int.from_bytes(data[p : p + 4], "little") * P3) & M32, 17) * P4) & M32
        p += 4
    while p < n:
        h = (_rotl((h + data[p] * P5) & M32, 11) * P1) & M32
        p += 1
    h = ((h ^ (h >> 15)) * P2) & M32
    h = ((h ^ (h >> 13)) * P3) & M32
    return h ^ (h >> 16)


# ---------------------------------------------------------------------------
# Laws, vectors and the specs
# ---------------------------------------------------------------------------


class PublishedVectors(KernelLaw):
    """The published vectors: on every case, the vector at index len(case) mod
    their number (the boundary and random cases cover every vector)."""

    name = "PublishedVectors"

    def __init__(self, vectors: Sequence[tuple[bytes, Any]]):
        self.vectors = tuple(vectors)

    def check(self, op: Callable[..., tuple[np.ndarray, ...]], args: tuple[Any, ...]) -> str | None:
        data, expected = self.vectors[len(args[0]) % len(self.vectors)]
        got = op(np.frombuffer(data, dtype=np.uint8))[0]
        value = got.tobytes() if isinstance(expected, bytes) else int(got[0])
        if value != expected:
            shown = value.hex() if isinstance(value, bytes) else f"{value:#010x}"
            want = expected.hex() if isinstance(expected, bytes) else f"{expected:#010x}"
            return f"op({data[:16]!r}{'...' if len(data) > 16 else ''}) = {shown}, published {want}"
        return None


class FnvChaining(KernelLaw):
    """fnv(a ‖ b) = fnv_from(fnv(a), b): FNV-1a continued from the hash of a
    prefix, split a third of the way."""

    name = "FnvChaining"

    def check(self, op: Callable[..., tuple[np.ndarray, ...]], args: tuple[Any, ...]) -> str | None:
        x = np.asarray(args[0], dtype=np.uint8)
        k = len(x) // 3
        whole = int(op(x)[0][0])
        chained = fnv1a32(x[k:].tobytes(), int(op(x[:k])[0][0]))
        if whole != chained:
            return f"fnv(a‖b) = {whole:#010x} but fnv from fnv(a) over b = {chained:#010x} (split at {k})"
        return None


FNV_VECTORS = ((b"", 0x811C_9DC5), (b"a", 0xE40C_292C), (b"foobar", 0xBF9C_F968))
"""draft-eastlake-fnv / the FNV reference test suite."""

MURMUR_VECTORS = (
    (b"", 0),
    (b"\0\0\0\0", 0x2362_F9DE),
    (bytes([0x21, 0x43, 0x65, 0x87]), 0xF55B_516B),
    (bytes([0x21, 0x43, 0x65]), 0x7E4A_8634),
    (bytes([0x21, 0x43]), 0xA0F7_B07A),
    (bytes([0x21]), 0x7266_1CF4),
)
"""SMHasher vectors with seed 0."""

XXH32_VECTORS = ((b"", 0x02CC_5D05), (b"a", 0x550D_7456), (b"abc", 0x32D1_53FF))
"""xxHash's sanity vectors with seed 0."""


def word_hash_spec(
    op_id: str,
    h: StreamHash,
    reference: Callable[[bytes], int],
    summary: str,
    laws: tuple[KernelLaw, ...],
) -> KernelSpec:
    """The spec of hash `h` with CPU reference `reference` (tests build variants
    with another `per_dispatch`)."""

    def plan(sizes: Any, scalars: Any) -> KernelPlan:
        return single_plan(h, int(sizes["data"]), DataType.U32)

    def plan_many(sizes: Sequence[Any], scalars: Sequence[Any]) -> BatchPlan:
        return batch_plan(h, size_column(sizes, "data"), DataType.U32)

    def ref(data: np.ndarray) -> tuple[np.ndarray]:
        return (np.array([reference(np.asarray(data, dtype=np.uint8).tobytes())], dtype=np.uint32),)

    return KernelSpec(
        id=op_id,
        version=1,
        inputs=(Port("data", DataType.BYTES),),
        outputs=(Port("out", DataType.U32, scalar=True),),
        kind="batch",
        reference=ref,
        plan=plan,
        plan_many=plan_many,
        summary=summary,
        laws=laws,
        max_length=MAX_MESSAGE,
    )


WORD_BOUNDARIES = (0, 1, 3, 4, 5, 15, 16, 17, 63, 64, 65, 255, 256, 257, 4097)
"""Data lengths of the `_batch` ops' cases (cut into messages by `samplers.hash_batch`)."""


def _batch(op_id: str, h: StreamHash, one: Callable[[bytes], int], what: str, vectors: Sequence[tuple[bytes, int]]) -> KernelSpec:
    return batch_spec(
        op_id, h, DataType.U32, one, f"{what} of each message data[offsets[i]:offsets[i+1]], U32[n]",
        vectors, WORD_BOUNDARIES,
    )


KERNELS = (
    word_hash_spec(
        "hash.fnv1a32",
        FNV,
        fnv1a32,
        "FNV-1a, 32 bits, of the bytes",
        (FnvChaining(), PublishedVectors(FNV_VECTORS), BatchEqualsSingle(), K.EmptyIs(FNV_BASIS)),
    ),
    word_hash_spec(
        "hash.murmur3_32",
        MURMUR,
        murmur3_32,
        "MurmurHash3 x86_32 of the bytes, seed 0",
        (PublishedVectors(MURMUR_VECTORS), BatchEqualsSingle(), K.EmptyIs(0)),
    ),
    word_hash_spec(
        "hash.xxhash32",
        XXH32,
        xxh32,
        "XXH32 of the bytes, seed 0",
        (PublishedVectors(XXH32_VECTORS), BatchEqualsSingle(), K.EmptyIs(0x02CC_5D05)),
    ),
    _batch("hash.fnv1a32_batch", FNV, fnv1a32, "FNV-1a 32", FNV_VECTORS),
    _batch("hash.murmur3_32_batch", MURMUR, murmur3_32, "MurmurHash3 x86_32 (seed 0)", MURMUR_VECTORS),
    _batch("hash.xxhash32_batch", XXH32, xxh32, "XXH32 (seed 0)", XXH32_VECTORS),
)
