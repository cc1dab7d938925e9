// RUN: vyre-opt %s -t wgsl | filecheck %s

// Division guard: WGSL gives x / 0 == x, vyre gives 0. A runtime divisor goes
// through a helper whose divisor is never 0; a constant divisor is folded.
vyre.kernel @div workgroup_size(1, 1, 1) buffers(@a : read_only u32 binding(0), @out : read_write u32 binding(1)) {
  %i0 = vyre.lit_u32 0
  %i1 = vyre.lit_u32 1
  %x = vyre.load @a[%i0] : u32
  %y = vyre.load @a[%i1] : u32
  %q = vyre.binop div %x, %y
  vyre.store @out[%i0] = %q
  %r = vyre.binop mod %x, %y
  vyre.store @out[%i1] = %r
  %zero = vyre.lit_u32 0
  %x2 = vyre.load @a[%i0] : u32
  %q0 = vyre.binop div %x2, %zero
  %i2 = vyre.lit_u32 2
  vyre.store @out[%i2] = %q0
  %seven = vyre.lit_u32 7
  %x3 = vyre.load @a[%i0] : u32
  %q7 = vyre.binop mod %x3, %seven
  %i3 = vyre.lit_u32 3
  vyre.store @out[%i3] = %q7
  %c9 = vyre.lit_u32 9
  %c4 = vyre.lit_u32 4
  %folded = vyre.binop div %c9, %c4
  %i4 = vyre.lit_u32 4
  vyre.store @out[%i4] = %folded
}

// CHECK:      // Division guard: x / 0 == 0 (WGSL gives x / 0 == x).
// CHECK-NEXT: fn vyre_div(dividend: u32, divisor: u32) -> u32 {
// CHECK-NEXT:   return select(dividend / select(divisor, 1u, divisor == 0u), 0u, divisor == 0u);
// CHECK-NEXT: }
// CHECK:      // Remainder guard: x % 0 == 0 (WGSL gives x / 0 == x).
// CHECK-NEXT: fn vyre_mod(dividend: u32, divisor: u32) -> u32 {
// CHECK-NEXT:   return select(dividend % select(divisor, 1u, divisor == 0u), 0u, divisor == 0u);
// CHECK-NEXT: }
// CHECK:      fn main(
// CHECK-NEXT:   let x: u32 = vyre_load_a(0u);
// CHECK-NEXT:   let y: u32 = vyre_load_a(1u);
// CHECK-NEXT:   vyre_store_out(0u, vyre_div(x, y));
// CHECK-NEXT:   vyre_store_out(1u, vyre_mod(x, y));
// CHECK-NEXT:   vyre_store_out(2u, 0u);
// CHECK-NEXT:   vyre_store_out(3u, vyre_load_a(0u) % 7u);
// CHECK-NEXT:   vyre_store_out(4u, 2u);
// CHECK-NEXT: }
// CHECK-NOT:  / 0u
