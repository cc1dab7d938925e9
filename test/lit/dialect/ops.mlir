// RUN: VYRE_ROUNDTRIP
// RUN: VYRE_GENERIC_ROUNDTRIP

// Every type, every buffer access, bindings and workgroup counts.
vyre.kernel @buffers workgroup_size(64, 2, 1) buffers(@a : read_only u32 binding(0), @b : read_write i32 binding(1), @c : uniform u64 binding(2), @d : read_only vec2u32 binding(3), @e : read_only vec4u32 binding(4), @f : read_only bool binding(5), @g : read_only bytes binding(6), @tile : workgroup u32[256], @h : read_write !vyre.type<u32> binding(7)) {
  %i = vyre.invocation_id x
  %a = vyre.load @a[%i] : u32
  %b = vyre.load @b[%i] : i32
  %c = vyre.load @c[%i] : u64
  %d = vyre.load @d[%i] : vec2u32
  %e = vyre.load @e[%i] : vec4u32
  %f = vyre.load @f[%i] : bool
  %g = vyre.buf_len @g
  %t = vyre.load @tile[%i] : !vyre.type<u32>
  vyre.store @tile[%i] = %a
  vyre.store @b[%i] = %b
}

// CHECK:      builtin.module {
// CHECK-NEXT:   vyre.kernel @buffers workgroup_size(64, 2, 1) buffers(@a : read_only u32 binding(0), @b : read_write i32 binding(1), @c : uniform u64 binding(2), @d : read_only vec2u32 binding(3), @e : read_only vec4u32 binding(4), @f : read_only bool binding(5), @g : read_only bytes binding(6), @tile : workgroup u32[256], @h : read_write u32 binding(7)) {
// CHECK-NEXT:     %i = vyre.invocation_id x
// CHECK-NEXT:     %a = vyre.load @a[%i] : u32
// CHECK-NEXT:     %b = vyre.load @b[%i] : i32
// CHECK-NEXT:     %c = vyre.load @c[%i] : u64
// CHECK-NEXT:     %d = vyre.load @d[%i] : vec2u32
// CHECK-NEXT:     %e = vyre.load @e[%i] : vec4u32
// CHECK-NEXT:     %f = vyre.load @f[%i] : bool
// CHECK-NEXT:     %g = vyre.buf_len @g
// CHECK-NEXT:     %t = vyre.load @tile[%i] : u32
// CHECK-NEXT:     vyre.store @tile[%i] = %a
// CHECK-NEXT:     vyre.store @b[%i] = %b
// CHECK-NEXT:   }
// CHECK-NEXT: }

// CHECK-GENERIC:      "builtin.module"() ({
// CHECK-GENERIC-NEXT:   "vyre.kernel"() ({
// CHECK-GENERIC-NEXT:     %i = "vyre.invocation_id"() {axis = 0 : i64} : () -> !vyre.type<u32>
// CHECK-GENERIC-NEXT:     %a = "vyre.load"(%i) {buffer = "a"} : (!vyre.type<u32>) -> !vyre.type<u32>
// CHECK-GENERIC-NEXT:     %b = "vyre.load"(%i) {buffer = "b"} : (!vyre.type<u32>) -> !vyre.type<i32>
// CHECK-GENERIC-NEXT:     %c = "vyre.load"(%i) {buffer = "c"} : (!vyre.type<u32>) -> !vyre.type<u64>
// CHECK-GENERIC-NEXT:     %d = "vyre.load"(%i) {buffer = "d"} : (!vyre.type<u32>) -> !vyre.type<vec2u32>
// CHECK-GENERIC-NEXT:     %e = "vyre.load"(%i) {buffer = "e"} : (!vyre.type<u32>) -> !vyre.type<vec4u32>
// CHECK-GENERIC-NEXT:     %f = "vyre.load"(%i) {buffer = "f"} : (!vyre.type<u32>) -> !vyre.type<bool>
// CHECK-GENERIC-NEXT:     %g = "vyre.buf_len"() {buffer = "g"} : () -> !vyre.type<u32>
// CHECK-GENERIC-NEXT:     %t = "vyre.load"(%i) {buffer = "tile"} : (!vyre.type<u32>) -> !vyre.type<u32>
// CHECK-GENERIC-NEXT:     "vyre.store"(%i, %a) {buffer = "tile"} : (!vyre.type<u32>, !vyre.type<u32>) -> ()
// CHECK-GENERIC-NEXT:     "vyre.store"(%i, %b) {buffer = "b"} : (!vyre.type<u32>, !vyre.type<i32>) -> ()
// CHECK-GENERIC-NEXT:   }) {buffers = [#vyre.buffer<@a : read_only u32 binding(0)>, #vyre.buffer<@b : read_write i32 binding(1)>, #vyre.buffer<@c : uniform u64 binding(2)>, #vyre.buffer<@d : read_only vec2u32 binding(3)>, #vyre.buffer<@e : read_only vec4u32 binding(4)>, #vyre.buffer<@f : read_only bool binding(5)>, #vyre.buffer<@g : read_only bytes binding(6)>, #vyre.buffer<@tile : workgroup u32[256]>, #vyre.buffer<@h : read_write u32 binding(7)>], sym_name = "buffers", workgroup_size = [64, 2, 1]} : () -> ()
// CHECK-GENERIC-NEXT: }) : () -> ()

// -----

// The fifteen expressions.
vyre.kernel @expressions workgroup_size(8, 4, 2) buffers(@out : read_write u32 binding(0)) {
  %lit = vyre.lit_u32 4294967295
  %neg = vyre.lit_i32 -2147483648
  %yes = vyre.lit_bool true
  %no = vyre.lit_bool false
  vyre.let "x" = %lit
  %x = vyre.var "x" : u32
  %ld = vyre.load @out[%x] : u32
  %len = vyre.buf_len @out
  %gy = vyre.invocation_id y
  %wz = vyre.workgroup_id z
  %lx = vyre.local_id x
  %sum = vyre.binop add %ld, %len
  %inv = vyre.unop bit_not %sum
  %call = vyre.call "primitive.math.add"(%gy, %wz) : u32
  %sel = vyre.select %yes, %call, %lx
  %cast = vyre.cast %neg to u32
  %old = vyre.atomic add @out[%lx], %cast
  %cas = vyre.atomic compare_exchange @out[%lx], %sel expected %old
  vyre.store @out[%inv] = %cas
}

// CHECK:      vyre.kernel @expressions workgroup_size(8, 4, 2) buffers(@out : read_write u32 binding(0)) {
// CHECK-NEXT:   %lit = vyre.lit_u32 4294967295
// CHECK-NEXT:   %neg = vyre.lit_i32 -2147483648
// CHECK-NEXT:   %yes = vyre.lit_bool true
// CHECK-NEXT:   %no = vyre.lit_bool false
// CHECK-NEXT:   vyre.let "x" = %lit
// CHECK-NEXT:   %x = vyre.var "x" : u32
// CHECK-NEXT:   %ld = vyre.load @out[%x] : u32
// CHECK-NEXT:   %len = vyre.buf_len @out
// CHECK-NEXT:   %gy = vyre.invocation_id y
// CHECK-NEXT:   %wz = vyre.workgroup_id z
// CHECK-NEXT:   %lx = vyre.local_id x
// CHECK-NEXT:   %sum = vyre.binop add %ld, %len
// CHECK-NEXT:   %inv = vyre.unop bit_not %sum
// CHECK-NEXT:   %call = vyre.call "primitive.math.add"(%gy, %wz) : u32
// CHECK-NEXT:   %sel = vyre.select %yes, %call, %lx
// CHECK-NEXT:   %cast = vyre.cast %neg to u32
// CHECK-NEXT:   %old = vyre.atomic add @out[%lx], %cast
// CHECK-NEXT:   %cas = vyre.atomic compare_exchange @out[%lx], %sel expected %old
// CHECK-NEXT:   vyre.store @out[%inv] = %cas
// CHECK-NEXT: }

// CHECK-GENERIC:        "vyre.kernel"() ({
// CHECK-GENERIC-NEXT:     %lit = "vyre.lit_u32"() {value = 4294967295 : i64} : () -> !vyre.type<u32>
// CHECK-GENERIC-NEXT:     %neg = "vyre.lit_i32"() {value = -2147483648 : i64} : () -> !vyre.type<i32>
// CHECK-GENERIC-NEXT:     %yes = "vyre.lit_bool"() {value = 1 : i64} : () -> !vyre.type<bool>
// CHECK-GENERIC-NEXT:     %no = "vyre.lit_bool"() {value = 0 : i64} : () -> !vyre.type<bool>
// CHECK-GENERIC-NEXT:     "vyre.let"(%lit) {name = "x"} : (!vyre.type<u32>) -> ()
// CHECK-GENERIC-NEXT:     %x = "vyre.var"() {name = "x"} : () -> !vyre.type<u32>
// CHECK-GENERIC-NEXT:     %ld = "vyre.load"(%x) {buffer = "out"} : (!vyre.type<u32>) -> !vyre.type<u32>
// CHECK-GENERIC-NEXT:     %len = "vyre.buf_len"() {buffer = "out"} : () -> !vyre.type<u32>
// CHECK-GENERIC-NEXT:     %gy = "vyre.invocation_id"() {axis = 1 : i64} : () -> !vyre.type<u32>
// CHECK-GENERIC-NEXT:     %wz = "vyre.workgroup_id"() {axis = 2 : i64} : () -> !vyre.type<u32>
// CHECK-GENERIC-NEXT:     %lx = "vyre.local_id"() {axis = 0 : i64} : () -> !vyre.type<u32>
// CHECK-GENERIC-NEXT:     %sum = "vyre.binop"(%ld, %len) {kind = "add"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
// CHECK-GENERIC-NEXT:     %inv = "vyre.unop"(%sum) {kind = "bit_not"} : (!vyre.type<u32>) -> !vyre.type<u32>
// CHECK-GENERIC-NEXT:     %call = "vyre.call"(%gy, %wz) {op_id = "primitive.math.add"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
// CHECK-GENERIC-NEXT:     %sel = "vyre.select"(%yes, %call, %lx) : (!vyre.type<bool>, !vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
// CHECK-GENERIC-NEXT:     %cast = "vyre.cast"(%neg) : (!vyre.type<i32>) -> !vyre.type<u32>
// CHECK-GENERIC-NEXT:     %old = "vyre.atomic"(%lx, %cast) {buffer = "out", kind = "add"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
// CHECK-GENERIC-NEXT:     %cas = "vyre.atomic"(%lx, %sel, %old) {buffer = "out", kind = "compare_exchange"} : (!vyre.type<u32>, !vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
// CHECK-GENERIC-NEXT:     "vyre.store"(%inv, %cas) {buffer = "out"} : (!vyre.type<u32>, !vyre.type<u32>) -> ()
// CHECK-GENERIC-NEXT:   }) {buffers = [#vyre.buffer<@out : read_write u32 binding(0)>], sym_name = "expressions", workgroup_size = [8, 4, 2]} : () -> ()

// -----

// Every binary operator.
vyre.kernel @binops workgroup_size(1, 1, 1) buffers(@out : read_write u32 binding(0)) {
  %p = vyre.lit_u32 6
  %q = vyre.lit_u32 3
  %0 = vyre.binop add %p, %q
  %1 = vyre.binop sub %p, %q
  %2 = vyre.binop mul %p, %q
  %3 = vyre.binop div %p, %q
  %4 = vyre.binop mod %p, %q
  %5 = vyre.binop bit_and %p, %q
  %6 = vyre.binop bit_or %p, %q
  %7 = vyre.binop bit_xor %p, %q
  %8 = vyre.binop shl %p, %q
  %9 = vyre.binop shr %p, %q
  %10 = vyre.binop eq %p, %q
  %11 = vyre.binop ne %p, %q
  %12 = vyre.binop lt %p, %q
  %13 = vyre.binop gt %p, %q
  %14 = vyre.binop le %p, %q
  %15 = vyre.binop ge %p, %q
  %16 = vyre.binop and %p, %q
  %17 = vyre.binop or %p, %q
  %18 = vyre.binop dot4_i8 %p, %q
  %19 = vyre.binop mul_high %p, %q
  vyre.store @out[%16] = %18
  vyre.store @out[%17] = %19
}

// CHECK:      vyre.kernel @binops workgroup_size(1, 1, 1) buffers(@out : read_write u32 binding(0)) {
// CHECK-NEXT:   %p = vyre.lit_u32 6
// CHECK-NEXT:   %q = vyre.lit_u32 3
// CHECK-NEXT:   %0 = vyre.binop add %p, %q
// CHECK-NEXT:   %1 = vyre.binop sub %p, %q
// CHECK-NEXT:   %2 = vyre.binop mul %p, %q
// CHECK-NEXT:   %3 = vyre.binop div %p, %q
// CHECK-NEXT:   %4 = vyre.binop mod %p, %q
// CHECK-NEXT:   %5 = vyre.binop bit_and %p, %q
// CHECK-NEXT:   %6 = vyre.binop bit_or %p, %q
// CHECK-NEXT:   %7 = vyre.binop bit_xor %p, %q
// CHECK-NEXT:   %8 = vyre.binop shl %p, %q
// CHECK-NEXT:   %9 = vyre.binop shr %p, %q
// CHECK-NEXT:   %10 = vyre.binop eq %p, %q
// CHECK-NEXT:   %11 = vyre.binop ne %p, %q
// CHECK-NEXT:   %12 = vyre.binop lt %p, %q
// CHECK-NEXT:   %13 = vyre.binop gt %p, %q
// CHECK-NEXT:   %14 = vyre.binop le %p, %q
// CHECK-NEXT:   %15 = vyre.binop ge %p, %q
// CHECK-NEXT:   %16 = vyre.binop and %p, %q
// CHECK-NEXT:   %17 = vyre.binop or %p, %q
// CHECK-NEXT:   %18 = vyre.binop dot4_i8 %p, %q
// CHECK-NEXT:   %19 = vyre.binop mul_high %p, %q
// CHECK-NEXT:   vyre.store @out[%16] = %18
// CHECK-NEXT:   vyre.store @out[%17] = %19
// CHECK-NEXT: }

// CHECK-GENERIC:          %0 = "vyre.binop"(%p, %q) {kind = "add"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
// CHECK-GENERIC-NEXT:     %1 = "vyre.binop"(%p, %q) {kind = "sub"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
// CHECK-GENERIC-NEXT:     %2 = "vyre.binop"(%p, %q) {kind = "mul"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
// CHECK-GENERIC-NEXT:     %3 = "vyre.binop"(%p, %q) {kind = "div"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
// CHECK-GENERIC-NEXT:     %4 = "vyre.binop"(%p, %q) {kind = "mod"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
// CHECK-GENERIC-NEXT:     %5 = "vyre.binop"(%p, %q) {kind = "bit_and"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
// CHECK-GENERIC-NEXT:     %6 = "vyre.binop"(%p, %q) {kind = "bit_or"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
// CHECK-GENERIC-NEXT:     %7 = "vyre.binop"(%p, %q) {kind = "bit_xor"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
// CHECK-GENERIC-NEXT:     %8 = "vyre.binop"(%p, %q) {kind = "shl"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
// CHECK-GENERIC-NEXT:     %9 = "vyre.binop"(%p, %q) {kind = "shr"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
// CHECK-GENERIC-NEXT:     %10 = "vyre.binop"(%p, %q) {kind = "eq"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
// CHECK-GENERIC-NEXT:     %11 = "vyre.binop"(%p, %q) {kind = "ne"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
// CHECK-GENERIC-NEXT:     %12 = "vyre.binop"(%p, %q) {kind = "lt"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
// CHECK-GENERIC-NEXT:     %13 = "vyre.binop"(%p, %q) {kind = "gt"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
// CHECK-GENERIC-NEXT:     %14 = "vyre.binop"(%p, %q) {kind = "le"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
// CHECK-GENERIC-NEXT:     %15 = "vyre.binop"(%p, %q) {kind = "ge"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
// CHECK-GENERIC-NEXT:     %16 = "vyre.binop"(%p, %q) {kind = "and"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
// CHECK-GENERIC-NEXT:     %17 = "vyre.binop"(%p, %q) {kind = "or"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
// CHECK-GENERIC-NEXT:     %18 = "vyre.binop"(%p, %q) {kind = "dot4_i8"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
// CHECK-GENERIC-NEXT:     %19 = "vyre.binop"(%p, %q) {kind = "mul_high"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>

// -----

// Every unary operator, on u32 and i32 operands (negate, bit_not and
// reverse_bits keep an i32 operand's type; the others yield u32).
vyre.kernel @unops workgroup_size(1, 1, 1) buffers(@out : read_write u32 binding(0), @signed : read_write i32 binding(1)) {
  %u = vyre.lit_u32 12
  %s = vyre.lit_i32 -12
  %0 = vyre.unop negate %u
  %1 = vyre.unop bit_not %u
  %2 = vyre.unop logical_not %u
  %3 = vyre.unop popcount %u
  %4 = vyre.unop clz %u
  %5 = vyre.unop ctz %u
  %6 = vyre.unop reverse_bits %u
  %7 = vyre.unop negate %s
  %8 = vyre.unop bit_not %s
  %9 = vyre.unop reverse_bits %s
  %10 = vyre.unop popcount %s
  vyre.store @out[%0] = %6
  vyre.store @signed[%10] = %9
}

// CHECK:      vyre.kernel @unops workgroup_size(1, 1, 1) buffers(@out : read_write u32 binding(0), @signed : read_write i32 binding(1)) {
// CHECK-NEXT:   %u = vyre.lit_u32 12
// CHECK-NEXT:   %s = vyre.lit_i32 -12
// CHECK-NEXT:   %0 = vyre.unop negate %u
// CHECK-NEXT:   %1 = vyre.unop bit_not %u
// CHECK-NEXT:   %2 = vyre.unop logical_not %u
// CHECK-NEXT:   %3 = vyre.unop popcount %u
// CHECK-NEXT:   %4 = vyre.unop clz %u
// CHECK-NEXT:   %5 = vyre.unop ctz %u
// CHECK-NEXT:   %6 = vyre.unop reverse_bits %u
// CHECK-NEXT:   %7 = vyre.unop negate %s
// CHECK-NEXT:   %8 = vyre.unop bit_not %s
// CHECK-NEXT:   %9 = vyre.unop reverse_bits %s
// CHECK-NEXT:   %10 = vyre.unop popcount %s
// CHECK-NEXT:   vyre.store @out[%0] = %6
// CHECK-NEXT:   vyre.store @signed[%10] = %9
// CHECK-NEXT: }

// CHECK-GENERIC:          %0 = "vyre.unop"(%u) {kind = "negate"} : (!vyre.type<u32>) -> !vyre.type<u32>
// CHECK-GENERIC-NEXT:     %1 = "vyre.unop"(%u) {kind = "bit_not"} : (!vyre.type<u32>) -> !vyre.type<u32>
// CHECK-GENERIC-NEXT:     %2 = "vyre.unop"(%u) {kind = "logical_not"} : (!vyre.type<u32>) -> !vyre.type<u32>
// CHECK-GENERIC-NEXT:     %3 = "vyre.unop"(%u) {kind = "popcount"} : (!vyre.type<u32>) -> !vyre.type<u32>
// CHECK-GENERIC-NEXT:     %4 = "vyre.unop"(%u) {kind = "clz"} : (!vyre.type<u32>) -> !vyre.type<u32>
// CHECK-GENERIC-NEXT:     %5 = "vyre.unop"(%u) {kind = "ctz"} : (!vyre.type<u32>) -> !vyre.type<u32>
// CHECK-GENERIC-NEXT:     %6 = "vyre.unop"(%u) {kind = "reverse_bits"} : (!vyre.type<u32>) -> !vyre.type<u32>
// CHECK-GENERIC-NEXT:     %7 = "vyre.unop"(%s) {kind = "negate"} : (!vyre.type<i32>) -> !vyre.type<i32>
// CHECK-GENERIC-NEXT:     %8 = "vyre.unop"(%s) {kind = "bit_not"} : (!vyre.type<i32>) -> !vyre.type<i32>
// CHECK-GENERIC-NEXT:     %9 = "vyre.unop"(%s) {kind = "reverse_bits"} : (!vyre.type<i32>) -> !vyre.type<i32>
// CHECK-GENERIC-NEXT:     %10 = "vyre.unop"(%s) {kind = "popcount"} : (!vyre.type<i32>) -> !vyre.type<u32>

// -----

// Every atomic operator (u32 read_write buffers only).
vyre.kernel @atomics workgroup_size(1, 1, 1) buffers(@acc : read_write u32 binding(0)) {
  %i = vyre.lit_u32 0
  %v = vyre.lit_u32 1
  %0 = vyre.atomic add @acc[%i], %v
  %1 = vyre.atomic or @acc[%i], %v
  %2 = vyre.atomic and @acc[%i], %v
  %3 = vyre.atomic xor @acc[%i], %v
  %4 = vyre.atomic min @acc[%i], %v
  %5 = vyre.atomic max @acc[%i], %v
  %6 = vyre.atomic exchange @acc[%i], %v
  %7 = vyre.atomic compare_exchange @acc[%i], %v expected %6
}

// CHECK:      vyre.kernel @atomics workgroup_size(1, 1, 1) buffers(@acc : read_write u32 binding(0)) {
// CHECK-NEXT:   %i = vyre.lit_u32 0
// CHECK-NEXT:   %v = vyre.lit_u32 1
// CHECK-NEXT:   %0 = vyre.atomic add @acc[%i], %v
// CHECK-NEXT:   %1 = vyre.atomic or @acc[%i], %v
// CHECK-NEXT:   %2 = vyre.atomic and @acc[%i], %v
// CHECK-NEXT:   %3 = vyre.atomic xor @acc[%i], %v
// CHECK-NEXT:   %4 = vyre.atomic min @acc[%i], %v
// CHECK-NEXT:   %5 = vyre.atomic max @acc[%i], %v
// CHECK-NEXT:   %6 = vyre.atomic exchange @acc[%i], %v
// CHECK-NEXT:   %7 = vyre.atomic compare_exchange @acc[%i], %v expected %6
// CHECK-NEXT: }

// CHECK-GENERIC:          %0 = "vyre.atomic"(%i, %v) {buffer = "acc", kind = "add"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
// CHECK-GENERIC-NEXT:     %1 = "vyre.atomic"(%i, %v) {buffer = "acc", kind = "or"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
// CHECK-GENERIC-NEXT:     %2 = "vyre.atomic"(%i, %v) {buffer = "acc", kind = "and"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
// CHECK-GENERIC-NEXT:     %3 = "vyre.atomic"(%i, %v) {buffer = "acc", kind = "xor"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
// CHECK-GENERIC-NEXT:     %4 = "vyre.atomic"(%i, %v) {buffer = "acc", kind = "min"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
// CHECK-GENERIC-NEXT:     %5 = "vyre.atomic"(%i, %v) {buffer = "acc", kind = "max"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
// CHECK-GENERIC-NEXT:     %6 = "vyre.atomic"(%i, %v) {buffer = "acc", kind = "exchange"} : (!vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>
// CHECK-GENERIC-NEXT:     %7 = "vyre.atomic"(%i, %v, %6) {buffer = "acc", kind = "compare_exchange"} : (!vyre.type<u32>, !vyre.type<u32>, !vyre.type<u32>) -> !vyre.type<u32>

// -----

// Casts between the scalar and vector types of docs/semantics.md ("Casts").
vyre.kernel @casts workgroup_size(1, 1, 1) buffers(@out : read_write u32 binding(0)) {
  %u = vyre.lit_u32 7
  %0 = vyre.cast %u to i32
  %1 = vyre.cast %0 to bool
  %2 = vyre.cast %1 to u64
  %3 = vyre.cast %2 to vec2u32
  %4 = vyre.cast %u to vec4u32
  %5 = vyre.cast %4 to u32
  vyre.store @out[%u] = %5
}

// CHECK:      %0 = vyre.cast %u to i32
// CHECK-NEXT: %1 = vyre.cast %0 to bool
// CHECK-NEXT: %2 = vyre.cast %1 to u64
// CHECK-NEXT: %3 = vyre.cast %2 to vec2u32
// CHECK-NEXT: %4 = vyre.cast %u to vec4u32
// CHECK-NEXT: %5 = vyre.cast %4 to u32

// CHECK-GENERIC:          %0 = "vyre.cast"(%u) : (!vyre.type<u32>) -> !vyre.type<i32>
// CHECK-GENERIC-NEXT:     %1 = "vyre.cast"(%0) : (!vyre.type<i32>) -> !vyre.type<bool>
// CHECK-GENERIC-NEXT:     %2 = "vyre.cast"(%1) : (!vyre.type<bool>) -> !vyre.type<u64>
// CHECK-GENERIC-NEXT:     %3 = "vyre.cast"(%2) : (!vyre.type<u64>) -> !vyre.type<vec2u32>
// CHECK-GENERIC-NEXT:     %4 = "vyre.cast"(%u) : (!vyre.type<u32>) -> !vyre.type<vec4u32>
// CHECK-GENERIC-NEXT:     %5 = "vyre.cast"(%4) : (!vyre.type<vec4u32>) -> !vyre.type<u32>

// -----

// The eight statements, with nested and empty bodies.
vyre.kernel @statements workgroup_size(16, 1, 1) buffers(@out : read_write u32 binding(0), @tile : workgroup u32[16]) {
  %gid = vyre.invocation_id x
  vyre.let "n" = %gid
  %lo = vyre.lit_u32 0
  %hi = vyre.lit_u32 4
  vyre.loop "i" = %lo to %hi {
    %iv = vyre.var "i" : u32
    %n = vyre.var "n" : u32
    %next = vyre.binop add %n, %iv
    vyre.assign "n" = %next
    vyre.barrier
  }
  %n2 = vyre.var "n" : u32
  %len = vyre.buf_len @out
  %inside = vyre.binop lt %n2, %len
  vyre.if %inside {
    vyre.store @out[%n2] = %n2
  } else {
    vyre.return
  }
  vyre.if %inside {
  }
  vyre.block {
    vyre.let "local" = %lo
    vyre.block {
      vyre.return
    }
  }
  vyre.loop "j" = %lo to %lo {
  }
  vyre.block {
  }
  vyre.return
}

// CHECK:      vyre.kernel @statements workgroup_size(16, 1, 1) buffers(@out : read_write u32 binding(0), @tile : workgroup u32[16]) {
// CHECK-NEXT:   %gid = vyre.invocation_id x
// CHECK-NEXT:   vyre.let "n" = %gid
// CHECK-NEXT:   %lo = vyre.lit_u32 0
// CHECK-NEXT:   %hi = vyre.lit_u32 4
// CHECK-NEXT:   vyre.loop "i" = %lo to %hi {
// CHECK-NEXT:     %iv = vyre.var "i" : u32
// CHECK-NEXT:     %n = vyre.var "n" : u32
// CHECK-NEXT:     %next = vyre.binop add %n, %iv
// CHECK-NEXT:     vyre.assign "n" = %next
// CHECK-NEXT:     vyre.barrier
// CHECK-NEXT:   }
// CHECK-NEXT:   %n2 = vyre.var "n" : u32
// CHECK-NEXT:   %len = vyre.buf_len @out
// CHECK-NEXT:   %inside = vyre.binop lt %n2, %len
// CHECK-NEXT:   vyre.if %inside {
// CHECK-NEXT:     vyre.store @out[%n2] = %n2
// CHECK-NEXT:   } else {
// CHECK-NEXT:     vyre.return
// CHECK-NEXT:   }
// CHECK-NEXT:   vyre.if %inside {
// CHECK-NEXT:   }
// CHECK-NEXT:   vyre.block {
// CHECK-NEXT:     vyre.let "local" = %lo
// CHECK-NEXT:     vyre.block {
// CHECK-NEXT:       vyre.return
// CHECK-NEXT:     }
// CHECK-NEXT:   }
// CHECK-NEXT:   vyre.loop "j" = %lo to %lo {
// CHECK-NEXT:   }
// CHECK-NEXT:   vyre.block {
// CHECK-NEXT:   }
// CHECK-NEXT:   vyre.return
// CHECK-NEXT: }

// CHECK-GENERIC:          "vyre.let"(%gid) {name = "n"} : (!vyre.type<u32>) -> ()
// CHECK-GENERIC:          "vyre.loop"(%lo, %hi) ({
// CHECK-GENERIC:            "vyre.assign"(%next) {name = "n"} : (!vyre.type<u32>) -> ()
// CHECK-GENERIC-NEXT:       "vyre.barrier"() : () -> ()
// CHECK-GENERIC-NEXT:     }) {var = "i"} : (!vyre.type<u32>, !vyre.type<u32>) -> ()
// CHECK-GENERIC:          "vyre.if"(%inside) ({
// CHECK-GENERIC-NEXT:       "vyre.store"(%n2, %n2) {buffer = "out"} : (!vyre.type<u32>, !vyre.type<u32>) -> ()
// CHECK-GENERIC-NEXT:     }, {
// CHECK-GENERIC-NEXT:     "vyre.return"() : () -> ()
// CHECK-GENERIC-NEXT:     }) : (!vyre.type<u32>) -> ()
// CHECK-GENERIC:          "vyre.block"() ({
// CHECK-GENERIC-NEXT:       "vyre.let"(%lo) {name = "local"} : (!vyre.type<u32>) -> ()
// CHECK-GENERIC-NEXT:     "vyre.block"() ({
// CHECK-GENERIC-NEXT:     "vyre.return"() : () -> ()
// CHECK-GENERIC-NEXT: }) : () -> ()
// CHECK-GENERIC-NEXT: }) : () -> ()
// CHECK-GENERIC:          "vyre.return"() : () -> ()
// CHECK-GENERIC-NEXT:   }) {buffers = [#vyre.buffer<@out : read_write u32 binding(0)>, #vyre.buffer<@tile : workgroup u32[16]>], sym_name = "statements", workgroup_size = [16, 1, 1]} : () -> ()
