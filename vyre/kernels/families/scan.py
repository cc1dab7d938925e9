"""scan.prefix_sum_inclusive_u32 and scan.prefix_sum_exclusive_u32: wrapping
prefix sums of a U32 array.

Reduce-then-scan in two dispatches (C3: no inter-workgroup communication
inside a dispatch, so no decoupled look-back):

1. `block_sums` (with superblocks): each workgroup sums one block of
   REGISTER_BLOCK = 8,192 elements (REGISTER_SUBTILES = 4 tiles of 2,048; all
   32 loads of an invocation written out, so all in flight) into `sums[block]`
   with a two-level workgroup sum, and adds it atomically into
   `supers[block / SB]`: superblocks of SB = 64 blocks (more when there are
   over 256 x 64 blocks, so that there are at most 256 superblocks). An integer
   add in any order gives the same superblock sum (C4).
2. `scan_registers` (gathered): each workgroup holds its whole block in
   registers: invocation l loads elements 8l .. 8l + 7 of each of the 4 tiles
   as two vec4s (combined by the lowering; all 8 loads in flight), scans each 8
   serially, and ONE two-level workgroup scan (`common.workgroup_scan`, two
   barriers) scans the 256 invocation totals of the 4 tiles side by side. The
   block's offset is the sum of the superblock sums before its superblock and
   of the block sums before it in its superblock (at most one of each an
   invocation at 64 Mi elements), added up by the workgroup (two barriers); it
   stores its sums plus the offset, the totals of the tiles before and the
   earlier invocations' totals as vec4s. The exclusive form subtracts each
   input from its inclusive sum.

The step that scanned the block sums in one workgroup between the two is
gone: its 20-26 us at 64 Mi elements were a tenth of the scan. Measured on the
H200 (64 Mi elements, `bench/kernels.py`, A/B in one run each): step 3
walking a block of 8 tiles one at a time 0.70 of torch.cumsum, the block of 4
tiles in registers 0.74; step 1 unrolled and the block sums scanned 8,192 a
round 0.75 -> 0.78; the scan of block sums replaced by superblocks 0.83 ->
0.86. The tile-by-tile step 3 (`scan_tiles_program`) and the one-workgroup
scan of sums (`scan_sums_program`) stay for the sorts, codecs and compaction
that scan their counts with them. A single-pass look-back scan in one
dispatch measured 0.58 at best (bench/scan_lookback.py). Traffic of the two
kernels: 2 reads + 1 write of n words for both forms (the exclusive one
subtracts each input from its inclusive sum in registers); the runtime zeroes
`out` and `supers` before every evaluation, and `supers` must be zero when
step 1 starts (its atomic adds accumulate: steps re-run without clearing, as
the benches' timed repeats do, compute the same work on wrong sums). Empty
input gives empty output.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Any

import numpy as np

from vyre.ir import AtomicOp, BufferDecl, DataType, Expr, Node, Program
from vyre.ir import Expr as E
from vyre.kernels import laws as K
from vyre.kernels.families.common import (
    GROUPS,
    SCAN_WORDS,
    WORKGROUP,
    group_sum,
    param,
    params_buffer,
    skewed,
    skewed_size,
    tile_scan,
    workgroup_scan,
)
from vyre.kernels.spec import Buffer, KernelPlan, KernelSpec, Port, Step

__all__ = [
    "BLOCK",
    "ITEMS",
    "KERNELS",
    "REGISTER_BLOCK",
    "REGISTER_SUBTILES",
    "TILE",
    "block_sums_program",
    "group_sum",
    "register_arrays",
    "register_loads",
    "register_scans",
    "register_stores",
    "scan_registers_program",
    "scan_sums_program",
    "scan_tiles_program",
    "superblock",
]

ITEMS = 8
TILE = WORKGROUP * ITEMS
SUBTILES = 8
BLOCK = TILE * SUBTILES
REGISTER_SUBTILES = 4
"""Tiles of 2,048 the scan ops hold in registers at once (`scan_registers_program`)."""
REGISTER_BLOCK = TILE * REGISTER_SUBTILES


@cache
def block_sums_program(subtiles: int = SUBTILES, superblocks: bool = False) -> Program:
    """Step 1: `sums[block]` = the sum of block `block` (subtiles x TILE elements).
    `superblocks` (the scan ops' step 1): the subtiles' loads are written out, so
    all subtiles x ITEMS loads of an invocation are in flight at once, and each
    block sum is also added into `supers[block / SB]` (params = [SB])."""
    local = E.local_id(0)
    base = E.add(E.mul(E.workgroup_id(0), E.u32(TILE * subtiles)), local)
    # the loads read 0 past n (the lowering's guard) and 0 is the sum's
    # identity: every load is unconditional, so ITEMS loads are in flight at once
    body: list[Node] = [Node.let("acc", E.u32(0))]
    if superblocks:
        values = [
            E.load("x", E.add(base, E.u32(t * TILE + k * WORKGROUP))) for t in range(subtiles) for k in range(ITEMS)
        ]
        body += [Node.let(f"v{j}", value) for j, value in enumerate(values)]
        total: Expr = E.var("v0")
        for j in range(1, len(values)):
            total = E.add(total, E.var(f"v{j}"))
        body.append(Node.assign("acc", total))
    else:
        loop: list[Node] = [
            Node.let(f"v{k}", E.load("x", E.add(E.add(base, E.mul(E.var("t"), E.u32(TILE))), E.u32(k * WORKGROUP))))
            for k in range(ITEMS)
        ]
        total = E.var("v0")
        for k in range(1, ITEMS):
            total = E.add(total, E.var(f"v{k}"))
        loop.append(Node.assign("acc", E.add(E.var("acc"), total)))
        body.append(Node.loop("t", E.u32(0), E.u32(subtiles), loop))
    body += group_sum("sh", "groups", E.var("acc"))
    publish = [Node.store("sums", E.workgroup_id(0), E.var("_gsum"))]
    if superblocks:  # an integer add in any order: the superblock's sum is the same (C4)
        at = E.div(E.workgroup_id(0), param(0))
        publish.append(Node.let("_old", E.atomic(AtomicOp.ADD, "supers", at, E.var("_gsum"))))
    body.append(Node.if_(E.eq(local, E.u32(0)), publish))
    name = "scan_block_sums" if subtiles == SUBTILES else f"scan_block_sums_{subtiles}"
    if superblocks:
        name += "_superblocks"
    return Program(
        buffers=[
            BufferDecl.read("x", 0, DataType.U32),
            BufferDecl.read_write("sums", 1, DataType.U32),
            *(
                [BufferDecl.read_write("supers", 2, DataType.U32), BufferDecl.uniform("params", 3, DataType.U32)]
                if superblocks
                else []
            ),
            BufferDecl.workgroup("sh", WORKGROUP, DataType.U32),
            BufferDecl.workgroup("groups", GROUPS, DataType.U32),
        ],
        workgroup_size=(WORKGROUP, 1, 1),
        entry=body,
        name=name,
    )


def superblock(blocks: int) -> int:
    """Blocks a superblock: 64, or more so that there are at most 256 superblocks."""
    return max(64, -(-blocks // WORKGROUP))


@cache
def scan_sums_program() -> Program:
    """One workgroup: `sums` (in place) becomes the exclusive scan of itself;
    params = [count, rounds]."""
    local = E.local_id(0)
    count = param(0)
    chunk = E.mul(E.var("r"), E.u32(TILE))
    loads: list[Node] = []
    stores: list[Node] = []
    for k in range(ITEMS):
        at = E.add(E.u32(k * WORKGROUP), local)
        i = E.add(chunk, at)
        loads.append(Node.store("tile", skewed(at), E.select(E.lt(i, count), E.load("sums", i), E.u32(0))))
        # exclusive: inclusive - own value, plus the carry of earlier chunks
        value = E.sub(E.add(E.load("tile", skewed(at)), E.var("carry")), E.load("sums", i))
        stores.append(Node.if_(E.lt(i, count), [Node.store("sums", i, value)]))
    body: list[Node] = [
        Node.let("carry", E.u32(0)),
        Node.loop(
            "r",
            E.u32(0),
            param(1),
            [
                *loads,
                *tile_scan("tile", "totals", "groups", ITEMS),
                *stores,
                Node.assign("carry", E.add(E.var("carry"), E.var("_stotal"))),
                Node.barrier(),
            ],
        ),
    ]
    return Program(
        buffers=[
            BufferDecl.read_write("sums", 0, DataType.U32),
            BufferDecl.uniform("params", 1, DataType.U32),
            BufferDecl.workgroup("tile", skewed_size(TILE), DataType.U32),
            BufferDecl.workgroup("totals", SCAN_WORDS, DataType.U32),
            BufferDecl.workgroup("groups", GROUPS, DataType.U32),
        ],
        workgroup_size=(WORKGROUP, 1, 1),
        entry=body,
        name="scan_sums",
    )


@cache
def scan_tiles_program(exclusive: bool, subtiles: int = SUBTILES) -> Program:
    """Step 3: each workgroup walks its block of SUBTILES tiles; invocation l
    holds elements 8l .. 8l + 7 of the tile in registers (two vec4 loads: the
    lowering combines the loads at `q + k`, vyre/lowering/combine.py), scans
    them serially, the workgroup scans the 256 invocation totals
    (`common.workgroup_scan`, two barriers), and each invocation stores its 8
    sums plus the block offset, the carry of the earlier tiles and the totals
    of the earlier invocations (two vec4 stores). Loads past n read 0 and
    stores past n do nothing (the lowering's guards), so no test is needed.
    Measured on the H100 (bench/wgsl_variants.py, 64 Mi elements): 238 us
    against 485 us for the tile through workgroup memory."""
    local = E.local_id(0)
    block_base = E.mul(E.workgroup_id(0), E.u32(TILE * subtiles))
    q = E.var("q")
    loop: list[Node] = [
        Node.let("q", E.add(E.add(block_base, E.mul(E.var("t"), E.u32(TILE))), E.mul(local, E.u32(ITEMS)))),
    ]
    for k in range(ITEMS):
        loop.append(Node.let(f"v{k}", E.load("x", E.add(q, E.u32(k)) if k else q)))
    loop.append(Node.let("r0", E.var("v0")))
    for k in range(1, ITEMS):
        loop.append(Node.let(f"r{k}", E.add(E.var(f"r{k - 1}"), E.var(f"v{k}"))))
    loop += workgroup_scan([f"r{ITEMS - 1}"], ["totals"], ["groups"], "_s")
    loop.append(Node.let("add", E.add(E.var("carry"), E.var("_sex0"))))
    for k in range(ITEMS):
        value = E.add(E.var(f"r{k}"), E.var("add"))
        if exclusive:
            value = E.sub(value, E.var(f"v{k}"))
        loop.append(Node.store("out", E.add(q, E.u32(k)) if k else q, value))
    loop.append(Node.assign("carry", E.add(E.var("carry"), E.var("_stot0"))))
    body: list[Node] = [
        Node.let("carry", E.load("offsets", E.workgroup_id(0))),
        Node.loop("t", E.u32(0), E.u32(subtiles), loop),
    ]
    kind = "exclusive" if exclusive else "inclusive"
    return Program(
        buffers=[
            BufferDecl.read("x", 0, DataType.U32),
            BufferDecl.read("offsets", 1, DataType.U32),
            BufferDecl.read_write("out", 2, DataType.U32),
            BufferDecl.workgroup("totals", SCAN_WORDS, DataType.U32),
            BufferDecl.workgroup("groups", GROUPS, DataType.U32),
        ],
        workgroup_size=(WORKGROUP, 1, 1),
        entry=body,
        name=f"scan_tiles_{kind}" if subtiles == SUBTILES else f"scan_tiles_{kind}_{subtiles}",
    )


def register_loads(base: Expr, subtiles: int) -> list[Node]:
    """Invocation l's words 8l .. 8l + 7 of each of `subtiles` tiles of 2,048
    from `base`, into `v{s}_{k}` (two vec4 loads a tile once the lowering
    combines them; all in flight at once); `q{s}` is where each run starts."""
    local = E.local_id(0)
    body: list[Node] = []
    for s in range(subtiles):
        body.append(Node.let(f"q{s}", E.add(E.add(base, E.u32(s * TILE)), E.mul(local, E.u32(ITEMS)))))
        for k in range(ITEMS):
            body.append(Node.let(f"v{s}_{k}", E.load("x", E.add(E.var(f"q{s}"), E.u32(k)) if k else E.var(f"q{s}"))))
    return body


def register_scans(subtiles: int) -> list[Node]:
    """The serial scans `r{s}_{k}` of the loaded runs and ONE workgroup scan of
    the invocation totals of all `subtiles` tiles side by side (arrays
    `totals{s}`, `groups{s}`; two barriers): `_sex{s}`, `_stot{s}`."""
    body: list[Node] = []
    for s in range(subtiles):
        body.append(Node.let(f"r{s}_0", E.var(f"v{s}_0")))
        for k in range(1, ITEMS):
            body.append(Node.let(f"r{s}_{k}", E.add(E.var(f"r{s}_{k - 1}"), E.var(f"v{s}_{k}"))))
    totals = [f"r{s}_{ITEMS - 1}" for s in range(subtiles)]
    return body + workgroup_scan(
        totals, [f"totals{s}" for s in range(subtiles)], [f"groups{s}" for s in range(subtiles)], "_s"
    )


def register_stores(offset: Expr, subtiles: int, exclusive: bool) -> list[Node]:
    """`out` of the block held in registers, which starts at `offset`."""
    body: list[Node] = []
    for s in range(subtiles):
        body.append(Node.let(f"add{s}", E.add(offset, E.var(f"_sex{s}"))))
        for k in range(ITEMS):
            value = E.add(E.var(f"r{s}_{k}"), E.var(f"add{s}"))
            if exclusive:
                value = E.sub(value, E.var(f"v{s}_{k}"))
            body.append(Node.store("out", E.add(E.var(f"q{s}"), E.u32(k)) if k else E.var(f"q{s}"), value))
        offset = E.add(offset, E.var(f"_stot{s}"))
    return body


def register_arrays(subtiles: int) -> list[BufferDecl]:
    """The workgroup arrays of `register_scans`."""
    return [
        *(BufferDecl.workgroup(f"totals{s}", SCAN_WORDS, DataType.U32) for s in range(subtiles)),
        *(BufferDecl.workgroup(f"groups{s}", GROUPS, DataType.U32) for s in range(subtiles)),
    ]


@cache
def scan_registers_program(exclusive: bool, subtiles: int) -> Program:
    """Step 2 with the block in registers (`register_loads`, `register_scans`,
    `register_stores`). The block starts at the sum of the superblock sums
    before its superblock (`supers`) and of the block sums before it in its
    superblock (`sums`), added up by the workgroup (two barriers) while the
    block's loads are in flight: params = [SB, ceil(SB / 256)] (blocks a
    superblock)."""
    local = E.local_id(0)
    block = E.workgroup_id(0)
    body = register_loads(E.mul(block, E.u32(TILE * subtiles)), subtiles)
    body += [
        Node.let("sb", E.div(block, param(0))),
        Node.let("first", E.mul(E.var("sb"), param(0))),
        Node.let("before", E.select(E.lt(local, E.var("sb")), E.load("supers", local), E.u32(0))),
    ]
    j = E.add(E.add(E.var("first"), E.mul(E.var("c"), E.u32(WORKGROUP))), local)
    pick = E.select(E.lt(j, block), E.load("sums", j), E.u32(0))
    body.append(Node.loop("c", E.u32(0), param(1), [Node.assign("before", E.add(E.var("before"), pick))]))
    body += group_sum("sh", "groups", E.var("before"))
    body += register_scans(subtiles)
    body += register_stores(E.var("_gsum"), subtiles, exclusive)
    kind = "exclusive" if exclusive else "inclusive"
    return Program(
        buffers=[
            BufferDecl.read("x", 0, DataType.U32),
            BufferDecl.read("sums", 1, DataType.U32),
            BufferDecl.read_write("out", 2, DataType.U32),
            BufferDecl.read("supers", 3, DataType.U32),
            BufferDecl.uniform("params", 4, DataType.U32),
            BufferDecl.workgroup("sh", WORKGROUP, DataType.U32),
            BufferDecl.workgroup("groups", GROUPS, DataType.U32),
            *register_arrays(subtiles),
        ],
        workgroup_size=(WORKGROUP, 1, 1),
        entry=body,
        name=f"scan_registers_{kind}_{subtiles}",
    )


def _plan(exclusive: bool) -> Callable[[Any, Any], KernelPlan]:
    def plan(sizes: Any, scalars: Any) -> KernelPlan:
        n = sizes["x"]
        out = Buffer("out", DataType.U32, n)
        if n == 0:
            return KernelPlan((out,), ())
        blocks = -(-n // REGISTER_BLOCK)
        per_super = superblock(blocks)
        return KernelPlan(
            (
                out,
                Buffer("sums", DataType.U32, blocks),
                Buffer("supers", DataType.U32, -(-blocks // per_super)),
                params_buffer("params", [per_super, -(-per_super // WORKGROUP)]),
            ),
            (
                Step(block_sums_program(REGISTER_SUBTILES, superblocks=True), (blocks, 1, 1)),
                Step(scan_registers_program(exclusive, REGISTER_SUBTILES), (blocks, 1, 1)),
            ),
        )

    return plan


def _inclusive(x: np.ndarray) -> tuple[np.ndarray]:
    return (np.cumsum(x, dtype=np.uint32),)


def _exclusive(x: np.ndarray) -> tuple[np.ndarray]:
    out = np.zeros(len(x), dtype=np.uint32)
    if len(x) > 1:
        out[1:] = np.cumsum(x[:-1], dtype=np.uint32)
    return (out,)


KERNELS = (
    KernelSpec(
        id="scan.prefix_sum_inclusive_u32",
        version=1,
        inputs=(Port("x", DataType.U32),),
        outputs=(Port("out", DataType.U32),),
        kind="scan-based",
        reference=_inclusive,
        plan=_plan(False),
        summary="out[i] = x[0] + ... + x[i] (wrapping)",
        laws=(K.InclusiveScanRecurrence(), K.ScanSplit()),
    ),
    KernelSpec(
        id="scan.prefix_sum_exclusive_u32",
        version=1,
        inputs=(Port("x", DataType.U32),),
        outputs=(Port("out", DataType.U32),),
        kind="scan-based",
        reference=_exclusive,
        plan=_plan(True),
        summary="out[0] = 0, out[i] = x[0] + ... + x[i-1] (wrapping)",
        laws=(K.ExclusiveScanRecurrence(),),
    ),
)
