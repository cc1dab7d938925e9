"""graph.*: kernels over graphs in CSR form.

A graph of n nodes is `offsets` (CSR row_ptr, U32[n + 1]: node u's edges are
`targets[offsets[u] : offsets[u + 1]]`) and `targets` (CSR col_idx, U32[m]).
A valid CSR has offsets[0] = 0, non-decreasing offsets, offsets[n] = m and
every target below n; self loops and repeated edges are allowed. Anything else
is a `ValueError` naming the input and the first bad index (checked on the host
before any kernel runs: bad arguments get a ValueError naming the thing, as
everywhere in vyre's API, rather than a status word on the device). The
empty graph is offsets = [0], targets = [].

- `graph.csr_out_degree(offsets)` -> U32[n]: offsets[v + 1] - offsets[v]
  (`np.diff`); one grid-stride pass. It has a batched plan (`plan_many`): any
  number of graphs in one dispatch, each output index finding its graph by a
  binary search over the graphs' output starts.
- `graph.csr_in_degree(targets, n)` -> U32[n]: edges into each node
  (`np.bincount(targets, minlength=n)`), the privatised histogram of
  `stats.histogram_u32` (every target must be below n).
- `graph.bfs(offsets, targets, source)` -> (depth U32[n], parent U32[n]):
  directed BFS hop counts from `source`, NONE (0xFFFFFFFF) where unreachable;
  parent[v] is the **smallest** u with depth[u] = depth[v] - 1 and an edge
  u -> v, parent[source] = source, NONE where unreachable. `source` must be
  below n (`ValueError`), except that the empty graph (n = 0) gives empty
  outputs whatever the source (C5: n = 0 -> empty outputs).
- `graph.connected_components(offsets, targets)` -> U32[n]: every edge taken
  both ways (`scipy.sparse.csgraph.connected_components(directed=False)`); a
  node's label is the smallest node id of its component.

BFS, level-synchronous over frontier queues (Merrill, Garland, Grimshaw,
"Scalable GPU Graph Traversal", PPoPP 2012), an iterative op
(docs/kernels.md "Repeat"). The init step puts the source in queue A. A level
is two dispatches:

1. `expand_small`: the invocations walk the current queue grid-stride. A node
   with at most SMALL_DEGREE edges is expanded by its invocation; a larger one
   is appended to the `big` list (one atomic add), so no invocation loops over
   a huge adjacency list (lavapipe's loop cap, load balance).
2. `expand_big`: each workgroup takes big nodes grid-stride, its 256
   invocations walk the node's edges together. Invocation 0 clears the current
   queue's count and the other level's big count, which nothing reads in this
   dispatch, so the next level starts from empty lists.

Visiting an edge u -> v (u at depth d, read from `depth[u]`): a load of
depth[v] (a claimed node's depth never changes, so most edges stop there),
and when it is NONE `atomicCompareExchange(depth[v], NONE, d + 1)`; the one
winner appends v to the next queue (atomic add on its count) and every u that saw NONE or d + 1 does
`atomicMin(parent[v], u)` — every node at level d with an edge to v does so, so
parent[v] is the smallest one. Queue order varies from run to run; depth and
parent do not (C4). A round of the `Repeat` is two levels (queue A -> B, then
B -> A: the programs are bound with the queues swapped) and its flag is queue
A's count, the newest frontier's length; with an empty current queue a level
changes nothing, so the rounds wgpu runs past the last level are no-ops. At
most n levels: the plan allows n // 2 + 2 rounds.

Connected components: hooking and pointer jumping to a fixpoint (Shiloach-
Vishkin; ECL-CC, Jaiganesh & Burtscher, HPDC 2018). `label[v] = v`, and each
edge's source node is found once by a binary search in offsets. An iteration
is two dispatches: `hook`: for every edge (u, v) with label[u] != label[v],
`atomicMin(label[max], min)` of the two labels; `compress`: each node follows
its label JUMPS times and keeps the result. Labels only fall and stay within
the component, roots are minima, so the final root of a component is its
smallest id. Each iteration sets its own flag when a label falls (and its hook
clears the other iteration's flag); a round is two iterations and its flag is
the second's: clear means the first one reached the fixpoint, and a round after
it changes nothing. Bound: after an iteration every label is at most the labels
of the node's neighbours before it (the hook lowers the larger root, the
compress step follows at least one link), so after D iterations (D the largest
component diameter, < n) the labels are final and the next one sees no change:
the plan allows n // 2 + 2 rounds.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from functools import cache
from typing import Any

import numpy as np

from vyre.ir import AtomicOp, BufferDecl, DataType, Expr, Node, Program
from vyre.ir import Expr as E
from vyre.kernels import laws as K
from vyre.kernels import samplers as S
from vyre.kernels.families.common import NONE, WORKGROUP, grid, param, params_buffer
from vyre.kernels.families.stats import (
    MAX_PRIVATE_BINS,
    global_histogram_program,
    private_histogram_program,
    private_shape,
)
from vyre.kernels.spec import (
    BatchPlan,
    Buffer,
    DeviceCheck,
    KernelLaw,
    KernelPlan,
    KernelSpec,
    Port,
    Repeat,
    Step,
    batch_starts,
)

__all__ = [
    "GRAPH_BOUNDARIES",
    "JUMPS",
    "KERNELS",
    "MAX_NODES",
    "SMALL_DEGREE",
    "BfsLevels",
    "BfsParents",
    "DegreesSumToEdges",
    "LabelsAreComponents",
    "check_csr",
    "csr_check_program",
]

SMALL_DEGREE = 32
"""A frontier node with more edges is expanded by a whole workgroup."""
JUMPS = 8
"""Label links each node follows per connected-components round."""
MAX_NODES = 1 << 28
"""The most nodes of `graph.csr_in_degree` (its output is U32[n])."""
BIG_GROUP_EDGES = WORKGROUP * SMALL_DEGREE
"""Edges per workgroup of `expand_big` when sizing its grid."""

OFFSETS = Port("offsets", DataType.U32)
TARGETS = Port("targets", DataType.U32)


# ---------------------------------------------------------------------------
# Arguments
# ---------------------------------------------------------------------------


def check_rows(op_id: str, offsets: np.ndarray) -> np.ndarray:
    """`offsets` as a CSR row_ptr (U32 words) when it is one: at least one
    entry, offsets[0] = 0, non-decreasing; else a `ValueError` naming the input
    of `op_id` and the first bad index. Linear in len(offsets), whatever the
    edge count offsets[n] says."""
    where = f"input `offsets` of `{op_id}`"
    if len(offsets) == 0:
        raise ValueError(
            f"{where} must hold n + 1 >= 1 entries (CSR row_ptr; the empty graph is offsets = [0])"
        )
    row = np.asarray(offsets, dtype=np.uint32)
    if int(row[0]) != 0:
        raise ValueError(f"{where}: offsets[0] must be 0 (CSR row_ptr), got {int(row[0])}")
    falls = np.flatnonzero(row[1:] < row[:-1])
    if falls.size:
        i = int(falls[0]) + 1
        raise ValueError(
            f"{where} must be non-decreasing: offsets[{i}] = {int(row[i])} < offsets[{i - 1}] = {int(row[i - 1])}"
        )
    return row


def check_csr(op_id: str, offsets: np.ndarray, targets: np.ndarray) -> int:
    """The node count n of a valid CSR graph; else a `ValueError` naming the
    input of `op_id` and the first bad index."""
    where = f"input `offsets` of `{op_id}`"
    row = check_rows(op_id, offsets)
    m = len(targets)
    if int(row[-1]) != m:
        raise ValueError(
            f"{where}: offsets[n] = {int(row[-1])} must equal the number of targets ({m})"
        )
    n = len(row) - 1
    _check_targets(op_id, targets, n)
    return n


def _check_targets(op_id: str, targets: np.ndarray, n: int) -> None:
    if not len(targets):
        return
    bad = np.flatnonzero(np.asarray(targets, dtype=np.uint32) >= n)
    if bad.size:
        i = int(bad[0])
        raise ValueError(
            f"input `targets` of `{op_id}`: targets[{i}] = {int(targets[i])} is not a node (n = {n})"
        )


def _on_host(*values: object) -> bool:
    """True when every array is a host array (a `vyre.DeviceBuffer` is checked
    on the device by the op's `DeviceCheck`, see `csr_check_program`)."""
    return all(isinstance(v, np.ndarray) for v in values)


def _check_rows(op_id: str, offsets: Any) -> int:
    """n from the length of `offsets` (host or device)."""
    if len(offsets) == 0:
        raise ValueError(
            f"input `offsets` of `{op_id}` must hold n + 1 >= 1 entries (CSR row_ptr; the empty graph is offsets = [0])"
        )
    return len(offsets) - 1


def _check_graph(op_id: str) -> Callable[[tuple[Any, ...]], None]:
    def check(args: tuple[Any, ...]) -> None:
        if _on_host(args[0], args[1]):
            check_csr(op_id, args[0], args[1])
        else:
            _check_rows(op_id, args[0])

    return check


def _check_out_degree(args: tuple[Any, ...]) -> None:
    if not _on_host(args[0]):
        _check_rows("graph.csr_out_degree", args[0])
        return
    # the row pointers alone: no targets array of offsets[n] words is made
    # (offsets = [0, 2**32 - 1] is a valid graph of one node)
    check_rows("graph.csr_out_degree", args[0])


def _check_in_degree(args: tuple[Any, ...]) -> None:
    n = int(args[1])
    if n > MAX_NODES:
        raise ValueError(f"input `n` of `graph.csr_in_degree` must be at most {MAX_NODES}, got {n}")
    if _on_host(args[0]):
        _check_targets("graph.csr_in_degree", args[0], n)


def _check_bfs(args: tuple[Any, ...]) -> None:
    if _on_host(args[0], args[1]):
        n = check_csr("graph.bfs", args[0], args[1])
    else:
        n = _check_rows("graph.bfs", args[0])
    source = int(args[2])
    if n and source >= n:
        raise ValueError(f"input `source` of `graph.bfs` must be a node (< n = {n}), got {source}")


# ---------------------------------------------------------------------------
# Shared pieces of the programs
# ---------------------------------------------------------------------------


def _gid() -> Expr:
    return E.add(E.mul(E.workgroup_id(0), E.u32(WORKGROUP)), E.local_id(0))


def _search_last_le(array: str, count: Expr, value: Expr, steps: Expr, prefix: str) -> list[Node]:
    """Binary search: variable `{prefix}lo` = the largest u < count with
    array[u] <= value, for non-decreasing array[0..count) with array[0] <=
    value (`steps` >= bit length of count iterations, a uniform bound)."""
    lo, hi = f"{prefix}lo", f"{prefix}hi"
    mid = E.shr(E.add(E.var(lo), E.var(hi)), E.u32(1))
    return [
        Node.let(lo, E.u32(0)),
        Node.let(hi, count),
        Node.loop(
            f"{prefix}step",
            E.u32(0),
            steps,
            [
                Node.if_(
                    E.gt(E.sub(E.var(hi), E.var(lo)), E.u32(1)),
                    [
                        Node.let(f"{prefix}mid", mid),
                        Node.if_(
                            E.le(E.load(array, E.var(f"{prefix}mid")), value),
                            [Node.assign(lo, E.var(f"{prefix}mid"))],
                            [Node.assign(hi, E.var(f"{prefix}mid"))],
                        ),
                    ],
                )
            ],
        ),
    ]


def _ceil_div(a: Expr, b: Expr) -> Expr:
    return E.div(E.add(a, E.sub(b, E.u32(1))), b)


# ---------------------------------------------------------------------------
# graph.csr_out_degree
# ---------------------------------------------------------------------------


@cache
def out_degree_program() -> Program:
    """out[j] = offsets[j + g + 1] - offsets[j + g] for the graph g whose
    outputs hold j (`starts[g]` = the first output of graph g, `graphs` of them;
    a single graph is the batch of one). params = [outputs, stride, rounds,
    graphs, search steps]."""
    j = E.var("j")
    at = E.add(j, E.var("s_lo"))
    body = [
        Node.let("first", _gid()),
        Node.loop(
            "k",
            E.u32(0),
            param(2),
            [
                Node.let("j", E.add(E.var("first"), E.mul(E.var("k"), param(1)))),
                Node.if_(
                    E.lt(j, param(0)),
                    [
                        *_search_last_le("starts", param(3), j, param(4), "s_"),
                        Node.store("out", j, E.sub(E.load("offsets", E.add(at, E.u32(1))), E.load("offsets", at))),
                    ],
                ),
            ],
        ),
    ]
    return Program(
        buffers=[
            BufferDecl.read("offsets", 0, DataType.U32),
            BufferDecl.read_write("out", 1, DataType.U32),
            BufferDecl.read("starts", 2, DataType.U32),
            BufferDecl.uniform("params", 3, DataType.U32),
        ],
        workgroup_size=(WORKGROUP, 1, 1),
        entry=body,
        name="graph_csr_out_degree",
    )


def _out_degree_plan_of(rows: Sequence[int]) -> tuple[KernelPlan, tuple[int, ...]]:
    """The plan over the offsets of graphs with `rows` entries each (n_g + 1),
    laid end to end; returns it and each graph's first output O_g. Graph g's
    offsets start at word W_g = sum of the rows before it and W_g - O_g = g
    (every graph has one more offset than outputs), so output j of graph g
    reads offsets[j + g]; g is the last graph with O_g <= j (an empty graph
    has O_g = O_g+1 and is never the last)."""
    firsts = batch_starts(DataType.U32, [max(0, count - 1) for count in rows])
    total = firsts[-1]
    out = Buffer("out", DataType.U32, total)
    if total == 0:
        return KernelPlan((out,), ()), firsts[:-1]
    starts = np.array(firsts[:-1], dtype=np.uint32)
    g = grid(total)
    params = params_buffer("params", [total, g.stride, g.iterations, len(rows), len(rows).bit_length()])
    plan = KernelPlan(
        (out, Buffer("starts", DataType.U32, len(starts), words=starts), params),
        (Step(out_degree_program(), g.dispatch),),
    )
    return plan, firsts[:-1]


def _out_degree_plan(sizes: Mapping[str, int], scalars: Mapping[str, int]) -> KernelPlan:
    return _out_degree_plan_of([int(sizes["offsets"])])[0]


def _out_degree_many(sizes: Sequence[Mapping[str, int]], scalars: Sequence[Mapping[str, int]]) -> BatchPlan:
    rows = [int(s["offsets"]) for s in sizes]
    plan, firsts = _out_degree_plan_of(rows)
    return BatchPlan(plan, {"out": tuple((f, max(0, c - 1)) for f, c in zip(firsts, rows))})


# ---------------------------------------------------------------------------
# graph.csr_in_degree: the histogram of the targets
# ---------------------------------------------------------------------------


def _in_degree_plan(sizes: Mapping[str, int], scalars: Mapping[str, int]) -> KernelPlan:
    m, n = int(sizes["targets"]), int(scalars["n"])
    out = Buffer("out", DataType.U32, n)
    if m == 0 or n == 0:
        return KernelPlan((out,), ())
    g = grid(m)
    params = params_buffer("params", [m, g.stride, g.iterations, n])
    if n <= MAX_PRIVATE_BINS:
        program = private_histogram_program(*private_shape(n), False)
    else:
        program = global_histogram_program()
    return KernelPlan((out, params), (Step(program, g.dispatch, {"x": "targets"}),))


# ---------------------------------------------------------------------------
# graph.bfs
# ---------------------------------------------------------------------------


def _visit(u: Expr, v: Expr, prefix: str) -> list[Node]:
    """Edge u -> v from the current level (depth[u] + 1 = `_nl`): claim v (the
    one winner appends it to the next queue) and offer u as its parent."""
    old, nl = f"{prefix}old", E.var("_nl")
    # a plain (atomic) load first: most edges reach nodes already claimed,
    # whose depth never changes again, and need no read-modify-write
    return [
        Node.let(f"{prefix}v", v),
        Node.let(old, E.load("depth", E.var(f"{prefix}v"))),
        Node.if_(
            E.eq(E.var(old), E.u32(NONE)),
            [
                Node.assign(old, E.atomic(AtomicOp.COMPARE_EXCHANGE, "depth", E.var(f"{prefix}v"), nl, E.u32(NONE))),
                Node.if_(
                    E.eq(E.var(old), E.u32(NONE)),
                    [
                        Node.let(f"{prefix}slot", E.atomic(AtomicOp.ADD, "next_count", E.u32(0), E.u32(1))),
                        Node.store("next", E.var(f"{prefix}slot"), E.var(f"{prefix}v")),
                    ],
                ),
            ],
        ),
        Node.if_(
            E.or_(E.eq(E.var(old), E.u32(NONE)), E.eq(E.var(old), nl)),
            [Node.let(f"{prefix}p", E.atomic(AtomicOp.MIN, "parent", E.var(f"{prefix}v"), u))],
        ),
    ]


def _bfs_buffers(*extra: BufferDecl) -> list[BufferDecl]:
    return [
        BufferDecl.read("offsets", 0, DataType.U32),
        BufferDecl.read("targets", 1, DataType.U32),
        BufferDecl.read_write("depth", 2, DataType.U32),
        BufferDecl.read_write("parent", 3, DataType.U32),
        BufferDecl.read_write("next", 4, DataType.U32),
        BufferDecl.read_write("next_count", 5, DataType.U32),
        BufferDecl.read("params", 6, DataType.U32),
        *extra,
    ]


@cache
def bfs_expand_small_program() -> Program:
    """Walk the current queue grid-stride; expand nodes of at most SMALL_DEGREE
    edges, append the others to `big`. params = [n, m, source, stride, groups]."""
    u = E.var("u")
    start, end = E.var("start"), E.var("end")
    expand = [
        Node.let("_nl", E.add(E.load("depth", u), E.u32(1))),
        Node.let("start", E.load("offsets", u)),
        Node.let("end", E.load("offsets", E.add(u, E.u32(1)))),
        Node.if_(
            E.gt(E.sub(end, start), E.u32(SMALL_DEGREE)),
            [
                Node.let("slot", E.atomic(AtomicOp.ADD, "big_count", E.u32(0), E.u32(1))),
                Node.store("big", E.var("slot"), u),
            ],
            [Node.loop("e", start, end, _visit(u, E.load("targets", E.var("e")), "s_"))],
        ),
    ]
    body = [
        Node.let("first", _gid()),
        Node.let("count", E.load("cur_count", E.u32(0))),
        Node.loop(
            "k",
            E.u32(0),
            _ceil_div(E.var("count"), param(3)),
            [
                Node.let("i", E.add(E.var("first"), E.mul(E.var("k"), param(3)))),
                Node.if_(E.lt(E.var("i"), E.var("count")), [Node.let("u", E.load("cur", E.var("i"))), *expand]),
            ],
        ),
    ]
    return Program(
        buffers=_bfs_buffers(
            BufferDecl.read("cur", 7, DataType.U32),
            BufferDecl.read("cur_count", 8, DataType.U32),
            BufferDecl.read_write("big", 9, DataType.U32),
            BufferDecl.read_write("big_count", 10, DataType.U32),
        ),
        workgroup_size=(WORKGROUP, 1, 1),
        entry=body,
        name="graph_bfs_expand_small",
    )


@cache
def bfs_expand_big_program() -> Program:
    """Workgroup w expands big nodes w, w + groups, ...; its invocations walk
    the node's edges together. Invocation 0 also clears the current queue's
    count and the other level's big count (nothing reads them in this
    dispatch), so the next level starts from empty lists.
    params = [n, m, source, stride, groups]."""
    local = E.local_id(0)
    u = E.var("u")
    edge = E.add(E.add(E.var("start"), local), E.mul(E.var("t"), E.u32(WORKGROUP)))
    per_node = [
        Node.let("u", E.load("big", E.var("j"))),
        Node.let("_nl", E.add(E.load("depth", u), E.u32(1))),
        Node.let("start", E.load("offsets", u)),
        Node.let("end", E.load("offsets", E.add(u, E.u32(1)))),
        Node.loop(
            "t",
            E.u32(0),
            _ceil_div(E.sub(E.var("end"), E.var("start")), E.u32(WORKGROUP)),
            [
                Node.let("edge", edge),
                Node.if_(E.lt(E.var("edge"), E.var("end")), _visit(u, E.load("targets", E.var("edge")), "b_")),
            ],
        ),
    ]
    body = [
        Node.let("count", E.load("big_count", E.u32(0))),
        Node.loop(
            "k",
            E.u32(0),
            _ceil_div(E.var("count"), param(4)),
            [
                Node.let("j", E.add(E.workgroup_id(0), E.mul(E.var("k"), param(4)))),
                Node.if_(E.lt(E.var("j"), E.var("count")), per_node),
            ],
        ),
        Node.if_(
            E.eq(_gid(), E.u32(0)),
            [Node.store("cur_count", E.u32(0), E.u32(0)), Node.store("other_big_count", E.u32(0), E.u32(0))],
        ),
    ]
    return Program(
        buffers=_bfs_buffers(
            BufferDecl.read("big", 7, DataType.U32),
            BufferDecl.read("big_count", 8, DataType.U32),
            BufferDecl.read_write("cur_count", 9, DataType.U32),
            BufferDecl.read_write("other_big_count", 10, DataType.U32),
        ),
        workgroup_size=(WORKGROUP, 1, 1),
        entry=body,
        name="graph_bfs_expand_big",
    )


@cache
def bfs_init_program() -> Program:
    """One invocation: depth[source] = 0, parent[source] = source, queue A =
    [source] (its count starts at 1). params = [n, m, source, ...]."""
    source = param(2)
    return Program(
        buffers=[
            BufferDecl.read_write("depth", 0, DataType.U32),
            BufferDecl.read_write("parent", 1, DataType.U32),
            BufferDecl.read_write("queue", 2, DataType.U32),
            BufferDecl.read("params", 3, DataType.U32),
        ],
        workgroup_size=(1, 1, 1),
        entry=[
            Node.store("depth", source, E.u32(0)),
            Node.store("parent", source, source),
            Node.store("queue", E.u32(0), source),
        ],
        name="graph_bfs_init",
    )


def _bfs_plan(sizes: Mapping[str, int], scalars: Mapping[str, int]) -> KernelPlan:
    n = max(0, int(sizes["offsets"]) - 1)
    m = int(sizes["targets"])
    depth = Buffer("depth", DataType.U32, n, fill=NONE)
    parent = Buffer("parent", DataType.U32, n, fill=NONE)
    if n == 0:
        return KernelPlan((depth, parent), ())
    source = int(scalars["source"])
    small = grid(n)
    big_groups = max(1, min(small.groups, -(-m // BIG_GROUP_EDGES)))
    params = np.array([n, m, source, small.stride, big_groups], dtype=np.uint32)
    buffers = (
        depth,
        parent,
        Buffer("queue_a", DataType.U32, n),
        Buffer("queue_b", DataType.U32, n),
        Buffer("count_a", DataType.U32, 1, fill=1),
        Buffer("count_b", DataType.U32, 1),
        Buffer("big", DataType.U32, n),
        Buffer("big_count_a", DataType.U32, 1),
        Buffer("big_count_b", DataType.U32, 1),
        Buffer("params", DataType.U32, len(params), words=params),
    )

    def level(cur: str, nxt: str) -> tuple[Step, ...]:
        queues = {"cur": f"queue_{cur}", "cur_count": f"count_{cur}", "next": f"queue_{nxt}", "next_count": f"count_{nxt}"}
        return (
            Step(bfs_expand_small_program(), small.dispatch, {**queues, "big_count": f"big_count_{cur}"}),
            Step(
                bfs_expand_big_program(),
                (big_groups, 1, 1),
                {**queues, "big_count": f"big_count_{cur}", "other_big_count": f"big_count_{nxt}"},
            ),
        )

    steps = (Step(bfs_init_program(), (1, 1, 1), {"queue": "queue_a"}), *level("a", "b"), *level("b", "a"))
    # a round is two levels; after it, count_a is the length of the newest frontier
    rounds = Repeat(1, len(steps), until="count_a", max_rounds=n // 2 + 2, rounds_per_check=4)
    return KernelPlan(buffers, steps, repeats=(rounds,))


# ---------------------------------------------------------------------------
# graph.connected_components
# ---------------------------------------------------------------------------


@cache
def cc_init_program() -> Program:
    """label[v] = v for v < n; source[e] = the node whose edge e is, by binary
    search in offsets, for e < m. params = [n, m, stride, node rounds, edge
    rounds, search steps]."""
    v, e = E.var("v"), E.var("e")
    body = [
        Node.let("first", _gid()),
        Node.loop(
            "k",
            E.u32(0),
            param(3),
            [
                Node.let("v", E.add(E.var("first"), E.mul(E.var("k"), param(2)))),
                Node.if_(E.lt(v, param(0)), [Node.store("label", v, v)]),
            ],
        ),
        Node.loop(
            "r",
            E.u32(0),
            param(4),
            [
                Node.let("e", E.add(E.var("first"), E.mul(E.var("r"), param(2)))),
                Node.if_(
                    E.lt(e, param(1)),
                    [*_search_last_le("offsets", param(0), e, param(5), "q_"), Node.store("source", e, E.var("q_lo"))],
                ),
            ],
        ),
    ]
    return Program(
        buffers=[
            BufferDecl.read("offsets", 0, DataType.U32),
            BufferDecl.read_write("label", 1, DataType.U32),
            BufferDecl.read_write("source", 2, DataType.U32),
            BufferDecl.read("params", 3, DataType.U32),
        ],
        workgroup_size=(WORKGROUP, 1, 1),
        entry=body,
        name="graph_cc_init",
    )


@cache
def cc_hook_program() -> Program:
    """For every edge (u, v) whose labels differ: atomicMin(label[larger],
    smaller); `changed` is set when a label falls. Invocation 0 clears `other`,
    the flag of the other half-round. params as cc_init."""
    e = E.var("e")
    a, b = E.var("a"), E.var("b")
    hook = [
        Node.let("a", E.load("label", E.load("source", e))),
        Node.let("b", E.load("label", E.load("targets", e))),
        Node.if_(
            E.ne(a, b),
            [
                Node.let("high", E.select(E.gt(a, b), a, b)),
                Node.let("low", E.select(E.gt(a, b), b, a)),
                Node.let("old", E.atomic(AtomicOp.MIN, "label", E.var("high"), E.var("low"))),
                Node.if_(E.gt(E.var("old"), E.var("low")), [Node.store("changed", E.u32(0), E.u32(1))]),
            ],
        ),
    ]
    body = [
        Node.let("first", _gid()),
        Node.loop(
            "r",
            E.u32(0),
            param(4),
            [
                Node.let("e", E.add(E.var("first"), E.mul(E.var("r"), param(2)))),
                Node.if_(E.lt(e, param(1)), hook),
            ],
        ),
        Node.if_(E.eq(E.var("first"), E.u32(0)), [Node.store("other", E.u32(0), E.u32(0))]),
    ]
    return Program(
        buffers=[
            BufferDecl.read("targets", 0, DataType.U32),
            BufferDecl.read("source", 1, DataType.U32),
            BufferDecl.read_write("label", 2, DataType.U32),
            BufferDecl.read_write("changed", 3, DataType.U32),
            BufferDecl.read_write("other", 4, DataType.U32),
            BufferDecl.read("params", 5, DataType.U32),
        ],
        workgroup_size=(WORKGROUP, 1, 1),
        entry=body,
        name="graph_cc_hook",
    )


@cache
def cc_compress_program() -> Program:
    """Every node follows its label JUMPS times and keeps what it reached (a
    smaller label: the flag is set). params as cc_init."""
    v = E.var("v")
    jump = [
        Node.let("at", E.load("label", v)),
        Node.let("p", E.var("at")),
        *[Node.assign("p", E.load("label", E.var("p"))) for _ in range(JUMPS)],
        Node.if_(
            E.lt(E.var("p"), E.var("at")),
            [Node.store("label", v, E.var("p")), Node.store("changed", E.u32(0), E.u32(1))],
        ),
    ]
    body = [
        Node.let("first", _gid()),
        Node.loop(
            "k",
            E.u32(0),
            param(3),
            [
                Node.let("v", E.add(E.var("first"), E.mul(E.var("k"), param(2)))),
                Node.if_(E.lt(v, param(0)), jump),
            ],
        ),
    ]
    return Program(
        buffers=[
            BufferDecl.read_write("label", 0, DataType.U32),
            BufferDecl.read_write("changed", 1, DataType.U32),
            BufferDecl.read("params", 2, DataType.U32),
        ],
        workgroup_size=(WORKGROUP, 1, 1),
        entry=body,
        name="graph_cc_compress",
    )


def _cc_plan(sizes: Mapping[str, int], scalars: Mapping[str, int]) -> KernelPlan:
    n = max(0, int(sizes["offsets"]) - 1)
    m = int(sizes["targets"])
    label = Buffer("label", DataType.U32, n)
    if n == 0:
        return KernelPlan((label,), ())
    g = grid(max(n, m))
    rounds_n, rounds_m = -(-n // g.stride), -(-m // g.stride)
    params = np.array([n, m, g.stride, rounds_n, rounds_m, n.bit_length()], dtype=np.uint32)
    buffers = (
        label,
        Buffer("source", DataType.U32, m),
        Buffer("changed_1", DataType.U32, 1),
        Buffer("changed_2", DataType.U32, 1),
        Buffer("params", DataType.U32, len(params), words=params),
    )

    def iteration(mine: str, other: str) -> tuple[Step, ...]:
        return (
            Step(cc_hook_program(), g.dispatch, {"changed": mine, "other": other}),
            Step(cc_compress_program(), g.dispatch, {"changed": mine}),
        )

    steps = (Step(cc_init_program(), g.dispatch), *iteration("changed_1", "changed_2"), *iteration("changed_2", "changed_1"))
    # a round is two iterations, each setting its own flag (and clearing the
    # other's): a clear changed_2 after the round means the second iteration
    # changed nothing, so the first one's result is the fixpoint. No edge:
    # every node is its own component, no round needed.
    rounds = Repeat(1, 5, until="changed_2", max_rounds=n // 2 + 2 if m else 0, rounds_per_check=4)
    return KernelPlan(buffers, steps, repeats=(rounds,))


# ---------------------------------------------------------------------------
# The CSR check on the device (inputs given as vyre.DeviceBuffer)
# ---------------------------------------------------------------------------


@cache
def csr_check_program(with_offsets: bool, with_targets: bool) -> Program:
    """One grid-stride pass over max(n + 1, m) indices: status[0] = the first
    bad index of offsets (0 when offsets[0] != 0, i + 1 when offsets[i + 1] <
    offsets[i]), status[1] = the first target >= n, status[2] = offsets[n]
    (atomicMin of indices: the first one whatever the schedule). params = [n,
    m, stride, rounds]."""
    i = E.var("i")
    n = param(0)
    checks: list[Node] = []
    if with_offsets:
        checks += [
            Node.if_(
                E.and_(E.eq(i, E.u32(0)), E.ne(E.load("offsets", E.u32(0)), E.u32(0))),
                [Node.let("o0", E.atomic(AtomicOp.MIN, "status", E.u32(0), E.u32(0)))],
            ),
            Node.if_(
                E.and_(E.lt(i, n), E.lt(E.load("offsets", E.add(i, E.u32(1))), E.load("offsets", i))),
                [Node.let("o1", E.atomic(AtomicOp.MIN, "status", E.u32(0), E.add(i, E.u32(1))))],
            ),
            Node.if_(E.eq(i, n), [Node.store("status", E.u32(2), E.load("offsets", n))]),
        ]
    if with_targets:
        checks.append(
            Node.if_(
                E.and_(E.lt(i, param(1)), E.ge(E.load("targets", i), n)),
                [Node.let("t1", E.atomic(AtomicOp.MIN, "status", E.u32(1), i))],
            )
        )
    body = [
        Node.let("first", _gid()),
        Node.loop("k", E.u32(0), param(3), [Node.let("i", E.add(E.var("first"), E.mul(E.var("k"), param(2)))), *checks]),
    ]
    buffers: list[BufferDecl] = []
    if with_offsets:
        buffers.append(BufferDecl.read("offsets", len(buffers), DataType.U32))
    if with_targets:
        buffers.append(BufferDecl.read("targets", len(buffers), DataType.U32))
    buffers += [
        BufferDecl.read_write("status", len(buffers), DataType.U32),
        BufferDecl.read("params", len(buffers) + 1, DataType.U32),
    ]
    kind = "_".join(k for k, on in (("offsets", with_offsets), ("targets", with_targets)) if on)
    return Program(buffers=buffers, workgroup_size=(WORKGROUP, 1, 1), entry=body, name=f"graph_check_{kind}")


def _csr_check(op_id: str, with_offsets: bool, with_targets: bool) -> DeviceCheck:
    def sizes_of(sizes: Mapping[str, int], scalars: Mapping[str, int]) -> tuple[int, int]:
        n = int(sizes["offsets"]) - 1 if with_offsets else int(scalars["n"])
        return n, int(sizes["targets"]) if with_targets else 0

    def plan(sizes: Mapping[str, int], scalars: Mapping[str, int]) -> KernelPlan:
        n, m = sizes_of(sizes, scalars)
        g = grid(max(n + 1, m) if with_offsets else m)
        params = np.array([n, m, g.stride, g.iterations], dtype=np.uint32)
        status = np.array([NONE, NONE, 0], dtype=np.uint32)
        return KernelPlan(
            (Buffer("status", DataType.U32, 3, words=status), Buffer("params", DataType.U32, 4, words=params)),
            (Step(csr_check_program(with_offsets, with_targets), g.dispatch),),
        )

    def message(sizes: Mapping[str, int], scalars: Mapping[str, int], status: np.ndarray) -> str | None:
        n, m = sizes_of(sizes, scalars)
        where = f"input `offsets` of `{op_id}`"
        bad_offset, bad_target, last = (int(w) for w in status[:3])
        if with_offsets:
            if bad_offset == 0:
                return f"{where}: offsets[0] must be 0 (CSR row_ptr)"
            if bad_offset != NONE:
                return f"{where} must be non-decreasing: offsets[{bad_offset}] < offsets[{bad_offset - 1}]"
            if with_targets and last != m:
                return f"{where}: offsets[n] = {last} must equal the number of targets ({m})"
        if with_targets and bad_target != NONE:
            return f"input `targets` of `{op_id}`: targets[{bad_target}] is not a node (n = {n})"
        return None

    return DeviceCheck(plan, message)


# ---------------------------------------------------------------------------
# References (numpy)
# ---------------------------------------------------------------------------


def _edge_sources(offsets: np.ndarray) -> np.ndarray:
    n = len(offsets) - 1
    return np.repeat(np.arange(n, dtype=np.int64), np.diff(np.asarray(offsets, dtype=np.int64)))


def _out_degree_reference(offsets: np.ndarray) -> tuple[np.ndarray]:
    _check_out_degree((offsets,))
    return (np.diff(np.asarray(offsets, dtype=np.int64)).astype(np.uint32),)


def _in_degree_reference(targets: np.ndarray, n: int) -> tuple[np.ndarray]:
    _check_in_degree((targets, n))
    return (np.bincount(np.asarray(targets, dtype=np.int64), minlength=n).astype(np.uint32),)


def _bfs_reference(offsets: np.ndarray, targets: np.ndarray, source: int) -> tuple[np.ndarray, np.ndarray]:
    _check_bfs((offsets, targets, source))
    n = len(offsets) - 1
    depth = np.full(n, NONE, dtype=np.int64)
    parent = np.full(n, NONE, dtype=np.int64)
    if n:
        depth[source], parent[source] = 0, source
        tails = _edge_sources(offsets)
        heads = np.asarray(targets, dtype=np.int64)
        level = 0
        while True:
            leaving = depth[tails] == level
            u, v = tails[leaving], heads[leaving]
            fresh = depth[v] == NONE
            u, v = u[fresh], v[fresh]
            if not len(v):
                break
            depth[v] = level + 1
            np.minimum.at(parent, v, u)
            level += 1
    return depth.astype(np.uint32), parent.astype(np.uint32)


def _cc_reference(offsets: np.ndarray, targets: np.ndarray) -> tuple[np.ndarray]:
    _check_graph("graph.connected_components")((offsets, targets))
    n = len(offsets) - 1
    label = np.arange(n, dtype=np.int64)
    tails = _edge_sources(offsets)
    heads = np.asarray(targets, dtype=np.int64)
    while True:  # min-label propagation over both directions, with pointer jumping
        low = np.minimum(label[tails], label[heads])
        new = label.copy()
        np.minimum.at(new, tails, low)
        np.minimum.at(new, heads, low)
        while True:
            jumped = new[new]
            if np.array_equal(jumped, new):
                break
            new = jumped
        if np.array_equal(new, label):
            return (label.astype(np.uint32),)
        label = new


# ---------------------------------------------------------------------------
# Laws
# ---------------------------------------------------------------------------

Op = Callable[..., tuple[np.ndarray, ...]]


class DegreesSumToEdges(KernelLaw):
    """One degree per node, and the degrees add up to m (Σ out = Σ in = m)."""

    name = "DegreesSumToEdges"

    def __init__(self, direction: str):
        self.direction = direction
        self.name = f"DegreesSumToEdges({direction})"

    def check(self, op: Op, args: tuple[Any, ...]) -> str | None:
        degrees = op(*args)[0]
        if self.direction == "out":
            offsets = np.asarray(args[0])
            n, m = len(offsets) - 1, int(offsets[-1])
        else:
            n, m = int(args[1]), len(args[0])
        if degrees.shape != (n,):
            return f"{degrees.size} degrees for {n} nodes"
        total = int(degrees.astype(np.uint64).sum())
        return None if total == m else f"the {self.direction}-degrees add up to {total}, m = {m}"


class BfsLevels(KernelLaw):
    """depth[source] = 0 and only there; for every edge u -> v with u reached,
    v is reached and depth[v] <= depth[u] + 1."""

    name = "BfsLevels"

    def check(self, op: Op, args: tuple[Any, ...]) -> str | None:
        offsets, targets, source = args
        depth = op(*args)[0].astype(np.int64)
        n = len(offsets) - 1
        if depth.shape != (n,):
            return f"{depth.size} depths for {n} nodes"
        if not n:
            return None
        zeros = np.flatnonzero(depth == 0)
        if zeros.tolist() != [source]:
            return f"depth 0 at {zeros[:4].tolist()}, expected only the source {source}"
        tails, heads = _edge_sources(offsets), np.asarray(targets, dtype=np.int64)
        reached = depth[tails] != NONE
        bad = np.flatnonzero(reached & ((depth[heads] == NONE) | (depth[heads] > depth[tails] + 1)))
        if bad.size:
            e = int(bad[0])
            u, v = int(tails[e]), int(heads[e])
            return f"edge {u} -> {v}: depth[{u}] = {int(depth[u])} but depth[{v}] = {int(depth[v]):#x}"
        return None


class BfsParents(KernelLaw):
    """parent[source] = source; an unreached node has parent NONE; a reached
    node v has the smallest u with an edge u -> v and depth[u] = depth[v] - 1."""

    name = "BfsParents"

    def check(self, op: Op, args: tuple[Any, ...]) -> str | None:
        offsets, targets, source = args
        depth, parent = (a.astype(np.int64) for a in op(*args)[:2])
        n = len(offsets) - 1
        if parent.shape != (n,):
            return f"{parent.size} parents for {n} nodes"
        if not n:
            return None
        tails, heads = _edge_sources(offsets), np.asarray(targets, dtype=np.int64)
        tree = (depth[tails] != NONE) & (depth[heads] == depth[tails] + 1)
        best = np.full(n, NONE, dtype=np.int64)
        np.minimum.at(best, heads[tree], tails[tree])
        best[source] = source
        best[depth == NONE] = NONE
        bad = np.flatnonzero(parent != best)
        if bad.size:
            v = int(bad[0])
            return f"parent[{v}] = {int(parent[v]):#x}, the smallest node one level up with an edge to {v} is {int(best[v]):#x}"
        return None


class LabelsAreComponents(KernelLaw):
    """label[v] <= v and label[label[v]] = label[v]; an edge's ends share a
    label; every node reaches its label through edges (taken both ways) of its
    own label: the labels are exactly the components, named by their minimum."""

    name = "LabelsAreComponents"

    def check(self, op: Op, args: tuple[Any, ...]) -> str | None:
        offsets, targets = args
        label = op(*args)[0].astype(np.int64)
        n = len(offsets) - 1
        if label.shape != (n,):
            return f"{label.size} labels for {n} nodes"
        nodes = np.arange(n, dtype=np.int64)
        above = np.flatnonzero(label > nodes)
        if above.size:
            v = int(above[0])
            return f"label[{v}] = {int(label[v])} is above {v}"
        if n and not np.array_equal(label[label], label):
            v = int(np.flatnonzero(label[label] != label)[0])
            return f"label[{v}] = {int(label[v])} is not a root: its label is {int(label[label[v]])}"
        tails, heads = _edge_sources(offsets), np.asarray(targets, dtype=np.int64)
        split = np.flatnonzero(label[tails] != label[heads])
        if split.size:
            e = int(split[0])
            return f"edge {int(tails[e])} - {int(heads[e])} joins labels {int(label[tails[e]])} and {int(label[heads[e]])}"
        reached = label == nodes
        while True:
            grown = reached.copy()
            grown[heads[reached[tails]]] = True
            grown[tails[reached[heads]]] = True
            if np.array_equal(grown, reached):
                break
            reached = grown
        if not reached.all():
            v = int(np.flatnonzero(~reached)[0])
            return f"node {v} is not connected to its label {int(label[v])}"
        return None


# ---------------------------------------------------------------------------
# Samplers: valid CSR graphs for the proof system
# ---------------------------------------------------------------------------

GRAPH_BOUNDARIES = (0, 1, 2, 3, 5, 31, 32, 33, 64, 255, 256, 257, 1000)
"""Node counts every graph op is checked on: the empty graph, one node, the
small-degree threshold and the workgroup size +- 1."""

def _add(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return (a.astype(np.uint64) + b.astype(np.uint64)).astype(np.uint32)


KERNELS = (
    KernelSpec(
        id="graph.csr_out_degree",
        version=1,
        inputs=(OFFSETS,),
        outputs=(Port("out", DataType.U32),),
        kind="map",
        reference=_out_degree_reference,
        plan=_out_degree_plan,
        summary="out-degree of each node of a CSR graph, U32[n] (np.diff(offsets))",
        laws=(DegreesSumToEdges("out"),),
        boundaries=GRAPH_BOUNDARIES,
        check_args=_check_out_degree,
        device_check=_csr_check("graph.csr_out_degree", True, False),
        sample=S.graph_out_degree,
        plan_many=_out_degree_many,
    ),
    KernelSpec(
        id="graph.csr_in_degree",
        version=1,
        inputs=(TARGETS, Port("n", DataType.U32, scalar=True)),
        outputs=(Port("out", DataType.U32),),
        kind="reduce",
        reference=_in_degree_reference,
        plan=_in_degree_plan,
        summary=f"in-degree of each of n nodes, U32[n] (np.bincount(targets, minlength=n); n <= {MAX_NODES})",
        laws=(DegreesSumToEdges("in"), K.SplitCombine(_add), K.PermutationInvariant()),
        boundaries=GRAPH_BOUNDARIES,
        check_args=_check_in_degree,
        device_check=_csr_check("graph.csr_in_degree", False, True),
        sample=S.graph_in_degree,
    ),
    KernelSpec(
        id="graph.bfs",
        version=1,
        inputs=(OFFSETS, TARGETS, Port("source", DataType.U32, scalar=True)),
        outputs=(Port("depth", DataType.U32), Port("parent", DataType.U32)),
        kind="iterative",
        reference=_bfs_reference,
        plan=_bfs_plan,
        summary="BFS hop count of each node from source (0xFFFFFFFF unreachable) and the smallest parent one level up",
        laws=(BfsLevels(), BfsParents()),
        boundaries=GRAPH_BOUNDARIES,
        check_args=_check_bfs,
        device_check=_csr_check("graph.bfs", True, True),
        sample=S.graph_bfs,
    ),
    KernelSpec(
        id="graph.connected_components",
        version=1,
        inputs=(OFFSETS, TARGETS),
        outputs=(Port("label", DataType.U32),),
        kind="iterative",
        reference=_cc_reference,
        plan=_cc_plan,
        summary="component of each node, edges taken both ways, named by its smallest node id",
        laws=(LabelsAreComponents(),),
        boundaries=GRAPH_BOUNDARIES,
        check_args=_check_graph("graph.connected_components"),
        device_check=_csr_check("graph.connected_components", True, True),
        sample=S.graph_components,
    ),
)
