"""scan.prefix_sum_inclusive_u32 and scan.prefix_sum_exclusive_u32: wrapping
prefix sums of a U32 array (python-api.md; oplib.md §6).

Reduce-then-scan in three dispatches (C3: no inter-workgroup communication
inside a dispatch, so no decoupled look-back):

1. `block_sums`: each workgroup sums one tile of 2048 elements (256
   invocations x 8) into `sums[tile]`.
2. `scan_sums`: one workgroup turns `sums` into exclusive tile offsets, 2048 at
   a time with a running carry (16 Mi elements per 2048 sums: a few rounds).
3. `scan_tiles`: each workgroup loads its tile into workgroup memory
   (coalesced), scans it (`common.tile_scan`: 8 per invocation serially, then
   the 256 invocation totals), adds its tile offset and stores the tile
   (coalesced). The exclusive form subtracts each input from its inclusive sum.

Traffic: 3 reads + 1 write of n words (oplib.md: about parity with torch.cumsum
on the H100 at 2^28). Empty input gives empty output.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Any

import numpy as np

from vyre.ir import BufferDecl, DataType, Node, Program
from vyre.ir import Expr as E
from vyre.ops import kernel_laws as K
from vyre.ops.kernel import Buffer, KernelPlan, KernelSpec, Port, Step
from vyre.ops.kernels.common import WORKGROUP, param, params_buffer, tile_scan, tree_reduce

__all__ = ["ITEMS", "KERNELS", "TILE"]

ITEMS = 8
TILE = WORKGROUP * ITEMS


@cache
def block_sums_program() -> Program:
    local = E.local_id(0)
    n = E.buf_len("x")
    base = E.add(E.mul(E.workgroup_id(0), E.u32(TILE)), local)
    body: list[Node] = [Node.let("acc", E.u32(0))]
    for k in range(ITEMS):
        i = E.add(base, E.u32(k * WORKGROUP))
        body.append(Node.if_(E.lt(i, n), [Node.assign("acc", E.add(E.var("acc"), E.load("x", i)))]))
    body.append(Node.store("sh", local, E.var("acc")))
    body += tree_reduce(["sh"], lambda a, b: [E.add(a[0], b[0])])
    body.append(
        Node.if_(E.eq(local, E.u32(0)), [Node.store("sums", E.workgroup_id(0), E.load("sh", E.u32(0)))])
    )
    return Program(
        buffers=[
            BufferDecl.read("x", 0, DataType.U32),
            BufferDecl.read_write("sums", 1, DataType.U32),
            BufferDecl.workgroup("sh", WORKGROUP, DataType.U32),
        ],
        workgroup_size=(WORKGROUP, 1, 1),
        entry=body,
        name="scan_block_sums",
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
        loads.append(Node.store("tile", at, E.select(E.lt(i, count), E.load("sums", i), E.u32(0))))
        # exclusive: inclusive - own value, plus the carry of earlier chunks
        value = E.sub(E.add(E.load("tile", at), E.var("carry")), E.load("sums", i))
        stores.append(Node.if_(E.lt(i, count), [Node.store("sums", i, value)]))
    body: list[Node] = [
        Node.let("carry", E.u32(0)),
        Node.loop(
            "r",
            E.u32(0),
            param(1),
            [
                *loads,
                *tile_scan("tile", "totals", ITEMS),
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
            BufferDecl.workgroup("tile", TILE, DataType.U32),
            BufferDecl.workgroup("totals", WORKGROUP, DataType.U32),
        ],
        workgroup_size=(WORKGROUP, 1, 1),
        entry=body,
        name="scan_sums",
    )


@cache
def scan_tiles_program(exclusive: bool) -> Program:
    local = E.local_id(0)
    n = E.buf_len("x")
    tile_base = E.mul(E.workgroup_id(0), E.u32(TILE))
    body: list[Node] = []
    for k in range(ITEMS):
        at = E.add(E.u32(k * WORKGROUP), local)
        i = E.add(tile_base, at)
        body.append(Node.store("tile", at, E.select(E.lt(i, n), E.load("x", i), E.u32(0))))
    body += tile_scan("tile", "totals", ITEMS)
    body.append(Node.let("offset", E.load("offsets", E.workgroup_id(0))))
    for k in range(ITEMS):
        at = E.add(E.u32(k * WORKGROUP), local)
        i = E.add(tile_base, at)
        value = E.add(E.load("tile", at), E.var("offset"))
        if exclusive:
            value = E.sub(value, E.load("x", i))
        body.append(Node.if_(E.lt(i, n), [Node.store("out", i, value)]))
    return Program(
        buffers=[
            BufferDecl.read("x", 0, DataType.U32),
            BufferDecl.read("offsets", 1, DataType.U32),
            BufferDecl.read_write("out", 2, DataType.U32),
            BufferDecl.workgroup("tile", TILE, DataType.U32),
            BufferDecl.workgroup("totals", WORKGROUP, DataType.U32),
        ],
        workgroup_size=(WORKGROUP, 1, 1),
        entry=body,
        name=f"scan_tiles_{'exclusive' if exclusive else 'inclusive'}",
    )


def _plan(exclusive: bool) -> Callable[[Any, Any], KernelPlan]:
    def plan(sizes: Any, scalars: Any) -> KernelPlan:
        n = sizes["x"]
        out = Buffer("out", DataType.U32, n)
        if n == 0:
            return KernelPlan((out,), ())
        tiles = -(-n // TILE)
        return KernelPlan(
            (
                out,
                Buffer("sums", DataType.U32, tiles),
                params_buffer("params", [tiles, -(-tiles // TILE)]),
            ),
            (
                Step(block_sums_program(), (tiles, 1, 1)),
                Step(scan_sums_program(), (1, 1, 1)),
                Step(scan_tiles_program(exclusive), (tiles, 1, 1), {"offsets": "sums"}),
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
