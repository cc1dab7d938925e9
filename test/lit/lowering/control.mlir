// RUN: vyre-opt %s -t wgsl | filecheck %s

// Locals keep their names; a read of a local that an assignment overwrites
// before the read is used is taken first; loop bounds are evaluated once and
// the loop is half-open; conditions test `!= 0`; Select is WGSL `select`.
vyre.kernel @control workgroup_size(4, 1, 1) buffers(@out : read_write u32 binding(0)) {
  %i = vyre.invocation_id x
  %c3 = vyre.lit_u32 3
  vyre.let "n" = %c3
  %before = vyre.var "n" : u32
  %c0 = vyre.lit_u32 0
  %n = vyre.var "n" : u32
  vyre.loop "k" = %c0 to %n {
    %n1 = vyre.var "n" : u32
    %c1 = vyre.lit_u32 1
    %next = vyre.binop add %n1, %c1
    vyre.assign "n" = %next
  }
  vyre.store @out[%i] = %before
  vyre.if %i {
    vyre.return
  } else {
    %n2 = vyre.var "n" : u32
    %c5 = vyre.lit_u32 5
    %c6 = vyre.lit_u32 6
    %pick = vyre.select %n2, %c5, %c6
    vyre.store @out[%i] = %pick
  }
}

// CHECK:      var n: u32 = 3u;
// CHECK-NEXT: let before: u32 = n;
// CHECK-NEXT: let k_end: u32 = n;
// CHECK-NEXT: for (var k: u32 = 0u; k < k_end; k = k + 1u) {
// CHECK-NEXT:   n = n + 1u;
// CHECK-NEXT: }
// CHECK-NEXT: vyre_store_out(invocation_id.x, before);
// CHECK-NEXT: if (invocation_id.x != 0u) {
// CHECK-NEXT:   return;
// CHECK-NEXT: } else {
// CHECK-NEXT:   vyre_store_out(invocation_id.x, select(6u, 5u, n != 0u));
// CHECK-NEXT: }
