"""Running kernel ops: user arguments in, the kernel pipeline on a backend,
outputs out (`ops.evaluate`, `ops.evaluate_raw`, `ops.evaluate_many` for kernel
ops; docs/kernels.md, with the conventions C1-C9 of kernel ops).

The arguments are checked against the op's ports (each error names the op and
the input), packed into host words (`vyre.runtime.host`: Bytes four per word),
and the plan the op builds for those sizes runs (docs/kernels.md "Running a
kernel op"):

- on the interpreter, step by step on host words;
- on wgpu, with every buffer on the device: inputs uploaded once (or taken as
  they are from `vyre.DeviceBuffer`s), constants uploaded, scratch and outputs
  cleared on the device, every step of every evaluation encoded into one
  command buffer and submitted once (`wgpu_backend.run_steps`), and all outputs
  read back with one more submission, or kept on the device as
  `DeviceBuffer`s (`on_device=True`).

Plans may go on by the data: a `Repeat` runs a range of steps until a flag word
clears (the interpreter checks it after every round, wgpu after batches of
rounds, one flag readback for all evaluations per batch); `KernelSpec.replan`
runs an evaluation again with another plan after looking at its scalar
outputs; `KernelSpec.plan_many` runs many evaluations as one batched plan;
`KernelSpec.device_check` checks device-buffer inputs on the device (one
status readback) instead of reading them back for `check_args`.

Each step's program is prepared by the pipeline once per program object (the
op modules build their programs once per shape and keep them), and bound to an
evaluation's device buffers once (`_Job.encoded`): an iterative op's rounds
repeat the same bound steps, which `run_steps` checks and binds once per
submission and records into shared compute passes.

`evaluate_many` over many small host inputs of an op with `plan_many` takes
the columnar path (`_Columns`): the arguments checked column by column, each
input laid end to end at once, one batched plan, the outputs cut apart as
views of their buffers (`_cut`). A planner reads the sizes as int64 columns
(`size_column` of `BatchSizes`) and may split its outputs with an array, so
per message what remains is a few C-level passes over the argument lists, the
join of the Bytes values and the Python list of results
(`bench/evaluate_overhead.py`).
"""

from __future__ import annotations

import gc
import itertools
import operator
from collections.abc import Generator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from types import MappingProxyType
from dataclasses import dataclass, field
from typing import Any, NoReturn, cast

import numpy as np

from vyre.fingerprint import LruCache
from vyre.ir import BufferAccess, DataType, Program
from vyre.kernels.spec import (
    MAX_REPLANS,
    MAX_ROUNDS_PER_CHECK,
    NO_ERROR,
    BatchPlan,
    BatchSizes,
    Buffer,
    KernelPlan,
    KernelSpec,
    OpInputError,
    Port,
    Repeat,
    Step,
    batch_starts,
)
from vyre.pipeline import Prepared, prepare
from vyre.runtime import host
from vyre.runtime.device_buffer import DeviceBuffer
from vyre.runtime.interp import execute as interp_execute

__all__ = [
    "KernelArgs",
    "check_args",
    "evaluate_kernel",
    "evaluate_kernel_many",
    "host_values",
    "plan_of",
    "stage_wgpu",
]

BACKENDS = ("interp", "wgpu")

_INTEGER_RANGES = {
    DataType.U32: (0, 2**32 - 1),
    DataType.I32: (-(2**31), 2**31 - 1),
    DataType.BOOL: (0, 1),
    DataType.U64: (0, 2**64 - 1),
}
_NUMPY = {
    DataType.U32: np.uint32,
    DataType.I32: np.int32,
    DataType.BOOL: np.uint32,
    DataType.U64: np.uint64,
    DataType.F32: np.float32,
}


@dataclass(frozen=True)
class KernelArgs:
    """Checked arguments of one evaluation."""

    user: tuple[Any, ...]
    """The checked user values: arrays (Bytes as uint8), ints for scalars, and
    device buffers as given (`host_values` reads them back)."""
    words: dict[str, np.ndarray | DeviceBuffer]
    """Host words (or device buffers) of every array input, by port name."""
    sizes: dict[str, int]
    """Element count of every array input (bytes for Bytes)."""
    scalars: dict[str, int]


# ---------------------------------------------------------------------------
# Arguments
# ---------------------------------------------------------------------------


def check_args(spec: KernelSpec, args: Sequence[Any]) -> KernelArgs:
    """Check and convert the user arguments of `spec` (`TypeError`/`ValueError`
    naming the op and the input)."""
    if isinstance(args, np.ndarray | bytes | str) or not isinstance(args, Sequence):  # pyright: ignore[reportUnnecessaryIsInstance]
        raise TypeError(
            f"ops.evaluate(`{spec.id}`, inputs): inputs must be a list of {len(spec.inputs)}"
            f" value(s), one per input of {spec.signature}"
        )
    if len(args) != len(spec.inputs):
        raise ValueError(
            f"`{spec.id}` takes {len(spec.inputs)} input(s) {spec.signature}, got {len(args)}"
        )
    user: list[Any] = []
    words: dict[str, np.ndarray | DeviceBuffer] = {}
    sizes: dict[str, int] = {}
    scalars: dict[str, int] = {}
    for port, value in zip(spec.inputs, args, strict=True):
        where = f"input `{port.name}` of `{spec.id}`"
        if port.scalar:
            scalars[port.name] = _scalar(where, port, value)
            user.append(scalars[port.name])
            continue
        if isinstance(value, DeviceBuffer):
            if value.dtype is not port.dtype:
                raise TypeError(f"{where} ({port}) is a DeviceBuffer of {value.dtype}")
            words[port.name], sizes[port.name] = value, value.count
            user.append(value)
        else:
            array = _array(where, port, value)
            words[port.name], sizes[port.name] = host.to_words(port.name, port.dtype, array)
            user.append(array)
        if sizes[port.name] > spec.max_length:
            raise ValueError(
                f"{where} has {sizes[port.name]} elements; `{spec.id}` takes at most"
                f" {spec.max_length} (counts are u32)"
            )
    checked = tuple(user)
    if spec.check_args is not None:
        on_device = spec.device_check is not None and any(isinstance(v, DeviceBuffer) for v in checked)
        spec.check_args(checked if on_device else host_values(checked))
    return KernelArgs(checked, words, sizes, scalars)


def _device_checks(spec: KernelSpec, checked: Sequence[KernelArgs], backend: str) -> None:
    """Run the op's `DeviceCheck` of every evaluation with device-buffer inputs
    (one submission, one readback) and raise the first `ValueError`."""
    check = spec.device_check
    if check is None:
        return
    wanted = [args for args in checked if any(isinstance(v, DeviceBuffer) for v in args.words.values())]
    if not wanted:
        return
    jobs = [_Job(_checked_plan(spec, check.plan(a.sizes, a.scalars), set(a.words), outputs=False), a.words, {}) for a in wanted]
    _run(spec, jobs, backend)
    sources = [_Source(job.state[check.status], 0, _len_words(job.plan, check.status), 0) for job in jobs]
    for args, status in zip(wanted, _read_words(sources)):
        problem = check.message(args.sizes, args.scalars, status)
        if problem is not None:
            raise ValueError(problem)


def _len_words(plan: KernelPlan, name: str) -> int:
    buffer = plan.buffer(name)
    return host.word_count(buffer.dtype, buffer.count)


def host_values(values: tuple[Any, ...]) -> tuple[Any, ...]:
    """The user values with device buffers read back (what references take)."""
    return tuple(v.numpy() if isinstance(v, DeviceBuffer) else v for v in values)


def _scalar(where: str, port: Port, value: object) -> int:
    if isinstance(value, bool | np.bool_) and port.dtype is not DataType.BOOL:
        raise TypeError(f"{where} ({port.dtype}) must be an int, got {value!r}")
    try:
        number = operator.index(value)  # pyright: ignore[reportArgumentType]
    except TypeError:
        raise TypeError(f"{where} ({port.dtype}) must be an int, got {value!r}") from None
    low, high = _INTEGER_RANGES.get(port.dtype, (0, 2**32 - 1))
    if not low <= number <= high:
        raise ValueError(f"{where} ({port.dtype}) must be in [{low}, {high}], got {number}")
    return number


AnyArray = np.ndarray[Any, np.dtype[Any]]


def _array(where: str, port: Port, value: object) -> AnyArray:
    if port.dtype is DataType.BYTES:
        if isinstance(value, bytes | bytearray | memoryview):
            return np.frombuffer(bytes(cast("bytes | bytearray | memoryview", value)), dtype=np.uint8)
        if isinstance(value, np.ndarray):
            given = cast(AnyArray, value)
            if given.dtype == np.uint8 and given.ndim == 1:
                return given
        raise TypeError(f"{where} (Bytes) must be bytes or a 1-D uint8 array, got {_describe(cast(object, value))}")
    if not isinstance(value, np.ndarray | list | tuple):
        raise TypeError(f"{where} ({port}) must be a 1-D array, got {_describe(value)}")
    array: AnyArray = np.asarray(cast(Any, value))
    if array.ndim != 1:
        raise TypeError(f"{where} ({port}) must be a 1-D array, got {_describe(array)}")
    if port.dtype is DataType.F32:
        if array.size == 0:
            return np.zeros(0, dtype=np.float32)
        if array.dtype.kind != "f" or array.dtype.itemsize != 4:  # float64 would round silently
            raise TypeError(f"{where} (F32[]) must be a float array (float32), got {_describe(array)}{f32_hint(array)}")
        return array if array.dtype == np.float32 else array.astype(np.float32)
    if port.dtype not in _INTEGER_RANGES:
        raise TypeError(f"{where}: ops.evaluate does not take {port.dtype} arrays")
    if array.size == 0:
        return np.zeros(0, dtype=_NUMPY[port.dtype])
    if not (np.issubdtype(array.dtype, np.integer) or array.dtype == np.bool_):
        raise TypeError(f"{where} ({port}) must be an integer array, got {_describe(array)}")
    low, high = _INTEGER_RANGES[port.dtype]
    smallest, largest = int(array.min()), int(array.max())
    if smallest < low or largest > high:
        bad = smallest if smallest < low else largest
        raise ValueError(f"{where} ({port}) holds {bad}, outside [{low}, {high}]")
    return array.astype(_NUMPY[port.dtype], copy=False)


def f32_hint(array: AnyArray) -> str:
    """The fix for a float array of another width given for F32 (nothing for
    other kinds): rounding is the caller's decision, as in `vyre.run`."""
    if array.dtype.kind != "f":
        return ""
    return ". Fix: convert it yourself (np.asarray(x, dtype=np.float32)) if rounding to f32 is intended"


def _describe(value: object) -> str:
    if isinstance(value, np.ndarray):
        array = cast(AnyArray, value)
        return f"a {array.ndim}-D {array.dtype} array"
    return type(value).__name__


# ---------------------------------------------------------------------------
# Running
# ---------------------------------------------------------------------------

PREPARED_CAPACITY = 256
_PREPARED: LruCache[int, tuple[Program, Prepared, tuple[str, ...]]] = LruCache(PREPARED_CAPACITY)
"""Prepared step programs and the names of their storage and uniform buffers,
by program identity (the entry keeps the program alive, so its id is not
reused while it is cached)."""

BATCH_THRESHOLD = 2
"""`evaluate_many` uses an op's `plan_many` from this many evaluations on."""


def _prepared_entry(program: Program) -> tuple[Program, Prepared, tuple[str, ...]]:
    """The prepared form of a step's program and its bound buffer names, once
    per program object (the op modules keep their programs, so this skips
    fingerprinting on every call; an iterative op runs a step thousands of times)."""
    entry = _PREPARED.get(id(program))
    if entry is not None and entry[0] is program:
        return entry
    names = tuple(d.name for d in program.buffers if d.access is not BufferAccess.WORKGROUP)
    entry = (program, prepare(program), names)
    _PREPARED.put(id(program), entry)
    return entry


def _buffer_words(buffer: Buffer) -> np.ndarray:
    if buffer.words is not None:
        return np.ascontiguousarray(buffer.words, dtype=np.uint32)
    return np.full(host.word_count(buffer.dtype, buffer.count), buffer.fill, dtype=np.uint32)


def _checked_plan(spec: KernelSpec, plan: KernelPlan, inputs: set[str], outputs: bool = True) -> KernelPlan:
    """`plan` after the runtime's own checks (a failing one is a library bug)."""
    names = {b.name for b in plan.buffers}
    for step in plan.steps:
        for decl in step.program.buffers:
            if decl.access is BufferAccess.READ_WRITE and step.source(decl.name) in inputs:
                raise RuntimeError(
                    f"kernel op `{spec.id}` binds its input `{step.source(decl.name)}` read_write"
                    " in a step; inputs are read only (a library bug)"
                )
    for port in spec.outputs if outputs else ():
        if plan.output_buffer(port.name) not in names:
            raise RuntimeError(
                f"kernel op `{spec.id}`: its plan has no buffer for output `{port.name}` (a library bug)"
            )
    for repeat in plan.repeats:
        if repeat.until in inputs:
            raise RuntimeError(f"kernel op `{spec.id}`: a Repeat flag is an input (a library bug)")
    return plan


# -- iteration: the same schedule on both backends ------------------------------


class _Cursor:
    """Where one evaluation's plan stands: `pending` gives the steps to encode
    now, up to the next flag check (a `Repeat` batch); `flag` takes the flag's
    value read after them. The interpreter checks after every round; wgpu after
    `rounds_per_check` rounds, then twice as many each time (up to
    MAX_ROUNDS_PER_CHECK)."""

    def __init__(self, spec: KernelSpec, plan: KernelPlan, every_round: bool):
        self.spec = spec
        self.plan = plan
        self.segments = plan.segments()
        self.every_round = every_round
        self.index = 0
        self.rounds = 0
        self.batch = 0
        self.total_rounds = 0

    def pending(self) -> tuple[list[Step], Repeat | None]:
        out: list[Step] = []
        while self.index < len(self.segments):
            segment = self.segments[self.index]
            if not isinstance(segment, Repeat):
                out.extend(segment)
                self.index += 1
                continue
            if segment.max_rounds == 0:
                self.index += 1
                continue
            if self.batch == 0:
                self.batch = 1 if self.every_round else segment.rounds_per_check
            rounds = min(self.batch, segment.max_rounds - self.rounds)
            out.extend(self.plan.steps[segment.start : segment.stop] * rounds)
            self.rounds += rounds
            self.total_rounds += rounds
            return out, segment
        return out, None

    def flag(self, repeat: Repeat, value: int) -> None:
        if value == 0:
            self.index += 1
            self.rounds = self.batch = 0
            return
        if self.rounds >= repeat.max_rounds:
            raise RuntimeError(
                f"kernel op `{self.spec.id}`: the flag `{repeat.until}` is still set after"
                f" {repeat.max_rounds} rounds, the most its plan allows (a library bug);"
                " no output is returned"
            )
        if not self.every_round:
            self.batch = min(2 * self.batch, MAX_ROUNDS_PER_CHECK)


# -- jobs: one plan over one set of input words ---------------------------------


@dataclass
class _Job:
    plan: KernelPlan
    inputs: Mapping[str, np.ndarray | DeviceBuffer]
    state: dict[str, Any]
    """Every buffer by name after the run: host words (interp) or `Resident`s."""
    encoded: dict[int, tuple[Prepared, dict[str, Any], tuple[int, int, int]]] = field(
        default_factory=lambda: {}
    )
    """Each step of the plan bound to the job's device buffers, by id(step),
    made once (an iterative op's rounds repeat the same steps: `run_steps`
    then binds a repeated step once per submission)."""


def _interp_step(state: dict[str, np.ndarray], step: Step) -> None:
    _, prepared, names = _prepared_entry(step.program)
    words = {name: state[step.source(name)] for name in names}
    final = interp_execute(prepared, words, step.dispatch)
    for name, value in final.items():
        state[step.source(name)] = value


def _run_interp(spec: KernelSpec, jobs: Sequence[_Job]) -> None:
    """Each job's plan step by step; a Repeat's flag is read after every round."""
    for job in jobs:
        state: dict[str, np.ndarray] = {}
        for name, value in job.inputs.items():
            state[name] = value.resident.read() if isinstance(value, DeviceBuffer) else value
        for buffer in job.plan.buffers:
            state[buffer.name] = _buffer_words(buffer)
        cursor = _Cursor(spec, job.plan, every_round=True)
        while True:
            steps, repeat = cursor.pending()
            for step in steps:
                _interp_step(state, step)
            if repeat is None:
                break
            cursor.flag(repeat, int(state[repeat.until][repeat.word]))
        job.state = dict(state)


_UPLOADS: ContextVar[dict[int, tuple[Any, Any]] | None] = ContextVar("vyre_kernel_uploads", default=None)
"""While an evaluation call runs (`_uploads_shared`): the device copy of each
host input array it uploaded, by the array's id (the array kept with it, so the
id stays its own), so that a re-planned run binds the same copy instead of
uploading the input again (plans never write their inputs: admission gate 11)."""


@contextmanager
def _uploads_shared() -> Generator[None, None, None]:
    token = _UPLOADS.set({})
    try:
        yield
    finally:
        _UPLOADS.reset(token)


def _uploaded(gpu: Any, value: Any) -> Any:
    """The device copy of host input words `value`: the one this evaluation call
    already made, else a new upload."""
    from vyre.runtime.wgpu_device import Resident

    memo = _UPLOADS.get()
    hit = None if memo is None else memo.get(id(value))
    if hit is not None and hit[0] is value:
        return hit[1]
    resident = Resident.upload(gpu, value)
    if memo is not None:
        memo[id(value)] = (value, resident)
    return resident


def _stage_job(job: _Job) -> list[Any]:
    """Device buffers of one job (in `job.state`); returns those to clear."""
    from vyre.runtime.wgpu_device import UNIFORM_BYTES, Resident, gpu_device

    gpu = gpu_device()
    state: dict[str, Any] = {}
    for name, value in job.inputs.items():
        state[name] = value.resident if isinstance(value, DeviceBuffer) else _uploaded(gpu, value)
    clear: list[Resident] = []
    uniform = {
        step.source(decl.name)
        for step in job.plan.steps
        for decl in step.program.buffers
        if decl.access is BufferAccess.UNIFORM
    }
    for buffer in job.plan.buffers:
        if buffer.words is None and buffer.fill == 0:
            resident = Resident.allocate(gpu, host.word_count(buffer.dtype, buffer.count))
            clear.append(resident)
        else:
            words = _buffer_words(buffer)
            if buffer.name in uniform and words.nbytes <= UNIFORM_BYTES:  # bound in place, not copied by each run
                resident = Resident.upload_uniform(gpu, words)
            else:
                resident = Resident.upload(gpu, words)
        state[buffer.name] = resident
    job.state = state
    job.encoded.clear()
    return clear


def _encoded(job: _Job, steps: Sequence[Step]) -> list[tuple[Prepared, dict[str, Any], tuple[int, int, int]]]:
    """The steps bound to the job's device buffers (`run_steps` items); a step
    repeated is the same tuple object every time."""
    out: list[tuple[Prepared, dict[str, Any], tuple[int, int, int]]] = []
    memo = job.encoded
    for step in steps:
        item = memo.get(id(step))
        if item is None:
            _, prepared, names = _prepared_entry(step.program)
            item = (prepared, {name: job.state[step.source(name)] for name in names}, step.dispatch)
            memo[id(step)] = item
        out.append(item)
    return out


def _run_wgpu(spec: KernelSpec, jobs: Sequence[_Job]) -> None:
    """Every job on the device: one submission for every job's steps up to its
    first flag check, one readback of all the flags checked, and so on until
    every plan is done (a plan without `Repeat` is one submission)."""
    from vyre.runtime import wgpu_backend
    from vyre.runtime.wgpu_device import gpu_device

    clear: list[Any] = []
    for job in jobs:
        clear.extend(_stage_job(job))
    cursors = [_Cursor(spec, job.plan, every_round=False) for job in jobs]
    active = list(range(len(jobs)))
    while active:
        encoded: list[tuple[Prepared, dict[str, Any], tuple[int, int, int]]] = []
        checks: list[tuple[int, Repeat]] = []
        for k in active:
            steps, repeat = cursors[k].pending()
            encoded.extend(_encoded(jobs[k], steps))
            if repeat is not None:
                checks.append((k, repeat))
        if encoded or clear:
            wgpu_backend.run_steps(encoded, clear=clear)
        clear = []
        if not checks:
            break
        flags = gpu_device().read_many([jobs[k].state[repeat.until] for k, repeat in checks])
        for (k, repeat), words in zip(checks, flags):
            cursors[k].flag(repeat, int(words[repeat.word]))
        active = [k for k, _ in checks]


def plan_of(spec: KernelSpec, args: KernelArgs) -> KernelPlan:
    """The checked plan of one evaluation (benchmarks stage its steps with `stage_wgpu`)."""
    return _checked_plan(spec, spec.plan(args.sizes, args.scalars), set(args.words))


def stage_wgpu(
    plan: KernelPlan, args: KernelArgs
) -> tuple[list[tuple[Prepared, dict[str, Any], tuple[int, int, int]]], list[Any], dict[str, Any]]:
    """(encoded steps, buffers to clear, device buffers by name) of a plan
    without `Repeat`s, every step once (for benchmarks that time the steps
    with `wgpu_backend.run_steps`)."""
    if plan.repeats:
        raise ValueError("a plan with Repeat rounds runs through evaluate_kernel_many, not step by step")
    job = _Job(plan, args.words, {})
    clear = _stage_job(job)
    return _encoded(job, plan.steps), clear, job.state


_plan, _stage_wgpu = plan_of, stage_wgpu  # the names bench/kernels.py uses


def _run(spec: KernelSpec, jobs: Sequence[_Job], backend: str) -> None:
    if backend == "interp":
        _run_interp(spec, jobs)
    else:
        _run_wgpu(spec, jobs)


# -- outputs --------------------------------------------------------------------


@dataclass(frozen=True)
class _Source:
    """Where one evaluation's output lies: `words` words of `holder` (host words
    or a `Resident`) from word `first`, holding `count` elements."""

    holder: Any
    first: int
    words: int
    count: int


def _sources_of(spec: KernelSpec, job: _Job) -> dict[str, _Source]:
    out: dict[str, _Source] = {}
    for port in spec.outputs:
        buffer = job.plan.buffer(job.plan.output_buffer(port.name))
        words = host.word_count(port.dtype, buffer.count)
        out[port.name] = _Source(job.state[buffer.name], 0, words, buffer.count)
    return out


def _batch_sources(spec: KernelSpec, batch: BatchPlan, job: _Job, evaluations: int) -> list[dict[str, _Source]]:
    return _split_sources(spec, job, _batch_splits(spec, batch, job, evaluations), evaluations)


def _split_sources(
    spec: KernelSpec, job: _Job, splits: Sequence[tuple[str, np.ndarray, np.ndarray, np.ndarray]], evaluations: int
) -> list[dict[str, _Source]]:
    """Each evaluation's output sources from a batch's splits (`_batch_splits`)."""
    out: list[dict[str, _Source]] = [{} for _ in range(evaluations)]
    for port, (buffer, firsts, words, counts) in zip(spec.outputs, splits):
        holder = job.state[buffer]
        for evaluation, first, size, count in zip(out, firsts.tolist(), words.tolist(), counts.tolist()):
            evaluation[port.name] = _Source(holder, first, size, count)
    return out


def _read_words(sources: Sequence[_Source]) -> list[np.ndarray]:
    """The words of each source, with one readback for every device buffer."""
    from vyre.runtime.wgpu_device import Resident

    residents: dict[int, Any] = {}
    for source in sources:
        if isinstance(source.holder, Resident):
            residents.setdefault(id(source.holder), source.holder)
    read: dict[int, np.ndarray] = {}
    if residents:
        from vyre.runtime.wgpu_device import gpu_device

        keys = list(residents)
        for key, words in zip(keys, gpu_device().read_many([residents[k] for k in keys])):
            read[key] = words
    out: list[np.ndarray] = []
    for source in sources:
        whole = read[id(source.holder)] if id(source.holder) in read else source.holder
        out.append(np.asarray(whole)[source.first : source.first + source.words])
    return out


def _scalar_ports(spec: KernelSpec, on_device: bool) -> tuple[Port, ...]:
    """The outputs read back before the outputs are handed over: all of them on
    the host; on the device the scalars that decide errors, lengths and replans."""
    if not on_device:
        return spec.outputs
    wanted = {spec.error_from, spec.code_from} | {p.length_from for p in spec.outputs}
    return tuple(p for p in spec.outputs if p.scalar and (spec.replan is not None or p.name in wanted))


def _values(spec: KernelSpec, ports: Sequence[Port], sources: Sequence[Mapping[str, _Source]]) -> list[dict[str, np.ndarray]]:
    flat = [evaluation[port.name] for evaluation in sources for port in ports]
    words = iter(_read_words(flat))
    out: list[dict[str, np.ndarray]] = []
    for evaluation in sources:
        values: dict[str, np.ndarray] = {}
        for port in ports:
            source = evaluation[port.name]
            values[port.name] = host.from_words(port.name, port.dtype, next(words), source.count)
        out.append(values)
    return out


def _check_error(
    spec: KernelSpec, values: Mapping[str, np.ndarray], args: KernelArgs, position: tuple[int, int] = (0, 1)
) -> None:
    """`OpInputError` when the evaluation's error output reports one; with
    `position` (k, of n), n >= 2, its detail names argument list k."""
    if spec.error_from is None:
        return
    offset = int(values[spec.error_from][0])
    if offset == NO_ERROR:
        return
    detail = ""
    if spec.describe_error is not None:
        detail = spec.describe_error(host_values(args.user), offset)
    k, count = position
    if count >= 2:
        where = f"argument list {k} of {count} in ops.evaluate_many"
        detail = f"{detail} ({where})" if detail else where
    code = 1 if spec.code_from is None else int(values[spec.code_from][0])
    raise OpInputError(spec.id, offset, code, detail)


def _length(spec: KernelSpec, port: Port, values: Mapping[str, np.ndarray], capacity: int) -> int:
    assert port.length_from is not None
    length = int(values[port.length_from][0])
    if length > capacity:
        raise RuntimeError(
            f"kernel op `{spec.id}` reported {length} elements of `{port.name}`, which"
            f" holds {capacity} (a library bug)"
        )
    return length


def _host_outputs(spec: KernelSpec, values: Mapping[str, np.ndarray]) -> tuple[np.ndarray, ...]:
    trimmed = dict(values)
    for port in spec.outputs:
        if port.length_from is not None:
            trimmed[port.name] = values[port.name][: _length(spec, port, values, len(values[port.name]))]
    return tuple(trimmed[port.name] for port in spec.outputs)


def _device_outputs(
    spec: KernelSpec, sources: Sequence[Mapping[str, _Source]], values: Sequence[Mapping[str, np.ndarray]]
) -> list[tuple[DeviceBuffer, ...]]:
    """Every output as a `DeviceBuffer` of its logical length: the plan's buffer
    itself where it is exactly the output, else a copy of the range made on the
    device (all copies in one submission, no readback)."""
    from vyre.runtime.wgpu_device import Resident, gpu_device

    gpu = gpu_device()
    copies: list[tuple[Any, int, Any, int]] = []
    results: list[tuple[DeviceBuffer, ...]] = []
    for evaluation, scalars in zip(sources, values):
        outputs: list[DeviceBuffer] = []
        for port in spec.outputs:
            source = evaluation[port.name]
            count = source.count
            if port.length_from is not None:
                count = _length(spec, port, scalars, count)
            words = host.word_count(port.dtype, count)
            resident = source.holder
            if source.first != 0 or words != resident.words:
                target = Resident.allocate(gpu, words)
                if words:
                    copies.append((resident.buffer, source.first * 4, target.buffer, words * 4))
                resident = target
            outputs.append(DeviceBuffer(resident, port.dtype, count))
        results.append(tuple(outputs))
    if copies:
        with gpu.lock:
            encoder = gpu.device.create_command_encoder()
            for src, offset, dst, nbytes in copies:
                encoder.copy_buffer_to_buffer(src, offset, dst, 0, nbytes)
            gpu.device.queue.submit([encoder.finish()])
    return results


# -- the entry points -----------------------------------------------------------


def evaluate_kernel(
    spec: KernelSpec,
    args: Sequence[Any],
    backend: str = "wgpu",
    raise_errors: bool = True,
    on_device: bool = False,
) -> tuple[Any, ...]:
    """Every output of kernel op `spec` on `args`, in port order (numpy arrays,
    or `DeviceBuffer`s with `on_device=True`)."""
    return evaluate_kernel_many(spec, [args], backend, raise_errors, on_device)[0]


_WORD_VIEWS = {DataType.U32: np.dtype(np.uint32), DataType.I32: np.dtype(np.int32), DataType.F32: np.dtype(np.float32)}
"""Element types whose native 1-D arrays are their host words (little-endian hosts)."""
_BYTE = np.dtype(np.uint8)
_PAD = (b"", b"\0\0\0", b"\0\0", b"\0")
"""Zero bytes that pad a message of n bytes to a whole word: _PAD[n % 4]."""
_USER_VIEWS: dict[DataType, tuple[np.dtype[Any], int]] = {
    DataType.BYTES: (np.dtype(np.uint8), 4),
    DataType.U32: (np.dtype(np.uint32), 1),
    DataType.BOOL: (np.dtype(np.uint32), 1),
    DataType.I32: (np.dtype(np.int32), 1),
    DataType.F32: (np.dtype(np.float32), 1),
}
"""(user dtype, elements per word) of the outputs whose user arrays are views
of the words as they are (what `host.from_words` gives on a little-endian host)."""


def _word_counts(dtype: DataType, counts: np.ndarray) -> np.ndarray:
    """`host.word_count` of every count (int64 arrays)."""
    if dtype is DataType.BYTES:
        return (counts + 3) // 4
    if dtype in host.PACKED_HALF_TYPES:
        return (counts + 1) // 2
    return counts * host.layout(dtype).words_per_element


class _Columns:
    """The arguments of a batch in columns: the columnar path of
    `evaluate_many` for an op with a batched plan (`KernelSpec.plan_many`).

    Taken when every value has the plain type of its port (`bytes` or 1-D
    uint8 arrays for Bytes ports, 1-D arrays of the port's own numpy dtype for U32/I32/F32 ports, ints
    in range for scalars): each check is one C-level pass over a column (the
    set of the values' types, dtypes, dimensions; min and max), each array
    input is laid end to end at once (one `b"".join`, or one
    `np.concatenate`), and an evaluation's own arguments (`args(k)`, views of
    the laid words) are made only where they are needed: the op's
    `check_args`, an error's description, a re-plan."""

    __slots__ = ("count", "laid", "sizes", "spec", "starts", "values")

    def __init__(self, spec: KernelSpec, count: int, values: dict[str, list[Any]]):
        self.spec = spec
        self.count = count
        self.values = values
        """Per input port: the user values of every evaluation."""
        self.sizes: dict[str, np.ndarray] = {}
        """Per array input port: element counts (bytes for Bytes), int64."""
        self.laid: dict[str, np.ndarray] = {}
        """Per array input port: every evaluation's words laid end to end."""
        self.starts: dict[str, np.ndarray] = {}
        """Per array input port: where each evaluation's words start (count + 1
        entries: `batch_starts`)."""

    @classmethod
    def of(cls, spec: KernelSpec, many: Sequence[Any]) -> _Columns | None:
        """The columns of `many`, or None: the general per-evaluation checks apply."""
        count = len(many)
        if spec.plan_many is None or count < BATCH_THRESHOLD or not np.little_endian:
            return None
        if not set(map(type, many)) <= {list, tuple}:
            return None
        arity = len(spec.inputs)
        if set(map(len, many)) != {arity}:
            return None
        values = {port.name: list(map(operator.itemgetter(k), many)) for k, port in enumerate(spec.inputs)}
        columns = cls(spec, count, values)
        for port in spec.inputs:
            column = values[port.name]
            if port.scalar:
                low, high = _INTEGER_RANGES.get(port.dtype, (0, 2**32 - 1))
                if set(map(type, column)) != {int} or min(column) < low or max(column) > high:
                    return None
                continue
            # the types first: len() of another value may raise or mean something else
            if port.dtype is DataType.BYTES:
                kinds = set(map(type, column))
                if kinds != {bytes}:
                    # 1-D uint8 arrays (a slice of a larger array, as bytes usually
                    # arrive from numpy) join as their bytes
                    if not kinds <= {bytes, np.ndarray}:
                        return None
                    arrays = column if kinds == {np.ndarray} else [v for v in column if type(v) is np.ndarray]
                    if set(map(_DTYPE_OF, arrays)) != {_BYTE} or set(map(_NDIM_OF, arrays)) != {1}:
                        return None
                sizes = np.fromiter(map(len, column), dtype=np.int64, count=count)
                laid = _laid_bytes(column, sizes)
            else:
                native = _WORD_VIEWS.get(port.dtype)
                if (
                    native is None
                    or set(map(type, column)) != {np.ndarray}
                    or set(map(operator.attrgetter("dtype"), column)) != {native}
                    or set(map(operator.attrgetter("ndim"), column)) != {1}
                ):
                    return None
                sizes = np.fromiter(map(len, column), dtype=np.int64, count=count)
                laid = np.concatenate(column).view(np.uint32)
            if int(sizes.max()) > spec.max_length:
                return None
            starts = batch_starts(port.dtype, sizes)
            columns.sizes[port.name] = sizes
            columns.laid[port.name] = laid
            columns.starts[port.name] = starts
        return columns

    def user(self, k: int) -> tuple[Any, ...]:
        """Evaluation k's checked user values (Bytes as uint8 arrays: the
        user's own array, as `check_args` gives it, or a view of the bytes)."""
        return tuple(_user_value(p, self.values[p.name][k]) for p in self.spec.inputs)

    def args(self, k: int) -> KernelArgs:
        """Evaluation k's `KernelArgs`: its words are views of the laid words."""
        words: dict[str, np.ndarray | DeviceBuffer] = {}
        sizes: dict[str, int] = {}
        scalars: dict[str, int] = {}
        for port in self.spec.inputs:
            if port.scalar:
                scalars[port.name] = self.values[port.name][k]
                continue
            starts = self.starts[port.name]
            words[port.name] = self.laid[port.name][int(starts[k]) : int(starts[k + 1])]
            sizes[port.name] = int(self.sizes[port.name][k])
        return KernelArgs(self.user(k), words, sizes, scalars)

    def check(self) -> None:
        """The op's own `check_args` on every evaluation, in order."""
        check = self.spec.check_args
        if check is None:
            return
        for k in range(self.count):
            try:
                check(self.user(k))
            except (TypeError, ValueError) as error:
                _reraise_at(error, k, self.count)

    def plan_arguments(self) -> tuple[BatchSizes, BatchSizes]:
        """(sizes, scalars) of every evaluation, as `plan_many` takes them:
        `BatchSizes`, whose int64 columns a planner reads with `size_column`
        (nothing per evaluation). Their mappings are made only if a planner
        indexes or iterates them; then evaluations with equal values share one
        read-only mapping (a million 64-byte messages: one `{"data": 64}`), so
        that costs a list, not a million dicts; with many distinct values each
        gets its own dict."""
        count = self.count
        arrays = [p.name for p in self.spec.array_inputs]
        scalar_ports = [p.name for p in self.spec.inputs if p.scalar]
        size_columns = {name: self.sizes[name] for name in arrays}
        scalar_columns = {name: np.asarray(self.values[name], dtype=np.int64) for name in scalar_ports}
        sizes = BatchSizes(size_columns, count, lambda: _rows(arrays, list(size_columns.values()), count))
        scalars = BatchSizes(scalar_columns, count, lambda: _rows(scalar_ports, list(scalar_columns.values()), count))
        return sizes, scalars


_DTYPE_OF = operator.attrgetter("dtype")
_NDIM_OF = operator.attrgetter("ndim")


def _user_value(port: Port, value: Any) -> Any:
    """A columnar value as `check_args` gives it: Bytes as a uint8 array."""
    if port.dtype is DataType.BYTES and type(value) is not np.ndarray:
        return np.frombuffer(value, dtype=np.uint8)
    return value


def _laid_bytes(column: list[Any], sizes: np.ndarray) -> np.ndarray:
    """The words of a Bytes column (`bytes` and 1-D uint8 arrays) laid end to
    end, each value padded with zero bytes to a whole word: one `b"".join`,
    which takes C-contiguous arrays as they are (buffer protocol); the pads are
    separate parts of the join, never added to a value. A strided array has no
    contiguous buffer (the join raises TypeError): then the arrays that are
    not contiguous are copied first."""
    parts: list[Any] = column
    pads = sizes & 3
    if pads.any():
        parts = [b""] * (2 * len(column))
        parts[0::2] = column
        parts[1::2] = list(map(_PAD.__getitem__, pads.tolist()))
    try:
        joined = b"".join(parts)
    except TypeError:
        contiguous: list[Any] = [v if type(v) is bytes else np.ascontiguousarray(v) for v in parts]
        joined = b"".join(contiguous)
    return np.frombuffer(joined, dtype=np.uint32)


SHARED_ROWS = 4096
"""`_rows` shares mappings among evaluations when they have at most this many
distinct rows."""


def _rows(names: Sequence[str], columns: Sequence[np.ndarray], count: int) -> list[Mapping[str, int]]:
    """One mapping name -> value per evaluation, from int64 `columns`."""
    if not names:
        return [_NO_VALUES] * count
    if len(columns) == 1:
        distinct, which = np.unique(columns[0], return_inverse=True)
        table = distinct.reshape(-1, 1)
    else:
        table, which = np.unique(np.stack(columns, axis=1), axis=0, return_inverse=True)
    if len(table) <= SHARED_ROWS:
        shared: list[Mapping[str, int]] = [
            MappingProxyType(dict(zip(names, row))) for row in cast("list[list[int]]", table.tolist())
        ]
        indices: list[int] = which.reshape(-1).tolist()
        return list(map(shared.__getitem__, indices))
    table = np.stack(columns, axis=1)
    if len(names) == 1:
        (name,) = names
        return [{name: value} for value in cast("list[int]", columns[0].tolist())]
    return [dict(zip(names, row)) for row in cast("list[list[int]]", table.tolist())]


_NO_VALUES: Mapping[str, int] = MappingProxyType({})


class _LazyArgs(Sequence[KernelArgs]):
    """`KernelArgs` of each evaluation of a `_Columns`, made when asked for."""

    def __init__(self, columns: _Columns):
        self.columns = columns

    def __len__(self) -> int:
        return self.columns.count

    def __getitem__(self, k: int) -> KernelArgs:  # type: ignore[override]  # pyright: ignore[reportIncompatibleMethodOverride]
        if not -self.columns.count <= k < self.columns.count:
            raise IndexError(k)
        return self.columns.args(k % self.columns.count)


def _reraise_at(error: Exception, k: int, count: int) -> NoReturn:
    """`error` naming evaluation k of `count` (an argument list of
    `evaluate_many`); errors of other types (and of a single evaluation) as
    they are."""
    if count < 2 or type(error) not in (TypeError, ValueError):
        raise error
    raise type(error)(f"{error} (argument list {k} of {count} in ops.evaluate_many)") from None


def _cut(port: Port, whole: np.ndarray, firsts: np.ndarray, counts: np.ndarray) -> list[Any]:
    """Each evaluation's user array of output `port` (element `counts`, words
    from `firsts`) as a view of `whole`, the output buffer's words: rows of a
    2-D view when the outputs lie at a regular stride, else one slice each."""
    view = _USER_VIEWS.get(port.dtype)
    if view is None:
        words = _word_counts(port.dtype, counts)
        return [
            host.from_words(port.name, port.dtype, whole[f : f + w], c)
            for f, w, c in zip(firsts.tolist(), words.tolist(), counts.tolist())
        ]
    dtype, per_word = view
    user = whole.view(dtype)
    begins = firsts * per_word
    total = len(counts)
    if total and (counts == counts[0]).all():
        width = int(counts[0])
        first = int(begins[0])
        stride = int(begins[1] - first) if total > 1 else width
        if width <= stride and (total == 1 or (np.diff(begins) == stride).all()) and first + total * stride <= len(user):
            if stride == 0:
                return [user[first:first]] * total
            return list(user[first : first + total * stride].reshape(total, stride)[:, :width])
    return [user[b : b + c] for b, c in zip(begins.tolist(), counts.tolist())]


@contextmanager
def _collector_paused() -> Generator[None]:
    """Python's cyclic garbage collector paused while a batch builds its
    millions of small containers (the planner's per-evaluation mappings and
    split tuples, the list of results), none of them in a cycle: a collection
    every 700 allocations, traversing every container still alive, cost 0.7-1.3
    us per message of a million-message SHA-256 batch (measured on the dev
    box). The collector's previous state is restored; nothing is collected
    later than it would be once it runs again."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def _evaluate_columns(
    spec: KernelSpec, columns: _Columns, backend: str, raise_errors: bool, on_device: bool
) -> list[list[Any]]:
    """`evaluate_kernel_many` of a batch in columns: one batched plan, the
    outputs cut apart as views of their buffers (per output port, every
    evaluation's value)."""
    assert spec.plan_many is not None
    columns.check()
    count = columns.count
    sizes, scalars = columns.plan_arguments()
    batch = spec.plan_many(sizes, scalars)
    job = _Job(_checked_plan(spec, batch.plan, set(columns.laid)), dict(columns.laid), {})
    _run(spec, [job], backend)
    splits = _batch_splits(spec, batch, job, count)
    outputs = {port.name: port for port in spec.outputs}
    decisive = [name for name in (spec.error_from, spec.code_from, *(p.length_from for p in spec.outputs)) if name]
    if on_device or spec.replan is not None or any(outputs[name].dtype not in _USER_VIEWS for name in decisive):
        sources = _split_sources(spec, job, splits, count)
        ports = _scalar_ports(spec, on_device)
        values = _values(spec, ports, sources)
        results = _finish(spec, _LazyArgs(columns), sources, values, ports, backend, raise_errors, on_device)
        return [list(column) for column in zip(*results)]
    wholes = _read_words([_Source(job.state[buffer], 0, int(total), 0) for buffer, total in _totals(spec, job)])
    if backend == "interp":  # the interpreter's words may be the plan's own arrays
        wholes = [np.array(words, dtype=np.uint32) for words in wholes]
    by_port = {port.name: (whole, firsts, counts) for port, whole, (_, firsts, _, counts) in zip(spec.outputs, wholes, splits)}

    def scalar(name: str) -> np.ndarray:
        whole, firsts, _ = by_port[name]
        dtype, per_word = _USER_VIEWS[outputs[name].dtype]
        return whole.view(dtype)[firsts * per_word]

    if raise_errors and spec.error_from is not None:
        offsets = scalar(spec.error_from)
        bad = np.flatnonzero(offsets != NO_ERROR)
        if bad.size:
            k = int(bad[0])
            values = {spec.error_from: offsets[k : k + 1]}
            if spec.code_from is not None:
                values[spec.code_from] = scalar(spec.code_from)[k : k + 1]
            _check_error(spec, values, columns.args(k), (k, count))
    out: list[list[Any]] = []
    for port in spec.outputs:
        whole, firsts, counts = by_port[port.name]
        if port.length_from is not None:
            lengths = scalar(port.length_from).astype(np.int64)
            over = np.flatnonzero(lengths > counts)
            if over.size:
                k = int(over[0])
                raise RuntimeError(
                    f"kernel op `{spec.id}` reported {int(lengths[k])} elements of `{port.name}`, which"
                    f" holds {int(counts[k])} (a library bug)"
                )
            counts = lengths
        out.append(_cut(port, whole, firsts, counts))
    return out


def _totals(spec: KernelSpec, job: _Job) -> list[tuple[str, int]]:
    """(buffer, word count) of every output port's buffer."""
    out: list[tuple[str, int]] = []
    for port in spec.outputs:
        buffer = job.plan.buffer(job.plan.output_buffer(port.name))
        out.append((buffer.name, host.word_count(buffer.dtype, buffer.count)))
    return out


def _batch_splits(
    spec: KernelSpec, batch: BatchPlan, job: _Job, evaluations: int
) -> list[tuple[str, np.ndarray, np.ndarray, np.ndarray]]:
    """(buffer, first words, word counts, element counts) of every output port
    over the evaluations, from the batched plan's splits; a split past its
    buffer is a library bug (RuntimeError naming the first)."""
    out: list[tuple[str, np.ndarray, np.ndarray, np.ndarray]] = []
    for port, (buffer, total) in zip(spec.outputs, _totals(spec, job)):
        splits = batch.splits.get(port.name)
        if splits is None or len(splits) != evaluations:
            raise RuntimeError(
                f"kernel op `{spec.id}`: its batched plan splits output `{port.name}` into"
                f" {0 if splits is None else len(splits)} parts for {evaluations} evaluations (a library bug)"
            )
        if isinstance(splits, np.ndarray):  # an (evaluations, 2) array: taken as it is
            pairs = np.asarray(splits, dtype=np.int64).reshape(-1)
            if pairs.size != 2 * evaluations:
                raise RuntimeError(
                    f"kernel op `{spec.id}`: its batched plan splits output `{port.name}` with an array of"
                    f" {pairs.size} numbers, not ({evaluations}, 2) (a library bug)"
                )
        else:
            pairs = np.fromiter(itertools.chain.from_iterable(splits), dtype=np.int64, count=2 * evaluations)
        firsts, counts = pairs[0::2], pairs[1::2]
        words = _word_counts(port.dtype, counts)
        bad = np.flatnonzero((firsts < 0) | (counts < 0) | (firsts + words > total))
        if bad.size:
            k = int(bad[0])
            raise RuntimeError(
                f"kernel op `{spec.id}`: its batched plan puts output `{port.name}` of"
                f" evaluation {k} at words {int(firsts[k])}..{int(firsts[k] + words[k])}, past the buffer's {total}"
                " (a library bug)"
            )
        out.append((buffer, firsts, words, counts))
    return out


def _jobs(
    spec: KernelSpec, checked: Sequence[KernelArgs]
) -> tuple[list[_Job], BatchPlan | None]:
    """One job per evaluation, or one batched job (`KernelSpec.plan_many`) when
    the op has one, there are at least BATCH_THRESHOLD evaluations and every
    input is on the host."""
    batchable = (
        spec.plan_many is not None
        and len(checked) >= BATCH_THRESHOLD
        and not any(isinstance(v, DeviceBuffer) for args in checked for v in args.words.values())
    )
    if not batchable:
        return [
            _Job(_checked_plan(spec, spec.plan(args.sizes, args.scalars), set(args.words)), args.words, {})
            for args in checked
        ], None
    assert spec.plan_many is not None
    batch = spec.plan_many([args.sizes for args in checked], [args.scalars for args in checked])
    inputs: dict[str, np.ndarray | DeviceBuffer] = {}
    for port in spec.array_inputs:
        parts = [cast(np.ndarray, args.words[port.name]) for args in checked]
        inputs[port.name] = np.concatenate(parts).astype(np.uint32, copy=False) if parts else np.zeros(0, np.uint32)
    return [_Job(_checked_plan(spec, batch.plan, set(inputs)), inputs, {})], batch


def evaluate_kernel_many(
    spec: KernelSpec,
    many: Sequence[Sequence[Any]],
    backend: str = "wgpu",
    raise_errors: bool = True,
    on_device: bool = False,
) -> list[tuple[Any, ...]]:
    """The outputs of `spec` for each argument list. On wgpu every evaluation's
    dispatches go in one submission (per flag check of an iterative op) and
    every output comes back in one more; with `on_device=True` the outputs stay
    on the device as `DeviceBuffer`s of their logical lengths (only the scalars
    that decide errors, lengths and replans are read). Malformed input raises
    `OpInputError` unless `raise_errors` is False (the proof system compares the
    error output itself). With two or more argument lists, an argument error
    and an `OpInputError` name the argument list (its position in `many`)."""
    columns = evaluate_kernel_columns(spec, many, backend, raise_errors, on_device)
    return list(zip(*columns)) if columns else []


def evaluate_kernel_columns(
    spec: KernelSpec,
    many: Sequence[Sequence[Any]],
    backend: str = "wgpu",
    raise_errors: bool = True,
    on_device: bool = False,
) -> list[list[Any]]:
    """`evaluate_kernel_many` by output port: one list per output of the op,
    each holding every evaluation's value (what `ops.evaluate_many` takes the
    first of, without building a tuple per evaluation)."""
    if backend not in BACKENDS:
        raise ValueError(f"unknown backend {backend!r}; choose one of: {', '.join(map(repr, BACKENDS))}")
    if not isinstance(on_device, bool):  # pyright: ignore[reportUnnecessaryIsInstance]
        raise TypeError(f"on_device must be True or False, got {on_device!r}")
    if on_device and backend != "wgpu":
        raise ValueError(
            f"on_device=True keeps outputs on the wgpu device; backend {backend!r} has none"
            " (use backend='wgpu', or on_device=False)"
        )
    if isinstance(many, np.ndarray | bytes | str) or not isinstance(many, Sequence):  # pyright: ignore[reportUnnecessaryIsInstance]
        raise TypeError(f"ops.evaluate_many(`{spec.id}`, ...) takes a list of argument lists")
    if spec.plan_many is not None and len(many) >= BATCH_THRESHOLD:
        with _collector_paused():
            columns = _Columns.of(spec, many)
            if columns is not None:
                return _evaluate_columns(spec, columns, backend, raise_errors, on_device)
    checked: list[KernelArgs] = []
    for k, args in enumerate(many):
        try:
            checked.append(check_args(spec, args))
        except (TypeError, ValueError) as error:
            _reraise_at(error, k, len(many))
    if not checked:
        return [[] for _ in spec.outputs]
    _device_checks(spec, checked, backend)
    with _uploads_shared():
        jobs, batch = _jobs(spec, checked)
        _run(spec, jobs, backend)
        if batch is not None:
            sources = _batch_sources(spec, batch, jobs[0], len(checked))
        else:
            sources = [_sources_of(spec, job) for job in jobs]
        ports = _scalar_ports(spec, on_device)
        values = _values(spec, ports, sources)
        results = _finish(spec, checked, sources, values, ports, backend, raise_errors, on_device)
    return [list(column) for column in zip(*results)]


def _finish(
    spec: KernelSpec,
    checked: Sequence[KernelArgs],
    sources: list[dict[str, _Source]],
    values: list[dict[str, np.ndarray]],
    ports: Sequence[Port],
    backend: str,
    raise_errors: bool,
    on_device: bool,
) -> list[tuple[Any, ...]]:
    """After the run: re-plans, errors, then the outputs of every evaluation."""
    if spec.replan is not None:
        _replan(spec, checked, sources, values, ports, backend)
    if raise_errors:
        for k, evaluation in enumerate(values):
            if spec.error_from is not None and int(evaluation[spec.error_from][0]) != NO_ERROR:
                _check_error(spec, evaluation, checked[k], (k, len(values)))
    if on_device:
        return _device_outputs(spec, sources, values)
    return [_host_outputs(spec, evaluation) for evaluation in values]


def _replan(
    spec: KernelSpec,
    checked: Sequence[KernelArgs],
    sources: list[dict[str, _Source]],
    values: list[dict[str, np.ndarray]],
    ports: Sequence[Port],
    backend: str,
) -> None:
    """Run again every evaluation whose scalar outputs make `spec.replan` ask for
    another plan (all of them together), at most MAX_REPLANS times; replaces
    their sources and values in place."""
    assert spec.replan is not None
    scalar_ports = [p for p in spec.outputs if p.scalar]
    for attempt in range(MAX_REPLANS + 1):
        again: list[tuple[int, KernelPlan]] = []
        for k, (args, evaluation) in enumerate(zip(checked, values)):
            scalars = {p.name: int(evaluation[p.name][0]) for p in scalar_ports}
            plan = spec.replan(args.sizes, args.scalars, scalars)
            if plan is not None:
                again.append((k, plan))
        if not again:
            return
        if attempt == MAX_REPLANS:
            raise RuntimeError(
                f"kernel op `{spec.id}` asked for a new plan after {MAX_REPLANS} re-planned runs"
                " (a library bug); no output is returned"
            )
        jobs = [_Job(_checked_plan(spec, plan, set(checked[k].words)), checked[k].words, {}) for k, plan in again]
        _run(spec, jobs, backend)
        fresh = [_sources_of(spec, job) for job in jobs]
        fresh_values = _values(spec, ports, fresh)
        for (k, _), source, value in zip(again, fresh, fresh_values):
            sources[k], values[k] = source, value
