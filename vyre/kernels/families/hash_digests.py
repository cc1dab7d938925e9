"""hash.md5, hash.sha1, hash.sha256: message digests (C9: the 0.4 ids, version 2,
Bytes outputs of 16/20/32 bytes equal to `hashlib.<name>(data).digest()`).

All three are Merkle-Damgård over 64-byte blocks of the *padded* message: the
bytes, 0x80, zeros, and the bit length 8n as a 64-bit integer in the last 8
bytes (little-endian for MD5, big-endian for SHA), nb = (n + 8) // 64 + 1
blocks. One message per invocation (`hash_stream`); the padded words are made
on the fly from the message words (`padded_word`: whole words, the masked last
word with its 0x80, the lone 0x80, zeros, and the two length words of the last
block), so no block is staged anywhere. SHA words are big-endian: the
little-endian packed words are byte-swapped, and so are the state words when
they are written out (FIPS 180-4's byte order); MD5's state words are its
digest's words as they are.

- MD5 (RFC 1321): 64 steps unrolled in straight-line IR (the sine table and
  shift amounts are literals).
- SHA-1 (FIPS 180-4 §6.1): 80 rounds unrolled, the schedule in a 16-word window.
- SHA-256 (FIPS 180-4 §6.2): a loop of 4 x 16 unrolled rounds; the schedule
  is a 16-word window updated in place between groups (W[t] from W[t-2],
  W[t-7], W[t-15], W[t-16]), K from a constant buffer `k` (5 loop back-edges
  per block).

Blocks per invocation and dispatch (`per_dispatch`): MD5 256, SHA-1 128,
SHA-256 128. The bound is the reference interpreter's, which predicts the work
of a loop before running it and refuses a dispatch of more than about 15 s
(`vyre/runtime/interp/budget.py`; a 64-lane workgroup walking 128 SHA-256
blocks is predicted at 1.0e10 of its 1.5e10 units); lavapipe's 65,535
back-edges are far off. On a GPU a long single message costs one dispatch
(~4 us) per 8-16 KiB on top of its sequential work; a batch of short messages
is one dispatch.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from vyre.ir import DataType, Expr, Node
from vyre.ir import Expr as E
from vyre.kernels.families.hash_stream import (
    MAX_MESSAGE,
    BatchEqualsSingle,
    Message,
    StreamHash,
    batch_plan,
    batch_spec,
    bswap,
    rotl,
    rotr,
    single_plan,
)
from vyre.kernels.families.hash_words import PublishedVectors
from vyre.kernels.spec import BatchPlan, KernelLaw, KernelPlan, KernelSpec, Port, size_column

__all__ = ["KERNELS", "MD5", "SHA1", "SHA256", "digest_spec", "padded_blocks", "padded_words"]

M32 = 0xFFFF_FFFF


def padded_blocks(n: Expr) -> Expr:
    """Blocks of the padded message: (n + 8) // 64 + 1."""
    return E.add(E.shr(E.add(n, E.u32(8)), E.u32(6)), E.u32(1))


def _host_blocks(n: int) -> int:
    return (n + 8) // 64 + 1


def padded_words(msg: Message, blk: Expr, big_endian: bool, prefix: str) -> list[Node]:
    """Nodes declaring `{prefix}0`..`{prefix}15`, the words of block `blk` of
    the padded message as the hash reads them (byte-swapped for SHA): whole
    message words, the last one masked with its 0x80 after the last byte, a
    lone 0x80, zeros, and the bit length 8n in the last two words of the last
    block. Every message word is loaded once."""
    n = msg.n
    p = prefix
    nodes = [
        Node.let(f"{p}_at", E.shl(blk, E.u32(6))),
        Node.let(f"{p}_last", E.eq(blk, E.sub(padded_blocks(n), E.u32(1)))),
    ]
    high, low = E.shr(n, E.u32(29)), E.shl(n, E.u32(3))
    for j in range(16):
        at = E.add(E.var(f"{p}_at"), E.u32(4 * j)) if j else E.var(f"{p}_at")
        g = E.add(E.shl(blk, E.u32(4)), E.u32(j)) if j else E.shl(blk, E.u32(4))
        rem, full = E.var(f"{p}_r{j}"), E.ge(E.var(f"{p}_r{j}"), E.u32(4))
        shift = E.shl(rem, E.u32(3))
        mask = E.select(full, E.u32(0xFFFF_FFFF), E.sub(E.shl(E.u32(1), shift), E.u32(1)))
        pad = E.select(full, E.u32(0), E.shl(E.u32(0x80), shift))
        inside = E.bitor(E.bitand(msg.word(g), mask), pad)
        data = E.select(E.lt(at, n), inside, E.select(E.eq(at, n), E.u32(0x80), E.u32(0)))
        nodes += [Node.let(f"{p}_r{j}", E.sub(n, at)), Node.let(f"{p}_d{j}", data)]
        word = bswap(E.var(f"{p}_d{j}")) if big_endian else E.var(f"{p}_d{j}")
        if j >= 14:
            length = (high if j == 14 else low) if big_endian else (low if j == 14 else high)
            word = E.bitor(word, E.select(E.var(f"{p}_last"), length, E.u32(0)))
        nodes.append(Node.let(f"{p}{j}", word))
    return nodes


def _words(msg: Message, blk: Expr, big_endian: bool, prefix: str) -> list[Node]:
    return padded_words(msg, blk, big_endian, prefix)


# ---------------------------------------------------------------------------
# MD5 (RFC 1321)
# ---------------------------------------------------------------------------

MD5_K = tuple(int(abs(math.sin(i + 1)) * 2**32) & M32 for i in range(64))
MD5_S = (7, 12, 17, 22) * 4 + (5, 9, 14, 20) * 4 + (4, 11, 16, 23) * 4 + (6, 10, 15, 21) * 4
MD5_INIT = (0x6745_2301, 0xEFCD_AB89, 0x98BA_DCFE, 0x1032_5476)


def _md5_block(st: Sequence[str], msg: Message, blk: Expr) -> list[Node]:
    nodes = _words(msg, blk, False, "m")
    a, b, c, d = (E.var(s) for s in st)
    for i in range(64):
        if i < 16:
            f, g = E.bitor(E.bitand(b, c), E.bitand(E.bitnot(b), d)), i
        elif i < 32:
            f, g = E.bitor(E.bitand(d, b), E.bitand(E.bitnot(d), c)), (5 * i + 1) % 16
        elif i < 48:
            f, g = E.bitxor(E.bitxor(b, c), d), (3 * i + 5) % 16
        else:
            f, g = E.bitxor(c, E.bitor(b, E.bitnot(d))), (7 * i) % 16
        total = E.add(E.add(f, a), E.add(E.u32(MD5_K[i]), E.var(f"m{g}")))
        nodes += [Node.let(f"mt{i}", total), Node.let(f"md{i}", E.add(b, rotl(E.var(f"mt{i}"), MD5_S[i])))]
        a, b, c, d = d, E.var(f"md{i}"), b, c
    for name, value in zip(st, (a, b, c, d)):
        nodes.append(Node.assign(name, E.add(E.var(name), value)))
    return nodes


MD5 = StreamHash(
    name="md5",
    state_words=4,
    out_words=4,
    init=lambda n: [E.u32(v) for v in MD5_INIT],
    blocks=padded_blocks,
    host_blocks=_host_blocks,
    block=_md5_block,
    finish=lambda st, msg: ([], [E.var(s) for s in st]),
    per_dispatch=256,
)


# ---------------------------------------------------------------------------
# SHA-1 (FIPS 180-4 §6.1)
# ---------------------------------------------------------------------------

SHA1_INIT = (0x6745_2301, 0xEFCD_AB89, 0x98BA_DCFE, 0x1032_5476, 0xC3D2_E1F0)
SHA1_K = (0x5A82_7999, 0x6ED9_EBA1, 0x8F1B_BCDC, 0xCA62_C1D6)


def _sha1_block(st: Sequence[str], msg: Message, blk: Expr) -> list[Node]:
    nodes = _words(msg, blk, True, "w")
    window = [E.var(f"w{j}") for j in range(16)]
    a, b, c, d, e = (E.var(s) for s in st)
    for t in range(80):
        if t >= 16:
            mixed = E.bitxor(E.bitxor(window[(t - 3) % 16], window[(t - 8) % 16]), E.bitxor(window[(t - 14) % 16], window[t % 16]))
            nodes += [Node.let(f"xm{t}", mixed), Node.let(f"x{t}", rotl(E.var(f"xm{t}"), 1))]
            window[t % 16] = E.var(f"x{t}")
        if t < 20:
            f = E.bitor(E.bitand(b, c), E.bitand(E.bitnot(b), d))
        elif t < 40 or t >= 60:
            f = E.bitxor(E.bitxor(b, c), d)
        else:
            f = E.bitor(E.bitor(E.bitand(b, c), E.bitand(b, d)), E.bitand(c, d))
        temp = E.add(E.add(rotl(a, 5), f), E.add(E.add(e, E.u32(SHA1_K[t // 20])), window[t % 16]))
        nodes += [Node.let(f"sa{t}", temp), Node.let(f"sc{t}", rotl(b, 30))]
        a, b, c, d, e = E.var(f"sa{t}"), a, E.var(f"sc{t}"), c, d
    for name, value in zip(st, (a, b, c, d, e)):
        nodes.append(Node.assign(name, E.add(E.var(name), value)))
    return nodes


SHA1 = StreamHash(
    name="sha1",
    state_words=5,
    out_words=5,
    init=lambda n: [E.u32(v) for v in SHA1_INIT],
    blocks=padded_blocks,
    host_blocks=_host_blocks,
    block=_sha1_block,
    finish=lambda st, msg: ([], [bswap(E.var(s)) for s in st]),
    per_dispatch=128,
)


# ---------------------------------------------------------------------------
# SHA-256 (FIPS 180-4 §6.2)
# ---------------------------------------------------------------------------


def _first_primes(count: int) -> list[int]:
    primes: list[int] = []
    candidate = 2
    while len(primes) < count:
        if all(candidate % p for p in primes if p * p <= candidate):
            primes.append(candidate)
        candidate += 1
    return primes


def _frac_root(p: int, degree: int) -> int:
    """The first 32 bits of the fractional part of p^(1/degree), exactly (integer roots)."""
    scaled = p << (32 * degree)
    root = int(round(p ** (1 / degree) * 2**32))
    while root**degree > scaled:
        root -= 1
    while (root + 1) ** degree <= scaled:
        root += 1
    return root & M32


SHA256_K = tuple(_frac_root(p, 3) for p in _first_primes(64))
"""FIPS 180-4 §4.2.2: cube roots of the first 64 primes."""
SHA256_INIT = tuple(_frac_root(p, 2) for p in _first_primes(8))
"""FIPS 180-4 §5.3.3: square roots of the first 8 primes."""


def _big_sigma(x: Expr, r: tuple[int, int, int]) -> Expr:
    return E.bitxor(E.bitxor(rotr(x, r[0]), rotr(x, r[1])), rotr(x, r[2]))


def _small_sigma(x: Expr, r: tuple[int, int, int]) -> Expr:
    return E.bitxor(E.bitxor(rotr(x, r[0]), rotr(x, r[1])), E.shr(x, E.u32(r[2])))


def _sha256_block(st: Sequence[str], msg: Message, blk: Expr) -> list[Node]:
    nodes = _words(msg, blk, True, "_p")
    # the window w0..w15 and the working variables a..h are assigned in the loop
    nodes += [Node.let(f"w{j}", E.var(f"_p{j}")) for j in range(16)]
    names = ["a", "b", "c", "d", "e", "f", "g", "hh"]
    nodes += [Node.let(v, E.var(s)) for v, s in zip(names, st)]
    grp = E.var("grp")
    work = [E.var(v) for v in names]
    rounds: list[Node] = []
    for i in range(16):
        a, b, c, d, e, f, g, h = work
        k = E.load("k", E.add(E.shl(grp, E.u32(4)), E.u32(i)) if i else E.shl(grp, E.u32(4)))
        choose = E.bitxor(E.bitand(e, f), E.bitand(E.bitnot(e), g))
        t1 = E.add(E.add(E.add(h, _big_sigma(e, (6, 11, 25))), E.add(choose, k)), E.var(f"w{i}"))
        major = E.bitxor(E.bitxor(E.bitand(a, b), E.bitand(a, c)), E.bitand(b, c))
        rounds += [
            Node.let(f"t{i}", t1),
            Node.let(f"e{i}", E.add(d, E.var(f"t{i}"))),
            Node.let(f"a{i}", E.add(E.var(f"t{i}"), E.add(_big_sigma(a, (2, 13, 22)), major))),
        ]
        work = [E.var(f"a{i}"), a, b, c, E.var(f"e{i}"), e, f, g]
    rounds += [Node.assign(v, value) for v, value in zip(names, work)]
    schedule: list[Node] = []

    def w(j: int) -> Expr:
        return E.var(f"w{j % 16}")

    for i in range(16):
        new = E.add(E.add(_small_sigma(w(i + 14), (17, 19, 10)), w(i + 9)), E.add(_small_sigma(w(i + 1), (7, 18, 3)), w(i)))
        schedule.append(Node.assign(f"w{i}", new))
    rounds.append(Node.if_(E.lt(grp, E.u32(3)), schedule))
    nodes.append(Node.loop("grp", E.u32(0), E.u32(4), rounds))
    nodes += [Node.assign(s, E.add(E.var(s), E.var(v))) for s, v in zip(st, names)]
    return nodes


SHA256 = StreamHash(
    name="sha256",
    state_words=8,
    out_words=8,
    init=lambda n: [E.u32(v) for v in SHA256_INIT],
    blocks=padded_blocks,
    host_blocks=_host_blocks,
    block=_sha256_block,
    finish=lambda st, msg: ([], [bswap(E.var(s)) for s in st]),
    per_dispatch=128,
    constants=SHA256_K,
)


# ---------------------------------------------------------------------------
# Vectors and the specs
# ---------------------------------------------------------------------------

_ABC448 = b"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"

MD5_VECTORS = (
    (b"", bytes.fromhex("d41d8cd98f00b204e9800998ecf8427e")),
    (b"a", bytes.fromhex("0cc175b9c0f1b6a831c399e269772661")),
    (b"abc", bytes.fromhex("900150983cd24fb0d6963f7d28e17f72")),
    (b"message digest", bytes.fromhex("f96b697d7cb7938d525a2f31aaf161d0")),
    (b"abcdefghijklmnopqrstuvwxyz", bytes.fromhex("c3fcd3d76192e4007dfb496cca67e13b")),
    (
        b"12345678901234567890123456789012345678901234567890123456789012345678901234567890",
        bytes.fromhex("57edf4a22be3c955ac49da2e2107b67a"),
    ),
)
"""RFC 1321 §A.5."""

SHA1_VECTORS = (
    (b"abc", bytes.fromhex("a9993e364706816aba3e25717850c26c9cd0d89d")),
    (_ABC448, bytes.fromhex("84983e441c3bd26ebaae4aa1f95129e5e54670f1")),
    (b"", bytes.fromhex("da39a3ee5e6b4b0d3255bfef95601890afd80709")),
)
"""RFC 3174 §7.3 / FIPS 180-4 examples (and the empty message)."""

SHA256_VECTORS = (
    (b"abc", bytes.fromhex("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")),
    (b"", bytes.fromhex("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")),
    (_ABC448, bytes.fromhex("248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")),
)
"""FIPS 180-4 examples."""


DIGEST_BOUNDARIES = (0, 1, 3, 4, 5, 55, 56, 63, 64, 65, 119, 120, 255, 256, 4097)
"""Lengths every digest is checked on: empty, short, the padding boundaries
(55: the length fits the first block; 56: it does not; 63/64/65; 119/120 for
two blocks), and lengths that are not multiples of 4."""


def digest_spec(op_id: str, h: StreamHash, name: str, vectors: Sequence[tuple[bytes, bytes]]) -> KernelSpec:
    """The spec of digest `h` (hashlib name `name`); tests build variants with
    another `per_dispatch`."""
    size = 4 * h.out_words

    def plan(sizes: Any, scalars: Any) -> KernelPlan:
        return single_plan(h, int(sizes["data"]), DataType.BYTES)

    def plan_many(sizes: Sequence[Any], scalars: Sequence[Any]) -> BatchPlan:
        return batch_plan(h, size_column(sizes, "data"), DataType.BYTES)

    def reference(data: np.ndarray) -> tuple[np.ndarray]:
        digest = hashlib.new(name, np.asarray(data, dtype=np.uint8).tobytes()).digest()
        return (np.frombuffer(digest, dtype=np.uint8).copy(),)

    laws: tuple[KernelLaw, ...] = (PublishedVectors(vectors), BatchEqualsSingle())
    return KernelSpec(
        id=op_id,
        version=2,
        inputs=(Port("data", DataType.BYTES),),
        outputs=(Port("out", DataType.BYTES),),
        kind="batch",
        reference=reference,
        plan=plan,
        plan_many=plan_many,
        summary=f"{name.upper()} digest of the bytes, Bytes({size}) (hashlib.{name}(b).digest())",
        laws=laws,
        boundaries=DIGEST_BOUNDARIES,
        max_length=MAX_MESSAGE,
    )


KERNELS = (
    digest_spec("hash.md5", MD5, "md5", MD5_VECTORS),
    digest_spec("hash.sha1", SHA1, "sha1", SHA1_VECTORS),
    digest_spec("hash.sha256", SHA256, "sha256", SHA256_VECTORS),
    batch_spec(
        "hash.md5_batch", MD5, DataType.BYTES, lambda b: hashlib.md5(b).digest(),
        "MD5 digests of the messages data[offsets[i]:offsets[i+1]], 16 bytes each", MD5_VECTORS, DIGEST_BOUNDARIES,
    ),
    batch_spec(
        "hash.sha1_batch", SHA1, DataType.BYTES, lambda b: hashlib.sha1(b).digest(),
        "SHA-1 digests of the messages data[offsets[i]:offsets[i+1]], 20 bytes each", SHA1_VECTORS, DIGEST_BOUNDARIES,
    ),
    batch_spec(
        "hash.sha256_batch", SHA256, DataType.BYTES, lambda b: hashlib.sha256(b).digest(),
        "SHA-256 digests of the messages data[offsets[i]:offsets[i+1]], 32 bytes each", SHA256_VECTORS,
        DIGEST_BOUNDARIES,
    ),
)
