// RUN: vyre-opt %s -t wgsl | filecheck %s

// A routine call that only a select uses is made only where the select picks it:
// a routine is pure, so skipping it where its value is dropped changes nothing, and a
// GPU whose lanes all pick the other arm skips the whole call (a fast path and its
// fallback). A call used twice, or a select of plain values, stays a `select`.
builtin.module {
  vyre.kernel @k workgroup_size(64, 1, 1) buffers(@a : read_only u32 binding(0), @out : read_write u32 binding(1)) {
    %i = vyre.invocation_id x
    %x = vyre.load @a[%i] : u32
    %one = vyre.lit_u32 1
    %small = vyre.binop lt %x, %one
    %cheap = vyre.binop add %x, %one
    %slow = vyre.invoke @costly(%x) : u32
    %picked = vyre.select %small, %cheap, %slow
    vyre.store @out[%i] = %picked
    %slow_true = vyre.invoke @costly(%cheap) : u32
    %picked_true = vyre.select %small, %slow_true, %x
    vyre.store @out[%one] = %picked_true
    %shared = vyre.invoke @costly(%picked) : u32
    %both = vyre.select %small, %shared, %x
    %again = vyre.binop bit_xor %both, %shared
    vyre.store @out[%i] = %again
  }
  vyre.routine @costly(%v : u32) -> u32 {
    %k = vyre.lit_u32 2654435761
    %r = vyre.binop mul %v, %k
    vyre.yield %r
  }
}

// CHECK:      fn costly(v: u32) -> u32 {
// CHECK:      fn main(
// CHECK:        let [[SMALL:[a-z_0-9]+]]: u32 = u32([[X:[a-z_0-9]+]] < 1u);
// CHECK-NEXT:   let [[CHEAP:[a-z_0-9]+]]: u32 = [[X]] + 1u;
// CHECK-NEXT:   var [[A:t[0-9]+]]: u32 = [[CHEAP]];
// CHECK-NEXT:   if (!([[SMALL]] != 0u)) {
// CHECK-NEXT:     [[A]] = costly([[X]]);
// CHECK-NEXT:   }
// CHECK-NEXT:   vyre_store_out({{.*}}, [[A]]);
// CHECK-NEXT:   var [[B:t[0-9]+]]: u32 = [[X]];
// CHECK-NEXT:   if ([[SMALL]] != 0u) {
// CHECK-NEXT:     [[B]] = costly([[CHEAP]]);
// CHECK-NEXT:   }
// CHECK-NEXT:   vyre_store_out(1u, [[B]]);
// CHECK-NEXT:   let [[S:[a-z_0-9]+]]: u32 = costly([[A]]);
// CHECK-NEXT:   vyre_store_out({{.*}}, select([[X]], [[S]], [[SMALL]] != 0u) ^ [[S]]);
// CHECK-NEXT: }
