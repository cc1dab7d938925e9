// REQUIRES: mlir-opt-16
// The generic form vyre-opt prints is MLIR's: mlir-opt-16 reads it (vyre as an
// unregistered dialect) and prints it back unchanged, and vyre-opt reads what
// mlir-opt prints. Input: every op of the dialect (dialect/ops.mlir) and every
// float op (below).
// RUN: vyre-opt %S/../dialect/ops.mlir --split-input-file --print-op-generic > %t.ops.vyre
// RUN: mlir-opt-16 --allow-unregistered-dialect --split-input-file --mlir-print-op-generic %t.ops.vyre > %t.ops.mlir1
// RUN: vyre-opt %t.ops.mlir1 --split-input-file --print-op-generic > %t.ops.vyre2
// RUN: mlir-opt-16 --allow-unregistered-dialect --split-input-file --mlir-print-op-generic %t.ops.vyre2 > %t.ops.mlir2
// RUN: diff %t.ops.mlir1 %t.ops.mlir2
// RUN: vyre-opt %t.ops.mlir1 --split-input-file > %t.ops.after
// (test/unit/tools/test_mlir_generic.py checks that what comes back is the same IR, op for op.)
// RUN: vyre-opt %s --print-op-generic | mlir-opt-16 --allow-unregistered-dialect --mlir-print-op-generic | vyre-opt | filecheck %s

vyre.kernel @floats workgroup_size(64, 1, 1) buffers(@x : read_only f32 binding(0), @out : read_write f32 binding(1), @flags : read_write bool binding(2)) {
  %i = vyre.invocation_id x
  %a = vyre.load @x[%i] : f32
  %one = vyre.lit_float 0x3f800000 : f32
  %s = vyre.fadd %a, %one
  %m = vyre.fmul %s, %a
  %f = vyre.fma %m, %a, %one
  %r = vyre.fsqrt %f
  %c = vyre.fcmp lt %r, %one
  %w = vyre.bitcast %r to u32
  %back = vyre.bitcast %w to f32
  vyre.store @out[%i] = %back
  vyre.store @flags[%i] = %c
}

// CHECK:      vyre.kernel @floats workgroup_size(64, 1, 1) buffers(@x : read_only f32 binding(0), @out : read_write f32 binding(1), @flags : read_write bool binding(2)) {
// CHECK-NEXT:   %0 = vyre.invocation_id x
// CHECK-NEXT:   %1 = vyre.load @x[%0] : f32
// CHECK-NEXT:   %2 = vyre.lit_float 0x3f800000 : f32
// CHECK-NEXT:   %3 = vyre.fadd %1, %2
// CHECK-NEXT:   %4 = vyre.fmul %3, %1
// CHECK-NEXT:   %5 = vyre.fma %4, %1, %2
// CHECK-NEXT:   %6 = vyre.fsqrt %5
// CHECK-NEXT:   %7 = vyre.fcmp lt %6, %2
// CHECK-NEXT:   %8 = vyre.bitcast %6 to u32
// CHECK-NEXT:   %9 = vyre.bitcast %8 to f32
// CHECK-NEXT:   vyre.store @out[%0] = %9
// CHECK-NEXT:   vyre.store @flags[%0] = %7
// CHECK-NEXT: }
