"""Atomics on workgroup buffers (docs/kernels.md, "Workgroup atomics") on the
reference interpreter and on wgpu, against oracles computed here with numpy:
per-workgroup memory, relaxed atomics made visible by a barrier, an index at or
past the declared count runs nothing and returns 0, memory starts zeroed in
every workgroup."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import numpy as np
import numpy.typing as npt
import pytest

from vyre.ir import AtomicOp, BufferDecl, DataType, Program
from vyre.ir import Expr as E
from vyre.ir import Node as N
from vyre.runtime.interp.errors import InterpError
from vyre.testing.backends import execute_interp, execute_interp_unchecked, execute_wgpu

pytestmark = pytest.mark.usefixtures("gpu_adapter")

Words = dict[str, npt.NDArray[np.uint32]]
Runner = Callable[[Program, Mapping[str, npt.NDArray[np.uint32]], Sequence[int]], Words]

BACKENDS: dict[str, Runner] = {
    "interp": lambda p, w, d: execute_interp(p, w, d),
    "interp-reversed": lambda p, w, d: execute_interp(p, w, d, lane_order="reversed"),
    "wgpu": lambda p, w, d: execute_wgpu(p, w, d),
}

GROUP = 64
LOCAL = E.local_id(0)
GROUP_ID = E.workgroup_id(0)


def histogram_program(bins: int, items: int) -> Program:
    """Workgroup w counts `values[w*GROUP*items ..][:GROUP*items]` into a workgroup
    array of `bins` counters with atomicAdd (values >= bins fall out of bounds: no
    count), then, after a barrier, writes its counters to `hist[w*bins ..]` and
    adds them to the global `total` with one global atomic per bin."""
    base = E.mul(GROUP_ID, E.u32(GROUP * items))
    body: list[N] = []
    for k in range(items):
        at = E.add(base, E.add(E.mul(E.u32(k), E.u32(GROUP)), LOCAL))
        body.append(
            N.if_(
                E.lt(at, E.buf_len("values")),
                [N.let(f"_old{k}", E.atomic(AtomicOp.ADD, "bins", E.load("values", at), E.u32(1)))],
            )
        )
    body.append(N.barrier())
    flush: list[N] = [
        N.let("b", E.add(LOCAL, E.mul(E.var("r"), E.u32(GROUP)))),
        N.if_(
            E.lt(E.var("b"), E.u32(bins)),
            [
                N.let("c", E.load("bins", E.var("b"))),
                N.store("hist", E.add(E.mul(GROUP_ID, E.u32(bins)), E.var("b")), E.var("c")),
                N.if_(E.ne(E.var("c"), E.u32(0)), [N.let("_g", E.atomic(AtomicOp.ADD, "total", E.var("b"), E.var("c")))]),
            ],
        ),
    ]
    body.append(N.loop("r", E.u32(0), E.u32(-(-bins // GROUP)), flush))
    return Program(
        [
            BufferDecl.read("values", 0, DataType.U32),
            BufferDecl.read_write("hist", 1, DataType.U32),
            BufferDecl.read_write("total", 2, DataType.U32),
            BufferDecl.workgroup("bins", bins, DataType.U32),
        ],
        (GROUP, 1, 1),
        body,
    )


def run_histogram(
    backend: str, values: npt.NDArray[np.uint32], bins: int, items: int
) -> tuple[Words, int]:
    per_group = GROUP * items
    groups = max(1, -(-len(values) // per_group))
    words = {
        "values": values.astype(np.uint32),
        "hist": np.zeros(groups * bins, dtype=np.uint32),
        "total": np.zeros(bins, dtype=np.uint32),
    }
    return BACKENDS[backend](histogram_program(bins, items), words, (groups, 1, 1)), groups


def oracle(values: npt.NDArray[np.uint32], bins: int, per_group: int, groups: int) -> npt.NDArray[np.uint32]:
    hist = np.zeros((groups, bins), dtype=np.uint64)
    for g in range(groups):
        chunk = values[g * per_group : (g + 1) * per_group].astype(np.int64)
        chunk = chunk[chunk < bins]
        hist[g] = np.bincount(chunk, minlength=bins)
    return hist.astype(np.uint32)


@pytest.mark.parametrize("backend", list(BACKENDS))
@pytest.mark.parametrize(
    "pattern", ["all-equal", "all-last-bin", "random", "sorted", "some-out-of-range"]
)
def test_per_workgroup_histogram_matches_numpy(backend: str, pattern: str) -> None:
    bins, items = 256, 4
    rng = np.random.default_rng(11)
    n = 20 * GROUP * items + 37  # 21 workgroups, the last one partial
    values = {
        "all-equal": np.full(n, 7),
        "all-last-bin": np.full(n, bins - 1),
        "random": rng.integers(0, bins, n),
        "sorted": np.sort(rng.integers(0, bins, n)),
        "some-out-of-range": np.where(rng.random(n) < 0.3, rng.integers(bins, 2**32, n), rng.integers(0, bins, n)),
    }[pattern].astype(np.uint32)
    out, groups = run_histogram(backend, values, bins, items)
    expected = oracle(values, bins, GROUP * items, groups)
    np.testing.assert_array_equal(out["hist"].reshape(groups, bins), expected)
    np.testing.assert_array_equal(out["total"], expected.sum(axis=0, dtype=np.uint32))


@pytest.mark.parametrize("backend", ["interp", "wgpu"])
def test_heavy_contention_many_workgroups(backend: str) -> None:
    # 300 workgroups x 64 invocations x 8 items, every lane on one counter: each
    # workgroup's counter must reach exactly 512 (its memory starts zeroed and
    # no other workgroup's atomics reach it)
    bins, items = 16, 8
    values = np.full(300 * GROUP * items, 3, dtype=np.uint32)
    out, groups = run_histogram(backend, values, bins, items)
    hist = out["hist"].reshape(groups, bins)
    assert hist[:, 3].tolist() == [GROUP * items] * groups
    assert int(hist.sum()) == len(values)
    assert out["total"].tolist() == [0, 0, 0, len(values)] + [0] * 12


def ticket_program(count: int) -> Program:
    """Every invocation takes a ticket from workgroup counter 0 (atomicAdd 1) and
    from an out-of-bounds counter (index `count`), records both, then after a
    barrier reads the counter back."""
    gid = E.gid_x()
    return Program(
        [
            BufferDecl.read_write("ticket", 0, DataType.U32),
            BufferDecl.read_write("oob", 1, DataType.U32),
            BufferDecl.read_write("seen", 2, DataType.U32),
            BufferDecl.workgroup("counter", count, DataType.U32),
        ],
        (GROUP, 1, 1),
        [
            N.store("ticket", gid, E.atomic(AtomicOp.ADD, "counter", E.u32(0), E.u32(1))),
            N.store("oob", gid, E.atomic(AtomicOp.ADD, "counter", E.u32(count), E.u32(5))),
            N.barrier(),
            N.store("seen", gid, E.add(E.load("counter", E.u32(0)), E.mul(E.load("counter", E.u32(count - 1)), E.u32(1000)))),
        ],
    )


@pytest.mark.parametrize("backend", list(BACKENDS))
def test_tickets_are_a_permutation_per_workgroup_and_oob_is_a_no_op(backend: str) -> None:
    groups, count = 40, 4
    n = groups * GROUP
    words = {name: np.zeros(n, dtype=np.uint32) for name in ("ticket", "oob", "seen")}
    out = BACKENDS[backend](ticket_program(count), words, (groups, 1, 1))
    tickets = out["ticket"].reshape(groups, GROUP)
    for row in tickets:
        assert sorted(row.tolist()) == list(range(GROUP))
    # index == count: no atomic ran (0 returned) and the last element (naga's clamp
    # target) was never touched; the barrier made every add visible
    assert out["oob"].tolist() == [0] * n
    assert out["seen"].tolist() == [GROUP] * n


def test_reversed_lane_order_changes_the_tickets_on_the_interpreter() -> None:
    words = {name: np.zeros(GROUP, dtype=np.uint32) for name in ("ticket", "oob", "seen")}
    program = ticket_program(2)
    forward = execute_interp(program, words, (1, 1, 1))["ticket"].tolist()
    backward = execute_interp(program, words, (1, 1, 1), lane_order="reversed")["ticket"].tolist()
    assert forward == list(range(GROUP))
    assert backward == list(range(GROUP))[::-1]


COMBINE: dict[AtomicOp, Callable[[npt.NDArray[np.uint32]], int]] = {
    AtomicOp.ADD: lambda v: int(v.astype(np.uint64).sum() % 2**32),
    AtomicOp.OR: lambda v: int(np.bitwise_or.reduce(v)),
    AtomicOp.AND: lambda v: int(np.bitwise_and.reduce(v)),
    AtomicOp.XOR: lambda v: int(np.bitwise_xor.reduce(v)),
    AtomicOp.MIN: lambda v: int(v.min()),
    AtomicOp.MAX: lambda v: int(v.max()),
}
START: dict[AtomicOp, int] = {AtomicOp.AND: 0xFFFF_FFFF, AtomicOp.MIN: 0xFFFF_FFFF}


@pytest.mark.parametrize("backend", ["interp", "wgpu"])
@pytest.mark.parametrize("op", list(COMBINE), ids=lambda op: op.name)
def test_every_commutative_atomic_on_a_workgroup_buffer(backend: str, op: AtomicOp) -> None:
    # element 0 is set by invocation 0 (a plain store, i.e. atomicStore), then every
    # invocation combines its value into it; after the barrier every invocation
    # reads it back (atomicLoad)
    groups = 8
    n = groups * GROUP
    gid = E.gid_x()
    program = Program(
        [
            BufferDecl.read("v", 0, DataType.U32),
            BufferDecl.read_write("out", 1, DataType.U32),
            BufferDecl.workgroup("acc", 2, DataType.U32),
        ],
        (GROUP, 1, 1),
        [
            N.if_(E.eq(LOCAL, E.u32(0)), [N.store("acc", E.u32(0), E.u32(START.get(op, 0)))]),
            N.barrier(),
            N.let("_old", E.atomic(op, "acc", E.u32(0), E.load("v", gid))),
            N.barrier(),
            N.store("out", gid, E.load("acc", E.u32(0))),
        ],
    )
    rng = np.random.default_rng(5)
    values = rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
    out = BACKENDS[backend](program, {"v": values, "out": np.zeros(n, np.uint32)}, (groups, 1, 1))
    start = np.uint32(START.get(op, 0))
    for g in range(groups):
        chunk = np.concatenate([[start], values[g * GROUP : (g + 1) * GROUP]]).astype(np.uint32)
        assert out["out"][g * GROUP : (g + 1) * GROUP].tolist() == [COMBINE[op](chunk)] * GROUP


@pytest.mark.parametrize("backend", ["interp", "wgpu"])
def test_compare_exchange_and_exchange_on_a_workgroup_buffer(backend: str) -> None:
    # cas(expected 0, local + 1): exactly one invocation per workgroup wins (sees
    # 0) and the winner's value stays; exchange: the final value is one of the
    # exchanged values and the pre-values are the start plus all values but it
    groups = 6
    n = groups * GROUP
    gid = E.gid_x()
    program = Program(
        [
            BufferDecl.read_write("cas", 0, DataType.U32),
            BufferDecl.read_write("xchg", 1, DataType.U32),
            BufferDecl.read_write("final", 2, DataType.U32),
            BufferDecl.workgroup("w", 2, DataType.U32),
        ],
        (GROUP, 1, 1),
        [
            N.store("cas", gid, E.atomic(AtomicOp.COMPARE_EXCHANGE, "w", E.u32(0), E.add(LOCAL, E.u32(1)), E.u32(0))),
            N.store("xchg", gid, E.atomic(AtomicOp.EXCHANGE, "w", E.u32(1), E.add(LOCAL, E.u32(100)))),
            N.barrier(),
            N.store("final", E.mul(gid, E.u32(2)), E.load("w", E.u32(0))),
            N.store("final", E.add(E.mul(gid, E.u32(2)), E.u32(1)), E.load("w", E.u32(1))),
        ],
    )
    words = {"cas": np.zeros(n, np.uint32), "xchg": np.zeros(n, np.uint32), "final": np.zeros(2 * n, np.uint32)}
    out = BACKENDS[backend](program, words, (groups, 1, 1))
    final = out["final"].reshape(groups, GROUP, 2)
    for g in range(groups):
        cas = out["cas"][g * GROUP : (g + 1) * GROUP].tolist()
        winner = cas.index(0)
        assert cas.count(0) == 1
        assert cas == [0 if k == winner else winner + 1 for k in range(GROUP)]
        assert final[g, :, 0].tolist() == [winner + 1] * GROUP
        last = int(final[g, 0, 1])
        assert final[g, :, 1].tolist() == [last] * GROUP
        pre = sorted(out["xchg"][g * GROUP : (g + 1) * GROUP].tolist())
        assert pre == sorted([0] + [100 + k for k in range(GROUP) if 100 + k != last])


def test_interpreter_rejects_atomics_on_non_u32_workgroup_buffers_it_is_handed() -> None:
    program = Program(
        [BufferDecl.read_write("out", 0, DataType.U32), BufferDecl.workgroup("w", 4, DataType.I32)],
        (4, 1, 1),
        [N.store("out", E.u32(0), E.atomic(AtomicOp.ADD, "w", E.u32(0), E.u32(1)))],
    )
    with pytest.raises(InterpError, match="read_write or workgroup buffer of u32 elements"):
        execute_interp_unchecked(program, {"out": np.zeros(1, np.uint32)}, (1, 1, 1))
