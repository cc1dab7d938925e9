"""Benchmark (a): a lowered elementwise kernel against the same kernel written by
hand in WGSL and against PyTorch on CUDA, measured in the same run.

    python bench/elementwise.py [--n N] [--reps 50] [--trials 9] [--kernel xor|mix|calls|fadd|fmul|all]

The vyre kernel is the program below, dispatched exactly as `vyre.run` would
dispatch it (`vyre.runtime.wgpu_backend.bind`): these programs are elementwise
maps, so the runtime runs their vectorised lowering (vyre/lowering/vector.py:
8 elements per invocation as two vec4 chunks strided by the 256 invocations of
a workgroup, exact scalar tail) over ceil(n / 2048) workgroups. The hand-written WGSL is the scalar kernel (one
element per invocation, 256 per workgroup, 2-D dispatch). Both run on the same
device buffers. Each timing records `--reps` dispatches in one compute pass,
one submit and a 4-byte readback (to wait for the GPU); PyTorch (when torch
with CUDA is present) runs `--reps` launches then a synchronisation. Trials
alternate between the versions and medians are reported. hand/lowered and
torch/lowered are speeds relative to the lowered kernel (1.0 = as fast; the
target on the H100 is torch/lowered <= 1/0.95, i.e. lowered >= 0.95 of torch).
Every version's result is checked against numpy before timing.

Kernels (n elements; the program's index is `id.x + id.y * row`, 256
invocations per workgroup, 2-D grid so that no axis exceeds 32768 workgroups):
  xor: out[i] = a[i] ^ b[i]
  mix: out[i] = ((a[i] ^ b[i]) * 0x9E3779B1) + (a[i] >> (b[i] & 31)) + (b[i] / ((a[i] & 7) + 1))
  calls: ten chained standard-library calls (the zero-overhead benchmark of inlining):
         add, xor, rotl, mul, min, max, sub_sat, add_sat, avg_floor, abs_diff —
         built with E.call, inlined by inline-calls; the hand-written WGSL spells
         the same computation directly.
  fadd, fmul: strict f32 `out[i] = a[i] + b[i]` / `a[i] * b[i]` (float-strict:
         integer soft-float, no float instruction); no hand-written version
         (native WGSL floats are not strict: bench/float.py compares them).

PyTorch: xor is `torch.bitwise_xor` on int32 tensors and fadd/fmul `torch.add`
/ `torch.mul` on float32 (one kernel each, like for like). mix and calls have
no single torch op: they are written with int64 tensors and masks (exact u32
semantics, several kernels and wider temporaries), as a torch user would.
GB/s counts 12 bytes per element (two reads and one write) for every version.
The last column compares every lowered kernel with torch's xor bandwidth (the
like-for-like peer of the same 12 bytes per element): the torch column of mix
and calls is int64 eager torch, several kernels, not a bandwidth peer.
"""

from __future__ import annotations

import argparse
import time

import _common  # noqa: F401  (puts the repository on sys.path)
import numpy as np

from vyre.ir import BufferDecl, DataType, Expr as E, Node as N, Program
from vyre.cli.pipes import quiet_on_closed_pipe

WORKGROUP = 256
MAX_GROUPS_X = 32768
MIX_MULTIPLIER = 0x9E37_79B1


def grid(n: int) -> tuple[int, int, int]:
    groups = -(-n // WORKGROUP)
    x = min(groups, MAX_GROUPS_X)
    return (x, -(-groups // x), 1)


FLOAT_KERNELS = {"fadd": E.fadd, "fmul": E.fmul}
KERNELS = ("xor", "mix", "calls", "fadd", "fmul")


def vyre_program(kernel: str, row: int) -> Program:
    """`row` = invocations per row of the 2-D grid (groups_x * 256)."""
    i = E.var("i")
    a, b = E.var("x"), E.var("y")
    dtype = DataType.F32 if kernel in FLOAT_KERNELS else DataType.U32
    if kernel in FLOAT_KERNELS:
        value = FLOAT_KERNELS[kernel](a, b)
    elif kernel == "xor":
        value = E.bitxor(a, b)
    elif kernel == "calls":
        value = chained_calls(a, b)
    else:
        value = E.add(
            E.add(
                E.mul(E.bitxor(a, b), E.u32(MIX_MULTIPLIER)),
                E.shr(a, E.bitand(b, E.u32(31))),
            ),
            E.div(b, E.add(E.bitand(a, E.u32(7)), E.u32(1))),
        )
    return Program(
        buffers=[
            BufferDecl.read("a", 0, dtype),
            BufferDecl.read("b", 1, dtype),
            BufferDecl.read_write("out", 2, dtype),
        ],
        workgroup_size=(WORKGROUP, 1, 1),
        entry=[
            N.let("i", E.add(E.invocation_id(0), E.mul(E.invocation_id(1), E.u32(row)))),
            N.let("x", E.load("a", i)),
            N.let("y", E.load("b", i)),
            N.store("out", i, value),
        ],
        name=f"bench_{kernel}",
    )


CHAIN = (
    "primitive.math.add",
    "primitive.bitwise.xor",
    "primitive.bitwise.rotl",
    "primitive.math.mul",
    "primitive.math.min",
    "primitive.math.max",
    "primitive.math.sub_sat",
    "primitive.math.add_sat",
    "primitive.math.avg_floor",
    "primitive.math.abs_diff",
)
CHAIN_SECOND = ("y", "x", "y", "golden", "x", "y", "x", "y", "x", "y")


def chained_calls(x: E, y: E) -> E:
    """v = op_k(v, second_k) for the ten ops of CHAIN, starting from v = x."""
    operands = {"x": x, "y": y, "golden": E.u32(MIX_MULTIPLIER)}
    value = x
    for op_id, second in zip(CHAIN, CHAIN_SECOND, strict=True):
        value = E.call(op_id, [value, operands[second]])
    return value


HAND_CHAIN = """
    var v = x + y;
    v = v ^ x;
    let r = y & 31u;
    v = (v << r) | (v >> ((32u - r) & 31u));
    v = v * {golden}u;
    v = min(v, x);
    v = max(v, y);
    v = select(v - x, 0u, x > v);
    v = select(v + y, 0xFFFFFFFFu, v + y < v);
    v = (v & x) + ((v ^ x) >> 1u);
    v = select(v - y, y - v, y > v);
    out[i] = v;"""


def hand_wgsl(kernel: str, row: int) -> str:
    if kernel == "calls":
        body = HAND_CHAIN.format(golden=MIX_MULTIPLIER)
        return HAND_TEMPLATE.format(workgroup=WORKGROUP, row=row, body=body)
    if kernel == "xor":
        value = "x ^ y"
    else:
        value = f"((x ^ y) * {MIX_MULTIPLIER}u) + (x >> (y & 31u)) + (y / ((x & 7u) + 1u))"
    return f"""
@group(0) @binding(0) var<storage, read> a: array<u32>;
@group(0) @binding(1) var<storage, read> b: array<u32>;
@group(0) @binding(2) var<storage, read_write> out: array<u32>;

@compute @workgroup_size({WORKGROUP}, 1, 1)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {{
  let i = gid.x + gid.y * {row}u;
  if (i < arrayLength(&out)) {{
    let x = a[i];
    let y = b[i];
    out[i] = {value};
  }}
}}
"""


HAND_TEMPLATE = """
@group(0) @binding(0) var<storage, read> a: array<u32>;
@group(0) @binding(1) var<storage, read> b: array<u32>;
@group(0) @binding(2) var<storage, read_write> out: array<u32>;

@compute @workgroup_size({workgroup}, 1, 1)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {{
  let i = gid.x + gid.y * {row}u;
  if (i < arrayLength(&out)) {{
    let x = a[i];
    let y = b[i];{body}
  }}
}}
"""


def numpy_oracle(kernel: str, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The expected output words (IEEE f32 through numpy for fadd/fmul: exact,
    round to nearest even, subnormals kept)."""
    if kernel in FLOAT_KERNELS:
        x, y = a.view(np.float32), b.view(np.float32)
        return (x + y if kernel == "fadd" else x * y).view(np.uint32)
    if kernel == "xor":
        return a ^ b
    if kernel == "calls":
        from vyre import ops

        operands = {"x": a, "y": b, "golden": np.full_like(a, MIX_MULTIPLIER)}
        value = a
        for op_id, second in zip(CHAIN, CHAIN_SECOND, strict=True):
            value = ops.get(op_id).reference(value, operands[second]).astype(np.uint32)
        return value
    with np.errstate(over="ignore"):
        return ((a ^ b) * np.uint32(MIX_MULTIPLIER)) + (a >> (b & 31)) + (b // ((a & 7) + 1))


def inputs(kernel: str, n: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(1)
    if kernel in FLOAT_KERNELS:  # finite floats over a wide range
        x = (rng.standard_normal(n) * np.exp2(rng.integers(-60, 60, n))).astype(np.float32)
        y = (rng.standard_normal(n) * np.exp2(rng.integers(-60, 60, n))).astype(np.float32)
        return x.view(np.uint32), y.view(np.uint32)
    return rng.integers(0, 2**32, n, dtype=np.uint32), rng.integers(0, 2**32, n, dtype=np.uint32)


class Setup:
    """The lowered and the hand-written pipelines, bound to the same buffers."""

    def __init__(self, kernel: str, n: int):
        from vyre.pipeline import prepare
        from vyre.runtime.wgpu_backend import bind
        from vyre.runtime.wgpu_device import Resident, gpu_device

        self.n = n
        self.groups = grid(n)
        row = self.groups[0] * WORKGROUP
        gpu = gpu_device()
        device = self.device = gpu.device
        self.a, self.b = inputs(kernel, n)
        resident = {
            "a": Resident.upload(gpu, self.a),
            "b": Resident.upload(gpu, self.b),
            "out": Resident.upload(gpu, np.zeros(n, dtype=np.uint32)),
        }
        self.resident = resident
        self.out = resident["out"].buffer
        bound = bind(prepare(vyre_program(kernel, row)), resident, self.groups)
        self.vectorised = bound.kernel.vector is not None
        self.lowered = bound.record
        self.hand = None
        if kernel not in FLOAT_KERNELS:
            module = device.create_shader_module(code=hand_wgsl(kernel, row))
            hand = device.create_compute_pipeline(layout="auto", compute={"module": module, "entry_point": "main"})
            entries = [
                {"binding": k, "resource": {"buffer": resident[name].buffer, "offset": 0, "size": n * 4}}
                for k, name in enumerate(("a", "b", "out"))
            ]
            group = device.create_bind_group(layout=hand.get_bind_group_layout(0), entries=entries)
            groups = self.groups

            def record(compute: object) -> None:
                compute.set_pipeline(hand)  # type: ignore[attr-defined]
                compute.set_bind_group(0, group)  # type: ignore[attr-defined]
                compute.dispatch_workgroups(*groups)  # type: ignore[attr-defined]

            self.hand = record

    def time(self, record: object, reps: int) -> float:
        """Seconds per dispatch for `reps` dispatches in one submit, synchronised by a 4-byte read."""
        start = time.perf_counter()
        encoder = self.device.create_command_encoder()
        compute = encoder.begin_compute_pass()
        for _ in range(reps):
            record(compute)  # type: ignore[operator]
        compute.end()
        self.device.queue.submit([encoder.finish()])
        self.device.queue.read_buffer(self.out, 0, 4)
        return (time.perf_counter() - start) / reps

    def check(self, record: object, expected: np.ndarray, what: str) -> None:
        self.device.queue.write_buffer(self.out, 0, np.zeros(self.n, dtype=np.uint32))
        self.time(record, 1)
        got = np.frombuffer(self.device.queue.read_buffer(self.out, 0, self.n * 4), dtype=np.uint32)
        if not np.array_equal(got, expected):
            raise SystemExit(f"{what}: wrong result, {np.count_nonzero(got != expected)} words differ")


class Torch:
    """The kernel in PyTorch on CUDA tensors (None without torch + CUDA)."""

    def __init__(self, kernel: str, a: np.ndarray, b: np.ndarray):
        import torch

        self.torch = torch
        if kernel in FLOAT_KERNELS:
            x = torch.from_numpy(a.view(np.float32).copy()).cuda()
            y = torch.from_numpy(b.view(np.float32).copy()).cuda()
            out = torch.empty_like(x)
            op = torch.add if kernel == "fadd" else torch.mul
            self.run = lambda: op(x, y, out=out)
            self.result = lambda: out.cpu().numpy().view(np.uint32)
        elif kernel == "xor":
            x = torch.from_numpy(a.view(np.int32).copy()).cuda()
            y = torch.from_numpy(b.view(np.int32).copy()).cuda()
            out = torch.empty_like(x)
            self.run = lambda: torch.bitwise_xor(x, y, out=out)
            self.result = lambda: out.cpu().numpy().view(np.uint32)
        else:  # int64 with masks: exact u32 arithmetic
            x = torch.from_numpy(a.astype(np.int64)).cuda()
            y = torch.from_numpy(b.astype(np.int64)).cuda()
            compute = self.mix if kernel == "mix" else self.calls
            holder: dict[str, object] = {}

            def run() -> None:
                holder["out"] = compute(x, y)

            self.run = run
            self.result = lambda: holder["out"].cpu().numpy().astype(np.uint32)  # type: ignore[attr-defined]

    @staticmethod
    def mix(x: object, y: object) -> object:
        m = 0xFFFF_FFFF
        a, b = x, y  # int64 tensors holding u32 values
        value = ((a ^ b) * MIX_MULTIPLIER) & m  # type: ignore[operator]
        value = (value + (a >> (b & 31))) & m  # type: ignore[operator]
        return (value + b // ((a & 7) + 1)) & m  # type: ignore[operator]

    def calls(self, x: object, y: object) -> object:
        torch = self.torch
        m = 0xFFFF_FFFF
        v = (x + y) & m  # type: ignore[operator]
        v = v ^ x
        r = y & 31  # type: ignore[operator]
        v = ((v << r) | (v >> ((32 - r) & 31))) & m
        v = (v * MIX_MULTIPLIER) & m
        v = torch.minimum(v, x)
        v = torch.maximum(v, y)
        v = torch.clamp(v - x, min=0)
        v = torch.clamp(v + y, max=m)
        v = (v & x) + ((v ^ x) >> 1)
        return (y - v).abs()

    def time(self, reps: int) -> float:
        torch = self.torch
        torch.cuda.synchronize()
        start = time.perf_counter()
        for _ in range(reps):
            self.run()
        torch.cuda.synchronize()
        return (time.perf_counter() - start) / reps

    @staticmethod
    def make(kernel: str, a: np.ndarray, b: np.ndarray) -> Torch | None:
        try:
            import torch
        except ImportError:
            return None
        if not torch.cuda.is_available():
            return None
        return Torch(kernel, a, b)


@quiet_on_closed_pipe
def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, help="elements (default: 64 Mi on a GPU, 4 Mi on a CPU device)")
    parser.add_argument("--reps", type=int, help="dispatches per submit (default: 50 on a GPU, 10 on a CPU device)")
    parser.add_argument("--trials", type=int, default=9)
    parser.add_argument("--kernel", choices=(*KERNELS, "all"), default="all")
    args = parser.parse_args()

    from _common import gpu_is_cpu, gpu_name, median, table

    cpu_device = gpu_is_cpu()
    n = args.n or (1 << 22 if cpu_device else 1 << 26)
    reps = args.reps or (10 if cpu_device else 50)
    rows = []
    xor_torch_gbs: float | None = None
    for kernel in KERNELS if args.kernel == "all" else (args.kernel,):
        setup = Setup(kernel, n)
        expected = numpy_oracle(kernel, setup.a, setup.b)
        setup.check(setup.lowered, expected, f"{kernel} lowered")
        versions: dict[str, object] = {"lowered": setup.lowered}
        if setup.hand is not None:
            setup.check(setup.hand, expected, f"{kernel} hand-written")
            versions["hand"] = setup.hand
        torch_run = Torch.make(kernel, setup.a, setup.b)
        if torch_run is not None:
            torch_run.run()
            got = torch_run.result()
            if not np.array_equal(got, expected):
                raise SystemExit(f"{kernel} torch: wrong result, {np.count_nonzero(got != expected)} words differ")
        timers = {name: (lambda record=record: setup.time(record, reps)) for name, record in versions.items()}
        if torch_run is not None:
            timers["torch"] = lambda: torch_run.time(reps)
        for timer in timers.values():  # warm up
            timer()
        samples: dict[str, list[float]] = {name: [] for name in timers}
        for _ in range(args.trials):
            for name, timer in timers.items():
                samples[name].append(timer())
        t = {name: median(values) for name, values in samples.items()}
        traffic = 3 * 4 * n  # bytes read and written per dispatch

        def cell(name: str, scale: float = 1e6, fmt: str = ",.1f") -> str:
            return f"{t[name] * scale:{fmt}}" if name in t else "-"

        def speed(name: str) -> str:
            return f"{traffic / t[name] / 1e9:,.1f}" if name in t else "-"

        if kernel == "xor" and "torch" in t:
            xor_torch_gbs = traffic / t["torch"] / 1e9
        lowered_gbs = traffic / t["lowered"] / 1e9
        rows.append([
            kernel, gpu_name(), f"{n:,}", reps, "yes" if setup.vectorised else "no",
            cell("hand"), cell("lowered"), cell("torch"),
            speed("hand"), speed("lowered"), speed("torch"),
            f"{t['hand'] / t['lowered']:.3f}" if "hand" in t else "-",
            f"{t['torch'] / t['lowered']:.3f}" if "torch" in t else "-",
            f"{lowered_gbs / xor_torch_gbs:.3f}" if xor_torch_gbs else "-",
        ])
        print(rows[-1], flush=True)
    print(table(
        ["kernel", "device", "elements", "dispatches/submit", "vectorised", "hand µs/dispatch",
         "lowered µs/dispatch", "torch µs/call", "hand GB/s", "lowered GB/s", "torch GB/s",
         "hand/lowered", "lowered/torch speed (torch µs / lowered µs)",
         "lowered GB/s / torch xor GB/s (same 12 B per element)"],
        rows,
    ))


if __name__ == "__main__":
    main()
