"""The wgpu backend: lower to WGSL, dispatch on the GPU, read the results back.

`execute(program, words, dispatch)` follows the runtime contract shared with the
interpreter: `words` maps every storage/uniform buffer name to its packed 1-D
uint32 words; the result maps every read_write buffer name to its final words.

Per run: storage buffers are uploaded (their buffers come from a pool keyed by
size), uniform buffers are uploaded packed four words per vec4 into a 64 KiB
buffer, the meta uniform carries logical counts and the workgroup-id offset of
each dispatch slice, all slices are dispatched in one compute pass, and each
read_write buffer is copied to one staging buffer and read by mapping it.

A dispatch with more workgroups on an axis than the device allows (65,535 by
default) is split into slices; each slice adds its offset to `workgroup_id`, so
every id is exactly what one big dispatch would give.
"""

from __future__ import annotations

import itertools
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from vyre.dialects.vyre import AccessKind
from vyre.ir import Program
from vyre.lowering.layout import UNIFORM_CAPACITY_VEC4, UNIFORM_CAPACITY_WORDS
from vyre.lowering.wgsl import LoweredKernel, lower
from vyre.runtime.wgpu_device import GpuDevice, gpu_device

__all__ = ["execute", "lowered"]

_LOWERED: OrderedDict[str, LoweredKernel] = OrderedDict()
_LOWERED_CAPACITY = 128


def lowered(program: Program) -> LoweredKernel:
    """`lower(program)`, cached by the program's text."""
    key = str(program)
    kernel = _LOWERED.get(key)
    if kernel is None:
        kernel = lower(program)
        _LOWERED[key] = kernel
        if len(_LOWERED) > _LOWERED_CAPACITY:
            _LOWERED.popitem(last=False)
    else:
        _LOWERED.move_to_end(key)
    return kernel


def execute(
    program: Program,
    words: Mapping[str, np.ndarray],
    dispatch: Sequence[int],
    *,
    max_workgroups_per_axis: int | None = None,
) -> dict[str, np.ndarray]:
    """Run `program` over `dispatch` workgroups; return every read_write buffer's words.

    `max_workgroups_per_axis` lowers the split threshold below the device limit
    (a test hook: it exercises dispatch splitting with few workgroups)."""
    import wgpu

    kernel = lowered(program)
    groups = _check_dispatch(dispatch)
    host = _check_words(kernel, words)
    gpu = gpu_device()
    label = f"kernel @{program.name}"
    with gpu.lock:
        _check_limits(kernel, host, gpu)
        limit = gpu.limits["max-compute-workgroups-per-dimension"]
        if max_workgroups_per_axis is not None:
            limit = min(limit, max(1, int(max_workgroups_per_axis)))
        try:
            return _run(gpu, kernel, label, host, groups, limit)
        except wgpu.GPUError as error:
            raise RuntimeError(f"vyre wgpu backend: running {label} failed: {error}") from None


# ---------------------------------------------------------------------------
# Argument checks
# ---------------------------------------------------------------------------


def _check_dispatch(dispatch: Sequence[int]) -> tuple[int, int, int]:
    values = tuple(dispatch)
    if len(values) != 3 or not all(
        isinstance(v, int | np.integer) and not isinstance(v, bool) for v in values
    ):
        raise TypeError(f"dispatch must be three ints (x, y, z), got {dispatch!r}")
    if any(v < 0 or v > 0xFFFF_FFFF for v in values):
        raise ValueError(f"dispatch counts must be in [0, 2**32), got {dispatch!r}")
    x, y, z = (int(v) for v in values)
    return (x, y, z)


def _check_words(kernel: LoweredKernel, words: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
    known = {b.name for b in kernel.buffers}
    for name in words:
        if name not in known:
            raise ValueError(
                f"words given for `{name}`, which is not a storage or uniform buffer of "
                f"the program (have: {', '.join(sorted(known)) or 'none'})"
            )
    host: dict[str, np.ndarray] = {}
    for binding in kernel.buffers:
        if binding.name not in words:
            raise ValueError(f"no words given for buffer `{binding.name}`")
        array = words[binding.name]
        if not isinstance(array, np.ndarray) or array.dtype != np.uint32 or array.ndim != 1:
            raise TypeError(
                f"words of buffer `{binding.name}` must be a 1-D numpy uint32 array, got "
                f"{_describe(array)}"
            )
        if len(array) % binding.words_per_element:
            raise ValueError(
                f"buffer `{binding.name}` holds {binding.element.value} elements of "
                f"{binding.words_per_element} words, but {len(array)} words were given"
            )
        if binding.is_uniform and len(array) > UNIFORM_CAPACITY_WORDS:
            raise ValueError(
                f"uniform buffer `{binding.name}` holds at most {UNIFORM_CAPACITY_WORDS} "
                f"words (64 KiB), got {len(array)}. Fix: declare it read_only instead."
            )
        host[binding.name] = np.ascontiguousarray(array)
    return host


def _describe(value: Any) -> str:
    if isinstance(value, np.ndarray):
        return f"a {value.ndim}-D {value.dtype} array"
    return type(value).__name__


def _check_limits(kernel: LoweredKernel, host: dict[str, np.ndarray], gpu: GpuDevice) -> None:
    limits = gpu.limits
    where = f"on adapter {gpu.adapter_name}"
    for axis, size in zip("xyz", kernel.workgroup_size):
        cap = limits[f"max-compute-workgroup-size-{axis}"]
        if size > cap:
            raise RuntimeError(
                f"workgroup_size {kernel.workgroup_size} exceeds the {axis} limit {cap} {where}"
            )
    cap = limits["max-compute-invocations-per-workgroup"]
    if kernel.invocations_per_workgroup > cap:
        raise RuntimeError(
            f"workgroup_size {kernel.workgroup_size} has {kernel.invocations_per_workgroup} "
            f"invocations, more than the {cap} allowed {where}"
        )
    cap = limits["max-compute-workgroup-storage-size"]
    if kernel.workgroup_bytes > cap:
        names = ", ".join(f"`{a.name}` ({a.size_bytes} B)" for a in kernel.workgroup_arrays)
        raise RuntimeError(
            f"workgroup buffers {names} need {kernel.workgroup_bytes} bytes, more than the "
            f"{cap} bytes of workgroup memory {where}"
        )
    storage = [b for b in kernel.buffers if not b.is_uniform]
    uniforms = len(kernel.buffers) - len(storage) + 1
    if len(storage) > limits["max-storage-buffers-per-shader-stage"]:
        raise RuntimeError(
            f"the program binds {len(storage)} storage buffers, more than the "
            f"{limits['max-storage-buffers-per-shader-stage']} allowed {where}"
        )
    if uniforms > limits["max-uniform-buffers-per-shader-stage"]:
        raise RuntimeError(
            f"the program binds {uniforms - 1} uniform buffers (+1 internal), more than the "
            f"{limits['max-uniform-buffers-per-shader-stage']} allowed {where}"
        )
    if kernel.meta.binding >= limits["max-bindings-per-bind-group"]:
        raise RuntimeError(
            f"binding {kernel.meta.binding - 1} is too high: bindings must stay below "
            f"{limits['max-bindings-per-bind-group'] - 1} {where} (one slot is internal)"
        )
    cap = min(limits["max-storage-buffer-binding-size"], limits["max-buffer-size"])
    for binding in storage:
        size = host[binding.name].nbytes
        if size > cap:
            raise RuntimeError(
                f"buffer `{binding.name}` has {size} bytes, more than the {cap} bytes a "
                f"storage binding may have {where}"
            )


# ---------------------------------------------------------------------------
# Running
# ---------------------------------------------------------------------------


Slice = tuple[tuple[int, ...], tuple[int, ...]]


def _slices(groups: tuple[int, int, int], limit: int) -> list[Slice]:
    """(offset, count) per dispatch slice: every axis cut into chunks of <= limit."""
    per_axis = [
        [(start, min(limit, total - start)) for start in range(0, total, limit)]
        for total in groups
    ]
    return [
        (tuple(start for start, _ in parts), tuple(count for _, count in parts))
        for parts in itertools.product(*per_axis)
    ]


def _storage_size(nbytes: int) -> int:
    """Allocation size: at least one vec4 (empty buffers cannot be bound), 16-aligned."""
    return max(16, -(-nbytes // 16) * 16)


def _run(
    gpu: GpuDevice,
    kernel: LoweredKernel,
    label: str,
    host: dict[str, np.ndarray],
    groups: tuple[int, int, int],
    limit: int,
) -> dict[str, np.ndarray]:
    import wgpu

    usage = wgpu.BufferUsage
    storage_usage = usage.STORAGE | usage.COPY_DST | usage.COPY_SRC
    uniform_usage = usage.UNIFORM | usage.COPY_DST | usage.COPY_SRC
    staging_usage = usage.MAP_READ | usage.COPY_DST
    outputs = [b for b in kernel.buffers if b.access == AccessKind.READ_WRITE]
    slices = _slices(groups, limit)
    if not slices or 0 in groups:
        return {b.name: host[b.name].copy() for b in outputs}

    pipeline = gpu.pipeline(kernel, label)
    device = gpu.device
    held: list[tuple[int, Any]] = []

    def take(usage: int, size: int) -> Any:
        buffer = gpu.acquire(usage, size)
        held.append((usage, buffer))
        return buffer

    try:
        gpu_buffers: dict[str, Any] = {}
        for binding in kernel.buffers:
            data = host[binding.name]
            if binding.is_uniform:
                buffer = take(uniform_usage, UNIFORM_CAPACITY_VEC4 * 16)
            else:
                buffer = take(storage_usage, _storage_size(data.nbytes))
            if data.nbytes:
                device.queue.write_buffer(buffer, 0, data)
            gpu_buffers[binding.name] = buffer

        counts = tuple(len(host[b.name]) // b.words_per_element for b in kernel.buffers)
        stride = _meta_stride(kernel, gpu)
        meta_buffer = take(uniform_usage, stride * len(slices))
        meta_words = np.zeros(stride * len(slices) // 4, dtype=np.uint32)
        for k, (offset, _) in enumerate(slices):
            packed = kernel.meta.pack((offset[0], offset[1], offset[2]), counts)
            meta_words[k * stride // 4 : k * stride // 4 + len(packed)] = packed
        device.queue.write_buffer(meta_buffer, 0, meta_words)

        encoder = device.create_command_encoder(label=label)
        compute = encoder.begin_compute_pass(label=label)
        compute.set_pipeline(pipeline.pipeline)
        for k, (_, count) in enumerate(slices):
            entries = [
                {"binding": b.binding, "resource": {"buffer": gpu_buffers[b.name]}}
                for b in kernel.buffers
            ]
            entries.append(
                {
                    "binding": kernel.meta.binding,
                    "resource": {
                        "buffer": meta_buffer,
                        "offset": k * stride,
                        "size": kernel.meta.size_bytes,
                    },
                }
            )
            bind_group = device.create_bind_group(
                label=label, layout=pipeline.bind_group_layout, entries=entries
            )
            compute.set_bind_group(0, bind_group)
            compute.dispatch_workgroups(*count)
        compute.end()

        staging: dict[str, Any] = {}
        for binding in outputs:
            nbytes = host[binding.name].nbytes
            if nbytes:
                staging[binding.name] = take(staging_usage, nbytes)
                encoder.copy_buffer_to_buffer(
                    gpu_buffers[binding.name], 0, staging[binding.name], 0, nbytes
                )
        device.queue.submit([encoder.finish()])

        results: dict[str, np.ndarray] = {}
        for binding in outputs:
            buffer = staging.get(binding.name)
            if buffer is None:
                results[binding.name] = np.zeros(0, dtype=np.uint32)
                continue
            buffer.map_sync(wgpu.MapMode.READ)
            try:
                data = buffer.read_mapped(copy=True)
            finally:
                buffer.unmap()
            results[binding.name] = np.frombuffer(data, dtype=np.uint32).copy()
        if not staging:
            # nothing to read: still wait until the work is done (buffers go back
            # to the pool); on_submitted_work_done_sync raises in wgpu-py 0.32
            device.queue.read_buffer(meta_buffer, 0, 16)
        return results
    finally:
        for usage, buffer in held:
            gpu.release(usage, buffer)


def _meta_stride(kernel: LoweredKernel, gpu: GpuDevice) -> int:
    """Bytes between the meta words of consecutive slices (offset-aligned)."""
    align = int(gpu.device.limits.get("min-uniform-buffer-offset-alignment", 256))
    return -(-kernel.meta.size_bytes // align) * align
