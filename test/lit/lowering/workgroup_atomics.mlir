// RUN: vyre-opt %s -t wgsl | filecheck %s

// Workgroup atomics (docs/kernels.md, "Workgroup atomics"): a workgroup buffer
// that any atomic touches is `array<atomic<u32>, N>`; every access to it is an
// atomic builtin (plain loads and stores become atomicLoad / atomicStore), the
// zeroing at kernel start included. The OOB guard is the declared count: an
// index >= N runs no atomic and returns 0, a load reads 0, a store does nothing.
// A workgroup buffer no atomic touches keeps its plain element type.
vyre.kernel @histogram workgroup_size(64, 1, 1) buffers(@data : read_only u32 binding(0), @hist : read_write u32 binding(1), @bins : workgroup u32[16], @plain : workgroup u32[8]) {
  %l = vyre.local_id x
  %i = vyre.invocation_id x
  %one = vyre.lit_u32 1
  %fifteen = vyre.lit_u32 15
  %v = vyre.load @data[%i] : u32
  %bin = vyre.binop bit_and %v, %fifteen
  %old = vyre.atomic add @bins[%bin], %one
  vyre.store @plain[%l] = %old
  vyre.barrier
  %n = vyre.lit_u32 16
  %in = vyre.binop lt %l, %n
  vyre.if %in {
    %count = vyre.load @bins[%l] : u32
    %prev = vyre.atomic add @hist[%l], %count
  }
  vyre.barrier
  %zero = vyre.lit_u32 0
  vyre.store @bins[%zero] = %zero
  %was = vyre.atomic compare_exchange @bins[%one], %l expected %zero
  %top = vyre.atomic max @bins[%v], %l
}

// CHECK:      @group(0) @binding(1) var<storage, read_write> hist: array<atomic<u32>>;
// CHECK:      var<workgroup> bins: array<atomic<u32>, 16>;
// CHECK-NEXT: var<workgroup> plain: array<u32, 8>;

// CHECK:      fn vyre_atomic_add_bins(i: u32, value: u32) -> u32 {
// CHECK-NEXT:   if (i < 16u) {
// CHECK-NEXT:     return atomicAdd(&bins[i], value);
// CHECK-NEXT:   }
// CHECK-NEXT:   return 0u;
// CHECK-NEXT: }

// CHECK:      fn vyre_store_plain(i: u32, value: u32) {
// CHECK-NEXT:   if (i < 8u) {
// CHECK-NEXT:     plain[i] = value;

// CHECK:      fn vyre_load_bins(i: u32) -> u32 {
// CHECK-NEXT:   if (i < 16u) {
// CHECK-NEXT:     return atomicLoad(&bins[i]);
// CHECK-NEXT:   }
// CHECK-NEXT:   return 0u;
// CHECK-NEXT: }

// CHECK:      fn vyre_store_bins(i: u32, value: u32) {
// CHECK-NEXT:   if (i < 16u) {
// CHECK-NEXT:     atomicStore(&bins[i], value);
// CHECK-NEXT:   }
// CHECK-NEXT: }

// CHECK:      fn vyre_atomic_compare_exchange_bins(i: u32, expected: u32, value: u32) -> u32 {
// CHECK-NEXT:   if (i >= 16u) {
// CHECK-NEXT:     return 0u;
// CHECK-NEXT:   }
// CHECK:          let result = atomicCompareExchangeWeak(&bins[i], expected, value);

// CHECK:      fn vyre_atomic_max_bins(i: u32, value: u32) -> u32 {
// CHECK-NEXT:   if (i < 16u) {
// CHECK-NEXT:     return atomicMax(&bins[i], value);

// CHECK:        for (var k: u32 = local_index; k < 16u; k = k + 64u) {
// CHECK-NEXT:     atomicStore(&bins[k], 0u);
// CHECK-NEXT:   }
// CHECK-NEXT:   for (var k: u32 = local_index; k < 8u; k = k + 64u) {
// CHECK-NEXT:     plain[k] = 0u;
// CHECK-NEXT:   }
// CHECK-NEXT:   workgroupBarrier();
// CHECK-NEXT:   let v: u32 = vyre_load_data(invocation_id.x);
// CHECK-NEXT:   let old: u32 = vyre_atomic_add_bins(v & 15u, 1u);
// CHECK-NEXT:   vyre_store_plain(local_id.x, old);
// CHECK-NEXT:   workgroupBarrier();
// CHECK-NEXT:   if (local_id.x < 16u) {
// CHECK-NEXT:     _ = vyre_atomic_add_hist(local_id.x, vyre_load_bins(local_id.x));
// CHECK-NEXT:   }
// CHECK-NEXT:   workgroupBarrier();
// CHECK-NEXT:   vyre_store_bins(0u, 0u);
// CHECK-NEXT:   _ = vyre_atomic_compare_exchange_bins(1u, 0u, local_id.x);
// CHECK-NEXT:   _ = vyre_atomic_max_bins(v, local_id.x);
// CHECK-NEXT: }
