// RUN: vyre-opt %s -p cse | filecheck %s --check-prefix=CSE
// RUN: vyre-opt %s -p dce | filecheck %s --check-prefix=DCE
// RUN: vyre-opt %s -p canonicalize,cse,dce | filecheck %s

vyre.kernel @k workgroup_size(64, 1, 1) buffers(@a : read_only u32 binding(0), @out : read_write u32 binding(1)) {
  %i = vyre.invocation_id x
  %x = vyre.load @a[%i] : u32
  %y = vyre.load @a[%i] : u32
  %s = vyre.binop add %x, %y
  %unused = vyre.binop mul %x, %x
  vyre.store @out[%i] = %s
  %z = vyre.load @a[%i] : u32
  vyre.store @out[%i] = %z
}

// cse merges the second load with the first (no write in between), but not the
// load after the store (xDSL's cse also erases the unused pure multiply).
// CSE:      %x = vyre.load @a[%i] : u32
// CSE-NEXT: %s = vyre.binop add %x, %x
// CSE-NEXT: vyre.store @out[%i] = %s
// CSE-NEXT: %z = vyre.load @a[%i] : u32
// CSE-NEXT: vyre.store @out[%i] = %z

// dce removes the pure, unused multiply and nothing else.
// DCE:      %y = vyre.load @a[%i] : u32
// DCE-NEXT: %s = vyre.binop add %x, %y
// DCE-NEXT: vyre.store @out[%i] = %s
// DCE-NOT:  vyre.binop mul

// CHECK:      vyre.kernel @k workgroup_size(64, 1, 1) buffers(@a : read_only u32 binding(0), @out : read_write u32 binding(1)) {
// CHECK-NEXT:   %i = vyre.invocation_id x
// CHECK-NEXT:   %x = vyre.load @a[%i] : u32
// CHECK-NEXT:   %s = vyre.binop add %x, %x
// CHECK-NEXT:   vyre.store @out[%i] = %s
// CHECK-NEXT:   %z = vyre.load @a[%i] : u32
// CHECK-NEXT:   vyre.store @out[%i] = %z
// CHECK-NEXT: }
