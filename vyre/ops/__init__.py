"""The standard operation library of vyre (python-api.md, "vyre.ops").

```python
from vyre import ops
ops.known_op_ids(); ops.get("primitive.math.add"); ops.evaluate(op_id, [a, b], backend="interp")
ops.register(OpSpec(...)); ops.unregister(op_id)
```

Every op is Category A (a composition of vyre IR that `inline-calls` expands
before lowering, so it costs nothing at run time) or Category C (a hardware
intrinsic). Built-in families are loaded on first use; importing this package
is cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from vyre.ops import laws
from vyre.ops.admission import AdmissionError, admit, characterization_collisions
from vyre.ops.registry import (
    UnknownOpError,
    builtin_op_ids,
    get,
    known_op_ids,
    register,
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

if TYPE_CHECKING:
    import numpy as np

__all__ = [
    "AdmissionError",
    "EquivalenceClass",
    "Intrinsic",
    "OpSignature",
    "OpSpec",
    "Param",
    "UnknownOpError",
    "UnsupportedByBackend",
    "admit",
    "builtin_op_ids",
    "characterization_collisions",
    "evaluate",
    "get",
    "known_op_ids",
    "laws",
    "register",
    "unregister",
]


def evaluate(op_id: str, inputs: Any, backend: str = "wgpu") -> np.ndarray:
    """Apply op `op_id` on a backend ("interp" or "wgpu").

    Scalar ops are applied elementwise over equal-length numpy arrays (one per
    input); the result is a numpy array of the output type."""
    from vyre.ops.evaluation import evaluate as run_op

    return run_op(op_id, inputs, backend)
