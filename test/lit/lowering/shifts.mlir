// RUN: vyre-opt %s -t wgsl | filecheck %s

// Shift guard: amounts are masked `& 31u`; constant amounts are folded to a
// literal below 32 (WGSL rejects constant shift amounts >= 32).
vyre.kernel @shifts workgroup_size(1, 1, 1) buffers(@a : read_only u32 binding(0), @out : read_write u32 binding(1)) {
  %i0 = vyre.lit_u32 0
  %i1 = vyre.lit_u32 1
  %x = vyre.load @a[%i0] : u32
  %s = vyre.load @a[%i1] : u32
  %left = vyre.binop shl %x, %s
  vyre.store @out[%i0] = %left
  %c35 = vyre.lit_u32 35
  %x1 = vyre.load @a[%i0] : u32
  %right = vyre.binop shr %x1, %c35
  vyre.store @out[%i1] = %right
  %c32 = vyre.lit_u32 32
  %x2 = vyre.load @a[%i0] : u32
  %same = vyre.binop shl %x2, %c32
  %i2 = vyre.lit_u32 2
  vyre.store @out[%i2] = %same
  %ones = vyre.lit_u32 4294967295
  %c33 = vyre.lit_u32 33
  %folded = vyre.binop shl %ones, %c33
  %i3 = vyre.lit_u32 3
  vyre.store @out[%i3] = %folded
}

// CHECK:      fn main(
// CHECK-NEXT:   vyre_store_out(0u, vyre_load_a(0u) << (vyre_load_a(1u) & 31u));
// CHECK-NEXT:   vyre_store_out(1u, vyre_load_a(0u) >> 3u);
// CHECK-NEXT:   vyre_store_out(2u, vyre_load_a(0u));
// CHECK-NEXT:   vyre_store_out(3u, 0xfffffffeu);
// CHECK-NEXT: }
