// RUN: vyre-opt %s --split-input-file --verify-diagnostics --load-ops %S/../Inputs/non_inlinable_op.py 2>&1 | filecheck %s

// One chunk per validation rule of docs/validation.md, V001-V025, each with the exact
// message. Not here: V019 (more than 100000 nodes: too slow to parse in a lit test;
// test/unit/validation/test_rules.py builds one with vyre.ir). V020 calls the
// non-inlinable user op that ../Inputs/non_inlinable_op.py registers (--load-ops).
// Each chunk's messages are followed by the chunk separator: nothing else is reported.

// V001
vyre.kernel @main workgroup_size(64, 1, 1) buffers(@a : read_only u32 binding(0), @a : read_write u32 binding(1)) {
}

// CHECK: vyre IR validation: duplicate buffer name `a`. Fix: each buffer must have a unique name.
// CHECK-NEXT: {{//}} -----

// -----

// V002
vyre.kernel @main workgroup_size(64, 1, 1) buffers(@a : read_only u32 binding(3), @b : read_write u32 binding(3), @tile : workgroup u32[16]) {
}

// CHECK: vyre IR validation: duplicate binding slot 3 (buffer `b`). Fix: each buffer must have a unique binding.
// CHECK-NEXT: {{//}} -----

// -----

// V003
vyre.kernel @main workgroup_size(64, 0, 1) buffers(@out : read_write u32 binding(0)) {
}

// CHECK: vyre IR validation: workgroup_size[1] is 0. Fix: all workgroup dimensions must be >= 1.
// CHECK-NEXT: {{//}} -----

// -----

// V004
vyre.kernel @main workgroup_size(64, 1, 1) buffers(@out : read_write u32 binding(0)) {
  %0 = vyre.lit_u32 0
  %1 = vyre.load @missing[%0] : u32
  %2 = vyre.buf_len @missing
  %3 = vyre.atomic add @missing[%0], %0
  vyre.store @missing[%0] = %0
}

// CHECK: vyre IR validation: load from unknown buffer `missing`. Fix: declare it in Program::buffers.
// CHECK-NEXT: vyre IR validation: buflen of unknown buffer `missing`. Fix: declare it in Program::buffers.
// CHECK-NEXT: vyre IR validation: atomic on unknown buffer `missing`. Fix: declare it in Program::buffers.
// CHECK-NEXT: vyre IR validation: store to unknown buffer `missing`. Fix: declare it in Program::buffers.
// CHECK-NEXT: {{//}} -----

// -----

// V005
vyre.kernel @main workgroup_size(64, 1, 1) buffers(@in : read_only u32 binding(0)) {
  %0 = vyre.lit_u32 0
  vyre.store @in[%0] = %0
}

// CHECK: vyre IR validation: store to non-writable buffer `in`. Fix: declare it with BufferAccess::ReadWrite or BufferAccess::Workgroup.
// CHECK-NEXT: {{//}} -----

// -----

// V006
vyre.kernel @main workgroup_size(64, 1, 1) buffers(@out : read_write u32 binding(0)) {
  %0 = vyre.var "x" : u32
  vyre.let "x" = %0
  %1 = vyre.lit_u32 1
  vyre.assign "y" = %1
}

// CHECK: vyre IR validation: reference to undeclared variable `x`. Fix: add `let x = ...;` before this use.
// CHECK-NEXT: vyre IR validation: assignment to undeclared variable `y`. Fix: add `let y = ...;` before this assignment.
// CHECK-NEXT: {{//}} -----

// -----

// V007
vyre.kernel @main workgroup_size(64, 1, 1) buffers(@out : read_write u32 binding(0)) {
  %0 = vyre.local_id 3
}

// CHECK: vyre IR validation: invocation/workgroup ID axis 3 out of range. Fix: use 0 (x), 1 (y), or 2 (z).
// CHECK-NEXT: {{//}} -----

// -----

// V008
vyre.kernel @main workgroup_size(64, 1, 1) buffers(@out : read_write u32 binding(0)) {
  %0 = vyre.lit_u32 0
  vyre.let "x" = %0
  vyre.loop "x" = %0 to %0 {
  }
}

// CHECK: vyre IR validation: duplicate local binding `x`. Fix: choose a unique local name; shadowing is not allowed.
// CHECK-NEXT: {{//}} -----

// -----

// V009
vyre.kernel @main workgroup_size(64, 1, 1) buffers(@in : read_only u32 binding(0)) {
  %0 = vyre.lit_u32 0
  %1 = vyre.atomic add @in[%0], %0
}

// CHECK: vyre IR validation: atomic on non-writable buffer `in`. Fix: declare it with BufferAccess::ReadWrite.
// CHECK-NEXT: {{//}} -----

// -----

// V010
vyre.kernel @main workgroup_size(64, 1, 1) buffers(@out : read_write u32 binding(0)) {
  %0 = vyre.local_id x
  vyre.if %0 {
    vyre.barrier
  }
}

// CHECK: vyre IR validation: barrier may be reached by only part of a workgroup. Fix: move the barrier to uniform control flow.
// CHECK-NEXT: {{//}} -----

// -----

// V011
vyre.kernel @main workgroup_size(64, 1, 1) buffers(@out : read_write u32 binding(0)) {
  %0 = vyre.lit_u32 0
  %1 = vyre.lit_u32 4
  vyre.loop "i" = %0 to %1 {
    vyre.assign "i" = %1
  }
}

// CHECK: vyre IR validation: assignment to loop variable `i`. Fix: loop variables are immutable.
// CHECK-NEXT: {{//}} -----

// -----

// V012
vyre.kernel @main workgroup_size(64, 1, 1) buffers(@out : read_write u32 binding(0)) {
  %0 = vyre.lit_u32 0
  %1 = vyre.cast %0 to u64
  %2 = vyre.cast %1 to vec4u32
}

// CHECK: vyre IR validation: unsupported cast from `u64` to `vec4u32`. Fix: use a conversion of the cast table (docs/semantics.md, "Casts").
// CHECK-NEXT: {{//}} -----

// -----

// V013
vyre.kernel @main workgroup_size(64, 1, 1) buffers(@blob : read_only bytes binding(0)) {
  %0 = vyre.lit_u32 0
  %1 = vyre.load @blob[%0] : bytes
}

// CHECK: vyre IR validation: operation on buffer `blob` with element type `bytes` is not supported. Fix: use a typed buffer.
// CHECK-NEXT: {{//}} -----

// -----

// V014
vyre.kernel @main workgroup_size(64, 1, 1) buffers(@signed : read_write i32 binding(0)) {
  %0 = vyre.lit_u32 0
  %1 = vyre.atomic max @signed[%0], %0
}

// CHECK: vyre IR validation: atomic on buffer `signed` with non-u32 element type `i32`. Fix: atomics only support U32 elements.
// CHECK-NEXT: {{//}} -----

// -----

// V015
vyre.kernel @main workgroup_size(64, 1, 1) buffers(@out : read_write u32 binding(0)) {
  %0 = vyre.lit_u32 0
  %1 = vyre.lit_i32 4
  vyre.loop "i" = %0 to %1 {
  }
}

// CHECK: vyre IR validation: loop bound expression must be `u32`, got `i32`. Fix: ensure `from` and `to` are U32.
// CHECK-NEXT: {{//}} -----

// -----

// V016
vyre.kernel @main workgroup_size(64, 1, 1) buffers(@out : read_write u32 binding(0)) {
  %0 = vyre.lit_u32 0
  %1 = vyre.call "test.no_such_op"(%0) : u32
}

// CHECK: vyre IR validation: V016: unknown op `test.no_such_op`. Fix: use a registered op id or add the op to core::ops::*.
// CHECK-NEXT: {{//}} -----

// -----

// V017: 33 calls nested in argument position (each also an unknown op, V016).
vyre.kernel @main workgroup_size(64, 1, 1) buffers(@out : read_write u32 binding(0)) {
  %0 = vyre.lit_u32 0
  %1 = vyre.call "test.unknown"(%0) : u32
  %2 = vyre.call "test.unknown"(%1) : u32
  %3 = vyre.call "test.unknown"(%2) : u32
  %4 = vyre.call "test.unknown"(%3) : u32
  %5 = vyre.call "test.unknown"(%4) : u32
  %6 = vyre.call "test.unknown"(%5) : u32
  %7 = vyre.call "test.unknown"(%6) : u32
  %8 = vyre.call "test.unknown"(%7) : u32
  %9 = vyre.call "test.unknown"(%8) : u32
  %10 = vyre.call "test.unknown"(%9) : u32
  %11 = vyre.call "test.unknown"(%10) : u32
  %12 = vyre.call "test.unknown"(%11) : u32
  %13 = vyre.call "test.unknown"(%12) : u32
  %14 = vyre.call "test.unknown"(%13) : u32
  %15 = vyre.call "test.unknown"(%14) : u32
  %16 = vyre.call "test.unknown"(%15) : u32
  %17 = vyre.call "test.unknown"(%16) : u32
  %18 = vyre.call "test.unknown"(%17) : u32
  %19 = vyre.call "test.unknown"(%18) : u32
  %20 = vyre.call "test.unknown"(%19) : u32
  %21 = vyre.call "test.unknown"(%20) : u32
  %22 = vyre.call "test.unknown"(%21) : u32
  %23 = vyre.call "test.unknown"(%22) : u32
  %24 = vyre.call "test.unknown"(%23) : u32
  %25 = vyre.call "test.unknown"(%24) : u32
  %26 = vyre.call "test.unknown"(%25) : u32
  %27 = vyre.call "test.unknown"(%26) : u32
  %28 = vyre.call "test.unknown"(%27) : u32
  %29 = vyre.call "test.unknown"(%28) : u32
  %30 = vyre.call "test.unknown"(%29) : u32
  %31 = vyre.call "test.unknown"(%30) : u32
  %32 = vyre.call "test.unknown"(%31) : u32
  %33 = vyre.call "test.unknown"(%32) : u32
}

// CHECK: vyre IR validation: V017: call depth exceeds maximum of 32. Fix: reduce call nesting or mutually recursive operations.
// CHECK-NEXT: {{//}} -----

// -----

// V020
vyre.kernel @main workgroup_size(64, 1, 1) buffers(@out : read_write u32 binding(0)) {
  %0 = vyre.lit_u32 0
  %1 = vyre.call "user.buffer.opaque"(%0) : u32
  vyre.store @out[%0] = %1
}

// CHECK: vyre IR validation: V020: call to non-inlinable op `user.buffer.opaque` is rejected by validation. Fix: lower this operation through its dedicated backend path or rewrite the caller with explicit IR.
// CHECK-NEXT: {{//}} -----

// -----

// V018
vyre.kernel @main workgroup_size(64, 1, 1) buffers(@out : read_write u32 binding(0)) {
  vyre.block {
    vyre.block {
      vyre.block {
        vyre.block {
          vyre.block {
            vyre.block {
              vyre.block {
                vyre.block {
                  vyre.block {
                    vyre.block {
                      vyre.block {
                        vyre.block {
                          vyre.block {
                            vyre.block {
                              vyre.block {
                                vyre.block {
                                  vyre.block {
                                    vyre.block {
                                      vyre.block {
                                        vyre.block {
                                          vyre.block {
                                            vyre.block {
                                              vyre.block {
                                                vyre.block {
                                                  vyre.block {
                                                    vyre.block {
                                                      vyre.block {
                                                        vyre.block {
                                                          vyre.block {
                                                            vyre.block {
                                                              vyre.block {
                                                                vyre.block {
                                                                  vyre.block {
                                                                    vyre.block {
                                                                      vyre.block {
                                                                        vyre.block {
                                                                          vyre.block {
                                                                            vyre.block {
                                                                              vyre.block {
                                                                                vyre.block {
                                                                                  vyre.block {
                                                                                    vyre.block {
                                                                                      vyre.block {
                                                                                        vyre.block {
                                                                                          vyre.block {
                                                                                            vyre.block {
                                                                                              vyre.block {
                                                                                                vyre.block {
                                                                                                  vyre.block {
                                                                                                    vyre.block {
                                                                                                      vyre.block {
                                                                                                        vyre.block {
                                                                                                          vyre.block {
                                                                                                            vyre.block {
                                                                                                              vyre.block {
                                                                                                                vyre.block {
                                                                                                                  vyre.block {
                                                                                                                    vyre.block {
                                                                                                                      vyre.block {
                                                                                                                        vyre.block {
                                                                                                                          vyre.block {
                                                                                                                            vyre.block {
                                                                                                                              vyre.block {
                                                                                                                                vyre.block {
                                                                                                                                  vyre.block {
                                                                                                                                    vyre.barrier
                                                                                                                                  }
                                                                                                                                }
                                                                                                                              }
                                                                                                                            }
                                                                                                                          }
                                                                                                                        }
                                                                                                                      }
                                                                                                                    }
                                                                                                                  }
                                                                                                                }
                                                                                                              }
                                                                                                            }
                                                                                                          }
                                                                                                        }
                                                                                                      }
                                                                                                    }
                                                                                                  }
                                                                                                }
                                                                                              }
                                                                                            }
                                                                                          }
                                                                                        }
                                                                                      }
                                                                                    }
                                                                                  }
                                                                                }
                                                                              }
                                                                            }
                                                                          }
                                                                        }
                                                                      }
                                                                    }
                                                                  }
                                                                }
                                                              }
                                                            }
                                                          }
                                                        }
                                                      }
                                                    }
                                                  }
                                                }
                                              }
                                            }
                                          }
                                        }
                                      }
                                    }
                                  }
                                }
                              }
                            }
                          }
                        }
                      }
                    }
                  }
                }
              }
            }
          }
        }
      }
    }
  }
}

// CHECK: vyre IR validation: V018: program nesting depth 65 exceeds max 64. Fix: flatten nested If/Loop/Block structures or split the program before lowering.
// CHECK-NEXT: {{//}} -----

// -----

// V021
vyre.kernel @main workgroup_size(64, 1, 1) buffers(@out : read_write u32 binding(0)) {
  %0 = vyre.lit_u32 0
  %1 = vyre.lit_bool true
  %2 = vyre.binop add %0, %1
}

// CHECK: vyre IR validation: binary operation right operand must be `u32`, got `bool`. Fix: cast or rewrite the operand to produce U32.
// CHECK-NEXT: {{//}} -----

// -----

// V022
vyre.kernel @main workgroup_size(64, 1, 1) buffers(@out : read_write u32 binding(0)) {
  %0 = vyre.lit_i32 -1
  vyre.if %0 {
  }
}

// CHECK: vyre IR validation: if condition must be `u32` or `bool`, got `i32`. Fix: cast or rewrite the condition to produce U32 or Bool.
// CHECK-NEXT: {{//}} -----

// -----

// V023
vyre.kernel @main workgroup_size(64, 1, 1) buffers(@out : read_write u32 binding(0)) {
  %0 = vyre.lit_u32 0
  %1 = vyre.cast %0 to bytes
}

// CHECK: vyre IR validation: V023: cast to Bytes is unsupported in WGSL lowering. Fix: use buffer load/store directly for byte data.
// CHECK-NEXT: {{//}} -----

// -----

// V024
vyre.kernel @main workgroup_size(64, 1, 1) buffers(@tile : workgroup u32) {
}

// CHECK: vyre IR validation: workgroup buffer `tile` has count 0. Fix: declare a positive element count.
// CHECK-NEXT: {{//}} -----

// -----

// V025: vyre supports atomics on U32 workgroup buffers (docs/kernels.md,
// "Workgroup atomics"); V025 keeps rejecting workgroup buffers of other element
// types, with its text and beside V014.
vyre.kernel @main workgroup_size(64, 1, 1) buffers(@tile : workgroup i32[64]) {
  %0 = vyre.lit_u32 0
  %1 = vyre.atomic add @tile[%0], %0
}

// CHECK: vyre IR validation: atomic on non-writable buffer `tile`. Fix: declare it with BufferAccess::ReadWrite.
// CHECK-NEXT: vyre IR validation: atomic on buffer `tile` with non-u32 element type `i32`. Fix: atomics only support U32 elements.
// CHECK-NOT: {{.}}
