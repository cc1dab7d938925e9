vtensor.graph @g(%a : !vtensor.tensor<f32["n % (n - n)", 3]>) {
  %n = vtensor.neg %a : !vtensor.tensor<f32["n % (n - n)", 3]>
  vtensor.output "a" = %n
}
