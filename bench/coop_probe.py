"""What wgpu's cooperative matrices (`enable wgpu_cooperative_matrix;`) do on
this adapter: which types compile, the element layout, whether f32 inputs
keep all 24 bits, whether integer sums are exact, and the multiply-add rate.

    python bench/coop_probe.py

Measured on the H200 (wgpu-py 0.32, wgpu-native 29): the adapter lists
`cooperative-matrix`, but requesting it fails ("experimental features are
not enabled"), and wgpu-native's C API has no way to enable them; the probe
then stops after printing that. (wgpu's own notes: only 8x8 f32 matrices,
found on Vulkan through VK_KHR_cooperative_matrix.) The exact matmul stays on
`dot4I8Packed`.
"""

from __future__ import annotations

import time
import traceback

import numpy as np
import wgpu

F32 = "f32"


def kernel_src(ab: str, c: str, size: int, loads: str) -> str:
    enable = "enable f16;\n" if "f16" in (ab, c) else ""
    return f"""{enable}enable wgpu_cooperative_matrix;
@group(0) @binding(0) var<storage, read> a: array<{ab}>;
@group(0) @binding(1) var<storage, read> b: array<{ab}>;
@group(0) @binding(2) var<storage, read_write> c: array<{c}>;
@compute @workgroup_size(32)
fn main() {{
  let ma = {loads}<coop_mat{size}x{size}<{ab}, A>>(&a[0], {size}u);
  let mb = {loads}<coop_mat{size}x{size}<{ab}, B>>(&b[0], {size}u);
  var mc = coopLoad<coop_mat{size}x{size}<{c}, C>>(&c[0], {size}u);
  mc = coopMultiplyAdd(ma, mb, mc);
  coopStore(mc, &c[0], {size}u);
}}"""


def run_once(device: wgpu.GPUDevice, src: str, a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    mod = device.create_shader_module(code=src)
    pipe = device.create_compute_pipeline(layout="auto", compute={"module": mod, "entry_point": "main"})
    usage = wgpu.BufferUsage.STORAGE | wgpu.BufferUsage.COPY_SRC | wgpu.BufferUsage.COPY_DST
    bufs = [device.create_buffer_with_data(data=x.tobytes(), usage=usage) for x in (a, b, c)]
    bg = device.create_bind_group(
        layout=pipe.get_bind_group_layout(0),
        entries=[{"binding": i, "resource": {"buffer": buf}} for i, buf in enumerate(bufs)],
    )
    enc = device.create_command_encoder()
    cp = enc.begin_compute_pass()
    cp.set_pipeline(pipe)
    cp.set_bind_group(0, bg)
    cp.dispatch_workgroups(1)
    cp.end()
    device.queue.submit([enc.finish()])
    out = np.frombuffer(device.queue.read_buffer(bufs[2]), dtype=c.dtype).copy()
    return out


def rate(device: wgpu.GPUDevice, ab: str, c: str, size: int, wg: int, accs: int, iters: int) -> float:
    enable = "enable f16;\n" if "f16" in (ab, c) else ""
    na = 2 if accs >= 2 else 1
    nb = max(1, accs // na)
    lines = []
    for i in range(na):
        lines.append(f"  let a{i} = coopLoad<coop_mat{size}x{size}<{ab}, A>>(&a[sg * 64u + {i} * {size * size}u], {size}u);")
    for j in range(nb):
        lines.append(f"  let b{j} = coopLoad<coop_mat{size}x{size}<{ab}, B>>(&b[sg * 64u + {j} * {size * size}u], {size}u);")
    for i in range(na):
        for j in range(nb):
            lines.append(f"  var c{i}_{j} = coopLoad<coop_mat{size}x{size}<{c}, C>>(&o[0], {size}u);")
    body = " ".join(f"c{i}_{j} = coopMultiplyAdd(a{i}, b{j}, c{i}_{j});" for i in range(na) for j in range(nb))
    adds = " + ".join(f"c{i}_{j}" for i in range(na) for j in range(nb))
    src = f"""{enable}enable wgpu_cooperative_matrix;
@group(0) @binding(0) var<storage, read> a: array<{ab}>;
@group(0) @binding(1) var<storage, read> b: array<{ab}>;
@group(0) @binding(2) var<storage, read_write> o: array<{c}>;
@compute @workgroup_size({wg})
fn main(@builtin(workgroup_id) w: vec3<u32>, @builtin(local_invocation_index) li: u32) {{
  let sg = (w.x * {wg // 32}u + li / 32u) % 64u;
{chr(10).join(lines)}
  for (var i: u32 = 0u; i < {iters}u; i = i + 1u) {{ {body} }}
  let s = {adds};
  coopStore(s, &o[(w.x * {wg // 32}u + li / 32u) * {size * size}u], {size}u);
}}"""
    n_wg = 132 * 64 * 32 // wg
    dt = np.float16 if ab == "f16" else np.float32
    usage = wgpu.BufferUsage.STORAGE | wgpu.BufferUsage.COPY_SRC | wgpu.BufferUsage.COPY_DST
    ab_data = (np.random.default_rng(1).integers(-2, 3, 64 * 64 * 16 + 4096)).astype(dt)
    ba = device.create_buffer_with_data(data=ab_data.tobytes(), usage=usage)
    bb = device.create_buffer_with_data(data=ab_data.tobytes(), usage=usage)
    cdt = 2 if c == "f16" else 4
    bo = device.create_buffer(size=max(n_wg * (wg // 32), 1) * size * size * cdt + 4096, usage=usage)
    pipe = device.create_compute_pipeline(layout="auto", compute={"module": device.create_shader_module(code=src), "entry_point": "main"})
    bg = device.create_bind_group(
        layout=pipe.get_bind_group_layout(0),
        entries=[{"binding": i, "resource": {"buffer": buf}} for i, buf in enumerate((ba, bb, bo))],
    )

    def go(reps: int) -> None:
        enc = device.create_command_encoder()
        cp = enc.begin_compute_pass()
        cp.set_pipeline(pipe)
        cp.set_bind_group(0, bg)
        for _ in range(reps):
            cp.dispatch_workgroups(n_wg)
        cp.end()
        device.queue.submit([enc.finish()])
        device.queue.read_buffer(bo, 0, 4)

    go(1)
    t_end = time.perf_counter() + 0.5
    while time.perf_counter() < t_end:
        go(2)
    best = 1e9
    for _ in range(3):
        t = time.perf_counter()
        go(3)
        best = min(best, (time.perf_counter() - t) / 3)
    mmas = n_wg * (wg // 32) * iters * na * nb
    return mmas * 2 * size**3 / best / 1e12


def main() -> None:
    adapter = wgpu.gpu.request_adapter_sync(power_preference="high-performance")
    print("adapter:", adapter.info["device"], "| features:", sorted(f for f in adapter.features if "coop" in f or "f16" in f or "subgroup" in f))
    feats = [f for f in ("cooperative-matrix", "shader-f16", "subgroup") if f in adapter.features]
    try:
        device = adapter.request_device_sync(required_features=feats)
    except Exception as e:  # noqa: BLE001
        print("request_device with", feats, "FAILED:", str(e).replace("\n", " | ")[:400])
        print("(wgpu-native 29's C API has no switch for wgpu's experimental features, and")
        print(" cooperative matrices are one: this stack cannot reach the matrix units)")
        return
    print("device features:", sorted(device.features))
    rng = np.random.default_rng(0)

    for ab, c, size in (("f32", "f32", 8), ("f16", "f32", 16), ("f16", "f16", 16), ("f16", "f16", 8), ("f32", "f32", 16), ("f16", "f32", 8)):
        try:
            device.create_shader_module(code=kernel_src(ab, c, size, "coopLoad"))
            print(f"compile {ab}x{ab}+{c} {size}x{size}: ok")
        except Exception as e:  # noqa: BLE001
            print(f"compile {ab}x{ab}+{c} {size}x{size}: FAILED", str(e).replace("\n", " | ")[:600])

    # Layout: small integers.
    try:
        a = rng.integers(-4, 5, (8, 8)).astype(np.float32)
        b = rng.integers(-4, 5, (8, 8)).astype(np.float32)
        c0 = rng.integers(-4, 5, (8, 8)).astype(np.float32)
        out = run_once(device, kernel_src("f32", "f32", 8, "coopLoad"), a.ravel(), b.ravel(), c0.ravel()).reshape(8, 8)
        for name, ref in (("row-major A@B+C", a @ b + c0), ("col-major", (a.T @ b.T + c0.T).T), ("A^T", a.T @ b + c0), ("B^T", a @ b.T + c0)):
            print(f"layout {name}: {'MATCH' if np.array_equal(out, ref) else 'no'}")
        outT = run_once(device, kernel_src("f32", "f32", 8, "coopLoadT"), a.ravel(), b.ravel(), c0.ravel()).reshape(8, 8)
        print("coopLoadT A^T@B^T+C:", np.array_equal(outT, a.T @ b.T + c0), "| A^T@B+C:", np.array_equal(outT, a.T @ b + c0))
    except Exception:  # noqa: BLE001
        traceback.print_exc()

    # Precision of f32 inputs: full 24-bit mantissas.
    try:
        a = rng.standard_normal((8, 8)).astype(np.float32)
        b = rng.standard_normal((8, 8)).astype(np.float32)
        c0 = np.zeros((8, 8), np.float32)
        out = run_once(device, kernel_src("f32", "f32", 8, "coopLoad"), a.ravel(), b.ravel(), c0.ravel()).reshape(8, 8)
        ref = a.astype(np.float64) @ b.astype(np.float64)
        print("f32 normal inputs: max |err|/|ref| =", float(np.max(np.abs(out - ref) / np.maximum(np.abs(ref), 1e-30))))
        # Integers needing 12..24 bits, one product per output.
        for bits in (11, 12, 13, 16, 20, 24):
            a = np.zeros((8, 8), np.float32)
            b = np.eye(8, dtype=np.float32)
            a[:] = (1 << (bits - 1)) + 1 + np.arange(64).reshape(8, 8)
            out = run_once(device, kernel_src("f32", "f32", 8, "coopLoad"), a.ravel(), b.ravel(), c0.ravel()).reshape(8, 8)
            print(f"integer a of {bits} bits times identity exact: {np.array_equal(out, a)}  (max diff {float(np.max(np.abs(out - a)))})")
        # Integer sums near 2^24: products of 11-bit residues, 8 terms, accumulated onto C.
        for lim, cbase in ((1023, 0), (2047, 0), (1023, (1 << 23)), (1023, (1 << 24) - 8 * 1023 * 1023 - 1)):
            a = rng.integers(-lim, lim + 1, (8, 8)).astype(np.float32)
            b = rng.integers(-lim, lim + 1, (8, 8)).astype(np.float32)
            c0 = np.full((8, 8), float(cbase), np.float32)
            out = run_once(device, kernel_src("f32", "f32", 8, "coopLoad"), a.ravel(), b.ravel(), c0.ravel()).reshape(8, 8)
            ref = a.astype(np.int64) @ b.astype(np.int64) + int(cbase)
            ok = np.array_equal(out.astype(np.int64), ref) and bool(np.all(np.abs(ref) < (1 << 24)))
            print(f"integer residues |r|<={lim}, C={cbase}: exact {np.array_equal(out.astype(np.int64), ref)}; max |ref| 2^{np.log2(np.max(np.abs(ref))):.2f}; ok={ok}")
    except Exception:  # noqa: BLE001
        traceback.print_exc()

    for ab, c, size in (("f32", "f32", 8), ("f16", "f32", 16), ("f16", "f16", 16)):
        for wg, accs in ((32, 1), (32, 4), (128, 4), (256, 4)):
            try:
                print(f"rate {ab}/{c} {size}x{size} wg {wg} accs {accs}: {rate(device, ab, c, size, wg, accs, 2048):.1f} TFLOPS")
            except Exception as e:  # noqa: BLE001
                print(f"rate {ab}/{c} {size}x{size} wg {wg}: FAILED", str(e).replace("\n", " | ")[:300])
                break


if __name__ == "__main__":
    main()
