"""Benchmark (e): strict float kernels against PyTorch on the same GPU, same run.

    python bench/float.py [--n N] [--reps 20] [--trials 7] [--ops fadd,fmul,...] [--sums-only | --no-sums]

Each elementwise row is one kernel over n elements (default 64 Mi on a GPU):
vyre's strict kernel (`out[i] = op(a[i], b[i])`, lowered through float-strict:
integer soft-float, no float instruction), bound and dispatched exactly as
`vyre.run` dispatches it (`wgpu_backend.bind`: the vectorised map lowering,
8 elements per invocation; column `vectorised`), the same op in PyTorch on CUDA
tensors (when torch with CUDA is present) and, for reference, the op written
natively in WGSL (f32 hardware arithmetic: not strict; its wrong results
against the exact oracle are counted; erf has no WGSL builtin, so its row has
no native column; `bench/float_share.py` counts the native builtins' and torch's wrong results
over every F32 input). Timings are the median of alternating
trials of `--reps` dispatches (PyTorch: `--reps` launches then a
synchronisation). Every strict result word is compared with the reference
interpreter's exact floats ("strict mismatches" must be 0).

Columns: the op's cost in integer operations per element (`IR ops`: the
soft-float program; `WGSL ops`: what its lowered shader adds to a copy kernel,
`vyre.conform.float_cost`; for an op with a fast path, F32 add, sub, mul, div,
sqrt and fma, those of the fast path, which the benchmark's operands take), GB/s (the bytes each element reads and writes: 12
for a binary op and pow (x in [0.5, 2), y in [-16, 16)), 16 for fma, 8 for sqrt
and the functions (exp2, exp, exp10, log, log2, log10, sin, cos, tan, tanh, erf,
on operands in [0.5, 2)); half of
that for F16/BF16), the integer operations per second that makes (`int Tops/s`;
an H100 SXM issues about 16.7 T INT32 ops/s), and what limits the row:

- `memory`: the strict kernel runs within 15 % of the native WGSL kernel of the
  same access pattern, so its integer work is hidden behind memory access;
- `integer issue`: it runs slower than that: the soft-float's integer work is
  the limit (cut the ops per element);
- `CAS stores + integer issue`: F16/BF16 rows run by the scalar lowering, whose
  shader stores each half word with an atomic compare-exchange loop (the
  vectorised form stores whole words), which costs more than the arithmetic.

The sum rows run `reductions.f32_sum_tree` (the canonical tree) over the same
n and `reductions.f32_sum_strict` (left to right: one invocation, so latency
bound; over `--strict-n` elements) against `torch.sum`, each result checked
against numpy float32 additions in the op's order.
"""

from __future__ import annotations

import argparse
import importlib
import time
from collections.abc import Callable
from typing import Any

import _common  # noqa: F401  # pyright: ignore[reportUnusedImport]  (puts the repository on sys.path)
import numpy as np

from vyre.ir import BufferDecl, DataType, Expr as E, Node as N, Program
from vyre.runtime.interp import floats as oracle
from vyre.cli.pipes import quiet_on_closed_pipe

WORKGROUP = 256
MAX_GROUPS_X = 32768

OPS: dict[str, tuple[int, Callable[..., E]]] = {
    "fadd": (2, E.fadd),
    "fmul": (2, E.fmul),
    "fdiv": (2, E.fdiv),
    "fma": (3, E.fma),
    "fsqrt": (1, E.fsqrt),
    "fexp2": (1, E.fexp2),
    "fexp": (1, E.fexp),
    "fexp10": (1, E.fexp10),
    "flog": (1, E.flog),
    "flog2": (1, E.flog2),
    "flog10": (1, E.flog10),
    "fsin": (1, E.fsin),
    "fcos": (1, E.fcos),
    "ftan": (1, E.ftan),
    "fasin": (1, E.fasin),
    "facos": (1, E.facos),
    "fatan": (1, E.fatan),
    "fatan2": (2, E.fatan2),
    "ftanh": (1, E.ftanh),
    "ferf": (1, E.ferf),
    "fpow": (2, E.fpow),
}
TYPES = {"f32": DataType.F32, "f16": DataType.F16, "bf16": DataType.BF16}
WGSL_NATIVE = {
    "fadd": "a[i] + b[i]",
    "fmul": "a[i] * b[i]",
    "fdiv": "a[i] / b[i]",
    "fma": "fma(a[i], b[i], c[i])",
    "fsqrt": "sqrt(a[i])",
    "fexp2": "exp2(a[i])",
    "fexp": "exp(a[i])",
    "fexp10": "exp2(a[i] * 3.321928094887362)",
    "flog": "log(a[i])",
    "flog2": "log2(a[i])",
    "flog10": "log2(a[i]) * 0.30102999566398120",
    "fsin": "sin(a[i])",
    "fcos": "cos(a[i])",
    "ftan": "tan(a[i])",
    "fasin": "asin(a[i])",
    "facos": "acos(a[i])",
    "fatan": "atan(a[i])",
    "fatan2": "atan2(a[i], b[i])",
    "ftanh": "tanh(a[i])",
    "fpow": "pow(a[i], b[i])",
}
"""The op in native WGSL (f32 hardware; WGSL has no erf)."""
RANGES: dict[str, tuple[tuple[float, float], ...]] = {"fpow": ((0.5, 2.0), (-16.0, 16.0))}
"""Operand ranges of the ops whose operands are not signed values in [0.5, 2)
(pow: x in [0.5, 2), y in [-16, 16), so that the results are finite numbers)."""


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


DOMAIN = {"fasin": 0.5, "facos": 0.5}
"""Scale of the operands where [0.5, 2) leaves the function's domain (asin, acos: [0.25, 1))."""


def patterns(fmt: str, n: int, arity: int, seed: int = 1, op: str = "") -> list[np.ndarray]:
    """Random finite operands of moderate magnitude (uint32 words of the patterns)."""
    rng = np.random.default_rng(seed)
    if op in RANGES:
        values = [rng.uniform(low, high, n) for low, high in RANGES[op]]
    else:
        signs = rng.choice([-1.0, 1.0], n) if arity > 1 else 1.0  # sqrt: non-negative operands
        values = [rng.uniform(0.5, 2.0, n) * signs * DOMAIN.get(op, 1.0) for _ in range(arity)]
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
        from vyre.runtime.wgpu_device import gpu_device

        self.wgpu: Any = importlib.import_module("wgpu")
        self.gpu = gpu_device()
        self.device: Any = self.gpu.device

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


def vyre_kernel(g: Gpu, op: str, fmt: str, n: int, inputs: list[np.ndarray]) -> tuple[Callable[[int], float], Callable[[], np.ndarray], bool]:
    """The strict kernel bound and dispatched exactly as `vyre.run` dispatches it
    (`wgpu_backend.bind`: the vectorised map lowering where the program is a map,
    so F16/BF16 outputs are plain word stores); returns (time, result, vectorised)."""
    from vyre.pipeline import prepare
    from vyre.runtime.wgpu_backend import bind
    from vyre.runtime.wgpu_device import Resident

    groups = grid(n)
    prepared = prepare(program(op, fmt, groups[0] * WORKGROUP))
    words = {name: packed(fmt, data) for name, data in zip("abc", inputs)}
    words["out"] = np.zeros_like(words["a"])
    resident = {name: Resident.upload(g.gpu, data) for name, data in words.items()}
    lengths = None if fmt == "f32" else {name: n for name in words}
    bound = bind(prepared, resident, groups, lengths=lengths)
    out_buffer = resident["out"].buffer

    def timed(reps: int) -> float:
        start = time.perf_counter()
        encoder = g.device.create_command_encoder()
        compute = encoder.begin_compute_pass()
        for _ in range(reps):
            bound.record(compute)
        compute.end()
        g.device.queue.submit([encoder.finish()])
        g.device.queue.read_buffer(out_buffer, 0, 4)
        return (time.perf_counter() - start) / reps

    def result() -> np.ndarray:
        out = np.frombuffer(g.device.queue.read_buffer(out_buffer), dtype=np.uint32)
        if fmt == "f32":
            return out[:n]
        return np.stack([out & 0xFFFF, out >> 16], axis=1).reshape(-1)[:n]

    return timed, result, bound.kernel.vector is not None


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
        torch: Any = importlib.import_module("torch")
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
    run: Callable[[], object] = {
        "fadd": lambda: torch.add(tensors[0], tensors[1], out=out),
        "fmul": lambda: torch.mul(tensors[0], tensors[1], out=out),
        "fdiv": lambda: torch.div(tensors[0], tensors[1], out=out),
        "fma": lambda: torch.addcmul(tensors[2], tensors[0], tensors[1], out=out),
        "fsqrt": lambda: torch.sqrt(tensors[0], out=out),
        "fexp2": lambda: torch.exp2(tensors[0], out=out),
        "fexp": lambda: torch.exp(tensors[0], out=out),
        "fexp10": lambda: torch.pow(10.0, tensors[0], out=out),
        "flog": lambda: torch.log(tensors[0], out=out),
        "flog2": lambda: torch.log2(tensors[0], out=out),
        "flog10": lambda: torch.log10(tensors[0], out=out),
        "fsin": lambda: torch.sin(tensors[0], out=out),
        "fcos": lambda: torch.cos(tensors[0], out=out),
        "ftan": lambda: torch.tan(tensors[0], out=out),
        "fasin": lambda: torch.asin(tensors[0], out=out),
        "facos": lambda: torch.acos(tensors[0], out=out),
        "fatan": lambda: torch.atan(tensors[0], out=out),
        "fatan2": lambda: torch.atan2(tensors[0], tensors[1], out=out),
        "ftanh": lambda: torch.tanh(tensors[0], out=out),
        "ferf": lambda: torch.erf(tensors[0], out=out),
        "fpow": lambda: torch.pow(tensors[0], tensors[1], out=out),
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
    if op in OPS and OPS[op][0] == 1:
        return oracle.unary(op[1:], fmt, inputs[0])
    return oracle.binary(op[1:], fmt, *inputs)


def gb(value: float) -> str:
    """GB/s with 3 significant digits (lavapipe figures are small)."""
    return f"{value:,.0f}" if value >= 100 else f"{value:.3g}"


def limit(strict_gbs: float, native_gbs: float | None, wgsl: str, vectorised: bool = False) -> str:
    if "atomicCompareExchange" in wgsl and not vectorised:
        return "CAS stores + integer issue"
    if native_gbs is not None and strict_gbs >= 0.85 * native_gbs:
        return "memory"
    return "integer issue"


def tree_sum(x: np.ndarray) -> np.float32:
    """The canonical tree (docs/tensors.md), by stride doubling: x[i] += x[i + 2**k]
    for i a multiple of 2**(k+1) with i + 2**k < n (numpy float32 additions)."""
    level = x.astype(np.float32).copy()
    n, stride = len(level), 1
    with np.errstate(all="ignore"):
        while stride < n:
            left = np.arange(0, n - stride, 2 * stride)
            level[left] += level[left + stride]
            stride *= 2
    return level[0]


def sum_rows(n: int, strict_n: int, reps: int, trials: int) -> list[list[str]]:
    """reductions.f32_sum_tree / f32_sum_strict against torch.sum, results checked."""
    import vyre
    from vyre import ops

    from _common import gpu_name, median
    from kernels import torch_time, vyre_time

    def left_to_right(v: np.ndarray) -> np.float32:
        return np.float32(np.add.accumulate(v, dtype=np.float32)[-1])

    rng = np.random.default_rng(3)
    rows: list[list[str]] = []
    cases: list[tuple[str, int, Callable[[np.ndarray], np.float32]]] = [
        ("reductions.f32_sum_tree", n, tree_sum),
        ("reductions.f32_sum_strict", strict_n, left_to_right),
    ]
    for op_id, count, want in cases:
        x = rng.standard_normal(count).astype(np.float32)
        device = vyre.to_device(x)
        got = np.asarray(next(iter(ops.evaluate_raw(op_id, [device]).values()))).view(np.uint32)[0]
        expected = np.float32(want(x)).view(np.uint32)
        repeat = reps if op_id.endswith("tree") else 1
        timed = vyre_time(op_id, [device], repeat)
        timed()
        t = median([timed() for _ in range(trials)])
        peer = torch_time(lambda t_: (lambda: t_.sum()), x, reps)
        pt = median([peer() for _ in range(trials)]) if peer is not None else None
        gbs = 4 * count / t / 1e9
        rows.append([
            op_id.removeprefix("reductions.") + " / torch.sum", gpu_name(), f"{count:,}", "-", "-", "-",
            gb(gbs), gb(4 * count / pt / 1e9) if pt else "-", f"{pt / t:.3f}" if pt else "-", "-", "-", "-",
            "0" if int(got) == int(expected) else f"WRONG {int(got):#x} != {int(expected):#x}",
            "memory" if op_id.endswith("tree") else "latency (one invocation, left to right)",
        ])
        print(rows[-1], flush=True)
    return rows


@quiet_on_closed_pipe
def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--n", type=int, help="elements (default: 64 Mi on a GPU, 1 Mi on a CPU device)")
    parser.add_argument("--reps", type=int, default=20)
    parser.add_argument("--trials", type=int, default=7)
    parser.add_argument("--ops", default="fadd,fmul,fma,fdiv,fsqrt")
    parser.add_argument("--formats", default="f32,f16,bf16")
    parser.add_argument("--strict-n", type=int, help="elements of the left-to-right sum (default 1 Mi; 64 Ki on a CPU)")
    parser.add_argument("--no-sums", action="store_true")
    parser.add_argument("--sums-only", action="store_true")
    args = parser.parse_args()

    from _common import gpu_is_cpu, gpu_name, median, table

    from vyre.conform.float_cost import wgsl_cost

    n = args.n or (1 << 20 if gpu_is_cpu() else 1 << 26)
    reps = args.reps if not gpu_is_cpu() else max(1, args.reps // 10)
    g = Gpu()
    print(f"{gpu_name()}: {'64-bit integers (shader-int64)' if g.gpu.int64 else 'portable lowering (no 64-bit integers; VYRE_INT64=0 or not offered)'}", flush=True)
    rows: list[list[str]] = []
    formats: list[str] = [] if args.sums_only else args.formats.split(",")
    for fmt in formats:
        for op in args.ops.split(","):
            arity = OPS[op][0]
            inputs = patterns(fmt, n, arity, op=op)
            want = exact(op, fmt, inputs)
            strict_time, strict_result, vectorised = vyre_kernel(g, op, fmt, n, inputs)
            strict_time(1)
            wrong = int(np.count_nonzero(strict_result() != want))
            kernels: dict[str, Callable[[int], float]] = {"strict": strict_time}
            native_wrong = "-"
            if fmt == "f32" and op in WGSL_NATIVE:
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
            cost = wgsl_cost(op, fmt, g.gpu.int64)
            from vyre.pipeline import lowered

            shader = lowered(program(op, fmt, grid(n)[0] * WORKGROUP)).wgsl
            rows.append([
                f"{fmt} {op}", gpu_name(), f"{n:,}", "yes" if vectorised else "no", str(cost.ir), str(cost.total),
                gb(gbs["strict"]), gb(gbs["torch"]) if "torch" in gbs else "-",
                f"{times['torch'] / times['strict']:.2f}" if "torch" in times else "-",
                f"{cost.total * n / times['strict'] / 1e12:.2f}",
                gb(gbs["native"]) if "native" in gbs else "-", native_wrong, str(wrong),
                limit(gbs["strict"], gbs.get("native"), shader, vectorised),
            ])
            print(rows[-1], flush=True)
    if not args.no_sums:
        rows += sum_rows(n, args.strict_n or (1 << 16 if gpu_is_cpu() else 1 << 20), reps, args.trials)
    print(table(
        ["kernel", "device", "elements", "vectorised", "IR ops", "WGSL ops", "strict GB/s", "torch GB/s", "strict/torch",
         "int Tops/s", "native WGSL GB/s", "native wrong", "strict mismatches", "limit"],
        rows,
    ))


if __name__ == "__main__":
    main()
