"""collection.*: sets of U32 values (docs/kernel-library.md).

- `collection.unique_u32(x)` (U32[] -> U32[], U32 count): the sorted distinct
  values (`np.unique`). The output's length is `count` (`Port.length_from`).
  Two plans; the first run takes the dense one:
  - *dense* (values below a capacity `P`: n rounded up to a multiple of the
    compaction tile, 8,192): the largest value (`reductions.reduce_max_u32`'s
    pass); then, if it is below `P`, bit `v` of a bitset of `P` bits set for
    every value `v` (`atomicOr` into storage: OR is order-free, so the bitset,
    and the result, are the same on every device and schedule; every value
    is one atomic, so few distinct values queue on few words: a cost not yet
    measured on a GPU); then stream compaction (`compaction`: tile counts, scan,
    ranked scatter) of the set bits, each writing its position, which is its
    value: ascending by construction. No sort: the input is read twice and
    the bitset (P / 8 bytes) a few times (measured on the H200, 16 Mi keys
    below n / 4: 1.27-1.29 of torch.unique's speed, the sorted plan 0.27).
    If the largest value is `P` or more, the marking pass does nothing and a
    last step sets `count` to `NOT_DENSE`, so that `KernelSpec.replan` runs
    the sorted plan (the `alternative` plan: a second submission; the attempt
    cost one read of the input, the compaction passes over an empty bitset
    and a read-back);
  - *sorted*: the radix sort of `sort.u32` (its plan, reused as it is: 4
    passes of 8-bit digits, 20 dispatches), then the head flags
    `s[p] != s[p - 1]` (p = 0 always a head) of the sorted keys, then stream
    compaction of the heads.
- `collection.contains_u32(set, queries)` (U32[], U32[] -> Bool[]): for each
  query whether it is in the set (`np.isin(queries, set)`). The set is radix
  sorted once (the same plan), then each query is a map element: a branchless
  binary search (lower bound; Khuong & Morin's form) of ceil(log2 m) <= 32
  steps, one load each, followed by the equality test.

Why sort + binary search rather than a GPU hash table: the result and the
memory traffic are the same on every device and every run (C4: a table built
with `atomicCompareExchange` has a layout that depends on the schedule, and its
capacity must be planned from the data); every invocation's loop is bounded by
32 steps; the set's sort is the library's existing, certified pipeline; and a
binary search's top levels stay in cache, so the queries cost about log2(m)
cached loads each. A hash table would win for huge sets with many queries
(one probe instead of log2 m), at the price of those properties.

Empty inputs: unique of [] is []; contains with no queries is [], with an empty
set all false; neither runs a dispatch.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Any

import numpy as np

from vyre.ir import AtomicOp, BufferAccess, BufferDecl, DataType, Expr, Node, Program
from vyre.ir import Expr as E
from vyre.kernels import samplers as S
from vyre.kernels.families import compaction as C
from vyre.kernels.families import sort as radix
from vyre.kernels.families.common import WORKGROUP, param, params_buffer
from vyre.kernels.families.reductions import UNROLL as REDUCE_UNROLL
from vyre.kernels.families.reductions import atomic_reduce_program
from vyre.kernels.families.wordwise import UNROLL, grid_params, grid_walk, map_program, round_index
from vyre.kernels.spec import Buffer, KernelLaw, KernelPlan, KernelSpec, Port, Step

__all__ = ["KERNELS", "sorted_steps"]

Op = Callable[..., tuple[np.ndarray, ...]]


def sorted_steps(source: str, n: int) -> tuple[list[Buffer], list[Step], str]:
    """The buffers and steps of `sort.u32` over the pipeline buffer `source` (n
    keys), and the buffer that holds the sorted keys afterwards. The sort's plan
    names its input `keys`; every binding to it is redirected to `source`."""
    spec = next(s for s in radix.KERNELS if s.id == "sort.u32")
    plan = spec.plan({"keys": n}, {})
    steps: list[Step] = []
    for step in plan.steps:
        bind = {
            decl.name: source if step.source(decl.name) == "keys" else step.source(decl.name)
            for decl in step.program.buffers
            if decl.access is not BufferAccess.WORKGROUP
        }
        steps.append(Step(step.program, step.dispatch, bind))
    return list(plan.buffers), steps, plan.output_buffer("out")


# ---------------------------------------------------------------------------
# unique_u32
# ---------------------------------------------------------------------------


def _head(p: Expr) -> tuple[list[Node], Expr]:
    """p starts a run of equal sorted keys (p < n)."""
    previous = E.load("sorted", E.sub(p, E.u32(1)))
    return [], E.or_(E.eq(p, E.u32(0)), E.ne(E.load("sorted", p), previous))


NOT_DENSE = 0xFFFF_FFFF
"""`count` of a dense attempt whose values were not all below the capacity
(never a real count: that is at most n < 2**32 - 1)."""


@cache
def unique_programs() -> tuple[Program, Program]:
    heads = C.bits_program("unique_heads", ["sorted"], _head)
    scatter = C.scatter_program("unique_scatter", ["sorted"], lambda p: E.load("sorted", p))
    return heads, scatter


@cache
def mark_program() -> Program:
    """Dense unique: bit v of `bits` set for every value v of the first n =
    params[0] words of `x` (a grid-stride pass, `grid_params` [n, stride,
    rounds, P]), only when `top[0]` (the largest value) is below P; loads
    first, then the atomics (their results unused: fire-and-forget on the GPU)."""
    loads: list[Node] = []
    marks: list[Node] = []
    for u in range(UNROLL):
        loads += [Node.let(f"_i{u}", round_index(u)), Node.let(f"_v{u}", E.load("x", E.var(f"_i{u}")))]
        bit = E.shl(E.u32(1), E.bitand(E.var(f"_v{u}"), E.u32(31)))
        mark = Node.let(f"_o{u}", E.atomic(AtomicOp.OR, "bits", E.shr(E.var(f"_v{u}"), E.u32(5)), bit))
        marks.append(Node.if_(E.lt(E.var(f"_i{u}"), param(0)), [mark]))
    entry = [Node.if_(E.lt(E.load("top", E.u32(0)), param(3)), grid_walk(loads + marks))]
    buffers = [
        BufferDecl.read("x", 0, DataType.U32),
        BufferDecl.read("top", 1, DataType.U32),
        BufferDecl.read_write("bits", 2, DataType.U32),
        BufferDecl.uniform("params", 3, DataType.U32),
    ]
    return Program(buffers=buffers, workgroup_size=(WORKGROUP, 1, 1), entry=entry, name="unique_mark")


@cache
def dense_programs() -> tuple[Program, Program]:
    """The dense plan's scatter (a set bit's position is its value) and its
    verdict (`count` = NOT_DENSE when `top[0]` >= P = params[3], bound to the
    marking pass's parameters)."""
    scatter = C.scatter_program("unique_dense_scatter", [], lambda p: p)
    verdict = Program(
        buffers=[
            BufferDecl.read("top", 0, DataType.U32),
            BufferDecl.read_write("count", 1, DataType.U32),
            BufferDecl.uniform("params", 2, DataType.U32),
        ],
        workgroup_size=(1, 1, 1),
        entry=[Node.if_(E.ge(E.load("top", E.u32(0)), param(3)), [Node.store("count", E.u32(0), E.u32(NOT_DENSE))])],
        name="unique_verdict",
    )
    return scatter, verdict


def _dense_plan(sizes: Any, scalars: Any) -> KernelPlan:
    n = int(sizes["x"])
    out, count = Buffer("out", DataType.U32, n), Buffer("count", DataType.U32, 1)
    if n == 0:
        return KernelPlan((out, count), ())
    capacity = C.tiles(n) * C.TILE
    g, mark_params = grid_params("u_mark", n, capacity)
    top = Buffer("u_top", DataType.U32, 1)
    reduce_params = params_buffer("u_reduce", [n, g.stride, -(-g.iterations // REDUCE_UNROLL)])
    scatter, verdict = dense_programs()
    buffers, steps = C.compaction_steps(capacity, scatter, {})
    return KernelPlan(
        (out, count, top, reduce_params, mark_params, C.bits_buffer(capacity), *buffers),
        (
            Step(atomic_reduce_program("max"), g.dispatch, {"x": "x", "out": "u_top", "params": "u_reduce"}),
            Step(mark_program(), g.dispatch, {"x": "x", "top": "u_top", "bits": "c_bits", "params": "u_mark"}),
            *steps,
            Step(verdict, (1, 1, 1), {"top": "u_top", "count": "count", "params": "u_mark"}),
        ),
    )


def _unique_replan(sizes: Any, scalars: Any, outputs: Any) -> KernelPlan | None:
    """The sorted plan after a dense attempt that found a value >= P."""
    return _sorted_plan(sizes, scalars) if int(outputs["count"]) == NOT_DENSE else None


def _sorted_plan(sizes: Any, scalars: Any) -> KernelPlan:
    n = int(sizes["x"])
    out, count = Buffer("out", DataType.U32, n), Buffer("count", DataType.U32, 1)
    if n == 0:
        return KernelPlan((out, count), ())
    sort_buffers, sort_steps, keys = sorted_steps("x", n)
    heads, scatter = unique_programs()
    buffers, steps = C.compaction_steps(n, scatter, {"sorted": keys})
    flags = Step(heads, (C.tiles(n), 1, 1), {"sorted": keys, "bits": "c_bits", "params": "c_flag_params"})
    own = [out, count, C.bits_buffer(n), params_buffer("c_flag_params", [n])]
    return KernelPlan((*own, *sort_buffers, *buffers), (*sort_steps, flags, *steps))


# ---------------------------------------------------------------------------
# contains_u32
# ---------------------------------------------------------------------------


def _search(q: Expr, s: str) -> tuple[list[Node], Expr]:
    """Whether query q is among the m = params[3] sorted keys of `sorted`
    (params[4] = ceil(log2 m) halving steps). Invariant: the lower bound of q
    lies in [base, base + len]; a step halves len."""
    base, length, half, query = f"_b{s}", f"_n{s}", f"_h{s}", f"_q{s}"
    m = param(3)
    nodes = [
        Node.let(query, q),
        Node.let(base, E.u32(0)),
        Node.let(length, m),
        Node.loop(
            f"_t{s}",
            E.u32(0),
            param(4),
            [
                Node.let(half, E.shr(E.var(length), E.u32(1))),
                Node.if_(
                    E.lt(E.load("sorted", E.add(E.var(base), E.var(half))), E.var(query)),
                    [Node.assign(base, E.add(E.var(base), E.var(half)))],
                ),
                Node.assign(length, E.sub(E.var(length), E.var(half))),
            ],
        ),
    ]
    at_base = E.eq(E.load("sorted", E.var(base)), E.var(query))
    next_one = E.add(E.var(base), E.u32(1))
    after = E.and_(E.lt(next_one, m), E.eq(E.load("sorted", next_one), E.var(query)))
    return nodes, E.select(E.or_(at_base, after), E.u32(1), E.u32(0))


@cache
def contains_program() -> Program:
    """out[i] = queries[i] in sorted. params = [q, stride, rounds, m, steps]."""

    def value(i: Expr, s: str) -> tuple[list[Node], Expr]:
        return _search(E.load("queries", i), s)

    return map_program("contains_search", ["sorted", "queries"], value)


def _contains_plan(sizes: Any, scalars: Any) -> KernelPlan:
    m, q = int(sizes["set"]), int(sizes["queries"])
    out = Buffer("out", DataType.BOOL, q)
    if q == 0 or m == 0:
        return KernelPlan((out,), ())
    sort_buffers, sort_steps, keys = sorted_steps("set", m)
    g, params = grid_params("search_params", q, m, (m - 1).bit_length())
    search = Step(contains_program(), g.dispatch, {"sorted": keys, "params": "search_params"})
    return KernelPlan((out, params, *sort_buffers), (*sort_steps, search))


# ---------------------------------------------------------------------------
# References, laws, samplers
# ---------------------------------------------------------------------------


def _unique(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    values = np.unique(np.asarray(x, dtype=np.uint32))
    return values.astype(np.uint32), np.array([len(values)], dtype=np.uint32)


def _contains(keys: np.ndarray, queries: np.ndarray) -> tuple[np.ndarray]:
    return (np.isin(np.asarray(queries, np.uint32), np.asarray(keys, np.uint32)).astype(np.uint32),)


class UniqueLaws(KernelLaw):
    """unique: strictly increasing; the same set of values as the input; count
    = the output length <= n; unique(unique(x)) = unique(x); the input's order
    does not matter."""

    name = "StrictlyIncreasingSameSet"

    def check(self, op: Op, args: tuple[Any, ...]) -> str | None:
        x = np.asarray(args[0], dtype=np.uint32)
        out, count = (np.asarray(a, dtype=np.uint32) for a in op(x))
        if int(count[0]) != len(out) or len(out) > len(x):
            return f"count {int(count[0])}, output {len(out)} for {len(x)} inputs"
        bad = np.flatnonzero(out[1:] <= out[:-1])
        if bad.size:
            return f"out[{int(bad[0]) + 1}] = {int(out[bad[0] + 1])} <= out[{int(bad[0])}]"
        if not (np.isin(out, x).all() and np.isin(x, out).all()):
            return "the output's values are not the input's"
        if np.asarray(op(out)[0], dtype=np.uint32).tobytes() != out.tobytes():
            return "unique(unique(x)) != unique(x)"
        if np.asarray(op(x[::-1].copy())[0], dtype=np.uint32).tobytes() != out.tobytes():
            return "unique(reversed x) != unique(x)"
        return None


class ContainsLaws(KernelLaw):
    """contains(S, S) = all ones; monotone in S (S' ⊆ S ⇒ contains(S', q) <=
    contains(S, q)); neither the set's order nor its duplicates matter."""

    name = "SelfMonotoneOrder"

    def check(self, op: Op, args: tuple[Any, ...]) -> str | None:
        keys, queries = (np.asarray(a, dtype=np.uint32) for a in args)
        if len(keys) and not np.asarray(op(keys, keys)[0]).all():
            return "contains(S, S) is not all ones"
        whole = np.asarray(op(keys, queries)[0], dtype=np.uint32)
        part = np.asarray(op(keys[: len(keys) // 2], queries)[0], dtype=np.uint32)
        worse = np.flatnonzero(part > whole)
        if worse.size:
            return f"query {int(worse[0])} is in a subset of S but not in S"
        shuffled = np.concatenate([keys[::-1], keys[: len(keys) // 3]]).astype(np.uint32)
        if np.asarray(op(shuffled, queries)[0], dtype=np.uint32).tobytes() != whole.tobytes():
            return "reordering S or repeating its elements changed the result"
        return None


KERNELS = (
    KernelSpec(
        id="collection.unique_u32",
        version=1,
        inputs=(Port("x", DataType.U32),),
        outputs=(Port("out", DataType.U32, length_from="count"), Port("count", DataType.U32, scalar=True)),
        kind="scan-based",
        reference=_unique,
        plan=_dense_plan,
        replan=_unique_replan,
        alternative=_sorted_plan,
        summary="the sorted distinct values (np.unique) and their count: a bitset of the values when they are"
        " below n rounded up to a multiple of 8,192, else radix sort, head flags, compaction",
        laws=(UniqueLaws(),),
        sample=S.unique,
    ),
    KernelSpec(
        id="collection.contains_u32",
        version=1,
        inputs=(Port("set", DataType.U32), Port("queries", DataType.U32)),
        outputs=(Port("out", DataType.BOOL),),
        kind="scan-based",
        reference=_contains,
        plan=_contains_plan,
        summary="for each query whether it is in the set (np.isin): radix sort of the set, binary search per query",
        laws=(ContainsLaws(),),
        sample=S.contains,
    ),
)
