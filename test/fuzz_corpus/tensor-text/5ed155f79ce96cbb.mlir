builtin.module {
  vtensor.graph @g1(%x : !vtensor.tensor<f32[1, 8]>, %w : !vtensor.tensor<f32[8, m]>, %b : !vtensor.tensor<f32[m]>, %i : !vtensor.tensor<i32[3, 2]>) {
    %1 = vtensor.index %x [1] : !vtensor.tensor<f32[0, 8] strides[0, -1] offset 9999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999>
    %3 = vtensor.broadcast_to %b : !vtensor.tensor<f32[1, m]>
    %6 = vtensor.matmul %x, %w accumulate s: !vtensor.tensor<f32[1, m]>
    %7 = vtensor.add %6, %b : !vtensor.tensor<f32[1, m]>%8 = vtensor.sub %7, %3 : !vtensor.tensor<f32[1, m]>
    %9 = vtensor.mul %8, %6 : !vtensor.tensor<f32[1, m]>
    %10 = vtensor.div %9, %3 : !vtensor.tensor<f32[1, m]>
    %11 = vtensor.maximum %6 : !vtensor.tensor<f32[1, m]>
    %12 = vtensor.abs %11 : !vtensor.tensor<f32[1, m]>
    %13 = vtensor.sqrt %12 : !vtensor.tensor<f32[1, m]>
    %14 = vtensor.map(%13, %b) : !vtensor.tensor<f32[1, m]> {
    }
  }
}