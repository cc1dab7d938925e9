// RUN: vyre-opt %s -t wgsl | filecheck %s

// A u128 shift by a constant multiple of 32 (modulo 128) moves whole words:
// it lowers to a swizzle of the vec4<u32> (x the least significant word),
// zeros shifted in, and no shift helper is emitted; word k of a value is the
// low word of it shifted right by 32 k. Any other constant amount calls the
// helper with a literal below 128 (u128.mlir).
vyre.kernel @words workgroup_size(1, 1, 1) buffers(@a : read_only u128 binding(0), @out : read_write u128 binding(1), @w : read_write u32 binding(2)) {
  %i0 = vyre.lit_u32 0
  %x = vyre.load @a[%i0] : u128
  %s32 = vyre.lit_u128 32
  %s64 = vyre.lit_u128 64
  %s96 = vyre.lit_u128 96
  %s160 = vyre.lit_u128 160
  %l1 = vyre.binop shl %x, %s32
  vyre.store @out[%i0] = %l1
  %l3 = vyre.binop shl %x, %s96
  vyre.store @out[%i0] = %l3
  %r2 = vyre.binop shr %x, %s64
  vyre.store @out[%i0] = %r2
  %r1 = vyre.binop shr %x, %s160
  %word = vyre.cast %r1 to u32
  vyre.store @w[%i0] = %word
}

// CHECK-NOT: fn vyre_u128_shl(
// CHECK-NOT: fn vyre_u128_shr(
// CHECK:     fn main() {
// CHECK:       vec4<u32>(0u, ({{.*}}).xyz)
// CHECK:       vec4<u32>(0u, 0u, 0u, ({{.*}}).x)
// CHECK:       vec4<u32>(({{.*}}).zw, 0u, 0u)
// CHECK:       vec4<u32>(({{.*}}).yzw, 0u).x
