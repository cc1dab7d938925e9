// RUN: vyre-opt %s -p float-strict | filecheck %s --check-prefix=RAW
// RUN: vyre-opt %s -p float-strict,canonicalize | filecheck %s

// float-strict, sign: every float operation becomes integer IR over the bit patterns
// (no float op is left); with canonicalize, literals fold through the soft-float
// program to exactly the IEEE result (values from an independent oracle).
vyre.kernel @k workgroup_size(1, 1, 1) buffers(@o : read_write u32 binding(0)) {
  %a0_0 = vyre.lit_float 0x7fc00001 : f32
  %r0 = vyre.fneg %a0_0
  %i0 = vyre.lit_u32 0
  %w0 = vyre.bitcast %r0 to u32
  vyre.store @o[%i0] = %w0
  %a1_0 = vyre.lit_float 0xffc00001 : f32
  %r1 = vyre.fabs %a1_0
  %i1 = vyre.lit_u32 1
  %w1 = vyre.bitcast %r1 to u32
  vyre.store @o[%i1] = %w1
  %a2_0 = vyre.lit_float 0x7f800001 : f32
  %r2 = vyre.fis_nan %a2_0
  %i2 = vyre.lit_u32 2
  %w2 = vyre.cast %r2 to u32
  vyre.store @o[%i2] = %w2
  %a3_0 = vyre.lit_float 0xff800000 : f32
  %r3 = vyre.fis_inf %a3_0
  %i3 = vyre.lit_u32 3
  %w3 = vyre.cast %r3 to u32
  vyre.store @o[%i3] = %w3
  %a4_0 = vyre.lit_float 0x7f800000 : f32
  %r4 = vyre.fis_nan %a4_0
  %i4 = vyre.lit_u32 4
  %w4 = vyre.cast %r4 to u32
  vyre.store @o[%i4] = %w4
}

// RAW-LABEL: vyre.kernel @k
// RAW-NOT: vyre.{{(fadd|fsub|fmul|fdiv|fmin|fmax|fcmp|fma|fneg|fabs|fsqrt|ffloor|fceil|fround|ftrunc|fis_nan|fis_inf)}}
// RAW: {{^}}}

// CHECK-LABEL: vyre.kernel @k
// CHECK:      %w0 = vyre.lit_u32 4290772993
// CHECK-NEXT: vyre.store @o[%i0] = %w0
// CHECK:      %w1 = vyre.lit_u32 2143289345
// CHECK-NEXT: vyre.store @o[%i1] = %w1
// CHECK:      %w2 = vyre.lit_u32 1
// CHECK-NEXT: vyre.store @o[%i2] = %w2
// CHECK:      %w3 = vyre.lit_u32 1
// CHECK-NEXT: vyre.store @o[%i3] = %w3
// CHECK:      %w4 = vyre.lit_u32 0
// CHECK-NEXT: vyre.store @o[%i4] = %w4
