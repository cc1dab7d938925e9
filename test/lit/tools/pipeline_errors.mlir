// RUN: not vyre-opt %s -p bogus 2>&1 | filecheck %s --check-prefix=UNKNOWN
// RUN: not vyre-opt %s -p 'cse{fast=true}' 2>&1 | filecheck %s --check-prefix=OPTION
// RUN: not vyre-opt %s -p 'cse{' 2>&1 | filecheck %s --check-prefix=SYNTAX
// RUN: not vyre-opt %s -t spirv 2>&1 | filecheck %s --check-prefix=TARGET
// RUN: not vyre-opt %s.missing 2>&1 | filecheck %s --check-prefix=MISSING

vyre.kernel @k workgroup_size(1, 1, 1) {
  vyre.return
}

// UNKNOWN-NOT: Traceback
// UNKNOWN:     vyre-opt: error: unknown pass `bogus` (passes: canonicalize, convert-to-vyre, cse, dce, float-strict, inline-calls, lower-tensors)
// UNKNOWN-NOT: Traceback

// OPTION:     vyre-opt: error: pass `cse` has no option `fast` (options: none)
// OPTION-NOT: Traceback

// SYNTAX:      vyre-opt: error: Error parsing pass pipeline specification:
// SYNTAX-NEXT: pass-pipeline:1:5
// SYNTAX-NOT:  Traceback

// TARGET: vyre-opt: error: argument -t/--target: invalid choice: 'spirv' (choose from mlir, wgsl)

// MISSING:     vyre-opt: error: cannot read '{{.*}}pipeline_errors.mlir.missing': No such file or directory
// MISSING-NOT: Traceback
