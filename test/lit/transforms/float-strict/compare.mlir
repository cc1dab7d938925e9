// RUN: vyre-opt %s -p float-strict | filecheck %s --check-prefix=RAW
// RUN: vyre-opt %s -p float-strict,canonicalize | filecheck %s

// float-strict, compare: every float operation becomes integer IR over the bit patterns
// (no float op is left); with canonicalize, literals fold through the soft-float
// program to exactly the IEEE result (values from an independent oracle).
vyre.kernel @k workgroup_size(1, 1, 1) buffers(@o : read_write u32 binding(0)) {
  %a0_0 = vyre.lit_float 0x3f800000 : f32
  %a0_1 = vyre.lit_float 0x40000000 : f32
  %r0 = vyre.fcmp lt %a0_0, %a0_1
  %i0 = vyre.lit_u32 0
  %w0 = vyre.cast %r0 to u32
  vyre.store @o[%i0] = %w0
  %a1_0 = vyre.lit_float 0x80000000 : f32
  %a1_1 = vyre.lit_float 0x00000000 : f32
  %r1 = vyre.fcmp le %a1_0, %a1_1
  %i1 = vyre.lit_u32 1
  %w1 = vyre.cast %r1 to u32
  vyre.store @o[%i1] = %w1
  %a2_0 = vyre.lit_float 0x80000000 : f32
  %a2_1 = vyre.lit_float 0x00000000 : f32
  %r2 = vyre.fcmp eq %a2_0, %a2_1
  %i2 = vyre.lit_u32 2
  %w2 = vyre.cast %r2 to u32
  vyre.store @o[%i2] = %w2
  %a3_0 = vyre.lit_float 0x7fc00000 : f32
  %a3_1 = vyre.lit_float 0x7fc00000 : f32
  %r3 = vyre.fcmp ne %a3_0, %a3_1
  %i3 = vyre.lit_u32 3
  %w3 = vyre.cast %r3 to u32
  vyre.store @o[%i3] = %w3
  %a4_0 = vyre.lit_float 0x7fc00000 : f32
  %a4_1 = vyre.lit_float 0x3f800000 : f32
  %r4 = vyre.fcmp gt %a4_0, %a4_1
  %i4 = vyre.lit_u32 4
  %w4 = vyre.cast %r4 to u32
  vyre.store @o[%i4] = %w4
  %a5_0 = vyre.lit_float 0x80000000 : f32
  %a5_1 = vyre.lit_float 0x00000000 : f32
  %r5 = vyre.fmin %a5_0, %a5_1
  %i5 = vyre.lit_u32 5
  %w5 = vyre.bitcast %r5 to u32
  vyre.store @o[%i5] = %w5
  %a6_0 = vyre.lit_float 0x7fc00000 : f32
  %a6_1 = vyre.lit_float 0xc0400000 : f32
  %r6 = vyre.fmax %a6_0, %a6_1
  %i6 = vyre.lit_u32 6
  %w6 = vyre.bitcast %r6 to u32
  vyre.store @o[%i6] = %w6
  %a7_0 = vyre.lit_float 0xffc00001 : f32
  %a7_1 = vyre.lit_float 0x7f800001 : f32
  %r7 = vyre.fmin %a7_0, %a7_1
  %i7 = vyre.lit_u32 7
  %w7 = vyre.bitcast %r7 to u32
  vyre.store @o[%i7] = %w7
}

// RAW-LABEL: vyre.kernel @k
// RAW-NOT: vyre.{{(fadd|fsub|fmul|fdiv|fmin|fmax|fcmp|fma|fneg|fabs|fsqrt|ffloor|fceil|fround|ftrunc|fis_nan|fis_inf)}}
// RAW: {{^}}}

// CHECK-LABEL: vyre.kernel @k
// CHECK:      %w0 = vyre.lit_u32 1
// CHECK-NEXT: vyre.store @o[%i0] = %w0
// CHECK:      %w1 = vyre.lit_u32 1
// CHECK-NEXT: vyre.store @o[%i1] = %w1
// CHECK:      %w2 = vyre.lit_u32 1
// CHECK-NEXT: vyre.store @o[%i2] = %w2
// CHECK:      %w3 = vyre.lit_u32 1
// CHECK-NEXT: vyre.store @o[%i3] = %w3
// CHECK:      %w4 = vyre.lit_u32 0
// CHECK-NEXT: vyre.store @o[%i4] = %w4
// CHECK:      %w5 = vyre.lit_u32 2147483648
// CHECK-NEXT: vyre.store @o[%i5] = %w5
// CHECK:      %w6 = vyre.lit_u32 3225419776
// CHECK-NEXT: vyre.store @o[%i6] = %w6
// CHECK:      %w7 = vyre.lit_u32 2143289344
// CHECK-NEXT: vyre.store @o[%i7] = %w7
