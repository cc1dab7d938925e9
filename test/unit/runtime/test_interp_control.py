"""Reference interpreter: control flow (If, Loop, Return, Select, Block),
invocation ids, barriers and workgroup memory."""

from __future__ import annotations

import numpy as np
import pytest

from vyre.ir import AtomicOp, BufferDecl, DataType, Expr as E, Node as N, Program
from vyre.runtime.interp import InterpError, engine
from vyre.testing.backends import execute_interp as execute
from vyre.testing.backends import execute_interp_unchecked

M = 0xFFFF_FFFF
GID = E.gid_x()
LID = E.local_id(0)


def _words(**arrays: list[int]) -> dict[str, np.ndarray]:
    return {name: np.array(values, dtype=np.uint32) for name, values in arrays.items()}


def _out_program(entry, workgroup_size=(8, 1, 1), extra=()) -> Program:
    return Program(
        buffers=[BufferDecl.read_write("out", 0, DataType.U32), *extra],
        workgroup_size=workgroup_size,
        entry=entry,
    )


@pytest.fixture(params=[1 << 16, 8], ids=["big-batches", "one-workgroup-batches"])
def batch_lanes(request, monkeypatch) -> int:
    """Run a test with the default batch size and with one workgroup per batch."""
    monkeypatch.setattr(engine, "LANES_PER_BATCH", request.param)
    return request.param


# ---------------------------------------------------------------------------
# If / Select / Block / Assign
# ---------------------------------------------------------------------------


def test_if_else_with_u32_and_bool_conditions(batch_lanes: int) -> None:
    program = _out_program(
        [
            N.let("x", E.u32(0)),
            N.if_(
                E.mod(GID, E.u32(3)),  # u32 condition: non-zero is true (1 and 2)
                [N.assign("x", E.add(E.var("x"), E.u32(10)))],
                [N.assign("x", E.add(E.var("x"), E.u32(20)))],
            ),
            N.if_(
                E.cast(DataType.BOOL, E.bitand(GID, E.u32(4))),
                [N.if_(E.bool_(True), [N.assign("x", E.add(E.var("x"), E.u32(1)))])],
            ),
            N.store("out", GID, E.var("x")),
        ]
    )
    out = execute(program, _words(out=[M] * 24), (3, 1, 1))["out"]
    expected = [(10 if g % 3 else 20) + (1 if g & 4 else 0) for g in range(24)]
    assert out.tolist() == expected


def test_select_evaluates_both_arms() -> None:
    program = _out_program(
        [
            N.store(
                "out",
                E.add(GID, E.u32(2)),
                E.select(
                    E.bitand(GID, E.u32(1)),
                    E.atomic(AtomicOp.ADD, "out", E.u32(0), E.u32(1)),
                    E.add(E.u32(1000), E.atomic(AtomicOp.ADD, "out", E.u32(1), E.u32(1))),
                ),
            )
        ]
    )
    out = execute(program, _words(out=[0] * 10), (1, 1, 1))["out"]
    # every lane ran both atomics; odd lanes keep the first ticket, even ones the second
    assert out.tolist()[:2] == [8, 8]
    assert out.tolist()[2:] == [g if g & 1 else 1000 + g for g in range(8)]


def test_select_on_vectors() -> None:
    program = Program(
        buffers=[BufferDecl.read_write("out", 0, DataType.VEC4U32)],
        workgroup_size=(4, 1, 1),
        entry=[
            N.store(
                "out",
                GID,
                E.select(
                    E.lt(GID, E.u32(2)),
                    E.cast(DataType.VEC4U32, GID),
                    E.cast(DataType.VEC4U32, E.u32(9)),
                ),
            )
        ],
    )
    out = execute(program, _words(out=[0] * 16), (1, 1, 1))["out"]
    assert out.tolist() == [0] * 4 + [1] * 4 + [9] * 8


def test_block_scoping_and_reuse_of_a_name() -> None:
    program = _out_program(
        [
            N.let("base", E.u32(5)),
            N.block([N.let("t", E.add(E.var("base"), GID)), N.store("out", GID, E.var("t"))]),
            N.block([N.let("t", E.u32(100)), N.assign("base", E.var("t"))]),
            N.store("out", E.add(GID, E.u32(8)), E.var("base")),
        ]
    )
    out = execute(program, _words(out=[0] * 16), (1, 1, 1))["out"]
    assert out.tolist() == [5 + g for g in range(8)] + [100] * 8


def test_assign_under_divergent_masks() -> None:
    program = _out_program(
        [
            N.let("x", GID),
            N.loop(
                "i",
                E.u32(0),
                E.u32(4),
                [N.if_(E.eq(E.bitand(GID, E.u32(3)), E.var("i")), [N.assign("x", E.mul(E.var("x"), E.u32(10)))])],
            ),
            N.store("out", GID, E.var("x")),
        ]
    )
    out = execute(program, _words(out=[0] * 8), (1, 1, 1))["out"]
    assert out.tolist() == [10 * g for g in range(8)]


# ---------------------------------------------------------------------------
# Loop
# ---------------------------------------------------------------------------


def test_loop_with_lane_dependent_bounds(batch_lanes: int) -> None:
    # sum of [from, to) per lane, including empty ranges, from > to and bounds
    # at the top of the u32 range
    lows = [0, 3, 5, 5, M, M - 3, 0, 7, 2, 10, 0, 1, 0xFFFF_FFF0, 4, 9, 1]
    highs = [4, 3, 2, 9, 5, M, 0, 12, 3, 0, 1, 1, M, 4, 19, 6]
    program = Program(
        buffers=[
            BufferDecl.read("lo", 0, DataType.U32),
            BufferDecl.read("hi", 1, DataType.U32),
            BufferDecl.read_write("sum", 2, DataType.U32),
            BufferDecl.read_write("count", 3, DataType.U32),
        ],
        workgroup_size=(4, 1, 1),
        entry=[
            N.let("s", E.u32(0)),
            N.let("c", E.u32(0)),
            N.loop(
                "i",
                E.load("lo", GID),
                E.load("hi", GID),
                [
                    N.assign("s", E.add(E.var("s"), E.var("i"))),
                    N.assign("c", E.add(E.var("c"), E.u32(1))),
                ],
            ),
            N.store("sum", GID, E.var("s")),
            N.store("count", GID, E.var("c")),
        ],
    )
    words = _words(lo=lows, hi=highs, sum=[0] * 16, count=[0] * 16)
    out = execute(program, words, (4, 1, 1))
    assert out["sum"].tolist() == [sum(range(a, b)) % 2**32 for a, b in zip(lows, highs)]
    assert out["count"].tolist() == [max(0, b - a) for a, b in zip(lows, highs)]


def test_loop_bounds_are_evaluated_once() -> None:
    program = _out_program(
        [
            N.let("n", E.u32(3)),
            N.let("c", E.u32(0)),
            N.loop(
                "i",
                E.u32(0),
                E.var("n"),
                [
                    N.assign("n", E.add(E.var("n"), E.u32(1))),
                    N.assign("c", E.add(E.var("c"), E.u32(1))),
                ],
            ),
            N.store("out", GID, E.var("c")),
        ],
        workgroup_size=(1, 1, 1),
    )
    assert execute(program, _words(out=[0]), (1, 1, 1))["out"].tolist() == [3]


def test_nested_loops() -> None:
    program = _out_program(
        [
            N.let("s", E.u32(0)),
            N.loop(
                "i",
                E.u32(0),
                E.add(GID, E.u32(1)),
                [N.loop("j", E.var("i"), E.u32(4), [N.assign("s", E.add(E.var("s"), E.mul(E.var("i"), E.var("j"))))])],
            ),
            N.store("out", GID, E.var("s")),
        ]
    )
    out = execute(program, _words(out=[0] * 8), (1, 1, 1))["out"]
    assert out.tolist() == [
        sum(i * j for i in range(g + 1) for j in range(i, 4)) for g in range(8)
    ]


# ---------------------------------------------------------------------------
# Return
# ---------------------------------------------------------------------------


def test_return_inside_if_ends_the_invocation(batch_lanes: int) -> None:
    program = _out_program(
        [
            N.store("out", GID, E.u32(1)),
            N.if_(E.bitand(GID, E.u32(1)), [N.return_()]),
            N.store("out", GID, E.u32(2)),
        ]
    )
    out = execute(program, _words(out=[0] * 16), (2, 1, 1))["out"]
    assert out.tolist() == [1 if g & 1 else 2 for g in range(16)]


def test_return_inside_loops(batch_lanes: int) -> None:
    # lane g returns from inside two nested loops at i == g % 13 (if < 10);
    # the others finish both loops
    program = _out_program(
        [
            N.let("acc", E.u32(0)),
            N.loop(
                "i",
                E.u32(0),
                E.u32(10),
                [
                    N.loop(
                        "j",
                        E.u32(0),
                        E.u32(2),
                        [
                            N.if_(
                                E.and_(E.eq(E.var("i"), E.mod(GID, E.u32(13))), E.eq(E.var("j"), E.u32(1))),
                                [N.store("out", GID, E.add(E.var("acc"), E.u32(1000))), N.return_()],
                            ),
                            N.assign("acc", E.add(E.var("acc"), E.var("i"))),
                        ],
                    ),
                    N.store("out", GID, E.u32(M)),
                ],
            ),
            N.store("out", GID, E.var("acc")),
        ]
    )
    out = execute(program, _words(out=[0] * 32), (4, 1, 1))["out"]
    expected = []
    for g in range(32):
        stop = g % 13
        expected.append(1000 + 2 * sum(range(stop)) + stop if stop < 10 else 90)
    assert out.tolist() == expected


def test_return_at_top_level_skips_everything_after() -> None:
    program = _out_program([N.return_(), N.store("out", GID, E.u32(5))])
    assert execute(program, _words(out=[0] * 8), (1, 1, 1))["out"].tolist() == [0] * 8


# ---------------------------------------------------------------------------
# Ids
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "dispatch,workgroup_size", [((2, 3, 2), (2, 2, 3)), ((1, 1, 5), (3, 1, 1)), ((4, 1, 1), (1, 5, 2))]
)
def test_ids_in_3d(dispatch, workgroup_size, batch_lanes: int) -> None:
    nx, ny, nz = (d * w for d, w in zip(dispatch, workgroup_size))
    total = nx * ny * nz
    inv = [E.invocation_id(a) for a in range(3)]
    linear = E.add(inv[0], E.mul(E.u32(nx), E.add(inv[1], E.mul(E.u32(ny), inv[2]))))
    ids = inv + [E.workgroup_id(a) for a in range(3)] + [E.local_id(a) for a in range(3)]
    program = _out_program(
        [N.let("base", E.mul(linear, E.u32(9)))]
        + [N.store("out", E.add(E.var("base"), E.u32(k)), v) for k, v in enumerate(ids)],
        workgroup_size=workgroup_size,
    )
    out = execute(program, _words(out=[M] * (9 * total)), dispatch)["out"].reshape(total, 9)
    expected = np.zeros((total, 9), dtype=np.int64)
    for x in range(nx):
        for y in range(ny):
            for z in range(nz):
                g = (x, y, z)
                wid = tuple(c // w for c, w in zip(g, workgroup_size))
                lid = tuple(c % w for c, w in zip(g, workgroup_size))
                expected[x + nx * (y + ny * z)] = [*g, *wid, *lid]
    assert out.tolist() == expected.tolist()


def test_empty_dispatch_runs_nothing() -> None:
    program = _out_program([N.store("out", GID, E.u32(1))])
    assert execute(program, _words(out=[0] * 8), (0, 1, 1))["out"].tolist() == [0] * 8


# ---------------------------------------------------------------------------
# Barriers and workgroup memory
# ---------------------------------------------------------------------------


def test_workgroup_reversal_through_shared_memory(batch_lanes: int) -> None:
    size = 8
    program = Program(
        buffers=[
            BufferDecl.read("a", 0, DataType.U32),
            BufferDecl.read_write("out", 1, DataType.U32),
            BufferDecl.workgroup("tile", size, DataType.U32),
        ],
        workgroup_size=(size, 1, 1),
        entry=[
            N.store("tile", LID, E.load("a", GID)),
            N.barrier(),
            N.store("out", GID, E.load("tile", E.sub(E.u32(size - 1), LID))),
        ],
    )
    a = np.random.default_rng(5).integers(0, 2**32, 5 * size, dtype=np.uint64).astype(np.uint32)
    for lane_order in ("forward", "reversed"):
        out = execute(program, {"a": a, "out": np.zeros(5 * size, np.uint32)}, (5, 1, 1), lane_order=lane_order)
        assert out["out"].tolist() == a.reshape(5, size)[:, ::-1].ravel().tolist()


def test_tree_reduction_with_barriers_in_a_loop(batch_lanes: int) -> None:
    size, steps = 8, 3
    program = Program(
        buffers=[
            BufferDecl.read("a", 0, DataType.U32),
            BufferDecl.read_write("out", 1, DataType.U32),
            BufferDecl.workgroup("tile", size, DataType.U32),
        ],
        workgroup_size=(size, 1, 1),
        entry=[
            N.store("tile", LID, E.load("a", GID)),
            N.barrier(),
            N.loop(
                "k",
                E.u32(0),
                E.u32(steps),
                [
                    N.let("stride", E.shr(E.u32(size // 2), E.var("k"))),
                    N.if_(
                        E.lt(LID, E.var("stride")),
                        [
                            N.store(
                                "tile",
                                LID,
                                E.add(E.load("tile", LID), E.load("tile", E.add(LID, E.var("stride")))),
                            )
                        ],
                    ),
                    N.barrier(),
                ],
            ),
            N.if_(E.eq(LID, E.u32(0)), [N.store("out", E.workgroup_id(0), E.load("tile", E.u32(0)))]),
        ],
    )
    a = np.arange(6 * size, dtype=np.uint32) * 3
    out = execute(program, {"a": a, "out": np.zeros(6, np.uint32)}, (6, 1, 1))["out"]
    assert out.tolist() == a.reshape(6, size).sum(axis=1).tolist()


def test_workgroup_memory_starts_zeroed_in_every_workgroup(batch_lanes: int) -> None:
    # read before writing, then write non-zero garbage: no workgroup may see
    # another's garbage
    program = Program(
        buffers=[
            BufferDecl.read_write("out", 0, DataType.U32),
            BufferDecl.workgroup("tile", 4, DataType.U32),
            BufferDecl.workgroup("wide", 2, DataType.VEC4U32),
        ],
        workgroup_size=(4, 1, 1),
        entry=[
            N.store("out", E.mul(GID, E.u32(2)), E.load("tile", LID)),
            N.store(
                "out",
                E.add(E.mul(GID, E.u32(2)), E.u32(1)),
                E.cast(DataType.U32, E.load("wide", E.mod(LID, E.u32(2)))),
            ),
            N.barrier(),
            N.store("tile", LID, E.add(GID, E.u32(1))),
            N.store("wide", E.mod(LID, E.u32(2)), E.cast(DataType.VEC4U32, E.u32(7))),
        ],
    )
    for lane_order in ("forward", "reversed"):
        out = execute(program, _words(out=[M] * 48), (6, 1, 1), lane_order=lane_order)["out"]
        assert out.tolist() == [0] * 48


def test_barrier_makes_writes_of_the_workgroup_visible(batch_lanes: int) -> None:
    # lane 0 of each workgroup writes a value; after the barrier every lane
    # reads it; before the barrier a read of a slot written after it sees 0
    program = Program(
        buffers=[
            BufferDecl.read_write("out", 0, DataType.U32),
            BufferDecl.workgroup("flag", 2, DataType.U32),
        ],
        workgroup_size=(4, 1, 1),
        entry=[
            N.if_(E.eq(LID, E.u32(0)), [N.store("flag", E.u32(0), E.add(E.workgroup_id(0), E.u32(10)))]),
            N.let("early", E.load("flag", E.u32(1))),
            N.barrier(),
            N.if_(E.eq(LID, E.u32(3)), [N.store("flag", E.u32(1), E.u32(99))]),
            N.store("out", E.mul(GID, E.u32(2)), E.load("flag", E.u32(0))),
            N.store("out", E.add(E.mul(GID, E.u32(2)), E.u32(1)), E.var("early")),
        ],
    )
    out = execute(program, _words(out=[M] * 24), (3, 1, 1))["out"]
    assert out.tolist() == [v for g in range(12) for v in (g // 4 + 10, 0)]


def test_divergent_barrier_is_reported() -> None:
    program = _out_program(
        [N.if_(E.lt(LID, E.u32(2)), [N.barrier()]), N.store("out", GID, E.u32(1))]
    )
    with pytest.raises(InterpError, match="V010"):
        execute_interp_unchecked(program, _words(out=[0] * 8), (1, 1, 1))


def test_barrier_in_workgroup_uniform_branch_is_fine() -> None:
    # the branch differs between workgroups, but is uniform inside each one; the
    # static check (V010) is conservative about the early return, the interpreter
    # checks what actually happens, so the kernel runs unchecked

    program = _out_program(
        [
            N.if_(E.workgroup_id(0), [N.barrier(), N.store("out", GID, E.u32(1))]),
            N.if_(E.ge(LID, E.u32(6)), [N.return_()]),
            N.barrier(),  # reached by every live lane
            N.store("out", E.add(GID, E.u32(16)), E.u32(2)),
        ]
    )
    out = execute_interp_unchecked(program, _words(out=[0] * 32), (2, 1, 1))["out"]
    assert out.tolist() == [0] * 8 + [1] * 8 + ([2] * 6 + [0] * 2) * 2
