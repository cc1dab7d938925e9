// RUN: vyre-opt %s -t wgsl | filecheck %s

// `dot4_i8` is WGSL's `dot4I8Packed` (one 8-bit dot-product instruction on
// GPUs that have it), its i32 result bitcast to the u32 word; two literal
// operands fold: 0x80808080 . 0x7f7f7f7f = 4 * (-128 * 127) = -65024.
vyre.kernel @dot4 workgroup_size(1, 1, 1) buffers(@a : read_only u32 binding(0), @out : read_write u32 binding(1)) {
  %i0 = vyre.lit_u32 0
  %i1 = vyre.lit_u32 1
  %x = vyre.load @a[%i0] : u32
  %y = vyre.load @a[%i1] : u32
  %d = vyre.binop dot4_i8 %x, %y
  %acc = vyre.binop add %d, %x
  vyre.store @out[%i0] = %acc
  %p = vyre.lit_u32 2155905152
  %q = vyre.lit_u32 2139062143
  %folded = vyre.binop dot4_i8 %p, %q
  vyre.store @out[%i1] = %folded
}

// CHECK:      fn main(
// CHECK-NEXT:   let x: u32 = vyre_load_a(0u);
// CHECK-NEXT:   vyre_store_out(0u, (bitcast<u32>(dot4I8Packed(x, vyre_load_a(1u)))) + x);
// CHECK-NEXT:   vyre_store_out(1u, 0xffff0200u);
