"""Data-dependent continuation of kernel ops (docs/kernels.md "Iterative and
re-planned ops"): `Repeat` rounds until a device flag clears, `KernelSpec.replan`
for outputs whose size depends on the data, `KernelSpec.plan_many` batches.
Toy ops built here, checked against plain Python on the interpreter and on wgpu
(identical outputs whatever the number of rounds per flag readback)."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from functools import cache
from typing import Any

import numpy as np
import pytest

from vyre.ir import BufferDecl, DataType, Node, Program
from vyre.ir import Expr as E
from vyre.kernels import run as kernel_run
from vyre.kernels.run import evaluate_kernel, evaluate_kernel_many
from vyre.kernels.spec import (
    MAX_REPLANS,
    BatchPlan,
    BatchSizes,
    Buffer,
    KernelPlan,
    KernelSpec,
    Port,
    Repeat,
    Step,
    batch_starts,
    size_column,
)

pytestmark = pytest.mark.usefixtures("gpu_adapter")

BACKENDS = ("interp", "wgpu")
WG = 64


def _groups(n: int) -> tuple[int, int, int]:
    return (max(1, -(-n // WG)), 1, 1)


# ---------------------------------------------------------------------------
# An iterative toy: halve every element until all are zero, counting rounds
# ---------------------------------------------------------------------------


@cache
def _halving_programs() -> tuple[Program, Program, Program]:
    gid = E.invocation_id(0)
    n = E.load("params", E.u32(0))
    init = Program(
        buffers=[
            BufferDecl.read("x", 0, DataType.U32),
            BufferDecl.read_write("work", 1, DataType.U32),
            BufferDecl.read_write("flag", 2, DataType.U32),
            BufferDecl.uniform("params", 3, DataType.U32),
        ],
        workgroup_size=(WG, 1, 1),
        entry=[
            Node.if_(
                E.lt(gid, n),
                [
                    Node.let("v", E.load("x", gid)),
                    Node.store("work", gid, E.var("v")),
                    Node.if_(E.ne(E.var("v"), E.u32(0)), [Node.store("flag", E.u32(0), E.u32(1))]),
                ],
            )
        ],
        name="toy_halving_init",
    )
    # a round starts here: count it when the flag says work is left, then clear the flag
    count = Program(
        buffers=[
            BufferDecl.read_write("flag", 0, DataType.U32),
            BufferDecl.read_write("rounds", 1, DataType.U32),
        ],
        workgroup_size=(1, 1, 1),
        entry=[
            Node.if_(
                E.ne(E.load("flag", E.u32(0)), E.u32(0)),
                [
                    Node.store("rounds", E.u32(0), E.add(E.load("rounds", E.u32(0)), E.u32(1))),
                    Node.store("flag", E.u32(0), E.u32(0)),
                ],
            )
        ],
        name="toy_halving_count",
    )
    halve = Program(
        buffers=[
            BufferDecl.read_write("work", 0, DataType.U32),
            BufferDecl.read_write("flag", 1, DataType.U32),
            BufferDecl.uniform("params", 2, DataType.U32),
        ],
        workgroup_size=(WG, 1, 1),
        entry=[
            Node.if_(
                E.lt(gid, n),
                [
                    Node.let("h", E.shr(E.load("work", gid), E.u32(1))),
                    Node.store("work", gid, E.var("h")),
                    Node.if_(E.ne(E.var("h"), E.u32(0)), [Node.store("flag", E.u32(0), E.u32(1))]),
                ],
            )
        ],
        name="toy_halving_halve",
    )
    return init, count, halve


def _halving_plan(max_rounds: int, rounds_per_check: int) -> Any:
    def plan(sizes: Mapping[str, int], scalars: Mapping[str, int]) -> KernelPlan:
        n = int(sizes["x"])
        init, count, halve = _halving_programs()
        grid = _groups(n)
        return KernelPlan(
            buffers=(
                Buffer("work", DataType.U32, n),
                Buffer("flag", DataType.U32, 1),
                Buffer("rounds", DataType.U32, 1),
                Buffer("params", DataType.U32, 1, words=np.array([n], dtype=np.uint32)),
            ),
            steps=(Step(init, grid), Step(count, (1, 1, 1)), Step(halve, grid)),
            repeats=(Repeat(1, 3, until="flag", max_rounds=max_rounds, rounds_per_check=rounds_per_check),),
        )

    return plan


def _halving_reference(x: np.ndarray) -> tuple[np.ndarray, ...]:
    top = int(x.max()) if len(x) else 0
    return np.array([top.bit_length()], dtype=np.uint32), np.zeros(len(x), dtype=np.uint32)


def halving(max_rounds: int = 33, rounds_per_check: int = 4) -> KernelSpec:
    return KernelSpec(
        id="toy.halving",
        version=1,
        inputs=(Port("x", DataType.U32),),
        outputs=(Port("rounds", DataType.U32, scalar=True), Port("work", DataType.U32)),
        kind="iterative",
        reference=_halving_reference,
        plan=_halving_plan(max_rounds, rounds_per_check),
        summary="rounds of halving until every element is zero (bit length of the maximum)",
    )


def _expected_rounds(x: Sequence[int]) -> int:
    rounds = 0
    values = list(x)
    while any(values):
        values = [v >> 1 for v in values]
        rounds += 1
    return rounds


@pytest.mark.parametrize("backend", BACKENDS)
def test_repeat_runs_until_the_flag_clears(backend: str) -> None:
    cases = [
        np.zeros(0, dtype=np.uint32),
        np.zeros(7, dtype=np.uint32),
        np.array([1], dtype=np.uint32),
        np.array([5, 0, 3], dtype=np.uint32),
        np.array([0xFFFF_FFFF] + [0] * 200, dtype=np.uint32),
        np.random.default_rng(1).integers(0, 2**20, 300).astype(np.uint32),
    ]
    for per_check in (1, 3, 64):  # batches that overshoot the last round change nothing
        spec = halving(rounds_per_check=per_check)
        results = evaluate_kernel_many(spec, [[x] for x in cases], backend)
        for x, (rounds, work) in zip(cases, results):
            assert int(rounds[0]) == _expected_rounds(x.tolist()), (per_check, x[:4])
            assert work.tolist() == [0] * len(x)


def test_wgpu_reads_the_flag_once_per_batch(monkeypatch: pytest.MonkeyPatch) -> None:
    from vyre.runtime import wgpu_device

    reads: list[int] = []
    original = wgpu_device.GpuDevice.read_many

    def counting(self: Any, residents: Any) -> Any:
        reads.append(len(residents))
        return original(self, residents)

    monkeypatch.setattr(wgpu_device.GpuDevice, "read_many", counting)
    x = np.array([0xFFFF_FFFF, 1, 2], dtype=np.uint32)  # 32 rounds
    (rounds, _) = evaluate_kernel(halving(rounds_per_check=4), [x], "wgpu")
    assert int(rounds[0]) == 32
    # batches of 4, 8, 16, 32 rounds: 4 flag readbacks (the 4th sees it clear),
    # then one readback of both outputs
    assert reads == [1, 1, 1, 1, 2]
    reads.clear()
    # many evaluations: one flag readback per batch for all of them together
    evaluate_kernel_many(halving(rounds_per_check=4), [[x], [x[:1] >> 20], [x[:0]]], "wgpu")
    assert reads[0] == 3 and len(reads) == 5


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_flag_still_set_after_max_rounds_is_an_error(backend: str) -> None:
    x = np.array([1 << 10], dtype=np.uint32)  # 11 rounds
    (rounds, _) = evaluate_kernel(halving(max_rounds=11, rounds_per_check=4), [x], backend)
    assert int(rounds[0]) == 11
    with pytest.raises(RuntimeError, match=r"`toy.halving`: the flag `flag` is still set after 10 rounds"):
        evaluate_kernel(halving(max_rounds=10, rounds_per_check=4), [x], backend)


def test_repeat_and_plan_are_checked() -> None:
    flag = Buffer("flag", DataType.U32, 1)
    init, count, halve = _halving_programs()
    steps = (Step(init, (1, 1, 1)), Step(count, (1, 1, 1)), Step(halve, (1, 1, 1)))
    with pytest.raises(ValueError, match="start < stop"):
        Repeat(2, 2, "flag", 5)
    with pytest.raises(ValueError, match="rounds_per_check"):
        Repeat(0, 1, "flag", 5, rounds_per_check=0)
    with pytest.raises(ValueError, match="lie in the plan's 3 steps"):
        KernelPlan((flag,), steps, repeats=(Repeat(1, 4, "flag", 5),))
    with pytest.raises(ValueError, match="sorted and disjoint"):
        KernelPlan((flag,), steps, repeats=(Repeat(1, 3, "flag", 5), Repeat(2, 3, "flag", 5)))
    with pytest.raises(ValueError, match="`nope` is not a buffer"):
        KernelPlan((flag,), steps, repeats=(Repeat(1, 3, "nope", 5),))
    with pytest.raises(ValueError, match="word 1 is past the end"):
        KernelPlan((flag,), steps, repeats=(Repeat(1, 3, "flag", 5, word=1),))
    plan = KernelPlan((flag,), steps, repeats=(Repeat(1, 2, "flag", 5),))
    assert plan.segments() == ((steps[0],), plan.repeats[0], (steps[2],))


# ---------------------------------------------------------------------------
# A re-planned toy: run-length decoding, output size known only after decoding
# ---------------------------------------------------------------------------


@cache
def _rle_program() -> Program:
    """One invocation: out[j] for every (value, count) pair; writes past the
    capacity are skipped, `length` is the full decoded length, `status` 8
    ("output too small") when it did not fit."""
    pairs, capacity = E.load("params", E.u32(0)), E.load("params", E.u32(1))
    at = E.var("at")
    return Program(
        buffers=[
            BufferDecl.read("runs", 0, DataType.U32),
            BufferDecl.read_write("out", 1, DataType.U32),
            BufferDecl.read_write("length", 2, DataType.U32),
            BufferDecl.read_write("status", 3, DataType.U32),
            BufferDecl.uniform("params", 4, DataType.U32),
        ],
        workgroup_size=(1, 1, 1),
        entry=[
            Node.let("at", E.u32(0)),
            Node.loop(
                "p",
                E.u32(0),
                pairs,
                [
                    Node.let("value", E.load("runs", E.mul(E.var("p"), E.u32(2)))),
                    Node.let("count", E.load("runs", E.add(E.mul(E.var("p"), E.u32(2)), E.u32(1)))),
                    Node.loop(
                        "j",
                        E.u32(0),
                        E.var("count"),
                        [
                            Node.if_(E.lt(at, capacity), [Node.store("out", at, E.var("value"))]),
                            Node.assign("at", E.add(at, E.u32(1))),
                        ],
                    ),
                ],
            ),
            Node.store("length", E.u32(0), at),
            Node.store("status", E.u32(0), E.select(E.gt(at, capacity), E.u32(8), E.u32(0))),
        ],
        name="toy_rle_decode",
    )


def _rle_plan_of(pairs: int, capacity: int) -> KernelPlan:
    return KernelPlan(
        buffers=(
            Buffer("out", DataType.U32, capacity),
            Buffer("length", DataType.U32, 1),
            Buffer("status", DataType.U32, 1),
            Buffer("params", DataType.U32, 2, words=np.array([pairs, capacity], dtype=np.uint32)),
        ),
        steps=(Step(_rle_program(), (1, 1, 1)),),
    )


replans: list[int] = []


def _rle_replan(sizes: Mapping[str, int], scalars: Mapping[str, int], outputs: Mapping[str, int]) -> KernelPlan | None:
    if outputs["status"] != 8:
        return None
    replans.append(outputs["length"])
    return _rle_plan_of(int(sizes["runs"]) // 2, outputs["length"])


def _rle_reference(runs: np.ndarray) -> tuple[np.ndarray, ...]:
    out = np.repeat(runs[0::2], runs[1::2].astype(np.int64)).astype(np.uint32)
    return out, np.array([len(out)], dtype=np.uint32), np.zeros(1, dtype=np.uint32)


def rle(replan: Any = _rle_replan) -> KernelSpec:
    return KernelSpec(
        id="toy.rle_decode",
        version=1,
        inputs=(Port("runs", DataType.U32),),
        outputs=(
            Port("out", DataType.U32, length_from="length"),
            Port("length", DataType.U32, scalar=True),
            Port("status", DataType.U32, scalar=True),
        ),
        kind="batch",
        reference=_rle_reference,
        plan=lambda sizes, scalars: _rle_plan_of(int(sizes["runs"]) // 2, 4),
        summary="(value, count) pairs -> the values repeated",
        replan=replan,
    )


def _rle_expected(runs: list[int]) -> list[int]:
    out: list[int] = []
    for value, count in zip(runs[0::2], runs[1::2]):
        out.extend([value] * count)
    return out


@pytest.mark.parametrize("backend", BACKENDS)
def test_replan_runs_again_with_the_reported_size(backend: str) -> None:
    cases = [[], [7, 3], [7, 3, 9, 1], [1, 100, 2, 0, 3, 250], [0xFFFF_FFFF, 17]]
    replans.clear()
    results = evaluate_kernel_many(rle(), [[np.array(c, dtype=np.uint32)] for c in cases], backend)
    for case, (out, length, status) in zip(cases, results):
        expected = _rle_expected(case)
        assert out.tolist() == expected
        assert int(length[0]) == len(expected) and int(status[0]) == 0
    assert sorted(replans) == [17, 350]  # only the cases that did not fit ran again


def test_replan_on_device_keeps_the_logical_length() -> None:
    runs = np.array([4, 3, 5, 600], dtype=np.uint32)
    out, length, status = evaluate_kernel(rle(), [runs], "wgpu", on_device=True)
    assert len(out) == 603 and out.numpy().tolist() == [4] * 3 + [5] * 600
    assert length.numpy().tolist() == [603] and status.numpy().tolist() == [0]


@cache
def _rle_batch_program() -> Program:
    """Invocation k decodes evaluation k: meta[4k..4k+3] = (first word of its
    runs, pairs, first word of its output, capacity); length[k], status[k]."""
    k = E.invocation_id(0)

    def field(j: int) -> Any:
        return E.load("meta", E.add(E.mul(k, E.u32(4)), E.u32(j)))

    at = E.var("at")
    run = E.add(E.var("base"), E.mul(E.var("p"), E.u32(2)))
    return Program(
        buffers=[
            BufferDecl.read("runs", 0, DataType.U32),
            BufferDecl.read_write("out", 1, DataType.U32),
            BufferDecl.read_write("length", 2, DataType.U32),
            BufferDecl.read_write("status", 3, DataType.U32),
            BufferDecl.read("meta", 4, DataType.U32),
            BufferDecl.uniform("params", 5, DataType.U32),
        ],
        workgroup_size=(WG, 1, 1),
        entry=[
            Node.if_(
                E.lt(k, E.load("params", E.u32(0))),
                [
                    Node.let("base", field(0)),
                    Node.let("first", field(2)),
                    Node.let("capacity", field(3)),
                    Node.let("at", E.u32(0)),
                    Node.loop(
                        "p",
                        E.u32(0),
                        field(1),
                        [
                            Node.let("value", E.load("runs", run)),
                            Node.loop(
                                "j",
                                E.u32(0),
                                E.load("runs", E.add(run, E.u32(1))),
                                [
                                    Node.if_(
                                        E.lt(at, E.var("capacity")),
                                        [Node.store("out", E.add(E.var("first"), at), E.var("value"))],
                                    ),
                                    Node.assign("at", E.add(at, E.u32(1))),
                                ],
                            ),
                        ],
                    ),
                    Node.store("length", k, at),
                    Node.store("status", k, E.select(E.gt(at, E.var("capacity")), E.u32(8), E.u32(0))),
                ],
            )
        ],
        name="toy_rle_decode_batch",
    )


def _rle_many(sizes: Sequence[Mapping[str, int]], scalars: Sequence[Mapping[str, int]]) -> BatchPlan:
    counts = [int(s["runs"]) for s in sizes]
    starts = batch_starts(DataType.U32, counts)
    capacity = 4
    meta = np.array(
        [w for k, c in enumerate(counts) for w in (starts[k], c // 2, k * capacity, capacity)], dtype=np.uint32
    )
    e = len(counts)
    plan = KernelPlan(
        buffers=(
            Buffer("out", DataType.U32, e * capacity),
            Buffer("length", DataType.U32, e),
            Buffer("status", DataType.U32, e),
            Buffer("meta", DataType.U32, len(meta), words=meta),
            Buffer("params", DataType.U32, 1, words=np.array([e], dtype=np.uint32)),
        ),
        steps=(Step(_rle_batch_program(), _groups(e)),),
    )
    return BatchPlan(
        plan,
        {
            "out": tuple((k * capacity, capacity) for k in range(e)),
            "length": tuple((k, 1) for k in range(e)),
            "status": tuple((k, 1) for k in range(e)),
        },
    )


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_batch_replans_only_the_evaluations_that_did_not_fit(backend: str) -> None:
    cases = [[], [7, 3], [1, 100, 2, 0, 3, 250], [5, 4], [0xFFFF_FFFF, 17], [9, 1, 8, 1, 7, 1, 6, 1]]
    replans.clear()
    spec = dataclasses.replace(rle(), plan_many=_rle_many)
    results = evaluate_kernel_many(spec, [[np.array(c, dtype=np.uint32)] for c in cases], backend)
    for case, (out, length, status) in zip(cases, results):
        expected = _rle_expected(case)
        assert out.tolist() == expected and int(length[0]) == len(expected) and int(status[0]) == 0
    assert sorted(replans) == [17, 350]
    if backend == "wgpu":
        replans.clear()
        device = evaluate_kernel_many(spec, [[np.array(c, dtype=np.uint32)] for c in cases], backend, on_device=True)
        assert [out.numpy().tolist() for out, _, _ in device] == [_rle_expected(c) for c in cases]
        assert [len(out) for out, _, _ in device] == [len(_rle_expected(c)) for c in cases]


@pytest.mark.parametrize("backend", BACKENDS)
def test_endless_replanning_is_an_error(backend: str) -> None:
    def greedy(sizes: Mapping[str, int], scalars: Mapping[str, int], outputs: Mapping[str, int]) -> KernelPlan:
        return _rle_plan_of(int(sizes["runs"]) // 2, 1)

    with pytest.raises(RuntimeError, match=f"asked for a new plan after {MAX_REPLANS} re-planned runs"):
        evaluate_kernel(rle(greedy), [np.array([1, 5], dtype=np.uint32)], backend)


# ---------------------------------------------------------------------------
# A batched toy: the byte sum of each of many messages in one dispatch
# ---------------------------------------------------------------------------


@cache
def _byte_sum_program() -> Program:
    """Invocation k sums the bytes of message k: meta[2k] = its first word,
    meta[2k + 1] = its byte count (a batch of one is the single plan)."""
    k = E.invocation_id(0)
    first, count = E.load("meta", E.mul(k, E.u32(2))), E.load("meta", E.add(E.mul(k, E.u32(2)), E.u32(1)))
    byte = E.bitand(
        E.shr(E.load("data", E.add(E.var("first"), E.shr(E.var("b"), E.u32(2)))), E.mul(E.bitand(E.var("b"), E.u32(3)), E.u32(8))),
        E.u32(0xFF),
    )
    return Program(
        buffers=[
            BufferDecl.read("data", 0, DataType.U32),
            BufferDecl.read_write("out", 1, DataType.U32),
            BufferDecl.read("meta", 2, DataType.U32),
            BufferDecl.uniform("params", 3, DataType.U32),
        ],
        workgroup_size=(WG, 1, 1),
        entry=[
            Node.if_(
                E.lt(k, E.load("params", E.u32(0))),
                [
                    Node.let("first", first),
                    Node.let("sum", E.u32(0)),
                    Node.loop("b", E.u32(0), count, [Node.assign("sum", E.add(E.var("sum"), byte))]),
                    Node.store("out", k, E.var("sum")),
                ],
            )
        ],
        name="toy_byte_sum",
    )


def _byte_sum_plan_of(counts: Sequence[int]) -> KernelPlan:
    starts = batch_starts(DataType.BYTES, counts)
    meta = np.array([w for s, c in zip(starts, counts) for w in (s, c)], dtype=np.uint32)
    return KernelPlan(
        buffers=(
            Buffer("out", DataType.U32, len(counts)),
            Buffer("meta", DataType.U32, len(meta), words=meta),
            Buffer("params", DataType.U32, 1, words=np.array([len(counts)], dtype=np.uint32)),
        ),
        steps=(Step(_byte_sum_program(), _groups(len(counts))),),
    )


def _byte_sum_many(sizes: Sequence[Mapping[str, int]], scalars: Sequence[Mapping[str, int]]) -> BatchPlan:
    counts = [int(s["data"]) for s in sizes]
    return BatchPlan(_byte_sum_plan_of(counts), {"out": tuple((k, 1) for k in range(len(counts)))})


def _byte_sum_reference(data: np.ndarray) -> tuple[np.ndarray, ...]:
    return (np.array([int(np.asarray(data, dtype=np.uint64).sum())], dtype=np.uint32),)


def byte_sum(batched: bool = True) -> KernelSpec:
    return KernelSpec(
        id="toy.byte_sum",
        version=1,
        inputs=(Port("data", DataType.BYTES),),
        outputs=(Port("out", DataType.U32, scalar=True),),
        kind="batch",
        reference=_byte_sum_reference,
        plan=lambda sizes, scalars: _byte_sum_plan_of([int(sizes["data"])]),
        summary="sum of the bytes",
        plan_many=_byte_sum_many if batched else None,
    )


def _count_steps(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    from vyre.runtime import wgpu_backend

    counts: list[int] = []
    original = wgpu_backend.run_steps

    def counting(steps: Any, **kwargs: Any) -> float:
        counts.append(len(steps))
        return original(steps, **kwargs)

    monkeypatch.setattr(wgpu_backend, "run_steps", counting)
    return counts


@pytest.mark.parametrize("backend", BACKENDS)
def test_plan_many_runs_many_messages_in_one_dispatch(backend: str, monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(5)
    messages = [bytes(rng.integers(0, 256, int(n), dtype=np.uint8)) for n in rng.integers(0, 70, 500)]
    messages[:4] = [b"", b"\x01", b"\xff\xff\xff", b"abcde"]  # lengths that are not multiples of 4
    steps = _count_steps(monkeypatch)
    got = evaluate_kernel_many(byte_sum(), [[m] for m in messages], backend)
    assert [int(out[0]) for (out,) in got] == [sum(m) for m in messages]
    if backend == "wgpu":
        assert steps == [1]  # 500 messages, one dispatch
    # the per-evaluation fallback gives the same, with a dispatch each
    steps.clear()
    fallback = evaluate_kernel_many(byte_sum(batched=False), [[m] for m in messages[:20]], backend)
    assert [int(out[0]) for (out,) in fallback] == [sum(m) for m in messages[:20]]
    if backend == "wgpu":
        assert steps == [20]


def test_plan_many_takes_every_input_form(monkeypatch: pytest.MonkeyPatch) -> None:
    """bytes and 1-D uint8 arrays go the fast way (laid end to end in one join);
    bytearrays and bad values go through the general checks, same results."""
    from vyre.kernels import run as kr

    fast: list[bool] = []
    original = kr._Columns.of  # pyright: ignore[reportPrivateUsage]

    def spy(spec: KernelSpec, many: Any) -> Any:
        got = original(spec, many)
        fast.append(got is not None)
        return got

    monkeypatch.setattr(kr._Columns, "of", spy)  # pyright: ignore[reportPrivateUsage]
    messages = [b"", b"abc", b"\xff" * 5]
    forms: list[list[Any]] = [
        [[m] for m in messages],
        [[np.frombuffer(m, dtype=np.uint8)] for m in messages],
        [[bytearray(m)] for m in messages],
    ]
    for many in forms:
        got = evaluate_kernel_many(byte_sum(), many, "interp")
        assert [int(out[0]) for (out,) in got] == [sum(m) for m in messages]
    assert fast == [True, True, False]
    with pytest.raises(TypeError, match="input `data` of `toy.byte_sum` \\(Bytes\\) must be bytes"):
        evaluate_kernel_many(byte_sum(), [[b"a"], ["text"]], "interp")
    with pytest.raises(ValueError, match="takes 1 input"):
        evaluate_kernel_many(byte_sum(), [[b"a"], [b"b", b"c"]], "interp")


def test_plan_many_outputs_stay_on_the_device() -> None:
    messages = [b"abc", b"", b"\x10" * 9]
    got = evaluate_kernel_many(byte_sum(), [[m] for m in messages], "wgpu", on_device=True)
    assert [len(out) for (out,) in got] == [1, 1, 1]
    assert [int(out.numpy()[0]) for (out,) in got] == [sum(m) for m in messages]


def test_a_bad_batch_split_is_reported() -> None:
    def bad(sizes: Sequence[Mapping[str, int]], scalars: Sequence[Mapping[str, int]]) -> BatchPlan:
        plan = _byte_sum_plan_of([int(s["data"]) for s in sizes])
        return BatchPlan(plan, {"out": tuple((k + 1, 1) for k in range(len(sizes)))})

    spec = dataclasses.replace(byte_sum(), plan_many=bad)
    with pytest.raises(RuntimeError, match="past the buffer's 2"):
        evaluate_kernel_many(spec, [[b"a"], [b"b"]], "interp")


def test_batch_starts_are_word_aligned() -> None:
    assert batch_starts(DataType.BYTES, [0, 1, 4, 5, 3]) == (0, 0, 1, 2, 4, 5)
    assert batch_starts(DataType.U32, [2, 0, 3]) == (0, 2, 2, 5)
    assert batch_starts(DataType.U64, [2, 1]) == (0, 4, 6)


@pytest.mark.parametrize("dtype", [DataType.BYTES, DataType.U32, DataType.U64, DataType.F16, DataType.VEC4U32], ids=str)
def test_batch_starts_of_an_array_equal_those_of_the_ints(dtype: DataType) -> None:
    counts = [0, 1, 2, 3, 4, 5, 7, 63, 64, 65, 2**32 - 1, 6]
    for given in (np.array(counts, dtype=np.uint32), np.array(counts, dtype=np.int64)):
        got = batch_starts(dtype, given)
        assert isinstance(got, np.ndarray) and got.dtype == np.int64
        assert got.tolist() == list(batch_starts(dtype, counts))
    assert batch_starts(dtype, np.zeros(0, dtype=np.int64)).tolist() == [0] and batch_starts(dtype, []) == (0,)


def test_batch_sizes_give_their_columns_and_make_rows_once() -> None:
    made: list[int] = []

    def rows() -> list[Mapping[str, int]]:
        made.append(1)
        return [{"data": 3}, {"data": 9}]

    sizes = BatchSizes({"data": np.array([3, 9], dtype=np.int64)}, 2, rows)
    assert size_column(sizes, "data").tolist() == [3, 9] and len(sizes) == 2 and made == []
    assert [dict(s) for s in sizes] == [{"data": 3}, {"data": 9}] and sizes[-1]["data"] == 9 and made == [1]
    assert [dict(s) for s in sizes[1:]] == [{"data": 9}] and made == [1]
    with pytest.raises(KeyError):
        size_column(sizes, "other")
    plain = size_column([{"data": 3}, {"data": 2**32 - 1}], "data")  # any sequence of mappings
    assert plain.dtype == np.int64 and plain.tolist() == [3, 2**32 - 1] and size_column([], "data").size == 0


def test_on_device_needs_wgpu() -> None:
    with pytest.raises(ValueError, match="on_device=True keeps outputs on the wgpu device"):
        evaluate_kernel(byte_sum(), [b"x"], "interp", on_device=True)
    assert kernel_run.BATCH_THRESHOLD == 2
