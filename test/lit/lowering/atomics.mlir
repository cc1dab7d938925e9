// RUN: vyre-opt %s -t wgsl | filecheck %s

// A buffer any atomic touches is array<atomic<u32>>, and every access to it is
// atomic (loads and stores included). Out-of-bounds atomics do nothing and
// return 0; compare-exchange is strong (a weak exchange retried until it
// succeeds or observes a value other than `expected`).
vyre.kernel @atomics workgroup_size(64, 1, 1) buffers(@acc : read_write u32 binding(0), @out : read_write u32 binding(1)) {
  %i = vyre.invocation_id x
  %one = vyre.lit_u32 1
  %zero = vyre.lit_u32 0
  %old = vyre.atomic add @acc[%zero], %one
  vyre.store @out[%i] = %old
  %was = vyre.atomic compare_exchange @acc[%one], %i expected %zero
  %seen = vyre.load @acc[%one] : u32
  %sum = vyre.binop add %was, %seen
  vyre.store @acc[%i] = %sum
}

// CHECK:      @group(0) @binding(0) var<storage, read_write> acc: array<atomic<u32>>;
// CHECK-NEXT: @group(0) @binding(1) var<storage, read_write> out: array<u32>;

// CHECK:      fn vyre_atomic_add_acc(i: u32, value: u32) -> u32 {
// CHECK-NEXT:   if (i < _vyre_meta.len_acc) {
// CHECK-NEXT:     return atomicAdd(&acc[i], value);
// CHECK-NEXT:   }
// CHECK-NEXT:   return 0u;
// CHECK-NEXT: }

// CHECK:      fn vyre_atomic_compare_exchange_acc(i: u32, expected: u32, value: u32) -> u32 {
// CHECK-NEXT:   if (i >= _vyre_meta.len_acc) {
// CHECK-NEXT:     return 0u;
// CHECK-NEXT:   }
// CHECK-NEXT:   var old: u32;
// CHECK-NEXT:   loop {
// CHECK-NEXT:     let result = atomicCompareExchangeWeak(&acc[i], expected, value);
// CHECK-NEXT:     old = result.old_value;
// CHECK-NEXT:     if (result.exchanged || old != expected) {
// CHECK-NEXT:       break;
// CHECK-NEXT:     }
// CHECK-NEXT:   }
// CHECK-NEXT:   return old;
// CHECK-NEXT: }

// CHECK:      fn vyre_load_acc(i: u32) -> u32 {
// CHECK-NEXT:   if (i < _vyre_meta.len_acc) {
// CHECK-NEXT:     return atomicLoad(&acc[i]);
// CHECK:      fn vyre_store_acc(i: u32, value: u32) {
// CHECK-NEXT:   if (i < _vyre_meta.len_acc) {
// CHECK-NEXT:     atomicStore(&acc[i], value);

// CHECK:        let old: u32 = vyre_atomic_add_acc(0u, 1u);
// CHECK-NEXT:   vyre_store_out(invocation_id.x, old);
// CHECK-NEXT:   let was: u32 = vyre_atomic_compare_exchange_acc(1u, 0u, invocation_id.x);
// CHECK-NEXT:   vyre_store_acc(invocation_id.x, was + vyre_load_acc(1u));
