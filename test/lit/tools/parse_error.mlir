// RUN: not vyre-opt %s 2>&1 | filecheck %s
// RUN: not vyre-opt < %s 2>&1 | filecheck %s --check-prefix=STDIN

vyre.kernel @k workgroup_size(1, 1, 1) {
  %0 = vyre.lit_u32 1
  vyre.frobnicate %0
}

// CHECK-NOT:  Traceback
// CHECK:      {{.*}}parse_error.mlir:6:3: error: unknown operation `vyre.frobnicate` (known dialects: arith, builtin, func, memref, scf, vtensor, vyre)
// CHECK-NEXT: vyre.frobnicate %0
// CHECK-NEXT: ^^^^^^^^^^^^^^^
// CHECK-NOT:  Traceback

// STDIN: <stdin>:6:3: error: unknown operation `vyre.frobnicate`
