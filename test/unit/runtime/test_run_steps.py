"""`wgpu_backend.run_steps`: many dependent dispatches in one submission.

Consecutive steps share a compute pass; a step with a uniform buffer gets its
copy recorded between passes, right before it; a step given many times as the
same object (an iterative op's rounds) is checked and bound once per call.
Each round here depends on the previous one through storage buffers and
through a uniform copied from a buffer the round before wrote, so a missing
barrier, a hoisted or stale copy, or a step bound to the wrong buffers changes
the result. Oracle: the same rounds in plain Python."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from vyre.ir import BufferDecl, DataType, Expr as E, Node as N, Program
from vyre.pipeline import prepare
from vyre.runtime import wgpu_backend
from vyre.runtime.wgpu_device import Resident, gpu_device

pytestmark = pytest.mark.usefixtures("gpu_adapter")

N_X = 100
WG = 64


def _programs() -> tuple[Program, Program, Program]:
    i = E.gid_x()
    increment = Program(
        [BufferDecl.read_write("x", 0, DataType.U32)],
        (WG, 1, 1),
        [N.store("x", i, E.add(E.load("x", i), E.add(i, E.u32(1))))],
        name="steps_increment",
    )
    bump = Program(
        [BufferDecl.read_write("counter", 0, DataType.U32)],
        (1, 1, 1),
        [N.store("counter", E.u32(0), E.add(E.load("counter", E.u32(0)), E.u32(1)))],
        name="steps_bump",
    )
    snapshot = Program(  # out[u[0]] = x[N_X - 1] + x[0]: u is the counter, copied as a uniform
        [
            BufferDecl.read("x", 0, DataType.U32),
            BufferDecl.uniform("u", 1, DataType.U32),
            BufferDecl.read_write("out", 2, DataType.U32),
        ],
        (1, 1, 1),
        [N.store("out", E.load("u", E.u32(0)), E.add(E.load("x", E.u32(N_X - 1)), E.load("x", E.u32(0))))],
        name="steps_snapshot",
    )
    return increment, bump, snapshot


def _oracle(rounds: int) -> tuple[np.ndarray, np.ndarray]:
    x = np.zeros(N_X, dtype=np.uint64)
    out = np.zeros(rounds + 1, dtype=np.uint64)
    for r in range(rounds):
        x += np.arange(1, N_X + 1, dtype=np.uint64)
        out[r + 1] = x[N_X - 1] + x[0]
    return x.astype(np.uint32), out.astype(np.uint32)


def test_repeated_dependent_steps_in_one_submission(monkeypatch: pytest.MonkeyPatch) -> None:
    increment, bump, snapshot = (prepare(p) for p in _programs())
    gpu = gpu_device()
    rounds = 40
    x = Resident.upload(gpu, np.zeros(N_X, dtype=np.uint32))
    counter = Resident.upload(gpu, np.zeros(1, dtype=np.uint32))
    out = Resident.upload(gpu, np.full(rounds + 1, 7, dtype=np.uint32))
    steps: list[Any] = [
        (increment, {"x": x}, (-(-N_X // WG), 1, 1)),
        (bump, {"counter": counter}, (1, 1, 1)),
        (snapshot, {"x": x, "u": counter, "out": out}, (1, 1, 1)),
    ]
    bound: list[object] = []
    original = wgpu_backend._encode_step  # pyright: ignore[reportPrivateUsage]

    def spy(*args: Any) -> Any:
        bound.append(args[1])
        return original(*args)

    monkeypatch.setattr(wgpu_backend, "_encode_step", spy)
    wgpu_backend.run_steps(steps * (rounds // 2), clear=[out])  # the same tuples, round after round
    wgpu_backend.run_steps(steps, repeat=rounds // 2)
    assert len(bound) == 6  # three distinct steps, bound once per call
    want_x, want_out = _oracle(rounds)
    want_out[0] = 0  # `out` cleared first, index 0 never written
    got_x, got_counter, got_out = gpu.read_many([x, counter, out])
    assert got_x.tolist() == want_x.tolist() and got_counter.tolist() == [rounds]
    assert got_out.tolist() == want_out.tolist()


def test_kernel_op_rounds_reuse_their_bound_steps() -> None:
    """graph.bfs on a path graph: one level per round, many rounds per
    submission, depths and parents exact (against the path's own)."""
    from vyre import ops

    n = 300
    offsets = np.arange(n + 1, dtype=np.uint32)
    offsets[-1] = n - 1
    targets = np.arange(1, n, dtype=np.uint32)
    got = ops.evaluate_raw("graph.bfs", [offsets, targets, 0], backend="wgpu")
    assert got["depth"].tolist() == list(range(n))
    assert got["parent"].tolist() == [0, *range(n - 1)]


def test_a_uniform_resident_is_bound_in_place_between_dependent_steps(monkeypatch: pytest.MonkeyPatch) -> None:
    """The counter uploaded as a uniform buffer (`Resident.upload_uniform`): each
    round writes it as storage and reads it as the snapshot's uniform, with no
    copy recorded (a copy ends the compute pass), and the same results."""
    increment, bump, snapshot = (prepare(p) for p in _programs())
    gpu = gpu_device()
    rounds = 12
    x = Resident.upload(gpu, np.zeros(N_X, dtype=np.uint32))
    counter = Resident.upload_uniform(gpu, np.zeros(1, dtype=np.uint32))
    out = Resident.upload(gpu, np.full(rounds + 1, 7, dtype=np.uint32))
    assert counter.uniform and not x.uniform and counter.words == 1
    steps: list[Any] = [
        (increment, {"x": x}, (-(-N_X // WG), 1, 1)),
        (bump, {"counter": counter}, (1, 1, 1)),
        (snapshot, {"x": x, "u": counter, "out": out}, (1, 1, 1)),
    ]
    copies: list[int] = []
    original = wgpu_backend._encode_step  # pyright: ignore[reportPrivateUsage]

    def spy(*args: Any) -> Any:
        step = original(*args)
        copies.append(len(step.copies))
        return step

    monkeypatch.setattr(wgpu_backend, "_encode_step", spy)
    wgpu_backend.run_steps(steps, clear=[out], repeat=rounds)
    assert copies == [0, 0, 0]
    want_x, want_out = _oracle(rounds)
    want_out[0] = 0
    got_x, got_counter, got_out = gpu.read_many([x, counter, out])
    assert got_x.tolist() == want_x.tolist() and got_counter.tolist() == [rounds]
    assert got_out.tolist() == want_out.tolist()
    copied = Resident.upload(gpu, np.zeros(1, dtype=np.uint32))  # an ordinary one: copied before the step
    wgpu_backend.run_steps([(snapshot, {"x": x, "u": copied, "out": out}, (1, 1, 1))])
    assert copies[-1] == 1 and gpu.read_many([out])[0][0] == want_out[-1]


def test_uniform_words_that_do_not_fit_are_refused() -> None:
    from vyre.runtime.wgpu_device import UNIFORM_BYTES

    with pytest.raises(ValueError, match=r"uniform words: 65,540 bytes do not fit a uniform buffer of 65,536"):
        Resident.upload_uniform(gpu_device(), np.zeros(UNIFORM_BYTES // 4 + 1, dtype=np.uint32))


def test_kernel_op_and_tensor_uniforms_are_uploaded_to_bind_in_place() -> None:
    """The uniform parameters of a kernel op's plan and a tensor schedule's dims
    are uniform residents (bound in place), the other buffers storage ones;
    the results are the interpreter's."""
    from vyre import ops
    from vyre import tensor as vt
    from vyre.ir import BufferAccess
    from vyre.kernels import run as kernel_run
    from vyre.ops import registry
    from vyre.tensor import runner

    keys = np.random.default_rng(4).integers(0, 1 << 32, 5000, dtype=np.uint64).astype(np.uint32)
    spec = registry.get_kernel("sort.u32")
    checked = kernel_run.check_args(spec, [keys])
    plan = kernel_run.plan_of(spec, checked)
    _, _, state = kernel_run.stage_wgpu(plan, checked)
    uniform = {s.source(d.name) for s in plan.steps for d in s.program.buffers if d.access is BufferAccess.UNIFORM}
    assert uniform and all(state[name].uniform for name in uniform)
    assert not any(state[b.name].uniform for b in plan.buffers if b.name not in uniform)
    assert ops.evaluate_raw("sort.u32", [keys], backend="wgpu")["out"].tolist() == sorted(keys.tolist())

    x = np.random.default_rng(5).standard_normal((37, 300)).astype(np.float32)
    g = vt.Graph("dims")
    g.output("s", vt.sum(g.input("x", DataType.F32, ("r", 300)), 0, "exact"))
    staged = runner.stage(g, {"x": x})
    assert all(bound["dims"].uniform for _, bound, _ in staged.encoded if "dims" in bound)
    assert any("dims" in bound for _, bound, _ in staged.encoded)
    got = vt.run(g, {"x": x}, backend="wgpu")["s"]
    assert np.array_equal(np.asarray(got), np.asarray(vt.run(g, {"x": x}, backend="interp")["s"]))
