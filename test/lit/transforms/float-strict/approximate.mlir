// RUN: vyre-opt %s -p float-strict | filecheck %s
// RUN: vyre-opt %s -t wgsl | filecheck %s --check-prefix=WGSL

// Approximate ops are not strict: float-strict leaves them, and the lowering
// emits the native builtin on the word's bits. The strict fadd beside them
// becomes integer IR.
vyre.kernel @k workgroup_size(64, 1, 1) buffers(@a : read_only f32 binding(0), @o : read_write f32 binding(1)) {
  %i = vyre.invocation_id x
  %x = vyre.load @a[%i] : f32
  %s = vyre.fsin_approx %x
  %r = vyre.fsqrt_approx %s
  %one = vyre.lit_float 0x3f800000 : f32
  %t = vyre.fadd %r, %one
  vyre.store @o[%i] = %t
}

// CHECK-LABEL: vyre.kernel @k
// CHECK:       %s = vyre.fsin_approx %x
// CHECK-NEXT:  %r = vyre.fsqrt_approx %s
// CHECK-NOT:   vyre.fadd
// CHECK:       vyre.store @o[%i]

// WGSL: bitcast<u32>(sqrt(bitcast<f32>(bitcast<u32>(sin(bitcast<f32>(
