"""`lower-tensors`: every `vtensor.graph` of a module becomes `vyre.kernel`s
and a `vtensor.schedule` (vyre.transforms.tensors.lower: views folded into the
index expressions of the loads, views and elementwise ops fused into the kernel
that reads them, the checks of dynamic dims and of every strided read left to
the host, which evaluates them before the first dispatch)."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from vyre.dialects import tensor as t
from vyre.transforms.tensors.lower import lower_graph
from vyre.transforms.tensors.schedule import schedule_ops

__all__ = ["LowerTensorsPass", "lower_module"]


def lower_module(module: ModuleOp) -> None:
    """In place: each graph replaced by its kernels and schedule."""
    for graph in [op for op in module.ops if isinstance(op, t.GraphOp)]:
        ops = schedule_ops(lower_graph(graph))
        Rewriter.insert_op(ops, InsertPoint.before(graph))
        graph.detach()
        graph.erase()


@dataclass(frozen=True)
class LowerTensorsPass(ModulePass):
    """Lower the tensor level to vyre kernels and their schedule."""

    name = "lower-tensors"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        lower_module(op)
