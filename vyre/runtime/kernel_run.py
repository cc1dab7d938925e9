"""Running kernel ops: user arguments in, the kernel pipeline on a backend,
outputs out (`ops.evaluate`, `ops.evaluate_raw`, `ops.evaluate_many` for kernel
ops; python-api.md "Buffer-level operations", oplib.md C1-C9).

The arguments are checked against the op's ports (each error names the op and
the input), packed into host words (`vyre.runtime.host`: Bytes four per word),
and the plan the op builds for those sizes runs:

- on the interpreter, step by step on host words;
- on wgpu, with every buffer on the device: inputs uploaded once (or taken as
  they are from `vyre.DeviceBuffer`s), constants uploaded, scratch and outputs
  cleared on the device, every step of every evaluation encoded into one
  command buffer and submitted once (`wgpu_backend.run_steps`), and all outputs
  read back with one more submission.

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
from vyre.ops.kernel import NO_ERROR, Buffer, KernelPlan, KernelSpec, OpInputError, Port
from vyre.pipeline import Prepared, prepare
from vyre.runtime import host
from vyre.runtime.device_buffer import DeviceBuffer
from vyre.runtime.interp import execute as interp_execute

__all__ = ["KernelArgs", "check_args", "evaluate_kernel", "evaluate_kernel_many", "host_values"]

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
        spec.check_args(host_values(checked))
    return KernelArgs(checked, words, sizes, scalars)


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
_PREPARED: LruCache[int, tuple[Program, Prepared]] = LruCache(PREPARED_CAPACITY)
"""Prepared step programs by program identity (the entry keeps the program
alive, so its id is not reused while it is cached)."""


def _prepared(program: Program) -> Prepared:
    """The prepared form of a step's program, once per program object (the op
    modules keep their programs, so this skips fingerprinting on every call)."""
    entry = _PREPARED.get(id(program))
    if entry is not None and entry[0] is program:
        return entry[1]
    prepared = prepare(program)
    _PREPARED.put(id(program), (program, prepared))
    return prepared


def _buffer_words(buffer: Buffer) -> np.ndarray:
    if buffer.words is not None:
        return np.ascontiguousarray(buffer.words, dtype=np.uint32)
    return np.full(host.word_count(buffer.dtype, buffer.count), buffer.fill, dtype=np.uint32)


def _plan(spec: KernelSpec, args: KernelArgs) -> KernelPlan:
    plan = spec.plan(args.sizes, args.scalars)
    inputs = set(args.words)
    for step in plan.steps:
        for decl in step.program.buffers:
            if decl.access is BufferAccess.READ_WRITE and step.source(decl.name) in inputs:
                raise RuntimeError(
                    f"kernel op `{spec.id}` binds its input `{step.source(decl.name)}` read_write"
                    " in a step; inputs are read only (a library bug)"
                )
    return plan


def _outputs(
    spec: KernelSpec,
    plan: KernelPlan,
    final: Mapping[str, np.ndarray],
    args: KernelArgs,
    raise_errors: bool,
) -> tuple[np.ndarray, ...]:
    """The user form of every output, trimmed to its length output; an
    `OpInputError` when the op's error output reports malformed input."""
    values: dict[str, np.ndarray] = {}
    for port in spec.outputs:
        buffer = plan.buffer(plan.output_buffer(port.name))
        values[port.name] = host.from_words(port.name, port.dtype, final[buffer.name], buffer.count)
    if raise_errors and spec.error_from is not None:
        offset = int(values[spec.error_from][0])
        if offset != NO_ERROR:
            detail = ""
            if spec.describe_error is not None:
                detail = spec.describe_error(host_values(args.user), offset)
            code = 1 if spec.code_from is None else int(values[spec.code_from][0])
            raise OpInputError(spec.id, offset, code, detail)
    for port in spec.outputs:
        if port.length_from is not None:
            length = int(values[port.length_from][0])
            if length > len(values[port.name]):
                raise RuntimeError(
                    f"kernel op `{spec.id}` reported {length} elements of `{port.name}`, which"
                    f" holds {len(values[port.name])} (a library bug)"
                )
            values[port.name] = values[port.name][:length]
    return tuple(values[port.name] for port in spec.outputs)


def _run_interp(spec: KernelSpec, plan: KernelPlan, args: KernelArgs) -> dict[str, np.ndarray]:
    state: dict[str, np.ndarray] = {}
    for name, value in args.words.items():
        state[name] = value.resident.read() if isinstance(value, DeviceBuffer) else value
    for buffer in plan.buffers:
        state[buffer.name] = _buffer_words(buffer)
    for step in plan.steps:
        prepared = _prepared(step.program)
        words = {
            decl.name: state[step.source(decl.name)]
            for decl in step.program.buffers
            if decl.access is not BufferAccess.WORKGROUP
        }
        final = interp_execute(prepared, words, step.dispatch)
        for name, value in final.items():
            state[step.source(name)] = value
    return state


def _stage_wgpu(
    plan: KernelPlan, args: KernelArgs
) -> tuple[list[tuple[Prepared, dict[str, Any], tuple[int, int, int]]], list[Any], dict[str, Any]]:
    """The device buffers and encoded steps of one evaluation."""
    from vyre.runtime.wgpu_device import Resident, gpu_device

    gpu = gpu_device()
    state: dict[str, Resident] = {}
    for name, value in args.words.items():
        state[name] = value.resident if isinstance(value, DeviceBuffer) else Resident.upload(gpu, value)
    clear: list[Resident] = []
    for buffer in plan.buffers:
        if buffer.words is None and buffer.fill == 0:
            resident = Resident.allocate(gpu, host.word_count(buffer.dtype, buffer.count))
            clear.append(resident)
        else:
            resident = Resident.upload(gpu, _buffer_words(buffer))
        state[buffer.name] = resident
    steps = [
        (
            _prepared(step.program),
            {
                decl.name: state[step.source(decl.name)]
                for decl in step.program.buffers
                if decl.access is not BufferAccess.WORKGROUP
            },
            step.dispatch,
        )
        for step in plan.steps
    ]
    return steps, clear, state


def evaluate_kernel(
    spec: KernelSpec, args: Sequence[Any], backend: str = "wgpu", raise_errors: bool = True
) -> tuple[np.ndarray, ...]:
    """Every output of kernel op `spec` on `args`, in port order."""
    return evaluate_kernel_many(spec, [args], backend, raise_errors)[0]


def evaluate_kernel_many(
    spec: KernelSpec,
    many: Sequence[Sequence[Any]],
    backend: str = "wgpu",
    raise_errors: bool = True,
) -> list[tuple[np.ndarray, ...]]:
    """The outputs of `spec` for each argument list; on wgpu every evaluation's
    dispatches go in one submission and every output comes back in one more.
    Malformed input raises `OpInputError` unless `raise_errors` is False (the
    proof system compares the error output itself)."""
    if backend not in BACKENDS:
        raise ValueError(f"unknown backend {backend!r}; choose one of: {', '.join(map(repr, BACKENDS))}")
    if isinstance(many, np.ndarray | bytes | str) or not isinstance(many, Sequence):  # pyright: ignore[reportUnnecessaryIsInstance]
        raise TypeError(f"ops.evaluate_many(`{spec.id}`, ...) takes a list of argument lists")
    checked = [check_args(spec, args) for args in many]
    plans = [_plan(spec, args) for args in checked]
    if backend == "interp":
        return [
            _outputs(spec, plan, _run_interp(spec, plan, args), args, raise_errors)
            for plan, args in zip(plans, checked)
        ]
    from vyre.runtime import wgpu_backend
    from vyre.runtime.wgpu_device import gpu_device

    all_steps: list[tuple[Prepared, dict[str, Any], tuple[int, int, int]]] = []
    all_clear: list[Any] = []
    states: list[dict[str, Any]] = []
    for plan, args in zip(plans, checked):
        steps, clear, state = _stage_wgpu(plan, args)
        all_steps.extend(steps)
        all_clear.extend(clear)
        states.append(state)
    wgpu_backend.run_steps(all_steps, clear=all_clear)
    wanted = [
        state[plan.output_buffer(port.name)]
        for plan, state in zip(plans, states)
        for port in spec.outputs
    ]
    words = iter(gpu_device().read_many(wanted))
    results: list[tuple[np.ndarray, ...]] = []
    for plan, args in zip(plans, checked):
        final = {plan.output_buffer(port.name): next(words) for port in spec.outputs}
        results.append(_outputs(spec, plan, final, args, raise_errors))
    return results
