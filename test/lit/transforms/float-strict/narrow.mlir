// RUN: vyre-opt %s -p float-strict | filecheck %s --check-prefix=RAW
// RUN: vyre-opt %s -p float-strict,canonicalize | filecheck %s

// float-strict, F16 and BF16: arithmetic widens exactly to F32 and rounds once more (innocuous
// for + - * / sqrt); fma rounds once in its own format. Literal results from an independent oracle.
vyre.kernel @k workgroup_size(1, 1, 1) buffers(@o : read_write u32 binding(0)) {
  %a0_0 = vyre.lit_float 0x3c00 : f16
  %a0_1 = vyre.lit_float 0x1400 : f16
  %r0 = vyre.fadd %a0_0, %a0_1
  %i0 = vyre.lit_u32 0
  %w0 = vyre.bitcast %r0 to u32
  vyre.store @o[%i0] = %w0
  %a1_0 = vyre.lit_float 0x7bff : f16
  %a1_1 = vyre.lit_float 0x4000 : f16
  %r1 = vyre.fmul %a1_0, %a1_1
  %i1 = vyre.lit_u32 1
  %w1 = vyre.bitcast %r1 to u32
  vyre.store @o[%i1] = %w1
  %a2_0 = vyre.lit_float 0x0001 : f16
  %a2_1 = vyre.lit_float 0x0001 : f16
  %r2 = vyre.fadd %a2_0, %a2_1
  %i2 = vyre.lit_u32 2
  %w2 = vyre.bitcast %r2 to u32
  vyre.store @o[%i2] = %w2
  %a3_0 = vyre.lit_float 0x3f81 : bf16
  %a3_1 = vyre.lit_float 0x3f81 : bf16
  %r3 = vyre.fmul %a3_0, %a3_1
  %i3 = vyre.lit_u32 3
  %w3 = vyre.bitcast %r3 to u32
  vyre.store @o[%i3] = %w3
  %a4_0 = vyre.lit_float 0x3f80 : bf16
  %a4_1 = vyre.lit_float 0x4040 : bf16
  %r4 = vyre.fdiv %a4_0, %a4_1
  %i4 = vyre.lit_u32 4
  %w4 = vyre.bitcast %r4 to u32
  vyre.store @o[%i4] = %w4
  %a5_0 = vyre.lit_float 0x3c01 : f16
  %a5_1 = vyre.lit_float 0x3c01 : f16
  %a5_2 = vyre.lit_float 0xbc02 : f16
  %r5 = vyre.fma %a5_0, %a5_1, %a5_2
  %i5 = vyre.lit_u32 5
  %w5 = vyre.bitcast %r5 to u32
  vyre.store @o[%i5] = %w5
  %a6_0 = vyre.lit_float 0x3f81 : bf16
  %a6_1 = vyre.lit_float 0x3f81 : bf16
  %a6_2 = vyre.lit_float 0x8001 : bf16
  %r6 = vyre.fma %a6_0, %a6_1, %a6_2
  %i6 = vyre.lit_u32 6
  %w6 = vyre.bitcast %r6 to u32
  vyre.store @o[%i6] = %w6
  %a7_0 = vyre.lit_float 0x4000 : f16
  %r7 = vyre.fsqrt %a7_0
  %i7 = vyre.lit_u32 7
  %w7 = vyre.bitcast %r7 to u32
  vyre.store @o[%i7] = %w7
  %a8_0 = vyre.lit_float 0xbf80 : bf16
  %r8 = vyre.fsqrt %a8_0
  %i8 = vyre.lit_u32 8
  %w8 = vyre.bitcast %r8 to u32
  vyre.store @o[%i8] = %w8
  %a9_0 = vyre.lit_float 0x8000 : f16
  %a9_1 = vyre.lit_float 0x0000 : f16
  %r9 = vyre.fmin %a9_0, %a9_1
  %i9 = vyre.lit_u32 9
  %w9 = vyre.bitcast %r9 to u32
  vyre.store @o[%i9] = %w9
  %a10_0 = vyre.lit_float 0x3fa0 : bf16
  %r10 = vyre.fround %a10_0
  %i10 = vyre.lit_u32 10
  %w10 = vyre.bitcast %r10 to u32
  vyre.store @o[%i10] = %w10
}

// RAW-LABEL: vyre.kernel @k
// RAW-NOT: vyre.{{(fadd|fsub|fmul|fdiv|fmin|fmax|fcmp|fma|fneg|fabs|fsqrt|ffloor|fceil|fround|ftrunc|fis_nan|fis_inf)}}
// RAW: {{^}}}

// CHECK-LABEL: vyre.kernel @k
// CHECK:      %w0 = vyre.lit_u32 15361
// CHECK-NEXT: vyre.store @o[%i0] = %w0
// CHECK:      %w1 = vyre.lit_u32 31744
// CHECK-NEXT: vyre.store @o[%i1] = %w1
// CHECK:      %w2 = vyre.lit_u32 2
// CHECK-NEXT: vyre.store @o[%i2] = %w2
// CHECK:      %w3 = vyre.lit_u32 16258
// CHECK-NEXT: vyre.store @o[%i3] = %w3
// CHECK:      %w4 = vyre.lit_u32 16043
// CHECK-NEXT: vyre.store @o[%i4] = %w4
// CHECK:      %w5 = vyre.lit_u32 16
// CHECK-NEXT: vyre.store @o[%i5] = %w5
// CHECK:      %w6 = vyre.lit_u32 16258
// CHECK-NEXT: vyre.store @o[%i6] = %w6
// CHECK:      %w7 = vyre.lit_u32 15784
// CHECK-NEXT: vyre.store @o[%i7] = %w7
// CHECK:      %w8 = vyre.lit_u32 32704
// CHECK-NEXT: vyre.store @o[%i8] = %w8
// CHECK:      %w9 = vyre.lit_u32 32768
// CHECK-NEXT: vyre.store @o[%i9] = %w9
// CHECK:      %w10 = vyre.lit_u32 16256
// CHECK-NEXT: vyre.store @o[%i10] = %w10
