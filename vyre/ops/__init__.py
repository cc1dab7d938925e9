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

from collections.abc import Sequence
from typing import Any, Protocol

from vyre.ops import laws, registry
from vyre.ops.admission import AdmissionError, admit, characterization_collisions
from vyre.ops.kernel import KernelLaw, KernelSpec, OpInputError, Port
from vyre.ops.kernel_admission import admit_kernel
from vyre.ops.registry import (
    UnknownOpError,
    builtin_op_ids,
    get,
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


def register(spec: OpSpec | KernelSpec) -> OpSpec | KernelSpec:
    """Admit `spec` (a scalar `OpSpec` or a `KernelSpec`) through the admission
    gates and add it to the registry.

    Raises `vyre.AdmissionError` naming the failed gate."""
    if isinstance(spec, KernelSpec):
        return registry.add_kernel(admit_kernel(spec))
    return registry.add(admit(spec))


class Evaluate(Protocol):
    """`evaluate`'s signature; with `on_device=True` the result is a `vyre.DeviceBuffer`."""

    def __call__(
        self, op_id: str, inputs: Sequence[Any], backend: str = "wgpu", on_device: bool = False
    ) -> Any: ...


class EvaluateRaw(Protocol):
    def __call__(
        self, op_id: str, inputs: Sequence[Any], backend: str = "wgpu", on_device: bool = False
    ) -> dict[str, Any]: ...


class EvaluateMany(Protocol):
    def __call__(
        self, op_id: str, many: Sequence[Sequence[Any]], backend: str = "wgpu", on_device: bool = False
    ) -> list[Any]: ...

evaluate: Evaluate
"""`evaluate(op_id, inputs, backend="wgpu")`: apply an op on a backend ("interp"
or "wgpu"): a scalar op elementwise over equal-length numpy arrays (one per
input), a kernel op to its inputs (arrays, bytes, ints), giving its primary
output.

Running an op needs the runtime, which sits above the library; the `vyre`
package installs `vyre.runtime.evaluate.evaluate` here when it is imported
(which any `import vyre.ops` does first), and likewise the two below."""

evaluate_raw: EvaluateRaw
"""`evaluate_raw(op_id, inputs, backend="wgpu")`: every output of a kernel op,
by port name (oplib.md C7)."""

evaluate_many: EvaluateMany
"""`evaluate_many(op_id, [inputs, inputs, ...], backend="wgpu")`: a kernel op's
primary output for each of many independent inputs, in one submission."""
