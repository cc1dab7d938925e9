"""The standard operation library of vyre (`vyre.ops`).

```python
from vyre import ops
ops.known_op_ids(); ops.get("primitive.math.add"); ops.evaluate(op_id, [a, b], backend="interp")
ops.register(OpSpec(...)); ops.unregister(op_id)
```

Scalar ops are Category A (a composition of vyre IR that `inline-calls` expands
before lowering, so it costs nothing at run time) or Category C (a hardware
intrinsic); kernel ops (`KernelSpec`, `vyre.kernels`) are whole pipelines over
buffers. Built-in families are loaded on first use.

This module is the façade of the library: it gathers the expression-op library
(`vyre.ops.*`, below validation) and the kernel ops and `evaluate` (`vyre.kernels`,
above the runtime), so it sits in its own layer above both (ARCHITECTURE.md,
"Layers"); the modules below import the submodules, never this package.
"""

from __future__ import annotations

from vyre.kernels.admission import admit_kernel
from vyre.kernels.catalog import get, register
from vyre.kernels.evaluate import evaluate, evaluate_many, evaluate_raw
from vyre.kernels.spec import KernelLaw, KernelSpec, OpInputError, Port
from vyre.ops import laws
from vyre.ops.admission import AdmissionError, admit, characterization_collisions
from vyre.ops.registry import (
    UnknownOpError,
    builtin_op_ids,
    kernel_op_ids,
    known_op_ids,
    unregister,
)
from vyre.ops.spec import (
    EquivalenceClass,
    Intrinsic,
    OpSignature,
    OpSpec,
    Param,
    UnsupportedByBackend,
)

__all__ = [
    "AdmissionError",
    "EquivalenceClass",
    "Intrinsic",
    "KernelLaw",
    "KernelSpec",
    "OpInputError",
    "Port",
    "OpSignature",
    "OpSpec",
    "Param",
    "UnknownOpError",
    "UnsupportedByBackend",
    "admit",
    "admit_kernel",
    "builtin_op_ids",
    "characterization_collisions",
    "evaluate",
    "evaluate_many",
    "evaluate_raw",
    "get",
    "kernel_op_ids",
    "known_op_ids",
    "laws",
    "register",
    "unregister",
]
