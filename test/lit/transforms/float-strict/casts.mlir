// RUN: vyre-opt %s -p float-strict | filecheck %s --check-prefix=RAW
// RUN: vyre-opt %s -p float-strict,canonicalize | filecheck %s

// float-strict, casts: value conversions between floats and u32/i32 and among the
// float formats become integer IR; bitcasts stay (they move no value). Literals
// fold to the exact results: u32 0x01010001 rounds once to bf16 (no detour through
// f32, which would round twice), f32 -> i32 truncates and saturates, NaN -> 0,
// f32 -> f16 overflows to inf, f16 -> f32 is exact.
vyre.kernel @k workgroup_size(1, 1, 1) buffers(@o : read_write u32 binding(0)) {
  %u = vyre.lit_u32 16842753
  %b = vyre.cast %u to bf16
  %i0 = vyre.lit_u32 0
  %w0 = vyre.bitcast %b to u32
  vyre.store @o[%i0] = %w0
  %big = vyre.lit_float 0x4f000000 : f32
  %s = vyre.cast %big to i32
  %i1 = vyre.lit_u32 1
  %w1 = vyre.bitcast %s to u32
  vyre.store @o[%i1] = %w1
  %nan = vyre.lit_float 0xffc00001 : f32
  %n = vyre.cast %nan to u32
  %i2 = vyre.lit_u32 2
  vyre.store @o[%i2] = %n
  %huge = vyre.lit_float 0x477ff000 : f32
  %h = vyre.cast %huge to f16
  %i3 = vyre.lit_u32 3
  %w3 = vyre.bitcast %h to u32
  vyre.store @o[%i3] = %w3
  %sub = vyre.lit_float 0x0001 : f16
  %f = vyre.cast %sub to f32
  %i4 = vyre.lit_u32 4
  %w4 = vyre.bitcast %f to u32
  vyre.store @o[%i4] = %w4
  %neg = vyre.lit_i32 -7
  %g = vyre.cast %neg to f32
  %i5 = vyre.lit_u32 5
  %w5 = vyre.bitcast %g to u32
  vyre.store @o[%i5] = %w5
}

// RAW-LABEL: vyre.kernel @k
// RAW-NOT: vyre.cast %{{[a-z0-9_]+}} to {{(f32|f16|bf16|i32)}}
// RAW: {{^}}}

// CHECK-LABEL: vyre.kernel @k
// CHECK:      %w0 = vyre.lit_u32 19329
// CHECK-NEXT: vyre.store @o[%i0] = %w0
// CHECK:      %w1 = vyre.lit_u32 2147483647
// CHECK-NEXT: vyre.store @o[%i1] = %w1
// CHECK:      %n = vyre.lit_u32 0
// CHECK-NEXT: %i2 = vyre.lit_u32 2
// CHECK-NEXT: vyre.store @o[%i2] = %n
// CHECK:      %w3 = vyre.lit_u32 31744
// CHECK-NEXT: vyre.store @o[%i3] = %w3
// CHECK:      %w4 = vyre.lit_u32 864026624
// CHECK-NEXT: vyre.store @o[%i4] = %w4
// CHECK:      %w5 = vyre.lit_u32 3235905536
// CHECK-NEXT: vyre.store @o[%i5] = %w5
