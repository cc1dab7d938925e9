"""Benchmark (a): a lowered elementwise kernel against the same kernel written by hand in WGSL.

    python bench/elementwise.py [--n N] [--reps 50] [--trials 9] [--kernel xor|mix|all]

Both run on the same device, on the same buffers, with the same workgroup size
and dispatch. Each timing records `--reps` dispatches in one compute pass, one
submit and a 4-byte readback (to wait for the GPU); trials alternate between
the two shaders and the median is reported. The ratio hand/lowered is the
lowered kernel's speed relative to the hand-written one (1.0 = as fast).

Kernels (n u32 elements, 256 invocations per workgroup, 2-D dispatch so that
no axis exceeds 32768 workgroups; both check the bound):
  xor: out[i] = a[i] ^ b[i]
  mix: out[i] = ((a[i] ^ b[i]) * 0x9E3779B1) + (a[i] >> (b[i] & 31)) + (b[i] / ((a[i] & 7) + 1))
  calls: ten chained standard-library calls (issue #4's zero-overhead benchmark):
         add, xor, rotl, mul, min, max, sub_sat, add_sat, avg_floor, abs_diff —
         built with E.call, inlined by inline-calls; the hand-written WGSL spells
         the same computation directly.
"""

from __future__ import annotations

import argparse
import time

import _common  # noqa: F401  (puts the repository on sys.path)
import numpy as np

from vyre.ir import BufferDecl, DataType, Expr as E, Node as N, Program

WORKGROUP = 256
MAX_GROUPS_X = 32768
MIX_MULTIPLIER = 0x9E37_79B1


def grid(n: int) -> tuple[int, int, int]:
    groups = -(-n // WORKGROUP)
    x = min(groups, MAX_GROUPS_X)
    return (x, -(-groups // x), 1)


def vyre_program(kernel: str, row: int) -> Program:
    """`row` = invocations per row of the 2-D grid (groups_x * 256)."""
    i = E.var("i")
    a, b = E.var("x"), E.var("y")
    if kernel == "xor":
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
            BufferDecl.read("a", 0, DataType.U32),
            BufferDecl.read("b", 1, DataType.U32),
            BufferDecl.read_write("out", 2, DataType.U32),
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


class Setup:
    """Both pipelines, bound to the same three buffers."""

    def __init__(self, kernel: str, n: int):
        import wgpu

        from vyre.pipeline import lowered
        from vyre.runtime.wgpu_device import gpu_device

        self.n = n
        self.groups = grid(n)
        row = self.groups[0] * WORKGROUP
        gpu = gpu_device()
        device = self.device = gpu.device
        rng = np.random.default_rng(1)
        self.a = rng.integers(0, 2**32, n, dtype=np.uint32)
        self.b = rng.integers(0, 2**32, n, dtype=np.uint32)
        usage = wgpu.BufferUsage.STORAGE | wgpu.BufferUsage.COPY_DST | wgpu.BufferUsage.COPY_SRC
        buffers = {name: device.create_buffer(size=n * 4, usage=usage) for name in ("a", "b", "out")}
        device.queue.write_buffer(buffers["a"], 0, self.a)
        device.queue.write_buffer(buffers["b"], 0, self.b)
        self.out = buffers["out"]

        low = lowered(vyre_program(kernel, row))
        pipeline = gpu.pipeline(low, f"bench {kernel} lowered")
        meta = np.array(low.meta.pack((0, 0, 0), tuple(n for _ in low.buffers)), dtype=np.uint32)
        meta_buffer = device.create_buffer(
            size=meta.nbytes, usage=wgpu.BufferUsage.UNIFORM | wgpu.BufferUsage.COPY_DST
        )
        device.queue.write_buffer(meta_buffer, 0, meta)
        entries = [{"binding": b.binding, "resource": {"buffer": buffers[b.name]}} for b in low.buffers]
        entries.append({"binding": low.meta.binding, "resource": {"buffer": meta_buffer}})
        self.lowered = (
            pipeline.pipeline,
            device.create_bind_group(layout=pipeline.bind_group_layout, entries=entries),
        )

        module = device.create_shader_module(code=hand_wgsl(kernel, row))
        hand = device.create_compute_pipeline(layout="auto", compute={"module": module, "entry_point": "main"})
        hand_entries = [{"binding": k, "resource": {"buffer": buffers[name]}} for k, name in enumerate(("a", "b", "out"))]
        self.hand = (hand, device.create_bind_group(layout=hand.get_bind_group_layout(0), entries=hand_entries))

    def time(self, which: tuple[object, object], reps: int) -> float:
        """Seconds for `reps` dispatches in one submit, synchronised by a 4-byte read."""
        pipeline, bind_group = which
        start = time.perf_counter()
        encoder = self.device.create_command_encoder()
        compute = encoder.begin_compute_pass()
        compute.set_pipeline(pipeline)
        compute.set_bind_group(0, bind_group)
        for _ in range(reps):
            compute.dispatch_workgroups(*self.groups)
        compute.end()
        self.device.queue.submit([encoder.finish()])
        self.device.queue.read_buffer(self.out, 0, 4)
        return time.perf_counter() - start

    def check(self, which: tuple[object, object], expected: np.ndarray) -> None:
        self.device.queue.write_buffer(self.out, 0, np.zeros(self.n, dtype=np.uint32))
        self.time(which, 1)
        got = np.frombuffer(self.device.queue.read_buffer(self.out), dtype=np.uint32)
        if not np.array_equal(got, expected):
            raise SystemExit(f"wrong result: {np.count_nonzero(got != expected)} words differ")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, help="elements (default: 64 Mi on a GPU, 4 Mi on a CPU device)")
    parser.add_argument("--reps", type=int, help="dispatches per submit (default: 50 on a GPU, 10 on a CPU device)")
    parser.add_argument("--trials", type=int, default=9)
    parser.add_argument("--kernel", choices=("xor", "mix", "calls", "all"), default="all")
    args = parser.parse_args()

    from _common import gpu_is_cpu, gpu_name, median, table

    cpu_device = gpu_is_cpu()
    n = args.n or (1 << 22 if cpu_device else 1 << 26)
    reps = args.reps or (10 if cpu_device else 50)
    rows = []
    for kernel in ("xor", "mix", "calls") if args.kernel == "all" else (args.kernel,):
        setup = Setup(kernel, n)
        expected = numpy_oracle(kernel, setup.a, setup.b)
        setup.check(setup.hand, expected)
        setup.check(setup.lowered, expected)
        for which in (setup.hand, setup.lowered):  # warm up
            setup.time(which, reps)
        hand, low = [], []
        for _ in range(args.trials):
            hand.append(setup.time(setup.hand, reps) / reps)
            low.append(setup.time(setup.lowered, reps) / reps)
        t_hand, t_low = median(hand), median(low)
        traffic = 3 * 4 * n  # bytes read and written per dispatch
        rows.append([
            kernel, gpu_name(), f"{n:,}", reps, f"{t_hand * 1e6:,.1f}", f"{t_low * 1e6:,.1f}",
            f"{traffic / t_hand / 1e9:,.1f}", f"{traffic / t_low / 1e9:,.1f}", f"{t_hand / t_low:.3f}",
        ])
    print(table(
        ["kernel", "device", "elements", "dispatches/submit", "hand µs/dispatch", "lowered µs/dispatch",
         "hand GB/s", "lowered GB/s", "hand/lowered"],
        rows,
    ))


if __name__ == "__main__":
    main()
