// RUN: vyre-opt %s -p convert-to-vyre --split-input-file --verify-diagnostics | filecheck %s
// RUN: not vyre-opt %s -p convert-to-vyre --split-input-file 2>&1 | filecheck %s --check-prefix=EXIT

// Every error names the op and where it is; the run exits 1 without a traceback.
// EXIT-NOT: Traceback
// EXIT: convert-to-vyre-errors.mlir:{{[0-9]+}}:{{[0-9]+}}: error: convert-to-vyre:

func.func @unsupported(%a: memref<?xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %a, %c0 : memref<?xi32>
  "scf.parallel"(%c0, %n, %c1) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  ^bb0(%i: index):
    %x = memref.load %a[%i] : memref<?xi32>
    %y = arith.ceildivsi %x, %x : i32
    memref.store %y, %a[%i] : memref<?xi32>
    scf.reduce
  }) : (index, index, index) -> ()
  func.return
}
// CHECK: convert-to-vyre-errors.mlir:15:5: error: convert-to-vyre: 'arith.ceildivsi' is not supported (supported: arith: addi subi

// -----

func.func @wide(%a: memref<?xi64>) {
  func.return
}
// CHECK: convert-to-vyre-errors.mlir:25:1: error: convert-to-vyre: argument %a of @wide has type memref<?xi64>; kernels take 1-D memrefs of i32 or f32

// -----

func.func @i64_math(%a: memref<?xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %a, %c0 : memref<?xi32>
  "scf.parallel"(%c0, %n, %c1) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  ^bb0(%i: index):
    %x = memref.load %a[%i] : memref<?xi32>
    %w = arith.extsi %x : i32 to i64
    scf.reduce
  }) : (index, index, index) -> ()
  func.return
}
// CHECK: convert-to-vyre-errors.mlir:39:5: error: convert-to-vyre: 'arith.extsi' on i64: vyre converts i1, i32, index and f32 values

// -----

func.func @two_d(%a: memref<?xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  "scf.parallel"(%c0, %c0, %c1, %c1, %c1, %c1) <{operandSegmentSizes = array<i32: 2, 2, 2, 0>}> ({
  ^bb0(%i: index, %j: index):
    scf.reduce
  }) : (index, index, index, index, index, index) -> ()
  func.return
}
// CHECK: convert-to-vyre-errors.mlir:51:3: error: convert-to-vyre: scf.parallel over 2 dimensions; convert-to-vyre takes 1-D loops

// -----

func.func @offset(%a: memref<?xi32>) {
  %c1 = arith.constant 1 : index
  %n = memref.dim %a, %c1 : memref<?xi32>
  func.return
}
// CHECK: convert-to-vyre-errors.mlir:63:3: error: convert-to-vyre: memref.dim of a dimension other than the constant 0 (buffers are 1-D)

// -----

func.func @store_outside(%a: memref<?xi32>) {
  %c0 = arith.constant 0 : index
  %z = arith.constant 0 : i32
  memref.store %z, %a[%c0] : memref<?xi32>
  func.return
}
// CHECK: convert-to-vyre-errors.mlir:73:3: error: convert-to-vyre: 'memref.store' outside the scf.parallel: it would run once per invocation, not once

// -----

func.func @start_at_one(%a: memref<?xi32>) {
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  "scf.parallel"(%c1, %c8, %c1) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  ^bb0(%i: index):
    scf.reduce
  }) : (index, index, index) -> ()
  func.return
}
// CHECK: convert-to-vyre-errors.mlir:83:3: error: convert-to-vyre: scf.parallel must run from the constant 0 with the constant step 1

// -----

func.func @returns(%a: memref<?xi32>) -> i32 {
  %z = arith.constant 0 : i32
  func.return %z : i32
}
// CHECK: convert-to-vyre-errors.mlir:93:1: error: convert-to-vyre: @returns returns values; a kernel returns nothing

// -----

func.func @sequential(%a: memref<?xi32>) {
  func.return
}
// CHECK: convert-to-vyre-errors.mlir:101:1: error: convert-to-vyre: @sequential has no scf.parallel: nothing to run on the GPU

// -----

func.func @wide_index(%a: memref<?xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %a, %c0 : memref<?xi32>
  "scf.parallel"(%c0, %n, %c1) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  ^bb0(%i: index):
    %l, %h = arith.mului_extended %i, %n : index
    scf.reduce
  }) : (index, index, index) -> ()
  func.return
}
// CHECK: convert-to-vyre-errors.mlir:{{[0-9]+}}:5: error: convert-to-vyre: 'arith.mului_extended' on index is not supported (i32 is)
