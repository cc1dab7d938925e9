// RUN: vyre-opt < %s | filecheck %s
// RUN: vyre-opt - < %s | filecheck %s

vyre.kernel @k workgroup_size(1, 1, 1) {
  vyre.return
}

// CHECK:      builtin.module {
// CHECK-NEXT:   vyre.kernel @k workgroup_size(1, 1, 1) {
// CHECK-NEXT:     vyre.return
// CHECK-NEXT:   }
// CHECK-NEXT: }
