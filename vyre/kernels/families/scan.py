"""scan.prefix_sum_inclusive_u32 and scan.prefix_sum_exclusive_u32: wrapping
prefix sums of a U32 array.

Reduce-then-scan in three dispatches (C3: no inter-workgroup communication
inside a dispatch, so no decoupled look-back):

1. `block_sums`: each workgroup sums one block of BLOCK = 16,384 elements
   (SUBTILES = 8 tiles of 2,048: 256 invocations x 8 loads in flight, per tile)
   into `sums[block]`, with a two-level workgroup sum (three barriers).
2. `scan_sums`: one workgroup turns `sums` into exclusive block offsets, 2,048
   at a time with a running carry (32 Mi elements per round).
3. `scan_tiles`: each workgroup walks its block tile by tile: invocation l
   loads elements 8l .. 8l + 7 of the tile as two vec4s (combined by the
   lowering), scans them in registers, the 256 invocation totals are scanned
   in two levels (`common.workgroup_scan`), and it stores its 8 sums plus the
   block offset, the carry of the tiles before and the earlier invocations'
   totals as two vec4s. The exclusive form subtracts each input from its
   inclusive sum.

Blocks of several tiles keep the number of block sums (and the serial work of
step 2) small: 4,096 sums at 64 Mi elements. Measured on the H100 (64 Mi
elements, `bench/kernels.py --profile`) the tile scan's log-step totals scan
was the bottleneck (16 barriers per tile); the two-level form cut step 3 from
683 to 400 us. Traffic: 2 reads + 1 write of n words (+ one more read for the
exclusive form). Empty input gives empty output.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Any

import numpy as np

from vyre.ir import BufferDecl, DataType, Expr, Node, Program
from vyre.ir import Expr as E
from vyre.kernels import laws as K
from vyre.kernels.families.common import (
    GROUPS,
    SCAN_WORDS,
    WORKGROUP,
    param,
    params_buffer,
    skewed,
    skewed_size,
    tile_scan,
    workgroup_scan,
)
from vyre.kernels.spec import Buffer, KernelPlan, KernelSpec, Port, Step

__all__ = ["BLOCK", "ITEMS", "KERNELS", "TILE", "group_sum"]

ITEMS = 8
TILE = WORKGROUP * ITEMS
SUBTILES = 8
BLOCK = TILE * SUBTILES


def group_sum(array: str, groups: str, value: Expr) -> list[Node]:
    """The sum over the workgroup of each invocation's `value` into variable
    `_gsum` of invocation 0 (two levels: 16 invocations sum 16 values each,
    then invocation 0 sums the 16; `array` has WORKGROUP words, `groups` GROUPS)."""
    local = E.local_id(0)
    body: list[Node] = [Node.store(array, local, value), Node.barrier()]
    part: list[Node] = [Node.let("_part", E.u32(0))]
    for j in range(WORKGROUP // GROUPS):
        # invocation g reads array[g + 16 j]: 16 consecutive words per step, no bank conflicts
        part.append(Node.assign("_part", E.add(E.var("_part"), E.load(array, E.add(local, E.u32(j * GROUPS))))))
    part.append(Node.store(groups, local, E.var("_part")))
    body.append(Node.if_(E.lt(local, E.u32(GROUPS)), part))
    body.append(Node.barrier())
    total: Expr = E.load(groups, E.u32(0))
    for g in range(1, GROUPS):
        total = E.add(total, E.load(groups, E.u32(g)))
    body.append(Node.let("_gsum", total))
    return body


@cache
def block_sums_program(subtiles: int = SUBTILES) -> Program:
    """Step 1: `sums[block]` = the sum of block `block` (subtiles x TILE elements)."""
    local = E.local_id(0)
    base = E.add(E.mul(E.workgroup_id(0), E.u32(TILE * subtiles)), local)
    # the loads read 0 past n (the lowering's guard) and 0 is the sum's
    # identity: every load is unconditional, so ITEMS loads are in flight at once
    body: list[Node] = [Node.let("acc", E.u32(0))]
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
    body.append(Node.if_(E.eq(local, E.u32(0)), [Node.store("sums", E.workgroup_id(0), E.var("_gsum"))]))
    return Program(
        buffers=[
            BufferDecl.read("x", 0, DataType.U32),
            BufferDecl.read_write("sums", 1, DataType.U32),
            BufferDecl.workgroup("sh", WORKGROUP, DataType.U32),
            BufferDecl.workgroup("groups", GROUPS, DataType.U32),
        ],
        workgroup_size=(WORKGROUP, 1, 1),
        entry=body,
        name="scan_block_sums" if subtiles == SUBTILES else f"scan_block_sums_{subtiles}",
    )


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


def _plan(exclusive: bool) -> Callable[[Any, Any], KernelPlan]:
    def plan(sizes: Any, scalars: Any) -> KernelPlan:
        n = sizes["x"]
        out = Buffer("out", DataType.U32, n)
        if n == 0:
            return KernelPlan((out,), ())
        blocks = -(-n // BLOCK)
        return KernelPlan(
            (
                out,
                Buffer("sums", DataType.U32, blocks),
                params_buffer("params", [blocks, -(-blocks // TILE)]),
            ),
            (
                Step(block_sums_program(), (blocks, 1, 1)),
                Step(scan_sums_program(), (1, 1, 1)),
                Step(scan_tiles_program(exclusive), (blocks, 1, 1), {"offsets": "sums"}),
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
