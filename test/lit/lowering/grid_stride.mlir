// RUN: vyre-opt %s -t wgsl | filecheck %s

// A grid-stride pass (the shape of every kernel op's main loop,
// vyre/kernels/families/common.py `Grid`): invocation g visits g, g + stride,
// g + 2 stride, ... for `rounds` rounds, both read from a uniform parameter
// block. The loop bound is evaluated once before the loop (`k_end`), the
// strided index is a `let` (used twice), the bound test reads the logical length
// from the meta uniform, the accumulator is a `var` (assigned), uniform words are
// read four per vec4, and the per-invocation partial goes to one global atomic.
vyre.kernel @grid_sum workgroup_size(256, 1, 1) buffers(@x : read_only u32 binding(0), @params : uniform u32 binding(1), @total : read_write u32 binding(2)) {
  %zero = vyre.lit_u32 0
  %one = vyre.lit_u32 1
  %acc0 = vyre.lit_u32 0
  vyre.let "acc" = %acc0
  %gid = vyre.invocation_id x
  %rounds = vyre.load @params[%zero] : u32
  vyre.loop "k" = %zero to %rounds {
    %k = vyre.var "k" : u32
    %stride = vyre.load @params[%one] : u32
    %step = vyre.binop mul %k, %stride
    %idx = vyre.binop add %gid, %step
    %n = vyre.buf_len @x
    %in = vyre.binop lt %idx, %n
    vyre.if %in {
      %a = vyre.var "acc" : u32
      %v = vyre.load @x[%idx] : u32
      %s = vyre.binop add %a, %v
      vyre.assign "acc" = %s
    }
  }
  %final = vyre.var "acc" : u32
  %old = vyre.atomic add @total[%zero], %final
}

// CHECK:      @group(0) @binding(1) var<uniform> params: array<vec4<u32>, 4096>;
// CHECK-NEXT: @group(0) @binding(2) var<storage, read_write> total: array<atomic<u32>>;
// CHECK-NEXT: @group(0) @binding(3) var<uniform> _vyre_meta: VyreMeta;

// CHECK:      fn vyre_load_params(i: u32) -> u32 {
// CHECK-NEXT:   if (i < _vyre_meta.len_params) {
// CHECK-NEXT:     return params[i >> 2u][i & 3u];

// CHECK:      @compute @workgroup_size(256, 1, 1)
// CHECK-NEXT: fn main(@builtin(workgroup_id) dispatch_workgroup_id: vec3<u32>, @builtin(local_invocation_id) local_id: vec3<u32>) {
// CHECK-NEXT:   let workgroup_id = dispatch_workgroup_id + vec3<u32>(_vyre_meta.wg_offset_x, _vyre_meta.wg_offset_y, _vyre_meta.wg_offset_z);
// CHECK-NEXT:   let invocation_id = workgroup_id * vec3<u32>(256u, 1u, 1u) + local_id;
// CHECK-NEXT:   var acc: u32 = 0u;
// CHECK-NEXT:   let k_end: u32 = vyre_load_params(0u);
// CHECK-NEXT:   for (var k: u32 = 0u; k < k_end; k = k + 1u) {
// CHECK-NEXT:     let idx: u32 = invocation_id.x + (k * vyre_load_params(1u));
// CHECK-NEXT:     if (idx < _vyre_meta.len_x) {
// CHECK-NEXT:       acc = acc + vyre_load_x(idx);
// CHECK-NEXT:     }
// CHECK-NEXT:   }
// CHECK-NEXT:   _ = vyre_atomic_add_total(0u, acc);
// CHECK-NEXT: }
