"""The op functions of `vyre.tensor`: each checks its operands (a `ValueError`
naming the op and the shapes or types that do not fit), computes the result
type with the dialect's shape rules and appends the op to the graph."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from xdsl.dialects.builtin import IntAttr, StringAttr
from xdsl.ir import Block, Region

from vyre.dialects import tensor as t
from vyre.dialects.tensor_layout import (
    attention_shape,
    broadcast_layout,
    broadcast_shapes,
    layer_norm_shape,
    matmul_shape,
    reduce_axis,
    reshape_layout,
    reshape_target,
    transpose_layout,
)
from vyre.ir import BufferDecl, DataType, Expr, Node, Param, Program, emit_expr
from vyre.ir import Expr as E
from vyre.tensor.graph import Dim, Graph, Tensor, dims
from vyre.validate import validate

__all__ = [
    "abs",
    "add",
    "attention",
    "broadcast_to",
    "div",
    "erf",
    "exp",
    "gelu",
    "index",
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
    "softmax",
    "sqrt",
    "sub",
    "sum",
    "tanh",
    "transpose",
]


def _graph(what: str, *values: object) -> Graph:
    if not values:
        raise ValueError(f"vt.{what} needs at least one tensor")
    first = values[0]
    if not isinstance(first, Tensor):
        raise TypeError(f"vt.{what} expects vt.Tensor values, got {type(first).__name__}")
    graph = first.graph
    for value in values:
        graph.own(value, what)
    return graph


# -- views ---------------------------------------------------------------------------


def transpose(x: Tensor, axes: Sequence[int] | None = None) -> Tensor:
    """A view with the dims permuted (`axes[k]` is the source of dim k; None
    reverses them), numpy's `transpose`."""
    graph = _graph("transpose", x)
    order = list(reversed(range(x.ndim))) if axes is None else [int(a) for a in axes]
    transpose_layout(x.type.layout, order, "vt.transpose")
    normal = [a + x.ndim if a < 0 else a for a in order]
    return graph.add(t.TransposeOp.make(x.value, normal))


def index(x: Tensor, key: object) -> Tensor:
    """numpy's basic indexing (`x[2, 1:9:2, ::-1]`, `...`): a view."""
    return _graph("index", x).index(x, key)


def broadcast_to(x: Tensor, shape: Sequence[Dim]) -> Tensor:
    """A view of `x` with numpy's broadcasting to `shape` (stride 0)."""
    graph = _graph("broadcast_to", x)
    target = dims(shape, "vt.broadcast_to's shape")
    broadcast_layout(x.type.layout, target, "vt.broadcast_to")
    return graph.add(t.BroadcastToOp.make(x.value, target))


def reshape(x: Tensor, shape: Sequence[Dim]) -> Tensor:
    """`x` with another shape in row-major order (one dim may be -1): a view
    where the strides allow it, else a copy and a view of the copy."""
    graph = _graph("reshape", x)
    wanted = [shape] if isinstance(shape, (int, str)) else list(shape)
    target = [None if d == -1 else dims([d], "vt.reshape's shape")[0] for d in wanted]
    resolved = reshape_target(x.type.shape, target, "vt.reshape")
    source = x
    if reshape_layout(x.type.layout, resolved) is None:
        copy = t.CopyOp.create(
            operands=[x.value], result_types=[t.TensorType.contiguous(x.dtype, x.type.shape)]
        )
        source = graph.add(copy)
    layout = reshape_layout(source.type.layout, resolved)
    assert layout is not None
    op = t.ReshapeOp.create(operands=[source.value], result_types=[t.TensorType.make(x.dtype, layout)])
    return graph.add(op)


# -- elementwise ---------------------------------------------------------------------


def _elementwise(cls: type[t.ElementwiseOp], *operands: Tensor) -> Tensor:
    return _graph(cls.SHORT, *operands).elementwise(cls, *operands)


def add(a: Tensor, b: Tensor) -> Tensor:
    """`a + b` elementwise with broadcasting (floats: strict `fadd`; integers wrap)."""
    return _elementwise(t.AddOp, a, b)


def sub(a: Tensor, b: Tensor) -> Tensor:
    """`a - b` elementwise with broadcasting."""
    return _elementwise(t.SubOp, a, b)


def mul(a: Tensor, b: Tensor) -> Tensor:
    """`a * b` elementwise with broadcasting."""
    return _elementwise(t.MulOp, a, b)


def div(a: Tensor, b: Tensor) -> Tensor:
    """`a / b` elementwise with broadcasting (floats only)."""
    return _elementwise(t.DivOp, a, b)


def maximum(a: Tensor, b: Tensor) -> Tensor:
    """The larger element (floats: maximumNumber, a NaN loses to a number;
    I32 signed)."""
    return _elementwise(t.MaximumOp, a, b)


def minimum(a: Tensor, b: Tensor) -> Tensor:
    """The smaller element (floats: minimumNumber; I32 signed)."""
    return _elementwise(t.MinimumOp, a, b)


def neg(x: Tensor) -> Tensor:
    """`-x` (floats: the sign bit flipped; integers wrap)."""
    return _elementwise(t.NegOp, x)


def abs(x: Tensor) -> Tensor:  # noqa: A001 - the contract's name
    """`|x|` (floats only: the sign bit cleared)."""
    return _elementwise(t.AbsOp, x)


def sqrt(x: Tensor) -> Tensor:
    """The correctly rounded square root (floats only)."""
    return _elementwise(t.SqrtOp, x)


def exp(x: Tensor) -> Tensor:
    """e**x, correctly rounded in the element type (floats only)."""
    return _elementwise(t.ExpOp, x)


def log(x: Tensor) -> Tensor:
    """The natural logarithm, correctly rounded in the element type (floats only)."""
    return _elementwise(t.LogOp, x)


def tanh(x: Tensor) -> Tensor:
    """The hyperbolic tangent, correctly rounded in the element type (floats only)."""
    return _elementwise(t.TanhOp, x)


def erf(x: Tensor) -> Tensor:
    """The error function, correctly rounded in the element type (floats only)."""
    return _elementwise(t.ErfOp, x)


def gelu(x: Tensor) -> Tensor:
    """`(0.5 * x) * (1 + erf(x * c))` with `c = f32(0.7071067811865476)`, each
    operation strict (F32): elementwise, so it fuses into the kernel that reads it."""
    _graph("gelu", x)
    t.composite_dtype("vt.gelu", [x.dtype])
    return _elementwise(t.GeluOp, x)


def _check_map_function(fn: Callable[..., Expr], types: Sequence[DataType], result: DataType) -> None:
    """`fn` is valid vyre over elements of `types` (validated as a tiny kernel)."""
    loads = [E.load(f"in{k}", E.u32(0)) for k in range(len(types))]
    names = [f"_x{k}" for k in range(len(types))]
    body = [Node.let(n, value) for n, value in zip(names, loads)]
    body.append(Node.store("out", E.u32(0), fn(*(E.var(n) for n in names))))
    buffers = [BufferDecl.read(f"in{k}", k, ty) for k, ty in enumerate(types)]
    buffers.append(BufferDecl.read_write("out", len(types), result))
    problems = validate(Program(buffers, (1, 1, 1), body, name="map_function"))
    if problems:
        messages = "; ".join(d.message for d in problems)
        raise ValueError(f"vt.map: the function is not valid vyre over {[t.value for t in types]}: {messages}")


def map(fn: Callable[..., Expr], *operands: Tensor) -> Tensor:  # noqa: A001 - the contract's name
    """`fn` applied per element, with broadcasting: `fn` takes one `Expr` per
    operand (its element, of the operand's type) and returns an `Expr`, whose
    type is the result's element type (F32, F16, BF16, U32 or I32)."""
    graph = _graph("map", *operands)
    if not callable(fn):
        raise TypeError(f"vt.map's function must be callable, got {fn!r}")
    types = [o.dtype for o in operands]
    tree = fn(*(Param(k, ty) for k, ty in enumerate(types)))
    if not isinstance(tree, Expr):  # pyright: ignore[reportUnnecessaryIsInstance]
        raise TypeError(f"vt.map's function must return a vyre Expr, got {type(tree).__name__}")
    block = Block(arg_types=[ty.attr for ty in types])
    ops, value = emit_expr(tree, block.args)
    block.add_ops(ops)
    block.add_op(t.YieldOp(value))
    result_type: Any = value.type
    if not isinstance(result_type, t.v.DataTypeAttr) or DataType.of(result_type) not in t.ELEMENT_TYPES:
        raise ValueError(f"vt.map: the function yields {result_type}, not F32, F16, BF16, U32 or I32")
    dtype = DataType.of(result_type)
    _check_map_function(fn, types, dtype)
    shape = broadcast_shapes("vt.map", [o.type.shape for o in operands])
    op = t.MapOp.create(
        operands=[o.value for o in operands],
        result_types=[t.TensorType.contiguous(dtype, shape)],
        regions=[Region(block)],
    )
    return graph.add(op)


# -- reductions and matmul -----------------------------------------------------------


def _reduce(cls: type[t.ReduceOp], x: Tensor, axis: int, order: str | None) -> Tensor:
    what = cls.SHORT
    graph = _graph(what, x)
    name = f"vt.{what}"
    shape, normal = reduce_axis(x.type.shape, int(axis), name)
    if order is not None and order not in t.SUM_ORDERS:
        raise ValueError(f"vt.sum: order is one of {', '.join(t.SUM_ORDERS)}, got {order!r}")
    if order is None and x.type.shape[normal].value == 0:
        raise ValueError(f"{name}: axis {normal} of shape {x.shape} is empty")
    props: dict[str, Any] = {"axis": IntAttr(normal)}
    if order is not None:
        props["order"] = StringAttr(order)
    op = cls.create(operands=[x.value], result_types=[t.TensorType.contiguous(x.dtype, shape)], properties=props)
    return graph.add(op)


def sum(x: Tensor, axis: int, order: str = "exact") -> Tensor:  # noqa: A001 - the contract's name
    """The sum along `axis` (removed): `exact` (the exact sum rounded once,
    order-free), `sequential` (left to right) or `tree` (the canonical tree);
    integers wrap (every order is the same)."""
    return _reduce(t.SumOp, x, axis, order)


def max(x: Tensor, axis: int) -> Tensor:  # noqa: A001 - the contract's name
    """The largest element along `axis` (maximumNumber; an empty axis is a ValueError)."""
    return _reduce(t.MaxOp, x, axis, None)


def min(x: Tensor, axis: int) -> Tensor:  # noqa: A001 - the contract's name
    """The smallest element along `axis` (minimumNumber; an empty axis is a ValueError)."""
    return _reduce(t.MinOp, x, axis, None)


def matmul(a: Tensor, b: Tensor, accumulate: str = "exact") -> Tensor:
    """`(..., M, K) @ (..., K, N)` with broadcast batch dims, F32/F16/BF16
    operands of one type, an F32 result: `exact` (every product exact, the sum
    rounded once) or `sequential` (fma in the order k = 0 .. K-1)."""
    graph = _graph("matmul", a, b)
    if accumulate not in t.ACCUMULATE_MODES:
        raise ValueError(f"vt.matmul: accumulate is exact or sequential, got {accumulate!r}")
    t.elementwise_dtype("vt.matmul", [a.dtype, b.dtype], integers=False)
    shape = matmul_shape(a.type.shape, b.type.shape, None, "vt.matmul")
    op = t.MatmulOp.create(
        operands=[a.value, b.value],
        result_types=[t.TensorType.contiguous(DataType.F32, shape)],
        properties={"accumulate": StringAttr(accumulate)},
    )
    return graph.add(op)


# -- composites (each a sequence of strict operations, F32: docs/tensors.md) --------


def _nonempty_axis(x: Tensor, axis: int, name: str) -> int:
    """`axis` counted from 0; a static empty axis is a `ValueError`."""
    _, normal = reduce_axis(x.type.shape, int(axis), name)
    if x.type.shape[normal].value == 0:
        raise ValueError(f"{name}: axis {normal} of shape {x.shape} is empty")
    return normal


def softmax(x: Tensor, axis: int = -1) -> Tensor:
    """`m = max(x, axis)`, `e = exp(x - m)`, `s = sum(e, axis, "exact")`,
    `e / s`, each operation strict (F32; an empty axis is a ValueError)."""
    graph = _graph("softmax", x)
    t.composite_dtype("vt.softmax", [x.dtype])
    normal = _nonempty_axis(x, axis, "vt.softmax")
    op = t.SoftmaxOp.create(
        operands=[x.value],
        result_types=[t.TensorType.contiguous(x.dtype, x.type.shape)],
        properties={"axis": IntAttr(normal)},
    )
    return graph.add(op)


def _f32_bits(value: object, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{what} must be a number, got {value!r}")
    return int(np.array([value], dtype=np.float32).view(np.uint32)[0])


def layer_norm(x: Tensor, weight: Tensor, bias: Tensor, eps: float = 1e-5) -> Tensor:
    """The last axis (length N) normalised, F32: `mu = sum(x) / f32(N)`,
    `d = x - mu`, `v = sum(d * d) / f32(N)` (exact sums),
    `r = 1 / sqrt(v + eps)` (eps rounded to F32), `(d * r) * weight + bias`,
    weight and bias broadcast to x's shape."""
    graph = _graph("layer_norm", x, weight, bias)
    t.composite_dtype("vt.layer_norm", [x.dtype, weight.dtype, bias.dtype])
    shape = layer_norm_shape(x.type.shape, weight.type.shape, bias.type.shape, None, "vt.layer_norm")
    with np.errstate(over="ignore"):
        bits = _f32_bits(eps, "vt.layer_norm's eps")
    op = t.LayerNormOp.create(
        operands=[x.value, weight.value, bias.value],
        result_types=[t.TensorType.contiguous(DataType.F32, shape)],
        properties={"eps": IntAttr(bits)},
    )
    return graph.add(op)


def attention(q: Tensor, k: Tensor, v: Tensor, causal: bool = False) -> Tensor:
    """Scaled dot-product attention, F32: q `(..., T, d)`, k `(..., S, d)`,
    v `(..., S, e)` (batch dims broadcast): `s = matmul(q, kT, "exact") * c`
    with `c = 1 / sqrt(f32(d))`; causal (T == S): `s[..., i, j] = -inf` for
    `j > i`; `matmul(softmax(s, -1), v, "exact")`."""
    graph = _graph("attention", q, k, v)
    if not isinstance(causal, bool):  # pyright: ignore[reportUnnecessaryIsInstance]
        raise TypeError(f"vt.attention's causal must be True or False, got {causal!r}")
    t.composite_dtype("vt.attention", [q.dtype, k.dtype, v.dtype])
    shape = attention_shape(q.type.shape, k.type.shape, v.type.shape, causal, None, "vt.attention")
    if k.type.shape[-2].value == 0:
        raise ValueError(f"vt.attention: k of shape {k.shape} holds no keys (softmax over an empty axis)")
    op = t.AttentionOp.create(
        operands=[q.value, k.value, v.value],
        result_types=[t.TensorType.contiguous(DataType.F32, shape)],
        properties={"causal": IntAttr(int(causal))},
    )
    return graph.add(op)
