"""The process-wide wgpu device of vyre: limits, compiled pipelines, buffer pool.

One device per process, on the adapter `vyre.runtime.adapters.choose_adapter()`
picks, made under a lock (threads whose first GPU call comes at once share it)
and replaced when the driver loses it (wgpu loses a device whose driver ran out
of memory). Out of device memory, vyre lets go of its pools and tries once
more, then raises `DeviceLimitError`. Compiled pipelines are cached by their WGSL text, bind groups by
(pipeline, the exact buffer objects and offsets they bind); both caches keep the
most recently used entries. GPU buffers are pooled by (usage, size) and reused by
later runs of the same shapes; uniform buffers whose whole content vyre wrote
itself (the meta uniform) are pooled by that content, so a run whose meta words
did not change uploads nothing. A kernel's constant tables (layout.py
`TableBuffer`) are uploaded once into a read-only storage buffer cached by their
words (`table_buffer`), which every run of the kernel binds.
"""

from __future__ import annotations

import os
import re
import threading
import weakref
from collections import OrderedDict
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Any, Protocol

import numpy as np

from vyre.dialects.vyre import AccessKind
from vyre.progress import stage
from vyre.lowering.layout import UNIFORM_CAPACITY_VEC4, BufferBinding, TableBuffer
from vyre.lowering.options import LoweringOptions
from vyre.lowering.wgsl import LoweredKernel
from vyre.fingerprint import LruCache

LIMITS_WANTED = (
    "max-buffer-size",
    "max-storage-buffer-binding-size",
    "max-uniform-buffer-binding-size",
    "max-storage-buffers-per-shader-stage",
    "max-uniform-buffers-per-shader-stage",
    "max-bindings-per-bind-group",
    "max-compute-workgroup-storage-size",
    "max-compute-invocations-per-workgroup",
    "max-compute-workgroup-size-x",
    "max-compute-workgroup-size-y",
    "max-compute-workgroup-size-z",
    "max-compute-workgroups-per-dimension",
)
"""Limits requested at the adapter's own maximum (the defaults are far lower)."""

class DeviceLimitError(ValueError):
    """A run, or a buffer, that needs more than the adapter allows: the message
    names the limit (its WebGPU name), the amount asked for, and the adapter."""


PIPELINE_CAPACITY = 256
TABLE_CAPACITY = 256
"""Distinct table buffers kept (one per distinct set of a kernel's tables)."""
BIND_GROUP_CAPACITY = 512
BUNDLE_CAPACITY = 32
"""Run shapes whose buffers and bind groups stay made (wgpu_backend `_Bundle`)."""
BUNDLE_BYTES = 512 << 20
"""GPU memory the kept bundles may hold together; the least recently used go
back to the pool first."""
LLVMPIPE_LOOP_LIMIT = 65_535
"""Loop back-edges llvmpipe (lavapipe) lets one shader invocation take, in all
its loops together, before it leaves them silently (Mesa's
LP_MAX_TGSI_LOOP_ITERATIONS; measured: vyre/lowering/loops.py)."""


class Bundle(Protocol):
    """What the device keeps per run shape (wgpu_backend `_Bundle`)."""

    def release(self, gpu: GpuDevice) -> None: ...
CONTENT_POOL_CAPACITY = 64
"""Distinct contents kept by the pool of self-written uniform buffers."""


@dataclass(frozen=True)
class Pipeline:
    pipeline: Any
    bind_group_layout: Any


@dataclass
class GpuDevice:
    """The device plus its caches. Use `gpu_device()`; hold `lock` while running."""

    adapter: Any
    device: Any
    limits: dict[str, int]
    adapter_name: str
    pipelines: LruCache[str, Pipeline] = field(
        default_factory=lambda: LruCache[str, Pipeline](PIPELINE_CAPACITY)
    )
    bind_groups: LruCache[Hashable, Any] = field(
        default_factory=lambda: LruCache[Hashable, Any](BIND_GROUP_CAPACITY)
    )
    tables: LruCache[tuple[int, ...], Any] = field(
        default_factory=lambda: LruCache[tuple[int, ...], Any](TABLE_CAPACITY)
    )
    """A kernel's table words -> the read-only storage buffer holding them."""
    free_buffers: dict[tuple[int, int], list[Any]] = field(default_factory=lambda: {})
    free_by_content: OrderedDict[tuple[int, bytes], list[Any]] = field(
        default_factory=lambda: OrderedDict()
    )
    lock: threading.Lock = field(default_factory=threading.Lock)
    loop_limit: int | None = None
    """Loop back-edges per invocation after which the adapter's driver stops
    loops silently (lavapipe); None where loops run to their end. Kernels are
    then lowered with checked loops (vyre.lowering.options)."""
    bundles: OrderedDict[Hashable, Bundle] = field(default_factory=lambda: OrderedDict())
    bundle_sizes: dict[Hashable, int] = field(default_factory=lambda: {})
    bundle_bytes: int = 0
    pending_status: dict[str, None] = field(default_factory=lambda: dict[str, None]())
    """Labels (an ordered set) of the kernels with checked loops submitted
    since the loop status word was last read."""
    lost: bool = False
    """The driver lost the device (wgpu loses it when the driver runs out of
    memory); `gpu_device()` has opened a new one since."""
    cpu: bool = False
    """The adapter is a CPU (lavapipe): a dispatch of 2^32 workgroups or more is
    refused there rather than split (it would run for many minutes)."""
    int64: bool = False
    """The device was requested with wgpu's `shader-int64` (the adapter offers it
    and `VYRE_INT64` is not `0`): kernels are lowered with WGSL `u64` where it
    gives the same bits in fewer instructions (vyre.lowering.options)."""

    @property
    def lowering(self) -> LoweringOptions:
        """What lowering for this device needs (checked loops, 64-bit integers);
        the runtime adds `vectorize` for the dispatches of a map."""
        return LoweringOptions(loop_limit=self.loop_limit, int64=self.int64)
    _status: Any = None

    # -- limits -----------------------------------------------------------------

    def limit_error(self, what: str, limit: str, detail: str = "") -> DeviceLimitError:
        """The error for `what` exceeding the adapter limit `limit`."""
        return DeviceLimitError(
            f"{what} exceeds the adapter limit {limit} = {self.limits.get(limit, '?'):,}"
            f" of {self.adapter_name}{detail}"
        )

    def check_buffer_size(self, nbytes: int, what: str) -> None:
        """`DeviceLimitError` when `nbytes` cannot be one storage binding here."""
        for limit in ("max-buffer-size", "max-storage-buffer-binding-size"):
            if storage_size(nbytes) > self.limits.get(limit, 1 << 62):
                raise self.limit_error(f"{what} ({nbytes:,} bytes)", limit)

    # -- loop status ------------------------------------------------------------

    def status_buffer(self) -> Any:
        """The loop status word every kernel with checked loops binds (16 bytes,
        zero until a loop is stopped)."""
        if self._status is None:
            self._status = self.device.create_buffer(size=16, usage=storage_usage())
        return self._status

    def check_status(self, staging: Any) -> None:
        """Read the status word copied into the mappable `staging` buffer (after
        the submission that copied it); raise `DeviceLimitError` when a loop of
        one of the runs since the last check was stopped. Call with `lock` held."""
        word = int(read_words([staging])[0][0])
        labels = list(self.pending_status)
        self.pending_status.clear()
        if not word:
            return
        self.device.queue.write_buffer(self.status_buffer(), 0, np.zeros(4, dtype=np.uint32))
        raise DeviceLimitError(
            f"a loop of {', '.join(labels) or 'a kernel'} was stopped by the driver of "
            f"{self.adapter_name}, which runs at most {self.loop_limit:,} loop iterations per "
            "invocation (all loops together; LP_MAX_TGSI_LOOP_ITERATIONS), so the results "
            "would be wrong; they were discarded. Fix: give each invocation fewer loop "
            "iterations (split the work over more invocations or dispatches), or run on a "
            "GPU adapter (VYRE_ADAPTER)."
        )

    # -- bundles ----------------------------------------------------------------

    def keep_bundle(self, key: Hashable, bundle: Bundle, nbytes: int) -> None:
        """Keep `bundle` for `key` (a run shape), evicting the least recently used
        bundles beyond `BUNDLE_CAPACITY` or `BUNDLE_BYTES` (their buffers go back
        to the pool). Call with `lock` held."""
        self.bundles[key] = bundle
        self.bundle_bytes += nbytes
        self.bundle_sizes[key] = nbytes
        while len(self.bundles) > 1 and (
            len(self.bundles) > BUNDLE_CAPACITY or self.bundle_bytes > BUNDLE_BYTES
        ):
            old_key, old = self.bundles.popitem(last=False)
            self.bundle_bytes -= self.bundle_sizes.pop(old_key)
            old.release(self)

    def bundle(self, key: Hashable) -> Bundle | None:
        """The bundle kept for `key`, marked most recently used."""
        bundle = self.bundles.get(key)
        if bundle is not None:
            self.bundles.move_to_end(key)
        return bundle

    # -- buffers ----------------------------------------------------------------

    def acquire(self, usage: int, size: int) -> Any:
        """A buffer of exactly `size` bytes with `usage`, reused when one is free.
        Call with `lock` held."""
        free = self.free_buffers.get((usage, size))
        if free:
            return free.pop()
        return self.create_buffer(usage, size)

    def create_buffer(self, usage: int, size: int) -> Any:
        """A new buffer. When the device has no memory left for it, vyre lets go
        of what it keeps (`release_pools`) and tries once more; then the error is
        a `DeviceLimitError` naming the size and the adapter, and the device
        keeps working. Call with `lock` held."""
        try:
            return self.device.create_buffer(size=size, usage=usage)
        except Exception as error:  # noqa: BLE001 - wgpu's errors are classified below
            if not out_of_memory(error):
                raise
            first = error
        if self.recover():
            raise self.memory_error(f"a buffer of {size:,} bytes", first)
        try:
            return self.device.create_buffer(size=size, usage=usage)
        except Exception as error:  # noqa: BLE001
            if not out_of_memory(error):
                raise
            self.recover()
            raise self.memory_error(f"a buffer of {size:,} bytes", error) from None

    def recover(self) -> bool:
        """After an out-of-memory error: let go of the pools (`release_pools`)
        and check that the device still works; when the driver lost it, mark it
        lost and let `gpu_device()` open a new one. Returns whether it was
        lost. Call with `lock` held."""
        self.release_pools()
        if not self.lost:
            try:
                self.device.create_buffer(size=16, usage=storage_usage())
            except Exception as error:  # noqa: BLE001 - any failure of a 16-byte buffer
                if not device_lost(error) and not out_of_memory(error):
                    raise
                self.lost = True
        if self.lost:
            forget_device(self)
        return self.lost

    def memory_error(self, what: str, error: BaseException | str) -> DeviceLimitError:
        """The error for `what` not fitting in the device memory left (`error`:
        wgpu's), once `recover` ran."""
        reason = " ".join(str(error).split()).replace("Validation Error Caused by: ", "")
        after = (
            "the driver lost the device, and vyre opens a new one for the next run (the"
            " DeviceBuffers made on the old one are gone)"
            if self.lost
            else "vyre let go of its pooled buffers, and the device keeps working"
        )
        return DeviceLimitError(
            f"{what} exceeds the memory left on {self.adapter_name} ({reason}); {after}."
            " Fix: drop the DeviceBuffers you no longer need, run smaller inputs, or choose an"
            " adapter with more memory (VYRE_ADAPTER)."
        )

    def release_pools(self) -> None:
        """Let go of every buffer vyre keeps for reuse: the kept run bundles, the
        free pools and the cached bind groups (which hold their buffers). Live
        `Resident`s are untouched. Call with `lock` held."""
        while self.bundles:
            key, bundle = self.bundles.popitem(last=False)
            self.bundle_bytes -= self.bundle_sizes.pop(key)
            bundle.release(self)
        self.free_buffers.clear()
        self.free_by_content.clear()
        self.bind_groups.clear()

    def release(self, usage: int, buffer: Any) -> None:
        self.free_buffers.setdefault((usage, buffer.size), []).append(buffer)

    def acquire_written(self, usage: int, content: bytes) -> Any:
        """A buffer of `len(content)` bytes with `usage` that holds exactly `content`:
        one released with that content by `release_written` when there is one (no
        upload), else a pooled or new buffer written now. `usage` must include
        COPY_DST and exclude every usage through which a shader could write."""
        free = self.free_by_content.get((usage, content))
        if free:
            buffer = free.pop()
            if not free:
                del self.free_by_content[(usage, content)]
            return buffer
        buffer = self.acquire(usage, len(content))
        self.device.queue.write_buffer(buffer, 0, content)
        return buffer

    def release_written(self, usage: int, buffer: Any, content: bytes) -> None:
        """Return a buffer from `acquire_written`, still holding `content`."""
        key = (usage, content)
        self.free_by_content.setdefault(key, []).append(buffer)
        self.free_by_content.move_to_end(key)
        while len(self.free_by_content) > CONTENT_POOL_CAPACITY:
            (old_usage, _), buffers = self.free_by_content.popitem(last=False)
            for old in buffers:
                self.release(old_usage, old)

    def read_many(self, residents: Sequence[Resident]) -> list[np.ndarray]:
        """The words of device buffers, copied back with one submission (each
        through a pooled staging buffer); waits for the GPU work that writes them."""
        import wgpu  # pyright: ignore[reportMissingTypeStubs]

        usage = int(wgpu.BufferUsage.MAP_READ | wgpu.BufferUsage.COPY_DST)
        results: list[np.ndarray] = [np.zeros(0, dtype=np.uint32) for _ in residents]
        wanted = [(k, r) for k, r in enumerate(residents) if r.words]
        if not wanted:
            return results
        with self.lock:
            staging = [self.acquire(usage, r.words * 4) for _, r in wanted]
            status = self.acquire(usage, 16) if self.pending_status else None
            try:
                encoder = self.device.create_command_encoder()
                for (_, resident), buffer in zip(wanted, staging):
                    encoder.copy_buffer_to_buffer(resident.buffer, 0, buffer, 0, resident.words * 4)
                if status is not None:
                    encoder.copy_buffer_to_buffer(self.status_buffer(), 0, status, 0, 16)
                self.device.queue.submit([encoder.finish()])
                for (k, _), words in zip(wanted, read_words(staging)):
                    results[k] = words
                if status is not None:
                    self.check_status(status)
            finally:
                for buffer in reversed(staging):
                    self.release(usage, buffer)
                if status is not None:
                    self.release(usage, status)
        return results

    # -- constant tables ----------------------------------------------------------

    def table_buffer(self, tables: TableBuffer) -> Any:
        """The storage buffer holding a kernel's constant tables, uploaded once per
        distinct words (never per run) and kept while recently used; a bind group
        that binds it keeps it alive. Call with `lock` held."""
        buffer = self.tables.get(tables.words)
        if buffer is not None:
            return buffer
        words = np.array(tables.words, dtype=np.uint32)
        buffer = self.create_buffer(storage_usage(), storage_size(words.nbytes))
        self.device.queue.write_buffer(buffer, 0, words)
        self.tables.put(tables.words, buffer)
        return buffer

    # -- bind groups ------------------------------------------------------------

    def bind_group(
        self, pipeline: Pipeline, entries: Sequence[tuple[int, Any, int, int | None]], label: str
    ) -> Any:
        """The bind group of `pipeline` binding (binding, buffer, offset, size) entries,
        made once per distinct set of buffer objects and ranges. Pooled buffers are
        never destroyed, so a cached bind group stays valid."""
        key = (pipeline.pipeline, *entries)
        group = self.bind_groups.get(key)
        if group is not None:
            return group
        resources = [
            {
                "binding": binding,
                "resource": {"buffer": buffer, "offset": offset}
                if size is None
                else {"buffer": buffer, "offset": offset, "size": size},
            }
            for binding, buffer, offset, size in entries
        ]
        group = self.device.create_bind_group(
            label=label, layout=pipeline.bind_group_layout, entries=resources
        )
        self.bind_groups.put(key, group)
        return group

    # -- pipelines --------------------------------------------------------------

    def pipeline(self, kernel: LoweredKernel, label: str) -> Pipeline:
        """The compute pipeline of `kernel`, compiled once per distinct WGSL text."""
        key = kernel.wgsl
        cached = self.pipelines.get(key)
        if cached is not None:
            return cached
        import wgpu  # pyright: ignore[reportMissingTypeStubs]

        entries = layout_entries(kernel)
        try:
            with stage(f"compiling {label} for the GPU ({len(kernel.wgsl) // 1024} KB of WGSL)"):
                pipeline, layout = create_pipeline(self.device, kernel.wgsl, kernel.entry_point, entries, label)
        except wgpu.GPUError as error:
            raise RuntimeError(shader_error_message(kernel.wgsl, str(error), label)) from None
        compiled = Pipeline(pipeline, layout)
        self.pipelines.put(key, compiled)
        return compiled


LayoutEntry = tuple[int, str]
"""(binding, buffer binding type: "uniform", "read-only-storage" or "storage")."""


def layout_entries(kernel: LoweredKernel) -> list[LayoutEntry]:
    """The bind group layout of a lowered kernel: its buffers, the meta
    uniform, the loop status word and the table buffer when it has them."""
    entries = [(b.binding, _binding_type(b)) for b in kernel.buffers]
    entries.append((kernel.meta.binding, "uniform"))
    if kernel.status_binding is not None:
        entries.append((kernel.status_binding, "storage"))
    if kernel.tables is not None:
        entries.append((kernel.tables.binding, "read-only-storage"))
    return entries


def create_pipeline(
    device: Any, wgsl: str, entry_point: str, entries: Sequence[LayoutEntry], label: str
) -> tuple[Any, Any]:
    """(compute pipeline, bind group layout) of WGSL on `device` (raises wgpu's
    errors). The one place vyre asks a driver to compile a kernel, in this
    process or in an isolating child."""
    import wgpu  # pyright: ignore[reportMissingTypeStubs]

    module = device.create_shader_module(label=label, code=wgsl)
    layout = device.create_bind_group_layout(
        label=label,
        entries=[
            {"binding": binding, "visibility": wgpu.ShaderStage.COMPUTE, "buffer": {"type": kind}}
            for binding, kind in entries
        ],
    )
    pipeline = device.create_compute_pipeline(
        label=label,
        layout=device.create_pipeline_layout(label=label, bind_group_layouts=[layout]),
        compute={"module": module, "entry_point": entry_point},
    )
    return pipeline, layout


def device_lost(error: BaseException) -> bool:
    """Whether a wgpu error says the device is lost."""
    import wgpu  # pyright: ignore[reportMissingTypeStubs]

    return isinstance(error, wgpu.GPUError) and "device is lost" in str(error).lower()


def out_of_memory(error: BaseException) -> bool:
    """Whether a wgpu error says the device has no memory left (wgpu-native
    reports it as a validation error, "Not enough memory left")."""
    import wgpu  # pyright: ignore[reportMissingTypeStubs]

    if not isinstance(error, wgpu.GPUError):
        return False
    return isinstance(error, wgpu.GPUOutOfMemoryError) or "memory left" in str(error).lower() or (
        "out of memory" in str(error).lower()
    )


def storage_usage() -> int:
    """The usage of every pooled storage buffer (bound, written by copies, read by copies)."""
    import wgpu  # pyright: ignore[reportMissingTypeStubs]

    usage = wgpu.BufferUsage
    return int(usage.STORAGE | usage.COPY_DST | usage.COPY_SRC)


@cache
def map_read_mode() -> int | str:
    """The mode vyre maps its staging buffers with to read results back.

    wgpu-py's `map_async(READ)` first submits an empty command buffer, a
    workaround for wgpu-native#305 (wgpu#5173): a MAP_READ buffer written
    through `mapped_at_creation` reads as zeros until some submission. vyre
    never creates a buffer mapped, and maps a staging buffer only after the
    submission that copies into it, whose completion the map waits for (the
    WebGPU rule), so that submission is pure cost: 3 native calls and, on
    lavapipe, 47 µs per readback buffer. wgpu-py's own `queue.read_buffer`
    skips it with its internal mode "READ_NOSYNC"; vyre does too on the
    wgpu-py versions this was checked on (0.32), and maps with the documented
    `MapMode.READ` on any other."""
    import wgpu  # pyright: ignore[reportMissingTypeStubs]

    if re.fullmatch(r"0\.32\.\d+", str(getattr(wgpu, "__version__", ""))):
        return "READ_NOSYNC"
    return int(wgpu.MapMode.READ)


def read_words(staging: Sequence[Any]) -> list[np.ndarray]:
    """The words of mappable `staging` buffers, after the submission that
    copies into them: every map requested first (`map_read_mode`), then each
    awaited, copied once into a fresh uint32 array and unmapped.

    The wait stays wgpu-py's (its per-device poll thread resolves the maps).
    Polling on the calling thread instead (`wgpuDevicePoll(wait=true)` while
    that thread polls too) saved 3-9 µs per small readback but cost 10 ms on
    the H100 whenever the GPU had real work (1 Mi and 4 Mi words, measured in
    bench/results/readback-poll-h100.txt); spinning on non-blocking polls
    saved nothing."""
    mode = map_read_mode()
    promises = [buffer.map_async(mode) for buffer in staging]
    words: list[np.ndarray] = []
    failure: BaseException | None = None
    for buffer, promise in zip(staging, promises):
        try:
            promise.sync_wait()
        except BaseException as error:  # noqa: BLE001  (every buffer is settled first)
            failure = failure or error
            continue
        try:  # one copy: from the mapped memory into the result
            words.append(np.frombuffer(buffer.read_mapped(copy=False), dtype=np.uint32).copy())
        finally:
            buffer.unmap()
    if failure is not None:
        raise failure
    return words


UNIFORM_BYTES = UNIFORM_CAPACITY_VEC4 * 16
"""The size every uniform binding declares (`vyre.lowering.layout`)."""


def uniform_usage() -> int:
    """The usage of a `Resident.upload_uniform` buffer: bound as a uniform buffer
    in place, or as a storage buffer, and copied like any other."""
    import wgpu  # pyright: ignore[reportMissingTypeStubs]

    return int(wgpu.BufferUsage.UNIFORM) | storage_usage()


def storage_size(nbytes: int) -> int:
    """Allocation size of a storage buffer: at least one vec4 (empty buffers cannot
    be bound), 16-aligned, so buffers of nearby sizes share a pool key."""
    return max(16, -(-nbytes // 16) * 16)


class Resident:
    """Words that live in a storage buffer of the device: the device side of a
    `vyre.DeviceBuffer`. The buffer comes from the pool and goes back to it when
    this object is collected (later GPU work on the one queue is ordered after
    every earlier use of it, so reuse is safe)."""

    __slots__ = ("__weakref__", "buffer", "gpu", "uniform", "words")

    def __init__(self, gpu: GpuDevice, buffer: Any, words: int, uniform: bool = False):
        self.gpu = gpu
        self.buffer = buffer
        self.words = words
        """Words of content (the buffer may be larger: `storage_size`)."""
        self.uniform = uniform
        """The buffer can be bound as a kernel's uniform buffer in place
        (`upload_uniform`); any other is copied into a pooled uniform buffer
        by each run that binds it so."""
        weakref.finalize(self, gpu.release, uniform_usage() if uniform else storage_usage(), buffer)

    @classmethod
    def upload(cls, gpu: GpuDevice, words: np.ndarray) -> Resident:
        """A pooled storage buffer holding `words` (1-D uint32)."""
        gpu.check_buffer_size(words.nbytes, "vyre.to_device: the array")
        with gpu.lock:
            buffer = gpu.acquire(storage_usage(), storage_size(words.nbytes))
            if words.nbytes:
                data = np.ascontiguousarray(words)
                try:
                    gpu.device.queue.write_buffer(buffer, 0, data)
                except Exception as error:  # noqa: BLE001 - the upload's staging memory
                    if not out_of_memory(error):
                        raise
                    gpu.recover()
                    raise gpu.memory_error(f"uploading {words.nbytes:,} bytes", error) from None
        return cls(gpu, buffer, int(words.shape[0]))

    @classmethod
    def upload_uniform(cls, gpu: GpuDevice, words: np.ndarray) -> Resident:
        """A pooled buffer of a uniform binding's declared size (`UNIFORM_BYTES`)
        holding `words` (1-D uint32) at its start, which a run binds as a uniform
        buffer in place, where an ordinary `Resident` bound as a uniform is copied
        into a pooled uniform buffer by every run, and the copy ends the compute
        pass (measured on the H200: about 17 us a dispatch)."""
        if words.nbytes > UNIFORM_BYTES:
            raise ValueError(
                f"uniform words: {words.nbytes:,} bytes do not fit a uniform buffer of {UNIFORM_BYTES:,}"
            )
        with gpu.lock:
            buffer = gpu.acquire(uniform_usage(), UNIFORM_BYTES)
            if words.nbytes:
                gpu.device.queue.write_buffer(buffer, 0, np.ascontiguousarray(words))
        return cls(gpu, buffer, int(words.shape[0]), uniform=True)

    @classmethod
    def allocate(cls, gpu: GpuDevice, words: int) -> Resident:
        """A pooled storage buffer for `words` words; its content is unspecified
        until a command writes it."""
        gpu.check_buffer_size(words * 4, "a device buffer")
        with gpu.lock:
            buffer = gpu.acquire(storage_usage(), storage_size(words * 4))
        return cls(gpu, buffer, words)

    def read(self) -> np.ndarray:
        """The words, copied back to the host (waits for the GPU work that writes them)."""
        return self.gpu.read_many([self])[0]


def _binding_type(binding: BufferBinding) -> str:
    """WebGPU's buffer binding type of a binding (wgpu.BufferBindingType's values)."""
    if binding.is_uniform:
        return "uniform"
    if binding.access == AccessKind.READ_ONLY:
        return "read-only-storage"
    return "storage"


def shader_error_message(wgsl: str, message: str, label: str) -> str:
    """A readable error for WGSL that wgpu/naga rejected: the WGSL line(s) naga
    points at (its `^^^` markers, else the `:line:col` location), then naga's
    explanation without wgpu's call-site preamble."""
    lines = wgsl.splitlines()
    numbers: list[int] = []
    report = message.splitlines()
    for k, text in enumerate(report[:-1]):
        excerpt = re.match(r"\s*(\d+)\s*│", text)
        if excerpt and re.match(r"\s*│[\s│]*\^", report[k + 1]):
            numbers.append(int(excerpt.group(1)))
    if not numbers:
        numbers = [int(m.group(1)) for m in re.finditer(r":(\d+):\d+", message)]
    cited: list[str] = []
    for number in numbers:
        if 1 <= number <= len(lines):
            entry = f"  WGSL line {number}: {lines[number - 1].strip()}"
            if entry not in cited:
                cited.append(entry)
    detail = message
    for preamble in ("Validation Error", "Caused by:"):
        detail = detail.replace(preamble, "")
    detail = re.sub(r"\n\s*In wgpu[^\n]*\n", "\n", detail).strip()
    head = (
        f"vyre wgpu backend: wgpu/naga rejected the WGSL of {label} "
        "(a vyre lowering bug or an adapter limit)"
    )
    return "\n".join([head + ":", *cited, detail])


_DEVICE: list[GpuDevice] = []
"""The process-wide device, once made (a list: set once, read without a lock)."""
_DEVICE_LOCK = threading.Lock()


def gpu_device() -> GpuDevice:
    """The process-wide device (created on first use). Thread-safe: threads whose
    first GPU call comes at the same moment get the one device (two devices in a
    process make buffers of one unusable by the other, and wgpu-core aborts the
    process when a command names a buffer of another device)."""
    if _DEVICE:
        return _DEVICE[0]
    with _DEVICE_LOCK:
        if not _DEVICE:
            _DEVICE.append(new_device())
        return _DEVICE[0]


def forget_device(gpu: GpuDevice) -> None:
    """Let `gpu` (lost) go: the next `gpu_device()` opens a new device."""
    with _DEVICE_LOCK:
        if _DEVICE and _DEVICE[0] is gpu:
            _DEVICE.clear()


def new_device(int64: bool | None = None) -> GpuDevice:
    """A device on the adapter vyre chooses, with its limits at the adapter's maximum,
    requested with `shader-int64` where the adapter offers it and `int64` is not
    False (None: unless `VYRE_INT64=0`)."""
    os.environ.setdefault("XDG_RUNTIME_DIR", "/tmp")
    from vyre.runtime.adapters import adapter_info, choose_adapter

    adapter = choose_adapter()
    available = dict(adapter.limits)
    required = {name: available[name] for name in LIMITS_WANTED if name in available}
    wanted = int64_wanted() if int64 is None else int64
    int64 = INT64_FEATURE in adapter.features and wanted
    device = adapter.request_device_sync(
        label="vyre", required_limits=required, required_features=[INT64_FEATURE] if int64 else []
    )
    limits = {name: int(value) for name, value in dict(device.limits).items()}
    info = adapter_info(adapter)
    loop_limit = LLVMPIPE_LOOP_LIMIT if "llvmpipe" in info.name.lower() else None
    return GpuDevice(
        adapter,
        device,
        limits,
        str(info),
        loop_limit=loop_limit,
        cpu=info.adapter_type == "CPU",
        int64=int64,
    )


INT64_FEATURE = "shader-int64"
"""wgpu's feature for 64-bit integers in WGSL (`u64`, `i64`)."""


def int64_wanted() -> bool:
    """False when `VYRE_INT64=0`: devices are then requested without 64-bit
    integers and every kernel takes its portable form (the same bits; a way to
    compare both forms on one adapter). `ValueError` for any value but 0 or 1."""
    value = os.environ.get("VYRE_INT64", "1").strip()
    if value not in ("0", "1"):
        raise ValueError(
            f"VYRE_INT64 must be 0 (the portable lowering) or 1 (64-bit integers where the"
            f" adapter offers them), got {value!r}"
        )
    return value == "1"
