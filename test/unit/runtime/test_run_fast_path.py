"""`vyre.run`'s hot path on wgpu (api.py `_Hot`): arguments of the common
shape skip the general checks and go straight to the bound run shape. The
results must equal the general path's and the interpreter's, and every other
argument shape must still get the general path's checks and errors."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import vyre
from vyre.ir import BufferDecl, DataType, Expr as E, Node as N, Program
from vyre.runtime import api

I = E.var("i")


def _program() -> Program:
    return Program(
        [
            BufferDecl.read("a", 0, DataType.U32),
            BufferDecl.read("f", 1, DataType.F32),
            BufferDecl.read_write("acc", 2, DataType.I32),
            BufferDecl.read_write("out", 3, DataType.U32),
        ],
        (64, 1, 1),
        [
            N.let("i", E.gid_x()),
            N.store("out", I, E.bitxor(E.load("a", I), E.bitcast(DataType.U32, E.load("f", I)))),
            N.store("acc", I, E.cast(DataType.I32, E.add(E.cast(DataType.U32, E.load("acc", I)), E.u32(1)))),
        ],
        name="fast",
    )


def _arguments(n: int) -> tuple[dict[str, Any], dict[str, Any]]:
    rng = np.random.default_rng(n)
    inputs = {
        "a": rng.integers(0, 2**32, n, dtype=np.uint32),
        "f": rng.standard_normal(n).astype(np.float32),
        "acc": rng.integers(-(2**31), 2**31, n + 3, dtype=np.int32),
    }
    return inputs, {"out": n + 1}


def test_the_fast_path_agrees_with_the_general_path_and_the_interpreter(
    gpu_adapter: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    program = _program()
    for n in (0, 1, 9, 64, 1000):
        inputs, outputs = _arguments(n)
        dispatch = (max(1, -(-n // 64)), 1, 1)
        want = vyre.run(program, inputs, dispatch=dispatch, outputs=outputs, backend="interp")
        general = vyre.run(program, inputs, dispatch=list(dispatch), outputs=outputs)  # pyright: ignore[reportArgumentType]  # a list: general path
        with monkeypatch.context() as patch:  # the fast path must not need the general checks
            patch.setattr(api, "_prepare", _fail)
            fast = vyre.run(program, inputs, dispatch=dispatch, outputs=outputs)
        assert sorted(fast) == sorted(want) == ["acc", "out"]
        for name in want:
            assert fast[name].dtype == want[name].dtype == general[name].dtype
            assert np.array_equal(fast[name], want[name]) and np.array_equal(general[name], want[name])


def _fail(*_: object) -> None:
    raise AssertionError("the general argument checks ran")


def _change(case: str, inputs: dict[str, Any], outputs: dict[str, Any]) -> None:
    match case:
        case "int64 input":
            inputs["a"] = inputs["a"].astype(np.int64)
        case "strided input":
            inputs["a"] = inputs["a"][::2]
        case "one strided element":
            inputs["a"] = inputs["a"][::2][:1]  # contiguous, but strides (8,)
        case "two-dimensional input":
            inputs["f"] = inputs["f"].reshape(4, 4)
        case "reversed input":
            inputs["a"] = inputs["a"][::-1]
        case "unknown input":
            inputs["zzz"] = inputs.pop("a")
        case "negative size":
            outputs["out"] = -1
        case "bool size":
            outputs["out"] = True
        case "read-only output":
            outputs["a"] = 3
        case "input and output":
            outputs["acc"] = 4
        case _:
            inputs.pop("f")


@pytest.mark.parametrize(
    ("case", "error", "match"),
    [
        ("int64 input", TypeError, "input `a`"),
        ("strided input", None, None),  # not contiguous: the general path, fine
        ("one strided element", None, None),
        ("two-dimensional input", TypeError, "must be a 1-D numpy array"),
        ("reversed input", None, None),
        ("unknown input", ValueError, "input `zzz` is not a buffer"),
        ("negative size", ValueError, "size of output `out` is negative"),
        ("bool size", TypeError, "size of output `out` must be an int"),
        ("read-only output", ValueError, "output `a` is a read_only buffer"),
        ("input and output", ValueError, "given both as an input and as an output size"),
        ("missing input", ValueError, "missing input for read_only buffer `f`"),
    ],
)
def test_other_arguments_take_the_general_path(
    case: str, error: type[Exception] | None, match: str | None, gpu_adapter: Any
) -> None:
    inputs, outputs = _arguments(16)
    _change(case, inputs, outputs)
    if error is None:
        got = vyre.run(_program(), inputs, dispatch=(1, 1, 1), outputs=outputs)
        want = vyre.run(_program(), inputs, dispatch=(1, 1, 1), outputs=outputs, backend="interp")
        assert all(np.array_equal(got[k], want[k]) for k in want)
        return
    with pytest.raises(error, match=match):
        vyre.run(_program(), inputs, dispatch=(1, 1, 1), outputs=outputs)


def test_a_dispatch_past_u32_is_the_backends_error(gpu_adapter: Any) -> None:
    inputs, outputs = _arguments(4)
    program = _program()
    vyre.run(program, inputs, dispatch=(1, 1, 1), outputs=outputs)  # the kept entry exists
    for dispatch in ((2**32, 1, 1), (1, 1, 2**40)):
        with pytest.raises(ValueError, match="dispatch counts must be in \\[0, 2\\*\\*32\\)"):
            vyre.run(program, inputs, dispatch=dispatch, outputs=outputs)


@pytest.mark.parametrize("dispatch", [(0, 1, 1), (1, 1), (1.0, 1, 1), (True, 1, 1)])
def test_bad_dispatches_are_the_general_paths_errors(dispatch: Any, gpu_adapter: Any) -> None:
    inputs, outputs = _arguments(4)
    with pytest.raises(ValueError, match="dispatch must be 3 positive ints"):
        vyre.run(_program(), inputs, dispatch=dispatch, outputs=outputs)


# ---------------------------------------------------------------------------
# The hot path: the kept entry per module (api._Hot) and its bound runs
# ---------------------------------------------------------------------------


def test_a_repeated_call_takes_the_kept_entry(gpu_adapter: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """The second call neither fingerprints nor looks the program up: it checks
    the kept snapshot and runs the bound run shape; results stay exact."""
    program = _program()
    inputs, outputs = _arguments(100)
    want = vyre.run(program, inputs, dispatch=(2, 1, 1), outputs=outputs, backend="interp")
    vyre.run(program, inputs, dispatch=(2, 1, 1), outputs=outputs)
    with monkeypatch.context() as patch:
        patch.setattr(api, "fingerprint", _fail)
        patch.setattr(api, "prepared_table", _fail)
        patch.setattr(api, "_prepare", _fail)
        got = vyre.run(program, inputs, dispatch=(2, 1, 1), outputs=outputs)
    assert all(np.array_equal(got[k], want[k]) and got[k].dtype == want[k].dtype for k in want)


def test_read_write_inputs_without_outputs_take_the_hot_path(gpu_adapter: Any) -> None:
    program = _program()
    inputs, _ = _arguments(50)
    inputs["out"] = np.arange(60, dtype=np.uint32)
    for _ in range(2):
        got = vyre.run(program, inputs, dispatch=(1, 1, 1))
        want = vyre.run(program, inputs, dispatch=(1, 1, 1), backend="interp")
        assert all(np.array_equal(got[k], want[k]) for k in want)
    hot = api._HOT.get(id(program.module))  # pyright: ignore[reportPrivateUsage]
    assert hot is not None and len(hot.runs) == 1


def test_a_changed_split_limit_rebuilds_the_bound_run(gpu_adapter: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """The per-axis limit is part of a run shape: lowering it (a test hook of
    the device's limits) makes the kept run stale, and the next call splits."""
    from vyre.runtime.wgpu_device import gpu_device

    program = Program(
        [BufferDecl.read("a", 0, DataType.U32), BufferDecl.read_write("out", 1, DataType.U32)],
        (64, 1, 1),
        [N.let("i", E.gid_x()), N.store("out", I, E.bitxor(E.load("a", I), E.load("a", E.u32(0))))],
        name="split",
    )
    n, dispatch = 5000, (79, 1, 1)  # 3 workgroups when vectorised (2,048 elements each), 79 as written
    a = np.random.default_rng(3).integers(0, 2**32, n, dtype=np.uint32)
    want = a ^ a[0]
    assert np.array_equal(vyre.run(program, {"a": a}, dispatch=dispatch, outputs={"out": n})["out"], want)
    hot = api._HOT.get(id(program.module))  # pyright: ignore[reportPrivateUsage]
    assert hot is not None
    (bound,) = hot.runs.values()
    assert bound.current() and len(bound.shape.slices) == 1
    monkeypatch.setitem(gpu_device().limits, "max-compute-workgroups-per-dimension", 2)
    assert not bound.current()
    got = vyre.run(program, {"a": a}, dispatch=dispatch, outputs={"out": n})["out"]
    (rebuilt,) = hot.runs.values()
    slices = rebuilt.shape.slices
    assert rebuilt is not bound and rebuilt.current() and len(slices) > 1
    assert all(max(count) <= 2 for _, count in slices)
    assert np.array_equal(got, want)


def test_many_sizes_keep_a_bounded_set_of_runs(gpu_adapter: Any) -> None:
    program = _program()
    for n in range(1, 2 * api._Hot.RUNS_CAPACITY + 3):  # pyright: ignore[reportPrivateUsage]
        inputs, outputs = _arguments(n)
        got = vyre.run(program, inputs, dispatch=(1, 1, 1), outputs=outputs)
        assert np.array_equal(got["out"][:n], inputs["a"] ^ inputs["f"].view(np.uint32))
    hot = api._HOT.get(id(program.module))  # pyright: ignore[reportPrivateUsage]
    assert hot is not None and 1 <= len(hot.runs) <= api._Hot.RUNS_CAPACITY  # pyright: ignore[reportPrivateUsage]


def test_the_unchanged_check_comes_before_the_one_submission(
    gpu_adapter: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The hot path asks whether the module is unchanged before any GPU work
    (an invalid program raises before any GPU work), and a run
    makes one submission: its readback maps without wgpu-py's empty one
    (`wgpu_device.map_read_mode`)."""
    from vyre.fingerprint import Known
    from vyre.runtime.wgpu_device import gpu_device

    program = _program()
    inputs, outputs = _arguments(100)
    want = vyre.run(program, inputs, dispatch=(2, 1, 1), outputs=outputs, backend="interp")
    vyre.run(program, inputs, dispatch=(2, 1, 1), outputs=outputs)
    events: list[str] = []
    queue = gpu_device().device.queue
    submit, runs_the_same = type(queue).submit, Known.runs_the_same

    def spy_submit(self: Any, buffers: Any) -> Any:
        events.append("submit")
        return submit(self, buffers)

    def spy_check(self: Known) -> bool:
        events.append("check")
        return runs_the_same(self)

    monkeypatch.setattr(type(queue), "submit", spy_submit)
    monkeypatch.setattr(Known, "runs_the_same", spy_check)
    for limit in (None, 65_535):
        monkeypatch.setattr(gpu_device(), "loop_limit", limit)
        events.clear()
        got = vyre.run(program, inputs, dispatch=(2, 1, 1), outputs=outputs)
        assert all(np.array_equal(got[k], want[k]) for k in want)
        assert events == ["check", "submit"], events
