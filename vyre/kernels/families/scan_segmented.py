"""scan.segmented_inclusive_u32: a wrapping inclusive prefix sum that restarts at
every segment head.

`scan.segmented_inclusive_u32(x, flags)` (U32[n], U32[n] -> U32[n]): out[i] =
x[h] + x[h+1] + ... + x[i] (mod 2^32), h the last index <= i with flags[h] != 0,
or 0 when there is none (element 0 starts a segment whatever its flag).

The scan is over (value, flag) pairs with the segmented operator

    (a, fa) ⊕ (b, fb) = (fb ? b : a + b, fa | fb)

which is associative (not commutative), so a reduce-then-scan works as for
the unsegmented prefix sum (scan.py), here in three dispatches (C3):

1. `block_aggregates`: each workgroup folds its block of BLOCK = 16,384
   elements (SUBTILES = 16 tiles of TILE = 1,024) into one pair: `sums[b]`
   (the sum since the block's last head, or of the whole block) and
   `heads[b]` (whether the block holds a head).
2. `scan_aggregates`: one workgroup turns `sums` into each block's carry-in,
   the value of agg[0] ⊕ ... ⊕ agg[b-1] (exclusive; block 0 gets 0), TILE
   blocks per round with a running carry.
3. `scan_tiles`: each workgroup walks its block tile by tile with a running
   carry (the carry-in, then ⊕ each tile's aggregate) and writes the outputs.

The tile scan (`segmented_tile_scan`): the tile's values and head flags are
loaded into workgroup memory coalesced (element k*256 + l by invocation l, at
`skewed` positions: no bank conflicts); invocation l scans its ITEMS = 4
consecutive pairs serially, keeping for each element its in-thread inclusive
value and whether a head occurred in the thread up to it; the 256 thread
aggregates get a Hillis-Steele segmented scan (8 rounds); then element e of
thread l is final as `e.head_seen ? e.value : P + e.value`, where P is the
value of (carry) ⊕ (threads 0..l-1). Outputs are stored coalesced. Steps 1
and 3 skip the tiles of a block that lie wholly past n (`_block_tiles`, uniform
over the workgroup, so the barriers stay in uniform control flow). Every loop
of an invocation runs at most SUBTILES (or, for step 2, ceil(blocks / TILE))
times, far below lavapipe's per-invocation limit. Traffic: 2 reads of x and
flags + 1 write. Empty input gives empty output.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Any

import numpy as np

from vyre.ir import BufferDecl, DataType, Expr, Node, Program
from vyre.ir import Expr as E
from vyre.kernels import samplers as S
from vyre.kernels.families.common import LOG_WORKGROUP, WORKGROUP, param, params_buffer, skewed, skewed_size
from vyre.kernels.spec import Buffer, KernelLaw, KernelPlan, KernelSpec, Port, Step

__all__ = [
    "BLOCK",
    "ITEMS",
    "KERNELS",
    "SUBTILES",
    "TILE",
    "FlagsAreBooleans",
    "NoHeadsIsPrefixSum",
    "RestartsAtHeads",
    "SegmentSplit",
    "segmented_tile_scan",
]

ITEMS = 4
"""Consecutive elements each invocation scans serially."""
TILE = WORKGROUP * ITEMS
SUBTILES = 16
BLOCK = TILE * SUBTILES
LAST = WORKGROUP - 1

_WORKGROUP_BUFFERS = (
    BufferDecl.workgroup("tv", skewed_size(TILE), DataType.U32),
    BufferDecl.workgroup("tf", skewed_size(TILE), DataType.U32),
    BufferDecl.workgroup("sv", WORKGROUP, DataType.U32),
    BufferDecl.workgroup("sf", WORKGROUP, DataType.U32),
)
"""The tile's values and head flags (skewed), the thread aggregates' values and flags."""


def _combine(a: tuple[Expr, Expr], b: tuple[Expr, Expr]) -> tuple[Expr, Expr]:
    """(a, fa) ⊕ (b, fb) = (fb ? b : a + b, fa | fb), flags 0/1."""
    return E.select(E.ne(b[1], E.u32(0)), b[0], E.add(a[0], b[0])), E.bitor(a[1], b[1])


def load_tile(values: str, heads: str, first: Expr, count: Expr) -> list[Node]:
    """Invocation l stores element k*256 + l (index `at`) of the tile starting at
    `first` as tv/tf[skewed(at)]: the value from buffer `values`, 1 or 0 for a
    non-zero / zero flag of buffer `heads`. Past `count`: value 0, no head (they
    come after every real element, so no real output depends on them)."""
    local = E.local_id(0)
    body: list[Node] = []
    for k in range(ITEMS):
        at = E.add(E.u32(k * WORKGROUP), local)
        i = E.add(first, at)
        inside = E.lt(i, count)
        body.append(Node.store("tv", skewed(at), E.select(inside, E.load(values, i), E.u32(0))))
        head = E.select(E.ne(E.load(heads, i), E.u32(0)), E.u32(1), E.u32(0))
        body.append(Node.store("tf", skewed(at), E.select(inside, head, E.u32(0))))
    return body


def segmented_tile_scan(carry: Expr | None, prefix: str) -> list[Node]:
    """The segmented scan of the loaded tile (tv, tf; the barrier after the
    loads included). Leaves the tile's aggregate (without carry) in variables
    `{prefix}agg_v`, `{prefix}agg_f`. With `carry` (the value before the tile),
    tv[skewed(at)] becomes the final inclusive value of element `at`, followed
    by a barrier; without it (block aggregates) tv is left as is."""
    local = E.local_id(0)
    rv, rf = f"{prefix}rv", f"{prefix}rf"
    apply = carry is not None
    body: list[Node] = [Node.barrier(), Node.let(rv, E.u32(0)), Node.let(rf, E.u32(0))]
    for k in range(ITEMS):
        p = skewed(E.add(E.mul(local, E.u32(ITEMS)), E.u32(k)))
        v, f = f"{prefix}v{k}", f"{prefix}f{k}"
        body += [Node.let(v, E.load("tv", p)), Node.let(f, E.load("tf", p))]
        value, flag = _combine((E.var(rv), E.var(rf)), (E.var(v), E.var(f)))
        body += [Node.assign(rv, value), Node.assign(rf, flag)]
        if apply:
            body += [Node.store("tv", p, E.var(rv)), Node.store("tf", p, E.var(rf))]
    body += [Node.store("sv", local, E.var(rv)), Node.store("sf", local, E.var(rf)), Node.barrier()]
    # Hillis-Steele over the 256 thread aggregates: inclusive, in place
    for r in range(LOG_WORKGROUP):
        step = E.u32(1 << r)
        earlier = E.sub(local, step)
        has = E.ge(local, step)
        value, flag = _combine((E.load("sv", earlier), E.load("sf", earlier)), (E.load("sv", local), E.load("sf", local)))
        nv, nf = f"{prefix}hv{r}", f"{prefix}hf{r}"
        body += [
            Node.let(nv, E.select(has, value, E.load("sv", local))),
            Node.let(nf, E.select(has, flag, E.load("sf", local))),
            Node.barrier(),
            Node.store("sv", local, E.var(nv)),
            Node.store("sf", local, E.var(nf)),
            Node.barrier(),
        ]
    body += [
        Node.let(f"{prefix}agg_v", E.load("sv", E.u32(LAST))),
        Node.let(f"{prefix}agg_f", E.load("sf", E.u32(LAST))),
    ]
    if carry is None:
        return body
    # P: the value of (carry) ⊕ (threads before l); elements after an in-thread head ignore it
    before = E.sub(local, E.u32(1))
    first = E.eq(local, E.u32(0))
    pv = E.select(first, E.u32(0), E.load("sv", before))
    pf = E.select(first, E.u32(0), E.load("sf", before))
    offset = f"{prefix}offset"
    body.append(Node.let(offset, E.select(E.ne(pf, E.u32(0)), pv, E.add(carry, pv))))
    for k in range(ITEMS):
        p = skewed(E.add(E.mul(local, E.u32(ITEMS)), E.u32(k)))
        final = E.select(E.ne(E.load("tf", p), E.u32(0)), E.load("tv", p), E.add(E.var(offset), E.load("tv", p)))
        body.append(Node.store("tv", p, final))
    body.append(Node.barrier())
    return body


def _carry_update(carry: str, prefix: str) -> Node:
    agg = (E.var(f"{prefix}agg_v"), E.var(f"{prefix}agg_f"))
    return Node.assign(carry, _combine((E.var(carry), E.u32(0)), agg)[0])


def _block_tiles(n: Expr) -> Expr:
    """Tiles of this workgroup's block that hold elements: min(SUBTILES,
    ceil((n - first) / TILE)) (uniform over the workgroup, so the tile loop and
    its barriers stay in uniform control flow; short inputs skip empty tiles)."""
    remaining = E.sub(n, E.mul(E.workgroup_id(0), E.u32(BLOCK)))
    tiles = E.add(E.div(E.sub(remaining, E.u32(1)), E.u32(TILE)), E.u32(1))
    return E.select(E.lt(tiles, E.u32(SUBTILES)), tiles, E.u32(SUBTILES))


@cache
def block_aggregates_program() -> Program:
    """Step 1: (sums[b], heads[b]) = the aggregate pair of block b."""
    local = E.local_id(0)
    n = E.buf_len("x")
    tile_first = E.add(E.mul(E.workgroup_id(0), E.u32(BLOCK)), E.mul(E.var("t"), E.u32(TILE)))
    loop: list[Node] = [
        *load_tile("x", "flags", tile_first, n),
        *segmented_tile_scan(None, "_s"),
        Node.assign("block_v", _combine((E.var("block_v"), E.var("block_f")), (E.var("_sagg_v"), E.var("_sagg_f")))[0]),
        Node.assign("block_f", E.bitor(E.var("block_f"), E.var("_sagg_f"))),
    ]
    body: list[Node] = [
        Node.let("block_v", E.u32(0)),
        Node.let("block_f", E.u32(0)),
        Node.loop("t", E.u32(0), _block_tiles(n), loop),
        Node.if_(
            E.eq(local, E.u32(0)),
            [
                Node.store("sums", E.workgroup_id(0), E.var("block_v")),
                Node.store("heads", E.workgroup_id(0), E.var("block_f")),
            ],
        ),
    ]
    return Program(
        buffers=[
            BufferDecl.read("x", 0, DataType.U32),
            BufferDecl.read("flags", 1, DataType.U32),
            BufferDecl.read_write("sums", 2, DataType.U32),
            BufferDecl.read_write("heads", 3, DataType.U32),
            *_WORKGROUP_BUFFERS,
        ],
        workgroup_size=(WORKGROUP, 1, 1),
        entry=body,
        name="segmented_block_aggregates",
    )


@cache
def scan_aggregates_program() -> Program:
    """Step 2, one workgroup: sums[b] (in place) becomes the value of the pairs
    (sums, heads)[0..b-1] combined (0 for b = 0). params = [blocks, rounds]."""
    local = E.local_id(0)
    count = param(0)
    chunk = E.mul(E.var("r"), E.u32(TILE))
    stores: list[Node] = []
    for k in range(ITEMS):
        at = E.add(E.u32(k * WORKGROUP), local)
        i = E.add(chunk, at)
        # exclusive: the inclusive value of the element before (the carry for the first)
        previous = E.select(E.eq(at, E.u32(0)), E.var("carry"), E.load("tv", skewed(E.sub(at, E.u32(1)))))
        stores.append(Node.if_(E.lt(i, count), [Node.store("sums", i, previous)]))
    body: list[Node] = [
        Node.let("carry", E.u32(0)),
        Node.loop(
            "r",
            E.u32(0),
            param(1),
            [
                *load_tile("sums", "heads", chunk, count),
                *segmented_tile_scan(E.var("carry"), "_s"),
                *stores,
                _carry_update("carry", "_s"),
                Node.barrier(),
            ],
        ),
    ]
    return Program(
        buffers=[
            BufferDecl.read_write("sums", 0, DataType.U32),
            BufferDecl.read("heads", 1, DataType.U32),
            BufferDecl.uniform("params", 2, DataType.U32),
            *_WORKGROUP_BUFFERS,
        ],
        workgroup_size=(WORKGROUP, 1, 1),
        entry=body,
        name="segmented_scan_aggregates",
    )


@cache
def scan_tiles_program() -> Program:
    """Step 3: each block's outputs, tile by tile, from its carry-in `offsets[b]`."""
    local = E.local_id(0)
    n = E.buf_len("x")
    tile_first = E.add(E.mul(E.workgroup_id(0), E.u32(BLOCK)), E.mul(E.var("t"), E.u32(TILE)))
    loop: list[Node] = [
        Node.let("tile_first", tile_first),
        *load_tile("x", "flags", E.var("tile_first"), n),
        *segmented_tile_scan(E.var("carry"), "_s"),
    ]
    for k in range(ITEMS):
        at = E.add(E.u32(k * WORKGROUP), local)
        i = E.add(E.var("tile_first"), at)
        loop.append(Node.if_(E.lt(i, n), [Node.store("out", i, E.load("tv", skewed(at)))]))
    loop += [_carry_update("carry", "_s"), Node.barrier()]
    body: list[Node] = [
        Node.let("carry", E.load("offsets", E.workgroup_id(0))),
        Node.loop("t", E.u32(0), _block_tiles(n), loop),
    ]
    return Program(
        buffers=[
            BufferDecl.read("x", 0, DataType.U32),
            BufferDecl.read("flags", 1, DataType.U32),
            BufferDecl.read("offsets", 2, DataType.U32),
            BufferDecl.read_write("out", 3, DataType.U32),
            *_WORKGROUP_BUFFERS,
        ],
        workgroup_size=(WORKGROUP, 1, 1),
        entry=body,
        name="segmented_scan_tiles",
    )


def _plan(sizes: Any, scalars: Any) -> KernelPlan:
    n = int(sizes["x"])
    out = Buffer("out", DataType.U32, n)
    if n == 0:
        return KernelPlan((out,), ())
    blocks = -(-n // BLOCK)
    return KernelPlan(
        (
            out,
            Buffer("sums", DataType.U32, blocks),
            Buffer("heads", DataType.U32, blocks),
            params_buffer("params", [blocks, -(-blocks // TILE)]),
        ),
        (
            Step(block_aggregates_program(), (blocks, 1, 1)),
            Step(scan_aggregates_program(), (1, 1, 1)),
            Step(scan_tiles_program(), (blocks, 1, 1), {"offsets": "sums"}),
        ),
    )


def _check_args(args: tuple[Any, ...]) -> None:
    x, flags = args
    if len(flags) != len(x):
        raise ValueError(
            f"input `flags` of `scan.segmented_inclusive_u32` must have the length of `x`"
            f" ({len(x)}), got {len(flags)}"
        )


# ---------------------------------------------------------------------------
# Reference (numpy), laws, cases and the spec
# ---------------------------------------------------------------------------


def _reference(x: np.ndarray, flags: np.ndarray) -> tuple[np.ndarray]:
    """Segment by segment: heads at 0 and at every non-zero flag."""
    x = np.asarray(x, dtype=np.uint32)
    heads = np.flatnonzero(np.asarray(flags) != 0)
    bounds = [0, *[int(h) for h in heads if h != 0], len(x)]
    out = np.zeros(len(x), dtype=np.uint32)
    for start, stop in zip(bounds, bounds[1:]):
        out[start:stop] = np.cumsum(x[start:stop], dtype=np.uint32)
    return (out,)


Op = Callable[..., tuple[np.ndarray, ...]]


def _differ(a: np.ndarray, b: np.ndarray) -> str | None:
    if a.shape != b.shape:
        return f"{a.size} elements against {b.size}"
    bad = np.flatnonzero(a != b)
    return None if not bad.size else f"element {int(bad[0])}: {int(a[bad[0]])} against {int(b[bad[0]])}"


class NoHeadsIsPrefixSum(KernelLaw):
    """With no flag set the op is the plain inclusive prefix sum (np.cumsum),
    i.e. scan.prefix_sum_inclusive_u32."""

    name = "NoHeadsIsPrefixSum"

    def check(self, op: Op, args: tuple[Any, ...]) -> str | None:
        x = np.asarray(args[0], dtype=np.uint32)
        got = op(x, np.zeros(len(x), dtype=np.uint32))[0]
        why = _differ(np.asarray(got, dtype=np.uint32), np.cumsum(x, dtype=np.uint32))
        return None if why is None else f"op(x, no flags) differs from cumsum(x) at {why}"


class RestartsAtHeads(KernelLaw):
    """out[i] = x[i] where i = 0 or flags[i] != 0, else out[i-1] + x[i] (wrapping)."""

    name = "RestartsAtHeads"

    def check(self, op: Op, args: tuple[Any, ...]) -> str | None:
        x = np.asarray(args[0], dtype=np.uint32)
        flags = np.asarray(args[1])
        out = np.asarray(op(x, flags)[0], dtype=np.uint32)
        if out.shape != x.shape:
            return f"output has {out.size} elements for {x.size} inputs"
        if not len(x):
            return None
        expected = x.copy()
        expected[1:] = np.where(flags[1:] != 0, x[1:], out[:-1] + x[1:])
        bad = np.flatnonzero(out != expected)
        if bad.size:
            i = int(bad[0])
            rule = "x[i]" if i == 0 or flags[i] else "out[i-1] + x[i]"
            return f"out[{i}] = {int(out[i])} != {rule} = {int(expected[i])}"
        return None


class SegmentSplit(KernelLaw):
    """With a head at k: op(x, f) = op(x[:k], f[:k]) ‖ op(x[k:], f[k:]) (segments
    are independent)."""

    name = "SegmentSplit"

    def check(self, op: Op, args: tuple[Any, ...]) -> str | None:
        x = np.asarray(args[0], dtype=np.uint32)
        flags = np.asarray(args[1], dtype=np.uint32).copy()
        k = len(x) // 3 if len(x) >= 3 else len(x) // 2
        if k < len(x):
            flags[k] = 1
        whole = np.asarray(op(x, flags)[0], dtype=np.uint32)
        parts = np.concatenate([op(x[:k], flags[:k])[0], op(x[k:], flags[k:])[0]]).astype(np.uint32)
        why = _differ(whole, parts)
        return None if why is None else f"op(a‖b) differs from op(a) ‖ op(b) (head at {k}) at {why}"


class FlagsAreBooleans(KernelLaw):
    """Only whether a flag is zero matters: op(x, f) = op(x, f != 0)."""

    name = "FlagsAreBooleans"

    def check(self, op: Op, args: tuple[Any, ...]) -> str | None:
        x, flags = np.asarray(args[0], dtype=np.uint32), np.asarray(args[1], dtype=np.uint32)
        whole = np.asarray(op(x, flags)[0], dtype=np.uint32)
        ones = np.asarray(op(x, (flags != 0).astype(np.uint32))[0], dtype=np.uint32)
        why = _differ(whole, ones)
        return None if why is None else f"op(x, f) differs from op(x, f != 0) at {why}"


KERNELS = (
    KernelSpec(
        id="scan.segmented_inclusive_u32",
        version=1,
        inputs=(Port("x", DataType.U32), Port("flags", DataType.U32)),
        outputs=(Port("out", DataType.U32),),
        kind="scan-based",
        reference=_reference,
        plan=_plan,
        summary="inclusive prefix sum (wrapping) restarting at every i with flags[i] != 0",
        laws=(NoHeadsIsPrefixSum(), RestartsAtHeads(), SegmentSplit(), FlagsAreBooleans()),
        check_args=_check_args,
        sample=S.segmented,
    ),
)
