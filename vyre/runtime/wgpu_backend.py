"""The wgpu backend: lower to WGSL, dispatch on the GPU, read the results back.

`execute(prepared, words, dispatch, *, lengths=None)` runs a program the pipeline
prepared (`vyre.pipeline.prepare`; its WGSL is `prepared.wgsl`) and follows the
runtime contract shared with the interpreter: `words` maps every storage/uniform
buffer name to its packed 1-D uint32 words; the result maps every read_write
buffer name to its final words (as many as were given). `lengths` maps buffer
names to their element count where the words do not tell it: an F16/BF16 buffer
packs two elements per word, so n elements take ceil(n / 2) words and a buffer
missing from `lengths` has 2 x words elements. An entry for any other buffer must
equal the count its words give (words / words per element).

Which lowering runs: when the program is an elementwise map and the dispatch
gives each of its element indices exactly once (vyre/lowering/map_shape.py), its
vectorised lowering (vector.py: 8 elements per invocation, vec4 access) over
ceil(n / 512) workgroups, with n and the vector bound in the meta words; else
the program as written over the given grid. On an adapter whose driver stops
loops (`GpuDevice.loop_limit`: lavapipe) kernels are lowered with checked loops
and bind the device's loop status word; every readback after such a run reads
the word too and raises `DeviceLimitError` if a loop was stopped.

Per run with host words (the common case, `vyre.run`'s fast path included): the
run shape's bundle (buffers, staging, meta, bind groups, made on its first run
and kept by the device, with its uploads, dispatches, copies and reads laid
out as tuples) is written (uploads; zero-filled words cleared on the device
unless the vectorised map overwrites every element), dispatched in one
compute pass, and each read_write buffer copied to its staging buffer, mapped,
and copied once into its result. `vyre.run`'s hot path keeps a `HostRun` (the
run shape bound for host words) per element counts and dispatch, so a call
looks up nothing but the device's bundle. With words already on the device or results
kept there: buffers from a pool keyed by size; a read-only `Resident` is bound as
it is; the meta uniform is uploaded only when no pooled meta buffer holds the
same words already. Uniform buffers are uploaded packed four words per vec4
into a 64 KiB buffer.

Everything that depends on the program alone (the per-binding tables of the
checks) is cached per prepared program, which the pipeline caches by the
program's structural fingerprint; everything that depends on the program
and the sizes (device-limit checks, compiled pipeline, dispatch slices, meta
words, buffer sizes, the lowering that runs) by (program, element counts,
dispatch, split limit); the element counts determine the word counts. The
caches keep the most recently used entries.

A dispatch with more workgroups on an axis than the device allows (65,535 by
default), or 2^32 workgroups or more in all (drivers count them in 32 bits), is
split into slices; each slice adds its offset to `workgroup_id`, so every id is
exactly what one big dispatch would give. A CPU adapter refuses a grid of 2^32
workgroups or more (`DeviceLimitError`): it would run for many minutes.
"""

from __future__ import annotations

import itertools
import struct
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from functools import cache, cached_property
from typing import Any, NamedTuple, NoReturn, cast

import numpy as np

from vyre.dialects.vyre import AccessKind
from vyre.fingerprint import LruCache
from vyre.lowering.layout import UNIFORM_CAPACITY_VEC4, UNIFORM_CAPACITY_WORDS
from vyre.lowering.options import LoweringOptions
from vyre.lowering.wgsl import LoweredKernel, vectorises
from vyre.pipeline import Prepared
from vyre.runtime.host import is_zero_fill
from vyre.runtime.wgpu_device import (
    DeviceLimitError,
    GpuDevice,
    Pipeline,
    Resident,
    device_lost,
    forget_device,
    gpu_device,
    layout_entries,
    out_of_memory,
    read_words,
    storage_size,
    storage_usage,
)

__all__ = [
    "BoundDispatch", "HostRun", "bind", "execute", "host_run", "lowering_for", "run_host_words", "run_steps",
]

_U32 = np.dtype(np.uint32)

PLAN_CAPACITY = 128
"""Programs whose lowering and tables stay cached."""
SHAPE_CAPACITY = 256
"""(program, sizes, dispatch) combinations whose run setup stays cached."""


class _Plan:
    """What running a program needs that depends on the program alone (compared
    and hashed by identity: it is a cache key). Each lowering is made when a run
    first dispatches it: a map dispatched so that it covers each index once runs
    only its vectorised form, another program only the form as written."""

    def __init__(self, prepared: Prepared, target: LoweringOptions):
        self.prepared = prepared
        self.target = target
        """The device's lowering options (`GpuDevice.lowering`)."""
        self.label = f"kernel @{prepared.name}"
        self.vectorises = vectorises(prepared.strict_kernel, replace(target, vectorize=True))
        layout = self.vector if self.vector is not None else self.kernel
        buffers = layout.buffers
        self.layout: LoweredKernel = layout
        """The lowering made first: its buffers, bindings and meta are the other's too."""
        self.known = frozenset(b.name for b in buffers)
        """Names of the storage and uniform buffers (the keys `words` must have)."""
        self.outputs = tuple(
            (b.name, k) for k, b in enumerate(buffers) if b.access == AccessKind.READ_WRITE
        )
        """(name, binding index) of every read_write buffer."""
        self.storage = tuple((b, k) for k, b in enumerate(buffers) if not b.is_uniform)
        """(binding, binding index) of every storage buffer."""
        self.uniform_count = sum(1 for b in buffers if b.is_uniform) + 1
        """Uniform bindings, the meta uniform included."""
        self.rows = tuple((b, b.words_per_element, b.packed_halves) for b in buffers)
        """(binding, words per element, packs two elements per word) of every storage
        and uniform buffer."""

    @cached_property
    def kernel(self) -> LoweredKernel:
        """The lowering as written, for this device (loops checked where the
        adapter stops them)."""
        return self.prepared.lowered_for(self.target)

    @cached_property
    def vector(self) -> LoweredKernel | None:
        """The vectorised lowering when the program is an elementwise map
        (vyre/lowering/vector.py); used for the dispatches that cover each index once."""
        if not self.vectorises:
            return None
        return self.prepared.lowered_for(replace(self.target, vectorize=True))

    @cached_property
    def vector_indices(self) -> tuple[int, ...]:
        """Binding indices of the vectorised kernel's vector buffers."""
        vector = self.vector
        if vector is None or vector.vector is None:
            return ()
        names = vector.vector.buffers
        return tuple(k for k, b in enumerate(vector.buffers) if b.name in names)

    @cached_property
    def periodic_indices(self) -> tuple[tuple[int, int], ...]:
        """(binding index, C) of the vectorised kernel's periodic buffers."""
        vector = self.vector
        if vector is None or vector.vector is None:
            return ()
        periods = dict(vector.vector.periodic)
        return tuple((k, periods[b.name]) for k, b in enumerate(vector.buffers) if b.name in periods)


_PLANS: LruCache[Prepared, _Plan] = LruCache(PLAN_CAPACITY)


def _plan(prepared: Prepared, gpu: GpuDevice) -> _Plan:
    """The plan of a prepared program on `gpu`, cached per prepared program."""
    plan = _PLANS.get(prepared)
    if plan is None or plan.target.int64 != gpu.int64 or plan.target.loop_limit != gpu.loop_limit:
        plan = _Plan(prepared, gpu.lowering)  # (fields compared: no options built per run)
        _PLANS.put(prepared, plan)
    return plan


def execute(
    prepared: Prepared,
    words: Mapping[str, np.ndarray | Resident],
    dispatch: Sequence[int],
    *,
    lengths: Mapping[str, int] | None = None,
    max_workgroups_per_axis: int | None = None,
    resident: bool = False,
    vectorize: bool = True,
    isolate: bool = False,
) -> dict[str, Any]:
    """Run a prepared program over `dispatch` workgroups; return every read_write
    buffer's words. `lengths` gives the element count of buffers whose words do
    not tell it (F16/BF16: two elements per word; missing: 2 x words). With
    `isolate`, a lowering this process has not compiled yet is compiled in a
    child process first (`vyre.runtime.isolate`: a driver crash is a
    `DriverCrashError`, not the end of this process).
    `max_workgroups_per_axis` lowers the split threshold below the device limit
    (a test hook: it exercises dispatch splitting with few workgroups);
    `vectorize=False` runs the program as written even where it is a map that
    the runtime would run vectorised (a test hook: vectorised vs scalar).

    The words of a buffer may already be on the device (a `Resident`): a
    read-only one is bound as it is, a read_write or uniform one is copied on the
    device first (a run never changes its inputs). With `resident=True` the
    read_write buffers stay on the device: the result maps their names to
    `Resident` words and nothing is read back."""
    if not isinstance(prepared, Prepared):  # pyright: ignore[reportUnnecessaryIsInstance]
        raise TypeError(
            "execute() takes a prepared program (vyre.pipeline.prepare(program)), got"
            f" {type(prepared).__name__}"
        )
    gpu = gpu_device()
    plan = _plan(prepared, gpu)
    groups = _check_dispatch(dispatch)
    checked = _check_words(plan, words, lengths)
    if isolate and 0 not in groups:  # before the lock: other threads run meanwhile
        _compile_isolated(gpu, plan, groups, checked.counts, vectorize)
    with gpu.lock:
        limit = gpu.limits["max-compute-workgroups-per-dimension"]
        if max_workgroups_per_axis is not None:
            limit = min(limit, max(1, int(max_workgroups_per_axis)))
        if 0 in groups and not resident and not any(
            isinstance(a, Resident) for a in checked.arrays
        ):
            _check_limits(plan, checked.lengths, gpu)
            return {name: cast("np.ndarray", checked.arrays[k]).copy() for name, k in plan.outputs}
        shape = _shape(gpu, plan, checked.lengths, groups, limit, checked.counts, vectorize)
        try:
            if resident or checked.on_device:
                return _run(gpu, plan, shape, checked, resident)
            arrays = tuple(
                None if zero else cast("np.ndarray", data)
                for data, zero in zip(checked.arrays, checked.zero_fill)
            )
            return _run_bundle(gpu, plan, shape, arrays)
        except Exception as error:
            _reraise(error, plan.label, gpu)


def _compile_isolated(
    gpu: GpuDevice, plan: _Plan, groups: tuple[int, int, int], counts: tuple[int, ...], vectorize: bool
) -> None:
    """Compile the lowering this run dispatches in an isolating child process,
    unless this process has compiled it already."""
    from vyre.runtime.isolate import compile_in_child

    kernel = _variant(plan, groups, counts)[0] if vectorize else plan.kernel
    if gpu.pipelines.get(kernel.wgsl) is None:
        compile_in_child(gpu, kernel.wgsl, kernel.entry_point, layout_entries(kernel), plan.label)


class HostRun:
    """A program bound to one run shape for host words: what `vyre.run`'s hot
    path keeps per (element counts, dispatch) of a program, so a call does no
    cache lookups beyond the device's bundle. `current()` says whether the
    device and its split limit are still the ones the shape was made for."""

    __slots__ = ("gpu", "limit", "plan", "shape")

    def __init__(self, gpu: GpuDevice, plan: _Plan, shape: _Shape, limit: int):
        self.gpu = gpu
        self.plan = plan
        self.shape = shape
        self.limit = limit

    @property
    def outputs(self) -> tuple[str, ...]:
        """Names of the read_write buffers, in the order `run` returns them."""
        return tuple(name for name, _, _ in self.shape.readback)

    def current(self) -> bool:
        gpu = self.gpu
        return gpu is gpu_device() and gpu.limits[_PER_AXIS] == self.limit

    def run(self, arrays: Sequence[np.ndarray | None]) -> list[np.ndarray]:
        """Run with `arrays` (binding order: contiguous 1-D arrays of 4-byte
        elements, None for a fresh zeroed output), the final words of every
        read_write buffer in `outputs` order."""
        gpu = self.gpu
        with gpu.lock:
            try:
                return _bundle_words(gpu, self.plan, self.shape, arrays)
            except Exception as error:
                _reraise(error, self.plan.label, gpu)


_PER_AXIS = "max-compute-workgroups-per-dimension"


def _reraise(error: Exception, label: str, gpu: GpuDevice) -> NoReturn:
    """`error` as vyre reports it: wgpu's errors become a `RuntimeError` naming
    the run, or a `DeviceLimitError` when the device has no memory left (its
    pools let go first, so the next run can fit). Call with `gpu.lock` held."""
    import wgpu  # pyright: ignore[reportMissingTypeStubs]

    if not isinstance(error, wgpu.GPUError):
        raise error
    if out_of_memory(error):
        gpu.recover()
        raise gpu.memory_error(f"running {label}", error) from None
    if device_lost(error):
        gpu.lost = True
        forget_device(gpu)
        raise RuntimeError(
            f"vyre wgpu backend: running {label} failed: the driver lost the device ({error});"
            " vyre opens a new one for the next run (the DeviceBuffers made on the old one are gone)"
        ) from None
    raise RuntimeError(f"vyre wgpu backend: running {label} failed: {error}") from None


def host_run(prepared: Prepared, counts: tuple[int, ...], dispatch: tuple[int, int, int]) -> HostRun:
    """The `HostRun` of a prepared program whose buffers all hold one-word
    elements in storage buffers, for element `counts` (binding order) and a
    checked `dispatch` (three positive ints); raises `DeviceLimitError` where
    the device cannot run it."""
    gpu = gpu_device()
    plan = _plan(prepared, gpu)
    with gpu.lock:
        limit = gpu.limits[_PER_AXIS]
        shape = _shape(gpu, plan, counts, dispatch, limit, counts)
    return HostRun(gpu, plan, shape, limit)


def run_host_words(
    prepared: Prepared,
    arrays: tuple[np.ndarray | None, ...],
    counts: tuple[int, ...],
    dispatch: tuple[int, int, int],
) -> dict[str, Any]:
    """`execute` for arguments the caller has checked already: every buffer of
    the program holds one-word elements and is a storage buffer; `arrays` are
    their words in binding order as contiguous 1-D arrays of 4-byte elements
    (None: a fresh output, zeroed on the device), `counts` their element
    counts, `dispatch` three positive ints. Returns the final words of every
    read_write buffer."""
    bound = host_run(prepared, counts, dispatch)
    return dict(zip(bound.outputs, bound.run(arrays)))


def lowering_for(
    prepared: Prepared,
    words: Mapping[str, np.ndarray | Resident],
    dispatch: Sequence[int],
    *,
    lengths: Mapping[str, int] | None = None,
    vectorize: bool = True,
) -> LoweredKernel:
    """The lowering `execute` would run for these arguments: the vectorised map
    (`.vector` set) or the program as written."""
    gpu = gpu_device()
    plan = _plan(prepared, gpu)
    checked = _check_words(plan, words, lengths)
    limit = gpu.limits["max-compute-workgroups-per-dimension"]
    with gpu.lock:
        shape = _shape(gpu, plan, checked.lengths, _check_dispatch(dispatch), limit, checked.counts, vectorize)
    return shape.kernel


@dataclass(frozen=True)
class BoundDispatch:
    """A prepared program bound to device buffers with one dispatch, ready to be
    recorded into compute passes any number of times (benchmarks record many
    dispatches per pass; `execute` does one run)."""

    kernel: LoweredKernel
    """The lowering that runs: the vectorised map, or the program as written."""
    pipeline: Any
    bind_groups: tuple[Any, ...]
    workgroups: tuple[tuple[int, int, int], ...]
    """Workgroups of each dispatch slice (the per-axis limit splits big grids)."""
    keep: tuple[Any, ...]
    """The meta buffer and uniform copies the bind groups use (kept alive)."""

    def record(self, compute_pass: Any) -> None:
        """Set the pipeline and dispatch every slice into `compute_pass`."""
        compute_pass.set_pipeline(self.pipeline)
        for group, count in zip(self.bind_groups, self.workgroups):
            compute_pass.set_bind_group(0, group)
            compute_pass.dispatch_workgroups(*count)


def bind(
    prepared: Prepared,
    words: Mapping[str, Resident],
    dispatch: Sequence[int],
    *,
    lengths: Mapping[str, int] | None = None,
    vectorize: bool = True,
) -> BoundDispatch:
    """Bind `prepared` to device buffers (`Resident`s, bound in place: a
    read_write one is written where it is) for `dispatch`, exactly as `execute`
    would dispatch it (vectorised where the program is a map)."""
    gpu = gpu_device()
    plan = _plan(prepared, gpu)
    groups = _check_dispatch(dispatch)
    checked = _check_words(plan, words, lengths)
    limit = gpu.limits["max-compute-workgroups-per-dimension"]
    usages = _usages()
    with gpu.lock:
        shape = _shape(gpu, plan, checked.lengths, groups, limit, checked.counts, vectorize)
        entries: list[tuple[int, Any, int, int | None]] = []
        keep: list[Any] = []
        for binding, data, nbytes, (usage, size) in zip(
            shape.kernel.buffers, checked.arrays, shape.nbytes, shape.allocations
        ):
            if not isinstance(data, Resident):
                raise TypeError(f"bind() takes device buffers; the words of `{binding.name}` are on the host")
            buffer = data.buffer
            if binding.is_uniform:
                buffer = gpu.device.create_buffer(size=size, usage=usage)
                if nbytes:
                    encoder = gpu.device.create_command_encoder()
                    encoder.copy_buffer_to_buffer(data.buffer, 0, buffer, 0, nbytes)
                    gpu.device.queue.submit([encoder.finish()])
                keep.append(buffer)
            entries.append((binding.binding, buffer, 0, None))
        meta = gpu.device.create_buffer(size=max(16, len(shape.meta)), usage=usages.uniform)
        if shape.meta:
            gpu.device.queue.write_buffer(meta, 0, shape.meta)
        keep.append(meta)
        bind_groups = _bind_groups(gpu, shape, entries, meta) if shape.slices else []
    return BoundDispatch(
        shape.kernel,
        shape.pipeline.pipeline,
        tuple(bind_groups),
        tuple(count for _, count in shape.slices),
        tuple(keep),
    )


# ---------------------------------------------------------------------------
# Argument checks
# ---------------------------------------------------------------------------


def _check_dispatch(dispatch: Sequence[int]) -> tuple[int, int, int]:
    if dispatch.__class__ is tuple:  # fast path: three plain ints in range
        items = cast("tuple[object, ...]", dispatch)
        if len(items) == 3:
            x, y, z = items
            if (
                type(x) is int
                and type(y) is int
                and type(z) is int
                and min(x, y, z) >= 0
                and max(x, y, z) <= 0xFFFF_FFFF
            ):
                return (x, y, z)
    values = tuple(dispatch)
    counts = [
        int(v)
        for v in values
        if isinstance(v, int | np.integer)  # pyright: ignore[reportUnnecessaryIsInstance]
        and not isinstance(v, bool)
    ]
    if len(values) != 3 or len(counts) != 3:
        raise TypeError(f"dispatch must be three ints (x, y, z), got {dispatch!r}")
    if any(v < 0 or v > 0xFFFF_FFFF for v in counts):
        raise ValueError(f"dispatch counts must be in [0, 2**32), got {dispatch!r}")
    return (counts[0], counts[1], counts[2])


class _Words(NamedTuple):
    """The checked words of every binding, in the kernel's binding order (a
    NamedTuple: built on every run, and cheaper to build than a dataclass)."""

    arrays: tuple[np.ndarray | Resident, ...]
    """Host words (contiguous, except zero fills, which are never read) or words
    already on the device."""
    zero_fill: tuple[bool, ...]
    """Whether the words are a zero fill: cleared on the device, not uploaded."""
    lengths: tuple[int, ...]
    """Word count of every binding."""
    counts: tuple[int, ...]
    """Logical element count of every binding (the meta uniform's counts)."""
    on_device: bool
    """Some words are a `Resident` (then the run binds or copies them)."""


_NO_LENGTHS: Mapping[str, int] = {}


def _check_lengths(plan: _Plan, lengths: Mapping[str, int] | None) -> Mapping[str, int]:
    if lengths is None:
        return _NO_LENGTHS
    if not isinstance(lengths, Mapping):  # pyright: ignore[reportUnnecessaryIsInstance]
        raise TypeError(f"lengths must map buffer names to element counts, got {lengths!r}")
    for name, count in lengths.items():
        if name not in plan.known:
            raise ValueError(
                f"length given for `{name}`, which is not a storage or uniform buffer of "
                f"the program (have: {', '.join(sorted(plan.known)) or 'none'})"
            )
        if isinstance(count, bool) or not isinstance(count, int | np.integer):  # pyright: ignore[reportUnnecessaryIsInstance]
            raise TypeError(f"length of buffer `{name}` must be an int, got {count!r}")
        if count < 0:
            raise ValueError(f"length of buffer `{name}` is negative ({count})")
    return lengths


def _check_words(
    plan: _Plan,
    words: Mapping[str, np.ndarray | Resident],
    lengths: Mapping[str, int] | None = None,
) -> _Words:
    known = plan.known
    for name in words:
        if name not in known:
            raise ValueError(
                f"words given for `{name}`, which is not a storage or uniform buffer of "
                f"the program (have: {', '.join(sorted(known)) or 'none'})"
            )
    given = _check_lengths(plan, lengths)
    arrays: list[np.ndarray | Resident] = []
    zero_fill: list[bool] = []
    word_counts: list[int] = []
    counts: list[int] = []
    any_on_device = False
    for binding, per_element, halves in plan.rows:
        name = binding.name
        if name not in words:
            raise ValueError(f"no words given for buffer `{name}`")
        array = words[name]
        on_device = isinstance(array, Resident)
        if not on_device and (
            not isinstance(array, np.ndarray)  # pyright: ignore[reportUnnecessaryIsInstance]
            or array.dtype != _U32
            or array.ndim != 1
        ):
            raise TypeError(
                f"words of buffer `{name}` must be a 1-D numpy uint32 array"
                f", got {_describe(array)}"
            )
        length = array.words if isinstance(array, Resident) else array.shape[0]
        if halves:
            count = int(given.get(name, 2 * length))
            if (count + 1) // 2 != length:
                raise ValueError(
                    f"buffer `{name}` of {count} {binding.element.value} elements needs "
                    f"{(count + 1) // 2} words (two elements per word), but {length} "
                    "words were given"
                )
        else:
            if length % per_element:
                raise ValueError(
                    f"buffer `{name}` holds {binding.element.value} elements of "
                    f"{per_element} words, but {length} words were given"
                )
            count = length // per_element
            if name in given and int(given[name]) != count:
                raise ValueError(
                    f"length {given[name]} given for buffer `{name}`, but its {length} "
                    f"words hold {count} {binding.element.value} elements"
                )
        if length > UNIFORM_CAPACITY_WORDS and binding.is_uniform:
            raise ValueError(
                f"uniform buffer `{name}` holds at most {UNIFORM_CAPACITY_WORDS} "
                f"words (64 KiB), got {length}. Fix: declare it read_only instead."
            )
        if isinstance(array, Resident):
            if array.gpu is not gpu_device():
                lost = " (the device they were made on was lost)" if array.gpu.lost else ""
                raise ValueError(f"the words of buffer `{name}` live on another device{lost}")
            any_on_device = True
            arrays.append(array)
            zero_fill.append(False)
            word_counts.append(length)
            counts.append(count)
            continue
        zero = is_zero_fill(array)
        arrays.append(array if zero or array.flags.c_contiguous else np.ascontiguousarray(array))
        zero_fill.append(zero)
        word_counts.append(length)
        counts.append(count)
    return _Words(
        tuple(arrays), tuple(zero_fill), tuple(word_counts), tuple(counts), any_on_device
    )


def _describe(value: object) -> str:
    if isinstance(value, np.ndarray):
        array = cast("np.ndarray[Any, np.dtype[Any]]", value)
        return f"a {array.ndim}-D {array.dtype} array"
    return type(value).__name__


def _check_limits(plan: _Plan, lengths: tuple[int, ...], gpu: GpuDevice) -> None:
    """`DeviceLimitError` (a ValueError) naming the first adapter limit the run
    would exceed."""
    kernel = plan.layout
    limits = gpu.limits
    x, y, z = plan.prepared.kernel.workgroup
    size3 = (x, y, z)
    for axis, size in zip("xyz", size3):
        limit = f"max-compute-workgroup-size-{axis}"
        if size > limits[limit]:
            raise gpu.limit_error(f"workgroup_size {size3} ({axis} = {size})", limit)
    if x * y * z > limits["max-compute-invocations-per-workgroup"]:
        raise gpu.limit_error(
            f"workgroup_size {size3} ({x * y * z:,} invocations per workgroup)",
            "max-compute-invocations-per-workgroup",
        )
    if kernel.workgroup_bytes > limits["max-compute-workgroup-storage-size"]:
        names = ", ".join(f"`{a.name}` ({a.size_bytes} B)" for a in kernel.workgroup_arrays)
        raise gpu.limit_error(
            f"workgroup buffers {names} ({kernel.workgroup_bytes:,} bytes)",
            "max-compute-workgroup-storage-size",
        )
    storage = plan.storage
    internal = "" if kernel.tables is None else " (+1 internal: the constant tables)"
    if len(storage) + (kernel.tables is not None) > limits["max-storage-buffers-per-shader-stage"]:
        raise gpu.limit_error(
            f"the program's {len(storage)} storage buffers{internal}",
            "max-storage-buffers-per-shader-stage",
        )
    if plan.uniform_count > limits["max-uniform-buffers-per-shader-stage"]:
        raise gpu.limit_error(
            f"the program's {plan.uniform_count - 1} uniform buffers (+1 internal)",
            "max-uniform-buffers-per-shader-stage",
        )
    if kernel.meta.binding >= limits["max-bindings-per-bind-group"]:
        raise gpu.limit_error(
            f"binding {kernel.meta.binding - 1} (+1 internal binding after the highest)",
            "max-bindings-per-bind-group",
        )
    if kernel.tables is not None and kernel.tables.binding >= limits["max-bindings-per-bind-group"]:
        raise gpu.limit_error(
            f"binding {kernel.tables.binding} (the constant tables, after the internal bindings)",
            "max-bindings-per-bind-group",
        )
    for binding, k in storage:
        gpu.check_buffer_size(lengths[k] * 4, f"buffer `{binding.name}`")


# ---------------------------------------------------------------------------
# Running
# ---------------------------------------------------------------------------


Slice = tuple[tuple[int, int, int], tuple[int, int, int]]


MAX_WORKGROUPS_PER_DISPATCH = 0xFFFF_FFFF
"""Workgroups one dispatch may hold (X * Y * Z): drivers count them in 32 bits
(lavapipe ran only the product mod 2^32 of a bigger grid, silently)."""


def _slices(
    groups: tuple[int, int, int], limit: int, most: int = MAX_WORKGROUPS_PER_DISPATCH
) -> tuple[Slice, ...]:
    """(offset, count) per dispatch slice: every axis cut into chunks of <= limit,
    and each slice holding at most `most` workgroups (z, then y, cut further)."""
    x = min(limit, groups[0], most)
    y = min(limit, groups[1], max(1, most // max(1, x)))
    z = min(limit, groups[2], max(1, most // max(1, x * y)))
    per_axis = [
        [(start, min(chunk, total - start)) for start in range(0, total, chunk)]
        for total, chunk in zip(groups, (max(1, x), y, z))
    ]
    return tuple(
        ((px[0], py[0], pz[0]), (px[1], py[1], pz[1]))
        for px, py, pz in itertools.product(*per_axis)
    )


def _check_grid(gpu: GpuDevice, groups: tuple[int, int, int]) -> None:
    """`DeviceLimitError` for a grid of 2^32 workgroups or more on a CPU adapter:
    there it would run for many minutes (a GPU runs it in slices)."""
    total = groups[0] * groups[1] * groups[2]
    if gpu.cpu and total > MAX_WORKGROUPS_PER_DISPATCH:
        raise DeviceLimitError(
            f"dispatch {groups} ({total:,} workgroups) exceeds the limit of"
            f" {MAX_WORKGROUPS_PER_DISPATCH:,} workgroups per dispatch on {gpu.adapter_name},"
            " a CPU adapter (its driver counts workgroups in 32 bits, and splitting the"
            " grid would run for many minutes). Fix: dispatch fewer workgroups (more work"
            " per invocation), or run on a GPU adapter (VYRE_ADAPTER)."
        )


@dataclass(frozen=True)
class _Usages:
    storage: int
    uniform: int
    staging: int


@cache
def _usages() -> _Usages:
    import wgpu  # pyright: ignore[reportMissingTypeStubs]

    usage = wgpu.BufferUsage
    return _Usages(
        storage=storage_usage(),
        uniform=usage.UNIFORM | usage.COPY_DST | usage.COPY_SRC,
        staging=usage.MAP_READ | usage.COPY_DST,
    )


@dataclass(frozen=True, eq=False)
class _Shape:
    """The setup of a run that depends only on (program, element counts,
    dispatch, split limit) on one device: checked against the device limits
    once. Compared and hashed by identity (it keys the device's bundles)."""

    gpu: GpuDevice
    kernel: LoweredKernel
    """The lowering that runs: the program's, or its vectorised map."""
    pipeline: Pipeline
    slices: tuple[Slice, ...]
    allocations: tuple[tuple[int, int], ...]
    """(usage, bytes) of the GPU buffer of every binding, in binding order."""
    nbytes: tuple[int, ...]
    """Bytes of every binding's words, in binding order."""
    meta: bytes
    """The meta uniform: one packed struct per slice, `stride` bytes apart."""
    stride: int
    readback: tuple[tuple[str, int, int], ...]
    """(name, binding index, bytes) of every read_write buffer."""
    label: str
    """What an error names: `kernel @name`."""
    keep_fresh: tuple[bool, ...] = ()
    """Per binding: a fresh (zero-filled) output need not be cleared, because
    the vectorised map writes every element of it before reading it."""
    tables: Any = None
    """The device's buffer of the kernel's constant tables (`GpuDevice.table_buffer`,
    uploaded once per distinct tables), when it reads any."""

    @property
    def checks_loops(self) -> bool:
        """The kernel's loops set the device's status word when stopped."""
        return self.kernel.status_binding is not None


_SHAPES: LruCache[tuple[_Plan, tuple[int, ...], tuple[int, int, int], int, bool], _Shape] = (
    LruCache(SHAPE_CAPACITY)
)

MAX_VIRTUAL = 0xFFFF_FFFF - 8 * 64
"""Virtual invocations a vectorised map may have (its ids stay below 2**32)."""


def _shape(
    gpu: GpuDevice,
    plan: _Plan,
    lengths: tuple[int, ...],
    groups: tuple[int, int, int],
    limit: int,
    counts: tuple[int, ...] | None = None,
    vectorize: bool = True,
) -> _Shape:
    """The run setup for word counts `lengths` and element counts `counts`, as
    `_check_words` gives them (`counts` by default: what the words give, 2 x words
    for F16/BF16)."""
    if counts is None:
        counts = tuple(
            2 * length if halves else length // per_element
            for (_, per_element, halves), length in zip(plan.rows, lengths)
        )
    # keyed by element counts: they determine the word counts (not the reverse:
    # an F16 buffer of 5 or of 6 elements has 3 words)
    key = (plan, counts, groups, limit, vectorize)
    shape = _SHAPES.get(key)
    if shape is not None and shape.gpu is gpu:
        return shape
    _check_limits(plan, lengths, gpu)
    extra: tuple[int, ...] = ()
    if vectorize:
        kernel, run_groups, extra = _variant(plan, groups, counts)
    else:
        kernel, run_groups = plan.kernel, groups
    usages = _usages()
    nbytes = tuple(length * 4 for length in lengths)
    allocations = tuple(
        (usages.uniform, UNIFORM_CAPACITY_VEC4 * 16)
        if binding.is_uniform
        else (usages.storage, storage_size(size))
        for binding, size in zip(kernel.buffers, nbytes)
    )
    _check_grid(gpu, run_groups)
    slices = _slices(run_groups, limit)
    layout = kernel.vector
    virtual = extra[0] if extra else 0
    keep_fresh = tuple(
        layout is not None and binding.name in layout.overwritten and virtual >= count
        for binding, count in zip(kernel.buffers, counts)
    )
    stride = _meta_stride(kernel, gpu)
    meta = bytearray(stride * len(slices))
    for k, (offset, _) in enumerate(slices):
        words = kernel.meta.pack(offset, counts, extra)
        struct.pack_into(f"<{len(words)}I", meta, k * stride, *words)
    shape = _Shape(
        gpu=gpu,
        kernel=kernel,
        pipeline=gpu.pipeline(kernel, plan.label),
        slices=slices,
        allocations=allocations,
        nbytes=nbytes,
        meta=bytes(meta),
        stride=stride,
        readback=tuple((name, k, nbytes[k]) for name, k in plan.outputs),
        label=plan.label,
        keep_fresh=keep_fresh,
        tables=None if kernel.tables is None else gpu.table_buffer(kernel.tables),
    )
    _SHAPES.put(key, shape)
    return shape


def _variant(
    plan: _Plan, groups: tuple[int, int, int], counts: tuple[int, ...]
) -> tuple[LoweredKernel, tuple[int, int, int], tuple[int, ...]]:
    """(lowering, workgroups to dispatch, extra meta words) for this run: the
    vectorised map when the dispatch gives each of its indices exactly once
    (its virtual invocations are then exactly the program's), else the program
    as written over `groups`."""
    vector = plan.vector
    layout = vector.vector if vector is not None else None
    if vector is None or layout is None:
        return plan.kernel, groups, ()
    virtual = layout.virtual_count(groups)
    if virtual is None or not 0 < virtual <= MAX_VIRTUAL:
        return plan.kernel, groups, ()
    end = min([virtual, *(counts[k] for k in plan.vector_indices)])
    if any(counts[k] < period for k, period in plan.periodic_indices):
        end = 0  # an index below a period past a buffer's end: every lane guarded
    return vector, (layout.groups(virtual), 1, 1), (virtual, end)


def _meta_stride(kernel: LoweredKernel, gpu: GpuDevice) -> int:
    """Bytes between the meta words of consecutive slices (offset-aligned)."""
    align = int(gpu.limits.get("min-uniform-buffer-offset-alignment", 256))
    return -(-kernel.meta.size_bytes // align) * align


def _encode_pass(
    encoder: Any, shape: _Shape, groups: Sequence[Any]
) -> None:
    """One compute pass of a run shape: a dispatch per slice of its grid (the
    per-axis limit), each with its slice's bind group."""
    compute = encoder.begin_compute_pass()
    compute.set_pipeline(shape.pipeline.pipeline)
    for (_, count), group in zip(shape.slices, groups):
        compute.set_bind_group(0, group)
        compute.dispatch_workgroups(*count)
    compute.end()


def _bind_groups(
    gpu: GpuDevice,
    shape: _Shape,
    entries: Sequence[tuple[int, Any, int, int | None]],
    meta_buffer: Any,
) -> list[Any]:
    """The bind group of every slice: `entries`, the slice's meta words, the
    device's loop status word when the kernel checks its loops, and the kernel's
    table buffer when it reads constant tables."""
    kernel = shape.kernel
    fixed = list(entries)
    if kernel.status_binding is not None:
        fixed.append((kernel.status_binding, gpu.status_buffer(), 0, None))
    if kernel.tables is not None:
        fixed.append((kernel.tables.binding, shape.tables, 0, None))
    meta_binding, meta_size = kernel.meta.binding, kernel.meta.size_bytes
    return [
        gpu.bind_group(
            shape.pipeline, (*fixed, (meta_binding, meta_buffer, k * shape.stride, meta_size)), shape.label
        )
        for k in range(len(shape.slices))
    ]


def _read_back(
    gpu: GpuDevice,
    shape: _Shape,
    staging: Sequence[Any],
    status: Any,
) -> dict[str, Any]:
    """Map every staging buffer (after the submission) into a result; then the
    loop status, when it was copied into `status`."""
    arrays = {name: words for (name, _, _), words in zip(shape.readback, _readback_words(shape, staging))}
    if status is not None:
        gpu.check_status(status)
    return arrays


def _readback_words(shape: _Shape, staging: Sequence[Any]) -> list[np.ndarray]:
    """The final words of every read_write buffer in `shape.readback` order,
    read from `staging` (one buffer per non-empty one, in that order; an
    empty buffer reads as an empty array)."""
    words = read_words(staging) if staging else []
    if len(words) == len(shape.readback):
        return words
    mapped = iter(words)
    return [next(mapped) if nbytes else np.zeros(0, dtype=np.uint32) for _, _, nbytes in shape.readback]


class _Bundle:
    """Everything a run of one shape binds, made once and kept (the device's
    bundle cache): a GPU buffer per binding, the meta uniform, the bind group of
    every slice, a staging buffer per read_write buffer. A run of a cached
    shape then only uploads (or clears), encodes, submits and reads back; what
    it does per binding is precomputed here (`writes`, `dispatches`, `copies`,
    `staging`), so a run is a few loops over tuples."""

    __slots__ = (
        "allocations", "buffers", "copies", "dispatches", "groups", "meta", "nbytes", "pipeline",
        "staging", "status", "usages", "writes",
    )

    def __init__(self, gpu: GpuDevice, shape: _Shape):
        usages = _usages()
        self.usages = usages
        self.allocations = shape.allocations
        self.buffers = tuple(gpu.acquire(usage, size) for usage, size in shape.allocations)
        self.meta = gpu.acquire(usages.uniform, len(shape.meta))
        gpu.device.queue.write_buffer(self.meta, 0, shape.meta)
        entries = [
            (binding.binding, buffer, 0, None)
            for binding, buffer in zip(shape.kernel.buffers, self.buffers)
        ]
        self.groups = tuple(_bind_groups(gpu, shape, entries, self.meta)) if shape.slices else ()
        self.staging = tuple(
            gpu.acquire(usages.staging, nbytes) for _, _, nbytes in shape.readback if nbytes
        )
        self.status = gpu.acquire(usages.staging, 16) if gpu.loop_limit is not None else None
        self.nbytes = sum(size for _, size in shape.allocations) + len(shape.meta) + sum(
            nbytes for _, _, nbytes in shape.readback
        )
        self.pipeline = shape.pipeline.pipeline
        self.writes = tuple(
            (k, buffer, nbytes, fresh)
            for k, (buffer, nbytes, fresh) in enumerate(
                zip(self.buffers, shape.nbytes, shape.keep_fresh or (False,) * len(self.buffers))
            )
            if nbytes
        )
        """(binding index, buffer, bytes, fresh outputs need no clear) of every
        binding with words."""
        self.dispatches = tuple(zip(self.groups, (count for _, count in shape.slices)))
        mapped = iter(self.staging)
        self.copies = tuple(
            (self.buffers[k], next(mapped), nbytes) for _, k, nbytes in shape.readback if nbytes
        )

    def release(self, gpu: GpuDevice) -> None:
        """Give every buffer back to the pool (the bundle was evicted)."""
        usages = self.usages
        for (usage, _), buffer in zip(self.allocations, self.buffers):
            gpu.release(usage, buffer)
        gpu.release(usages.uniform, self.meta)
        for buffer in self.staging:
            gpu.release(usages.staging, buffer)
        if self.status is not None:
            gpu.release(usages.staging, self.status)


def _bundle_words(
    gpu: GpuDevice, plan: _Plan, shape: _Shape, arrays: Sequence[np.ndarray | None]
) -> list[np.ndarray]:
    """A run whose words are all on the host (`arrays` in binding order; None:
    zeroed on the device) and whose results are read back: through the shape's
    bundle (made on the first run of the shape). Returns the final words of
    every read_write buffer in `shape.readback` order (fresh, writeable arrays).
    Call with `gpu.lock` held."""
    bundle = cast("_Bundle | None", gpu.bundle(shape))
    if bundle is None:
        bundle = _Bundle(gpu, shape)
        gpu.keep_bundle(shape, bundle, bundle.nbytes)
    device = gpu.device
    queue = device.queue
    encoder = device.create_command_encoder()  # no labels per run: each costs a C string
    for k, buffer, nbytes, fresh in bundle.writes:
        data = arrays[k]
        if data is not None:
            queue.write_buffer(buffer, 0, data)
        elif not fresh:  # a fresh output starts zeroed, unless every word is written first
            encoder.clear_buffer(buffer, 0, nbytes)
    dispatches = bundle.dispatches
    if dispatches:
        compute = encoder.begin_compute_pass()
        compute.set_pipeline(bundle.pipeline)
        for group, count in dispatches:
            compute.set_bind_group(0, group)
            compute.dispatch_workgroups(*count)
        compute.end()
    for source, staging, nbytes in bundle.copies:
        encoder.copy_buffer_to_buffer(source, 0, staging, 0, nbytes)
    status = None
    if gpu.loop_limit is not None:
        status = _copy_status(gpu, encoder, shape, bundle.status)
        if dispatches and shape.checks_loops:
            gpu.pending_status[plan.label] = None
    queue.submit([encoder.finish()])
    if not bundle.copies and status is None and dispatches:
        # nothing to read: still wait until the work is done (the bundle's
        # buffers are written by the next run); on_submitted_work_done_sync
        # raises in wgpu-py 0.32
        queue.read_buffer(bundle.meta, 0, 16)
    words = _readback_words(shape, bundle.staging)
    if status is not None:
        gpu.check_status(status)
    return words


def _run_bundle(
    gpu: GpuDevice, plan: _Plan, shape: _Shape, arrays: Sequence[np.ndarray | None]
) -> dict[str, Any]:
    """`_bundle_words` by buffer name. Call with `gpu.lock` held."""
    return {
        name: words
        for (name, _, _), words in zip(shape.readback, _bundle_words(gpu, plan, shape, arrays))
    }


def _copy_status(gpu: GpuDevice, encoder: Any, shape: _Shape, staging: Any) -> Any:
    """Encode the copy of the loop status word into `staging` when some run
    since the last check (this one included) checks its loops; the staging
    buffer to map then, else None."""
    if staging is None or not (gpu.pending_status or (shape.slices and shape.checks_loops)):
        return None
    encoder.copy_buffer_to_buffer(gpu.status_buffer(), 0, staging, 0, 16)
    return staging


def _run(
    gpu: GpuDevice, plan: _Plan, shape: _Shape, checked: _Words, resident: bool = False
) -> dict[str, Any]:
    """Upload (or clear, or copy on the device), dispatch every slice, then read
    every read_write buffer back, or keep it on the device (`resident`): the
    path for words already on the device, buffers from the pool."""
    usages = _usages()
    device = gpu.device
    queue = device.queue
    acquired: list[tuple[int, Any]] = []
    """(usage, buffer) taken from the pool for this run, in order."""
    kept: dict[int, Any] = {}
    """Binding index -> buffer handed to a Resident result (not released)."""
    staging: list[Any] = []
    meta_buffer: Any = None
    status_staging: Any = None
    try:
        encoder = device.create_command_encoder()  # no labels per run: each costs a C string
        entries: list[tuple[int, Any, int, int | None]] = []
        bound: list[Any] = []
        for binding, data, zero, nbytes, (usage, size) in zip(
            shape.kernel.buffers, checked.arrays, checked.zero_fill, shape.nbytes, shape.allocations
        ):
            if isinstance(data, Resident) and binding.access == AccessKind.READ_ONLY:
                buffer = data.buffer  # never written by the kernel: bound as it is
            else:
                buffer = gpu.acquire(usage, size)
                acquired.append((usage, buffer))
                if nbytes:
                    if isinstance(data, Resident):
                        encoder.copy_buffer_to_buffer(data.buffer, 0, buffer, 0, nbytes)
                    elif zero:
                        encoder.clear_buffer(buffer, 0, nbytes)
                    else:
                        queue.write_buffer(buffer, 0, data)
            bound.append(buffer)
            entries.append((binding.binding, buffer, 0, None))

        if shape.slices:
            meta_buffer = gpu.acquire_written(usages.uniform, shape.meta)
            _encode_pass(encoder, shape, _bind_groups(gpu, shape, entries, meta_buffer))
            if shape.checks_loops:
                gpu.pending_status[plan.label] = None

        if resident:
            queue.submit([encoder.finish()])
            results: dict[str, Any] = {}
            for name, k, nbytes in shape.readback:
                kept[k] = bound[k]
                results[name] = Resident(gpu, bound[k], nbytes // 4)
            return results

        for _, k, nbytes in shape.readback:
            if nbytes:
                buffer = gpu.acquire(usages.staging, nbytes)
                staging.append(buffer)
                encoder.copy_buffer_to_buffer(bound[k], 0, buffer, 0, nbytes)
        if gpu.loop_limit is not None and gpu.pending_status:
            status_staging = gpu.acquire(usages.staging, 16)
            _copy_status(gpu, encoder, shape, status_staging)
        queue.submit([encoder.finish()])
        if not staging and status_staging is None and meta_buffer is not None:
            # nothing to read: still wait until the work is done (buffers go back
            # to the pool); on_submitted_work_done_sync raises in wgpu-py 0.32
            queue.read_buffer(meta_buffer, 0, 16)
        return _read_back(gpu, shape, staging, status_staging)
    finally:
        # reversed: the next run of the same shape gets the same buffer per role
        for buffer in reversed(staging):
            gpu.release(usages.staging, buffer)
        if status_staging is not None:
            gpu.release(usages.staging, status_staging)
        kept_ids = {id(buffer) for buffer in kept.values()}
        for usage, buffer in reversed(acquired):
            if id(buffer) not in kept_ids:
                gpu.release(usage, buffer)
        if meta_buffer is not None:
            gpu.release_written(usages.uniform, meta_buffer, shape.meta)


# ---------------------------------------------------------------------------
# Kernel pipelines: many dispatches over device buffers, one submission
# ---------------------------------------------------------------------------


class _EncodedStep:
    """What encoding one step of `run_steps` needs, made once per distinct
    step object of a submission (an iterative op's rounds repeat the same
    step objects): the uniform copies to record before its dispatches, the
    pipeline, every slice's (bind group, workgroups), and the label to mark
    when the kernel checks its loops."""

    __slots__ = ("copies", "dispatches", "label", "pipeline")

    def __init__(
        self,
        copies: tuple[tuple[Any, Any, int], ...],
        pipeline: Any,
        dispatches: tuple[tuple[Any, tuple[int, int, int]], ...],
        label: str | None,
    ):
        self.copies = copies
        self.pipeline = pipeline
        self.dispatches = dispatches
        self.label = label


def run_steps(
    steps: Sequence[tuple[Prepared, Mapping[str, Resident], tuple[int, int, int]]],
    *,
    clear: Sequence[Resident] = (),
    repeat: int = 1,
) -> float:
    """Encode every step into one command buffer and submit it once: `clear`
    zeroes device buffers first, then each step dispatches its program with
    every storage buffer bound in place (a read_write buffer is written where it
    is: the caller owns it) and every uniform buffer copied on the device into
    a pooled uniform buffer. Dispatches run in order: consecutive steps share a
    compute pass (WebGPU makes each dispatch's writes visible to the next), and
    a step with uniform copies starts a new pass after its copies. `repeat`
    encodes the steps that many times (benchmarks). Returns
    `time.perf_counter()` taken just before the submission, so a caller can
    time the device work apart from the encoding.

    A step given more than once as the same tuple object (an iterative op's
    rounds) is checked and bound once per call: its later occurrences only
    record their copies and dispatches."""
    if isinstance(repeat, bool) or not isinstance(repeat, int) or repeat < 1:  # pyright: ignore[reportUnnecessaryIsInstance]
        raise ValueError(f"repeat must be a positive int, got {repeat!r}")
    steps = list(steps) * repeat
    submitted = 0.0
    gpu = gpu_device()
    usages = _usages()
    with gpu.lock:
        limit = gpu.limits["max-compute-workgroups-per-dimension"]
        encoder = gpu.device.create_command_encoder()
        for resident in clear:
            if resident.words:
                encoder.clear_buffer(resident.buffer, 0, resident.words * 4)
        held: list[tuple[int, Any]] = []
        metas: list[tuple[Any, bytes]] = []
        shared_metas: dict[bytes, Any] = {}
        """Meta words -> the uniform buffer holding them in this submission: steps
        with the same meta share it, so a step repeated binds the same buffers
        and reuses its cached bind group."""
        encoded: dict[int, _EncodedStep] = {}
        """By id of the step tuple (alive in `steps` during the call)."""
        compute: Any = None
        pipeline: Any = None
        try:
            for item in steps:
                step = encoded.get(id(item))
                if step is None:
                    step = _encode_step(gpu, item, limit, held, metas, shared_metas, usages)
                    encoded[id(item)] = step
                if step.copies:  # recorded outside any pass, right before the step
                    if compute is not None:
                        compute.end()
                        compute = None
                    for source, target, nbytes in step.copies:
                        encoder.copy_buffer_to_buffer(source, 0, target, 0, nbytes)
                if not step.dispatches:
                    continue
                if compute is None:
                    compute = encoder.begin_compute_pass()
                    pipeline = None
                if step.pipeline is not pipeline:
                    pipeline = step.pipeline
                    compute.set_pipeline(pipeline)
                for group, count in step.dispatches:
                    compute.set_bind_group(0, group)
                    compute.dispatch_workgroups(*count)
                if step.label is not None:
                    gpu.pending_status[step.label] = None
            if compute is not None:
                compute.end()
                compute = None
            command = encoder.finish()
            submitted = time.perf_counter()
            gpu.device.queue.submit([command])
        except Exception as error:
            _reraise(error, "a kernel pipeline", gpu)
        finally:
            for usage, buffer in reversed(held):
                gpu.release(usage, buffer)
            for buffer, content in metas:
                gpu.release_written(usages.uniform, buffer, content)
    return submitted


def _encode_step(
    gpu: GpuDevice,
    item: tuple[Prepared, Mapping[str, Resident], tuple[int, int, int]],
    limit: int,
    held: list[tuple[int, Any]],
    metas: list[tuple[Any, bytes]],
    shared_metas: dict[bytes, Any],
    usages: _Usages,
) -> _EncodedStep:
    """Check and bind one step of `run_steps` (buffers for its uniform copies
    taken from the pool into `held`, its meta uniform shared by content)."""
    prepared, words, dispatch = item
    plan = _plan(prepared, gpu)
    groups = _check_dispatch(dispatch)
    checked = _check_words(plan, words)
    shape = _shape(gpu, plan, checked.lengths, groups, limit, checked.counts)
    entries: list[tuple[int, Any, int, int | None]] = []
    copies: list[tuple[Any, Any, int]] = []
    for binding, data, nbytes, (usage, size) in zip(
        shape.kernel.buffers, checked.arrays, shape.nbytes, shape.allocations
    ):
        assert isinstance(data, Resident)
        buffer = data.buffer
        if binding.is_uniform and not (data.uniform and data.buffer.size >= size):
            buffer = gpu.acquire(usage, size)
            held.append((usage, buffer))
            if nbytes:
                copies.append((data.buffer, buffer, nbytes))
        entries.append((binding.binding, buffer, 0, None))
    if not shape.slices:
        return _EncodedStep(tuple(copies), None, (), None)
    meta_buffer = shared_metas.get(shape.meta)
    if meta_buffer is None:
        meta_buffer = gpu.acquire_written(usages.uniform, shape.meta)
        metas.append((meta_buffer, shape.meta))
        shared_metas[shape.meta] = meta_buffer
    groups_of_slices = _bind_groups(gpu, shape, entries, meta_buffer)
    return _EncodedStep(
        tuple(copies),
        shape.pipeline.pipeline,
        tuple(zip(groups_of_slices, (count for _, count in shape.slices))),
        plan.label if shape.checks_loops else None,
    )
