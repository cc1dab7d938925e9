// RUN: vyre-opt %s -t wgsl | filecheck %s

// Mesa's NIR rewrites a choice between the bits of ±1.0 and the other-signed
// zero as a float conversion and stores the wrong zero (lavapipe): every ±1.0
// literal is mixed with the meta uniform's opaque zero, including one folded
// from a constant let.
vyre.kernel @opaque workgroup_size(1, 1, 1) buffers(@c : read_only u32 binding(0), @out : read_write u32 binding(1)) {
  %i0 = vyre.lit_u32 0
  %x = vyre.load @c[%i0] : u32
  %c = vyre.binop ne %x, %i0
  %zero = vyre.lit_u32 0
  %minus_one = vyre.lit_u32 3212836864
  %s = vyre.select %c, %zero, %minus_one
  vyre.store @out[%i0] = %s
  %almost = vyre.lit_u32 1065353217
  vyre.let "k" = %almost
  %k = vyre.var "k" : u32
  %one = vyre.lit_u32 1
  %plus_one = vyre.binop sub %k, %one
  %minus_zero = vyre.lit_u32 2147483648
  %t = vyre.select %c, %plus_one, %minus_zero
  vyre.store @out[%one] = %t
}

// CHECK: struct VyreMeta {
// CHECK: opaque_zero: u32,
// CHECK: fn main(
// CHECK: select((0xbf800000u ^ _vyre_meta.opaque_zero), 0u,
// CHECK: select(0x80000000u, (0x3f800000u ^ _vyre_meta.opaque_zero),
// CHECK-NOT: 0x3f800000u)

// A kernel without such a literal gets no field.
// RUN: vyre-opt %S/division.mlir -t wgsl | filecheck %s --check-prefix=NONE
// NONE-NOT: opaque_zero
