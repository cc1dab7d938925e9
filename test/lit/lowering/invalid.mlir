// RUN: not vyre-opt %s -t wgsl 2>&1 | filecheck %s

// An invalid program is reported, not lowered.
vyre.kernel @bad workgroup_size(1, 1, 1) buffers(@a : read_only u32 binding(0)) {
  %i = vyre.lit_u32 0
  vyre.store @a[%i] = %i
}

// CHECK: error: vyre IR validation: store to non-writable buffer `a`. Fix: declare it with BufferAccess::ReadWrite or BufferAccess::Workgroup.
// CHECK-NOT: fn main
