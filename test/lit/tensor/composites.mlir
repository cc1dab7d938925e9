// RUN: VYRE_ROUNDTRIP
// RUN: VYRE_GENERIC_ROUNDTRIP
// RUN: vyre-opt %s -p lower-tensors | filecheck %s --check-prefix=LOWER

// The correctly rounded functions and the composites: softmax and layer norm
// are one kernel each (one workgroup per row); attention is its definition op
// by op (the scores and values matmuls on 8-bit dot products, the scale and
// the causal mask where its softmax kernel reads the scores); gelu is
// elementwise and fuses into its reader.
vtensor.graph @block(%x : !vtensor.tensor<f32[t, 8]>, %w : !vtensor.tensor<f32[8]>, %qkv : !vtensor.tensor<f32[2, t, 12]>) {
  %e = vtensor.exp %x : !vtensor.tensor<f32[t, 8]>
  %l = vtensor.log %e : !vtensor.tensor<f32[t, 8]>
  %th = vtensor.tanh %l : !vtensor.tensor<f32[t, 8]>
  %er = vtensor.erf %th : !vtensor.tensor<f32[t, 8]>
  %g = vtensor.gelu %er : !vtensor.tensor<f32[t, 8]>
  %p = vtensor.softmax %g axis 1 : !vtensor.tensor<f32[t, 8]>
  %n = vtensor.layer_norm %x, %w, %w eps 0x3727c5ac : !vtensor.tensor<f32[t, 8]>
  %q = vtensor.index %qkv [:, :, 0:4] : !vtensor.tensor<f32[2, t, 4] strides["12*t", 12, 1]>
  %k = vtensor.index %qkv [:, :, 4:8] : !vtensor.tensor<f32[2, t, 4] strides["12*t", 12, 1] offset 4>
  %v = vtensor.index %qkv [:, :, 8:12] : !vtensor.tensor<f32[2, t, 4] strides["12*t", 12, 1] offset 8>
  %a = vtensor.attention %q, %k, %v causal : !vtensor.tensor<f32[2, t, 4]>
  %f = vtensor.attention %q, %k, %v : !vtensor.tensor<f32[2, t, 4]>
  vtensor.output "p" = %p, "n" = %n, "a" = %a, "f" = %f
}

// CHECK:      vtensor.graph @block(%x : !vtensor.tensor<f32[t, 8]>, %w : !vtensor.tensor<f32[8]>, %qkv : !vtensor.tensor<f32[2, t, 12]>) {
// CHECK-NEXT:   %e = vtensor.exp %x : !vtensor.tensor<f32[t, 8]>
// CHECK-NEXT:   %l = vtensor.log %e : !vtensor.tensor<f32[t, 8]>
// CHECK-NEXT:   %th = vtensor.tanh %l : !vtensor.tensor<f32[t, 8]>
// CHECK-NEXT:   %er = vtensor.erf %th : !vtensor.tensor<f32[t, 8]>
// CHECK-NEXT:   %g = vtensor.gelu %er : !vtensor.tensor<f32[t, 8]>
// CHECK-NEXT:   %p = vtensor.softmax %g axis 1 : !vtensor.tensor<f32[t, 8]>
// CHECK-NEXT:   %n = vtensor.layer_norm %x, %w, %w eps 0x3727c5ac : !vtensor.tensor<f32[t, 8]>
// CHECK:        %a = vtensor.attention %q, %k, %v causal : !vtensor.tensor<f32[2, t, 4]>
// CHECK-NEXT:   %f = vtensor.attention %q, %k, %v : !vtensor.tensor<f32[2, t, 4]>

// The generic form names the properties (eps as its f32 bit pattern).
// CHECK-GENERIC: "vtensor.layer_norm"(%x, %w, %w) {eps = 925353388 : i64}
// CHECK-GENERIC: "vtensor.attention"(%q, %k, %v) {causal = 1 : i64}
// CHECK-GENERIC: "vtensor.attention"(%q, %k, %v) {causal = 0 : i64}

// LOWER:       vyre.kernel @block_0_softmax workgroup_size(32, 1, 1)
// LOWER:       vyre.kernel @block_1_layer_norm workgroup_size(32, 1, 1)
// LOWER:       vyre.kernel @block_2_attention_scores_stats_a workgroup_size(64, 1, 1)
// LOWER:       vyre.kernel @block_2_attention_scores_gemm workgroup_size(256, 1, 1)
// LOWER:       vyre.kernel @block_2_attention_scores_crt workgroup_size(256, 1, 1)
// LOWER:       vyre.kernel @block_2_attention_scores_rest workgroup_size(64, 1, 1)
// LOWER:       vyre.kernel @block_3_attention_softmax workgroup_size(64, 1, 1)
// LOWER:       vyre.kernel @block_4_attention_values_gemm workgroup_size(256, 1, 1)
// LOWER:       vyre.kernel @block_4_attention_values_acc workgroup_size(64, 1, 1)
// LOWER:       vyre.kernel @block_4_attention_values_round workgroup_size(256, 1, 1)
// LOWER:       vyre.kernel @block_5_attention_scores_stats_a workgroup_size(64, 1, 1)
// LOWER:       vtensor.schedule @block {
// LOWER:         vtensor.check "(0 != t)" "vt.attention: axis 1 of k's shape (2, {0}, 4) is empty" ["t"]
// LOWER:         vtensor.dispatch @block_0_softmax grid ["t", "1", "1"]
// LOWER:         vtensor.dispatch @block_1_layer_norm grid ["t", "1", "1"]
// LOWER:         vtensor.dispatch @block_2_attention_scores_stats_a grid ["2*t", "1", "1"]
// LOWER:         vtensor.dispatch @block_2_attention_scores_gemm grid ["36*((t + 127) // 128)*((t + 127) // 128)", "1", "1"]
// LOWER:         vtensor.dispatch @block_3_attention_softmax grid ["2*t", "1", "1"]
