// RUN: vyre-opt %s -t wgsl | filecheck %s --check-prefix=PORTABLE
// RUN: vyre-opt %s -t "wgsl{int64=true}" | filecheck %s --check-prefix=INT64

// `mul_high` is the high word of the 64-bit product. Portable WGSL has no
// 64-bit integers: a helper computes it from 16-bit halves. For an adapter with
// wgpu's `shader-int64` it is one `u64` product. Two literal operands fold:
// 0xffffffff * 0xffffffff = 0xfffffffe00000001. The helper's parameters never
// shadow a module-scope name (here buffer @a's).
vyre.kernel @mul_high workgroup_size(1, 1, 1) buffers(@a : read_only u32 binding(0), @out : read_write u32 binding(1)) {
  %i0 = vyre.lit_u32 0
  %i1 = vyre.lit_u32 1
  %x = vyre.load @a[%i0] : u32
  %y = vyre.load @a[%i1] : u32
  %h = vyre.binop mul_high %x, %y
  %l = vyre.binop mul %x, %y
  %sum = vyre.binop add %h, %l
  vyre.store @out[%i0] = %sum
  %m = vyre.lit_u32 4294967295
  %folded = vyre.binop mul_high %m, %m
  vyre.store @out[%i1] = %folded
}

// PORTABLE:      // The high word of the 64-bit product a * b, from 16-bit halves.
// PORTABLE-NEXT: fn vyre_mul_high([[A:a_[0-9]+]]: u32, [[B:b]]: u32) -> u32 {
// PORTABLE-NEXT:   let al = [[A]] & 0xffffu;
// PORTABLE-NEXT:   let ah = [[A]] >> 16u;
// PORTABLE-NEXT:   let bl = [[B]] & 0xffffu;
// PORTABLE-NEXT:   let bh = [[B]] >> 16u;
// PORTABLE-NEXT:   let t = al * bh + ((al * bl) >> 16u);
// PORTABLE-NEXT:   let u = ah * bl + (t & 0xffffu);
// PORTABLE-NEXT:   return ah * bh + (t >> 16u) + (u >> 16u);
// PORTABLE-NEXT: }
// PORTABLE:      fn main(
// PORTABLE:        vyre_store_out(0u, vyre_mul_high(x, y) + (x * y));
// PORTABLE-NEXT:   vyre_store_out(1u, 0xfffffffeu);

// INT64-NOT:     vyre_mul_high
// INT64:         fn main(
// INT64:           vyre_store_out(0u, u32((u64(x) * u64(y)) >> 32u) + (x * y));
// INT64-NEXT:      vyre_store_out(1u, 0xfffffffeu);
