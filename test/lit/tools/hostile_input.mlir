// RUN: not vyre-opt %s --split-input-file 2>&1 | filecheck %s

// Numbers the builder and the wire form refuse are parse errors too,
// located at the text that holds them; the generic form gets the same rule.

vyre.kernel @k workgroup_size(99999999999999999999, 1, 1) {
}

// CHECK-NOT: Traceback
// CHECK:     hostile_input.mlir:6:16: error: workgroup_size[0] is 99999999999999999999, more than a u32 holds (workgroup dimensions are in [1, 4294967295])

// -----

vyre.kernel @k workgroup_size(1, 1, 1) {
  %0 = vyre.lit_u32 4294967296
}

// CHECK: hostile_input.mlir:15:3: error: u32 literal 4294967296 is out of range

// -----

"builtin.module"() ({
  "vyre.kernel"() <{sym_name = "k", workgroup_size = [#builtin.int<1>, #builtin.int<4294967296>, #builtin.int<1>], buffers = []}> ({
  }) : () -> ()
}) : () -> ()

// CHECK: hostile_input.mlir:23:37: error: workgroup_size[1] is 4294967296, more than a u32 holds

// -----

vyre.kernel @k workgroup_size(1, 1, 1) buffers(@w : workgroup u32[4294967296]) {
}

// CHECK: hostile_input.mlir:31:1: error: buffer count must be a u32

// -----

vyre.kernel @k workgroup_size(1, 1, 1) {
  vyre.let "unterminated = %0
}

// CHECK: hostile_input.mlir:39:12: error: unterminated string literal: a string must end on the line it starts (write a newline as \n)
// CHECK-NOT: Traceback
