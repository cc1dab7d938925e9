// RUN: vyre-opt %s --split-input-file --verify-diagnostics 2>&1 | filecheck %s

// Routine rules V135-V138 and the routine verifier, each with its exact message.

// V135
builtin.module {
  vyre.kernel @k workgroup_size(1, 1, 1) buffers(@out : read_write u32 binding(0)) {
    %z = vyre.lit_u32 0
    %y = vyre.invoke @missing(%z) : u32
    vyre.store @out[%z] = %y
  }
}
// CHECK: error: vyre IR validation: invoke of unknown routine `@missing`. Fix: define `vyre.routine @missing` beside the kernel, or call a library op instead.

// -----

// V136
builtin.module {
  vyre.kernel @k workgroup_size(1, 1, 1) buffers(@out : read_write u32 binding(0)) {
    %z = vyre.lit_u32 0
    %y = vyre.invoke @id(%z, %z) : u32
    vyre.store @out[%z] = %y
  }
  vyre.routine @id(%v : u32) -> u32 {
    vyre.yield %v
  }
}
// CHECK: error: vyre IR validation: invoke of `@id` passes (u32, u32) but the routine takes (u32). Fix: pass one argument of each parameter's type to `@id`.

// -----

// V137
builtin.module {
  vyre.kernel @k workgroup_size(1, 1, 1) buffers(@out : read_write u32 binding(0)) {
    %z = vyre.lit_u32 0
    %y = vyre.invoke @loop(%z) : u32
    vyre.store @out[%z] = %y
  }
  vyre.routine @loop(%v : u32) -> u32 {
    %w = vyre.invoke @loop(%v) : u32
    vyre.yield %w
  }
}
// CHECK: error: vyre IR validation: routine `@loop` invokes itself. Fix: routines are straight-line code: write the repetition as a loop in the kernel.

// -----

// V138
builtin.module {
  vyre.kernel @k workgroup_size(1, 1, 1) buffers(@out : read_write u32 binding(0)) {
    %z = vyre.lit_u32 0
    %y = vyre.invoke @wrong(%z) : u32
    vyre.store @out[%z] = %y
  }
  vyre.routine @wrong(%v : u32) -> u32 {
    %b = vyre.cast %v to bool
    vyre.yield %b
  }
}
// CHECK: error: vyre IR validation: routine `@wrong` yields a `bool` value but declares `u32`. Fix: yield a `u32` value (cast it) or declare the routine `-> bool`.

// -----

// A routine body is pure expression code: no loads, locals or ids (verifier).
builtin.module {
  vyre.kernel @k workgroup_size(1, 1, 1) buffers(@a : read_only u32 binding(0), @out : read_write u32 binding(1)) {
    %z = vyre.lit_u32 0
    %y = vyre.invoke @reads(%z) : u32
    vyre.store @out[%z] = %y
  }
  vyre.routine @reads(%v : u32) -> u32 {
    %x = vyre.load @a[%v] : u32
    vyre.yield %x
  }
}
// CHECK: error: routine @reads holds `vyre.load`: a routine body is pure expression code over its parameters
