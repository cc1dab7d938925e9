"""Kernel ops: library ops that are whole kernels over buffers (docs/kernels.md),
a layer above the runtime that runs them.

- `spec.py`: the plan model (`KernelSpec`, `Port`, `KernelPlan`, `Step`,
  `Repeat`, `BatchPlan`, `DeviceCheck`, `OpInputError`);
- `laws.py`: the laws of kernel ops; `admission.py`: their admission gates;
- `samplers.py`: the inputs the proof system and the tests generate, in one
  vocabulary of patterns;
- `run.py`: running plans (the interpreter step by step, or one wgpu
  submission); `evaluate.py`: `ops.evaluate`, `evaluate_raw`, `evaluate_many`
  (scalar ops elementwise too);
- `catalog.py`: the built-in kernel ops in the op registry, `register`;
- `families/`: the built-in kernel ops, one module a family.

Importing this package installs the loader of the built-in kernel ops into the
op registry (`vyre.ops.registry.register_kernel_loader`), which calls it on
first use.
"""

from __future__ import annotations

from vyre.kernels.catalog import builtin_kernels
from vyre.ops.registry import register_kernel_loader

register_kernel_loader(builtin_kernels)
