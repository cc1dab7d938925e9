// MLIR's standard dialects (func, scf, memref, arith), as another compiler would
// hand them to vyre: `-p convert-to-vyre` makes the function a vyre.kernel
// (buffers x, y, out; the parallel index is the invocation id, under a bounds guard).
//   vyre-opt examples/saxpy.mlir -p convert-to-vyre
//   vyre-opt examples/saxpy.mlir -p convert-to-vyre,canonicalize -t wgsl
// (xDSL 0.74 has no custom syntax for scf.parallel: it is written in generic form.)
func.func @saxpy(%x: memref<?xf32>, %y: memref<?xf32>, %out: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %alpha = arith.constant 2.5 : f32
  %n = memref.dim %out, %c0 : memref<?xf32>
  "scf.parallel"(%c0, %n, %c1) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  ^bb0(%i: index):
    %xi = memref.load %x[%i] : memref<?xf32>
    %yi = memref.load %y[%i] : memref<?xf32>
    %ax = arith.mulf %alpha, %xi : f32
    %r = arith.addf %ax, %yi : f32
    memref.store %r, %out[%i] : memref<?xf32>
    scf.reduce
  }) : (index, index, index) -> ()
  func.return
}
