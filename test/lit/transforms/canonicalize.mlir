// RUN: vyre-opt %s -p canonicalize --split-input-file | filecheck %s

// Folding lives on the ops: every operation whose operands are literals becomes a
// literal with vyre's semantics (x / 0 = 0, shift amounts masked, i32 wraps, casts
// per the cast table), a select with a literal condition becomes the arm it picks, a
// cast to the value's own type disappears, and dead pure ops are removed.
vyre.kernel @fold workgroup_size(64, 1, 1) buffers(@a : read_only u32 binding(0), @out : read_write u32 binding(1)) {
  %i = vyre.invocation_id x
  %two = vyre.lit_u32 2
  %three = vyre.lit_u32 3
  %five = vyre.binop add %two, %three
  %zero = vyre.lit_u32 0
  %q = vyre.binop div %five, %zero
  %thirty_five = vyre.lit_u32 35
  %s = vyre.binop shl %three, %thirty_five
  %m = vyre.lit_i32 -2147483648
  %n = vyre.unop negate %m
  %c = vyre.cast %n to u32
  %t = vyre.lit_bool true
  %x = vyre.load @a[%i] : u32
  %pick = vyre.select %t, %x, %five
  %same = vyre.cast %pick to u32
  %dead = vyre.binop mul %x, %x
  %r = vyre.binop sub %same, %q
  vyre.store @out[%i] = %r
  vyre.store @out[%five] = %s
  vyre.store @out[%c] = %x
}

// CHECK-LABEL: vyre.kernel @fold
// CHECK-NEXT:    %i = vyre.invocation_id x
// CHECK-NEXT:    %five = vyre.lit_u32 5
// CHECK-NEXT:    %q = vyre.lit_u32 0
// CHECK-NEXT:    %s = vyre.lit_u32 24
// CHECK-NEXT:    %c = vyre.lit_u32 2147483648
// CHECK-NEXT:    %x = vyre.load @a[%i] : u32
// CHECK-NEXT:    %r = vyre.binop sub %x, %q
// CHECK-NEXT:    vyre.store @out[%i] = %r
// CHECK-NEXT:    vyre.store @out[%five] = %s
// CHECK-NEXT:    vyre.store @out[%c] = %x
// CHECK-NEXT:  }

// -----

// Comparisons and logical ops fold to 0/1; unary ops on literals fold; a signed
// result stays an i32 literal; an i32 literal cast to bool is its truth.
vyre.kernel @compare workgroup_size(1, 1, 1) buffers(@out : read_write u32 binding(0)) {
  %a = vyre.lit_u32 4294967295
  %b = vyre.lit_u32 1
  %lt = vyre.binop lt %a, %b
  %ge = vyre.binop ge %a, %b
  %and = vyre.binop and %lt, %ge
  %or = vyre.binop or %lt, %ge
  %clz = vyre.unop clz %b
  %pop = vyre.unop popcount %a
  %neg = vyre.lit_i32 5
  %nn = vyre.unop bit_not %neg
  %truth = vyre.cast %neg to bool
  %u = vyre.cast %truth to u32
  %w = vyre.cast %nn to u32
  vyre.store @out[%lt] = %ge
  vyre.store @out[%and] = %or
  vyre.store @out[%clz] = %pop
  vyre.store @out[%u] = %w
}

// CHECK-LABEL: vyre.kernel @compare
// CHECK-NEXT:    %lt = vyre.lit_u32 0
// CHECK-NEXT:    %ge = vyre.lit_u32 1
// CHECK-NEXT:    %and = vyre.lit_u32 0
// CHECK-NEXT:    %or = vyre.lit_u32 1
// CHECK-NEXT:    %clz = vyre.lit_u32 31
// CHECK-NEXT:    %pop = vyre.lit_u32 32
// CHECK-NEXT:    %u = vyre.lit_u32 1
// CHECK-NEXT:    %w = vyre.lit_u32 4294967290
// CHECK-NEXT:    vyre.store @out[%lt] = %ge
