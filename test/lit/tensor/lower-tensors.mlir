// RUN: vyre-opt %s -p lower-tensors --split-input-file | filecheck %s
// RUN: vyre-opt %s -p lower-tensors --split-input-file -t wgsl | filecheck %s --check-prefix=WGSL

// A chain of views and elementwise ops is one kernel: the transpose and the
// slice fold into the strided index of one load, the broadcast of %b is a
// stride 0, the dynamic dim n travels in the `dims` uniform.
vtensor.graph @chain(%x : !vtensor.tensor<f32[n, 8]>, %b : !vtensor.tensor<f32[n]>) {
  %t = vtensor.transpose %x [1, 0] : !vtensor.tensor<f32[8, n] strides[1, 8]>
  %s = vtensor.index %t [::2] : !vtensor.tensor<f32[4, n] strides[2, 8]>
  %a = vtensor.add %s, %b : !vtensor.tensor<f32[4, n]>
  %y = vtensor.neg %a : !vtensor.tensor<f32[4, n]>
  vtensor.output "y" = %y
}

// CHECK-LABEL: vyre.kernel @chain_0_map workgroup_size(256, 1, 1) buffers(@in0 : read_only f32 binding(0), @in1 : read_only f32 binding(1), @out2 : read_write f32 binding(2), @dims : uniform u32[1] binding(3))
// CHECK:         %[[Q:.*]] = vyre.var "_q2" : u32
// CHECK-NEXT:    %[[TWO:.*]] = vyre.lit_u32 2
// CHECK-NEXT:    %[[ROW:.*]] = vyre.binop mul %[[Q]], %[[TWO]]
// CHECK-NEXT:    %[[I:.*]] = vyre.var "_i1" : u32
// CHECK-NEXT:    %[[EIGHT:.*]] = vyre.lit_u32 8
// CHECK-NEXT:    %[[COL:.*]] = vyre.binop mul %[[I]], %[[EIGHT]]
// CHECK-NEXT:    %[[AT:.*]] = vyre.binop add %[[ROW]], %[[COL]]
// CHECK-NEXT:    %[[X:.*]] = vyre.load @in0[%[[AT]]] : f32
// CHECK-NEXT:    %[[J:.*]] = vyre.var "_i1" : u32
// CHECK-NEXT:    %[[B:.*]] = vyre.load @in1[%[[J]]] : f32
// CHECK-NEXT:    %[[S:.*]] = vyre.fadd %[[X]], %[[B]]
// CHECK-NEXT:    %[[Y:.*]] = vyre.fneg %[[S]]
// CHECK-NEXT:    vyre.store @out2[%{{.*}}] = %[[Y]]
// CHECK-NOT:   vyre.kernel
// CHECK:       vtensor.schedule @chain {
// CHECK-NEXT:    vtensor.input "x" : !vtensor.tensor<f32[n, 8]>
// CHECK-NEXT:    vtensor.input "b" : !vtensor.tensor<f32[n]>
// CHECK-NEXT:    vtensor.buffer "#0" f32 ["4*n"]
// CHECK-NEXT:    vtensor.dispatch @chain_0_map grid ["((4*n + 255) // 256)", "1", "1"] repeat ["1"] params ["n"] bind("in0" = "x", "in1" = "b", "out2" = "#0")
// CHECK-NEXT:    vtensor.result "y" = "#0" : !vtensor.tensor<f32[4, n]>
// CHECK-NEXT:  }

// WGSL: fn main(
// WGSL-NOT: f32

// -----

// A transpose is tiled: a workgroup reads a 32 x 32 tile of x along x's rows
// into workgroup memory (consecutive invocations, consecutive addresses), then
// writes the output tile along the output's rows, x's words read back
// crosswise; b, stride 0 along the output's rows, is read where it is used.
vtensor.graph @tiled(%x : !vtensor.tensor<f32[n, 40]>, %b : !vtensor.tensor<f32[40, 1]>) {
  %t = vtensor.transpose %x [1, 0] : !vtensor.tensor<f32[40, n] strides[1, 40]>
  %y = vtensor.add %t, %b : !vtensor.tensor<f32[40, n]>
  vtensor.output "y" = %y
}

// CHECK-LABEL: vyre.kernel @tiled_0_map workgroup_size(256, 1, 1) buffers(@in0 : read_only f32 binding(0), @in1 : read_only f32 binding(1), @out2 : read_write f32 binding(2), @tile0 : workgroup u32[1024], @dims : uniform u32[1] binding(3))
// CHECK:         vyre.if
// CHECK:           %[[X:.*]] = vyre.load @in0[%{{.*}}] : f32
// CHECK-NEXT:      %[[BITS:.*]] = vyre.bitcast %[[X]] to u32
// CHECK-NEXT:      vyre.store @tile0[%{{.*}}] = %[[BITS]]
// CHECK:         vyre.barrier
// CHECK:         vyre.if
// CHECK-NEXT:      %[[OUT:.*]] = vyre.var "_s{{[0-9]+}}" : u32
// CHECK-NEXT:      %[[W:.*]] = vyre.var "_ww{{[0-9]+}}" : u32
// CHECK-NEXT:      %[[T:.*]] = vyre.load @tile0[%[[W]]] : u32
// CHECK-NEXT:      %[[V:.*]] = vyre.bitcast %[[T]] to f32
// CHECK-NEXT:      %[[AT:.*]] = vyre.var "_s{{[0-9]+}}" : u32
// CHECK-NEXT:      %[[B:.*]] = vyre.load @in1[%[[AT]]] : f32
// CHECK-NEXT:      %[[S:.*]] = vyre.fadd %[[V]], %[[B]]
// CHECK-NEXT:      vyre.store @out2[%[[OUT]]] = %[[S]]
// CHECK:       vtensor.schedule @tiled {
// CHECK:         vtensor.dispatch @tiled_0_map grid ["2*((n + 31) // 32)", "1", "1"] repeat ["1"] params ["n"] bind("in0" = "x", "in1" = "b", "out2" = "#0")

// -----

// Shapes that meet only at run time: the host checks them before any dispatch.
vtensor.graph @dynamic(%a : !vtensor.tensor<u32[n]>, %b : !vtensor.tensor<u32[m]>) {
  %c = vtensor.add %a, %b : !vtensor.tensor<u32["n + m*(1 == n) - (1 == n)"]>
  vtensor.output "c" = %c
}

// CHECK-LABEL: vtensor.schedule @dynamic {
// CHECK:         vtensor.check "(((m == n) || (1 == n)) || (1 == m))" "vt.add: shapes ({0},) and ({1},) do not broadcast" ["n", "m"]
// CHECK:         vtensor.dispatch @dynamic_0_map

// -----

// Reductions and matmul: several kernels and scratch buffers; the ordered
// sums repeat a dispatch over chunks of the axis (`rep`); an exact matmul is
// the 8-bit dot-product kernels (statistics, order, plan, residues, GEMM, CRT), then
// the per-product kernel for the outputs they list (with a constant inner
// length within one chunk it adds and rounds in one kernel).
vtensor.graph @reduce(%x : !vtensor.tensor<f32[r, 3]>, %w : !vtensor.tensor<f32[3, 2]>) {
  %e = vtensor.sum %x axis 0 order exact : !vtensor.tensor<f32[3]>
  %q = vtensor.sum %x axis 0 order sequential : !vtensor.tensor<f32[3]>
  %t = vtensor.sum %x axis 1 order tree : !vtensor.tensor<f32[r]>
  %m = vtensor.matmul %x, %w accumulate exact : !vtensor.tensor<f32[r, 2]>
  vtensor.output "e" = %e, "q" = %q, "t" = %t, "m" = %m
}

// CHECK-LABEL: vyre.kernel @reduce_0_sum_exact_tiles
// CHECK:       vyre.kernel @reduce_0_sum_exact_merge
// CHECK:       vyre.kernel @reduce_1_sum_sequential
// CHECK:       vyre.kernel @reduce_2_sum_tree_push
// CHECK:       vyre.kernel @reduce_2_sum_tree_finish
// CHECK:       vyre.kernel @reduce_3_matmul_exact_stats_a
// CHECK:       vyre.kernel @reduce_3_matmul_exact_gemm
// CHECK:       vyre.kernel @reduce_3_matmul_exact_crt
// CHECK:       vyre.kernel @reduce_3_matmul_exact_rest
// CHECK-NOT:   vyre.kernel @reduce_3_matmul_exact_round
// CHECK:       vtensor.schedule @reduce {
// CHECK:         vtensor.dispatch @reduce_0_sum_exact_tiles grid ["3*((r + 65536*max(((r + 134217727) // 134217728), 1) - 1) // (65536*max(((r + 134217727) // 134217728), 1)))", "1", "1"] repeat ["1"]
// CHECK-NEXT:    vtensor.dispatch @reduce_0_sum_exact_merge grid ["3", "1", "1"] repeat ["1"]
// CHECK-NEXT:    vtensor.dispatch @reduce_1_sum_sequential grid ["1", "1", "1"] repeat ["max(((r + 8190) // 8192), 1)"] params ["rep", "r"]
// CHECK-NEXT:    vtensor.dispatch @reduce_2_sum_tree_push grid ["((r + 255) // 256)", "1", "1"] repeat ["1"]
// CHECK-NEXT:    vtensor.dispatch @reduce_2_sum_tree_finish
// CHECK-NEXT:    vtensor.dispatch @reduce_3_matmul_exact_stats_a grid ["r", "1", "1"] repeat ["1"]
// CHECK:         vtensor.dispatch @reduce_3_matmul_exact_gemm grid ["18*((r + 127) // 128)", "1", "1"] repeat ["1"]
// CHECK:         vtensor.dispatch @reduce_3_matmul_exact_rest grid ["min(((2*r + 63) // 64), 1024)", "1", "1"] repeat ["1"]
