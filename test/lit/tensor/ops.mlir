// RUN: VYRE_ROUNDTRIP
// RUN: VYRE_GENERIC_ROUNDTRIP

// Every op of a graph: views, copies, elementwise ops, map, reductions, matmul.
vtensor.graph @all(%x : !vtensor.tensor<f32[n, 8]>, %w : !vtensor.tensor<f32[8, 4]>, %b : !vtensor.tensor<f32[4]>, %i : !vtensor.tensor<i32[3, 2]>, %h : !vtensor.tensor<bf16[2, 8]>) {
  %t = vtensor.transpose %w [1, 0] : !vtensor.tensor<f32[4, 8] strides[1, 4]>
  %s = vtensor.index %x [1:9:2, ::-1] : !vtensor.tensor<f32["min(9, n) // 2", 8] strides[16, -1] offset 15>
  %e = vtensor.index %w [-1] : !vtensor.tensor<f32[4] offset 28>
  %bb = vtensor.broadcast_to %b : !vtensor.tensor<f32[n, 4] strides[0, 1]>
  %c = vtensor.copy %t : !vtensor.tensor<f32[4, 8]>
  %r = vtensor.reshape %c : !vtensor.tensor<f32[2, 16]>
  %mm = vtensor.matmul %x, %w accumulate exact : !vtensor.tensor<f32[n, 4]>
  %ht = vtensor.transpose %h [1, 0] : !vtensor.tensor<bf16[8, 2] strides[1, 8]>
  %ms = vtensor.matmul %h, %ht accumulate sequential : !vtensor.tensor<f32[2, 2]>
  %add = vtensor.add %mm, %b : !vtensor.tensor<f32[n, 4]>
  %sub = vtensor.sub %add, %bb : !vtensor.tensor<f32[n, 4]>
  %mul = vtensor.mul %sub, %sub : !vtensor.tensor<f32[n, 4]>
  %div = vtensor.div %mul, %b : !vtensor.tensor<f32[n, 4]>
  %max = vtensor.maximum %div, %mul : !vtensor.tensor<f32[n, 4]>
  %min = vtensor.minimum %i, %i : !vtensor.tensor<i32[3, 2]>
  %neg = vtensor.neg %min : !vtensor.tensor<i32[3, 2]>
  %abs = vtensor.abs %max : !vtensor.tensor<f32[n, 4]>
  %sq = vtensor.sqrt %abs : !vtensor.tensor<f32[n, 4]>
  %map = vtensor.map(%sq, %b) : !vtensor.tensor<f32[n, 4]> {
  ^bb0(%p : !vyre.type<f32>, %q : !vyre.type<f32>):
    %one = vyre.lit_float 0x3f800000 : f32
    %z = vyre.fma %p, %q, %one
    vtensor.yield %z
  }
  %se = vtensor.sum %map axis 1 order exact : !vtensor.tensor<f32[n]>
  %sq2 = vtensor.sum %map axis 0 order sequential : !vtensor.tensor<f32[4]>
  %st = vtensor.sum %map axis 1 order tree : !vtensor.tensor<f32[n]>
  %mx = vtensor.max %neg axis 0 : !vtensor.tensor<i32[2]>
  %mn = vtensor.min %x axis 1 : !vtensor.tensor<f32[n]>
  vtensor.output "se" = %se, "seq" = %sq2, "mx" = %mx, "mn" = %mn, "s" = %s, "e" = %e, "r" = %r, "ms" = %ms
}

// CHECK:      builtin.module {
// CHECK-NEXT: vtensor.graph @all(%x : !vtensor.tensor<f32[n, 8]>, %w : !vtensor.tensor<f32[8, 4]>, %b : !vtensor.tensor<f32[4]>, %i : !vtensor.tensor<i32[3, 2]>, %h : !vtensor.tensor<bf16[2, 8]>) {
// CHECK-NEXT: %t = vtensor.transpose %w [1, 0] : !vtensor.tensor<f32[4, 8] strides[1, 4]>
// CHECK-NEXT: %s = vtensor.index %x [1:9:2, ::-1] : !vtensor.tensor<f32["(min(9, n) // 2)", 8] strides[16, -1] offset 15>
// CHECK-NEXT: %e = vtensor.index %w [-1] : !vtensor.tensor<f32[4] offset 28>
// CHECK-NEXT: %bb = vtensor.broadcast_to %b : !vtensor.tensor<f32[n, 4] strides[0, 1]>
// CHECK-NEXT: %c = vtensor.copy %t : !vtensor.tensor<f32[4, 8]>
// CHECK-NEXT: %r = vtensor.reshape %c : !vtensor.tensor<f32[2, 16]>
// CHECK-NEXT: %mm = vtensor.matmul %x, %w accumulate exact : !vtensor.tensor<f32[n, 4]>
// CHECK-NEXT: %ht = vtensor.transpose %h [1, 0] : !vtensor.tensor<bf16[8, 2] strides[1, 8]>
// CHECK-NEXT: %ms = vtensor.matmul %h, %ht accumulate sequential : !vtensor.tensor<f32[2, 2]>
// CHECK-NEXT: %add = vtensor.add %mm, %b : !vtensor.tensor<f32[n, 4]>
// CHECK-NEXT: %sub = vtensor.sub %add, %bb : !vtensor.tensor<f32[n, 4]>
// CHECK-NEXT: %mul = vtensor.mul %sub, %sub : !vtensor.tensor<f32[n, 4]>
// CHECK-NEXT: %div = vtensor.div %mul, %b : !vtensor.tensor<f32[n, 4]>
// CHECK-NEXT: %max = vtensor.maximum %div, %mul : !vtensor.tensor<f32[n, 4]>
// CHECK-NEXT: %min = vtensor.minimum %i, %i : !vtensor.tensor<i32[3, 2]>
// CHECK-NEXT: %neg = vtensor.neg %min : !vtensor.tensor<i32[3, 2]>
// CHECK-NEXT: %abs = vtensor.abs %max : !vtensor.tensor<f32[n, 4]>
// CHECK-NEXT: %sq = vtensor.sqrt %abs : !vtensor.tensor<f32[n, 4]>
// CHECK-NEXT: %map = vtensor.map(%sq, %b) : !vtensor.tensor<f32[n, 4]> {
// CHECK-NEXT: ^bb0(%p: !vyre.type<f32>, %q: !vyre.type<f32>):
// CHECK-NEXT: %one = vyre.lit_float 0x3f800000 : f32
// CHECK-NEXT: %z = vyre.fma %p, %q, %one
// CHECK-NEXT: vtensor.yield %z
// CHECK-NEXT: }
// CHECK-NEXT: %se = vtensor.sum %map axis 1 order exact : !vtensor.tensor<f32[n]>
// CHECK-NEXT: %sq2 = vtensor.sum %map axis 0 order sequential : !vtensor.tensor<f32[4]>
// CHECK-NEXT: %st = vtensor.sum %map axis 1 order tree : !vtensor.tensor<f32[n]>
// CHECK-NEXT: %mx = vtensor.max %neg axis 0 : !vtensor.tensor<i32[2]>
// CHECK-NEXT: %mn = vtensor.min %x axis 1 : !vtensor.tensor<f32[n]>
// CHECK-NEXT: vtensor.output "se" = %se, "seq" = %sq2, "mx" = %mx, "mn" = %mn, "s" = %s, "e" = %e, "r" = %r, "ms" = %ms
// CHECK-NEXT: }
// CHECK-NEXT: }

// -----


// A schedule, as lower-tensors writes it (beside the kernels it dispatches).
vyre.kernel @k workgroup_size(256, 1, 1) buffers(@in0 : read_only f32 binding(0), @out1 : read_write f32 binding(1), @dims : uniform u32[1] binding(2)) {
}
vtensor.schedule @g {
  vtensor.input "x" : !vtensor.tensor<f32[n, 2]>
  vtensor.check "(0 != n)" "vt.max: axis 0 of shape ({0}, 2) is empty" ["n"]
  vtensor.buffer "#0" f32 ["2*n"]
  vtensor.dispatch @k grid ["((2*n + 255) // 256)", "1", "1"] repeat ["1"] params ["2*n"] bind("in0" = "x", "out1" = "#0")
  vtensor.result "y" = "#0" : !vtensor.tensor<f32[n, 2]>
}

// CHECK:      builtin.module {
// CHECK-NEXT: vyre.kernel @k workgroup_size(256, 1, 1) buffers(@in0 : read_only f32 binding(0), @out1 : read_write f32 binding(1), @dims : uniform u32[1] binding(2)) {
// CHECK-NEXT: }
// CHECK-NEXT: vtensor.schedule @g {
// CHECK-NEXT: vtensor.input "x" : !vtensor.tensor<f32[n, 2]>
// CHECK-NEXT: vtensor.check "(0 != n)" "vt.max: axis 0 of shape ({0}, 2) is empty" ["n"]
// CHECK-NEXT: vtensor.buffer "#0" f32 ["2*n"]
// CHECK-NEXT: vtensor.dispatch @k grid ["((2*n + 255) // 256)", "1", "1"] repeat ["1"] params ["2*n"] bind("in0" = "x", "out1" = "#0")
// CHECK-NEXT: vtensor.result "y" = "#0" : !vtensor.tensor<f32[n, 2]>
// CHECK-NEXT: }
// CHECK-NEXT: }

// The generic form names the properties.
// CHECK-GENERIC: "vtensor.graph"() ({
// CHECK-GENERIC: "vtensor.index"(%x) {items = ["1:9:2", "::-1"]}
// CHECK-GENERIC: }) {input_names = ["x", "w", "b", "i", "h"], sym_name = "all"}
// CHECK-GENERIC: "vtensor.dispatch"() {bind_from = ["in0", "out1"], bind_to = ["x", "#0"], grid = ["((2*n + 255) // 256)", "1", "1"], kernel = "k", params = ["2*n"], repeat = "1"}
