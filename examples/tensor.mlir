// A tensor graph: y = x @ w + b (exact accumulation), and the exact sum of y's
// rows. `vyre-opt examples/tensor.mlir -p lower-tensors` prints its kernels and
// schedule (docs/tensors.md).
vtensor.graph @mlp(%x : !vtensor.tensor<f32[n, 4]>, %w : !vtensor.tensor<f32[4, 3]>, %b : !vtensor.tensor<f32[3]>) {
  %m = vtensor.matmul %x, %w accumulate exact : !vtensor.tensor<f32[n, 3]>
  %y = vtensor.add %m, %b : !vtensor.tensor<f32[n, 3]>
  %s = vtensor.sum %y axis 1 order exact : !vtensor.tensor<f32[n]>
  vtensor.output "y" = %y, "s" = %s
}
