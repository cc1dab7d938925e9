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

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from vyre.ops import laws, registry
from vyre.ops.admission import AdmissionError, admit, characterization_collisions
from vyre.ops.registry import (
    UnknownOpError,
    builtin_op_ids,
    get,
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


def register(spec: OpSpec) -> OpSpec:
    """Admit `spec` through the admission gates and add it to the registry.

    Raises `vyre.AdmissionError` naming the failed gate."""
    return registry.add(admit(spec))


Evaluate = Callable[[str, Sequence[Any], str], "np.ndarray"]

evaluate: Evaluate
"""`evaluate(op_id, inputs, backend="wgpu")`: apply an op on a backend ("interp"
or "wgpu"), elementwise over equal-length numpy arrays (one per input).

Running an op needs the runtime, which sits above the library; the `vyre`
package installs `vyre.runtime.evaluate.evaluate` here when it is imported
(which any `import vyre.ops` does first)."""
