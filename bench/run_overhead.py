"""Benchmark (b): a cached `vyre.run` against raw wgpu-py doing the same work.

    python bench/run_overhead.py [--sizes 1024,1048576] [--calls N] [--breakdown]

The kernel is out[i] = a[i] ^ b[i] (64 invocations per workgroup). The raw
path is what a careful wgpu-py user writes for the same shader (vyre's own
lowered WGSL) and sizes: pipeline, buffers and bind group made once; per call
it uploads a and b, records one dispatch and a copy of `out` into a mappable
buffer, submits, maps it and copies the result into a numpy array. The vyre
path is `vyre.run(program, {"a": a, "b": b}, dispatch=..., outputs={"out": n})`
after a first call has filled its caches. Both results are checked against
numpy. Calls alternate between the two paths; medians are reported, and the
ratio vyre/raw (1.0 = no overhead).

`--breakdown` adds, for the first size, where the time of a cached call goes:
each part of `vyre.run` timed on its own (interleaved with the whole call and
the raw path; the best of 30 batches), `vyre.run` with its GPU work replaced by
a stub (all of vyre's own Python), and the native wgpu calls each path makes.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import _common  # noqa: F401  (puts the repository on sys.path)
import numpy as np

from vyre.ir import BufferDecl, DataType, Expr as E, Node as N, Program

WORKGROUP = 64


def xor_program() -> Program:
    i = E.var("i")
    return Program(
        buffers=[
            BufferDecl.read("a", 0, DataType.U32),
            BufferDecl.read("b", 1, DataType.U32),
            BufferDecl.read_write("out", 2, DataType.U32),
        ],
        workgroup_size=(WORKGROUP, 1, 1),
        entry=[N.let("i", E.gid_x()), N.store("out", i, E.bitxor(E.load("a", i), E.load("b", i)))],
        name="bench_run_xor",
    )


class Raw:
    """Hand-written wgpu-py for the same shader and sizes."""

    def __init__(self, program: Program, n: int):
        import wgpu

        from vyre.pipeline import lowered
        from vyre.runtime.wgpu_device import gpu_device

        self.wgpu = wgpu
        self.n = n
        device = self.device = gpu_device().device
        low = lowered(program)
        module = device.create_shader_module(code=low.wgsl)
        self.pipeline = device.create_compute_pipeline(
            layout="auto", compute={"module": module, "entry_point": low.entry_point}
        )
        usage = wgpu.BufferUsage.STORAGE | wgpu.BufferUsage.COPY_DST | wgpu.BufferUsage.COPY_SRC
        self.buffers = {name: device.create_buffer(size=n * 4, usage=usage) for name in ("a", "b", "out")}
        self.staging = device.create_buffer(
            size=n * 4, usage=wgpu.BufferUsage.MAP_READ | wgpu.BufferUsage.COPY_DST
        )
        meta = np.array(low.meta.pack((0, 0, 0), (n, n, n)), dtype=np.uint32)
        meta_buffer = device.create_buffer(
            size=meta.nbytes, usage=wgpu.BufferUsage.UNIFORM | wgpu.BufferUsage.COPY_DST
        )
        device.queue.write_buffer(meta_buffer, 0, meta)
        entries = [{"binding": b.binding, "resource": {"buffer": self.buffers[b.name]}} for b in low.buffers]
        entries.append({"binding": low.meta.binding, "resource": {"buffer": meta_buffer}})
        self.bind_group = device.create_bind_group(
            layout=self.pipeline.get_bind_group_layout(0), entries=entries
        )
        self.groups = -(-n // WORKGROUP)

    def run(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        queue = self.device.queue
        queue.write_buffer(self.buffers["a"], 0, a)
        queue.write_buffer(self.buffers["b"], 0, b)
        encoder = self.device.create_command_encoder()
        compute = encoder.begin_compute_pass()
        compute.set_pipeline(self.pipeline)
        compute.set_bind_group(0, self.bind_group)
        compute.dispatch_workgroups(self.groups, 1, 1)
        compute.end()
        encoder.copy_buffer_to_buffer(self.buffers["out"], 0, self.staging, 0, self.n * 4)
        queue.submit([encoder.finish()])
        self.staging.map_sync(self.wgpu.MapMode.READ)
        try:
            data = self.staging.read_mapped(copy=False)
            return np.frombuffer(data, dtype=np.uint32).copy()
        finally:
            self.staging.unmap()


def native_calls(call: Callable[[], object]) -> int:
    """How many wgpu-native C functions one `call()` makes, not counting the
    device polls of `map_sync` (their number depends on how long the wait is)."""
    from wgpu.backends.wgpu_native import _api

    lib = _api.libf
    names = [
        name
        for name in dir(lib)
        if name.startswith("wgpu") and name != "wgpuDevicePoll" and callable(getattr(lib, name))
    ]
    originals = {name: getattr(lib, name) for name in names}
    count = 0

    def counting(function: Callable[..., object]) -> Callable[..., object]:
        def wrapper(*args: object) -> object:
            nonlocal count
            count += 1
            return function(*args)

        return wrapper

    try:
        for name, function in originals.items():
            setattr(lib, name, counting(function))
        call()
    finally:
        for name, function in originals.items():
            setattr(lib, name, function)
    return count


def breakdown(program: Program, n: int, raw: Raw, a: np.ndarray, b: np.ndarray) -> list[list[str]]:
    """(part, µs) rows: the best of 30 interleaved batches for each part of a cached call."""
    import vyre
    from vyre.runtime import api, host, wgpu_backend
    from vyre.fingerprint import fingerprint
    from vyre.runtime.wgpu_device import gpu_device
    from vyre.validate import validate

    dispatch = (-(-n // WORKGROUP), 1, 1)
    inputs, outputs = {"a": a, "b": b}, {"out": n}
    key = fingerprint(program)
    compiled, table = api.prepared_table(program, key)
    prepared = api._prepare(table, inputs, dispatch, outputs)  # noqa: SLF001
    plan = wgpu_backend._plan(compiled)  # noqa: SLF001
    checked = wgpu_backend._check_words(plan, prepared.words)  # noqa: SLF001
    gpu = gpu_device()
    limit = gpu.limits["max-compute-workgroups-per-dimension"]
    shape = wgpu_backend._shape(gpu, plan, checked.lengths, dispatch, limit)  # noqa: SLF001
    final = wgpu_backend._run(gpu, plan, shape, checked)  # noqa: SLF001

    def gpu_work() -> object:
        with gpu.lock:
            return wgpu_backend._run(gpu, plan, shape, checked)  # noqa: SLF001

    def stub_run(*_: object) -> dict[str, np.ndarray]:
        return {"out": final["out"].copy()}

    def without_gpu_work() -> object:
        real = wgpu_backend._run  # noqa: SLF001
        wgpu_backend._run = stub_run  # noqa: SLF001
        try:
            return vyre.run(program, inputs, dispatch=dispatch, outputs=outputs)
        finally:
            wgpu_backend._run = real  # noqa: SLF001

    def backend_checks() -> object:
        wgpu_backend._plan(compiled)  # noqa: SLF001
        wgpu_backend._check_dispatch(prepared.dispatch)  # noqa: SLF001
        return wgpu_backend._check_words(plan, prepared.words)  # noqa: SLF001

    parts: dict[str, Callable[[], object]] = {
        "whole `vyre.run`": lambda: vyre.run(program, inputs, dispatch=dispatch, outputs=outputs),
        "raw wgpu-py, whole call": lambda: raw.run(a, b),
        "`vyre.run` with its GPU work stubbed out (all of vyre's Python)": without_gpu_work,
        "`fingerprint(program)` (snapshot unchanged)": lambda: fingerprint(program),
        "prepared program, cached (`api.prepared_table`)": lambda: api.prepared_table(program, key),
        "argument checks and host words (`api._prepare`)": lambda: api._prepare(  # noqa: SLF001
            table, inputs, dispatch, outputs
        ),
        "backend: plan lookup, dispatch and word checks": backend_checks,
        "backend: run-shape lookup": lambda: wgpu_backend._shape(  # noqa: SLF001
            gpu, plan, checked.lengths, dispatch, limit
        ),
        "backend: GPU work (upload/clear, encode, submit, wait, read back)": gpu_work,
        "outputs to user arrays (`host.from_words`)": lambda: host.from_words(
            "out", table.decls["out"].dtype, final["out"], n
        ),
        "for reference: `validate(program)` (uncached)": lambda: validate(program),
        "for reference: `str(program)` (the old lowering-cache key)": lambda: str(program),
    }
    best = {name: float("inf") for name in parts}
    for _ in range(30):
        for name, part in parts.items():
            reps = 5 if "str(" in name else 20
            start = time.perf_counter()
            for _ in range(reps):
                part()
            best[name] = min(best[name], (time.perf_counter() - start) / reps)
    rows = [[name, f"{seconds * 1e6:,.1f}"] for name, seconds in best.items()]
    vyre_calls = native_calls(parts["whole `vyre.run`"])
    raw_calls = native_calls(parts["raw wgpu-py, whole call"])
    rows.append(["native wgpu calls (device polls not counted), `vyre.run`", str(vyre_calls)])
    rows.append(["native wgpu calls (device polls not counted), raw", str(raw_calls)])
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", help="comma-separated element counts (default: 1024,1Mi; GPU adds 16Mi)")
    parser.add_argument("--calls", type=int, help="timed calls per path and size (default: by size)")
    parser.add_argument("--breakdown", action="store_true", help="time each part of a cached call")
    args = parser.parse_args()

    import vyre
    from _common import gpu_is_cpu, gpu_name, median, table

    sizes = (
        [int(s) for s in args.sizes.split(",")]
        if args.sizes
        else [1 << 10, 1 << 20] + ([] if gpu_is_cpu() else [1 << 24])
    )
    program = xor_program()
    rng = np.random.default_rng(2)
    rows = []
    parts: list[list[str]] = []
    for n in sizes:
        a = rng.integers(0, 2**32, n, dtype=np.uint32)
        b = rng.integers(0, 2**32, n, dtype=np.uint32)
        expected = a ^ b
        raw = Raw(program, n)
        dispatch = (-(-n // WORKGROUP), 1, 1)

        def through_vyre() -> np.ndarray:
            return vyre.run(program, {"a": a, "b": b}, dispatch=dispatch, outputs={"out": n}, backend="wgpu")["out"]

        for path in (through_vyre, lambda: raw.run(a, b)):  # warm up, check
            if not np.array_equal(path(), expected):
                raise SystemExit("wrong result")
        calls = args.calls or max(5, min(300, (1 << 26) // max(n, 1) // 4))
        t_vyre, t_raw = [], []
        for _ in range(calls):
            start = time.perf_counter()
            through_vyre()
            middle = time.perf_counter()
            raw.run(a, b)
            t_vyre.append(middle - start)
            t_raw.append(time.perf_counter() - middle)
        v, r = median(t_vyre), median(t_raw)
        rows.append([gpu_name(), f"{n:,}", calls, f"{r * 1e6:,.0f}", f"{v * 1e6:,.0f}", f"{v / r:.3f}"])
        if args.breakdown and not parts:
            parts = breakdown(program, n, raw, a, b)
            parts.insert(0, ["device, elements", f"{gpu_name()}, {n:,}"])
    print(table(["device", "elements", "calls", "raw wgpu-py µs/call", "vyre.run µs/call", "vyre/raw"], rows))
    if parts:
        print()
        print(table(["part of a cached call", "µs (best of 30 batches)"], parts))


if __name__ == "__main__":
    main()
