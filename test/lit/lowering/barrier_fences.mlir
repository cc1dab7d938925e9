// RUN: vyre-opt %s -t wgsl | filecheck %s

// A Barrier keeps `storageBarrier()` before its `workgroupBarrier()` only where
// some read_write buffer is accessed (load, store or atomic) both before and
// after it, an access anywhere in a loop around the barrier counting as both
// (vyre/lowering/fences.py). Read-only, uniform and workgroup buffers never
// need the storage fence.
vyre.kernel @fences workgroup_size(4, 1, 1) buffers(@x : read_only u32 binding(0), @out : read_write u32 binding(1), @res : read_write u32 binding(2), @sh : workgroup u32[4]) {
  %l = vyre.local_id x
  %zero = vyre.lit_u32 0
  %one = vyre.lit_u32 1
  %three = vyre.lit_u32 3
  vyre.store @out[%l] = %l
  // written before, read after by another invocation: the fence stays
  vyre.barrier
  %next = vyre.binop add %l, %one
  %v = vyre.load @out[%next] : u32
  vyre.store @sh[%l] = %v
  // `out` is not accessed after, `res` not before: no fence
  vyre.barrier
  vyre.loop "t" = %zero to %three {
    %y = vyre.load @x[%l] : u32
    vyre.store @sh[%l] = %y
    // `res` is stored in the loop around it (before the next iteration's
    // barrier): the fence stays
    vyre.barrier
    %u = vyre.load @sh[%zero] : u32
    vyre.store @res[%l] = %u
  }
  // nothing is accessed after: no fence
  vyre.barrier
}

// CHECK:      fn main(
// CHECK:        workgroupBarrier();
// CHECK-NEXT:   vyre_store_out(local_id.x, local_id.x);
// CHECK-NEXT:   storageBarrier();
// CHECK-NEXT:   workgroupBarrier();
// CHECK-NEXT:   vyre_store_sh(local_id.x, vyre_load_out(local_id.x + 1u));
// CHECK-NEXT:   workgroupBarrier();
// CHECK-NEXT:   for (var t: u32 = 0u; t < 3u; t = t + 1u) {
// CHECK-NEXT:     vyre_store_sh(local_id.x, vyre_load_x(local_id.x));
// CHECK-NEXT:     storageBarrier();
// CHECK-NEXT:     workgroupBarrier();
// CHECK-NEXT:     vyre_store_res(local_id.x, vyre_load_sh(0u));
// CHECK-NEXT:   }
// CHECK-NEXT:   workgroupBarrier();
// CHECK-NEXT: }
