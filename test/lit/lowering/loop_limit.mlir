// RUN: vyre-opt %s -t 'wgsl{loop_limit=65535}' | filecheck %s
// RUN: vyre-opt %s -t wgsl | filecheck %s --check-prefix=PLAIN

// For an adapter that stops loops silently after 65,535 back-edges per
// invocation (lavapipe; vyre/lowering/loops.py): a small loop body is written
// 32 times per WGSL iteration, each copy behind the exact exit test, and after
// the loop a check sets the status word when the loop did not end by its own
// condition. Without the option the loop is a plain `for` and there is no
// status binding.
vyre.kernel @sum workgroup_size(1, 1, 1) buffers(@p : read_only u32 binding(0), @out : read_write u32 binding(1)) {
  %zero = vyre.lit_u32 0
  vyre.let "acc" = %zero
  %n = vyre.load @p[%zero] : u32
  vyre.loop "k" = %zero to %n {
    %a = vyre.var "acc" : u32
    %k = vyre.var "k" : u32
    %s = vyre.binop add %a, %k
    vyre.assign "acc" = %s
  }
  %final = vyre.var "acc" : u32
  vyre.store @out[%zero] = %final
}

// CHECK:      @group(0) @binding(2) var<uniform> _vyre_meta: VyreMeta;
// CHECK-NEXT: // Loop status
// CHECK-NEXT: @group(0) @binding(3) var<storage, read_write> _vyre_status: array<atomic<u32>>;
// CHECK:        var acc: u32 = 0u;
// CHECK-NEXT:   {
// CHECK-NEXT:     var k: u32 = 0u;
// CHECK-NEXT:     let k_end: u32 = vyre_load_p(0u);
// CHECK-NEXT:     loop {
// CHECK-NEXT:       if (k >= k_end) {
// CHECK-NEXT:         break;
// CHECK-NEXT:       }
// CHECK-NEXT:       {
// CHECK-NEXT:         acc = acc + k;
// CHECK-NEXT:       }
// CHECK-NEXT:       k = k + 1u;
// CHECK-COUNT-31:   if (k >= k_end) {
// CHECK-NOT:        if (k >= k_end) {
// CHECK:            k = k + 1u;
// CHECK-NEXT:     }
// CHECK-NEXT:     if (k < k_end) {
// CHECK-NEXT:       atomicMax(&_vyre_status[0], 1u);
// CHECK-NEXT:     }
// CHECK-NEXT:   }

// PLAIN-NOT:  _vyre_status
// PLAIN:      for (var k: u32 = 0u; k < k_end; k = k + 1u) {
