// RUN: vyre-opt %s -p convert-to-vyre --split-input-file | filecheck %s

// A function over 1-D memrefs with an scf.parallel from 0 to memref.dim: a kernel
// of the same name, one buffer per argument (named after it, binding = position,
// read_write where stored), the index is the invocation id. The bounds guard is
// left out here: the bound is the length of `out`, and the only effect is the
// store to out[i], which vyre's out-of-bounds rule already makes a no-op past the
// end (the other chunks keep the guard: a constant bound, a bound from another
// buffer, loops).
func.func @add(%a: memref<?xi32>, %b: memref<?xi32>, %out: memref<?xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %out, %c0 : memref<?xi32>
  "scf.parallel"(%c0, %n, %c1) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  ^bb0(%i: index):
    %x = memref.load %a[%i] : memref<?xi32>
    %y = memref.load %b[%i] : memref<?xi32>
    %s = arith.addi %x, %y : i32
    memref.store %s, %out[%i] : memref<?xi32>
    scf.reduce
  }) : (index, index, index) -> ()
  func.return
}

// CHECK-LABEL: vyre.kernel @add workgroup_size(64, 1, 1) buffers(@a : read_only u32 binding(0), @b : read_only u32 binding(1), @out : read_write u32 binding(2)) {
// CHECK-NEXT:   %i = vyre.invocation_id x
// CHECK-NEXT:   %x = vyre.load @a[%i] : u32
// CHECK-NEXT:   %y = vyre.load @b[%i] : u32
// CHECK-NEXT:   %s = vyre.binop add %x, %y
// CHECK-NEXT:   vyre.store @out[%i] = %s
// CHECK-NEXT: }

// -----

// Unnamed arguments are arg0, arg1, ...; static sizes and f32 elements; float ops
// are vyre's strict ones.
func.func @scale(%0: memref<16xf32>, %1: memref<16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %k = arith.constant 2.5 : f32
  "scf.parallel"(%c0, %c16, %c1) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  ^bb0(%i: index):
    %x = memref.load %0[%i] : memref<16xf32>
    %y = arith.mulf %x, %k : f32
    %z = arith.subf %y, %x : f32
    %q = arith.divf %z, %k : f32
    %c = arith.cmpf olt, %q, %x : f32
    %r = arith.select %c, %q, %x : f32
    memref.store %r, %1[%i] : memref<16xf32>
    scf.reduce
  }) : (index, index, index) -> ()
  func.return
}

// CHECK-LABEL: vyre.kernel @scale workgroup_size(64, 1, 1) buffers(@arg0 : read_only f32 binding(0), @arg1 : read_write f32 binding(1)) {
// CHECK-NEXT:   %c16 = vyre.lit_u32 16
// CHECK-NEXT:   %k = vyre.lit_float 0x40200000 : f32
// CHECK-NEXT:   %i = vyre.invocation_id x
// CHECK-NEXT:   %0 = vyre.binop lt %i, %c16
// CHECK-NEXT:   vyre.if %0 {
// CHECK-NEXT:     %x = vyre.load @arg0[%i] : f32
// CHECK-NEXT:     %y = vyre.fmul %x, %k
// CHECK-NEXT:     %z = vyre.fsub %y, %x
// CHECK-NEXT:     %q = vyre.fdiv %z, %k
// CHECK-NEXT:     %1 = vyre.fcmp lt %q, %x
// CHECK-NEXT:     %c = vyre.cast %1 to u32
// CHECK-NEXT:     %r = vyre.select %c, %q, %x
// CHECK-NEXT:     vyre.store @arg1[%i] = %r
// CHECK-NEXT:   }
// CHECK-NEXT: }

// -----

// Signed division, remainder, shift and comparison, from u32 ops on the same bits.
func.func @signed(%a: memref<?xi32>, %out: memref<?xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %a, %c0 : memref<?xi32>
  "scf.parallel"(%c0, %n, %c1) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  ^bb0(%i: index):
    %x = memref.load %a[%i] : memref<?xi32>
    %m3 = arith.constant -3 : i32
    %q = arith.divsi %x, %m3 : i32
    %r = arith.remsi %q, %x : i32
    %s = arith.shrsi %r, %m3 : i32
    %lt = arith.cmpi slt, %s, %x : i32
    %w = arith.extui %lt : i1 to i32
    memref.store %w, %out[%i] : memref<?xi32>
    scf.reduce
  }) : (index, index, index) -> ()
  func.return
}

// CHECK-LABEL: vyre.kernel @signed workgroup_size(64, 1, 1) buffers(@a : read_only u32 binding(0), @out : read_write u32 binding(1)) {
// CHECK-NEXT:   %c1 = vyre.lit_u32 1
// CHECK-NEXT:   %n = vyre.buf_len @a
// CHECK-NEXT:   %i = vyre.invocation_id x
// CHECK-NEXT:   %0 = vyre.binop lt %i, %n
// CHECK-NEXT:   vyre.if %0 {
// CHECK-NEXT:     %x = vyre.load @a[%i] : u32
// CHECK-NEXT:     %m3 = vyre.lit_u32 4294967293
// CHECK-NEXT:     %1 = vyre.lit_u32 31
// CHECK-NEXT:     %2 = vyre.binop shr %x, %1
// CHECK-NEXT:     %3 = vyre.unop negate %x
// CHECK-NEXT:     %4 = vyre.select %2, %3, %x
// CHECK-NEXT:     %5 = vyre.lit_u32 3
// CHECK-NEXT:     %6 = vyre.binop div %4, %5
// CHECK-NEXT:     %7 = vyre.binop bit_xor %2, %c1
// CHECK-NEXT:     %8 = vyre.unop negate %6
// CHECK-NEXT:     %q = vyre.select %7, %8, %6
// CHECK-NEXT:     %9 = vyre.binop shr %q, %1
// CHECK-NEXT:     %10 = vyre.binop shr %x, %1
// CHECK-NEXT:     %11 = vyre.unop negate %q
// CHECK-NEXT:     %12 = vyre.select %9, %11, %q
// CHECK-NEXT:     %13 = vyre.unop negate %x
// CHECK-NEXT:     %14 = vyre.select %10, %13, %x
// CHECK-NEXT:     %15 = vyre.binop mod %12, %14
// CHECK-NEXT:     %16 = vyre.unop negate %15
// CHECK-NEXT:     %r = vyre.select %9, %16, %15
// CHECK-NEXT:     %17 = vyre.binop shr %r, %1
// CHECK-NEXT:     %18 = vyre.unop negate %17
// CHECK-NEXT:     %19 = vyre.binop bit_xor %r, %18
// CHECK-NEXT:     %20 = vyre.binop shr %19, %m3
// CHECK-NEXT:     %s = vyre.binop bit_xor %20, %18
// CHECK-NEXT:     %21 = vyre.lit_u32 2147483648
// CHECK-NEXT:     %22 = vyre.binop bit_xor %s, %21
// CHECK-NEXT:     %23 = vyre.binop bit_xor %x, %21
// CHECK-NEXT:     %lt = vyre.binop lt %22, %23
// CHECK-NEXT:     vyre.store @out[%i] = %lt
// CHECK-NEXT:   }
// CHECK-NEXT: }

// -----

// scf.for (signed trip count, lb + k * step) with a loop-carried value, and
// scf.if with a result: vyre locals.
func.func @loops(%a: memref<?xi32>, %out: memref<?xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c9 = arith.constant 9 : index
  %n = memref.dim %a, %c0 : memref<?xi32>
  "scf.parallel"(%c0, %n, %c1) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  ^bb0(%i: index):
    %x = memref.load %a[%i] : memref<?xi32>
    %sum = scf.for %j = %c1 to %c9 step %c2 iter_args(%acc = %x) -> (i32) {
      %jj = arith.index_cast %j : index to i32
      %odd = arith.trunci %acc : i32 to i1
      %next = scf.if %odd -> (i32) {
        %p = arith.addi %acc, %jj : i32
        scf.yield %p : i32
      } else {
        %q = arith.muli %acc, %jj : i32
        scf.yield %q : i32
      }
      scf.yield %next : i32
    }
    memref.store %sum, %out[%i] : memref<?xi32>
    scf.reduce
  }) : (index, index, index) -> ()
  func.return
}

// CHECK-LABEL: vyre.kernel @loops workgroup_size(64, 1, 1) buffers(@a : read_only u32 binding(0), @out : read_write u32 binding(1)) {
// CHECK-NEXT:   %c0 = vyre.lit_u32 0
// CHECK-NEXT:   %c1 = vyre.lit_u32 1
// CHECK-NEXT:   %c2 = vyre.lit_u32 2
// CHECK-NEXT:   %n = vyre.buf_len @a
// CHECK-NEXT:   %i = vyre.invocation_id x
// CHECK-NEXT:   %0 = vyre.binop lt %i, %n
// CHECK-NEXT:   vyre.if %0 {
// CHECK-NEXT:     %x = vyre.load @a[%i] : u32
// CHECK-NEXT:     %1 = vyre.lit_u32 4
// CHECK-NEXT:     vyre.let "acc" = %x
// CHECK-NEXT:     vyre.loop "j_trip" = %c0 to %1 {
// CHECK-NEXT:       %j_trip = vyre.var "j_trip" : u32
// CHECK-NEXT:       %2 = vyre.binop mul %j_trip, %c2
// CHECK-NEXT:       %j = vyre.binop add %c1, %2
// CHECK-NEXT:       %acc = vyre.var "acc" : u32
// CHECK-NEXT:       %odd = vyre.binop bit_and %acc, %c1
// CHECK-NEXT:       vyre.let "next" = %c0
// CHECK-NEXT:       vyre.if %odd {
// CHECK-NEXT:         %p = vyre.binop add %acc, %j
// CHECK-NEXT:         vyre.assign "next" = %p
// CHECK-NEXT:       } else {
// CHECK-NEXT:         %q = vyre.binop mul %acc, %j
// CHECK-NEXT:         vyre.assign "next" = %q
// CHECK-NEXT:       }
// CHECK-NEXT:       %next = vyre.var "next" : u32
// CHECK-NEXT:       vyre.assign "acc" = %next
// CHECK-NEXT:     }
// CHECK-NEXT:     %sum = vyre.var "acc" : u32
// CHECK-NEXT:     vyre.store @out[%i] = %sum
// CHECK-NEXT:   }
// CHECK-NEXT: }

// -----

// The extended multiplications: the low word is `mul`, the high word `mul_high`;
// the signed high word subtracts b where a < 0 and a where b < 0.
func.func @wide(%a: memref<?xi32>, %b: memref<?xi32>, %lo: memref<?xi32>, %hi: memref<?xi32>, %shi: memref<?xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %lo, %c0 : memref<?xi32>
  "scf.parallel"(%c0, %n, %c1) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  ^bb0(%i: index):
    %x = memref.load %a[%i] : memref<?xi32>
    %y = memref.load %b[%i] : memref<?xi32>
    %l, %h = arith.mului_extended %x, %y : i32
    %sl, %sh = arith.mulsi_extended %x, %y : i32
    memref.store %l, %lo[%i] : memref<?xi32>
    memref.store %h, %hi[%i] : memref<?xi32>
    memref.store %sh, %shi[%i] : memref<?xi32>
    scf.reduce
  }) : (index, index, index) -> ()
  func.return
}

// CHECK-LABEL: vyre.kernel @wide
// CHECK:        %x = vyre.load @a[%i] : u32
// CHECK-NEXT:   %y = vyre.load @b[%i] : u32
// CHECK-NEXT:   %h = vyre.binop mul_high %x, %y
// CHECK-NEXT:   %l = vyre.binop mul %x, %y
// CHECK-NEXT:   %[[SH:.+]] = vyre.binop mul_high %x, %y
// CHECK-NEXT:   %[[C31:.+]] = vyre.lit_u32 31
// CHECK-NEXT:   %[[AN:.+]] = vyre.binop shr %x, %[[C31]]
// CHECK-NEXT:   %[[LB:.+]] = vyre.select %[[AN]], %y, %c0
// CHECK-NEXT:   %[[BN:.+]] = vyre.binop shr %y, %[[C31]]
// CHECK-NEXT:   %[[LA:.+]] = vyre.select %[[BN]], %x, %c0
// CHECK-NEXT:   %[[D:.+]] = vyre.binop sub %[[SH]], %[[LB]]
// CHECK-NEXT:   %sh = vyre.binop sub %[[D]], %[[LA]]
// CHECK-NEXT:   vyre.store @lo[%i] = %l
// CHECK-NEXT:   vyre.store @hi[%i] = %h
// CHECK-NEXT:   vyre.store @shi[%i] = %sh
