// RUN: vyre-opt %s -t wgsl | filecheck %s

// u128 lowers to vec4<u32> (x the least significant word). Bitwise operators,
// bit_not, eq and ne are WGSL's vector operators; the others call one helper
// each, emitted once: add/sub with carries, mul from 16-bit digits, the order,
// the counts, shifts by the amount's low word & 127, and division as Knuth's
// algorithm D, unrolled (no loop: lavapipe counts helper loops against the
// invocation's back-edge limit). The guards are u32's: a zero divisor gives 0
// (a constant one folds), a constant shift amount folds to a literal below 128
// (a multiple of 32: a swizzle of the words, u128-word-shifts.mlir),
// and operations of literals fold.
vyre.kernel @wide workgroup_size(1, 1, 1) buffers(@a : read_only u128 binding(0), @out : read_write u128 binding(1), @n : read_write u32 binding(2)) {
  %i0 = vyre.lit_u32 0
  %i1 = vyre.lit_u32 1
  %x = vyre.load @a[%i0] : u128
  %y = vyre.load @a[%i1] : u128
  %q = vyre.binop div %x, %y
  vyre.store @out[%i0] = %q
  %zero = vyre.lit_u128 0
  %q0 = vyre.binop mod %x, %zero
  vyre.store @out[%i1] = %q0
  %s = vyre.lit_u128 300
  %sh = vyre.binop shl %x, %s
  vyre.store @out[%i0] = %sh
  %r = vyre.binop shr %x, %y
  vyre.store @out[%i0] = %r
  %c1 = vyre.lit_u128 340282366920938463463374607431768211455
  %c2 = vyre.lit_u128 2
  %folded = vyre.binop add %c1, %c2
  vyre.store @out[%i1] = %folded
  %sum = vyre.binop add %x, %y
  %and = vyre.binop bit_and %sum, %y
  vyre.store @out[%i1] = %and
  %lt = vyre.binop le %x, %y
  vyre.store @n[%i0] = %lt
  %eq = vyre.binop eq %x, %y
  vyre.store @n[%i0] = %eq
  %z = vyre.unop clz %x
  vyre.store @n[%i1] = %z
  %w = vyre.cast %x to u32
  %back = vyre.cast %w to u128
  vyre.store @out[%i1] = %back
}

// CHECK-DAG: @group(0) @binding(0) var<storage, read> a: array<vec4<u32>>;
// CHECK-DAG: @group(0) @binding(1) var<storage, read_write> out: array<vec4<u32>>;
// CHECK:     fn vyre_u128_shl([[A:[a-z_0-9]+]]: vec4<u32>, [[N:[a-z_0-9]+]]: u32) -> vec4<u32> {
// CHECK-NEXT:  let s = [[N]] & 127u;
// CHECK:     fn vyre_u128_clz(
// CHECK:       return select(select(select(96u + c.x, 64u + c.y, {{.*}}), 32u + c.z, {{.*}}), c.w, {{.*}});
// CHECK:     fn vyre_u128_divmod({{.*}}) -> array<vec4<u32>, 2> {
// CHECK-NOT:   loop
// CHECK-NOT:   for (
// CHECK:       // quotient digit 7
// CHECK:       // quotient digit 0
// CHECK:     fn vyre_u128_div(dividend: vec4<u32>, divisor: vec4<u32>) -> vec4<u32> {
// CHECK-NEXT:  if (all(divisor == vec4<u32>())) {
// CHECK-NEXT:    return vec4<u32>();
// CHECK:     fn vyre_u128_add(
// CHECK:     fn vyre_u128_less(
// CHECK:     fn main() {
// CHECK-NEXT:  let x: vec4<u32> = vyre_load_a(0u);
// CHECK-NEXT:  let y: vec4<u32> = vyre_load_a(1u);
// CHECK-NEXT:  vyre_store_out(0u, vyre_u128_div(x, y));
// CHECK-NEXT:  vyre_store_out(1u, vec4<u32>(0u, 0u, 0u, 0u));
// CHECK-NEXT:  vyre_store_out(0u, vyre_u128_shl(x, 44u));
// CHECK-NEXT:  vyre_store_out(0u, vyre_u128_shr(x, y.x));
// CHECK-NEXT:  vyre_store_out(1u, vec4<u32>(1u, 0u, 0u, 0u));
// CHECK-NEXT:  vyre_store_out(1u, vyre_u128_add(x, y) & y);
// CHECK-NEXT:  vyre_store_n(0u, u32(!vyre_u128_less(y, x)));
// CHECK-NEXT:  vyre_store_n(0u, u32(all(x == y)));
// CHECK-NEXT:  vyre_store_n(1u, vyre_u128_clz(x));
// CHECK-NEXT:  vyre_store_out(1u, vec4<u32>(x.x, 0u, 0u, 0u));
// CHECK-NEXT: }
