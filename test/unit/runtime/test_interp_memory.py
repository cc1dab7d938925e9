"""Reference interpreter: loads, stores and atomics on storage and workgroup
buffers (out-of-bounds rules, lane order of conflicting writes, atomics)."""

from __future__ import annotations

import numpy as np
import pytest

from vyre.ir import AtomicOp, BufferDecl, DataType, Expr as E, Node as N, Program
from vyre.testing.backends import execute_interp as execute

M = 0xFFFF_FFFF
GID = E.gid_x()


def _words(**arrays: list[int]) -> dict[str, np.ndarray]:
    return {name: np.array(values, dtype=np.uint32) for name, values in arrays.items()}


# ---------------------------------------------------------------------------
# Out of bounds
# ---------------------------------------------------------------------------


def test_oob_load_from_storage_gives_zero() -> None:
    program = Program(
        buffers=[BufferDecl.read("a", 0, DataType.U32), BufferDecl.read_write("out", 1, DataType.U32)],
        workgroup_size=(8, 1, 1),
        entry=[
            N.store("out", GID, E.load("a", GID)),
            N.store("out", E.add(GID, E.u32(8)), E.load("a", E.u32(M))),
        ],
    )
    out = execute(program, _words(a=[5, 6, 7, 8], out=[9] * 16), (1, 1, 1))["out"]
    assert out.tolist() == [5, 6, 7, 8, 0, 0, 0, 0] + [0] * 8


@pytest.mark.parametrize("dtype,width", [(DataType.U64, 2), (DataType.VEC4U32, 4)])
def test_oob_load_of_vectors_gives_zero_vector(dtype: DataType, width: int) -> None:
    program = Program(
        buffers=[BufferDecl.read("a", 0, dtype), BufferDecl.read_write("out", 1, dtype)],
        workgroup_size=(4, 1, 1),
        entry=[N.store("out", GID, E.load("a", GID))],
    )
    source = list(range(1, 2 * width + 1))  # two elements
    out = execute(program, _words(a=source, out=[7] * (4 * width)), (1, 1, 1))["out"]
    assert out.tolist() == source + [0] * (2 * width)


def test_oob_store_to_storage_is_a_noop() -> None:
    program = Program(
        buffers=[BufferDecl.read_write("out", 0, DataType.U32)],
        workgroup_size=(8, 1, 1),
        entry=[
            N.store("out", GID, E.add(GID, E.u32(100))),
            N.store("out", E.u32(M), E.u32(1)),
            N.store("out", E.u32(4), E.u32(1)),
        ],
    )
    out = execute(program, _words(out=[0, 0, 0, 0]), (1, 1, 1))["out"]
    assert out.tolist() == [100, 101, 102, 103]


def test_oob_atomics_are_noops_returning_zero() -> None:
    program = Program(
        buffers=[
            BufferDecl.read_write("counter", 0, DataType.U32),
            BufferDecl.read_write("pre", 1, DataType.U32),
        ],
        workgroup_size=(8, 1, 1),
        entry=[N.store("pre", GID, E.atomic(AtomicOp.ADD, "counter", GID, E.u32(1)))],
    )
    out = execute(program, _words(counter=[10, 20, 30], pre=[M] * 8), (1, 1, 1))
    assert out["counter"].tolist() == [11, 21, 31]
    assert out["pre"].tolist() == [10, 20, 30, 0, 0, 0, 0, 0]
    for op in AtomicOp:
        expected = E.u32(10) if op is AtomicOp.COMPARE_EXCHANGE else None
        oob = Program(
            buffers=[
                BufferDecl.read_write("counter", 0, DataType.U32),
                BufferDecl.read_write("pre", 1, DataType.U32),
            ],
            workgroup_size=(1, 1, 1),
            entry=[N.store("pre", E.u32(0), E.atomic(op, "counter", E.u32(3), E.u32(5), expected))],
        )
        out = execute(oob, _words(counter=[10, 20, 30], pre=[M]), (1, 1, 1))
        assert out["counter"].tolist() == [10, 20, 30], op
        assert out["pre"].tolist() == [0], op


def _workgroup_oob_program() -> Program:
    # each workgroup writes tile[lid] = 100*wid + lid + 1 for lid in 0..7, but
    # the tile has 4 elements: lanes 4..7 must neither write nor read another
    # workgroup's tile
    lid, wid = E.local_id(0), E.workgroup_id(0)
    return Program(
        buffers=[
            BufferDecl.read_write("out", 0, DataType.U32),
            BufferDecl.workgroup("tile", 4, DataType.U32),
        ],
        workgroup_size=(8, 1, 1),
        entry=[
            N.store("tile", lid, E.add(E.mul(wid, E.u32(100)), E.add(lid, E.u32(1)))),
            N.barrier(),
            N.store("out", GID, E.load("tile", lid)),
        ],
    )


@pytest.mark.parametrize("lane_order", ["forward", "reversed"])
def test_oob_on_workgroup_buffers(lane_order: str) -> None:
    out = execute(
        _workgroup_oob_program(), _words(out=[M] * 24), (3, 1, 1), lane_order=lane_order
    )["out"]
    expected = []
    for wid in range(3):
        expected += [100 * wid + lid + 1 for lid in range(4)] + [0] * 4
    assert out.tolist() == expected


def test_oob_on_vector_workgroup_buffer() -> None:
    lid = E.local_id(0)
    program = Program(
        buffers=[
            BufferDecl.read_write("out", 0, DataType.VEC2U32),
            BufferDecl.workgroup("tile", 2, DataType.VEC2U32),
        ],
        workgroup_size=(4, 1, 1),
        entry=[
            N.store("tile", lid, E.cast(DataType.VEC2U32, E.add(lid, E.u32(1)))),
            N.barrier(),
            N.store("out", GID, E.load("tile", lid)),
        ],
    )
    out = execute(program, _words(out=[M] * 16), (2, 1, 1))["out"]
    assert out.tolist() == [1, 1, 2, 2, 0, 0, 0, 0] * 2


# ---------------------------------------------------------------------------
# Conflicting stores: the later lane in the chosen order wins
# ---------------------------------------------------------------------------


def test_conflicting_stores_expose_the_race_through_lane_order() -> None:
    program = Program(
        buffers=[BufferDecl.read_write("out", 0, DataType.U32)],
        workgroup_size=(4, 1, 1),
        entry=[N.store("out", E.u32(0), GID), N.store("out", E.add(E.u32(1), E.mod(GID, E.u32(3))), GID)],
    )
    forward = execute(program, _words(out=[M] * 4), (5, 1, 1))["out"]
    backward = execute(program, _words(out=[M] * 4), (5, 1, 1), lane_order="reversed")["out"]
    assert forward.tolist() == [19, 18, 19, 17]  # the last lane writing each element
    assert backward.tolist() == [0, 0, 1, 2]  # the first one
    assert forward.tolist() != backward.tolist()  # a data race shows


def test_race_free_program_is_identical_in_both_orders() -> None:
    program = Program(
        buffers=[BufferDecl.read("a", 0, DataType.U32), BufferDecl.read_write("out", 1, DataType.U32)],
        workgroup_size=(16, 1, 1),
        entry=[N.store("out", GID, E.mul(E.load("a", GID), E.u32(3)))],
    )
    words = _words(a=list(range(64)), out=[0] * 64)
    forward = execute(program, words, (4, 1, 1))["out"]
    backward = execute(program, words, (4, 1, 1), lane_order="reversed")["out"]
    assert forward.tolist() == backward.tolist() == [3 * i for i in range(64)]


def test_masked_conflicting_stores() -> None:
    # only odd lanes store; the last odd lane wins
    program = Program(
        buffers=[BufferDecl.read_write("out", 0, DataType.U32)],
        workgroup_size=(8, 1, 1),
        entry=[N.if_(E.bitand(GID, E.u32(1)), [N.store("out", E.u32(0), GID)])],
    )
    assert execute(program, _words(out=[0]), (1, 1, 1))["out"].tolist() == [7]
    assert execute(program, _words(out=[0]), (1, 1, 1), lane_order="reversed")["out"].tolist() == [1]


# ---------------------------------------------------------------------------
# Atomics: sequential in lane order, vs a plain-Python simulation
# ---------------------------------------------------------------------------


def _apply(op: AtomicOp, current: int, value: int, expected: int) -> int:
    match op:
        case AtomicOp.ADD:
            return (current + value) % 2**32
        case AtomicOp.OR:
            return current | value
        case AtomicOp.AND:
            return current & value
        case AtomicOp.XOR:
            return current ^ value
        case AtomicOp.MIN:
            return min(current, value)
        case AtomicOp.MAX:
            return max(current, value)
        case AtomicOp.EXCHANGE:
            return value
        case AtomicOp.COMPARE_EXCHANGE:
            return value if current == expected else current


def simulate(op, memory, order, index, value, expected, active):
    memory = list(memory)
    pre = [0] * len(index)
    for lane in order:
        if not active[lane] or index[lane] >= len(memory):
            continue
        pre[lane] = memory[index[lane]]
        memory[index[lane]] = _apply(op, memory[index[lane]], value[lane], expected[lane])
    return memory, pre


def _atomic_program(op: AtomicOp, masked: bool) -> Program:
    expected = E.load("exp", GID) if op is AtomicOp.COMPARE_EXCHANGE else None
    update = N.store(
        "pre", GID, E.atomic(op, "mem", E.load("idx", GID), E.load("val", GID), expected)
    )
    body = [N.if_(E.load("act", GID), [update])] if masked else [update]
    return Program(
        buffers=[
            BufferDecl.read("idx", 0, DataType.U32),
            BufferDecl.read("val", 1, DataType.U32),
            BufferDecl.read("exp", 2, DataType.U32),
            BufferDecl.read("act", 3, DataType.U32),
            BufferDecl.read_write("mem", 4, DataType.U32),
            BufferDecl.read_write("pre", 5, DataType.U32),
        ],
        workgroup_size=(8, 1, 1),
        entry=body,
    )


def _check_atomic(op, memory, index, value, expected, active, masked, workgroups):
    n = len(index)
    words = _words(idx=index, val=value, exp=expected, act=active, mem=memory, pre=[M] * n)
    program = _atomic_program(op, masked)
    results = {}
    for lane_order, order in (("forward", range(n)), ("reversed", range(n - 1, -1, -1))):
        out = execute(program, words, (workgroups, 1, 1), lane_order=lane_order)
        final, pre = simulate(
            op, memory, order, index, value, expected, active if masked else [1] * n
        )
        pre = [p if (active[k] or not masked) else M for k, p in enumerate(pre)]
        assert out["mem"].tolist() == final, (op, lane_order)
        assert out["pre"].tolist() == pre, (op, lane_order)
        results[lane_order] = out["pre"].tolist()
    return results


@pytest.mark.parametrize("op", list(AtomicOp), ids=lambda op: op.name)
def test_atomic_random_contention(op: AtomicOp) -> None:
    rng = np.random.default_rng(list(AtomicOp).index(op))
    n = 8 * 40
    memory = rng.integers(0, 2**32, 5, dtype=np.uint64).tolist()
    index = rng.integers(0, 7, n).tolist()  # 5 and 6 are out of bounds
    if op in (AtomicOp.COMPARE_EXCHANGE, AtomicOp.EXCHANGE):
        value = rng.integers(0, 4, n).tolist()
        memory = rng.integers(0, 4, 5).tolist()
    else:
        value = rng.integers(0, 2**32, n, dtype=np.uint64).tolist()
    expected = rng.integers(0, 4, n).tolist()
    active = rng.integers(0, 2, n).tolist()
    for masked in (False, True):
        _check_atomic(op, memory, index, value, expected, active, masked, n // 8)


@pytest.mark.parametrize("op", list(AtomicOp), ids=lambda op: op.name)
def test_atomic_single_location_long_chain(op: AtomicOp) -> None:
    # every lane on one element: long groups exercise the grouped scans
    n = 8 * 150
    rng = np.random.default_rng(7)
    value = rng.integers(0, 2**32, n, dtype=np.uint64).tolist()
    if op is AtomicOp.COMPARE_EXCHANGE:
        value = [(v % 3) for v in value]
    expected = [k % 3 for k in range(n)]
    _check_atomic(op, [1], [0] * n, value, expected, [1] * n, False, n // 8)


def test_atomic_add_tickets_are_a_consecutive_permutation() -> None:
    n = 64
    results = _check_atomic(
        AtomicOp.ADD, [1000], [0] * n, [1] * n, [0] * n, [1] * n, False, n // 8
    )
    for pre in results.values():
        assert sorted(pre) == list(range(1000, 1000 + n))
    assert results["forward"] != results["reversed"]


def test_compare_exchange_succeeds_once_per_expected_value() -> None:
    n = 32
    value = [k + 1 for k in range(n)]
    results = _check_atomic(
        AtomicOp.COMPARE_EXCHANGE, [0], [0] * n, value, [0] * n, [1] * n, False, n // 8
    )
    for pre in results.values():
        assert pre.count(0) == 1  # exactly one lane saw the expected value
    assert results["forward"] == [0] + [1] * (n - 1)
    assert results["reversed"] == [n] * (n - 1) + [0]


def test_compare_exchange_chain_depends_on_the_order() -> None:
    # lane k: cas(expected=k, value=k+1); forward every lane succeeds in turn,
    # reversed only lane 0 does, after every other lane failed on 0
    n = 16
    lanes = list(range(n))
    results = _check_atomic(
        AtomicOp.COMPARE_EXCHANGE, [0], [0] * n, [k + 1 for k in lanes], lanes, [1] * n, False, 2
    )
    assert results["forward"] == lanes
    assert results["reversed"] == [0] * n


def test_exchange_pre_values_form_a_chain() -> None:
    n = 24
    value = [100 + k for k in range(n)]
    results = _check_atomic(
        AtomicOp.EXCHANGE, [7], [0] * n, value, [0] * n, [1] * n, False, n // 8
    )
    assert results["forward"] == [7] + value[:-1]


def test_atomics_apply_in_workgroup_major_then_local_order() -> None:
    # tickets from one counter reveal the order the lanes applied their atomics
    program = Program(
        buffers=[
            BufferDecl.read_write("counter", 0, DataType.U32),
            BufferDecl.read_write("ticket", 1, DataType.U32),
        ],
        workgroup_size=(2, 3, 1),
        entry=[
            N.let("x", E.invocation_id(0)),
            N.let("y", E.invocation_id(1)),
            N.store(
                "ticket",
                E.add(E.var("x"), E.mul(E.var("y"), E.u32(4))),
                E.atomic(AtomicOp.ADD, "counter", E.u32(0), E.u32(1)),
            ),
        ],
    )
    order = []  # (x, y) in workgroup-major, then local linear order
    for wy in range(2):
        for wx in range(2):
            for ly in range(3):
                for lx in range(2):
                    order.append((wx * 2 + lx, wy * 3 + ly))
    expected = [0] * 24
    for rank, (x, y) in enumerate(order):
        expected[x + 4 * y] = rank
    out = execute(program, _words(counter=[0], ticket=[M] * 24), (2, 2, 1))
    assert out["ticket"].tolist() == expected
    out = execute(program, _words(counter=[0], ticket=[M] * 24), (2, 2, 1), lane_order="reversed")
    assert out["ticket"].tolist() == [23 - t for t in expected]


def test_atomic_result_feeds_later_ops() -> None:
    program = Program(
        buffers=[
            BufferDecl.read_write("counter", 0, DataType.U32),
            BufferDecl.read_write("out", 1, DataType.U32),
        ],
        workgroup_size=(4, 1, 1),
        entry=[
            N.let("slot", E.atomic(AtomicOp.ADD, "counter", E.u32(0), E.u32(2))),
            N.store("out", E.var("slot"), GID),
            N.store("out", E.add(E.var("slot"), E.u32(1)), E.u32(9)),
        ],
    )
    out = execute(program, _words(counter=[0], out=[0] * 8), (1, 1, 1))
    assert out["out"].tolist() == [0, 9, 1, 9, 2, 9, 3, 9]
    assert out["counter"].tolist() == [8]
