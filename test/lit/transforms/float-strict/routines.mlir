// RUN: vyre-opt %s -p float-strict | filecheck %s
// RUN: vyre-opt %s -p float-strict | filecheck %s --check-prefix=NAMES
// RUN: vyre-opt %s -t wgsl | filecheck %s --check-prefix=WGSL
// RUN: vyre-opt %s -t wgsl | filecheck %s --check-prefix=NOFLOAT

// Each soft-float program exists once per module, as a routine, and is invoked at
// every use: three f32 adds and two f16 multiplies make five invokes of two routines
// (F32 add has a fast path: its routine invokes a third, the whole algorithm, where
// that does not apply). Routine names never spell a float op or a float type.
vyre.kernel @k workgroup_size(64, 1, 1) buffers(@a : read_only f32 binding(0), @h : read_only f16 binding(1), @o : read_write f32 binding(2), @p : read_write f16 binding(3)) {
  %i = vyre.invocation_id x
  %x = vyre.load @a[%i] : f32
  %s1 = vyre.fadd %x, %x
  %s2 = vyre.fadd %s1, %x
  %s3 = vyre.fadd %s2, %s1
  vyre.store @o[%i] = %s3
  %y = vyre.load @h[%i] : f16
  %m1 = vyre.fmul %y, %y
  %m2 = vyre.fmul %m1, %y
  vyre.store @p[%i] = %m2
}

// CHECK-LABEL: vyre.kernel @k
// CHECK-COUNT-3: vyre.invoke @soft_binary32_add(
// CHECK-COUNT-2: vyre.invoke @soft_binary16_mul(
// CHECK:       }
// CHECK-NEXT:  vyre.routine @soft_binary32_add_general(%a : u32, %b : u32) -> u32 {
// CHECK:         vyre.yield
// CHECK:       vyre.routine @soft_binary32_add(%a : u32, %b : u32) -> u32 {
// CHECK:         vyre.invoke @soft_binary32_add_general(%a, %b) : u32
// CHECK:       vyre.routine @soft_binary16_mul(%a : u32, %b : u32) -> u32 {
// CHECK-NOT:   vyre.routine

// NAMES-NOT: {{[fF][aA][dD][dD]|[fF][mM][uU][lL]|[fF][mM][aA]}}

// WGSL:     fn soft_binary16_mul(
// WGSL-NOT: fn soft_binary16_mul(
// WGSL:     fn soft_binary32_add(
// WGSL:     fn soft_binary32_add_general(
// WGSL-NOT: fn soft_binary
// WGSL:     fn main(

// No float type and no float builtin anywhere in the shader:
// NOFLOAT-NOT: {{\bf(32|16)\b|\b(exp|exp2|log|log2|sin|cos|tan|asin|acos|atan|atan2|tanh|pow|sqrt|inverseSqrt|fma)\(}}
