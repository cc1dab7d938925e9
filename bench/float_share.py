"""How often torch's and the native WGSL builtins' float functions are not correctly rounded.

    python bench/float_share.py [--ops fexp,flog,...] [--chunk-log2 28] [--pairs-log2 26] [--skip-native]

F32 unary functions: every one of the 2^32 inputs. F16/BF16 unary functions: every input
(torch only: WGSL's builtins are f32). F32 pow and atan2: 2^pairs-log2 random pairs drawn as
`bench/float.py` draws them (atan2: signed values in [0.5, 2); pow: x in [0.5, 2), y in [-16, 16)).

The truth for torch's rows is computed on the GPU in float64 (torch's own float64 function of
the exact float32 input), rounded once to the format; an input whose float64 result lies
within a relative 2^-40 of a rounding boundary (4000 times the float64 function's error
bound; 2^-20 for F16/BF16) is settled exactly on the host by the interpreter's oracle (float64 with a guard band,
MPFR where that cannot decide). The truth for the native rows is vyre's strict kernel on the
same GPU, whose F32 functions were checked against that oracle on every input: the fill,
strict, native and compare kernels run back to back on device buffers, and only a count of
differing results comes back. NaN results are all one value here (any NaN matches any NaN);
everything else is compared bit for bit, so -0 against +0 is a difference.

Columns: inputs, results of torch that differ from the correctly rounded one (count and
share, and the largest distance in units in the last place among the finite ones; `-` when none
 differs by a finite distance), the same for the native WGSL
builtin (the op as `bench/float.py` writes it natively: exp10 as exp2(x * log2(10)), log10
as log2(x) * log10(2)).
"""

from __future__ import annotations

import argparse
import importlib
import time
from typing import Any

import _common  # noqa: F401  # pyright: ignore[reportUnusedImport]  (puts the repository on sys.path)
import numpy as np

from float import WGSL_NATIVE, WORKGROUP, Gpu, grid, native_kernel, native_wgsl, patterns, program, vyre_kernel

from vyre.runtime.interp import floats as oracle

UNARY = ["fexp", "fexp2", "fexp10", "flog", "flog2", "flog10", "fsin", "fcos", "ftan", "fasin", "facos", "fatan",
         "ftanh", "ferf"]
BINARY = ["fatan2", "fpow"]
BAND = {"f32": 2.0 ** -40, "f16": 2.0 ** -20, "bf16": 2.0 ** -20}
"""Relative distance from a rounding boundary under which an input is settled on the host. The
16-bit bands are wide because torch converts float64 to F16/BF16 through float32 (two roundings,
wrong only within 2^-24 of a 16-bit boundary)."""


def torch_fn(torch: Any, op: str) -> Any:
    return {
        "fexp": torch.exp, "fexp2": torch.exp2, "fexp10": lambda x: torch.pow(10.0, x), "flog": torch.log,
        "flog2": torch.log2, "flog10": torch.log10, "fsin": torch.sin, "fcos": torch.cos, "ftan": torch.tan,
        "fasin": torch.asin, "facos": torch.acos, "fatan": torch.atan, "ftanh": torch.tanh, "ferf": torch.erf,
        "fatan2": torch.atan2, "fpow": torch.pow,
    }[op]


class TorchShare:
    """Counts torch's results that are not correctly rounded, chunk by chunk."""

    def __init__(self, torch: Any, op: str, fmt: str) -> None:
        self.torch, self.op, self.fmt = torch, op, fmt
        self.dtype = {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16}[fmt]
        self.itype = torch.int32 if fmt == "f32" else torch.int16
        self.inputs = 0
        self.wrong = 0
        self.worst = 0
        self.settled = 0

    def bits(self, x: Any) -> Any:
        mask = 0xFFFFFFFF if self.fmt == "f32" else 0xFFFF
        return x.view(self.itype).to(self.torch.int64) & mask

    def add(self, *operands: Any) -> None:
        torch, fn = self.torch, torch_fn(self.torch, self.op)
        got = fn(*operands)
        wide = fn(*(x.double() for x in operands))
        truth = wide.to(self.dtype)
        band = BAND[self.fmt]
        up, down = (wide * (1 + band)).to(self.dtype), (wide * (1 - band)).to(self.dtype)
        nan = torch.isnan(wide)
        near = ~nan & ((self.bits(up) != self.bits(truth)) | (self.bits(down) != self.bits(truth)))
        both_nan = torch.isnan(got) & torch.isnan(truth)
        differ = (self.bits(got) != self.bits(truth)) & ~both_nan & ~near
        self.inputs += operands[0].numel()
        self.wrong += int(differ.sum())
        if bool(differ.any()):
            finite = differ & torch.isfinite(got) & torch.isfinite(truth)
            if bool(finite.any()):
                signed = self.bits(got)[finite], self.bits(truth)[finite]
                self.worst = max(self.worst, int(self._ulp(*signed).max()))
        if bool(near.any()):
            self._settle([x[near] for x in operands], got[near])

    def _ulp(self, a: Any, b: Any) -> Any:
        sign = 0x80000000 if self.fmt == "f32" else 0x8000
        def key(x: Any) -> Any:
            return self.torch.where((x & sign) != 0, -(x & (sign - 1)), x)
        return (key(a) - key(b)).abs()

    def _settle(self, operands: list[Any], got: Any) -> None:
        """Inputs near a rounding boundary: the exact oracle on the host."""
        words = [self.bits(x).cpu().numpy().astype(np.uint32) for x in operands]
        name = self.op[1:]
        want = oracle.unary(name, self.fmt, words[0]) if len(words) == 1 else oracle.binary(name, self.fmt, *words)
        have = self.bits(got).cpu().numpy().astype(np.uint32)
        nan_want = np.isnan(oracle.decode(self.fmt, want))
        nan_have = np.isnan(oracle.decode(self.fmt, have))
        differ = (have != np.asarray(want, dtype=np.uint32)) & ~(nan_want & nan_have)
        self.settled += len(have)
        self.wrong += int(np.count_nonzero(differ))

    def row(self) -> list[str]:
        share = self.wrong / self.inputs if self.inputs else 0.0
        return [f"{self.inputs:,}", f"{self.wrong:,}", f"{share:.3%}", str(self.worst) if self.worst else "-",
                f"{self.settled:,}"]


def torch_unary32(torch: Any, op: str, chunk_log2: int, span: int) -> TorchShare:
    share = TorchShare(torch, op, "f32")
    count = min(1 << chunk_log2, span)
    for start in range(0, span, count):
        words = torch.arange(start, start + count, dtype=torch.int64, device="cuda")
        words = torch.where(words >= 1 << 31, words - (1 << 32), words).to(torch.int32)
        share.add(words.view(torch.float32))
        del words
    return share


def torch_unary16(torch: Any, op: str, fmt: str) -> TorchShare:
    share = TorchShare(torch, op, fmt)
    words = torch.arange(0, 1 << 16, dtype=torch.int32, device="cuda")
    words = torch.where(words >= 1 << 15, words - (1 << 16), words).to(torch.int16)
    share.add(words.view(share.dtype))
    return share


def pairs(op: str, n: int) -> tuple[np.ndarray, np.ndarray]:
    a, b = patterns("f32", n, 2, op=op)
    return a, b


def torch_binary32(torch: Any, op: str, a: np.ndarray, b: np.ndarray) -> TorchShare:
    share = TorchShare(torch, op, "f32")
    step = 1 << 24
    for k in range(0, len(a), step):
        x = torch.from_numpy(a[k:k + step].view(np.int32).copy()).cuda().view(torch.float32)
        y = torch.from_numpy(b[k:k + step].view(np.int32).copy()).cuda().view(torch.float32)
        share.add(x, y)
    return share


FILL = """@group(0) @binding(0) var<storage, read_write> a: array<u32>;
@group(0) @binding(1) var<uniform> start: vec4<u32>;
@compute @workgroup_size(256, 1, 1)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
  let i = gid.x + gid.y * ROWu;
  if (i < arrayLength(&a)) { a[i] = start.x + i; }
}
"""

COMPARE = """@group(0) @binding(0) var<storage, read> strict: array<u32>;
@group(0) @binding(1) var<storage, read> native: array<u32>;
@group(0) @binding(2) var<storage, read_write> count: array<atomic<u32>>;
fn is_nan(x: u32) -> bool { return (x & 0x7fffffffu) > 0x7f800000u; }
@compute @workgroup_size(256, 1, 1)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
  let i = gid.x + gid.y * ROWu;
  if (i >= arrayLength(&strict)) { return; }
  let s = strict[i];
  let n = native[i];
  if (s != n && !(is_nan(s) && is_nan(n))) { atomicAdd(&count[0], 1u); }
}
"""


class NativeShare:
    """Counts the native WGSL builtin's results that differ from vyre's strict kernel, on the device."""

    def __init__(self, g: Gpu, op: str, n: int) -> None:
        self.g, self.groups = g, grid(n)
        device, wgpu = g.device, g.wgpu
        row = self.groups[0] * WORKGROUP
        self.native_out = g.buffer(np.zeros(n, dtype=np.uint32))
        self.count = g.buffer(np.zeros(4, dtype=np.uint32))
        self.start = device.create_buffer(size=16, usage=wgpu.BufferUsage.UNIFORM | wgpu.BufferUsage.COPY_DST)
        self.pipelines = {
            name: device.create_compute_pipeline(
                layout="auto",
                compute={"module": device.create_shader_module(code=code.replace("ROW", str(row))), "entry_point": "main"})
            for name, code in (("fill", FILL), ("compare", COMPARE), ("native", native_wgsl(op, row)))
        }

    def buffers(self, strict_a: Any, strict_b: Any | None, strict_out: Any) -> None:
        device = self.g.device
        def group(name: str, buffers: list[Any]) -> Any:
            pipeline = self.pipelines[name]
            entries = [{"binding": k, "resource": {"buffer": b}} for k, b in enumerate(buffers)]
            return device.create_bind_group(layout=pipeline.get_bind_group_layout(0), entries=entries)
        self.groups_of = {
            "fill": group("fill", [strict_a, self.start]),
            "native": group("native", [strict_a, *([strict_b] if strict_b is not None else []), self.native_out]),
            "compare": group("compare", [strict_out, self.native_out, self.count]),
        }

    def submit(self, names: list[str], record_strict: Any) -> None:
        device = self.g.device
        encoder = device.create_command_encoder()
        compute = encoder.begin_compute_pass()
        for name in names:
            if name == "strict":
                record_strict(compute)
                continue
            compute.set_pipeline(self.pipelines[name])
            compute.set_bind_group(0, self.groups_of[name])
            compute.dispatch_workgroups(*self.groups)
        compute.end()
        device.queue.submit([encoder.finish()])

    def total(self) -> int:
        return int(np.frombuffer(self.g.device.queue.read_buffer(self.count), dtype=np.uint32)[0])


def native_unary32(g: Gpu, op: str, chunk_log2: int, span: int) -> tuple[int, int]:
    """(inputs, differing) over the first `span` input words (all 2^32 by default), 2^chunk_log2 per pass."""
    from vyre.pipeline import prepare
    from vyre.runtime.wgpu_backend import bind
    from vyre.runtime.wgpu_device import Resident

    n = 1 << chunk_log2
    groups = grid(n)
    prepared = prepare(program(op, "f32", groups[0] * WORKGROUP))
    resident = {name: Resident.upload(g.gpu, np.zeros(n, dtype=np.uint32)) for name in ("a", "out")}
    bound = bind(prepared, resident, groups)
    share = NativeShare(g, op, n)
    share.buffers(resident["a"].buffer, None, resident["out"].buffer)
    for start in range(0, span, n):
        g.device.queue.write_buffer(share.start, 0, np.array([start, 0, 0, 0], dtype=np.uint32))
        share.submit(["fill", "strict", "native", "compare"], bound.record)
    return span, share.total()


def native_binary32(g: Gpu, op: str, a: np.ndarray, b: np.ndarray) -> tuple[int, int]:
    """(pairs, differing): the strict and native kernels on the same uploaded pairs."""
    strict_time, strict_result, _ = vyre_kernel(g, op, "f32", len(a), [a, b])
    strict_time(1)
    want = strict_result()
    native_time, native_result = native_kernel(g, op, len(a), [a, b])
    native_time(1)
    have = native_result()
    nan = lambda x: (x & 0x7FFFFFFF) > 0x7F800000  # noqa: E731
    return len(a), int(np.count_nonzero((want != have) & ~(nan(want) & nan(have))))


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--ops", default=",".join(UNARY + BINARY))
    parser.add_argument("--chunk-log2", type=int, default=28, help="inputs per torch chunk, log2 (default: %(default)s)")
    parser.add_argument("--native-chunk-log2", type=int, default=26, help="inputs per native pass, log2 (default: %(default)s)")
    parser.add_argument("--pairs-log2", type=int, default=26, help="random F32 pairs of pow/atan2, log2 (default: %(default)s)")
    parser.add_argument("--span-log2", type=int, default=32, help="F32 unary: the first 2^N input words (default: all, %(default)s)")
    parser.add_argument("--skip-native", action="store_true")
    parser.add_argument("--skip-torch", action="store_true")
    args = parser.parse_args()
    from _common import gpu_name, table

    torch: Any = None if args.skip_torch else importlib.import_module("torch")
    g = None if args.skip_native else Gpu()
    rows: list[list[str]] = []
    device = f"{gpu_name()}" + (f" / torch {torch.cuda.get_device_name()}" if torch is not None else "")
    for op in args.ops.split(","):
        formats = ["f32", "f16", "bf16"]
        for fmt in formats:
            started = time.perf_counter()
            t = n = None
            if op in BINARY:
                if fmt != "f32":
                    continue
                a, b = pairs(op, 1 << args.pairs_log2)
                t = torch_binary32(torch, op, a, b) if torch is not None else None
                n = native_binary32(g, op, a, b) if g is not None and op in WGSL_NATIVE else None
            elif fmt == "f32":
                t = torch_unary32(torch, op, args.chunk_log2, 1 << args.span_log2) if torch is not None else None
                n = native_unary32(g, op, min(args.native_chunk_log2, args.span_log2), 1 << args.span_log2) if g is not None and op in WGSL_NATIVE else None
            else:
                t = torch_unary16(torch, op, fmt) if torch is not None else None
            torch_cols = t.row() if t is not None else ["-"] * 5
            native_cols = ["-", "-"] if n is None else [f"{n[1]:,}", f"{n[1] / n[0]:.3%}"]
            rows.append([f"{fmt} {op[1:]}", *torch_cols, *native_cols, f"{time.perf_counter() - started:.1f}"])
            print(rows[-1], flush=True)
    print(f"\ndevice: {device}\n")
    print(table(["function", "inputs", "torch not CR", "torch share", "torch worst ulp", "settled on host",
                 "native not CR", "native share", "seconds"], rows))


if __name__ == "__main__":
    main()
