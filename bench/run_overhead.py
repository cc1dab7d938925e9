"""Benchmark (b): a cached `vyre.run` against raw wgpu-py doing the same work.

    python bench/run_overhead.py [--sizes 1024,1048576] [--calls N] [--runs R] [--breakdown]

The kernel is out[i] = a[i] ^ b[i] (64 invocations per workgroup). The raw
path is what a careful wgpu-py user writes for the same shader (the lowering
vyre runs for these arguments: the vectorised map) and sizes: pipeline,
buffers and bind group(s) made once; per call it uploads a and b, records the
dispatch (split along x past 65,535 workgroups, one meta block per slice) and a
copy of `out` into a mappable buffer, submits, maps it (`map_sync(MapMode.READ)`,
the documented call) and copies the result into a numpy array. It does not
clear `out` (the kernel writes every element; vyre knows that too and does not
clear it either). A second raw path, "raw, vyre's readback", is the same but
reads `out` back the way vyre does (`wgpu_device.read_words`: no empty
submission before the map), so the two ratios separate what
vyre's readback saves from what its Python costs. The vyre path is
`vyre.run(program, {"a": a, "b": b}, dispatch=..., outputs={"out": n})` after a
first call has filled its caches. Every result is checked against numpy before
and after timing. Calls alternate between the paths; each run reports the
ratios of the medians, and `--runs` separate runs give the median ratios.

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
from vyre.cli.pipes import quiet_on_closed_pipe

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
    """Hand-written wgpu-py for the same shader, dispatch and sizes as vyre's run.

    The shader is the lowering vyre runs for these arguments (for this map
    kernel: the vectorised one, 8 elements per invocation, whose meta words
    carry the element count); the raw path computes its dispatch itself and,
    past the per-axis limit (65,535 workgroups), splits it along x with one
    meta block per slice, as a careful user would."""

    def __init__(self, program: Program, n: int, vyre_readback: bool = False):
        import wgpu

        from vyre.pipeline import prepare
        from vyre.runtime.wgpu_backend import lowering_for
        from vyre.runtime.wgpu_device import gpu_device

        self.wgpu = wgpu
        self.n = n
        self.vyre_readback = vyre_readback
        gpu = gpu_device()
        device = self.device = gpu.device
        dispatch = (-(-n // WORKGROUP), 1, 1)
        words = {"a": np.zeros(n, np.uint32), "b": np.zeros(n, np.uint32), "out": np.zeros(n, np.uint32)}
        low = lowering_for(prepare(program), words, dispatch)
        if low.status_binding is not None:
            raise SystemExit("the xor kernel has no loop: it binds no status word")
        module = device.create_shader_module(code=low.wgsl)
        self.pipeline = device.create_compute_pipeline(
            layout="auto", compute={"module": module, "entry_point": low.entry_point}
        )
        usage = wgpu.BufferUsage.STORAGE | wgpu.BufferUsage.COPY_DST | wgpu.BufferUsage.COPY_SRC
        size = max(16, -(-n * 4 // 16) * 16)
        self.buffers = {name: device.create_buffer(size=size, usage=usage) for name in ("a", "b", "out")}
        self.staging = device.create_buffer(
            size=max(4, n * 4), usage=wgpu.BufferUsage.MAP_READ | wgpu.BufferUsage.COPY_DST
        )
        if low.vector is not None:
            virtual = low.vector.virtual_count(dispatch)
            assert virtual is not None
            total, extra = low.vector.groups(virtual), (virtual, min(virtual, n))
        else:
            total, extra = dispatch[0], ()
        limit = gpu.limits["max-compute-workgroups-per-dimension"]
        self.slices: list[tuple[object, int]] = []
        self.keep: list[object] = []
        for start in range(0, total, limit):
            meta = np.array(low.meta.pack((start, 0, 0), (n, n, n), extra), dtype=np.uint32)
            meta_buffer = device.create_buffer(
                size=meta.nbytes, usage=wgpu.BufferUsage.UNIFORM | wgpu.BufferUsage.COPY_DST
            )
            device.queue.write_buffer(meta_buffer, 0, meta)
            entries = [{"binding": b.binding, "resource": {"buffer": self.buffers[b.name]}} for b in low.buffers]
            entries.append({"binding": low.meta.binding, "resource": {"buffer": meta_buffer}})
            group = device.create_bind_group(layout=self.pipeline.get_bind_group_layout(0), entries=entries)
            self.keep.append(meta_buffer)
            self.slices.append((group, min(limit, total - start)))

    def run(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        queue = self.device.queue
        queue.write_buffer(self.buffers["a"], 0, a)
        queue.write_buffer(self.buffers["b"], 0, b)
        encoder = self.device.create_command_encoder()
        compute = encoder.begin_compute_pass()
        compute.set_pipeline(self.pipeline)
        for group, count in self.slices:
            compute.set_bind_group(0, group)
            compute.dispatch_workgroups(count, 1, 1)
        compute.end()
        encoder.copy_buffer_to_buffer(self.buffers["out"], 0, self.staging, 0, self.n * 4)
        queue.submit([encoder.finish()])
        if self.vyre_readback:
            from vyre.runtime.wgpu_device import read_words

            return read_words([self.staging])[0]
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
    from vyre.fingerprint import fingerprint, remembered
    from vyre.runtime import api, host, wgpu_backend
    from vyre.validate import validate

    dispatch = (-(-n // WORKGROUP), 1, 1)
    inputs, outputs = {"a": a, "b": b}, {"out": n}
    vyre.run(program, inputs, dispatch=dispatch, outputs=outputs)  # makes the hot-path entry
    key = fingerprint(program)
    known = remembered(program.module)
    hot = api._HOT.get(id(program.module))  # noqa: SLF001
    assert key is not None and known is not None and hot is not None
    compiled, table = api.prepared_table(program, key)
    bound = next(iter(hot.runs.values()))
    arrays = (a, b, None)
    final = bound.run(arrays)

    def stub_words(*_: object) -> list[np.ndarray]:
        return [final[0].copy()]  # what the readback does: one fresh array

    def stubbed(call: Callable[[], object]) -> Callable[[], object]:
        def run() -> object:
            real = wgpu_backend._bundle_words  # noqa: SLF001
            wgpu_backend._bundle_words = stub_words  # noqa: SLF001
            try:
                return call()
            finally:
                wgpu_backend._bundle_words = real  # noqa: SLF001

        return run

    parts: dict[str, Callable[[], object]] = {
        "whole `vyre.run`": lambda: vyre.run(program, inputs, dispatch=dispatch, outputs=outputs),
        "raw wgpu-py, whole call": lambda: raw.run(a, b),
        "`vyre.run` with its GPU work stubbed out (all of vyre's Python)": stubbed(
            lambda: vyre.run(program, inputs, dispatch=dispatch, outputs=outputs)
        ),
        "unchanged-program check (`Known.runs_the_same`, the hot path's)": known.runs_the_same,
        "argument checks, run-shape lookup, outputs (`_Hot.run`, GPU work stubbed)": stubbed(
            lambda: hot.run(inputs, dispatch, outputs)
        ),
        "run-shape lookup alone (`HostRun.current` + dict)": lambda: hot.runs.get(
            (n, n, *dispatch)
        ) is not None and bound.current(),
        "backend: GPU work through the bundle (upload/clear, encode, submit, wait, read back)": lambda: bound.run(
            arrays
        ),
        "for reference: `fingerprint(program)` (general path, program unchanged)": lambda: fingerprint(program),
        "for reference: prepared program, cached (`api.prepared_table`)": lambda: api.prepared_table(program, key),
        "for reference: general argument checks (`api._prepare`)": lambda: api._prepare(  # noqa: SLF001
            table, inputs, dispatch, outputs
        ),
        "for reference: outputs to user arrays (`host.from_words`)": lambda: host.from_words(
            "out", table.decls["out"].dtype, final[0], n
        ),
        "for reference: `validate(program)` (uncached)": lambda: validate(program),
    }
    del compiled
    best = {name: float("inf") for name in parts}
    for _ in range(30):
        for name, part in parts.items():
            reps = 20
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


def measure(
    program: Program, n: int, calls: int, raw: Raw, alike: Raw, a: np.ndarray, b: np.ndarray
) -> tuple[float, float, float]:
    """(median raw, median raw with vyre's readback, median vyre) s/call over `calls` rounds
    of one call of each path in turn."""
    import vyre

    dispatch = (-(-n // WORKGROUP), 1, 1)
    t_vyre: list[float] = []
    t_raw: list[float] = []
    t_alike: list[float] = []
    for _ in range(calls):
        start = time.perf_counter()
        vyre.run(program, {"a": a, "b": b}, dispatch=dispatch, outputs={"out": n}, backend="wgpu")
        first = time.perf_counter()
        raw.run(a, b)
        second = time.perf_counter()
        alike.run(a, b)
        t_vyre.append(first - start)
        t_raw.append(second - first)
        t_alike.append(time.perf_counter() - second)
    from _common import median

    return median(t_raw), median(t_alike), median(t_vyre)


@quiet_on_closed_pipe
def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--sizes", help="comma-separated element counts (default: 1Ki,1Mi; on a GPU 1Ki,64Ki,1Mi,4Mi,16Mi)"
    )
    parser.add_argument("--calls", type=int, help="timed calls per path, size and run (default: by size)")
    parser.add_argument("--runs", type=int, help="separate interleaved runs per size (default: 3 on a GPU, 1 on a CPU)")
    parser.add_argument("--breakdown", action="store_true", help="time each part of a cached call")
    args = parser.parse_args()

    import vyre
    from _common import gpu_is_cpu, gpu_name, median, table

    cpu = gpu_is_cpu()
    sizes = (
        [int(s) for s in args.sizes.split(",")]
        if args.sizes
        else ([1 << 10, 1 << 20] if cpu else [1 << 10, 1 << 16, 1 << 20, 1 << 22, 1 << 24])
    )
    runs = args.runs or (1 if cpu else 3)
    program = xor_program()
    rng = np.random.default_rng(2)
    rows = []
    parts: list[list[str]] = []
    for n in sizes:
        a = rng.integers(0, 2**32, n, dtype=np.uint32)
        b = rng.integers(0, 2**32, n, dtype=np.uint32)
        expected = a ^ b
        raw, alike = Raw(program, n), Raw(program, n, vyre_readback=True)
        dispatch = (-(-n // WORKGROUP), 1, 1)

        def through_vyre() -> np.ndarray:
            return vyre.run(program, {"a": a, "b": b}, dispatch=dispatch, outputs={"out": n}, backend="wgpu")["out"]

        for path in (through_vyre, lambda: raw.run(a, b), lambda: alike.run(a, b)):  # warm up, check
            if not np.array_equal(path(), expected):
                raise SystemExit(f"wrong result at n={n}")
        calls = args.calls or max(5, min(300, (1 << 26) // max(n, 1) // 4))
        ratios: list[str] = []
        measured: list[tuple[float, float, float]] = []
        for _ in range(runs):
            r, q, v = measure(program, n, calls, raw, alike, a, b)
            measured.append((r, q, v))
            ratios.append(f"{v / r:.3f}")
        r = median([m[0] for m in measured])
        q = median([m[1] for m in measured])
        v = median([m[2] for m in measured])
        ratio = median([m[2] / m[0] for m in measured])
        like = median([m[2] / m[1] for m in measured])
        for path in (through_vyre, lambda: raw.run(a, b), lambda: alike.run(a, b)):  # checked again
            if not np.array_equal(path(), expected):
                raise SystemExit(f"wrong result at n={n}")
        rows.append([
            gpu_name(), f"{n:,}", f"{runs} x {calls}", f"{r * 1e6:,.0f}", f"{q * 1e6:,.0f}",
            f"{v * 1e6:,.0f}", ", ".join(ratios), f"{ratio:.3f}", f"{like:.3f}",
        ])
        if args.breakdown and not parts:
            parts = breakdown(program, n, raw, a, b)
            parts.insert(0, ["device, elements", f"{gpu_name()}, {n:,}"])
    print(table(
        ["device", "elements", "runs x calls", "raw wgpu-py µs/call", "raw, vyre's readback µs/call",
         "vyre.run µs/call", "vyre/raw per run", "vyre/raw (median)", "vyre/raw with vyre's readback (median)"],
        rows,
    ))
    if parts:
        print()
        print(table(["part of a cached call", "µs (best of 30 batches)"], parts))


if __name__ == "__main__":
    main()
