"""reductions.*: one U32 array to one value (python-api.md; oplib.md §5).

Sum, min, max, count, any and all are one grid-stride pass: each invocation
accumulates its strided elements in a register, the workgroup combines its 256
values in a tree, and invocation 0 merges the workgroup's result into the output
word with an atomic (wrapping add, min, max, or, and: commutative and
associative, so the result does not depend on the schedule, C4). The output
starts as the identity, which is also the result for empty input (C5).

argmin/argmax keep (value, index) pairs, which no 32-bit atomic merges, so they
take two passes: one (value, index) partial per workgroup, then one workgroup
reduces the partials. Ties go to the smaller index (the first occurrence, as
`np.argmin`); empty input gives NONE.
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
    NONE,
    WORKGROUP,
    grid,
    param,
    params_buffer,
    select_max,
    select_min,
    tree_reduce,
)
from vyre.kernels.spec import Buffer, KernelPlan, KernelSpec, Port, Step

__all__ = ["KERNELS"]

U32_IN = (Port("x", DataType.U32),)


# ---------------------------------------------------------------------------
# One-pass reductions merged with an atomic
# ---------------------------------------------------------------------------

_COMBINE: dict[str, Callable[[Expr, Expr], Expr]] = {
    "sum": E.add,
    "min": select_min,
    "max": select_max,
    "count": E.add,
    "any": E.bitor,
    "all": E.bitand,
}
_ATOMIC = {
    "sum": AtomicOp.ADD,
    "min": AtomicOp.MIN,
    "max": AtomicOp.MAX,
    "count": AtomicOp.ADD,
    "any": AtomicOp.OR,
    "all": AtomicOp.AND,
}
_IDENTITY = {"sum": 0, "min": NONE, "max": 0, "count": 0, "any": 0, "all": 1}


UNROLL = 8
"""Independent loads (and accumulators) per loop iteration of a reduction:
eight loads in flight per invocation (memory-level parallelism; on the H100,
bench/wgsl_variants.py, 64 Mi elements: one load per round 1,530 GB/s, four
2,149, eight 2,262, vec4 loads no better)."""
_ZERO_IS_IDENTITY = frozenset({"sum", "max", "count", "any"})
"""Reductions for which a load past n (0, the lowering's guard) changes nothing."""


@cache
def atomic_reduce_program(kind: str) -> Program:
    """`out[0] = out[0] op reduce(f(x))` over a grid-stride pass; params = [n,
    stride, rounds], each round UNROLL strided elements per invocation."""
    combine = _COMBINE[kind]
    local = E.local_id(0)
    identity = E.u32(_IDENTITY[kind])
    # every load first (the lowering's guard makes a load past n read 0), then
    # the uses: UNROLL loads are in flight before the first use stalls
    loop_body: list[Node] = []
    for u in range(UNROLL):
        index = E.add(E.var("base"), E.mul(E.add(E.mul(E.var("k"), E.u32(UNROLL)), E.u32(u)), E.var("stride")))
        loop_body += [Node.let(f"i{u}", index), Node.let(f"v{u}", E.load("x", E.var(f"i{u}")))]
    for u in range(UNROLL):
        value = E.var(f"v{u}")
        if kind in ("count", "any", "all"):
            value = E.select(E.ne(value, E.u32(0)), E.u32(1), E.u32(0))
        if kind not in _ZERO_IS_IDENTITY:
            value = E.select(E.lt(E.var(f"i{u}"), E.var("n")), value, identity)
        loop_body.append(Node.assign(f"acc{u}", combine(E.var(f"acc{u}"), value)))
    acc = E.var("acc0")
    for u in range(1, UNROLL):
        acc = combine(acc, E.var(f"acc{u}"))
    body = [
        *[Node.let(f"acc{u}", identity) for u in range(UNROLL)],
        Node.let("base", E.add(E.mul(E.workgroup_id(0), E.u32(WORKGROUP)), local)),
        Node.let("n", param(0)),
        Node.let("stride", param(1)),
        Node.loop("k", E.u32(0), param(2), loop_body),
        Node.store("sh", local, acc),
        *tree_reduce(["sh"], lambda a, b: [combine(a[0], b[0])]),
        Node.if_(
            E.eq(local, E.u32(0)),
            [Node.let("_old", E.atomic(_ATOMIC[kind], "out", E.u32(0), E.load("sh", E.u32(0))))],
        ),
    ]
    return Program(
        buffers=[
            BufferDecl.read("x", 0, DataType.U32),
            BufferDecl.read_write("out", 1, DataType.U32),
            BufferDecl.uniform("params", 2, DataType.U32),
            BufferDecl.workgroup("sh", WORKGROUP, DataType.U32),
        ],
        workgroup_size=(WORKGROUP, 1, 1),
        entry=body,
        name=f"reduce_{kind}_u32",
    )


def _atomic_plan(kind: str, output: DataType) -> Callable[[Any, Any], KernelPlan]:
    def plan(sizes: Any, scalars: Any) -> KernelPlan:
        n = sizes["x"]
        out = Buffer("out", output, 1, fill=_IDENTITY[kind])
        if n == 0:
            return KernelPlan((out,), ())
        g = grid(n)
        return KernelPlan(
            (out, params_buffer("params", [n, g.stride, -(-g.iterations // UNROLL)])),
            (Step(atomic_reduce_program(kind), g.dispatch),),
        )

    return plan


# ---------------------------------------------------------------------------
# argmin / argmax: (value, index) partials, then one workgroup
# ---------------------------------------------------------------------------


def _better(kind: str) -> Callable[[Expr, Expr, Expr, Expr], Expr]:
    """Whether pair (v2, i2) replaces (v1, i1): i1 empty, or i2 present and
    strictly better, or equal with a smaller index."""
    strictly = E.lt if kind == "argmin" else E.gt

    def better(v1: Expr, i1: Expr, v2: Expr, i2: Expr) -> Expr:
        present = E.ne(i2, E.u32(NONE))
        wins = E.or_(strictly(v2, v1), E.and_(E.eq(v2, v1), E.lt(i2, i1)))
        return E.or_(E.eq(i1, E.u32(NONE)), E.and_(present, wins))

    return better


ARG_UNROLL = 4
"""Loads in flight per round of the argmin/argmax pass (its candidates are then
taken in index order, so ties still go to the first occurrence)."""


@cache
def arg_program(kind: str, final: bool) -> Program:
    """Pass 1 (`final=False`): (value, index) of the best element of each
    workgroup's strided elements of `x` into `pv[wid]`, `pi[wid]`. Pass 2: one
    workgroup over the partials `pv`, `pi` into `out[0]` (the index).
    params = [n, stride, rounds]: each round ARG_UNROLL strided elements per
    invocation, loaded first, then taken in increasing index order."""
    better = _better(kind)
    local = E.local_id(0)
    stride = E.var("stride")
    loads: list[Node] = []
    takes: list[Node] = []
    for u in range(ARG_UNROLL):
        i = E.var(f"i{u}")
        loads.append(Node.let(f"i{u}", E.add(E.var("base"), E.mul(E.add(E.mul(E.var("k"), E.u32(ARG_UNROLL)), E.u32(u)), stride))))
        if final:
            loads += [Node.let(f"cv{u}", E.load("pv", i)), Node.let(f"ci{u}", E.load("pi", i))]
        else:
            loads += [Node.let(f"cv{u}", E.load("x", i)), Node.let(f"ci{u}", i)]
        # a position past n (its load read 0) is never taken
        take = E.and_(E.lt(i, E.var("n")), better(E.var("bv"), E.var("bi"), E.var(f"cv{u}"), E.var(f"ci{u}")))
        takes.append(Node.if_(take, [Node.assign("bv", E.var(f"cv{u}")), Node.assign("bi", E.var(f"ci{u}"))]))

    def combine(a: list[Expr], b: list[Expr]) -> list[Expr]:
        wins = better(a[0], a[1], b[0], b[1])
        return [E.select(wins, b[0], a[0]), E.select(wins, b[1], a[1])]

    body = [
        Node.let("bv", E.u32(0)),
        Node.let("bi", E.u32(NONE)),
        Node.let("base", E.add(E.mul(E.workgroup_id(0), E.u32(WORKGROUP)), local)),
        Node.let("n", param(0)),
        Node.let("stride", param(1)),
        Node.loop("k", E.u32(0), param(2), [*loads, *takes]),
        Node.store("shv", local, E.var("bv")),
        Node.store("shi", local, E.var("bi")),
        *tree_reduce(["shv", "shi"], combine),
    ]
    if final:
        buffers = [
            BufferDecl.read("pv", 0, DataType.U32),
            BufferDecl.read("pi", 1, DataType.U32),
            BufferDecl.read_write("out", 2, DataType.U32),
        ]
        body.append(Node.if_(E.eq(local, E.u32(0)), [Node.store("out", E.u32(0), E.load("shi", E.u32(0)))]))
    else:
        buffers = [
            BufferDecl.read("x", 0, DataType.U32),
            BufferDecl.read_write("pv", 1, DataType.U32),
            BufferDecl.read_write("pi", 2, DataType.U32),
        ]
        body.append(
            Node.if_(
                E.eq(local, E.u32(0)),
                [
                    Node.store("pv", E.workgroup_id(0), E.load("shv", E.u32(0))),
                    Node.store("pi", E.workgroup_id(0), E.load("shi", E.u32(0))),
                ],
            )
        )
    buffers += [
        BufferDecl.uniform("params", 3, DataType.U32),
        BufferDecl.workgroup("shv", WORKGROUP, DataType.U32),
        BufferDecl.workgroup("shi", WORKGROUP, DataType.U32),
    ]
    return Program(
        buffers=buffers,
        workgroup_size=(WORKGROUP, 1, 1),
        entry=body,
        name=f"{kind}_u32_{'final' if final else 'partials'}",
    )


def _arg_plan(kind: str) -> Callable[[Any, Any], KernelPlan]:
    def plan(sizes: Any, scalars: Any) -> KernelPlan:
        n = sizes["x"]
        out = Buffer("out", DataType.U32, 1, fill=NONE)
        if n == 0:
            return KernelPlan((out,), ())
        g = grid(n)
        last = grid(g.groups, max_groups=1)
        return KernelPlan(
            (
                out,
                Buffer("pv", DataType.U32, g.groups),
                Buffer("pi", DataType.U32, g.groups),
                params_buffer("p1", [n, g.stride, -(-g.iterations // ARG_UNROLL)]),
                params_buffer("p2", [g.groups, last.stride, -(-last.iterations // ARG_UNROLL)]),
            ),
            (
                Step(arg_program(kind, False), g.dispatch, {"params": "p1"}),
                Step(arg_program(kind, True), last.dispatch, {"params": "p2"}),
            ),
        )

    return plan


# ---------------------------------------------------------------------------
# References (numpy) and the specs
# ---------------------------------------------------------------------------


def _one(value: int) -> tuple[np.ndarray]:
    return (np.array([value], dtype=np.uint32),)


def _sum(x: np.ndarray) -> tuple[np.ndarray]:
    return _one(int(x.sum(dtype=np.uint64)) & 0xFFFF_FFFF)


def _min(x: np.ndarray) -> tuple[np.ndarray]:
    return _one(int(x.min()) if len(x) else NONE)


def _max(x: np.ndarray) -> tuple[np.ndarray]:
    return _one(int(x.max()) if len(x) else 0)


def _argmin(x: np.ndarray) -> tuple[np.ndarray]:
    return _one(int(np.argmin(x)) if len(x) else NONE)


def _argmax(x: np.ndarray) -> tuple[np.ndarray]:
    return _one(int(np.argmax(x)) if len(x) else NONE)


def _count(x: np.ndarray) -> tuple[np.ndarray]:
    return _one(int(np.count_nonzero(x)))


def _any(x: np.ndarray) -> tuple[np.ndarray]:
    return _one(int(bool(np.any(x))))


def _all(x: np.ndarray) -> tuple[np.ndarray]:
    return _one(int(bool(np.all(x))))


def _scalar_out(dtype: DataType = DataType.U32) -> tuple[Port, ...]:
    return (Port("out", dtype, scalar=True),)


def _spec(
    op_id: str,
    reference: Callable[[np.ndarray], tuple[np.ndarray]],
    plan: Callable[[Any, Any], KernelPlan],
    summary: str,
    laws: tuple[K.KernelLaw, ...],
    output: DataType = DataType.U32,
) -> KernelSpec:
    return KernelSpec(
        id=op_id,
        version=1,
        inputs=U32_IN,
        outputs=_scalar_out(output),
        kind="reduce",
        reference=reference,
        plan=plan,
        summary=summary,
        laws=laws,
    )


def _u32_sum(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.array([(int(a[0]) + int(b[0])) & 0xFFFF_FFFF], dtype=np.uint32)


KERNELS = (
    _spec(
        "reductions.reduce_sum_u32",
        _sum,
        _atomic_plan("sum", DataType.U32),
        "wrapping sum (empty: 0)",
        (K.SplitCombine(_u32_sum), K.PermutationInvariant(), K.EmptyIs(0)),
    ),
    _spec(
        "reductions.reduce_min_u32",
        _min,
        _atomic_plan("min", DataType.U32),
        "minimum (empty: 0xFFFFFFFF)",
        (
            K.SplitCombine(lambda a, b: np.minimum(a, b)),
            K.PermutationInvariant(),
            K.ResultInInput(),
            K.EmptyIs(NONE),
        ),
    ),
    _spec(
        "reductions.reduce_max_u32",
        _max,
        _atomic_plan("max", DataType.U32),
        "maximum (empty: 0)",
        (
            K.SplitCombine(lambda a, b: np.maximum(a, b)),
            K.PermutationInvariant(),
            K.ResultInInput(),
            K.EmptyIs(0),
        ),
    ),
    _spec(
        "reductions.argmin_u32",
        _argmin,
        _arg_plan("argmin"),
        "first index of the minimum (empty: NONE)",
        (K.IndexOfExtreme("min"), K.EmptyIs(NONE)),
    ),
    _spec(
        "reductions.argmax_u32",
        _argmax,
        _arg_plan("argmax"),
        "first index of the maximum (empty: NONE)",
        (K.IndexOfExtreme("max"), K.EmptyIs(NONE)),
    ),
    _spec(
        "reductions.reduce_count",
        _count,
        _atomic_plan("count", DataType.U32),
        "number of nonzero elements",
        (K.SplitCombine(_u32_sum), K.PermutationInvariant(), K.EmptyIs(0)),
    ),
    _spec(
        "reductions.reduce_any",
        _any,
        _atomic_plan("any", DataType.BOOL),
        "whether any element is nonzero (empty: false)",
        (K.SplitCombine(lambda a, b: a | b), K.PermutationInvariant(), K.EmptyIs(0)),
        DataType.BOOL,
    ),
    _spec(
        "reductions.reduce_all",
        _all,
        _atomic_plan("all", DataType.BOOL),
        "whether every element is nonzero (empty: true)",
        (K.SplitCombine(lambda a, b: a & b), K.PermutationInvariant(), K.EmptyIs(1)),
        DataType.BOOL,
    ),
)
