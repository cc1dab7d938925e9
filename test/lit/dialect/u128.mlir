// RUN: VYRE_ROUNDTRIP
// RUN: VYRE_GENERIC_ROUNDTRIP

// u128: its buffers, literals (to 2**128 - 1), every operator it has and the casts
// to and from it. Arithmetic, bitwise ops and shifts give u128; comparisons and
// the counts give u32.
vyre.kernel @wide workgroup_size(64, 1, 1) buffers(@a : read_only u128 binding(0), @out : read_write u128 binding(1), @flags : read_write u32 binding(2), @tile : workgroup u128[64]) {
  %i = vyre.invocation_id x
  %a = vyre.load @a[%i] : u128
  %max = vyre.lit_u128 340282366920938463463374607431768211455
  %big = vyre.lit_u128 1267650600228229401496703205376
  %add = vyre.binop add %a, %max
  %sub = vyre.binop sub %add, %big
  %mul = vyre.binop mul %sub, %a
  %div = vyre.binop div %mul, %big
  %mod = vyre.binop mod %div, %a
  %and = vyre.binop bit_and %mod, %max
  %or = vyre.binop bit_or %and, %a
  %xor = vyre.binop bit_xor %or, %big
  %shl = vyre.binop shl %xor, %a
  %shr = vyre.binop shr %shl, %big
  %not = vyre.unop bit_not %shr
  vyre.store @out[%i] = %not
  vyre.store @tile[%i] = %not
  %eq = vyre.binop eq %a, %max
  %ne = vyre.binop ne %a, %max
  %lt = vyre.binop lt %a, %big
  %gt = vyre.binop gt %a, %big
  %le = vyre.binop le %a, %big
  %ge = vyre.binop ge %a, %big
  %pop = vyre.unop popcount %a
  %clz = vyre.unop clz %a
  %ctz = vyre.unop ctz %a
  %w = vyre.cast %a to u32
  %s = vyre.cast %a to i32
  %b = vyre.cast %a to bool
  %d = vyre.cast %a to u64
  %v2 = vyre.cast %a to vec2u32
  %v4 = vyre.cast %a to vec4u32
  %from_u32 = vyre.cast %w to u128
  %from_i32 = vyre.cast %s to u128
  %from_bool = vyre.cast %b to u128
  %from_u64 = vyre.cast %d to u128
  %from_v2 = vyre.cast %v2 to u128
  %from_v4 = vyre.cast %v4 to u128
  vyre.store @flags[%i] = %clz
}

// CHECK:      vyre.kernel @wide workgroup_size(64, 1, 1) buffers(@a : read_only u128 binding(0), @out : read_write u128 binding(1), @flags : read_write u32 binding(2), @tile : workgroup u128[64]) {
// CHECK-NEXT:   %i = vyre.invocation_id x
// CHECK-NEXT:   %a = vyre.load @a[%i] : u128
// CHECK-NEXT:   %max = vyre.lit_u128 340282366920938463463374607431768211455
// CHECK-NEXT:   %big = vyre.lit_u128 1267650600228229401496703205376
// CHECK-NEXT:   %add = vyre.binop add %a, %max
// CHECK-NEXT:   %sub = vyre.binop sub %add, %big
// CHECK-NEXT:   %mul = vyre.binop mul %sub, %a
// CHECK-NEXT:   %div = vyre.binop div %mul, %big
// CHECK-NEXT:   %mod = vyre.binop mod %div, %a
// CHECK-NEXT:   %and = vyre.binop bit_and %mod, %max
// CHECK-NEXT:   %or = vyre.binop bit_or %and, %a
// CHECK-NEXT:   %xor = vyre.binop bit_xor %or, %big
// CHECK-NEXT:   %shl = vyre.binop shl %xor, %a
// CHECK-NEXT:   %shr = vyre.binop shr %shl, %big
// CHECK-NEXT:   %not = vyre.unop bit_not %shr
// CHECK-NEXT:   vyre.store @out[%i] = %not
// CHECK-NEXT:   vyre.store @tile[%i] = %not
// CHECK-NEXT:   %eq = vyre.binop eq %a, %max
// CHECK-NEXT:   %ne = vyre.binop ne %a, %max
// CHECK-NEXT:   %lt = vyre.binop lt %a, %big
// CHECK-NEXT:   %gt = vyre.binop gt %a, %big
// CHECK-NEXT:   %le = vyre.binop le %a, %big
// CHECK-NEXT:   %ge = vyre.binop ge %a, %big
// CHECK-NEXT:   %pop = vyre.unop popcount %a
// CHECK-NEXT:   %clz = vyre.unop clz %a
// CHECK-NEXT:   %ctz = vyre.unop ctz %a
// CHECK-NEXT:   %w = vyre.cast %a to u32
// CHECK-NEXT:   %s = vyre.cast %a to i32
// CHECK-NEXT:   %b = vyre.cast %a to bool
// CHECK-NEXT:   %d = vyre.cast %a to u64
// CHECK-NEXT:   %v2 = vyre.cast %a to vec2u32
// CHECK-NEXT:   %v4 = vyre.cast %a to vec4u32
// CHECK-NEXT:   %from_u32 = vyre.cast %w to u128
// CHECK-NEXT:   %from_i32 = vyre.cast %s to u128
// CHECK-NEXT:   %from_bool = vyre.cast %b to u128
// CHECK-NEXT:   %from_u64 = vyre.cast %d to u128
// CHECK-NEXT:   %from_v2 = vyre.cast %v2 to u128
// CHECK-NEXT:   %from_v4 = vyre.cast %v4 to u128
// CHECK-NEXT:   vyre.store @flags[%i] = %clz
// CHECK-NEXT: }

// The generic form: the result types the ops define, literals past i64 as their
// 128-bit pattern read signed (as MLIR prints an i128).
// CHECK-GENERIC:      %max = "vyre.lit_u128"() {value = -1 : i128} : () -> !vyre.type<u128>
// CHECK-GENERIC-NEXT: %big = "vyre.lit_u128"() {value = 1267650600228229401496703205376 : i128} : () -> !vyre.type<u128>
// CHECK-GENERIC-NEXT: %add = "vyre.binop"(%a, %max) {kind = "add"} : (!vyre.type<u128>, !vyre.type<u128>) -> !vyre.type<u128>
// CHECK-GENERIC:      %not = "vyre.unop"(%shr) {kind = "bit_not"} : (!vyre.type<u128>) -> !vyre.type<u128>
// CHECK-GENERIC:      %eq = "vyre.binop"(%a, %max) {kind = "eq"} : (!vyre.type<u128>, !vyre.type<u128>) -> !vyre.type<u32>
// CHECK-GENERIC:      %pop = "vyre.unop"(%a) {kind = "popcount"} : (!vyre.type<u128>) -> !vyre.type<u32>
