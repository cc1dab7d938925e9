// RUN: vyre-opt %s | filecheck %s
// RUN: vyre-opt %s -t wgsl | filecheck %s --check-prefix=WGSL
// RUN: vyre-opt %s --print-op-generic | vyre-opt | filecheck %s

// A module of an embedding compiler: a host function in func/arith/memref beside
// two vyre kernels. vyre-opt parses, validates (the kernels) and prints it; -t wgsl
// lowers each kernel to its own WGSL module, in order, and leaves the rest alone.

func.func @host(%n: index) -> index {
  %c64 = arith.constant 64 : index
  %c63 = arith.constant 63 : index
  %s = arith.addi %n, %c63 : index
  %groups = arith.divui %s, %c64 : index
  func.return %groups : index
}

vyre.kernel @square workgroup_size(64, 1, 1) buffers(@a : read_only u32 binding(0), @out : read_write u32 binding(1)) {
  %i = vyre.invocation_id x
  %x = vyre.load @a[%i] : u32
  %y = vyre.binop mul %x, %x
  vyre.store @out[%i] = %y
}

vyre.kernel @negate workgroup_size(32, 1, 1) buffers(@v : read_write i32 binding(0)) {
  %i = vyre.invocation_id x
  %x = vyre.load @v[%i] : i32
  %y = vyre.unop negate %x
  vyre.store @v[%i] = %y
}

// CHECK:      func.func @host(%n: index) -> index {
// CHECK:        %groups = arith.divui %s, %c64 : index
// CHECK:      vyre.kernel @square workgroup_size(64, 1, 1)
// CHECK:        %y = vyre.binop mul %x, %x
// CHECK:      vyre.kernel @negate workgroup_size(32, 1, 1)
// CHECK:        %y = vyre.unop negate %x

// WGSL:      // ===== vyre.kernel @square: WGSL module 1 of 2 =====
// WGSL:      // vyre kernel @square, lowered by vyre.lowering.wgsl.
// WGSL:      @compute @workgroup_size(64, 1, 1)
// WGSL-NOT:  func.func
// WGSL:      // ===== vyre.kernel @negate: WGSL module 2 of 2 =====
// WGSL:      // vyre kernel @negate, lowered by vyre.lowering.wgsl.
// WGSL:      @compute @workgroup_size(32, 1, 1)
