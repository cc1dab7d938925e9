"""`vyre.tensor`: tensor programs, a level above kernels (docs/tensors.md).

```python
from vyre import tensor as vt
from vyre.ir import DataType

g = vt.Graph("mlp")
x = g.input("x", DataType.F32, ("n", 64))    # a str dimension is dynamic
w = g.input("w", DataType.F32, (64, 32))
g.output("y", vt.matmul(x, w))                # accumulate="exact" is the default
out = vt.run(g, {"x": X, "w": W}, backend="wgpu")   # or "interp"
vt.kernels(g)                                 # the vyre Programs it lowers to
print(g)                                      # the vtensor IR
```

A graph is `vtensor` IR (vyre.dialects.tensor); `vt.run` lowers it with
`lower-tensors` (vyre.transforms.tensors) and runs the schedule
(vyre.tensor.runner). Besides views, elementwise ops (the correctly rounded
`exp`, `log`, `tanh`, `erf` among them), reductions and matmul, the composites
`softmax`, `layer_norm`, `gelu` and `attention` are defined as exact sequences
of strict operations (docs/tensors.md) and lowered to one kernel each.
"""

from vyre.tensor.graph import Dim, Graph, Tensor
from vyre.tensor.ops import (
    abs,
    add,
    attention,
    broadcast_to,
    div,
    erf,
    exp,
    gelu,
    index,
    layer_norm,
    log,
    map,
    matmul,
    max,
    maximum,
    min,
    minimum,
    mul,
    neg,
    reshape,
    softmax,
    sqrt,
    sub,
    sum,
    tanh,
    transpose,
)
from vyre.tensor.runner import kernels, run, run_schedule, schedule_of

__all__ = [
    "Dim",
    "Graph",
    "Tensor",
    "abs",
    "add",
    "attention",
    "broadcast_to",
    "div",
    "erf",
    "exp",
    "gelu",
    "index",
    "kernels",
    "layer_norm",
    "log",
    "map",
    "matmul",
    "max",
    "maximum",
    "min",
    "minimum",
    "mul",
    "neg",
    "reshape",
    "run",
    "run_schedule",
    "schedule_of",
    "softmax",
    "sqrt",
    "sub",
    "sum",
    "tanh",
    "transpose",
]
