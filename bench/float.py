"""Benchmark (e): strict float kernels against PyTorch on the same GPU, same run.

    python bench/float.py [--n N] [--reps 20] [--trials 7] [--ops fadd,fmul,...]

Each row is one elementwise kernel over n elements: vyre's strict kernel
(`out[i] = op(a[i], b[i])`, lowered through float-strict: integer soft-float,
no float instruction), the same op in PyTorch on CUDA tensors (when torch with
CUDA is present) and, for reference, the op written natively in WGSL (f32
hardware arithmetic: not strict; its wrong results against the exact oracle are
counted). Timings are the median of alternating trials of `--reps` dispatches
(PyTorch: `--reps` launches then a synchronisation). The strict results are
checked bit for bit against the reference interpreter's exact floats.

GB/s counts the bytes each element reads and writes (12 for a binary op, 16 for
fma, 8 for sqrt; half of that for F16/BF16).
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import _common  # noqa: F401  (puts the repository on sys.path)
import numpy as np

from vyre.ir import BufferDecl, DataType, Expr as E, Node as N, Program
from vyre.runtime.interp import floats as oracle

WORKGROUP = 256
MAX_GROUPS_X = 32768

OPS: dict[str, tuple[int, Callable[..., E]]] = {
    "fadd": (2, E.fadd),
    "fmul": (2, E.fmul),
    "fdiv": (2, E.fdiv),
    "fma": (3, E.fma),
    "fsqrt": (1, E.fsqrt),
}
TYPES = {"f32": DataType.F32, "f16": DataType.F16, "bf16": DataType.BF16}
WGSL_NATIVE = {
    "fadd": "a[i] + b[i]",
    "fmul": "a[i] * b[i]",
    "fdiv": "a[i] / b[i]",
    "fma": "fma(a[i], b[i], c[i])",
    "fsqrt": "sqrt(a[i])",
}


def grid(n: int) -> tuple[int, int, int]:
    groups = -(-n // WORKGROUP)
    x = min(groups, MAX_GROUPS_X)
    return (x, -(-groups // x), 1)


def program(op: str, fmt: str, row: int) -> Program:
    arity, build = OPS[op]
    ty = TYPES[fmt]
    names = "abc"[:arity]
    i = E.var("i")
    return Program(
        buffers=[
            *(BufferDecl.read(name, k, ty) for k, name in enumerate(names)),
            BufferDecl.read_write("out", arity, ty),
        ],
        workgroup_size=(WORKGROUP, 1, 1),
        entry=[
            N.let("i", E.add(E.invocation_id(0), E.mul(E.invocation_id(1), E.u32(row)))),
            N.store("out", i, build(*(E.load(name, i) for name in names))),
        ],
        name=f"bench_{fmt}_{op}",
    )


def native_wgsl(op: str, row: int) -> str:
    arity = OPS[op][0]
    names = "abc"[:arity]
    decls = "\n".join(
        f"@group(0) @binding({k}) var<storage, read> {name}: array<f32>;" for k, name in enumerate(names)
    )
    return f"""{decls}
@group(0) @binding({arity}) var<storage, read_write> out: array<f32>;
@compute @workgroup_size({WORKGROUP}, 1, 1)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {{
  let i = gid.x + gid.y * {row}u;
  if (i < arrayLength(&out)) {{ out[i] = {WGSL_NATIVE[op]}; }}
}}
"""


def patterns(fmt: str, n: int, arity: int, seed: int = 1) -> list[np.ndarray]:
    """Random finite operands of moderate magnitude (uint32 words of the patterns)."""
    rng = np.random.default_rng(seed)
    signs = rng.choice([-1.0, 1.0], n) if arity > 1 else 1.0  # sqrt: non-negative operands
    values = [rng.uniform(0.5, 2.0, n) * signs for _ in range(arity)]
    if fmt == "f32":
        return [v.astype(np.float32).view(np.uint32) for v in values]
    return [np.asarray(oracle.encode(fmt, v), dtype=np.uint32) for v in values]


def packed(fmt: str, words: np.ndarray) -> np.ndarray:
    """Host words of a buffer: F16/BF16 two per word."""
    if fmt == "f32":
        return words
    halves = words.astype(np.uint32)
    if len(halves) % 2:
        halves = np.append(halves, np.uint32(0))
    return halves[0::2] | (halves[1::2] << np.uint32(16))


class Gpu:
    def __init__(self) -> None:
        import wgpu

        from vyre.runtime.wgpu_device import gpu_device

        self.wgpu = wgpu
        self.gpu = gpu_device()
        self.device = self.gpu.device

    def buffer(self, data: np.ndarray) -> object:
        usage = self.wgpu.BufferUsage.STORAGE | self.wgpu.BufferUsage.COPY_DST | self.wgpu.BufferUsage.COPY_SRC
        buffer = self.device.create_buffer(size=max(4, data.nbytes), usage=usage)
        self.device.queue.write_buffer(buffer, 0, data)
        return buffer

    def time(self, pipeline: object, bind_group: object, groups: tuple[int, int, int], out: object, reps: int) -> float:
        start = time.perf_counter()
        encoder = self.device.create_command_encoder()
        compute = encoder.begin_compute_pass()
        compute.set_pipeline(pipeline)
        compute.set_bind_group(0, bind_group)
        for _ in range(reps):
            compute.dispatch_workgroups(*groups)
        compute.end()
        self.device.queue.submit([encoder.finish()])
        self.device.queue.read_buffer(out, 0, 4)
        return (time.perf_counter() - start) / reps


def vyre_kernel(g: Gpu, op: str, fmt: str, n: int, inputs: list[np.ndarray]) -> tuple[Callable[[int], float], Callable[[], np.ndarray]]:
    from vyre.pipeline import lowered

    groups = grid(n)
    low = lowered(program(op, fmt, groups[0] * WORKGROUP))
    pipeline = g.gpu.pipeline(low, f"strict {fmt} {op}")
    words = {name: packed(fmt, data) for name, data in zip("abc", inputs)}
    words["out"] = np.zeros_like(words["a"])
    buffers = {name: g.buffer(data) for name, data in words.items()}
    meta = np.array(low.meta.pack((0, 0, 0), tuple(n for _ in low.buffers)), dtype=np.uint32)
    meta_buffer = g.device.create_buffer(size=meta.nbytes, usage=g.wgpu.BufferUsage.UNIFORM | g.wgpu.BufferUsage.COPY_DST)
    g.device.queue.write_buffer(meta_buffer, 0, meta)
    entries = [{"binding": b.binding, "resource": {"buffer": buffers[b.name]}} for b in low.buffers]
    entries.append({"binding": low.meta.binding, "resource": {"buffer": meta_buffer}})
    bind_group = g.device.create_bind_group(layout=pipeline.bind_group_layout, entries=entries)

    def result() -> np.ndarray:
        out = np.frombuffer(g.device.queue.read_buffer(buffers["out"]), dtype=np.uint32)
        if fmt == "f32":
            return out[:n]
        return np.stack([out & 0xFFFF, out >> 16], axis=1).reshape(-1)[:n]

    return (lambda reps: g.time(pipeline.pipeline, bind_group, groups, buffers["out"], reps)), result


def native_kernel(g: Gpu, op: str, n: int, inputs: list[np.ndarray]) -> tuple[Callable[[int], float], Callable[[], np.ndarray]]:
    groups = grid(n)
    module = g.device.create_shader_module(code=native_wgsl(op, groups[0] * WORKGROUP))
    pipeline = g.device.create_compute_pipeline(layout="auto", compute={"module": module, "entry_point": "main"})
    buffers = [g.buffer(data) for data in inputs] + [g.buffer(np.zeros(n, dtype=np.uint32))]
    entries = [{"binding": k, "resource": {"buffer": b}} for k, b in enumerate(buffers)]
    bind_group = g.device.create_bind_group(layout=pipeline.get_bind_group_layout(0), entries=entries)

    def result() -> np.ndarray:
        return np.frombuffer(g.device.queue.read_buffer(buffers[-1]), dtype=np.uint32)[:n]

    return (lambda reps: g.time(pipeline, bind_group, groups, buffers[-1], reps)), result


def torch_kernel(op: str, fmt: str, inputs: list[np.ndarray]) -> Callable[[int], float] | None:
    try:
        import torch
    except ImportError:
        return None
    if not torch.cuda.is_available():
        return None
    dtype = {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16}[fmt]
    if fmt == "f32":
        tensors = [torch.from_numpy(x.view(np.float32).copy()).cuda() for x in inputs]
    else:
        tensors = [torch.from_numpy(x.astype(np.uint16).view(np.int16).copy()).cuda().view(dtype) for x in inputs]
    out = torch.empty_like(tensors[0])
    run = {
        "fadd": lambda: torch.add(tensors[0], tensors[1], out=out),
        "fmul": lambda: torch.mul(tensors[0], tensors[1], out=out),
        "fdiv": lambda: torch.div(tensors[0], tensors[1], out=out),
        "fma": lambda: torch.addcmul(tensors[2], tensors[0], tensors[1], out=out),
        "fsqrt": lambda: torch.sqrt(tensors[0], out=out),
    }[op]

    def timed(reps: int) -> float:
        torch.cuda.synchronize()
        start = time.perf_counter()
        for _ in range(reps):
            run()
        torch.cuda.synchronize()
        return (time.perf_counter() - start) / reps

    return timed


def exact(op: str, fmt: str, inputs: list[np.ndarray]) -> np.ndarray:
    if op == "fma":
        return oracle.fma(fmt, *inputs)
    if op == "fsqrt":
        return oracle.unary("sqrt", fmt, inputs[0])
    return oracle.binary(op[1:], fmt, *inputs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, help="elements (default: 64 Mi on a GPU, 1 Mi on a CPU device)")
    parser.add_argument("--reps", type=int, default=20)
    parser.add_argument("--trials", type=int, default=7)
    parser.add_argument("--ops", default="fadd,fmul,fma,fdiv,fsqrt")
    parser.add_argument("--formats", default="f32,f16,bf16")
    args = parser.parse_args()

    from _common import gpu_is_cpu, gpu_name, median, table

    n = args.n or (1 << 20 if gpu_is_cpu() else 1 << 26)
    reps = args.reps if not gpu_is_cpu() else max(1, args.reps // 10)
    g = Gpu()
    rows = []
    for fmt in args.formats.split(","):
        for op in args.ops.split(","):
            arity = OPS[op][0]
            inputs = patterns(fmt, n, arity)
            want = exact(op, fmt, inputs)
            strict_time, strict_result = vyre_kernel(g, op, fmt, n, inputs)
            strict_time(1)
            wrong = int(np.count_nonzero(strict_result() != want))
            kernels: dict[str, Callable[[int], float]] = {"strict": strict_time}
            native_wrong = "-"
            if fmt == "f32":
                native_time, native_result = native_kernel(g, op, n, inputs)
                native_time(1)
                native_wrong = f"{np.count_nonzero(native_result() != want) / n:.1%}"
                kernels["native"] = native_time
            torch_time = torch_kernel(op, fmt, inputs)
            if torch_time is not None:
                kernels["torch"] = torch_time
            for kernel in kernels.values():  # warm up
                kernel(reps)
            samples: dict[str, list[float]] = {name: [] for name in kernels}
            for _ in range(args.trials):
                for name, kernel in kernels.items():
                    samples[name].append(kernel(reps))
            times = {name: median(values) for name, values in samples.items()}
            width = 4 if fmt == "f32" else 2
            traffic = width * n * (arity + 1)
            gbs = {name: traffic / t / 1e9 for name, t in times.items()}
            rows.append([
                f"{fmt} {op}", gpu_name(), f"{n:,}",
                f"{gbs['strict']:,.0f}", f"{gbs['torch']:,.0f}" if "torch" in gbs else "-",
                f"{times['torch'] / times['strict']:.2f}" if "torch" in times else "-",
                f"{gbs['native']:,.0f}" if "native" in gbs else "-", native_wrong, wrong,
            ])
            print(rows[-1], flush=True)
    print(table(
        ["kernel", "device", "elements", "strict GB/s", "torch GB/s", "strict/torch",
         "native WGSL GB/s", "native wrong bits", "strict mismatches"],
        rows,
    ))


if __name__ == "__main__":
    main()
