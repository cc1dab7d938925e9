// RUN: vyre-opt %s --split-input-file --verify-diagnostics 2>&1 | filecheck %s

// Each op's verifier computes its result type with the shape rules of the
// Python API; a static mismatch is a located error naming the op and the shapes.

vtensor.graph @g(%a : !vtensor.tensor<f32[3]>, %b : !vtensor.tensor<f32[4]>) {
  %c = vtensor.add %a, %b : !vtensor.tensor<f32[4]>
  vtensor.output "c" = %c
}

// CHECK: invalid.mlir:7:3: error: vtensor.add: shapes (3,) and (4,) do not broadcast
// CHECK-NEXT: {{//}} -----

// -----

vtensor.graph @g(%a : !vtensor.tensor<f32[3]>, %b : !vtensor.tensor<u32[3]>) {
  %c = vtensor.mul %a, %b : !vtensor.tensor<f32[3]>
  vtensor.output "c" = %c
}

// CHECK: invalid.mlir:17:3: error: vtensor.mul: element types f32 and u32 differ
// CHECK-NEXT: {{//}} -----

// -----

vtensor.graph @g(%a : !vtensor.tensor<u32[3]>) {
  %c = vtensor.div %a, %a : !vtensor.tensor<u32[3]>
  vtensor.output "c" = %c
}

// CHECK: invalid.mlir:27:3: error: vtensor.div is defined for f32, f16 and bf16 tensors, not u32
// CHECK-NEXT: {{//}} -----

// -----

vtensor.graph @g(%a : !vtensor.tensor<f32[3, n]>) {
  %t = vtensor.transpose %a [1, 0] : !vtensor.tensor<f32[n, 3]>
  vtensor.output "t" = %t
}

// CHECK: invalid.mlir:37:3: error: 'vtensor.transpose' result type !vtensor.tensor<f32[n, 3]> does not match the inferred !vtensor.tensor<f32[n, 3] strides[1, n]>
// CHECK-NEXT: {{//}} -----

// -----

vtensor.graph @g(%a : !vtensor.tensor<f32[3, 4]>) {
  %t = vtensor.transpose %a [0, 0] : !vtensor.tensor<f32[3, 3]>
  vtensor.output "t" = %t
}

// CHECK: invalid.mlir:47:3: error: vtensor.transpose: axes (0, 0) are not a permutation of 2 dims
// CHECK-NEXT: {{//}} -----

// -----

vtensor.graph @g(%a : !vtensor.tensor<f32[3, 4]>) {
  %t = vtensor.index %a [5] : !vtensor.tensor<f32[4]>
  vtensor.output "t" = %t
}

// CHECK: invalid.mlir:57:3: error: vtensor.index: index 5 is out of range for axis 0 of shape (3, 4)
// CHECK-NEXT: {{//}} -----

// -----

vtensor.graph @g(%a : !vtensor.tensor<f32[3, 4]>) {
  %t = vtensor.reshape %a : !vtensor.tensor<f32[5]>
  vtensor.output "t" = %t
}

// CHECK: invalid.mlir:67:3: error: vtensor.reshape: cannot reshape shape (3, 4) to (5,) (element counts differ)
// CHECK-NEXT: {{//}} -----

// -----

vtensor.graph @g(%a : !vtensor.tensor<f32[3, 4]>) {
  %t = vtensor.transpose %a [1, 0] : !vtensor.tensor<f32[4, 3] strides[1, 4]>
  %r = vtensor.reshape %t : !vtensor.tensor<f32[12]>
  vtensor.output "r" = %r
}

// CHECK: invalid.mlir:78:3: error: vtensor.reshape: the layout of !vtensor.tensor<f32[4, 3] strides[1, 4]> cannot be viewed as shape [12]; copy it first (vtensor.copy)
// CHECK-NEXT: {{//}} -----

// -----

vtensor.graph @g(%a : !vtensor.tensor<f32[2, 3]>, %b : !vtensor.tensor<f32[4, 5]>) {
  %c = vtensor.matmul %a, %b accumulate exact : !vtensor.tensor<f32[2, 5]>
  vtensor.output "c" = %c
}

// CHECK: invalid.mlir:88:3: error: vtensor.matmul: shapes (2, 3) and (4, 5) do not match (inner dims differ)
// CHECK-NEXT: {{//}} -----

// -----

vtensor.graph @g(%a : !vtensor.tensor<u32[2, 3]>) {
  %c = vtensor.matmul %a, %a accumulate exact : !vtensor.tensor<f32[2, 3]>
  vtensor.output "c" = %c
}

// CHECK: invalid.mlir:98:3: error: vtensor.matmul is defined for f32, f16 and bf16 tensors, not u32
// CHECK-NEXT: {{//}} -----

// -----

vtensor.graph @g(%a : !vtensor.tensor<f32[2, 3]>) {
  %s = vtensor.sum %a axis 1 order fast : !vtensor.tensor<f32[2]>
  vtensor.output "s" = %s
}

// CHECK: invalid.mlir:108:3: error: vtensor.sum: order is one of exact, sequential, tree, got 'fast'
// CHECK-NEXT: {{//}} -----

// -----

vtensor.graph @g(%a : !vtensor.tensor<f32[2, 3]>) {
  %s = vtensor.max %a axis 2 : !vtensor.tensor<f32[2]>
  vtensor.output "s" = %s
}

// CHECK: invalid.mlir:118:3: error: vtensor.max: axis 2 is out of range for shape (2, 3)
// CHECK-NEXT: {{//}} -----

// -----

vtensor.graph @g(%a : !vtensor.tensor<f32[2]>) {
  %m = vtensor.map(%a) : !vtensor.tensor<f32[2]> {
  ^bb0(%x : !vyre.type<f32>):
    %i = vyre.lit_u32 0
    %y = vyre.load @buf[%i] : f32
    vtensor.yield %y
  }
  vtensor.output "m" = %m
}

// CHECK: invalid.mlir:128:3: error: vtensor.map holds `vyre.load`: the body is pure vyre expression code over its arguments
// CHECK-NEXT: {{//}} -----

// -----

vtensor.graph @g(%a : !vtensor.tensor<u64[2]>) {
  vtensor.output "a" = %a
}

// CHECK: invalid.mlir:142:1: error: a tensor's element type is f32, f16, bf16, u32 or i32, got u64
// CHECK: {{//}} -----

// -----

vtensor.graph @g(%a : !vtensor.tensor<f32["n +"]>) {
  vtensor.output "a" = %a
}

// CHECK: invalid.mlir:151:43: error: bad symbolic size 'n +': expected more
// CHECK: {{//}} -----

// -----

vtensor.graph @g(%a : !vtensor.tensor<f32[2]>, %a2 : !vtensor.tensor<f32[2]>) {
  vtensor.output "a" = %a, "a" = %a2
}

// CHECK: invalid.mlir:161:3: error: vtensor.output: output names must be distinct, got ['a', 'a']
