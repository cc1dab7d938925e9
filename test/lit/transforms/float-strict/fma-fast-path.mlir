// RUN: vyre-opt %s -p float-strict | filecheck %s
// RUN: vyre-opt %s -t wgsl | filecheck %s --check-prefix=WGSL

// F32 fma has a fast path (normal operands, exponents less than 32 apart, a normal
// result): its routine computes that and invokes the whole algorithm, a routine of its
// own, for the inputs the fast path does not cover; the lowering makes that call only
// there. F16 fma has no fast path: one routine.
vyre.kernel @k workgroup_size(64, 1, 1) buffers(@a : read_only f32 binding(0), @h : read_only f16 binding(1), @o : read_write f32 binding(2), @p : read_write f16 binding(3)) {
  %i = vyre.invocation_id x
  %x = vyre.load @a[%i] : f32
  %r = vyre.fma %x, %x, %x
  vyre.store @o[%i] = %r
  %y = vyre.load @h[%i] : f16
  %s = vyre.fma %y, %y, %y
  vyre.store @p[%i] = %s
}

// CHECK-LABEL: vyre.kernel @k
// CHECK:       vyre.invoke @soft_binary32_mul_add(
// CHECK:       vyre.invoke @soft_binary16_mul_add(
// CHECK:       vyre.routine @soft_binary32_mul_add_general(%a : u32, %b : u32, %c : u32) -> u32 {
// CHECK:       vyre.routine @soft_binary32_mul_add(%a : u32, %b : u32, %c : u32) -> u32 {
// CHECK-NOT:   vyre.routine
// CHECK:         %[[GENERAL:.*]] = vyre.invoke @soft_binary32_mul_add_general(%a, %b, %c) : u32
// CHECK-NEXT:    %[[PICK:.*]] = vyre.select %{{.*}}, %{{.*}}, %[[GENERAL]]
// CHECK-NEXT:    vyre.yield %[[PICK]]
// CHECK:       vyre.routine @soft_binary16_mul_add(%a : u32, %b : u32, %c : u32) -> u32 {
// CHECK-NOT:     vyre.invoke

// WGSL:      fn soft_binary32_mul_add([[A:a_[0-9]+]]: u32, [[B:b_[0-9]+]]: u32, [[C:c_[0-9]+]]: u32) -> u32 {
// WGSL:        var [[R:t[0-9]+]]: u32 =
// WGSL-NEXT:   if (!({{.*}})) {
// WGSL-NEXT:     [[R]] = soft_binary32_mul_add_general([[A]], [[B]], [[C]]);
// WGSL-NEXT:   }
// WGSL-NEXT:   return [[R]];
// WGSL-NEXT: }
// WGSL:      fn soft_binary32_mul_add_general(
// WGSL-NOT:  soft_binary32_mul_add_general(
// WGSL:      fn main(
