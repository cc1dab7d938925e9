// RUN: vyre-opt %s -p float-strict | filecheck %s --check-prefix=RAW
// RUN: vyre-opt %s -p float-strict,canonicalize | filecheck %s

// float-strict, fma: every float operation becomes integer IR over the bit patterns
// (no float op is left); with canonicalize, literals fold through the soft-float
// program to exactly the IEEE result (values from an independent oracle).
vyre.kernel @k workgroup_size(1, 1, 1) buffers(@o : read_write u32 binding(0)) {
  %a0_0 = vyre.lit_float 0x40000000 : f32
  %a0_1 = vyre.lit_float 0x40400000 : f32
  %a0_2 = vyre.lit_float 0x3f800000 : f32
  %r0 = vyre.fma %a0_0, %a0_1, %a0_2
  %i0 = vyre.lit_u32 0
  %w0 = vyre.bitcast %r0 to u32
  vyre.store @o[%i0] = %w0
  %a1_0 = vyre.lit_float 0x3f800001 : f32
  %a1_1 = vyre.lit_float 0x3f800001 : f32
  %a1_2 = vyre.lit_float 0xbf800002 : f32
  %r1 = vyre.fma %a1_0, %a1_1, %a1_2
  %i1 = vyre.lit_u32 1
  %w1 = vyre.bitcast %r1 to u32
  vyre.store @o[%i1] = %w1
  %a2_0 = vyre.lit_float 0x7f800000 : f32
  %a2_1 = vyre.lit_float 0x00000000 : f32
  %a2_2 = vyre.lit_float 0x3f800000 : f32
  %r2 = vyre.fma %a2_0, %a2_1, %a2_2
  %i2 = vyre.lit_u32 2
  %w2 = vyre.bitcast %r2 to u32
  vyre.store @o[%i2] = %w2
  %a3_0 = vyre.lit_float 0x80000000 : f32
  %a3_1 = vyre.lit_float 0x3f800000 : f32
  %a3_2 = vyre.lit_float 0x80000000 : f32
  %r3 = vyre.fma %a3_0, %a3_1, %a3_2
  %i3 = vyre.lit_u32 3
  %w3 = vyre.bitcast %r3 to u32
  vyre.store @o[%i3] = %w3
}

// RAW-LABEL: vyre.kernel @k
// RAW-NOT: vyre.{{(fadd|fsub|fmul|fdiv|fmin|fmax|fcmp|fma|fneg|fabs|fsqrt|ffloor|fceil|fround|ftrunc|fis_nan|fis_inf)}}
// RAW: {{^}}}

// CHECK-LABEL: vyre.kernel @k
// CHECK:      %w0 = vyre.lit_u32 1088421888
// CHECK-NEXT: vyre.store @o[%i0] = %w0
// CHECK:      %w1 = vyre.lit_u32 679477248
// CHECK-NEXT: vyre.store @o[%i1] = %w1
// CHECK:      %w2 = vyre.lit_u32 2143289344
// CHECK-NEXT: vyre.store @o[%i2] = %w2
// CHECK:      %w3 = vyre.lit_u32 2147483648
// CHECK-NEXT: vyre.store @o[%i3] = %w3
