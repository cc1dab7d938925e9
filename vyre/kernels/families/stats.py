"""stats.byte_histogram and stats.histogram_u32: counts per value.

`stats.byte_histogram(b)` (Bytes -> U32[256]) counts every byte value,
`np.bincount(b, minlength=256)`. `stats.histogram_u32(v, nbins)` (U32[n], U32 ->
U32[nbins]) counts the values below `nbins` and drops the others,
`np.bincount(v[v < nbins], minlength=nbins)`; `nbins` must be in
[1, MAX_BINS] (ValueError naming `nbins` otherwise).

Workgroup-privatised histograms, one dispatch (`private_histogram_program`):
every workgroup keeps its bins in workgroup memory (`array<atomic<u32>, N>`,
docs/kernels.md "Workgroup atomics"), `copies` sub-histograms of `capacity`
bins each, invocation l counting into copy `l % copies` (fewer invocations
contend for one counter when every value is equal). The workgroups walk the
input grid-stride (`common.grid`: at most MAX_GROUPS workgroups, each
invocation a few strided words per round); a byte histogram unpacks the four
bytes of each word (little-endian, C1) and masks the padding bytes of the last
word by the byte count (padding is unspecified, C1). After a barrier, invocation
l sums the copies of bins l, l + 256, ... and adds each non-zero total to the
global output with one `atomicAdd`. Integer adds are commutative and
associative, so the result does not depend on the schedule (C4).

`capacity` is the smallest of 256, 512, ..., MAX_PRIVATE_BINS = 4,096 that holds
`nbins`, and `copies` = min(4, 4096 / capacity), so a workgroup never uses more
than 16 KiB of workgroup memory (WebGPU's default limit). Beyond 4,096 bins
privatisation does not fit: `global_histogram_program` adds 1 to `out[v]` with
a global atomic for every value below nbins (one dispatch, grid-stride).

Empty input (or nbins = 0, which only the admission gates build a plan for)
runs no dispatch: the output is the zeroed buffer.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Any

import numpy as np

from vyre.ir import AtomicOp, BufferDecl, DataType, Expr, Node, Program
from vyre.ir import Expr as E
from vyre.kernels import laws as K
from vyre.kernels import samplers as S
from vyre.kernels.families.common import WORKGROUP, grid, param, params_buffer
from vyre.kernels.spec import Buffer, KernelLaw, KernelPlan, KernelSpec, Port, Step

__all__ = [
    "KERNELS",
    "MAX_BINS",
    "MAX_COPIES",
    "MAX_PRIVATE_BINS",
    "BinTruncation",
    "HistogramTotal",
    "chunked_histogram_program",
    "global_histogram_program",
    "private_histogram_program",
    "private_shape",
]

MAX_PRIVATE_BINS = 4096
"""The most bins a workgroup privatises (4,096 words = 16 KiB of workgroup memory)."""
MAX_COPIES = 4
"""Sub-histograms per workgroup (invocation l counts into copy l % copies)."""
MAX_BINS = 1 << 24
"""The largest `nbins` of stats.histogram_u32 (a 64 MiB output)."""
BYTE_BINS = 256


def private_shape(nbins: int) -> tuple[int, int]:
    """(capacity, copies) of the privatised histogram for `nbins` <= MAX_PRIVATE_BINS."""
    capacity = WORKGROUP
    while capacity < nbins:
        capacity *= 2
    return capacity, max(1, min(MAX_COPIES, MAX_PRIVATE_BINS // capacity))


def _count(index: Expr, name: str = "_old") -> Node:
    """`bins[index] += 1` with a workgroup atomic (its old value, in local
    `name`, is unused)."""
    return Node.let(name, E.atomic(AtomicOp.ADD, "bins", index, E.u32(1)))


@cache
def private_histogram_program(capacity: int, copies: int, packed_bytes: bool) -> Program:
    """One grid-stride pass counting into workgroup bins, then one global atomic
    per non-zero bin. `packed_bytes`: `x` holds bytes four per word and params[0]
    is the byte count; else `x` holds values and params[0] is their count.
    params = [n, stride (words), rounds, nbins]."""
    local = E.local_id(0)
    n, stride, rounds, nbins = param(0), param(1), param(2), param(3)
    w = E.var("w")
    copy_base = E.mul(E.mod(local, E.u32(copies)), E.u32(capacity))
    if packed_bytes:
        # words before the last hold four bytes; the last one's padding is masked
        # (w < ceil(n / 4) keeps 4w + 3 below 2^32)
        per_byte: list[Node] = [Node.let("word", E.load("x", w)), Node.let("at", E.mul(w, E.u32(4)))]
        for j in range(4):
            byte = E.bitand(E.shr(E.var("word"), E.u32(8 * j)), E.u32(0xFF))
            per_byte.append(
                Node.if_(E.lt(E.add(E.var("at"), E.u32(j)), n), [_count(E.add(E.var("base_bin"), byte))])
            )
        words = E.shr(E.add(n, E.u32(3)), E.u32(2))
        visit: list[Node] = [Node.if_(E.lt(w, words), per_byte)]
    else:
        value = E.var("value")
        visit = [
            Node.if_(
                E.lt(w, n),
                [
                    Node.let("value", E.load("x", w)),
                    Node.if_(E.lt(value, nbins), [_count(E.add(E.var("base_bin"), value))]),
                ],
            )
        ]
    bin_index = E.add(E.mul(E.var("r"), E.u32(WORKGROUP)), local)
    total: Expr = E.load("bins", E.var("b"))
    for c in range(1, copies):
        total = E.add(total, E.load("bins", E.add(E.var("b"), E.u32(c * capacity))))
    flush: list[Node] = [
        Node.let("b", bin_index),
        Node.if_(
            E.lt(E.var("b"), nbins),
            [
                Node.let("total", total),
                Node.if_(
                    E.ne(E.var("total"), E.u32(0)),
                    [Node.let("_prev", E.atomic(AtomicOp.ADD, "out", E.var("b"), E.var("total")))],
                ),
            ],
        ),
    ]
    body: list[Node] = [
        Node.let("base_bin", copy_base),
        Node.let("first", E.add(E.mul(E.workgroup_id(0), E.u32(WORKGROUP)), local)),
        Node.loop(
            "k",
            E.u32(0),
            rounds,
            [Node.let("w", E.add(E.var("first"), E.mul(E.var("k"), stride))), *visit],
        ),
        Node.barrier(),
        Node.loop("r", E.u32(0), E.u32(capacity // WORKGROUP), flush),
    ]
    kind = "bytes" if packed_bytes else "u32"
    return Program(
        buffers=[
            BufferDecl.read("x", 0, DataType.U32),
            BufferDecl.read_write("out", 1, DataType.U32),
            BufferDecl.uniform("params", 2, DataType.U32),
            BufferDecl.workgroup("bins", copies * capacity, DataType.U32),
        ],
        workgroup_size=(WORKGROUP, 1, 1),
        entry=body,
        name=f"histogram_{kind}_private_{capacity}x{copies}",
    )


CHUNK_UNROLL = 2
"""Chunks (vec4 loads) in flight per invocation and round of `chunked_histogram_program`."""


@cache
def chunked_histogram_program(capacity: int, copies: int, packed_bytes: bool) -> Program:
    """The privatised histogram over whole *chunks* of 4 words, the form stats'
    own plans run: each round an invocation loads CHUNK_UNROLL chunks (vec4
    loads: the lowering combines the loads at `q + j`, combine.py) and counts
    every element of them without a bounds test (a chunk is counted only when
    all of its elements exist); the elements past the last whole chunk (fewer
    than 16 bytes, or 4 values) are counted by the first invocations of
    workgroup 0, each behind its test. Then, as `private_histogram_program`,
    one global atomic per non-zero bin. params = [n, stride (chunks), rounds,
    nbins, whole chunks]. On the H100 (bench/wgsl_variants.py, 256 Mi bytes)
    vec4 loads and no per-byte tests took the byte histogram from 1,422 (the
    per-word shape, hand-written) to 1,632-1,698 GB/s: bound by workgroup
    atomics (one per byte)."""
    local = E.local_id(0)
    n, stride, rounds, nbins, whole = param(0), param(1), param(2), param(3), param(4)
    per_chunk = 16 if packed_bytes else 4
    loads: list[Node] = []
    counts: list[Node] = []
    for u in range(CHUNK_UNROLL):
        c = E.var(f"c{u}")
        loads.append(Node.let(f"c{u}", E.add(E.var("first"), E.mul(E.add(E.mul(E.var("k"), E.u32(CHUNK_UNROLL)), E.u32(u)), stride))))
        loads.append(Node.let(f"q{u}", E.mul(c, E.u32(4))))
        for j in range(4):
            at = E.add(E.var(f"q{u}"), E.u32(j)) if j else E.var(f"q{u}")
            loads.append(Node.let(f"w{u}_{j}", E.load("x", at)))
        chunk: list[Node] = []
        for j in range(4):
            word = E.var(f"w{u}_{j}")
            if packed_bytes:
                for b in range(4):
                    byte = E.bitand(E.shr(word, E.u32(8 * b)), E.u32(0xFF)) if b < 3 else E.shr(word, E.u32(24))
                    chunk.append(_count(E.add(E.var("base_bin"), byte), f"_o{u}_{j}_{b}"))
            else:
                chunk.append(Node.if_(E.lt(word, nbins), [_count(E.add(E.var("base_bin"), word), f"_o{u}_{j}")]))
        counts.append(Node.if_(E.lt(c, whole), chunk))
    # the elements past the last whole chunk: invocation l < per_chunk of workgroup 0 takes element whole * per_chunk + l
    e = E.var("e")
    if packed_bytes:
        tail_value: Expr = E.bitand(E.shr(E.load("x", E.shr(e, E.u32(2))), E.mul(E.bitand(e, E.u32(3)), E.u32(8))), E.u32(0xFF))
        tail_count: list[Node] = [_count(E.add(E.var("base_bin"), tail_value))]
    else:
        tail_count = [
            Node.let("tv", E.load("x", e)),
            Node.if_(E.lt(E.var("tv"), nbins), [_count(E.add(E.var("base_bin"), E.var("tv")))]),
        ]
    tail = Node.if_(
        E.and_(E.eq(E.workgroup_id(0), E.u32(0)), E.lt(local, E.u32(per_chunk))),
        [
            Node.let("e", E.add(E.mul(whole, E.u32(per_chunk)), local)),
            Node.if_(E.lt(e, n), tail_count),
        ],
    )
    body: list[Node] = [
        Node.let("base_bin", E.mul(E.mod(local, E.u32(copies)), E.u32(capacity))),
        Node.let("first", E.add(E.mul(E.workgroup_id(0), E.u32(WORKGROUP)), local)),
        Node.loop("k", E.u32(0), rounds, [*loads, *counts]),
        tail,
        Node.barrier(),
        Node.loop("r", E.u32(0), E.u32(capacity // WORKGROUP), _flush(capacity, copies, nbins)),
    ]
    kind = "bytes" if packed_bytes else "u32"
    return Program(
        buffers=[
            BufferDecl.read("x", 0, DataType.U32),
            BufferDecl.read_write("out", 1, DataType.U32),
            BufferDecl.uniform("params", 2, DataType.U32),
            BufferDecl.workgroup("bins", copies * capacity, DataType.U32),
        ],
        workgroup_size=(WORKGROUP, 1, 1),
        entry=body,
        name=f"histogram_{kind}_chunks_{capacity}x{copies}",
    )


def _flush(capacity: int, copies: int, nbins: Expr) -> list[Node]:
    """Invocation l adds the copies of bin r * WORKGROUP + l and merges a non-zero
    total into the global output with one atomic."""
    local = E.local_id(0)
    total: Expr = E.load("bins", E.var("b"))
    for c in range(1, copies):
        total = E.add(total, E.load("bins", E.add(E.var("b"), E.u32(c * capacity))))
    return [
        Node.let("b", E.add(E.mul(E.var("r"), E.u32(WORKGROUP)), local)),
        Node.if_(
            E.lt(E.var("b"), nbins),
            [
                Node.let("total", total),
                Node.if_(
                    E.ne(E.var("total"), E.u32(0)),
                    [Node.let("_prev", E.atomic(AtomicOp.ADD, "out", E.var("b"), E.var("total")))],
                ),
            ],
        ),
    ]


@cache
def global_histogram_program() -> Program:
    """`out[v] += 1` with a global atomic for every value v < nbins (bins beyond
    what a workgroup privatises). params = [n, stride, rounds, nbins]."""
    n, stride, rounds, nbins = param(0), param(1), param(2), param(3)
    w = E.var("w")
    body: list[Node] = [
        Node.let("first", E.add(E.mul(E.workgroup_id(0), E.u32(WORKGROUP)), E.local_id(0))),
        Node.loop(
            "k",
            E.u32(0),
            rounds,
            [
                Node.let("w", E.add(E.var("first"), E.mul(E.var("k"), stride))),
                Node.if_(
                    E.lt(w, n),
                    [
                        Node.let("value", E.load("x", w)),
                        Node.if_(
                            E.lt(E.var("value"), nbins),
                            [Node.let("_old", E.atomic(AtomicOp.ADD, "out", E.var("value"), E.u32(1)))],
                        ),
                    ],
                ),
            ],
        ),
    ]
    return Program(
        buffers=[
            BufferDecl.read("x", 0, DataType.U32),
            BufferDecl.read_write("out", 1, DataType.U32),
            BufferDecl.uniform("params", 2, DataType.U32),
        ],
        workgroup_size=(WORKGROUP, 1, 1),
        entry=body,
        name="histogram_u32_global",
    )


def _histogram_plan(source: str, n: int, words: int, nbins: int, packed_bytes: bool) -> KernelPlan:
    """The plan over input `source`: `words` words holding `n` elements (bytes or values)."""
    out = Buffer("out", DataType.U32, nbins)
    if n == 0 or nbins == 0:
        return KernelPlan((out,), ())
    if nbins <= MAX_PRIVATE_BINS:
        capacity, copies = private_shape(nbins)
        whole = n // (16 if packed_bytes else 4)
        g = grid(max(1, whole))
        rounds = -(-whole // (g.stride * CHUNK_UNROLL))
        params = params_buffer("params", [n, g.stride, rounds, nbins, whole])
        program = chunked_histogram_program(capacity, copies, packed_bytes)
    else:
        g = grid(words)
        params = params_buffer("params", [n, g.stride, g.iterations, nbins])
        program = global_histogram_program()
    return KernelPlan((out, params), (Step(program, g.dispatch, {"x": source}),))


def _byte_plan(sizes: Any, scalars: Any) -> KernelPlan:
    n = int(sizes["data"])
    return _histogram_plan("data", n, -(-n // 4), BYTE_BINS, True)


def _check_nbins(nbins: int) -> None:
    if not 1 <= nbins <= MAX_BINS:
        raise ValueError(
            f"input `nbins` of `stats.histogram_u32` must be in [1, {MAX_BINS}], got {nbins}"
        )


def _u32_plan(sizes: Any, scalars: Any) -> KernelPlan:
    n, nbins = int(sizes["values"]), int(scalars["nbins"])
    if nbins > MAX_BINS:
        _check_nbins(nbins)
    return _histogram_plan("values", n, n, nbins, False)


def _check_u32_args(args: tuple[Any, ...]) -> None:
    _check_nbins(int(args[1]))


# ---------------------------------------------------------------------------
# References (numpy), laws and the specs
# ---------------------------------------------------------------------------


def _byte_histogram(data: np.ndarray) -> tuple[np.ndarray]:
    return (np.bincount(np.asarray(data, dtype=np.uint8), minlength=BYTE_BINS).astype(np.uint32),)


def _histogram_u32(values: np.ndarray, nbins: int) -> tuple[np.ndarray]:
    if nbins > MAX_BINS:
        _check_nbins(nbins)
    v = np.asarray(values, dtype=np.uint32)
    kept = v[v < nbins].astype(np.int64)
    return (np.bincount(kept, minlength=nbins).astype(np.uint32),)


def _add(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return (a.astype(np.uint64) + b.astype(np.uint64)).astype(np.uint32)


class HistogramTotal(KernelLaw):
    """Σ bins = the number of counted inputs: every byte (byte_histogram), the
    values below nbins (histogram_u32); and there are as many bins as declared."""

    name = "HistogramTotal"

    def check(self, op: Callable[..., tuple[np.ndarray, ...]], args: tuple[Any, ...]) -> str | None:
        x = np.asarray(args[0])
        hist = op(*args)[0]
        bins = BYTE_BINS if len(args) == 1 else int(args[1])
        counted = len(x) if len(args) == 1 else int(np.count_nonzero(x.astype(np.uint64) < bins))
        if hist.shape != (bins,):
            return f"{hist.size} bins, expected {bins}"
        total = int(hist.astype(np.uint64).sum())
        if total != counted:
            return f"Σ bins = {total}, but {counted} of the {len(x)} inputs are counted"
        return None


class BinTruncation(KernelLaw):
    """hist(v, m) = hist(v, nbins)[:m] for m = ceil(nbins / 2): a bin's count
    does not depend on how many bins follow it."""

    name = "BinTruncation"

    def check(self, op: Callable[..., tuple[np.ndarray, ...]], args: tuple[Any, ...]) -> str | None:
        values, nbins = args[0], int(args[1])
        m = -(-nbins // 2)
        whole = op(values, nbins)[0]
        fewer = op(values, m)[0]
        if fewer.tobytes() != whole[:m].tobytes():
            bad = int(np.flatnonzero(fewer != whole[:m])[0]) if fewer.shape == whole[:m].shape else -1
            return f"hist(v, {m}) differs from hist(v, {nbins})[:{m}] at bin {bad}"
        return None


KERNELS = (
    KernelSpec(
        id="stats.byte_histogram",
        version=1,
        inputs=(Port("data", DataType.BYTES),),
        outputs=(Port("out", DataType.U32),),
        kind="reduce",
        reference=_byte_histogram,
        plan=_byte_plan,
        summary="count of each byte value, U32[256] (np.bincount(b, minlength=256))",
        laws=(HistogramTotal(), K.SplitCombine(_add), K.PermutationInvariant()),
    ),
    KernelSpec(
        id="stats.histogram_u32",
        version=1,
        inputs=(Port("values", DataType.U32), Port("nbins", DataType.U32, scalar=True)),
        outputs=(Port("out", DataType.U32),),
        kind="reduce",
        reference=_histogram_u32,
        plan=_u32_plan,
        summary=f"count of each value below nbins, U32[nbins]; others dropped (1 <= nbins <= {MAX_BINS})",
        laws=(HistogramTotal(), K.SplitCombine(_add), K.PermutationInvariant(), BinTruncation()),
        check_args=_check_u32_args,
        sample=S.histogram_u32,
    ),
)
