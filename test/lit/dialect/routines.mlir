// RUN: vyre-opt %s | filecheck %s
// RUN: vyre-opt %s | vyre-opt | filecheck %s
// RUN: vyre-opt %s --print-op-generic | vyre-opt | filecheck %s
// RUN: vyre-opt %s --print-op-generic | filecheck %s --check-prefix=CHECK-GENERIC
// RUN: vyre-opt %s -t wgsl | filecheck %s --check-prefix=WGSL

// A routine is a module-level function of u32 words beside the kernel: straight-line
// expression code over its parameters, ended by vyre.yield; vyre.invoke calls it.
builtin.module {
  vyre.kernel @k workgroup_size(64, 1, 1) buffers(@a : read_only u32 binding(0), @out : read_write u32 binding(1)) {
    %i = vyre.invocation_id x
    %x = vyre.load @a[%i] : u32
    %y = vyre.invoke @twice_plus(%x, %x) : u32
    vyre.store @out[%i] = %y
  }
  vyre.routine @twice_plus(%a : u32, %b : u32) -> u32 {
    %s = vyre.binop add %a, %b
    %t = vyre.invoke @one_more(%s) : u32
    vyre.yield %t
  }
  vyre.routine @one_more(%v : u32) -> u32 {
    %one = vyre.lit_u32 1
    %r = vyre.binop add %v, %one
    vyre.yield %r
  }
}

// CHECK:      %y = vyre.invoke @twice_plus(%x, %x) : u32
// CHECK:      vyre.routine @twice_plus(%a : u32, %b : u32) -> u32 {
// CHECK-NEXT:   %s = vyre.binop add %a, %b
// CHECK-NEXT:   %t = vyre.invoke @one_more(%s) : u32
// CHECK-NEXT:   vyre.yield %t
// CHECK-NEXT: }
// CHECK:      vyre.routine @one_more(%v : u32) -> u32 {

// CHECK-GENERIC: "vyre.invoke"(%{{.*}}, %{{.*}}) {callee = "twice_plus"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
// CHECK-GENERIC: "vyre.routine"() ({
// CHECK-GENERIC: "vyre.invoke"(%{{.*}}) {callee = "one_more"} : (!vyre.type<u32>) -> !vyre.type<u32>
// CHECK-GENERIC: "vyre.yield"(%{{.*}}) : (!vyre.type<u32>) -> ()
// CHECK-GENERIC: }) {result_type = !vyre.type<u32>, sym_name = "twice_plus"} : () -> ()

// Lowered, each routine the kernel reaches is a WGSL function:
// WGSL-DAG: fn one_more(v: u32) -> u32 {
// WGSL-DAG: fn twice_plus(a_1: u32, b: u32) -> u32 {
// WGSL:     vyre_store_out(invocation_id.x, twice_plus(x, x));
