"""Hand-written WGSL variants of vyre's hot kernels, each checked, all timed in one run.

    python bench/wgsl_variants.py [--n N] [--reps R] [--trials T] [--only xor,copy,reduce,hist,scan,vyre]

What shape should the lowering and the kernel ops emit? Each group holds the
same computation written several ways (bench/notes-h100-speed.md lists the
hypotheses and the predictions):

- xor (`out[i] = a[i] ^ b[i]`, 12 B per element) and copy (8 B): scalar, one
  or several `vec4<u32>` per invocation, adjacent (invocation t takes vec4s
  U t .. U t + U - 1) or strided by the workgroup size (t, t + WG, ...),
  workgroups of 64/128/256, a 2-D grid or a 1-D grid split at 65,535
  workgroups per dispatch (a uniform offset per slice, as vyre's runtime
  does), grid-stride loops, and the vectorised lowering's full shape (lane
  function with a pointer argument, meta uniform, guarded tail) in the layout
  a candidate lowering would emit.
- reduce (sum of u32, 4 B per element read): the current reduction's shape
  (grid-stride, four scalar loads per round, guarded), and vec4 loads with
  several groups/unrolls.
- hist (byte histogram, 4 B per word read): the current privatised shape (one
  word per round, four workgroup atomics per word) and vec4 loads, per-warp
  copies.
- scan (the third step of reduce-then-scan: tiles of 2,048 with block offsets
  given; 8 B per element): the current shape (tile through workgroup memory,
  serial 8, two-level totals) and a register form (each invocation loads its
  8 consecutive elements as two vec4s).
- vyre: the current lowering of xor (as `vyre.run` dispatches it) and the
  current kernel ops, for the same-run comparison.

Every variant's output is poisoned, computed once and compared with numpy
before it is timed. Timing: `--reps` dispatches in one compute pass, one
submit, a 4-byte readback; trials interleave the variants; medians. torch
peers (xor, copy, sum, bincount, cumsum) when torch with CUDA is present.
"""

from __future__ import annotations

import _common  # noqa: F401  # pyright: ignore[reportUnusedImport]  (puts the checkout on sys.path)

import argparse
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from _common import gpu_name, median, table
from vyre.cli.pipes import quiet_on_closed_pipe

LIMIT = 65535
POISON = 0xDEADBEEF


@dataclass
class Variant:
    group: str
    name: str
    record: Callable[[Any], None]
    check: Callable[[], str | None]
    nbytes: int
    """Bytes the computation must move (GB/s = nbytes / time)."""
    samples: list[float] = field(default_factory=list[float])


class Gpu:
    def __init__(self) -> None:
        import wgpu

        from vyre.runtime.wgpu_device import gpu_device

        self.wgpu: Any = wgpu
        self.gpu = gpu_device()
        self.device: Any = self.gpu.device
        usage = wgpu.BufferUsage
        self.storage_usage = usage.STORAGE | usage.COPY_SRC | usage.COPY_DST
        self.probe = self.storage(np.zeros(4, np.uint32))

    def storage(self, words: np.ndarray) -> Any:
        words = np.ascontiguousarray(words, dtype=np.uint32)
        buffer = self.device.create_buffer(size=max(16, words.nbytes), usage=self.storage_usage)
        self.device.queue.write_buffer(buffer, 0, words)
        return buffer

    def empty(self, nwords: int) -> Any:
        return self.device.create_buffer(size=max(16, nwords * 4), usage=self.storage_usage)

    def uniform(self, words: list[int]) -> Any:
        data = np.zeros(max(16, -(-len(words) // 4) * 4), np.uint32)
        data[: len(words)] = words
        buffer = self.device.create_buffer(size=data.nbytes, usage=self.wgpu.BufferUsage.UNIFORM | self.wgpu.BufferUsage.COPY_DST)
        self.device.queue.write_buffer(buffer, 0, data)
        return buffer

    def fill(self, buffer: Any, nwords: int, value: int) -> None:
        self.device.queue.write_buffer(buffer, 0, np.full(nwords, value, np.uint32))

    def read(self, buffer: Any, nwords: int) -> np.ndarray:
        return np.frombuffer(self.device.queue.read_buffer(buffer, 0, nwords * 4), dtype=np.uint32).copy()

    def pipeline(self, code: str) -> Any:
        module = self.device.create_shader_module(code=code)
        return self.device.create_compute_pipeline(layout="auto", compute={"module": module, "entry_point": "main"})

    def bind(self, pipeline: Any, buffers: list[Any]) -> Any:
        entries = [{"binding": k, "resource": {"buffer": b, "offset": 0, "size": b.size}} for k, b in enumerate(buffers)]
        return self.device.create_bind_group(layout=pipeline.get_bind_group_layout(0), entries=entries)

    def recorder(self, pipeline: Any, dispatches: list[tuple[Any, tuple[int, int, int]]]) -> Callable[[Any], None]:
        def record(compute: Any) -> None:
            compute.set_pipeline(pipeline)
            for group, size in dispatches:
                compute.set_bind_group(0, group)
                compute.dispatch_workgroups(*size)

        return record

    def run(self, record: Callable[[Any], None], reps: int) -> float:
        start = time.perf_counter()
        encoder = self.device.create_command_encoder()
        compute = encoder.begin_compute_pass()
        for _ in range(reps):
            record(compute)
        compute.end()
        self.device.queue.submit([encoder.finish()])
        self.device.queue.read_buffer(self.probe, 0, 4)
        return (time.perf_counter() - start) / reps


def grid2d(groups: int) -> tuple[int, int, int]:
    gy = -(-groups // LIMIT)
    return (-(-groups // gy), gy, 1)


def split_dispatches(g: Gpu, pipeline: Any, buffers: list[Any], groups: int) -> list[tuple[Any, tuple[int, int, int]]]:
    """A 1-D grid cut at LIMIT workgroups, each slice with its offset in a uniform (last binding)."""
    out: list[tuple[Any, tuple[int, int, int]]] = []
    for start in range(0, groups, LIMIT):
        out.append((g.bind(pipeline, [*buffers, g.uniform([start])]), (min(LIMIT, groups - start), 1, 1)))
    return out


# ---------------------------------------------------------------------------
# xor / copy
# ---------------------------------------------------------------------------

HEADER_VEC = """
@group(0) @binding(0) var<storage, read> a: array<vec4<u32>>;
{second}@group(0) @binding({out}) var<storage, read_write> out: array<vec4<u32>>;
"""
HEADER_SCALAR = """
@group(0) @binding(0) var<storage, read> a: array<u32>;
{second}@group(0) @binding({out}) var<storage, read_write> out: array<u32>;
"""


def _header(template: str, binary: bool, split: bool) -> str:
    vec = "vec4<u32>" if "vec4" in template else "u32"
    second = f"@group(0) @binding(1) var<storage, read> b: array<{vec}>;\n" if binary else ""
    text = template.format(second=second, out=2 if binary else 1)
    if split:
        text += f"@group(0) @binding({3 if binary else 2}) var<uniform> slice: vec4<u32>;\n"
    return text


def _group_expr(grid: str) -> str:
    if grid == "split":
        return "wid.x + slice.x"
    if grid == "2d":
        return "wid.x + wid.y * nwg.x"
    return "wid.x"


def map_scalar(binary: bool, wg: int, grid: str, n: int) -> str:
    value = "a[i] ^ b[i]" if binary else "a[i]"
    return _header(HEADER_SCALAR, binary, grid == "split") + f"""
@compute @workgroup_size({wg})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {{
  let i = ({_group_expr(grid)}) * {wg}u + lid.x;
  if (i < {n}u) {{
    out[i] = {value};
  }}
}}
"""


def map_vec4(binary: bool, wg: int, units: int, layout: str, grid: str, n: int) -> str:
    q = n // 4
    group = _group_expr(grid)
    if layout == "strided":
        index = [f"g * {wg * units}u + {u * wg}u + lid.x" for u in range(units)]
    else:
        index = [f"(g * {wg}u + lid.x) * {units}u + {u}u" for u in range(units)]
    lets = [f"  let q{u} = {index[u]};" for u in range(units)]
    loads = [f"    let a{u} = a[q{u}];" for u in range(units)]
    if binary:
        loads += [f"    let b{u} = b[q{u}];" for u in range(units)]
    value = (lambda u: f"a{u} ^ b{u}") if binary else (lambda u: f"a{u}")
    stores = [f"    out[q{u}] = {value(u)};" for u in range(units)]
    tail_value = (lambda u: f"a[q{u}] ^ b[q{u}]") if binary else (lambda u: f"a[q{u}]")
    tail = [f"  if (q{u} < {q}u) {{ out[q{u}] = {tail_value(u)}; }}" for u in range(units)]
    last = max(range(units), key=lambda u: u)
    return _header(HEADER_VEC, binary, grid == "split") + f"""
@compute @workgroup_size({wg})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {{
  let g = {group};
{chr(10).join(lets)}
  if (q{last} < {q}u) {{
{chr(10).join(loads)}
{chr(10).join(stores)}
    return;
  }}
{chr(10).join(tail)}
}}
"""


def map_gridstride(binary: bool, wg: int, groups: int, unroll: int, n: int) -> str:
    q = n // 4
    total = wg * groups
    value = (lambda s: f"a[{s}] ^ b[{s}]") if binary else (lambda s: f"a[{s}]")
    body = "\n".join(
        f"    {{ let s = q + {u * total}u; if (s < {q}u) {{ out[s] = {value('s')}; }} }}" for u in range(unroll)
    )
    return _header(HEADER_VEC, binary, False) + f"""
@compute @workgroup_size({wg})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {{
  for (var q = wid.x * {wg}u + lid.x; q < {q}u; q = q + {total * unroll}u) {{
{body}
  }}
}}
"""


def map_vyre_shape(wg: int, units: int, layout: str) -> str:
    """xor in the vectorised lowering's full shape: meta uniform (offsets, lengths,
    virtual count, vector end, groups per row), guarded element helpers, the lane
    function with a pointer argument, fast path and guarded tail; `units` vec4
    per invocation, `layout` adjacent or strided, group = x + y * groups_x."""
    per = units * 4
    if layout == "strided":
        qs = [f"  let q{u} = grp * {wg * units}u + {u * wg}u + lid.x;" for u in range(units)]
    else:
        qs = [f"  let q{u} = (grp * {wg}u + lid.x) * {units}u + {u}u;" for u in range(units)]
    last = units - 1
    loads = []
    for u in range(units):
        loads += [f"    let av{u} = a[q{u}];", f"    let bv{u} = b[q{u}];"]
    lanes, stores, variables = [], [], []
    for u in range(units):
        for c, comp in enumerate("xyzw"):
            k = 4 * u + c
            variables.append(f"    var o{k}: u32 = 0u;")
            lanes.append(f"    vyre_lane(q{u} * 4u + {c}u, av{u}.{comp}, bv{u}.{comp}, &o{k});")
        stores.append(f"    out[q{u}] = vec4<u32>(o{4*u}, o{4*u+1}, o{4*u+2}, o{4*u+3});")
    select = "q0"
    for u in range(1, units):
        select = f"select({select}, q{u}, j >= {4 * u}u)"
    return f"""
struct VyreMeta {{ wg_offset_x: u32, wg_offset_y: u32, wg_offset_z: u32, len_a: u32, len_b: u32, len_out: u32, virtual_count: u32, vector_end: u32, groups_x: u32 }}
@group(0) @binding(0) var<storage, read> a: array<vec4<u32>>;
@group(0) @binding(1) var<storage, read> b: array<vec4<u32>>;
@group(0) @binding(2) var<storage, read_write> out: array<vec4<u32>>;
@group(0) @binding(3) var<uniform> vm: VyreMeta;
fn vyre_load_a(i: u32) -> u32 {{ if (i < vm.len_a) {{ return a[i >> 2u][i & 3u]; }} return 0u; }}
fn vyre_load_b(i: u32) -> u32 {{ if (i < vm.len_b) {{ return b[i >> 2u][i & 3u]; }} return 0u; }}
fn vyre_store_out(i: u32, value: u32) {{ if (i < vm.len_out) {{ out[i >> 2u][i & 3u] = value; }} }}
fn vyre_lane(idx: u32, a_element: u32, b_element: u32, out_element: ptr<function, u32>) {{
  let x: u32 = a_element;
  let y: u32 = b_element;
  if (idx < vm.len_out) {{
    *out_element = x ^ y;
  }}
}}
@compute @workgroup_size({wg})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {{
  let grp = (wid.x + vm.wg_offset_x) + (wid.y + vm.wg_offset_y) * vm.groups_x;
{chr(10).join(qs)}
  if (q0 * 4u >= vm.virtual_count) {{
    return;
  }}
  if (q{last} * 4u + 4u <= vm.vector_end) {{
{chr(10).join(loads)}
{chr(10).join(variables)}
{chr(10).join(lanes)}
{chr(10).join(stores)}
    return;
  }}
  for (var j: u32 = 0u; j < {per}u; j = j + 1u) {{
    let element = {select} * 4u + (j & 3u);
    if (element < vm.virtual_count) {{
      var out_lane: u32 = 0u;
      vyre_lane(element, vyre_load_a(element), vyre_load_b(element), &out_lane);
      vyre_store_out(element, out_lane);
    }}
  }}
}}
"""


def map_variants(g: Gpu, n: int, binary: bool) -> list[Variant]:
    rng = np.random.default_rng(11)
    a = rng.integers(0, 2**32, n, dtype=np.uint32)
    b = rng.integers(0, 2**32, n, dtype=np.uint32)
    expect = a ^ b if binary else a
    ba, bb, bo = g.storage(a), g.storage(b), g.empty(n)
    ins = [ba, bb, bo] if binary else [ba, bo]
    name = "xor" if binary else "copy"
    nbytes = (12 if binary else 8) * n
    out: list[Variant] = []

    def add(label: str, code: str, dispatches: Callable[[Any], list[tuple[Any, tuple[int, int, int]]]]) -> None:
        pipeline = g.pipeline(code)
        record = g.recorder(pipeline, dispatches(pipeline))

        def check() -> str | None:
            g.fill(bo, n, POISON)
            g.run(record, 1)
            bad = np.count_nonzero(g.read(bo, n) != expect)
            return f"{bad} words differ" if bad else None

        out.append(Variant(name, label, record, check, nbytes))

    def plain(groups: tuple[int, int, int]) -> Callable[[Any], list[tuple[Any, tuple[int, int, int]]]]:
        return lambda p: [(g.bind(p, ins), groups)]

    def split(groups: int) -> Callable[[Any], list[tuple[Any, tuple[int, int, int]]]]:
        return lambda p: split_dispatches(g, p, ins, groups)

    q = n // 4
    out_groups = -(-n // 256)
    add("scalar wg256 2d", map_scalar(binary, 256, "2d", n), plain(grid2d(out_groups)))
    add("scalar wg256 1d-split", map_scalar(binary, 256, "split", n), split(out_groups))
    configs = [
        (64, 2, "adjacent", "split"), (64, 2, "adjacent", "2d"), (256, 2, "adjacent", "2d"),
        (64, 2, "strided", "split"), (64, 2, "strided", "2d"), (128, 2, "strided", "2d"),
        (256, 2, "strided", "2d"), (256, 1, "strided", "2d"), (256, 4, "strided", "2d"),
        (128, 4, "strided", "2d"), (256, 4, "adjacent", "2d"), (512, 2, "strided", "2d"),
    ]
    for wg, units, layout, grid in configs:
        groups = -(-q // (wg * units))
        dispatch = split(groups) if grid == "split" else plain(grid2d(groups))
        add(f"vec4x{units} {layout} wg{wg} {grid}", map_vec4(binary, wg, units, layout, grid, n), dispatch)
    for groups, unroll in ((132 * 8, 1), (132 * 8, 2), (132 * 16, 2)):
        add(f"vec4 grid-stride x{unroll} wg256 {groups} groups", map_gridstride(binary, 256, groups, unroll, n), plain((groups, 1, 1)))
    if binary:
        for wg, units, layout in ((64, 2, "adjacent"), (256, 2, "strided"), (128, 2, "strided"), (256, 4, "strided")):
            groups = -(-q // (wg * units))
            gx, gy, _ = grid2d(groups)
            meta = g.uniform([0, 0, 0, n, n, n, n, n, gx])
            code = map_vyre_shape(wg, units, layout)
            add(f"vyre-shape vec4x{units} {layout} wg{wg} 2d", code,
                lambda p, gx=gx, gy=gy, meta=meta: [(g.bind(p, [*ins, meta]), (gx, gy, 1))])
    return out


# ---------------------------------------------------------------------------
# reduce_sum
# ---------------------------------------------------------------------------


TREE = """
  sh[lid.x] = s;
  workgroupBarrier();
  for (var step = 128u; step > 0u; step = step >> 1u) {
    if (lid.x < step) { sh[lid.x] = sh[lid.x] + sh[lid.x + step]; }
    workgroupBarrier();
  }
  if (lid.x == 0u) { atomicAdd(&out[0], sh[0]); }
"""


def reduce_scalar(n: int, groups: int, unroll: int) -> str:
    stride = groups * 256
    rounds = -(-(-(-n // stride)) // unroll)
    loads = "\n".join(f"    let i{u} = base + (k * {unroll}u + {u}u) * {stride}u;\n    let v{u} = load_x(i{u});" for u in range(unroll))
    adds = "\n".join(f"    acc{u} = acc{u} + select(0u, v{u}, i{u} < {n}u);" for u in range(unroll))
    accs = "\n".join(f"  var acc{u}: u32 = 0u;" for u in range(unroll))
    total = " + ".join(f"acc{u}" for u in range(unroll))
    return f"""
@group(0) @binding(0) var<storage, read> x: array<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<atomic<u32>>;
var<workgroup> sh: array<u32, 256>;
fn load_x(i: u32) -> u32 {{ if (i < {n}u) {{ return x[i]; }} return 0u; }}
@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {{
{accs}
  let base = wid.x * 256u + lid.x;
  for (var k = 0u; k < {rounds}u; k = k + 1u) {{
{loads}
{adds}
  }}
  let s = {total};
{TREE}
}}
"""


def reduce_vec4(n: int, groups: int, unroll: int) -> str:
    q = n // 4
    stride = groups * 256
    rounds = -(-(-(-q // stride)) // unroll)
    loads = "\n".join(f"    let v{u} = load4(base + (k * {unroll}u + {u}u) * {stride}u);" for u in range(unroll))
    adds = "\n".join(f"    acc{u} = acc{u} + v{u};" for u in range(unroll))
    accs = "\n".join(f"  var acc{u} = vec4<u32>();" for u in range(unroll))
    total = " + ".join(f"acc{u}" for u in range(unroll))
    return f"""
@group(0) @binding(0) var<storage, read> x: array<vec4<u32>>;
@group(0) @binding(1) var<storage, read_write> out: array<atomic<u32>>;
var<workgroup> sh: array<u32, 256>;
fn load4(q: u32) -> vec4<u32> {{ if (q < {q}u) {{ return x[q]; }} return vec4<u32>(); }}
@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {{
{accs}
  let base = wid.x * 256u + lid.x;
  for (var k = 0u; k < {rounds}u; k = k + 1u) {{
{loads}
{adds}
  }}
  let t = {total};
  let s = t.x + t.y + t.z + t.w;
{TREE}
}}
"""


def reduce_variants(g: Gpu, n: int) -> list[Variant]:
    x = np.random.default_rng(12).integers(0, 2**32, n, dtype=np.uint32)
    expect = int(x.sum(dtype=np.uint64)) & 0xFFFF_FFFF
    bx, bo = g.storage(x), g.empty(4)
    out: list[Variant] = []
    for label, code, groups in [
        ("scalar x4 2048 groups (current shape)", reduce_scalar(n, 2048, 4), 2048),
        ("scalar x8 2048 groups", reduce_scalar(n, 2048, 8), 2048),
        ("vec4 x1 2048 groups", reduce_vec4(n, 2048, 1), 2048),
        ("vec4 x2 2048 groups", reduce_vec4(n, 2048, 2), 2048),
        ("vec4 x4 2048 groups", reduce_vec4(n, 2048, 4), 2048),
        ("vec4 x2 1056 groups", reduce_vec4(n, 1056, 2), 1056),
        ("vec4 x4 1056 groups", reduce_vec4(n, 1056, 4), 1056),
        ("vec4 x2 4224 groups", reduce_vec4(n, 4224, 2), 4224),
    ]:
        pipeline = g.pipeline(code)
        record = g.recorder(pipeline, [(g.bind(pipeline, [bx, bo]), (groups, 1, 1))])

        def check(record: Callable[[Any], None] = record) -> str | None:
            g.fill(bo, 4, 0)
            g.run(record, 1)
            got = int(g.read(bo, 1)[0])
            return None if got == expect else f"sum {got:#x} != {expect:#x}"

        out.append(Variant("reduce", label, record, check, 4 * n))
    return out


# ---------------------------------------------------------------------------
# byte histogram
# ---------------------------------------------------------------------------


def hist_program(words: int, groups: int, copies: int, copy_of: str, vec: int, unroll: int) -> str:
    """256 bins x `copies` in workgroup memory; each round reads `unroll` x
    (vec4 if vec == 4 else one word) per invocation, grid-stride."""
    capacity = 256 * copies
    stride = groups * 256
    units = words // vec
    rounds = -(-(-(-units // stride)) // unroll)
    array = "array<vec4<u32>>" if vec == 4 else "array<u32>"
    zero = "vec4<u32>()" if vec == 4 else "0u"
    loads, counts = [], []
    for u in range(unroll):
        loads.append(f"    let i{u} = first + (k * {unroll}u + {u}u) * {stride}u;")
        loads.append(f"    var w{u} = {zero};")
        loads.append(f"    if (i{u} < {units}u) {{ w{u} = x[i{u}]; }}")
    for u in range(unroll):
        comps = ["x", "y", "z", "w"] if vec == 4 else [""]
        counts.append(f"    if (i{u} < {units}u) {{")
        for comp in comps:
            word = f"w{u}.{comp}" if comp else f"w{u}"
            for j in range(4):
                counts.append(f"      atomicAdd(&bins[cb + (({word} >> {8 * j}u) & 255u)], 1u);")
        counts.append("    }")
    return f"""
@group(0) @binding(0) var<storage, read> x: {array};
@group(0) @binding(1) var<storage, read_write> out: array<atomic<u32>>;
var<workgroup> bins: array<atomic<u32>, {capacity}>;
@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {{
  for (var z = lid.x; z < {capacity}u; z = z + 256u) {{ atomicStore(&bins[z], 0u); }}
  workgroupBarrier();
  let cb = ({copy_of}) * 256u;
  let first = wid.x * 256u + lid.x;
  for (var k = 0u; k < {rounds}u; k = k + 1u) {{
{chr(10).join(loads)}
{chr(10).join(counts)}
  }}
  workgroupBarrier();
  var total = 0u;
  for (var c = 0u; c < {copies}u; c = c + 1u) {{ total = total + atomicLoad(&bins[c * 256u + lid.x]); }}
  if (total != 0u) {{ atomicAdd(&out[lid.x], total); }}
}}
"""


def hist_variants(g: Gpu, n: int) -> list[Variant]:
    """n words = 4n bytes."""
    data = np.random.default_rng(13).integers(0, 256, 4 * n, dtype=np.uint8)
    expect = np.bincount(data, minlength=256).astype(np.uint32)
    bx, bo = g.storage(data.view(np.uint32)), g.empty(256)
    out: list[Variant] = []
    for label, args, groups in [
        ("word x1, 4 copies l%4 (current shape)", (2048, 4, "lid.x % 4u", 1, 1), 2048),
        ("word x4, 4 copies l%4", (2048, 4, "lid.x % 4u", 1, 4), 2048),
        ("vec4 x1, 4 copies l%4", (2048, 4, "lid.x % 4u", 4, 1), 2048),
        ("vec4 x2, 4 copies l%4", (2048, 4, "lid.x % 4u", 4, 2), 2048),
        ("vec4 x1, 8 copies per warp", (2048, 8, "lid.x / 32u", 4, 1), 2048),
        ("vec4 x1, 8 copies l%8", (2048, 8, "lid.x % 8u", 4, 1), 2048),
        ("vec4 x1, 1 copy", (2048, 1, "0u", 4, 1), 2048),
        ("vec4 x1, 4 copies l%4, 4224 groups", (4224, 4, "lid.x % 4u", 4, 1), 4224),
    ]:
        pipeline = g.pipeline(hist_program(n, *args))
        record = g.recorder(pipeline, [(g.bind(pipeline, [bx, bo]), (groups, 1, 1))])

        def check(record: Callable[[Any], None] = record) -> str | None:
            g.fill(bo, 256, 0)
            g.run(record, 1)
            got = g.read(bo, 256)
            bad = np.count_nonzero(got != expect)
            return f"{bad} bins differ" if bad else None

        out.append(Variant("hist", label, record, check, 4 * n))
    return out


# ---------------------------------------------------------------------------
# scan tiles (step 3 of reduce-then-scan)
# ---------------------------------------------------------------------------

SCAN_COMMON = """
@group(0) @binding(0) var<storage, read> x: array<{vec}>;
@group(0) @binding(1) var<storage, read> offsets: array<u32>;
@group(0) @binding(2) var<storage, read_write> out: array<{vec}>;
var<workgroup> totals: array<u32, 272>;
var<workgroup> groups: array<u32, 16>;
// exclusive scan of v over the 256 invocations (two levels, as vyre's workgroup_scan)
fn wg_scan(lid: u32, v: u32) -> vec2<u32> {{
  totals[lid + (lid >> 4u)] = v;
  workgroupBarrier();
  if (lid < 16u) {{
    var r = 0u;
    for (var j = 0u; j < 16u; j = j + 1u) {{
      let at = lid * 16u + j;
      r = r + totals[at + (at >> 4u)];
      totals[at + (at >> 4u)] = r;
    }}
    groups[lid] = r;
  }}
  workgroupBarrier();
  var before = 0u;
  var whole = 0u;
  for (var h = 0u; h < 16u; h = h + 1u) {{
    let s = groups[h];
    before = before + select(0u, s, h < (lid >> 4u));
    whole = whole + s;
  }}
  let mine = before + totals[lid + (lid >> 4u)] - v;
  workgroupBarrier();
  return vec2<u32>(mine, whole);
}}
"""


def scan_registers(n: int, items: int, subtiles: int, direct: bool) -> str:
    """Each invocation scans `items` consecutive elements (items/4 vec4s) in
    registers; tile = 256 x items. direct: vec4 loads/stores straight from
    global memory (adjacent vec4s per invocation); else staged through
    workgroup memory with strided (coalesced) vec4 accesses."""
    units = items // 4
    tile_vec = 256 * units
    q = n // 4
    lines = []
    if direct:
        for u in range(units):
            lines.append(f"    let v{u} = x[tb + lid * {units}u + {u}u];")
    else:
        for u in range(units):
            lines.append(f"    stage[lid + {u * 256}u] = x[tb + lid + {u * 256}u];")
        lines.append("    workgroupBarrier();")
        for u in range(units):
            lines.append(f"    let v{u} = stage[lid * {units}u + {u}u];")
    lines.append("    var run = 0u;")
    for u in range(units):
        for comp in "xyzw":
            lines.append(f"    run = run + v{u}.{comp}; let s{u}{comp} = run;")
    lines.append("    let ex = wg_scan(lid, run);")
    lines.append("    let add = carry + ex.x;")
    outs = [f"vec4<u32>(s{u}x + add, s{u}y + add, s{u}z + add, s{u}w + add)" for u in range(units)]
    if direct:
        for u in range(units):
            lines.append(f"    out[tb + lid * {units}u + {u}u] = {outs[u]};")
    else:
        for u in range(units):
            lines.append(f"    stage[lid * {units}u + {u}u] = {outs[u]};")
        lines.append("    workgroupBarrier();")
        for u in range(units):
            lines.append(f"    out[tb + lid + {u * 256}u] = stage[lid + {u * 256}u];")
        lines.append("    workgroupBarrier();")
    lines.append("    carry = carry + ex.y;")
    stage = "" if direct else f"var<workgroup> stage: array<vec4<u32>, {tile_vec}>;\n"
    del q
    return SCAN_COMMON.format(vec="vec4<u32>") + stage + f"""
@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lidv: vec3<u32>) {{
  let lid = lidv.x;
  var carry = offsets[wid.x];
  for (var t = 0u; t < {subtiles}u; t = t + 1u) {{
    let tb = (wid.x * {subtiles}u + t) * {tile_vec}u;
{chr(10).join(lines)}
  }}
}}
"""


def scan_current(n: int) -> str:
    """vyre's scan_tiles_program shape: tile of 2,048 through skewed workgroup
    memory, serial 8 per invocation, two-level totals, add, store."""
    return SCAN_COMMON.format(vec="u32") + """
var<workgroup> tile: array<u32, 2112>;
fn sk(i: u32) -> u32 { return i + (i >> 5u); }
@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lidv: vec3<u32>) {
  let lid = lidv.x;
  var carry = offsets[wid.x];
  for (var t = 0u; t < 8u; t = t + 1u) {
    let tb = wid.x * 16384u + t * 2048u;
    for (var k = 0u; k < 8u; k = k + 1u) { tile[sk(k * 256u + lid)] = x[tb + k * 256u + lid]; }
    workgroupBarrier();
    var run = 0u;
    for (var k = 0u; k < 8u; k = k + 1u) { let at = sk(lid * 8u + k); run = run + tile[at]; tile[at] = run; }
    let ex = wg_scan(lid, run);
    for (var k = 0u; k < 8u; k = k + 1u) { let at = sk(lid * 8u + k); tile[at] = tile[at] + ex.x; }
    workgroupBarrier();
    for (var k = 0u; k < 8u; k = k + 1u) { out[tb + k * 256u + lid] = tile[sk(k * 256u + lid)] + carry; }
    carry = carry + ex.y;
    workgroupBarrier();
  }
}
"""


def scan_variants(g: Gpu, n: int) -> list[Variant]:
    x = np.random.default_rng(14).integers(0, 1000, n, dtype=np.uint32)
    expect = np.cumsum(x, dtype=np.uint32)
    bx, bo = g.storage(x), g.empty(n)
    out: list[Variant] = []
    for label, code, block in [
        ("current shape: smem tile 2048 x8 subtiles", scan_current(n), 16384),
        ("registers 8/inv direct vec4, 8 subtiles", scan_registers(n, 8, 8, True), 16384),
        ("registers 8/inv staged vec4, 8 subtiles", scan_registers(n, 8, 8, False), 16384),
        ("registers 16/inv direct vec4, 4 subtiles", scan_registers(n, 16, 4, True), 16384),
        ("registers 16/inv staged vec4, 4 subtiles", scan_registers(n, 16, 4, False), 16384),
        ("registers 8/inv direct vec4, 2 subtiles", scan_registers(n, 8, 2, True), 4096),
    ]:
        blocks = n // block
        sums = x.reshape(blocks, block).sum(axis=1, dtype=np.uint64).astype(np.uint32)
        offs = np.zeros(blocks, np.uint32)
        offs[1:] = np.cumsum(sums[:-1], dtype=np.uint32)
        bofs = g.storage(offs)
        pipeline = g.pipeline(code)
        record = g.recorder(pipeline, [(g.bind(pipeline, [bx, bofs, bo]), (blocks, 1, 1))])

        def check(record: Callable[[Any], None] = record) -> str | None:
            g.fill(bo, n, POISON)
            g.run(record, 1)
            bad = np.count_nonzero(g.read(bo, n) != expect)
            return f"{bad} words differ" if bad else None

        out.append(Variant("scan", label, record, check, 8 * n))
    return out


# ---------------------------------------------------------------------------
# vyre's current lowering and kernel ops, torch peers
# ---------------------------------------------------------------------------


def vyre_timers(n: int, reps: int) -> list[tuple[str, str, Callable[[], float], int]]:
    import vyre
    from elementwise import Setup, numpy_oracle  # pyright: ignore[reportMissingImports]
    from kernels import vyre_time  # pyright: ignore[reportMissingImports]

    out: list[tuple[str, str, Callable[[], float], int]] = []
    setup = Setup("xor", n)
    setup.check(setup.lowered, numpy_oracle("xor", setup.a, setup.b), "xor lowered")
    out.append(("xor", "vyre lowered (vyre.run's dispatch)", lambda: setup.time(setup.lowered, reps), 12 * n))
    rng = np.random.default_rng(7)
    x = rng.integers(0, 2**32, n, dtype=np.uint32)
    small = rng.integers(0, 1000, n, dtype=np.uint32)
    data = rng.integers(0, 256, 4 * n, dtype=np.uint8)
    from vyre import ops

    for group, op_id, arg, expect, nbytes in [
        ("reduce", "reductions.reduce_sum_u32", x, int(x.sum(dtype=np.uint64)) & 0xFFFF_FFFF, 4 * n),
        ("hist", "stats.byte_histogram", data, None, 4 * n),
        ("scan", "scan.prefix_sum_inclusive_u32", small, None, 8 * n),
    ]:
        device_arg = vyre.to_device(arg)
        got = np.asarray(next(iter(ops.evaluate_raw(op_id, [device_arg]).values())))
        if group == "reduce":
            assert int(got[0]) == expect, op_id
        elif group == "hist":
            assert (got == np.bincount(data, minlength=256)).all(), op_id
        else:
            assert (got == np.cumsum(small, dtype=np.uint32)).all(), op_id
        out.append((group, f"vyre op {op_id}", vyre_time(op_id, [device_arg], reps), nbytes))
    return out


def torch_timers(n: int, reps: int) -> list[tuple[str, str, Callable[[], float], int]]:
    try:
        import torch
    except ImportError:
        return []
    if not torch.cuda.is_available():
        return []
    rng = np.random.default_rng(15)
    x = torch.from_numpy(rng.integers(-(2**31), 2**31, n, dtype=np.int32)).cuda()
    y = torch.from_numpy(rng.integers(-(2**31), 2**31, n, dtype=np.int32)).cuda()
    out = torch.empty_like(x)
    small = torch.from_numpy(rng.integers(0, 1000, n, dtype=np.int32)).cuda()
    data = torch.from_numpy(rng.integers(0, 256, 4 * n, dtype=np.uint8)).cuda()

    def timer(fn: Callable[[], object]) -> Callable[[], float]:
        def once() -> float:
            torch.cuda.synchronize()
            start = time.perf_counter()
            for _ in range(reps):
                fn()
            torch.cuda.synchronize()
            return (time.perf_counter() - start) / reps

        return once

    return [
        ("xor", "torch.bitwise_xor int32", timer(lambda: torch.bitwise_xor(x, y, out=out)), 12 * n),
        ("copy", "torch copy_", timer(lambda: out.copy_(x)), 8 * n),
        ("reduce", "torch.max int32 (read reference)", timer(lambda: x.max()), 4 * n),
        ("reduce", "torch.sum int32", timer(lambda: x.sum()), 4 * n),
        ("hist", "torch.bincount uint8", timer(lambda: data.bincount(minlength=256)), 4 * n),
        ("scan", "torch.cumsum int32", timer(lambda: small.cumsum(0, dtype=torch.int32)), 8 * n),
    ]


@quiet_on_closed_pipe
def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--n", type=int, help="u32 elements (default 64 Mi on a GPU, 1 Mi on a CPU device)")
    parser.add_argument("--reps", type=int, help="dispatches per submit (default 20 on a GPU, 2 on a CPU device)")
    parser.add_argument("--trials", type=int, default=7)
    parser.add_argument("--only", default="xor,copy,reduce,hist,scan,vyre,torch")
    args = parser.parse_args()
    from _common import gpu_is_cpu

    cpu = gpu_is_cpu()
    n = args.n or (1 << 20 if cpu else 1 << 26)
    if n % 16384:
        raise SystemExit("--n must be a multiple of 16,384 (the scan variants' block)")
    reps = args.reps or (2 if cpu else 20)
    only = set(args.only.split(","))
    device = gpu_name()
    print(f"device: {device}; n = {n:,}; reps = {reps}; trials = {args.trials}", flush=True)
    g = Gpu()
    variants: list[Variant] = []
    if "xor" in only:
        variants += map_variants(g, n, True)
    if "copy" in only:
        variants += map_variants(g, n, False)
    if "reduce" in only:
        variants += reduce_variants(g, n)
    if "hist" in only:
        variants += hist_variants(g, n)
    if "scan" in only:
        variants += scan_variants(g, n)
    timers: list[tuple[str, str, Callable[[], float], int]] = []
    failed: list[str] = []
    for v in variants:
        error = v.check()
        if error:
            failed.append(f"{v.group} / {v.name}: {error}")
            print(f"WRONG {v.group} / {v.name}: {error}", flush=True)
            continue
        timers.append((v.group, v.name, lambda v=v: g.run(v.record, reps), v.nbytes))
    if "vyre" in only:
        timers += vyre_timers(n, reps)
    if "torch" in only:
        timers += torch_timers(n, reps)
    for _, _, fn, _ in timers:
        fn()
    samples: list[list[float]] = [[] for _ in timers]
    for _ in range(args.trials):
        for k, (_, _, fn, _) in enumerate(timers):
            samples[k].append(fn())
    rows = []
    for (group, name, _, nbytes), s in zip(timers, samples):
        t = median(s)
        spread = (max(s) - min(s)) / t
        rows.append([device, group, name, f"{t * 1e6:,.1f}", f"{nbytes / t / 1e9:,.0f}", f"{spread:.1%}"])
    print(table(["device", "group", "variant", "µs", "GB/s", "spread (max-min)/median"], rows))
    if failed:
        print("FAILED CHECKS:\n" + "\n".join(failed))


if __name__ == "__main__":
    main()
