"""Kernels that come from MLIR's standard dialects (`-p convert-to-vyre`) against
the same kernels written with vyre's builder and against PyTorch, measured in
the same run: converting costs nothing at run time.

    python bench/convert_to_vyre.py [--n N] [--reps 50] [--trials 7]

Kernels (n elements):
  add_i32: out[i] = a[i] + b[i]               (func/scf.parallel/memref/arith.addi)
  divsi:   out[i] = a[i] / b[i] signed         (arith.divsi: vyre has no signed divide,
           the conversion builds it from u32 ops; x / 0 = 0)
  saxpy:   out[i] = 2.5 * x[i] + y[i], f32     (arith.mulf/addf: vyre's strict floats,
           integer soft-float on the GPU)

Both vyre versions are bound and dispatched exactly as `vyre.run` dispatches
them (`wgpu_backend.bind`: a converted kernel is an elementwise map, so it
takes the vectorised lowering like the hand-written one; the `vectorised`
column says whether it did). Each timing records `--reps` dispatches in one
compute pass, one submit and a 4-byte readback; trials alternate and medians
are reported. PyTorch (when torch with CUDA is present) runs the same math:
`a + b` on int32, `torch.div(a, b, rounding_mode="trunc")` with zero divisors
masked, `2.5 * x + y` on float32 (not strict: torch may fuse the multiply-add).
Every vyre result is checked against numpy before timing. GB/s counts 12 bytes
per element (two reads, one write).
"""

from __future__ import annotations

import argparse
import importlib
import time
from collections.abc import Callable
from typing import Any

import _common
import numpy as np

from vyre.ir import BufferDecl, DataType, Expr as E, Node as N, Program
from vyre.cli.pipes import quiet_on_closed_pipe

WORKGROUP = 256

PARALLEL = """func.func @{name}(%a: memref<?x{t}>, %b: memref<?x{t}>, %out: memref<?x{t}>) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %alpha = arith.constant 2.5 : f32
  %n = memref.dim %out, %c0 : memref<?x{t}>
  "scf.parallel"(%c0, %n, %c1) <{{operandSegmentSizes = array<i32: 1, 1, 1, 0>}}> ({{
  ^bb0(%i: index):
    %x = memref.load %a[%i] : memref<?x{t}>
    %y = memref.load %b[%i] : memref<?x{t}>
{body}
    memref.store %r, %out[%i] : memref<?x{t}>
    scf.reduce
  }}) : (index, index, index) -> ()
  func.return
}}
"""
BODIES = {
    "add_i32": ("i32", "    %r = arith.addi %x, %y : i32"),
    "divsi": ("i32", "    %r = arith.divsi %x, %y : i32"),
    "saxpy": ("f32", "    %ax = arith.mulf %alpha, %x : f32\n    %r = arith.addf %ax, %y : f32"),
}


def converted(kernel: str) -> Program:
    from xdsl.context import Context

    from vyre.text import LocatingParser
    from vyre.tools.vyre_opt import get_all_dialects
    from vyre.transforms.convert_to_vyre import ConvertToVyrePass

    ctx = Context()
    for name, factory in get_all_dialects().items():
        ctx.register_dialect(name, factory)
    element, body = BODIES[kernel]
    source = PARALLEL.format(name=kernel, t=element, body=body)
    module = LocatingParser(ctx, source, f"{kernel}.mlir").parse_module()
    ConvertToVyrePass(workgroup_size=WORKGROUP).apply(ctx, module)
    return Program.from_module(module)


def hand_written(kernel: str) -> Program:
    """What a vyre user writes for the same kernel (signed division spelled with
    u32 ops as the conversion does: vyre has no signed divide)."""
    dtype = DataType.F32 if kernel == "saxpy" else DataType.U32
    x, y = E.load("a", E.var("i")), E.load("b", E.var("i"))
    if kernel == "add_i32":
        value = E.add(x, y)
    elif kernel == "saxpy":
        value = E.fadd(E.fmul(E.f32(2.5), x), y)
    else:
        sx, sy = E.shr(E.var("x"), E.u32(31)), E.shr(E.var("y"), E.u32(31))
        mx = E.select(sx, E.sub(E.u32(0), E.var("x")), E.var("x"))
        my = E.select(sy, E.sub(E.u32(0), E.var("y")), E.var("y"))
        q = E.div(mx, my)
        value = E.select(E.bitxor(sx, sy), E.sub(E.u32(0), q), q)
    entry = [N.let("i", E.gid_x())]
    if kernel == "divsi":
        entry += [N.let("x", x), N.let("y", y)]
    entry.append(N.store("out", E.var("i"), value))
    return Program(
        buffers=[
            BufferDecl.read("a", 0, dtype),
            BufferDecl.read("b", 1, dtype),
            BufferDecl.read_write("out", 2, dtype),
        ],
        workgroup_size=(WORKGROUP, 1, 1),
        entry=entry,
    )


def inputs(kernel: str, n: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(7)
    if kernel == "saxpy":
        return rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
    a = rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
    b = rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
    if kernel == "divsi":
        b[::97] = 0  # division by zero: 0
        b[1::89] = np.uint32(0xFFFFFFFF)  # -1, with INT_MIN below: INT_MIN
        a[1::178] = np.uint32(0x80000000)
    return a, b


def oracle(kernel: str, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    if kernel == "add_i32":
        return a + b
    if kernel == "saxpy":
        return np.float32(2.5) * a + b  # numpy float32: one rounding each, like vyre
    x, y = a.view(np.int32).astype(np.int64), b.view(np.int32).astype(np.int64)
    safe = np.where(y == 0, 1, y)
    q = np.abs(x) // np.abs(safe) * np.sign(x) * np.sign(safe)
    return (np.where(y == 0, 0, q) & 0xFFFFFFFF).astype(np.uint32)


class Bound:
    """A program bound to device buffers as `vyre.run` binds it."""

    def __init__(self, program: Program, a: np.ndarray, b: np.ndarray) -> None:
        from vyre.pipeline import prepare
        from vyre.runtime.wgpu_backend import bind
        from vyre.runtime.wgpu_device import Resident, gpu_device

        self.gpu = gpu_device()
        n = len(a)
        words = {"a": a.view(np.uint32), "b": b.view(np.uint32), "out": np.zeros(n, np.uint32)}
        resident = {name: Resident.upload(self.gpu, data) for name, data in words.items()}
        self.resident = resident  # kept alive: a freed Resident goes back to the pool
        self.bound = bind(prepare(program), resident, (-(-n // WORKGROUP), 1, 1))
        self.out = resident["out"].buffer
        self.n = n

    @property
    def vectorised(self) -> bool:
        return self.bound.kernel.vector is not None

    def time(self, reps: int) -> float:
        device = self.gpu.device
        start = time.perf_counter()
        encoder = device.create_command_encoder()
        compute = encoder.begin_compute_pass()
        for _ in range(reps):
            self.bound.record(compute)
        compute.end()
        device.queue.submit([encoder.finish()])
        device.queue.read_buffer(self.out, 0, 4)
        return (time.perf_counter() - start) / reps

    def result(self) -> np.ndarray:
        words = np.frombuffer(self.gpu.device.queue.read_buffer(self.out), dtype=np.uint32)
        return words[: self.n].copy()


def torch_timer(kernel: str, a: np.ndarray, b: np.ndarray) -> Callable[[int], float] | None:
    try:
        torch: Any = importlib.import_module("torch")
    except ImportError:
        return None
    if not torch.cuda.is_available():
        return None
    if kernel == "saxpy":
        x, y = torch.from_numpy(a).cuda(), torch.from_numpy(b).cuda()

        def step() -> object:
            return 2.5 * x + y
    elif kernel == "add_i32":
        x, y = torch.from_numpy(a.view(np.int32)).cuda(), torch.from_numpy(b.view(np.int32)).cuda()

        def step() -> object:
            return x + y
    else:
        x, y = torch.from_numpy(a.view(np.int32)).cuda(), torch.from_numpy(b.view(np.int32)).cuda()
        zero = y == 0
        safe = torch.where(zero, torch.ones_like(y), y)

        def step() -> object:
            return torch.where(zero, torch.zeros_like(x), torch.div(x, safe, rounding_mode="trunc"))

    def timed(reps: int) -> float:
        torch.cuda.synchronize()
        start = time.perf_counter()
        for _ in range(reps):
            step()
        torch.cuda.synchronize()
        return (time.perf_counter() - start) / reps

    return timed


def gbs(seconds: float, n: int) -> str:
    return f"{12 * n / seconds / 1e9:,.0f}"


@quiet_on_closed_pipe
def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=0, help="elements (default: 64 Mi on a GPU, 1 Mi on lavapipe)")
    parser.add_argument("--reps", type=int, default=50)
    parser.add_argument("--trials", type=int, default=7)
    args = parser.parse_args()
    n = args.n or ((1 << 20) if _common.gpu_is_cpu() else (64 << 20))
    reps = max(2, args.reps // 10) if _common.gpu_is_cpu() else args.reps
    rows: list[list[object]] = []
    for kernel in BODIES:
        a, b = inputs(kernel, n)
        expected = oracle(kernel, a, b).view(np.uint32)
        versions = {"converted": Bound(converted(kernel), a, b), "builder": Bound(hand_written(kernel), a, b)}
        for name, version in versions.items():
            version.time(1)
            got = version.result()
            bad = np.flatnonzero(got != expected)
            if bad.size:
                raise SystemExit(f"{kernel} ({name}): {bad.size} wrong elements, first at {bad[0]}")
        timers: dict[str, Callable[[int], float]] = {name: v.time for name, v in versions.items()}
        torch = torch_timer(kernel, a, b)
        if torch is not None:
            timers["torch"] = torch
        samples: dict[str, list[float]] = {name: [] for name in timers}
        for _ in range(args.trials):
            for name, timer in timers.items():
                samples[name].append(timer(reps))
        medians = {name: _common.median(values) for name, values in samples.items()}
        rows.append(
            [
                kernel,
                f"{medians['converted'] * 1e6:,.1f}",
                f"{medians['builder'] * 1e6:,.1f}",
                f"{medians['converted'] / medians['builder']:.3f}",
                gbs(medians["converted"], n),
                f"{medians['torch'] * 1e6:,.1f}" if "torch" in medians else "-",
                "yes" if versions["converted"].vectorised else "no",
            ]
        )
    print(f"convert-to-vyre kernels, n = {n:,}, {reps} dispatches per timing, device: {_common.gpu_name()}")
    print()
    header = ["kernel", "converted µs", "builder µs", "converted/builder", "converted GB/s", "torch µs", "vectorised"]
    print(_common.table(header, rows))


if __name__ == "__main__":
    main()
