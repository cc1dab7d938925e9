"""reductions.f32_sum_strict and reductions.f32_sum_tree: an F32 array to one
F32, bit-exact on every backend (docs/floats.md; the sums of docs/tensors.md).

Both add with `vyre.fadd`, so on the GPU the float-strict pass turns every
addition into integer soft-float (no float unit decides a bit) and on the
interpreter the exact oracle adds; the order of the additions is the op's
definition:

- `f32_sum_strict`: left to right, `((a0 + a1) + a2) + ...`. Each addition needs
  the one before, so one invocation does them all (no order-preserving
  parallel form exists: float addition is not associative). One dispatch adds
  CHUNK elements and leaves the running sum and the next index on the device;
  the plan repeats it (lavapipe silently stops an invocation after about
  65,5xx loop iterations in total, so one invocation cannot take them all).
- `f32_sum_tree`: the canonical tree: for n >= 2 split at mid = the largest
  power of two below n, `tree(a[:mid]) + tree(a[mid:])`. Every subtree starts at
  a multiple of its (power of two) size, so the tree is the aligned-pairs tree:
  level r adds the partial sums of positions 2k and 2k+1, and a last unpaired
  partial passes up unchanged. A pass reduces each aligned tile of 1024
  elements to one partial (4 per invocation in registers, then the workgroup's
  aligned-pairs tree); passes repeat over the partials until one is left, which
  is the same tree because tiles are aligned powers of two.

n == 1 gives a0 unchanged (its bits, NaN payload included); n == 0 gives +0.0;
any other NaN result is the canonical quiet NaN, like every float op.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import numpy as np

from vyre.ir import BufferDecl, DataType, Expr, Node, Program
from vyre.ir import Expr as E
from vyre.kernels import laws as K
from vyre.kernels.families.common import WORKGROUP, tree_reduce
from vyre.kernels.spec import Buffer, KernelPlan, KernelSpec, Port, Step

__all__ = ["KERNELS", "TREE_ITEMS", "TREE_TILE"]

TREE_ITEMS = 4
TREE_TILE = WORKGROUP * TREE_ITEMS
CHUNK = 16_384
"""Additions per dispatch of the strict sum: far below lavapipe's cap on the
loop iterations of one invocation (about 65,5xx in total, measured)."""
CANONICAL_NAN = 0x7FC0_0000


# ---------------------------------------------------------------------------
# The canonical tree
# ---------------------------------------------------------------------------


@cache
def tree_pass_program() -> Program:
    """`dst[w]` = the canonical tree of `src[w*1024 : (w+1)*1024]` (clipped to
    buf_len(src)); one workgroup per tile."""
    n = E.buf_len("src")
    local = E.local_id(0)
    first = E.add(E.mul(E.workgroup_id(0), E.u32(TREE_TILE)), E.mul(local, E.u32(TREE_ITEMS)))

    def at(k: int) -> Expr:
        return E.add(E.var("e"), E.u32(k))

    body: list[Node] = [Node.let("e", first)]
    body += [Node.let(f"a{k}", E.load("src", at(k))) for k in range(TREE_ITEMS)]
    # the aligned-pairs tree over the invocation's four leaves (left leaf valid
    # whenever the right one is: leaves are in order)
    body += [
        Node.let("p0", E.select(E.lt(at(1), n), E.fadd(E.var("a0"), E.var("a1")), E.var("a0"))),
        Node.let("p1", E.select(E.lt(at(3), n), E.fadd(E.var("a2"), E.var("a3")), E.var("a2"))),
        Node.let("q", E.select(E.lt(at(2), n), E.fadd(E.var("p0"), E.var("p1")), E.var("p0"))),
        Node.store("sh", local, E.var("q")),
    ]
    tile = E.mul(E.workgroup_id(0), E.u32(TREE_TILE))
    body += tree_reduce(
        ["sh"],
        lambda a, b: [E.fadd(a[0], b[0])],
        ordered=True,
        valid=lambda position: E.lt(E.add(tile, E.mul(position, E.u32(TREE_ITEMS))), n),
    )
    body.append(
        Node.if_(
            E.eq(local, E.u32(0)),
            [Node.store("dst", E.workgroup_id(0), E.load("sh", E.u32(0)))],
        )
    )
    return Program(
        buffers=[
            BufferDecl.read("src", 0, DataType.F32),
            BufferDecl.read_write("dst", 1, DataType.F32),
            BufferDecl.workgroup("sh", WORKGROUP, DataType.F32),
        ],
        workgroup_size=(WORKGROUP, 1, 1),
        entry=body,
        name="f32_sum_tree_pass",
    )


def _tree_plan(sizes: Any, scalars: Any) -> KernelPlan:
    n = sizes["x"]
    if n == 0:
        return KernelPlan((Buffer("out", DataType.F32, 1),), ())
    buffers: list[Buffer] = []
    steps: list[Step] = []
    source, count = "x", n
    level = 0
    while True:
        tiles = -(-count // TREE_TILE)
        target = "out" if tiles == 1 else f"t{level}"
        buffers.append(Buffer(target, DataType.F32, tiles))
        steps.append(Step(tree_pass_program(), (tiles, 1, 1), {"src": source, "dst": target}))
        if tiles == 1:
            break
        source, count, level = target, tiles, level + 1
    return KernelPlan(tuple(buffers), tuple(steps))


# ---------------------------------------------------------------------------
# Left to right
# ---------------------------------------------------------------------------


@cache
def strict_program() -> Program:
    """One invocation adds the next CHUNK elements: `next[0]` holds the index of
    the next element (0 before the first step, which starts from x[0]) and
    `out[0]` the running sum; the plan dispatches it until every element is in."""
    n = E.buf_len("x")
    body: list[Node] = [
        Node.let("s", E.load("next", E.u32(0))),
        Node.let("acc", E.select(E.eq(E.var("s"), E.u32(0)), E.load("x", E.u32(0)), E.load("out", E.u32(0)))),
        Node.let("start", E.select(E.eq(E.var("s"), E.u32(0)), E.u32(1), E.var("s"))),
        Node.let("end", E.add(E.var("start"), E.u32(CHUNK))),
        Node.if_(E.gt(E.var("end"), n), [Node.assign("end", n)]),
        Node.loop("i", E.var("start"), E.var("end"), [Node.assign("acc", E.fadd(E.var("acc"), E.load("x", E.var("i"))))]),
        Node.store("out", E.u32(0), E.var("acc")),
        Node.store("next", E.u32(0), E.var("end")),
    ]
    return Program(
        buffers=[
            BufferDecl.read("x", 0, DataType.F32),
            BufferDecl.read_write("out", 1, DataType.F32),
            BufferDecl.read_write("next", 2, DataType.U32),
        ],
        workgroup_size=(1, 1, 1),
        entry=body,
        name="f32_sum_strict",
    )


def _strict_plan(sizes: Any, scalars: Any) -> KernelPlan:
    n = sizes["x"]
    out = Buffer("out", DataType.F32, 1)
    if n == 0:
        return KernelPlan((out,), ())
    step = Step(strict_program(), (1, 1, 1))
    steps = max(1, -(-(n - 1) // CHUNK))
    return KernelPlan((out, Buffer("next", DataType.U32, 1)), (step,) * steps)


# ---------------------------------------------------------------------------
# References: numpy float32 additions (correctly rounded, subnormals kept) in
# the op's order, NaN results made canonical
# ---------------------------------------------------------------------------


def _result(value: np.ndarray, n: int) -> tuple[np.ndarray]:
    out = np.asarray(value, dtype=np.float32).reshape(1).copy()
    if n >= 2 and np.isnan(out[0]):
        out.view(np.uint32)[0] = CANONICAL_NAN
    return (out,)


def _strict_reference(x: np.ndarray) -> tuple[np.ndarray]:
    if len(x) == 0:
        return (np.zeros(1, dtype=np.float32),)
    with np.errstate(all="ignore"):
        total = np.add.accumulate(x.astype(np.float32), dtype=np.float32)[-1]
    return _result(total, len(x))


def _balanced(level: np.ndarray) -> np.ndarray:
    """The perfectly balanced tree of a power-of-two count (pairs, level by level)."""
    while len(level) > 1:
        level = level[0::2] + level[1::2]
    return level


def _tree(x: np.ndarray) -> np.ndarray:
    """The canonical tree's definition, literally: split at the largest power of two
    below n (a power-of-two count is the balanced tree, vectorised)."""
    n = len(x)
    if n & (n - 1) == 0:
        return _balanced(x)
    mid = 1 << ((n - 1).bit_length() - 1)
    return _tree(x[:mid]) + _tree(x[mid:])


def _tree_reference(x: np.ndarray) -> tuple[np.ndarray]:
    if len(x) == 0:
        return (np.zeros(1, dtype=np.float32),)
    with np.errstate(all="ignore"):
        total = _tree(x.astype(np.float32))
    return _result(total, len(x))


F32_IN = (Port("x", DataType.F32),)
F32_OUT = (Port("out", DataType.F32, scalar=True),)

KERNELS = (
    KernelSpec(
        id="reductions.f32_sum_strict",
        version=1,
        inputs=F32_IN,
        outputs=F32_OUT,
        kind="reduce",
        reference=_strict_reference,
        plan=_strict_plan,
        summary="left-to-right F32 sum ((a0 + a1) + a2) + ..., bit-exact (empty: +0.0)",
        laws=(K.StrictSumRecurrence(), K.ExactOnSmallIntegers(), K.EmptyIs(0)),
    ),
    KernelSpec(
        id="reductions.f32_sum_tree",
        version=1,
        inputs=F32_IN,
        outputs=F32_OUT,
        kind="reduce",
        reference=_tree_reference,
        plan=_tree_plan,
        summary="F32 sum in the canonical tree order, bit-exact (empty: +0.0)",
        laws=(K.TreeSplit(), K.ExactOnSmallIntegers(), K.EmptyIs(0)),
    ),
)
