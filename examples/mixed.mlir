// A module of an embedding compiler: a host function in func/arith beside two vyre
// kernels. vyre-opt reads and validates it; -t wgsl lowers each kernel to its own
// WGSL module (under a `// ===== vyre.kernel @name` line) and leaves the host code alone.
//   vyre-opt examples/mixed.mlir -t wgsl
func.func @groups(%n: index) -> index {
  %c63 = arith.constant 63 : index
  %c64 = arith.constant 64 : index
  %s = arith.addi %n, %c63 : index
  %g = arith.divui %s, %c64 : index
  func.return %g : index
}

vyre.kernel @square workgroup_size(64, 1, 1) buffers(@a : read_only u32 binding(0), @out : read_write u32 binding(1)) {
  %i = vyre.invocation_id x
  %x = vyre.load @a[%i] : u32
  %y = vyre.binop mul %x, %x
  vyre.store @out[%i] = %y
}

vyre.kernel @popcounts workgroup_size(64, 1, 1) buffers(@a : read_only u32 binding(0), @out : read_write u32 binding(1)) {
  %i = vyre.invocation_id x
  %x = vyre.load @a[%i] : u32
  %y = vyre.unop popcount %x
  vyre.store @out[%i] = %y
}
