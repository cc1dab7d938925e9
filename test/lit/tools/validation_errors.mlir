// RUN: not vyre-opt %s --split-input-file 2>&1 | filecheck %s
// RUN: vyre-opt %s --split-input-file --verify-diagnostics | filecheck %s

// Independent findings are all reported, each at its op, one line each; in a
// split file, lines count from the top of the whole file.

vyre.kernel @k workgroup_size(1, 1, 1) buffers(@a : read_only u32 binding(0)) {
  %0 = vyre.lit_u32 0
  vyre.store @a[%0] = %0
  %1 = vyre.load @nope[%0] : u32
}

// CHECK-NOT: Traceback
// CHECK:     validation_errors.mlir:9:3: error: vyre IR validation: store to non-writable buffer `a`. Fix: declare it with BufferAccess::ReadWrite or BufferAccess::Workgroup.
// CHECK:     validation_errors.mlir:10:3: error: vyre IR validation: load from unknown buffer `nope`. Fix: declare it in Program::buffers.

// -----

vyre.kernel @k workgroup_size(0, 1, 1) {
}

// CHECK: validation_errors.mlir:19:1: error: vyre IR validation: workgroup_size[0] is 0. Fix: all workgroup dimensions must be >= 1.
// CHECK-NOT: Traceback
