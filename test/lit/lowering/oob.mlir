// RUN: vyre-opt %s -t wgsl | filecheck %s

// OOB guards: every load, store and atomic is bounded by the buffer's logical
// element count: the meta uniform for storage and uniform buffers (the runtime
// fills it; arrayLength would count padding), the declared count for workgroup
// buffers (naga would clamp those indices to the last element).
vyre.kernel @oob workgroup_size(8, 1, 1) buffers(@a : read_only u64 binding(0), @params : uniform u32 binding(1), @out : read_write u32 binding(2), @tile : workgroup u32[16]) {
  %i = vyre.invocation_id x
  %p = vyre.load @params[%i] : u32
  %v = vyre.load @a[%p] : u64
  %lo = vyre.cast %v to u32
  vyre.store @tile[%i] = %lo
  %t = vyre.load @tile[%p] : u32
  vyre.store @out[%i] = %t
  %n = vyre.buf_len @out
  vyre.store @out[%n] = %n
}

// CHECK:      struct VyreMeta {
// CHECK-NEXT:   wg_offset_x: u32,
// CHECK-NEXT:   wg_offset_y: u32,
// CHECK-NEXT:   wg_offset_z: u32,
// CHECK-NEXT:   len_a: u32,
// CHECK-NEXT:   len_params: u32,
// CHECK-NEXT:   len_out: u32,
// CHECK-NEXT: }
// CHECK:      @group(0) @binding(0) var<storage, read> a: array<vec2<u32>>;
// CHECK-NEXT: @group(0) @binding(1) var<uniform> params: array<vec4<u32>, 4096>;
// CHECK-NEXT: @group(0) @binding(2) var<storage, read_write> out: array<u32>;
// CHECK-NEXT: @group(0) @binding(3) var<uniform> _vyre_meta: VyreMeta;
// CHECK-NEXT: var<workgroup> tile: array<u32, 16>;

// CHECK:      fn vyre_load_params(i: u32) -> u32 {
// CHECK-NEXT:   if (i < _vyre_meta.len_params) {
// CHECK-NEXT:     return params[i >> 2u][i & 3u];
// CHECK-NEXT:   }
// CHECK-NEXT:   return 0u;
// CHECK-NEXT: }
// CHECK:      fn vyre_load_a(i: u32) -> vec2<u32> {
// CHECK-NEXT:   if (i < _vyre_meta.len_a) {
// CHECK-NEXT:     return a[i];
// CHECK-NEXT:   }
// CHECK-NEXT:   return vec2<u32>();
// CHECK-NEXT: }
// CHECK:      fn vyre_store_tile(i: u32, value: u32) {
// CHECK-NEXT:   if (i < 16u) {
// CHECK-NEXT:     tile[i] = value;
// CHECK-NEXT:   }
// CHECK-NEXT: }
// CHECK:      fn vyre_load_tile(i: u32) -> u32 {
// CHECK-NEXT:   if (i < 16u) {
// CHECK-NEXT:     return tile[i];
// CHECK:      fn vyre_store_out(i: u32, value: u32) {
// CHECK-NEXT:   if (i < _vyre_meta.len_out) {
// CHECK-NEXT:     out[i] = value;

// CHECK:        let p: u32 = vyre_load_params(invocation_id.x);
// CHECK-NEXT:   vyre_store_tile(invocation_id.x, vyre_load_a(p).x);
// CHECK-NEXT:   vyre_store_out(invocation_id.x, vyre_load_tile(p));
// CHECK-NEXT:   vyre_store_out(_vyre_meta.len_out, _vyre_meta.len_out);
// CHECK-NOT:  arrayLength
