"""Which barriers keep the storage fence (vyre/lowering/fences.py).

The analysis against hand-derived answers on the kernel shapes (reduction tree,
tile scan, radix count and scatter, a write-before/read-after hand-off, loops,
If, Block), against the library's real step programs, against a quadratic
reference written from the definition (ancestors and walk positions, no shared
code) on random structured programs, and in the emitted WGSL. The results of
kernels whose barriers lose the fence are checked on both backends here and,
for the library's kernel ops, by their own tests."""

from __future__ import annotations

import random

import numpy as np
import pytest
from xdsl.ir import Operation

from vyre.dialects import vyre as d
from vyre.dialects.vyre import AccessKind
from vyre.ir import AtomicOp, BufferDecl, DataType, Expr, Node, Program
from vyre.ir import Expr as E
from vyre.ir import Node as N
from vyre.lowering.options import LoweringOptions
from vyre.lowering.fences import storage_fences
from vyre.kernels.families import common, scan, sort
from vyre.kernels.families.reductions import KERNELS as REDUCTIONS
from vyre.pipeline import prepare

LOCAL = E.local_id(0)
WG = 16


def _barriers(kernel: d.KernelOp) -> list[Operation]:
    return [op for op in kernel.walk() if isinstance(op, d.BarrierOp)]


def fenced(program: Program) -> list[bool]:
    """For each barrier of the prepared program, in text order: keeps the fence."""
    kernel = prepare(program).kernel
    fences = storage_fences(kernel)
    barriers = _barriers(kernel)
    assert fences.barriers == len(barriers)
    return [fences.needs_fence(b) for b in barriers]


def _program(body: list[Node], extra: list[BufferDecl] | None = None) -> Program:
    return Program(
        [
            BufferDecl.read("x", 0, DataType.U32),
            BufferDecl.read_write("a", 1, DataType.U32),
            BufferDecl.read_write("b", 2, DataType.U32),
            BufferDecl.uniform("p", 3, DataType.U32),
            BufferDecl.workgroup("sh", WG, DataType.U32),
            *(extra or []),
        ],
        (WG, 1, 1),
        body,
    )


def store(buffer: str, value: Expr = LOCAL) -> Node:
    return N.store(buffer, LOCAL, value)


# -- straight-line programs ------------------------------------------------------


def test_write_before_read_after_keeps_the_fence() -> None:
    # invocation l reads what invocation l + 1 wrote before the barrier
    body = [store("a"), N.barrier(), store("b", E.load("a", E.add(LOCAL, E.u32(1))))]
    assert fenced(_program(body)) == [True]


def test_read_before_write_after_keeps_the_fence() -> None:
    body = [store("b", E.load("a", E.add(LOCAL, E.u32(1)))), N.barrier(), store("a")]
    assert fenced(_program(body)) == [True]


def test_write_before_write_after_keeps_the_fence() -> None:
    body = [N.store("a", E.u32(0), LOCAL), N.barrier(), N.store("a", E.u32(0), E.u32(7))]
    assert fenced(_program(body)) == [True]


def test_atomics_before_and_after_keep_the_fence() -> None:
    atomic = N.let("_o", E.atomic(AtomicOp.ADD, "a", E.u32(0), E.u32(1)))
    after = N.let("_o2", E.atomic(AtomicOp.MAX, "a", E.u32(0), LOCAL))
    assert fenced(_program([atomic, N.barrier(), after])) == [True]


def test_different_buffers_on_each_side_drop_it() -> None:
    atomic = N.let("_o", E.atomic(AtomicOp.ADD, "a", E.u32(0), E.u32(1)))
    assert fenced(_program([atomic, N.barrier(), store("b")])) == [False]
    assert fenced(_program([store("a"), N.barrier(), store("b", E.load("x", LOCAL))])) == [False]


def test_read_only_uniform_and_workgroup_buffers_never_need_it() -> None:
    body = [
        store("sh", E.add(E.load("x", LOCAL), E.load("p", E.u32(0)))),
        N.barrier(),
        store("sh", E.add(E.load("x", E.add(LOCAL, E.u32(1))), E.load("sh", E.u32(0)))),
        N.barrier(),
        store("a", E.add(E.load("sh", LOCAL), E.load("p", E.u32(1)))),
    ]
    assert fenced(_program(body)) == [False, False]


def test_each_barrier_is_judged_by_its_own_position() -> None:
    body = [
        store("a"),
        N.barrier(),  # a before, a after (the load): fence
        store("b", E.load("a", E.u32(3))),
        N.barrier(),  # b before, b after: fence
        store("b", E.load("x", LOCAL)),
        N.barrier(),  # nothing after: none
    ]
    assert fenced(_program(body)) == [True, True, False]


def test_block_is_straight_line() -> None:
    body = [store("a"), N.block([N.barrier()]), N.block([store("b")]), N.barrier(), store("b")]
    assert fenced(_program(body)) == [False, True]


# -- loops and If -------------------------------------------------------------


def loop(var: str, body: list[Node], count: int = 3) -> Node:
    return N.loop(var, E.u32(0), E.u32(count), body)


def test_an_access_in_the_loop_counts_before_and_after() -> None:
    # the store after the barrier in iteration t precedes the barrier of t + 1
    assert fenced(_program([loop("t", [N.barrier(), store("a")])])) == [True]
    assert fenced(_program([loop("t", [store("a"), N.barrier()])])) == [True]


def test_a_loop_without_storage_inside_is_straight_line() -> None:
    tile = [store("sh", E.load("x", LOCAL)), N.barrier(), store("sh", E.load("sh", E.u32(0)))]
    assert fenced(_program([store("a"), loop("t", tile)])) == [False]
    assert fenced(_program([loop("t", tile), store("a")])) == [False]
    assert fenced(_program([store("a"), loop("t", tile), store("a")])) == [True]


def test_the_outermost_loop_spans_the_barrier() -> None:
    # the store is outside the inner loop but inside the outer one
    inner = loop("u", [store("sh", E.load("x", LOCAL)), N.barrier()])
    assert fenced(_program([loop("t", [inner, store("a")])])) == [True]
    # a barrier after a loop that stores, with nothing after it
    assert fenced(_program([loop("t", [store("a")]), N.barrier()])) == [False]


def test_barrier_in_an_if_is_judged_by_text_position() -> None:
    uniform = E.lt(E.workgroup_id(0), E.u32(2))
    # the else arm is after the then arm's barrier in the text: conservative
    body = [store("a"), N.if_(uniform, [N.barrier()], [store("a", E.u32(1))])]
    assert fenced(_program(body)) == [True]
    body = [N.if_(uniform, [N.barrier()], [store("a", E.u32(1))])]
    assert fenced(_program(body)) == [False]
    body = [store("a"), N.if_(uniform, [N.barrier(), store("b")])]
    assert fenced(_program(body)) == [False]


# -- the library's kernel shapes -------------------------------------------------


def test_reduction_tree_drops_every_fence() -> None:
    for spec in REDUCTIONS:
        plan = spec.plan({port.name: 5000 for port in spec.inputs}, {})
        for step in plan.steps:
            flags = fenced(step.program)
            assert flags and not any(flags), (spec.id, step.program.name)


def test_tree_reduce_builder_alone() -> None:
    body = [store("sh", E.load("x", E.gid_x())), *common.tree_reduce(["sh"], lambda l, r: [E.add(l[0], r[0])])]
    body.append(N.if_(E.eq(LOCAL, E.u32(0)), [N.store("a", E.workgroup_id(0), E.load("sh", E.u32(0)))]))
    program = Program(
        [BufferDecl.read("x", 0, DataType.U32), BufferDecl.read_write("a", 1, DataType.U32),
         BufferDecl.workgroup("sh", common.WORKGROUP, DataType.U32)],
        (common.WORKGROUP, 1, 1),
        body,
    )
    assert fenced(program) == [False] * (1 + common.LOG_WORKGROUP)


def test_radix_count_and_scatter_drop_the_fence() -> None:
    assert fenced(sort.count_program()) == [False]
    for with_values in (False, True):
        flags = fenced(sort.scatter_program(with_values))
        assert flags and not any(flags)


def test_tile_scan_stores_in_its_loop_keep_the_fence() -> None:
    # `out` is stored inside the loop over tiles that holds the barriers
    for exclusive in (False, True):
        flags = fenced(scan.scan_tiles_program(exclusive))
        assert flags and all(flags)
    # the block sums are stored after the last barrier
    flags = fenced(scan.block_sums_program())
    assert flags and not any(flags)
    # the one-workgroup scan of the block sums works in place inside its loop
    flags = fenced(scan.scan_sums_program())
    assert flags and all(flags)


# -- the emitted WGSL ---------------------------------------------------------------


@pytest.mark.parametrize("loop_limit", [None, 65_535])
def test_the_wgsl_has_one_storage_fence_per_fenced_barrier(loop_limit: int | None) -> None:
    options = LoweringOptions(loop_limit=loop_limit)
    for program in (
        scan.scan_tiles_program(False),
        scan.block_sums_program(),
        sort.count_program(),
        _program([store("a"), N.barrier(), store("b", E.load("a", E.u32(3))), N.barrier(), store("b")]),
    ):
        prepared = prepare(program)
        wgsl = prepared.lowered_for(options).wgsl
        lines = [line.strip() for line in wgsl.splitlines()]
        for k, line in enumerate(lines):
            if line == "storageBarrier();":
                assert lines[k + 1] == "workgroupBarrier();"
        flags = fenced(program)
        if loop_limit is None:
            assert lines.count("storageBarrier();") == sum(flags)
            zeroing = 1 if any(decl.access_kind == AccessKind.WORKGROUP for decl in prepared.kernel.buffer_decls) else 0
            assert lines.count("workgroupBarrier();") == len(flags) + zeroing
        else:  # unrolled loop bodies repeat their barriers, each as decided
            assert ("storageBarrier();" in lines) == any(flags)


# -- a reference from the definition, on random structured programs -------------------


def _reference(kernel: d.KernelOp) -> list[bool]:
    """The definition, quadratically: for each barrier, is some read_write buffer
    accessed before it and after it (in walk order, an access inside a loop
    around the barrier counting as both)?"""
    writable = {decl.buffer_name.data for decl in kernel.buffer_decls if decl.access_kind == AccessKind.READ_WRITE}
    order = list(kernel.walk())
    position = {id(op): k for k, op in enumerate(order)}

    def loops_around(op: Operation) -> list[Operation]:
        found: list[Operation] = []
        parent = op.parent_op()
        while parent is not None and not isinstance(parent, d.KernelOp):
            if isinstance(parent, d.LoopOp):
                found.append(parent)
            parent = parent.parent_op()
        return found

    def inside(op: Operation, loop_op: Operation) -> bool:
        parent = op.parent_op()
        while parent is not None:
            if parent is loop_op:
                return True
            parent = parent.parent_op()
        return False

    answers: list[bool] = []
    for barrier in (op for op in order if isinstance(op, d.BarrierOp)):
        around = loops_around(barrier)
        before: set[str] = set()
        after: set[str] = set()
        for op in order:
            if not isinstance(op, (d.LoadOp, d.StoreOp, d.AtomicOp)) or op.buffer.data not in writable:
                continue
            if any(inside(op, loop_op) for loop_op in around):
                before.add(op.buffer.data)
                after.add(op.buffer.data)
            elif position[id(op)] < position[id(barrier)]:
                before.add(op.buffer.data)
            else:
                after.add(op.buffer.data)
        answers.append(bool(before & after))
    return answers


def _random_body(rng: random.Random, depth: int, counter: list[int]) -> list[Node]:
    body: list[Node] = []
    for _ in range(rng.randint(1, 4)):
        roll = rng.random()
        if roll < 0.2:
            body.append(N.barrier())
        elif roll < 0.55:
            buffer = rng.choice(["a", "b", "x", "sh", "p"])
            if buffer in ("x", "p"):
                body.append(store("sh", E.load(buffer, LOCAL)))
            elif rng.random() < 0.5:
                body.append(store(buffer, E.u32(rng.randrange(9))))
            elif buffer != "sh" and rng.random() < 0.3:
                counter[0] += 1
                body.append(N.let(f"_o{counter[0]}", E.atomic(AtomicOp.ADD, buffer, LOCAL, E.u32(1))))
            else:
                body.append(store("sh", E.load(buffer, E.u32(rng.randrange(WG)))))
        elif depth < 3:
            inner = _random_body(rng, depth + 1, counter)
            kind = rng.random()
            if kind < 0.4:
                counter[0] += 1
                body.append(loop(f"i{counter[0]}", inner, 2))
            elif kind < 0.75:
                uniform = E.lt(E.workgroup_id(0), E.u32(rng.randrange(3)))
                body.append(N.if_(uniform, inner, _random_body(rng, depth + 1, counter)))
            else:
                body.append(N.block(inner))
    return body


def test_agrees_with_the_reference_on_random_programs() -> None:
    rng = random.Random(20261124)
    checked = fences = 0
    for _ in range(300):
        program = _program(_random_body(rng, 0, [0]))
        kernel = prepare(program).kernel
        expected = _reference(kernel)
        assert fenced(program) == expected, program
        checked += len(expected)
        fences += sum(expected)
    assert checked > 150 and 0 < fences < checked  # both answers occur


# -- results on both backends ------------------------------------------------------------


def _handoff_and_tree() -> tuple[Program, Program]:
    # hand-off: the fence stays; l reads what l + 1 wrote
    handoff = Program(
        [BufferDecl.read_write("a", 0, DataType.U32), BufferDecl.read_write("b", 1, DataType.U32)],
        (64, 1, 1),
        [
            N.store("a", E.gid_x(), E.add(E.mul(E.gid_x(), E.u32(3)), E.u32(1))),
            N.barrier(),
            N.store("b", E.gid_x(), E.load("a", E.add(E.mul(E.workgroup_id(0), E.u32(64)),
                                                      E.bitand(E.add(LOCAL, E.u32(1)), E.u32(63))))),
        ],
    )
    # a workgroup tree sum: every fence dropped
    body = [store("sh", E.load("x", E.gid_x())), *common.tree_reduce(["sh"], lambda l, r: [E.add(l[0], r[0])])]
    body.append(N.if_(E.eq(LOCAL, E.u32(0)), [N.store("a", E.workgroup_id(0), E.load("sh", E.u32(0)))]))
    tree = Program(
        [BufferDecl.read("x", 0, DataType.U32), BufferDecl.read_write("a", 1, DataType.U32),
         BufferDecl.workgroup("sh", common.WORKGROUP, DataType.U32)],
        (common.WORKGROUP, 1, 1),
        body,
    )
    return handoff, tree


@pytest.mark.parametrize("backend", ["interp", "wgpu"])
def test_results_with_and_without_fences(backend: str, request: pytest.FixtureRequest) -> None:
    import vyre

    if backend == "wgpu":
        request.getfixturevalue("gpu_adapter")
    handoff, tree = _handoff_and_tree()
    assert fenced(handoff) == [True] and not any(fenced(tree))
    groups = 3
    ids = np.arange(64 * groups, dtype=np.uint64)
    out = vyre.run(handoff, {}, dispatch=(groups, 1, 1), outputs={"a": 64 * groups, "b": 64 * groups}, backend=backend)
    neighbour = (ids // 64) * 64 + (ids + 1) % 64
    np.testing.assert_array_equal(out["b"], ((neighbour * 3 + 1) % 2**32).astype(np.uint32))
    x = np.random.default_rng(7).integers(0, 2**32, common.WORKGROUP * groups, dtype=np.uint64)
    out = vyre.run(tree, {"x": x.astype(np.uint32)}, dispatch=(groups, 1, 1), outputs={"a": groups}, backend=backend)
    expected = x.reshape(groups, -1).sum(axis=1) % 2**32
    np.testing.assert_array_equal(out["a"], expected.astype(np.uint32))
