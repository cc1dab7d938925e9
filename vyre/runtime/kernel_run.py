"""Running kernel ops: user arguments in, the kernel pipeline on a backend,
outputs out (`ops.evaluate`, `ops.evaluate_raw`, `ops.evaluate_many` for kernel
ops; python-api.md "Buffer-level operations", oplib.md C1-C9).

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
op modules build their programs once per shape and keep them).
"""

from __future__ import annotations

import operator
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, cast

import numpy as np

from vyre.fingerprint import LruCache
from vyre.ir import BufferAccess, DataType, Program
from vyre.ops.kernel import (
    MAX_REPLANS,
    MAX_ROUNDS_PER_CHECK,
    NO_ERROR,
    BatchPlan,
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
        if not np.issubdtype(array.dtype, np.floating):
            raise TypeError(f"{where} (F32[]) must be a float array, got {_describe(array)}")
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


def _stage_job(job: _Job) -> list[Any]:
    """Device buffers of one job (in `job.state`); returns those to clear."""
    from vyre.runtime.wgpu_device import Resident, gpu_device

    gpu = gpu_device()
    state: dict[str, Any] = {}
    for name, value in job.inputs.items():
        state[name] = value.resident if isinstance(value, DeviceBuffer) else Resident.upload(gpu, value)
    clear: list[Resident] = []
    for buffer in job.plan.buffers:
        if buffer.words is None and buffer.fill == 0:
            resident = Resident.allocate(gpu, host.word_count(buffer.dtype, buffer.count))
            clear.append(resident)
        else:
            resident = Resident.upload(gpu, _buffer_words(buffer))
        state[buffer.name] = resident
    job.state = state
    return clear


def _encoded(job: _Job, steps: Sequence[Step]) -> list[tuple[Prepared, dict[str, Any], tuple[int, int, int]]]:
    out: list[tuple[Prepared, dict[str, Any], tuple[int, int, int]]] = []
    for step in steps:
        _, prepared, names = _prepared_entry(step.program)
        out.append((prepared, {name: job.state[step.source(name)] for name in names}, step.dispatch))
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
    out: list[dict[str, _Source]] = [{} for _ in range(evaluations)]
    for port in spec.outputs:
        buffer = job.plan.buffer(job.plan.output_buffer(port.name))
        total = host.word_count(buffer.dtype, buffer.count)
        splits = batch.splits.get(port.name)
        if splits is None or len(splits) != evaluations:
            raise RuntimeError(
                f"kernel op `{spec.id}`: its batched plan splits output `{port.name}` into"
                f" {0 if splits is None else len(splits)} parts for {evaluations} evaluations (a library bug)"
            )
        for k, (first, count) in enumerate(splits):
            words = host.word_count(port.dtype, count)
            if first < 0 or count < 0 or first + words > total:
                raise RuntimeError(
                    f"kernel op `{spec.id}`: its batched plan puts output `{port.name}` of"
                    f" evaluation {k} at words {first}..{first + words}, past the buffer's {total}"
                    " (a library bug)"
                )
            out[k][port.name] = _Source(job.state[buffer.name], first, words, count)
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


def _check_error(spec: KernelSpec, values: Mapping[str, np.ndarray], args: KernelArgs) -> None:
    if spec.error_from is None:
        return
    offset = int(values[spec.error_from][0])
    if offset == NO_ERROR:
        return
    detail = ""
    if spec.describe_error is not None:
        detail = spec.describe_error(host_values(args.user), offset)
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


def _fast_batch(spec: KernelSpec, many: Sequence[Sequence[Any]]) -> tuple[list[KernelArgs], dict[str, np.ndarray]] | None:
    """The checked arguments of a batch whose values all have the plain types
    (`bytes` for Bytes ports, 1-D contiguous arrays of the port's own numpy
    dtype for U32/I32/F32 ports, ints in range for scalars), with each array
    input laid end to end in one pass (`batch_starts`) and every evaluation's
    words a view of that: a million 64-byte messages cost a join, not a million
    conversions. None: the general per-evaluation checks apply."""
    if spec.plan_many is None or len(many) < BATCH_THRESHOLD or np.little_endian is False:
        return None
    arity = len(spec.inputs)
    if not all(type(args) in (list, tuple) and len(args) == arity for args in many):
        return None
    columns: dict[str, list[Any]] = {}
    counts: dict[str, list[int]] = {}
    inputs: dict[str, np.ndarray] = {}
    for k, port in enumerate(spec.inputs):
        column = [args[k] for args in many]
        columns[port.name] = column
        if port.scalar:
            low, high = _INTEGER_RANGES.get(port.dtype, (0, 2**32 - 1))
            if not all(type(v) is int and low <= v <= high for v in column):
                return None
            continue
        if port.dtype is DataType.BYTES:
            if not all(type(v) is bytes for v in column):
                return None
            counts[port.name] = [len(v) for v in column]
            joined = b"".join(v + bytes(-len(v) % 4) for v in column)
            inputs[port.name] = np.frombuffer(joined, dtype=np.uint32)
        else:
            native = _WORD_VIEWS.get(port.dtype)
            if native is None or not all(
                type(v) is np.ndarray and v.dtype == native and v.ndim == 1 and v.flags.c_contiguous for v in column
            ):
                return None
            counts[port.name] = [len(v) for v in column]
            inputs[port.name] = np.concatenate(column).view(np.uint32) if column else np.zeros(0, np.uint32)
        if max(counts[port.name], default=0) > spec.max_length:
            return None
    starts = {p.name: batch_starts(p.dtype, counts[p.name]) for p in spec.array_inputs}
    checked: list[KernelArgs] = []
    for k in range(len(many)):
        user: list[Any] = []
        words: dict[str, np.ndarray | DeviceBuffer] = {}
        sizes: dict[str, int] = {}
        scalars: dict[str, int] = {}
        for port in spec.inputs:
            value = columns[port.name][k]
            if port.scalar:
                scalars[port.name] = value
                user.append(value)
                continue
            first, stop = starts[port.name][k], starts[port.name][k + 1]
            words[port.name] = inputs[port.name][first:stop]
            sizes[port.name] = counts[port.name][k]
            user.append(np.frombuffer(value, dtype=np.uint8) if port.dtype is DataType.BYTES else value)
        args = KernelArgs(tuple(user), words, sizes, scalars)
        if spec.check_args is not None:
            spec.check_args(args.user)
        checked.append(args)
    return checked, inputs


def _jobs(
    spec: KernelSpec, checked: Sequence[KernelArgs], laid: dict[str, np.ndarray] | None = None
) -> tuple[list[_Job], BatchPlan | None]:
    """One job per evaluation, or one batched job (`KernelSpec.plan_many`) when
    the op has one, there are at least BATCH_THRESHOLD evaluations and every
    input is on the host (`laid`: the inputs already laid end to end)."""
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
        if laid is not None:
            inputs[port.name] = laid[port.name]
            continue
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
    error output itself)."""
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
    fast = _fast_batch(spec, many)
    laid: dict[str, np.ndarray] | None = None
    if fast is not None:
        checked, laid = fast
    else:
        checked = [check_args(spec, args) for args in many]
    if not checked:
        return []
    _device_checks(spec, checked, backend)
    jobs, batch = _jobs(spec, checked, laid)
    _run(spec, jobs, backend)
    if batch is not None:
        sources = _batch_sources(spec, batch, jobs[0], len(checked))
    else:
        sources = [_sources_of(spec, job) for job in jobs]
    ports = _scalar_ports(spec, on_device)
    values = _values(spec, ports, sources)
    if spec.replan is not None:
        _replan(spec, checked, sources, values, ports, backend)
    results: list[tuple[Any, ...]] = []
    if raise_errors:
        for evaluation, args in zip(values, checked):
            _check_error(spec, evaluation, args)
    if on_device:
        results.extend(_device_outputs(spec, sources, values))
    else:
        results.extend(_host_outputs(spec, evaluation) for evaluation in values)
    return results


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
