// RUN: not vyre-opt %s -p inline-calls 2>&1 | filecheck %s

// A call whose arguments do not fit the op's signature cannot be inlined; the
// pass reports it as a clean diagnostic, not a Python traceback.
vyre.kernel @arity workgroup_size(64, 1, 1) buffers(@a : read_only u32 binding(0), @out : read_write u32 binding(1)) {
  %i = vyre.invocation_id x
  %x = vyre.load @a[%i] : u32
  %r = vyre.call "primitive.math.clamp"(%x, %x) : u32
  vyre.store @out[%i] = %r
}

// CHECK-NOT: Traceback
// CHECK:     error: vyre IR validation: call to `primitive.math.clamp` passes 2 argument(s) but the op takes 3. Fix: call it as primitive.math.clamp(u32, u32, u32) -> u32.
// CHECK-NOT: Traceback
