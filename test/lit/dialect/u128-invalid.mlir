// RUN: vyre-opt %s --split-input-file --verify-diagnostics 2>&1 | filecheck %s
// RUN: not vyre-opt %s --split-input-file 2>&1 | filecheck %s --check-prefix=LITERAL

// The u128 rules, each with its exact message: V144 (a binary operation mixes
// u128 with another type, the shift amount included) and V145 (an operator u128
// does not have). The operators it has (every other test) give no finding.

// V144
vyre.kernel @main workgroup_size(64, 1, 1) buffers(@a : read_only u128 binding(0), @out : read_write u128 binding(1)) {
  %i = vyre.invocation_id x
  %a = vyre.load @a[%i] : u128
  %one = vyre.lit_u32 1
  %sum = vyre.binop add %a, %one
  %shifted = vyre.binop shl %a, %one
  %less = vyre.binop lt %one, %a
}

// CHECK: vyre IR validation: binary operation `add` mixes `u128` and `u32` operands. Fix: cast the `u32` operand to u128 (both operands of a u128 operation are `u128`, the shift amount too).
// CHECK-NEXT: vyre IR validation: binary operation `shl` mixes `u128` and `u32` operands. Fix: cast the `u32` operand to u128 (both operands of a u128 operation are `u128`, the shift amount too).
// CHECK-NEXT: vyre IR validation: binary operation `lt` mixes `u128` and `u32` operands. Fix: cast the `u32` operand to u128 (both operands of a u128 operation are `u128`, the shift amount too).
// CHECK-NEXT: {{//}} -----

// -----

// V145
vyre.kernel @main workgroup_size(64, 1, 1) buffers(@a : read_only u128 binding(0)) {
  %i = vyre.invocation_id x
  %a = vyre.load @a[%i] : u128
  %and = vyre.binop and %a, %a
  %or = vyre.binop or %a, %a
  %neg = vyre.unop negate %a
  %not = vyre.unop logical_not %a
  %rev = vyre.unop reverse_bits %a
}

// CHECK: vyre IR validation: operation `and` is not defined on `u128`. Fix: use the arithmetic, bitwise, shift and comparison operators or bit_not, popcount, clz and ctz (a negation is a sub from 0, a truth value a ne with 0).
// CHECK-NEXT: vyre IR validation: operation `or` is not defined on `u128`. Fix: use the arithmetic, bitwise, shift and comparison operators or bit_not, popcount, clz and ctz (a negation is a sub from 0, a truth value a ne with 0).
// CHECK-NEXT: vyre IR validation: operation `negate` is not defined on `u128`. Fix: use the arithmetic, bitwise, shift and comparison operators or bit_not, popcount, clz and ctz (a negation is a sub from 0, a truth value a ne with 0).
// CHECK-NEXT: vyre IR validation: operation `logical_not` is not defined on `u128`. Fix: use the arithmetic, bitwise, shift and comparison operators or bit_not, popcount, clz and ctz (a negation is a sub from 0, a truth value a ne with 0).
// CHECK-NEXT: vyre IR validation: operation `reverse_bits` is not defined on `u128`. Fix: use the arithmetic, bitwise, shift and comparison operators or bit_not, popcount, clz and ctz (a negation is a sub from 0, a truth value a ne with 0).
// CHECK-NEXT: {{//}} -----

// -----

// A u128 value is no index, condition or float: the rules of those uses name it.
vyre.kernel @main workgroup_size(64, 1, 1) buffers(@a : read_only u128 binding(0), @out : read_write u32 binding(1)) {
  %zero = vyre.lit_u128 0
  %x = vyre.load @a[%zero] : u128
  vyre.if %x {
  }
  %f = vyre.cast %x to f32
}

// CHECK: vyre IR validation: load index must be `u32`, got `u128`. Fix: cast the index to U32.
// CHECK-NEXT: vyre IR validation: if condition must be `u32` or `bool`, got `u128`. Fix: cast or rewrite the condition to produce U32 or Bool.
// CHECK-NEXT: vyre IR validation: unsupported cast from `u128` to `f32`. Fix: use a conversion of the cast table (docs/semantics.md, "Casts").
// CHECK-NEXT: {{//}} -----

// -----

// A literal past 2**128 - 1 is a parse error, located at the literal.
vyre.kernel @main workgroup_size(1, 1, 1) {
  %0 = vyre.lit_u128 340282366920938463463374607431768211456
}

// LITERAL: u128-invalid.mlir:63:3: error: u128 literal 340282366920938463463374607431768211456 is out of range
