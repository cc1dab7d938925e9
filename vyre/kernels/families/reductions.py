"""reductions.*: one U32 array to one value.

Sum, min, max, count, any and all are one grid-stride pass: each invocation
accumulates its strided elements in a register, the workgroup combines its 256
values in a tree, and invocation 0 merges the workgroup's result into the output
word with an atomic (wrapping add, min, max, or, and: commutative and
associative, so the result does not depend on the schedule, C4). The output
starts as the identity, which is also the result for empty input (C5).

argmin/argmax keep (value, index) pairs, which no 32-bit atomic merges, so they
take two dispatches. Pass 1 is the same grid-stride pass: each invocation keeps
its best value and where it was in registers over rounds of UNROLL loads issued
before any is used (it meets its elements in index order, so "strictly better"
is its whole test, two selects and no branch per element), the workgroup
reduces its 256 pairs in a tree, and one pair per workgroup goes to memory.
Pass 2, one workgroup, reduces those partials. Both read their sizes from the
lengths of their buffers (no parameter block to copy). Ties go to the smaller
index (the first occurrence, as `np.argmin`); empty input gives NONE.
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
# argmin / argmax: one (value, index) per workgroup, then one workgroup
# ---------------------------------------------------------------------------

_STRICTLY: dict[str, Callable[[Expr, Expr], Expr]] = {"argmin": E.lt, "argmax": E.gt}
_ARG_START = {"argmin": NONE, "argmax": 0}
"""The value no element beats strictly: every invocation's best starts there."""

ARG_UNROLL = UNROLL
"""Loads in flight per round of both argmin/argmax passes (all issued before
the first is used, as in the one-pass reductions)."""


def _beats(kind: str) -> Callable[[Expr, Expr, Expr, Expr], Expr]:
    """Whether pair (v2, i2) beats (v1, i1): a strictly better value, or the
    same value at a smaller index. The op's answer is the index of the least
    pair in this total order, so any tree of merges finds it."""
    strictly = _STRICTLY[kind]

    def beats(v1: Expr, i1: Expr, v2: Expr, i2: Expr) -> Expr:
        return E.or_(strictly(v2, v1), E.and_(E.eq(v2, v1), E.lt(i2, i1)))

    return beats


def _take(take: Expr, value: Expr, where: Expr) -> list[Node]:
    """(bv, bi) becomes (value, where) where `take` (a test of the old bv)
    holds: two selects, no branch; bi first, while bv is still the old one."""
    return [
        Node.assign("bi", E.select(take, where, E.var("bi"))),
        Node.assign("bv", E.select(take, value, E.var("bv"))),
    ]


def _partials_round(kind: str, prefix: str, round_: Expr, guarded: bool) -> list[Node]:
    """Round `round_` of pass 1: this invocation's ARG_UNROLL elements of
    ordinals j = round_ x ARG_UNROLL + u (index base + j x stride), every load
    issued first, then taken in index order.

    An invocation meets its elements in increasing index order, so a strictly
    better value is the whole test (an equal value later never replaces the
    first). `bi` holds the best element's ordinal until the rounds end, so no
    index stays live while the loads are in flight. `guarded`: positions at or
    past n (whose loads read 0) are skipped."""
    strictly = _STRICTLY[kind]
    j = E.var(f"{prefix}j")
    loads: list[Node] = [Node.let(f"{prefix}j", E.mul(round_, E.u32(ARG_UNROLL)))]
    takes: list[Node] = []
    for u in range(ARG_UNROLL):
        index, value = E.var(f"{prefix}i{u}"), E.var(f"{prefix}v{u}")
        previous = E.add(E.var("base"), E.mul(j, E.var("stride"))) if u == 0 else E.var(f"{prefix}i{u - 1}")
        at = previous if u == 0 else E.add(previous, E.var("stride"))
        loads += [Node.let(f"{prefix}i{u}", at), Node.let(f"{prefix}v{u}", E.load("x", index))]
        take = strictly(value, E.var("bv"))
        if guarded:
            take = E.and_(E.lt(index, E.var("n")), take)
        takes += _take(take, value, j if u == 0 else E.add(j, E.u32(u)))
    return [*loads, *takes]


def _pair_tree(kind: str) -> list[Node]:
    """Each invocation's (bv, bi) into (shv, shi), then the workgroup tree: the
    workgroup's least pair in element 0."""
    beats = _beats(kind)

    def combine(a: list[Expr], b: list[Expr]) -> list[Expr]:
        wins = beats(a[0], a[1], b[0], b[1])
        return [E.select(wins, b[0], a[0]), E.select(wins, b[1], a[1])]

    local = E.local_id(0)
    return [
        Node.store("shv", local, E.var("bv")),
        Node.store("shi", local, E.var("bi")),
        *tree_reduce(["shv", "shi"], combine),
    ]


_PAIR_ARRAYS = [
    BufferDecl.workgroup("shv", WORKGROUP, DataType.U32),
    BufferDecl.workgroup("shi", WORKGROUP, DataType.U32),
]


@cache
def arg_partials_program(kind: str) -> Program:
    """Pass 1: the least (value, index) pair of each workgroup's strided
    elements of `x` into `pv[wid]`, `pi[wid]`. Dispatched over len(pv)
    workgroups, so the grid-stride pass needs no parameters: n = len(x), stride
    = len(pv) x WORKGROUP.

    Each invocation keeps its best value and the ordinal of its element in
    registers, starting at (the value no element beats, ordinal 0): an
    invocation whose elements all hold that value keeps its first, and one with
    no element at all keeps its index `base` >= n, which every real pair beats.
    Full rounds (every position < n) are unguarded; one guarded round takes the
    rest (< ARG_UNROLL elements per invocation). Positions stay below
    n + ARG_UNROLL x stride (n + 2^22), far from wrapping for any bindable
    array of u32 words."""
    local = E.local_id(0)
    span = E.mul(E.var("stride"), E.u32(ARG_UNROLL))
    body: list[Node] = [
        Node.let("base", E.add(E.mul(E.workgroup_id(0), E.u32(WORKGROUP)), local)),
        Node.let("n", E.buf_len("x")),
        Node.let("stride", E.mul(E.buf_len("pv"), E.u32(WORKGROUP))),
        Node.let("full", E.div(E.var("n"), span)),
        Node.let("bv", E.u32(_ARG_START[kind])),
        Node.let("bi", E.u32(0)),
        Node.loop("k", E.u32(0), E.var("full"), _partials_round(kind, "m", E.var("k"), False)),
        *_partials_round(kind, "r", E.var("full"), True),
        Node.assign("bi", E.add(E.var("base"), E.mul(E.var("bi"), E.var("stride")))),
        *_pair_tree(kind),
        Node.if_(
            E.eq(local, E.u32(0)),
            [
                Node.store("pv", E.workgroup_id(0), E.load("shv", E.u32(0))),
                Node.store("pi", E.workgroup_id(0), E.load("shi", E.u32(0))),
            ],
        ),
    ]
    return Program(
        buffers=[
            BufferDecl.read("x", 0, DataType.U32),
            BufferDecl.read_write("pv", 1, DataType.U32),
            BufferDecl.read_write("pi", 2, DataType.U32),
            *_PAIR_ARRAYS,
        ],
        workgroup_size=(WORKGROUP, 1, 1),
        entry=body,
        name=f"{kind}_u32_partials",
    )


@cache
def arg_final_program(kind: str) -> Program:
    """Pass 2, one workgroup: the least of the len(pv) pairs (`pv`, `pi`) and
    its index into `out[0]`. Rounds of ARG_UNROLL pairs per invocation (one
    round for the at most MAX_GROUPS = ARG_UNROLL x WORKGROUP partials), each
    compared in full (the partials are not in index order)."""
    beats = _beats(kind)
    local = E.local_id(0)
    per_round = WORKGROUP * ARG_UNROLL
    loads: list[Node] = []
    takes: list[Node] = []
    for u in range(ARG_UNROLL):
        at, value, index = E.var(f"p{u}"), E.var(f"cv{u}"), E.var(f"ci{u}")
        position = E.add(E.mul(E.var("k"), E.u32(per_round)), E.add(local, E.u32(u * WORKGROUP)))
        loads += [Node.let(f"p{u}", position)]
        loads += [Node.let(f"cv{u}", E.load("pv", at)), Node.let(f"ci{u}", E.load("pi", at))]
        take = E.and_(E.lt(at, E.var("count")), beats(E.var("bv"), E.var("bi"), value, index))
        takes += _take(take, value, index)
    body: list[Node] = [
        Node.let("count", E.buf_len("pv")),
        Node.let("bv", E.u32(_ARG_START[kind])),
        Node.let("bi", E.u32(NONE)),
        Node.let("rounds", E.div(E.add(E.var("count"), E.u32(per_round - 1)), E.u32(per_round))),
        Node.loop("k", E.u32(0), E.var("rounds"), [*loads, *takes]),
        *_pair_tree(kind),
        Node.if_(E.eq(local, E.u32(0)), [Node.store("out", E.u32(0), E.load("shi", E.u32(0)))]),
    ]
    return Program(
        buffers=[
            BufferDecl.read("pv", 0, DataType.U32),
            BufferDecl.read("pi", 1, DataType.U32),
            BufferDecl.read_write("out", 2, DataType.U32),
            *_PAIR_ARRAYS,
        ],
        workgroup_size=(WORKGROUP, 1, 1),
        entry=body,
        name=f"{kind}_u32_final",
    )


def _arg_plan(kind: str) -> Callable[[Any, Any], KernelPlan]:
    def plan(sizes: Any, scalars: Any) -> KernelPlan:
        n = sizes["x"]
        out = Buffer("out", DataType.U32, 1, fill=NONE)
        if n == 0:
            return KernelPlan((out,), ())
        g = grid(n)
        # pass 1 runs one workgroup per partial: its stride is len(pv) x WORKGROUP
        return KernelPlan(
            (out, Buffer("pv", DataType.U32, g.groups), Buffer("pi", DataType.U32, g.groups)),
            (Step(arg_partials_program(kind), g.dispatch), Step(arg_final_program(kind), (1, 1, 1))),
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
