"""Checksums of one large buffer: chunks in parallel, combined in a tree
(C2 kind `reduce`). CRC-32, CRC-32C
(`hash_crc.py`) and Adler-32 (`hash_adler.py`) are built from this.

A *linear checksum* maps a byte string to a small state (one or two u32 words)
with a combine law `state(a ‖ b) = combine(state(a), state(b), len(b))` that
needs only the length of the right-hand part, and with the empty string's state
all zeros, a state no combine changes: `combine(0, s, L) = s`. The raw CRC
register (init 0, no xorout) and Adler's (S, W) sums are such states; the
checksum is a function of the state and the total length (`finish`).

The layout (end-aligned chunks, zero states on the left):

- The input of n bytes is cut into K = ceil(n / C) chunks of C bytes aligned to
  its *end*: chunk j covers bytes [n - (K - j) C, n - (K - 1 - j) C), the first
  one clipped at 0 (it is the only short one).
- A pass runs G workgroups of WORKGROUP invocations over G * WORKGROUP slots; the
  z = G * WORKGROUP - K leftmost slots hold the empty state and slot z + j holds
  chunk j. Every workgroup combines its slots in the aligned-pairs tree: at
  level r, slot l (a multiple of 2^(r+1)) takes combine(slot l, slot l + 2^r)
  with the right-hand length C * 2^r.
- That length is a constant of the level because every right-hand subtree is
  full, except one holding the short first chunk or empty slots; and then
  everything on its left is empty, whose state is zero and stays zero under any
  shift. So each level multiplies by one constant the host computes (CRC: the
  32 columns of the GF(2) matrix of "append C * 2^r zero bytes").
- The workgroups' roots are the slots of the next pass, which again aligns them
  to the end (G' = ceil(G / WORKGROUP) workgroups, G' * WORKGROUP - G empty
  slots on the left) and combines with lengths C * WORKGROUP^p * 2^r; and so on
  until one root remains. The last pass's invocation 0 writes
  `finish(root, n)` to the output word.

C = CHUNK = 256 bytes: 64 words per invocation (far below lavapipe's loop
limit), 64 KiB per workgroup, so 256 MiB is 4,096 workgroups (1 Mi invocations,
enough to fill an H100) and 3 passes (4,096 -> 16 -> 1 workgroups); any
multiple of 4 works (chunk-size independence is
tested with several). A chunk is read as its 0-3 leading bytes up to a word
boundary, whole words, then 0-3 trailing bytes, so no byte past n (the padding
of the last word, unspecified by C1) is ever used.

Every dispatch depends only on n (C4: no atomics; the tree order is fixed), the
plan is a function of n alone, and n = 0 runs no dispatch (the output buffer
starts as `finish(empty state, 0)`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache

import numpy as np

from vyre.ir import BufferDecl, DataType, Expr, Node, Program
from vyre.ir import Expr as E
from vyre.kernels.families.common import LOG_WORKGROUP, WORKGROUP, param, params_buffer
from vyre.kernels.spec import BatchPlan, Buffer, KernelPlan, Step, batch_starts

__all__ = [
    "CHUNK",
    "HEADER",
    "LinearChecksum",
    "byte_at",
    "chunk_plan",
    "chunk_program",
    "combine_program",
    "merged_plan",
]

CHUNK = 256
"""Bytes per invocation of the first pass."""

HEADER = 10
"""Parameter words of a pass: [n, slots in use, empty slots on the left z,
chunk bytes C, final (0/1), the message's first word in `data`, the output
word of the final pass, finish words (3)]."""
N, COUNT, EMPTY, CHUNK_BYTES, FINAL, BASE, OUT, FINISH = 0, 1, 2, 3, 4, 5, 6, 7


def byte_at(buffer: str, index: Expr, base: Expr | None = None) -> Expr:
    """Byte `index` of a Bytes buffer bound as packed little-endian words (C1),
    counted from word `base`."""
    at = E.shr(index, E.u32(2))
    word = E.load(buffer, at if base is None else E.add(base, at))
    return E.bitand(E.shr(word, E.shl(E.bitand(index, E.u32(3)), E.u32(3))), E.u32(0xFF))


StateNodes = Callable[[Sequence[str]], list[Node]]


@dataclass(frozen=True)
class LinearChecksum:
    """What `hash_chunks` needs of a checksum (see the module doc)."""

    name: str
    words: int
    """State words per slot."""
    level_words: int
    """Words per tree level in the constant buffer `levels` (read-only storage:
    level r's words start at r * level_words)."""
    byte_step: Callable[[Sequence[str], Expr], list[Node]]
    """Nodes updating the state variables with one byte (a u32 in 0..255)."""
    word_step: Callable[[Sequence[str], Expr], list[Node]]
    """Nodes updating the state variables with four bytes (a little-endian word)."""
    chunk_end: Callable[[Sequence[str]], list[Node]]
    """Nodes bringing a chunk's state variables to canonical form (Adler: mod 65521)."""
    combine: Callable[[Expr, Sequence[Expr], Sequence[Expr], Sequence[str]], list[Node]]
    """(level r, left state, right state, result names) -> nodes declaring the
    combined state under those names, from level r's constants in `levels`."""
    finish: Callable[[Sequence[Expr]], Expr]
    """The checksum word from the root state (params[FINISH...] hold the host's
    words for n)."""
    level_params: Callable[[int], np.ndarray]
    """The level_words constants (uint32) of a level whose right-hand length is L bytes."""
    finish_params: Callable[[int], list[int]]
    """The (up to 3) finish words for input length n."""
    empty: int
    """The checksum of the empty input."""
    table: tuple[int, ...] = ()
    """Constant words copied into workgroup memory `tab` before the chunk pass
    (CRC: the slicing-by-4 tables); () for none."""
    max_chunk: int = 1 << 16
    """The largest chunk whose state the u32 accumulators hold exactly (Adler:
    the sums of 5,552 bytes, zlib's NMAX)."""


def _vars(prefix: str, words: int) -> list[str]:
    return [f"{prefix}{w}" for w in range(words)]


def _tree(c: LinearChecksum) -> list[Node]:
    """The aligned-pairs tree over the workgroup arrays `sh0`.. (one state per
    invocation already stored), root into slot 0: a loop over the levels r
    (uniform bounds, so its barriers are uniform), slot l taking
    combine(r, slot l, slot l + 2^r) when l is a multiple of 2^(r+1)."""
    local = E.local_id(0)
    r = E.var("r")
    step = E.shl(E.u32(1), r)
    partner = E.add(local, step)
    active = E.eq(E.bitand(local, E.sub(E.shl(step, E.u32(1)), E.u32(1))), E.u32(0))
    left = [E.load(f"sh{w}", local) for w in range(c.words)]
    right = [E.load(f"sh{w}", partner) for w in range(c.words)]
    names = [f"m{w}" for w in range(c.words)]
    inner = [*c.combine(r, left, right, names)]
    inner += [Node.store(f"sh{w}", local, E.var(n)) for w, n in enumerate(names)]
    level = [Node.if_(active, inner), Node.barrier()]
    return [Node.barrier(), Node.loop("r", E.u32(0), E.u32(LOG_WORKGROUP), level)]


def _root(c: LinearChecksum) -> list[Node]:
    """Invocation 0: the workgroup's root to `dst` (its slot), or, in the final
    pass, the checksum word to dst[params[OUT]]."""
    root = [E.load(f"sh{w}", E.u32(0)) for w in range(c.words)]
    slot = [
        Node.store("dst", E.add(E.mul(E.workgroup_id(0), E.u32(c.words)), E.u32(w)), root[w])
        for w in range(c.words)
    ]
    final = [Node.store("dst", param(OUT), c.finish(root))]
    return [
        Node.if_(
            E.eq(E.local_id(0), E.u32(0)),
            [Node.if_(E.ne(param(FINAL), E.u32(0)), final, slot)],
        )
    ]


def _chunk_state(c: LinearChecksum) -> list[Node]:
    """The state of slot t's chunk into the variables st0.. (zero for an empty slot)."""
    st = _vars("st", c.words)
    n, count, empty, size = param(N), param(COUNT), param(EMPTY), param(CHUNK_BYTES)
    lo, hi, a = E.var("lo"), E.var("hi"), E.var("a")
    j = E.sub(E.var("t"), empty)
    bytes_of = [
        # hi = n - (K - 1 - j) C; lo = max(hi - C, 0)
        Node.let("hi", E.sub(n, E.mul(E.sub(E.sub(count, E.u32(1)), j), size))),
        Node.let("lo", E.select(E.ge(hi, size), E.sub(hi, size), E.u32(0))),
        # leading bytes up to a word boundary, whole words, trailing bytes
        Node.let("a", E.select(E.lt(hi, E.bitand(E.add(lo, E.u32(3)), E.u32(0xFFFF_FFFC))), hi,
                               E.bitand(E.add(lo, E.u32(3)), E.u32(0xFFFF_FFFC)))),
        Node.loop("i", lo, a, c.byte_step(st, byte_at("data", E.var("i"), param(BASE)))),
        Node.loop(
            "wi", E.shr(a, E.u32(2)), E.shr(hi, E.u32(2)),
            c.word_step(st, E.load("data", E.add(param(BASE), E.var("wi")))),
        ),
        Node.let("b", E.select(E.gt(a, E.bitand(hi, E.u32(0xFFFF_FFFC))), a, E.bitand(hi, E.u32(0xFFFF_FFFC)))),
        Node.loop("k", E.var("b"), hi, c.byte_step(st, byte_at("data", E.var("k"), param(BASE)))),
        *c.chunk_end(st),
    ]
    return [*[Node.let(s, E.u32(0)) for s in st], Node.if_(E.ge(E.var("t"), empty), bytes_of)]


def _slot_state(c: LinearChecksum) -> list[Node]:
    """The state of slot t of a combine pass (a root of the previous pass, or
    zero for an empty slot) into st0.."""
    st = _vars("st", c.words)
    at = E.mul(E.sub(E.var("t"), param(EMPTY)), E.u32(c.words))
    loads = [Node.assign(s, E.load("src", E.add(at, E.u32(w)))) for w, s in enumerate(st)]
    return [*[Node.let(s, E.u32(0)) for s in st], Node.if_(E.ge(E.var("t"), param(EMPTY)), loads)]


def _slot() -> Node:
    return Node.let("t", E.add(E.mul(E.workgroup_id(0), E.u32(WORKGROUP)), E.local_id(0)))


def _store_states(c: LinearChecksum) -> list[Node]:
    return [Node.store(f"sh{w}", E.local_id(0), E.var(f"st{w}")) for w in range(c.words)]


def _shared(c: LinearChecksum) -> list[BufferDecl]:
    return [BufferDecl.workgroup(f"sh{w}", WORKGROUP, DataType.U32) for w in range(c.words)]


@cache
def chunk_program(c: LinearChecksum) -> Program:
    """The first pass: every invocation's chunk, then the workgroup tree."""
    body: list[Node] = []
    buffers = [
        BufferDecl.read("data", 0, DataType.U32),
        BufferDecl.read_write("dst", 1, DataType.U32),
        BufferDecl.uniform("params", 2, DataType.U32),
        BufferDecl.read("levels", 3, DataType.U32),
    ]
    if c.table:
        buffers.append(BufferDecl.read("table", 4, DataType.U32))
        buffers.append(BufferDecl.workgroup("tab", len(c.table), DataType.U32))
        for k in range(len(c.table) // WORKGROUP):
            at = E.add(E.local_id(0), E.u32(k * WORKGROUP))
            body.append(Node.store("tab", at, E.load("table", at)))
        body.append(Node.barrier())
    body += [_slot(), *_chunk_state(c), *_store_states(c), *_tree(c), *_root(c)]
    return Program(
        buffers=[*buffers, *_shared(c)],
        workgroup_size=(WORKGROUP, 1, 1),
        entry=body,
        name=f"{c.name}_chunks",
    )


@cache
def combine_program(c: LinearChecksum) -> Program:
    """A later pass: the previous pass's roots, end-aligned, in the workgroup tree."""
    body = [_slot(), *_slot_state(c), *_store_states(c), *_tree(c), *_root(c)]
    return Program(
        buffers=[
            BufferDecl.read("src", 0, DataType.U32),
            BufferDecl.read_write("dst", 1, DataType.U32),
            BufferDecl.uniform("params", 2, DataType.U32),
            BufferDecl.read("levels", 3, DataType.U32),
            *_shared(c),
        ],
        workgroup_size=(WORKGROUP, 1, 1),
        entry=body,
        name=f"{c.name}_combine",
    )


def _groups(slots: int) -> int:
    return max(1, -(-slots // WORKGROUP))


def _check_chunk(c: LinearChecksum, chunk: int) -> None:
    if chunk <= 0 or chunk % 4 or chunk > c.max_chunk:
        raise ValueError(
            f"`{c.name}`: the chunk size must be a positive multiple of 4 up to {c.max_chunk}, got {chunk}"
        )


def _table(c: LinearChecksum) -> list[Buffer]:
    if not c.table:
        return []
    return [Buffer("table", DataType.U32, len(c.table), words=np.array(c.table, dtype=np.uint32))]


def _passes(
    c: LinearChecksum, n: int, chunk: int, base: int, out_index: int, prefix: str
) -> tuple[list[Buffer], list[Step]]:
    """The passes over the n bytes from word `base` of `data`, the checksum to
    out[out_index]; their buffers' names start with `prefix`."""
    if n == 0:
        return [], []
    finish = (c.finish_params(n) + [0, 0, 0])[:3]
    buffers: list[Buffer] = []
    steps: list[Step] = []
    slots, unit, src, p = -(-n // chunk), chunk, "data", 0
    while True:
        groups = _groups(slots)
        final = groups == 1
        levels = np.concatenate([c.level_params(unit << r) for r in range(LOG_WORKGROUP)]).astype(np.uint32)
        words = [n, slots, groups * WORKGROUP - slots, chunk, int(final), base, out_index, *finish]
        params, level = f"{prefix}p{p}", f"{prefix}l{p}"
        buffers.append(params_buffer(params, words))
        buffers.append(Buffer(level, DataType.U32, len(levels), words=levels))
        dst = "out" if final else f"{prefix}s{p}"
        if not final:
            buffers.append(Buffer(dst, DataType.U32, groups * c.words))
        bind = {"params": params, "dst": dst, "levels": level}
        if p == 0:
            if c.table:
                bind["table"] = "table"
            steps.append(Step(chunk_program(c), (groups, 1, 1), bind))
        else:
            bind["src"] = src
            steps.append(Step(combine_program(c), (groups, 1, 1), bind))
        if final:
            return buffers, steps
        slots, unit, src, p = groups, unit * WORKGROUP, dst, p + 1


def chunk_plan(c: LinearChecksum, n: int, chunk: int = CHUNK) -> KernelPlan:
    """The passes over an input of n bytes (a function of n and `chunk` only)."""
    _check_chunk(c, chunk)
    out = Buffer("out", DataType.U32, 1, fill=c.empty)
    buffers, steps = _passes(c, n, chunk, 0, 0, "")
    return KernelPlan((out, *(_table(c) if steps else []), *buffers), tuple(steps))


def merged_plan(c: LinearChecksum, sizes: Sequence[int], chunk: int = CHUNK) -> BatchPlan:
    """Many inputs laid end to end (`batch_starts`), each with its own passes
    (the batched plan for inputs too long to walk in one invocation):
    evaluation k's checksum is out[k]."""
    _check_chunk(c, chunk)
    starts = batch_starts(DataType.BYTES, sizes)
    buffers: list[Buffer] = [Buffer("out", DataType.U32, len(sizes), fill=c.empty)]
    steps: list[Step] = []
    for k, n in enumerate(sizes):
        more, passes = _passes(c, n, chunk, starts[k], k, f"e{k}_")
        buffers += more
        steps += passes
    if steps:
        buffers += _table(c)
    return BatchPlan(KernelPlan(tuple(buffers), tuple(steps)), {"out": tuple((k, 1) for k in range(len(sizes)))})
