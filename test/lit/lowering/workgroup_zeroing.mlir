// RUN: vyre-opt %s -t wgsl | filecheck %s

// wgpu-native does not zero workgroup memory: the invocations of each workgroup
// clear every workgroup buffer cooperatively at entry, then wait at a barrier,
// before the program's first statement.
vyre.kernel @zero workgroup_size(8, 4, 1) buffers(@tile : workgroup u32[100], @pairs : workgroup u64[5], @out : read_write u32 binding(0)) {
  %l = vyre.local_id y
  %t = vyre.load @tile[%l] : u32
  vyre.store @out[%l] = %t
  vyre.barrier
}

// CHECK:      var<workgroup> tile: array<u32, 100>;
// CHECK-NEXT: var<workgroup> pairs: array<vec2<u32>, 5>;
// CHECK:      @compute @workgroup_size(8, 4, 1)
// CHECK-NEXT: fn main(@builtin(local_invocation_id) local_id: vec3<u32>, @builtin(local_invocation_index) local_index: u32) {
// CHECK-NEXT:   // Workgroup memory starts at zero (wgpu-native does not zero it):
// CHECK-NEXT:   // the invocations clear it cooperatively, then wait for each other.
// CHECK-NEXT:   for (var k: u32 = local_index; k < 100u; k = k + 32u) {
// CHECK-NEXT:     tile[k] = 0u;
// CHECK-NEXT:   }
// CHECK-NEXT:   for (var k: u32 = local_index; k < 5u; k = k + 32u) {
// CHECK-NEXT:     pairs[k] = vec2<u32>();
// CHECK-NEXT:   }
// CHECK-NEXT:   workgroupBarrier();
// CHECK-NEXT:   vyre_store_out(local_id.y, vyre_load_tile(local_id.y));
// CHECK-NEXT:   workgroupBarrier();
// CHECK-NEXT: }
