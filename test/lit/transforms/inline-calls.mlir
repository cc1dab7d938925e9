// RUN: vyre-opt %s -p inline-calls --split-input-file | filecheck %s
// RUN: vyre-opt %s -p inline-calls --split-input-file | filecheck %s --check-prefix=NOCALL
// RUN: vyre-opt %s -p inline-calls --split-input-file -t wgsl | filecheck %s --check-prefix=WGSL

// Nested calls: clamp's composition calls max and min (both expanded in turn);
// the Category C popcount becomes the vyre UnOp.
vyre.kernel @nested workgroup_size(64, 1, 1) buffers(@a : read_only u32 binding(0), @out : read_write u32 binding(1)) {
  %i = vyre.invocation_id x
  %x = vyre.load @a[%i] : u32
  %nine = vyre.lit_u32 9
  %p = vyre.call "primitive.bitwise.popcount"(%x) : u32
  %r = vyre.call "primitive.math.clamp"(%x, %p, %nine) : u32
  vyre.store @out[%i] = %r
}

// CHECK-LABEL: vyre.kernel @nested
// CHECK-NEXT:    %i = vyre.invocation_id x
// CHECK-NEXT:    %x = vyre.load @a[%i] : u32
// CHECK-NEXT:    %nine = vyre.lit_u32 9
// CHECK-NEXT:    %p = vyre.unop popcount %x
// CHECK-NEXT:    %[[GT:.*]] = vyre.binop gt %x, %p
// CHECK-NEXT:    %[[MAX:.*]] = vyre.select %[[GT]], %x, %p
// CHECK-NEXT:    %[[LT:.*]] = vyre.binop lt %[[MAX]], %nine
// CHECK-NEXT:    %r = vyre.select %[[LT]], %[[MAX]], %nine
// CHECK-NEXT:    vyre.store @out[%i] = %r
// CHECK-NEXT:  }

// -----

// Arguments are evaluated once, before the call: max uses each argument twice and
// reuses the SSA values, so the atomic runs once per invocation.
vyre.kernel @once workgroup_size(64, 1, 1) buffers(@counter : read_write u32 binding(0), @out : read_write u32 binding(1)) {
  %i = vyre.invocation_id x
  %zero = vyre.lit_u32 0
  %one = vyre.lit_u32 1
  %old = vyre.atomic add @counter[%zero], %one
  %m = vyre.call "primitive.math.max"(%old, %i) : u32
  vyre.store @out[%i] = %m
}

// CHECK-LABEL: vyre.kernel @once
// CHECK:         %old = vyre.atomic add @counter[%zero], %one
// CHECK-NEXT:    %[[C:.*]] = vyre.binop gt %old, %i
// CHECK-NEXT:    %m = vyre.select %[[C]], %old, %i
// CHECK-NEXT:    vyre.store @out[%i] = %m
// CHECK-NOT:     vyre.atomic

// -----

// Calls nested in arguments and inside regions; sign and abs are i32-view ops on
// u32 bit patterns.
vyre.kernel @regions workgroup_size(64, 1, 1) buffers(@a : read_only u32 binding(0), @out : read_write u32 binding(1)) {
  %i = vyre.invocation_id x
  %x = vyre.load @a[%i] : u32
  %s = vyre.call "primitive.math.sign"(%x) : u32
  vyre.if %s {
    %abs = vyre.call "primitive.math.abs"(%x) : u32
    %sum = vyre.call "primitive.math.add"(%abs, %s) : u32
    vyre.store @out[%i] = %sum
  }
}

// CHECK-LABEL: vyre.kernel @regions
// CHECK:         %[[NZ:.*]] = vyre.binop ne %x, %{{.*}}
// CHECK:         %[[NEG:.*]] = vyre.unop negate %{{.*}}
// CHECK-NEXT:    %s = vyre.binop bit_or %[[NZ]], %[[NEG]]
// CHECK-NEXT:    vyre.if %s {
// CHECK:           %[[MASK:.*]] = vyre.unop negate %{{.*}}
// CHECK-NEXT:      %[[FLIP:.*]] = vyre.binop bit_xor %x, %[[MASK]]
// CHECK-NEXT:      %abs = vyre.binop sub %[[FLIP]], %[[MASK]]
// CHECK-NEXT:      %sum = vyre.binop add %abs, %s
// CHECK-NEXT:      vyre.store @out[%i] = %sum
// CHECK-NEXT:    }

// -----

// lcm calls gcd, whose composition is a loop-free unrolled binary GCD; after
// inlining neither call remains, and no loop appears.
vyre.kernel @lcm workgroup_size(64, 1, 1) buffers(@a : read_only u32 binding(0), @b : read_only u32 binding(1), @out : read_write u32 binding(2)) {
  %i = vyre.invocation_id x
  %x = vyre.load @a[%i] : u32
  %y = vyre.load @b[%i] : u32
  %l = vyre.call "primitive.math.lcm"(%x, %y) : u32
  vyre.store @out[%i] = %l
}

// CHECK-LABEL: vyre.kernel @lcm
// CHECK:         %{{.*}} = vyre.unop ctz %x
// CHECK:         %[[Q:.*]] = vyre.binop div %x, %{{.*}}
// CHECK-NEXT:    %l = vyre.binop mul %[[Q]], %y
// CHECK-NEXT:    vyre.store @out[%i] = %l

// NOCALL-NOT: "primitive.math.
// NOCALL-NOT: "primitive.bitwise.popcount"
// NOCALL-NOT: vyre.loop

// WGSL-NOT: primitive.
// WGSL-NOT: loop
// WGSL-NOT: for (
