"""`vt.run` and `vt.kernels`: a graph lowered once, its schedule run on a backend.

The graph is lowered by `lower-tensors` (vyre.transforms.tensors) and its
schedule read back from the IR form (`vtensor.schedule` beside the kernels),
so what runs is exactly what `vyre-opt -p lower-tensors` prints; the schedule
is kept until the graph changes.

A run binds the dynamic dims from the arguments' shapes, evaluates every check
of the schedule (shapes that must agree, indices in range, every strided read
inside its buffer) and only then allocates and dispatches: an error leaves
nothing half run. On wgpu every buffer lives on the device from upload to
readback: the inputs are uploaded once, intermediates never leave the device,
every dispatch of the schedule goes into one submission, and only the results
are read back (one readback). The interpreter runs the same kernels on host
words, dispatch by dispatch.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, cast

import numpy as np
from xdsl.dialects.builtin import ModuleOp

from vyre.dialects.symbolic import Sym
from vyre.dialects.tensor_layout import format_shape
from vyre.ir import DataType, Program
from vyre.pipeline import Prepared, prepare
from vyre.runtime import host
from vyre.runtime.interp import execute as interp_execute
from vyre.tensor.graph import Graph
from vyre.transforms.tensors.lower import lower_graph
from vyre.transforms.tensors.matmul_dp4a import SCRATCH_WORDS, scratch_limit
from vyre.transforms.tensors.schedule import Dispatch, Schedule, read_schedule, schedule_ops

__all__ = ["Staged", "kernels", "run", "run_schedule", "schedule_of", "stage"]

BACKENDS = ("wgpu", "interp")
_HALF = (DataType.F16, DataType.BF16)
_INPUT_DTYPES: dict[DataType, tuple[str, ...]] = {
    DataType.F32: ("float32",),
    DataType.F16: ("float16",),
    DataType.BF16: ("uint16", "bfloat16"),
    DataType.U32: ("uint32",),
    DataType.I32: ("int32",),
}


def schedule_of(graph: Graph, binding_words: int | None = None) -> Schedule:
    """The schedule of `graph` (lowered once per version of the graph and
    binding limit); `binding_words`: the most words one storage binding of
    the target adapter holds (None: 2 GiB; scratch buffers are split to fit,
    vyre.transforms.tensors.matmul_dp4a.scratch_limit)."""
    if not isinstance(graph, Graph):  # pyright: ignore[reportUnnecessaryIsInstance]
        raise TypeError(f"expected a vt.Graph, got {type(graph).__name__}")
    key = (id(graph), binding_words)
    cached = _SCHEDULES.get(key)
    if cached is not None and cached[0] is graph and cached[1] == graph.version:
        return cached[2]
    graph.op.verify()
    with scratch_limit(SCRATCH_WORDS if binding_words is None else binding_words):
        module = ModuleOp(schedule_ops(lower_graph(graph.op)))
    schedule = read_schedule(module)
    _SCHEDULES[key] = (graph, graph.version, schedule)
    return schedule


_SCHEDULES: dict[tuple[int, int | None], tuple[Graph, int, Schedule]] = {}


def _device_schedule(graph: Graph, backend: str) -> Schedule:
    """`graph`'s schedule for `backend`: on wgpu, for the adapter's largest
    storage binding (below 2 GiB, e.g. lavapipe's 128 MiB)."""
    if backend != "wgpu":
        return schedule_of(graph)
    from vyre.runtime.wgpu_device import gpu_device

    limit = gpu_device().limits.get("max-storage-buffer-binding-size", 4 * SCRATCH_WORDS) // 4
    return schedule_of(graph, None if limit >= SCRATCH_WORDS else limit)


def kernels(graph: Graph) -> list[Program]:
    """The vyre Programs `graph` lowers to, in the order they run."""
    return list(schedule_of(graph).kernels)


# ---------------------------------------------------------------------------
# Arguments
# ---------------------------------------------------------------------------


def _array(name: str, dtype: DataType, value: object) -> np.ndarray:
    if not isinstance(value, np.ndarray):
        raise TypeError(f"vt.run: input {name!r} must be a numpy array, got {type(value).__name__}")
    array = cast("np.ndarray[Any, np.dtype[Any]]", value)
    if array.dtype.name not in _INPUT_DTYPES[dtype]:
        wanted = " or ".join(_INPUT_DTYPES[dtype])
        raise TypeError(f"vt.run: input {name!r} ({dtype.value}) must be a {wanted} array, got {array.dtype}")
    return array if array.flags.c_contiguous else array.copy(order="C")


def _bind(schedule: Schedule, inputs: Mapping[str, Any]) -> tuple[dict[str, int], dict[str, np.ndarray]]:
    """(the dynamic dims, each input's words); `ValueError`/`TypeError` naming the input."""
    if not isinstance(inputs, Mapping):  # pyright: ignore[reportUnnecessaryIsInstance]
        raise TypeError(f"vt.run: inputs must be a dict of numpy arrays, got {type(inputs).__name__}")
    names = [i.name for i in schedule.inputs]
    missing = [n for n in names if n not in inputs]
    extra = [n for n in inputs if n not in names]
    if missing or extra:
        raise ValueError(f"vt.run: graph {schedule.name!r} takes inputs {names}; missing {missing}, unknown {extra}")
    env: dict[str, int] = {}
    words: dict[str, np.ndarray] = {}
    for spec in schedule.inputs:
        array = _array(spec.name, spec.dtype, inputs[spec.name])
        wanted = format_shape(spec.shape)
        if array.ndim != len(spec.shape):
            raise ValueError(f"vt.run: input {spec.name!r} has shape {array.shape}, the graph's is {wanted}")
        for dim, size in zip(spec.shape, array.shape):
            name = dim.plain_name
            bound = dim.value if name is None else env.setdefault(name, int(size))
            if bound != size:
                detail = "" if name is None else f" ({name} = {bound} from an earlier input)"
                raise ValueError(
                    f"vt.run: input {spec.name!r} has shape {array.shape}, the graph's is {wanted}{detail}"
                )
        flat = array.reshape(-1)
        if spec.dtype is DataType.BF16:
            flat = flat.view(np.uint16)
        words[spec.name], _ = host.to_words(spec.name, spec.dtype, flat)
    return env, words


def _value(size: Sym, env: Mapping[str, int]) -> int:
    """`size` for the dims of these arguments; a size that divides by zero for
    them (a -1 of `vt.reshape` beside a dynamic dim that is 0) is a `ValueError`."""
    try:
        return size.evaluate(env)
    except ZeroDivisionError:
        bound = ", ".join(f"{name} = {env[name]}" for name in sorted(size.names()) if name in env)
        raise ValueError(f"vt.run: the size {size} divides by zero for these arguments ({bound})") from None


def _check(schedule: Schedule, env: Mapping[str, int]) -> None:
    for check in schedule.checks:
        if _value(check.cond, env) == 0:
            raise ValueError(check.render([_value(a, env) for a in check.args]))
    for buffer in schedule.buffers:
        count = _value(buffer.count, env)
        if not 0 <= host.word_count(buffer.dtype, count) < 1 << 32:
            raise ValueError(f"vt.run: buffer {buffer.name!r} of {count} elements does not fit u32 indices")


@dataclass(frozen=True)
class _Step:
    dispatch: Dispatch
    groups: int
    params: np.ndarray


def _steps(schedule: Schedule, env: Mapping[str, int]) -> list[_Step]:
    steps: list[_Step] = []
    for dispatch in schedule.dispatches:
        for rep in range(_value(dispatch.repeat, env)):
            scope = {**env, "rep": rep}
            groups = _value(dispatch.grid[0], scope)
            if groups <= 0:
                continue
            params = np.array([_value(p, scope) & 0xFFFF_FFFF for p in dispatch.params], dtype=np.uint32)
            steps.append(_Step(dispatch, groups, params))
    return steps


_PREPARED: dict[int, tuple[Program, Prepared]] = {}


def _prepared(program: Program) -> Prepared:
    entry = _PREPARED.get(id(program))
    if entry is None or entry[0] is not program:
        entry = (program, prepare(program))
        _PREPARED[id(program)] = entry
    return entry[1]


def _counts(schedule: Schedule, env: Mapping[str, int]) -> dict[str, tuple[DataType, int]]:
    counts = {i.name: (i.dtype, _numel(i.shape, env)) for i in schedule.inputs}
    for buffer in schedule.buffers:
        counts[buffer.name] = (buffer.dtype, _value(buffer.count, env))
    return counts


def _numel(shape: tuple[Sym, ...], env: Mapping[str, int]) -> int:
    total = 1
    for dim in shape:
        total *= _value(dim, env)
    return total


# ---------------------------------------------------------------------------
# Backends
# ---------------------------------------------------------------------------


def _run_interp(schedule: Schedule, env: Mapping[str, int], words: dict[str, np.ndarray], steps: list[_Step]) -> dict[str, np.ndarray]:
    counts = _counts(schedule, env)
    state: dict[str, np.ndarray] = dict(words)
    for buffer in schedule.buffers:
        state[buffer.name] = np.zeros(host.word_count(buffer.dtype, counts[buffer.name][1]), dtype=np.uint32)
    for step in steps:
        bound = dict(step.dispatch.bind)
        kernel_words: dict[str, np.ndarray] = {local: state[name] for local, name in bound.items()}
        lengths = {
            local: counts[name][1] for local, name in bound.items() if counts[name][0] in _HALF
        }
        if len(step.params):
            kernel_words["dims"] = step.params
        final = interp_execute(
            _prepared(step.dispatch.program), kernel_words, (step.groups, 1, 1), lengths=lengths or None
        )
        for local, value in final.items():
            state[bound[local]] = value
    return {r.name: state[r.buffer] for r in schedule.results}


@dataclass
class Staged:
    """A schedule bound to device buffers for one set of arguments: the
    encoded dispatches (`wgpu_backend.run_steps` items), the buffers to zero
    first and every buffer by schedule name (benchmarks time `run_steps` on it)."""

    schedule: Schedule
    encoded: list[tuple[Prepared, dict[str, Any], tuple[int, int, int]]]
    clear: list[Any]
    device: dict[str, Any]

    def results(self) -> dict[str, np.ndarray]:
        """The result buffers' words, in one readback."""
        from vyre.runtime.wgpu_device import gpu_device

        read = gpu_device().read_many([self.device[r.buffer] for r in self.schedule.results])
        return {r.name: value for r, value in zip(self.schedule.results, read)}


def _stage_wgpu(schedule: Schedule, env: Mapping[str, int], words: dict[str, np.ndarray], steps: list[_Step]) -> Staged:
    from vyre.runtime.wgpu_device import Resident, gpu_device

    gpu = gpu_device()
    counts = _counts(schedule, env)
    device: dict[str, Any] = {name: Resident.upload(gpu, value) for name, value in words.items()}
    clear: list[Any] = []
    for buffer in schedule.buffers:
        resident = Resident.allocate(gpu, host.word_count(buffer.dtype, counts[buffer.name][1]))
        device[buffer.name] = resident
        clear.append(resident)
    encoded: list[tuple[Prepared, dict[str, Any], tuple[int, int, int]]] = []
    for step in steps:
        bound = {local: device[name] for local, name in step.dispatch.bind}
        if len(step.params):
            bound["dims"] = Resident.upload_uniform(gpu, step.params)  # bound in place, not copied by each run
        encoded.append((_prepared(step.dispatch.program), bound, (step.groups, 1, 1)))
    return Staged(schedule, encoded, clear, device)


def stage(graph: Graph, inputs: Mapping[str, Any]) -> Staged:
    """`graph` on `inputs` bound on the wgpu device, not run (checks done)."""
    schedule = _device_schedule(graph, "wgpu")
    env, words = _bind(schedule, inputs)
    _check(schedule, env)
    return _stage_wgpu(schedule, env, words, _steps(schedule, env))


def _run_wgpu(schedule: Schedule, env: Mapping[str, int], words: dict[str, np.ndarray], steps: list[_Step]) -> dict[str, np.ndarray]:
    from vyre.runtime import wgpu_backend

    staged = _stage_wgpu(schedule, env, words, steps)
    if staged.encoded or staged.clear:
        wgpu_backend.run_steps(staged.encoded, clear=staged.clear)
    return staged.results()


def run(graph: Graph, inputs: Mapping[str, Any], backend: str = "wgpu") -> dict[str, np.ndarray]:
    """Run `graph` on `inputs` (a dict of numpy arrays by input name: float32,
    float16, BF16 as uint16 bit patterns or ml_dtypes.bfloat16, uint32, int32)
    on `backend` ("wgpu" or "interp"); returns each output by name, shaped
    (BF16 as uint16 bit patterns). `ValueError` for shapes that do not fit
    the graph, before anything runs."""
    return run_schedule(_device_schedule(graph, backend), inputs, backend)


def run_schedule(schedule: Schedule, inputs: Mapping[str, Any], backend: str = "wgpu") -> dict[str, np.ndarray]:
    """`vt.run` of a schedule (one read from lowered IR: `read_schedule`)."""
    if backend not in BACKENDS:
        raise ValueError(f"vt.run: backend must be one of {BACKENDS}, got {backend!r}")
    env, words = _bind(schedule, inputs)
    _check(schedule, env)
    steps = _steps(schedule, env)
    final = (_run_interp if backend == "interp" else _run_wgpu)(schedule, env, words, steps)
    out: dict[str, np.ndarray] = {}
    for result in schedule.results:
        shape = tuple(_value(d, env) for d in result.shape)
        count = _numel(result.shape, env)
        values = host.from_words(result.name, result.dtype, final[result.name], count)
        out[result.name] = values.reshape(shape)
    return out
