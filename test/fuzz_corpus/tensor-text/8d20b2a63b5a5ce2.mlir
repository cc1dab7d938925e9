vtensor.graph @g(%a : !vtensor.tensor<f32["4 // 0", 3]>) {
  %n = vtensor.neg %a : !vtensor.tensor<f32["4 // 0", 3]>
  vtensor.output "a" = %n
}
