"""What bounds the exact sum's reading kernel: hand-written WGSL probes of its
inner loop against `torch.sum` on the same GPU, same run.

    python bench/exact_sum_probe.py [--n 268435456] [--words 0,4,7,10,14,20,27]

Every probe reads `--n` F32 values (standard normal) as 16-byte loads, 2,048
workgroups of 256 invocations, each invocation two loads per step, strided
by the grid. The probes:

- `read`: a wrapping u32 sum of the words (the bandwidth a WGSL reading
  kernel reaches here);
- `window`: the register-window fast path of an exact accumulator: an
  element whose exponent field lies in the invocation's window of 16 fields
  adds its significand, shifted by its place in the window, to two u32
  lanes (16 low bits and the rest, negated for a set sign bit: about ten
  integer operations). Elements outside the window take a stand-in slow
  path (a sum of their bits, and the window moved up when the element lies
  above it): the probe measures speed, not sums;
- `window, W words`: the same kernel declaring W u32 words of workgroup
  memory per invocation (W * 256 words per workgroup, touched once at the
  end): what a per-invocation accumulator column in workgroup memory costs
  in occupancy alone.

Results are in bench/RESULTS.md; on the H200 the window runs at ~0.8 of
torch.sum while 7 words per invocation leave it there and 27 (the column
of the shipped kernel: 13 digit rows per sign and a flags word) bring it to
0.3.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import wgpu

GROUPS = 2048
UNROLL = 2


def _element(var: str, window: bool) -> str:
    if not window:
        return f"s1 = s1 + bitcast<i32>({var});"
    return f"""{{ let b = {var};
      let t = ((b >> 23u) & 255u) - wb;
      if (t < 16u) {{
        let x = bitcast<i32>(b) >> 31u;
        let m = (b & 0x7fffffu) | 0x800000u;
        let lo = bitcast<i32>((m << t) & 0xffffu);
        let hi = bitcast<i32>(m >> (16u - t));
        s1 = s1 + ((lo ^ x) - x); s2 = s2 + ((hi ^ x) - x);
      }} else {{
        let e = (b >> 23u) & 255u;
        if (e > wb + 15u && e != 255u) {{ sp = sp + s1 + (s2 << 3u); s1 = 0; s2 = 0; wb = min(e - 12u, 238u); }}
        sp2 = sp2 + b;
      }} }}"""


def shader(window: bool, words: int, per: int) -> str:
    loads = "\n".join(f"    let v{u} = X[i + (j + {u}u) * T];" for u in range(UNROLL))
    body = "\n".join(_element(f"v{u}.{c}", window) for u in range(UNROLL) for c in "xyzw")
    decl = f"var<workgroup> acc: array<u32, {words * 256}>;" if words else ""
    touch = "acc[li] = sp2; workgroupBarrier(); sp2 = sp2 + acc[(li + 1u) % 256u];" if words else ""
    return f"""
@group(0) @binding(0) var<storage, read> X: array<vec4<u32>>;
@group(0) @binding(1) var<storage, read_write> O: array<u32>;
{decl}
@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>,
        @builtin(local_invocation_index) li: u32) {{
  let i = gid.x; let T = nw.x * 256u;
  var s1: i32 = 0; var s2: i32 = 0; var wb: u32 = 1u; var sp: i32 = 0; var sp2: u32 = 0u;
  for (var j: u32 = 0u; j < {per}u; j = j + {UNROLL}u) {{
{loads}
{body}
  }}
  {touch}
  O[i] = bitcast<u32>(s1 ^ s2 ^ sp) ^ sp2 ^ wb;
}}
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=1 << 28)
    parser.add_argument("--words", default="0,4,7,10,14,20,27")
    parser.add_argument("--reps", type=int, default=20)
    args = parser.parse_args()
    n = args.n - args.n % (4 * 256 * GROUPS * UNROLL)
    if n <= 0:
        raise SystemExit(f"--n must be at least {4 * 256 * GROUPS * UNROLL}")
    adapter = wgpu.gpu.request_adapter_sync(power_preference="high-performance")
    limits = adapter.limits
    device = adapter.request_device_sync(
        required_limits={k: limits[k] for k in ("max-storage-buffer-binding-size", "max-buffer-size")}
    )
    print(f"# exact-sum probes on {adapter.info['device']} ({adapter.info['backend_type']}), {n} F32 values")
    data = np.random.default_rng(1).standard_normal(n, dtype=np.float32)
    theirs = None
    try:
        import torch

        if torch.cuda.is_available():
            t = torch.from_numpy(data).cuda()
            t.sum()
            torch.cuda.synchronize()
            start = time.perf_counter()
            for _ in range(args.reps):
                t.sum()
            torch.cuda.synchronize()
            theirs = (time.perf_counter() - start) / args.reps
            print(f"torch.sum: {theirs * 1e3:.3f} ms, {4 * n / theirs / 1e9:.0f} GB/s")
    except ImportError:
        pass
    usage = wgpu.BufferUsage.STORAGE | wgpu.BufferUsage.COPY_DST | wgpu.BufferUsage.COPY_SRC
    source = device.create_buffer_with_data(data=data.view(np.uint32).tobytes(), usage=usage)
    threads = GROUPS * 256
    sink = device.create_buffer(size=threads * 4, usage=usage)
    probes = [("read", False, 0)] + [(f"window, {w} words" if w else "window", True, w) for w in map(int, args.words.split(","))]
    print("| probe | ms | GB/s | of torch |\n|---|---|---|---|")
    for label, window, words in probes:
        module = device.create_shader_module(code=shader(window, words, n // 4 // threads))
        pipe = device.create_compute_pipeline(layout="auto", compute={"module": module, "entry_point": "main"})
        group = device.create_bind_group(
            layout=pipe.get_bind_group_layout(0),
            entries=[{"binding": 0, "resource": {"buffer": source}}, {"binding": 1, "resource": {"buffer": sink}}],
        )

        def run(count: int) -> None:
            encoder = device.create_command_encoder()
            compute = encoder.begin_compute_pass()
            compute.set_pipeline(pipe)
            compute.set_bind_group(0, group)
            for _ in range(count):
                compute.dispatch_workgroups(GROUPS)
            compute.end()
            device.queue.submit([encoder.finish()])
            device.queue.read_buffer(sink, 0, 4)

        run(2)
        best = float("inf")
        for _ in range(3):
            start = time.perf_counter()
            run(args.reps)
            best = min(best, (time.perf_counter() - start) / args.reps)
        ratio = f"{theirs / best:.2f}" if theirs else "-"
        print(f"| {label} | {best * 1e3:.3f} | {4 * n / best / 1e9:.0f} | {ratio} |", flush=True)


if __name__ == "__main__":
    main()
