"""How fast an int8 GEMM with exact i32 accumulation runs in hand-written WGSL
(`dot4I8Packed`), the building block of the exact matmul.

    python bench/dp4a_gemm.py [--n 4096] [--check 256]

A (M x K int8, rows packed 4 per u32 along k) times B (given as B^T, N x K,
packed the same way) into C (M x N i32), tiled through workgroup memory: a
workgroup of 16 x 16 invocations computes a (16 TM) x (16 TN) tile, each
invocation TM x TN outputs, in steps of 4 BK4 values of k. Reports T dp4a/s
(each is 4 multiply-adds) for each tile variant, and checks every variant
against numpy's int64 product on a smaller size first. The dp4a issue rate of
a register-only loop is printed for comparison.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import wgpu


def shader(tm: int, tn: int, bk4: int) -> str:
    bm, bn = 16 * tm, 16 * tn
    loads_a = bm * bk4 // 256
    loads_b = bn * bk4 // 256
    accs = "\n".join(f"  var c{r}_{c}: i32 = 0;" for r in range(tm) for c in range(tn))
    a_regs = "\n".join(f"      let a{r} = sa[k4 * {(bm + 4) // 4} + ty * {tm // 4} + {r // 4}u][{r % 4}];" for r in range(tm))
    b_regs = "\n".join(f"      let b{c} = sb[k4 * {(bn + 4) // 4} + tx * {tn // 4} + {c // 4}u][{c % 4}];" for c in range(tn))
    macs = "\n".join(f"      c{r}_{c} = c{r}_{c} + dot4I8Packed(a{r}, b{c});" for r in range(tm) for c in range(tn))
    stores = "\n".join(
        f"  if (row0 + {r}u < M && col0 + {c}u < N) {{ C[z * M * N + (row0 + {r}u) * N + col0 + {c}u] = c{r}_{c}; }}"
        for r in range(tm)
        for c in range(tn)
    )
    return f"""
struct P {{ M: u32, N: u32, K4: u32, pad: u32 }}
@group(0) @binding(0) var<storage, read> A: array<u32>;
@group(0) @binding(1) var<storage, read> B: array<u32>;
@group(0) @binding(2) var<storage, read_write> C: array<i32>;
@group(0) @binding(3) var<uniform> p: P;
var<workgroup> sa: array<vec4<u32>, {(bm + 4) * bk4 // 4}>;
var<workgroup> sb: array<vec4<u32>, {(bn + 4) * bk4 // 4}>;
@compute @workgroup_size(16, 16)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) li: u32) {{
  let M = p.M; let N = p.N; let K4 = p.K4; let z = wg.z;
  let tx = li % 16u; let ty = li / 16u;
  let tile_row = wg.y * {bm}u; let tile_col = wg.x * {bn}u;
{accs}
  for (var kk: u32 = 0u; kk < K4; kk = kk + {bk4}u) {{
    for (var l: u32 = 0u; l < {loads_a}u; l = l + 1u) {{
      let e = l * 256u + li; let r = e / {bk4}u; let k = e % {bk4}u;
      var v = 0u;
      if (tile_row + r < M && kk + k < K4) {{ v = A[z * M * K4 + (tile_row + r) * K4 + kk + k]; }}
      let at = k * {bm + 4}u + r;
      sa[at / 4u][at % 4u] = v;
    }}
    for (var l: u32 = 0u; l < {loads_b}u; l = l + 1u) {{
      let e = l * 256u + li; let r = e / {bk4}u; let k = e % {bk4}u;
      var v = 0u;
      if (tile_col + r < N && kk + k < K4) {{ v = B[z * N * K4 + (tile_col + r) * K4 + kk + k]; }}
      let at = k * {bn + 4}u + r;
      sb[at / 4u][at % 4u] = v;
    }}
    workgroupBarrier();
    for (var k4: u32 = 0u; k4 < {bk4}u; k4 = k4 + 1u) {{
{a_regs}
{b_regs}
{macs}
    }}
    workgroupBarrier();
  }}
  let row0 = tile_row + ty * {tm}u; let col0 = tile_col + tx * {tn}u;
{stores}
}}
"""


def panel_shader(bk4: int, vec: bool) -> str:
    """128 x 128 tiles, 8 x 8 outputs an invocation (rows ty*4+{0..3} and
    64+ty*4+{0..3}, the same for columns), operands in a panel layout: per
    128-row tile and per block of bk4 u32 along k, bk4 x 128 words [k4][row],
    so the copy to workgroup memory is contiguous and needs no bounds checks
    (the panels are padded with zeros); the next block is prefetched into
    registers while this one is multiplied. `vec`: vec4 loads from workgroup
    memory, else scalar loads."""
    per = bk4 * 128 // 4 // 256  # vec4 per invocation per operand
    accs = "\n".join(f"  var c{r}_{c}: i32 = 0;" for r in range(8) for c in range(8))
    pre = "\n".join(
        f"    var pa{q} = A[abase + kb * {bk4 * 32}u + {q * 256}u + li]; var pb{q} = B[bbase + kb * {bk4 * 32}u + {q * 256}u + li];"
        for q in range(per)
    )
    first = pre.replace("    var", "  var").replace("kb *", "0u *")
    put = "\n".join(f"    sa[{q * 256}u + li] = pa{q}; sb[{q * 256}u + li] = pb{q};" for q in range(per))
    fetch = "\n".join(
        f"      pa{q} = A[abase + (kb + 1u) * {bk4 * 32}u + {q * 256}u + li]; pb{q} = B[bbase + (kb + 1u) * {bk4 * 32}u + {q * 256}u + li];"
        for q in range(per)
    )
    if vec:
        regs = "\n".join(
            f"      let va{h} = sa[k4 * 32u + {h * 16}u + ty]; let vb{h} = sb[k4 * 32u + {h * 16}u + tx];" for h in range(2)
        )
        av = [f"va{r // 4}[{r % 4}]" for r in range(8)]
        bv = [f"vb{c // 4}[{c % 4}]" for c in range(8)]
    else:
        regs = "\n".join(
            f"      let sa{r} = sa[k4 * 32u + {(r // 4) * 16}u + ty][{r % 4}]; let sb{r} = sb[k4 * 32u + {(r // 4) * 16}u + tx][{r % 4}];"
            for r in range(8)
        )
        av = [f"sa{r}" for r in range(8)]
        bv = [f"sb{c}" for c in range(8)]
    macs = "\n".join(f"      c{r}_{c} = c{r}_{c} + dot4I8Packed({av[r]}, {bv[c]});" for r in range(8) for c in range(8))
    stores = "\n".join(
        f"  C[z * M * N + (tile_row + {(r // 4) * 64 + r % 4}u + ty * 4u) * N + tile_col + {(c // 4) * 64 + c % 4}u + tx * 4u] = c{r}_{c};"
        for r in range(8)
        for c in range(8)
    )
    return f"""
struct P {{ M: u32, N: u32, K4: u32, pad: u32 }}
@group(0) @binding(0) var<storage, read> A: array<vec4<u32>>;
@group(0) @binding(1) var<storage, read> B: array<vec4<u32>>;
@group(0) @binding(2) var<storage, read_write> C: array<i32>;
@group(0) @binding(3) var<uniform> p: P;
var<workgroup> sa: array<vec4<u32>, {bk4 * 32}>;
var<workgroup> sb: array<vec4<u32>, {bk4 * 32}>;
@compute @workgroup_size(16, 16)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) li: u32) {{
  let M = p.M; let N = p.N; let K4 = p.K4; let z = wg.z;
  let tx = li % 16u; let ty = li / 16u;
  let tile_row = wg.y * 128u; let tile_col = wg.x * 128u;
  let blocks = K4 / {bk4}u;
  let abase = (z * (M / 128u) + wg.y) * blocks * {bk4 * 32}u;
  let bbase = (z * (N / 128u) + wg.x) * blocks * {bk4 * 32}u;
{accs}
{first}
  for (var kb: u32 = 0u; kb < blocks; kb = kb + 1u) {{
    workgroupBarrier();
{put}
    workgroupBarrier();
    if (kb + 1u < blocks) {{
{fetch}
    }}
    for (var k4: u32 = 0u; k4 < {bk4}u; k4 = k4 + 1u) {{
{regs}
{macs}
    }}
  }}
{stores}
}}
"""


def panels(x: np.ndarray, bk4: int) -> np.ndarray:
    """(layers, R, K) int8 -> the panel layout of `panel_shader` (R % 128 == 0, K % (4 bk4) == 0)."""
    layers, rows, k = x.shape
    w = pack(x).reshape(layers, rows // 128, 128, k // 4 // bk4, bk4)
    return np.ascontiguousarray(w.transpose(0, 1, 3, 4, 2))


def run_panel(device: wgpu.GPUDevice, bk4: int, vec: bool, m: int, n: int, k: int, layers: int, reps: int, check: bool) -> float:
    rng = np.random.default_rng(2)
    a = rng.integers(-128, 128, size=(layers, m, k), dtype=np.int64)
    b = rng.integers(-128, 128, size=(layers, n, k), dtype=np.int64)
    usage = wgpu.BufferUsage.STORAGE | wgpu.BufferUsage.COPY_DST | wgpu.BufferUsage.COPY_SRC
    ba = device.create_buffer_with_data(data=panels(a, bk4).tobytes(), usage=usage)
    bb = device.create_buffer_with_data(data=panels(b, bk4).tobytes(), usage=usage)
    bc = device.create_buffer(size=layers * m * n * 4, usage=usage)
    bp = device.create_buffer_with_data(data=np.array([m, n, k // 4, 0], np.uint32).tobytes(), usage=wgpu.BufferUsage.UNIFORM)
    mod = device.create_shader_module(code=panel_shader(bk4, vec))
    pipe = device.create_compute_pipeline(layout="auto", compute={"module": mod, "entry_point": "main"})
    bg = device.create_bind_group(
        layout=pipe.get_bind_group_layout(0),
        entries=[{"binding": i, "resource": {"buffer": x}} for i, x in enumerate((ba, bb, bc, bp))],
    )

    def go(count: int) -> None:
        enc = device.create_command_encoder()
        cp = enc.begin_compute_pass()
        cp.set_pipeline(pipe)
        cp.set_bind_group(0, bg)
        for _ in range(count):
            cp.dispatch_workgroups(n // 128, m // 128, layers)
        cp.end()
        device.queue.submit([enc.finish()])
        device.queue.read_buffer(bc, 0, 4)

    go(1)
    if check:
        got = np.frombuffer(device.queue.read_buffer(bc), np.int32).reshape(layers, m, n)
        if not np.array_equal(got, np.einsum("lmk,lnk->lmn", a, b)):
            raise SystemExit(f"MISMATCH panel bk4={bk4} vec={vec}")
        return 0.0
    best = 1e9
    for _ in range(3):
        t = time.perf_counter()
        go(reps)
        best = min(best, (time.perf_counter() - t) / reps)
    return layers * m * n * (k // 4) / best


def rate_probe2(device: wgpu.GPUDevice) -> float:
    """8 independent accumulations of dot4I8Packed per loop step, one add of overhead."""
    body = " ".join(f"a{i} = a{i} + dot4I8Packed(x, y{i});" for i in range(8))
    src = f"""
@group(0) @binding(0) var<storage, read_write> o: array<u32>;
@compute @workgroup_size(256) fn main(@builtin(global_invocation_id) g: vec3<u32>) {{
  var x: u32 = g.x; {" ".join(f"let y{i} = g.x * {2 * i + 3}u + {i}u; var a{i}: i32 = 0;" for i in range(8))}
  for (var i: u32 = 0u; i < 4096u; i = i + 1u) {{ {body} x = x + 0x01030507u; }}
  o[g.x] = u32({" + ".join(f"a{i}" for i in range(8))});
}}"""
    n_wg = 132 * 64
    buf = device.create_buffer(size=n_wg * 256 * 4, usage=wgpu.BufferUsage.STORAGE | wgpu.BufferUsage.COPY_SRC)
    pipe = device.create_compute_pipeline(layout="auto", compute={"module": device.create_shader_module(code=src), "entry_point": "main"})
    bg = device.create_bind_group(layout=pipe.get_bind_group_layout(0), entries=[{"binding": 0, "resource": {"buffer": buf}}])

    def go(reps: int) -> None:
        enc = device.create_command_encoder()
        cp = enc.begin_compute_pass()
        cp.set_pipeline(pipe)
        cp.set_bind_group(0, bg)
        for _ in range(reps):
            cp.dispatch_workgroups(n_wg)
        cp.end()
        device.queue.submit([enc.finish()])
        device.queue.read_buffer(buf, 0, 4)

    go(1)
    best = 1e9
    for _ in range(3):
        t = time.perf_counter()
        go(5)
        best = min(best, (time.perf_counter() - t) / 5)
    return n_wg * 256 * 4096 * 8 / best


def rate_probe(device: wgpu.GPUDevice) -> float:
    src = """
@group(0) @binding(0) var<storage, read_write> o: array<u32>;
@compute @workgroup_size(256) fn main(@builtin(global_invocation_id) g: vec3<u32>) {
  var x: u32 = g.x; var y: u32 = g.x * 7u + 1u;
  var acc: i32 = 0; var acc2: i32 = 0; var acc3: i32 = 0; var acc4: i32 = 0;
  for (var i: u32 = 0u; i < 4096u; i = i + 1u) {
    acc = acc + dot4I8Packed(x, y); x = x ^ u32(acc); acc2 = acc2 + dot4I8Packed(y, x);
    y = y + 0x01010101u; acc3 = acc3 + dot4I8Packed(x ^ 0x5555u, y); acc4 = acc4 + dot4I8Packed(y ^ 0x3333u, x);
  }
  o[g.x] = x ^ y ^ u32(acc + acc2 + acc3 + acc4);
}"""
    n_wg = 132 * 64
    buf = device.create_buffer(size=n_wg * 256 * 4, usage=wgpu.BufferUsage.STORAGE | wgpu.BufferUsage.COPY_SRC)
    pipe = device.create_compute_pipeline(layout="auto", compute={"module": device.create_shader_module(code=src), "entry_point": "main"})
    bg = device.create_bind_group(layout=pipe.get_bind_group_layout(0), entries=[{"binding": 0, "resource": {"buffer": buf}}])

    def go(reps: int) -> None:
        enc = device.create_command_encoder()
        cp = enc.begin_compute_pass()
        cp.set_pipeline(pipe)
        cp.set_bind_group(0, bg)
        for _ in range(reps):
            cp.dispatch_workgroups(n_wg)
        cp.end()
        device.queue.submit([enc.finish()])
        device.queue.read_buffer(buf, 0, 4)

    go(1)
    best = 1e9
    for _ in range(3):
        t = time.perf_counter()
        go(5)
        best = min(best, (time.perf_counter() - t) / 5)
    return n_wg * 256 * 4096 * 4 / best


def pack(x: np.ndarray) -> np.ndarray:
    """Rows of int8 (K a multiple of 4) packed 4 per u32, k ascending from the low byte."""
    return np.ascontiguousarray(x.astype(np.int8)).view(np.uint32)


def run(device: wgpu.GPUDevice, tm: int, tn: int, bk4: int, m: int, n: int, k: int, layers: int, reps: int, check: bool) -> float:
    rng = np.random.default_rng(1)
    a = rng.integers(-128, 128, size=(layers, m, k), dtype=np.int64)
    b = rng.integers(-128, 128, size=(layers, n, k), dtype=np.int64)
    usage = wgpu.BufferUsage.STORAGE | wgpu.BufferUsage.COPY_DST | wgpu.BufferUsage.COPY_SRC
    ba = device.create_buffer_with_data(data=pack(a).tobytes(), usage=usage)
    bb = device.create_buffer_with_data(data=pack(b).tobytes(), usage=usage)
    bc = device.create_buffer(size=layers * m * n * 4, usage=usage)
    bp = device.create_buffer_with_data(data=np.array([m, n, k // 4, 0], np.uint32).tobytes(), usage=wgpu.BufferUsage.UNIFORM)
    pipe = device.create_compute_pipeline(layout="auto", compute={"module": device.create_shader_module(code=shader(tm, tn, bk4)), "entry_point": "main"})
    bg = device.create_bind_group(
        layout=pipe.get_bind_group_layout(0),
        entries=[{"binding": i, "resource": {"buffer": x}} for i, x in enumerate((ba, bb, bc, bp))],
    )

    def go(count: int) -> None:
        enc = device.create_command_encoder()
        cp = enc.begin_compute_pass()
        cp.set_pipeline(pipe)
        cp.set_bind_group(0, bg)
        for _ in range(count):
            cp.dispatch_workgroups((n + 16 * tn - 1) // (16 * tn), (m + 16 * tm - 1) // (16 * tm), layers)
        cp.end()
        device.queue.submit([enc.finish()])
        device.queue.read_buffer(bc, 0, 4)

    go(1)
    if check:
        got = np.frombuffer(device.queue.read_buffer(bc), np.int32).reshape(layers, m, n)
        want = np.einsum("lmk,lnk->lmn", a, b)
        if not np.array_equal(got, want):
            raise SystemExit(f"MISMATCH tm={tm} tn={tn} bk4={bk4}")
        return 0.0
    best = 1e9
    for _ in range(3):
        t = time.perf_counter()
        go(reps)
        best = min(best, (time.perf_counter() - t) / reps)
    return layers * m * n * (k // 4) / best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--n", type=int, default=4096)
    ap.add_argument("--layers", type=int, default=1)
    ap.add_argument("--check", type=int, default=200)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--variants", default="8x8x16,8x8x8,4x4x16,8x4x16,4x8x16,8x8x32")
    ap.add_argument("--panel", default="16v,8v,16s,8s,32v")
    ap.add_argument("--no-rate", action="store_true")
    args = ap.parse_args()
    adapter = wgpu.gpu.request_adapter_sync(power_preference="high-performance")
    device = adapter.request_device_sync()
    print(adapter.info["device"], adapter.info["backend_type"])
    if not args.no_rate:
        print(f"register-only dp4a rate: {rate_probe(device) / 1e12:.2f} T dp4a/s")
        print(f"register-only dp4a rate, 8 accumulators: {rate_probe2(device) / 1e12:.2f} T dp4a/s")
    for v in args.panel.split(","):
        if not v:
            continue
        bk4, vec = int(v.rstrip("sv")), v.endswith("v")
        run_panel(device, bk4, vec, 256, 384, 64 * 4 * bk4 // 16 * 3, 2, 1, True)
        r = run_panel(device, bk4, vec, args.n, args.n, args.n, args.layers, args.reps, False)
        print(f"panel bk4={bk4} {'vec4' if vec else 'scalar'}: {r / 1e12:.2f} T dp4a/s = {4 * r / 1e12:.1f} T int8 MAC/s", flush=True)
    for v in args.variants.split(","):
        tm, tn, bk4 = (int(x) for x in v.split("x"))
        run(device, tm, tn, bk4, args.check + 3, args.check - 5, 4 * (args.check // 4 + 9), 2, 1, True)
        r = run(device, tm, tn, bk4, args.n, args.n, args.n, args.layers, args.reps, False)
        print(f"tile {tm}x{tn} bk4={bk4}: {r / 1e12:.2f} T dp4a/s = {4 * r / 1e12:.1f} T int8 MAC/s", flush=True)


if __name__ == "__main__":
    main()
