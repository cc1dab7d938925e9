"""`lower_graph`: a `vtensor.graph` to its `Schedule` of vyre kernels.

The graph's ops are visited in order, each value becoming a `Rep`
(vyre.transforms.tensors.kernel): an input is a `Leaf` of its own buffer; a view
is the same data seen through another layout (no kernel); an elementwise op is
`Fused`, computed by whichever kernel reads it, so views and elementwise ops
between two materialised values are one kernel. A value is written to a
buffer (materialised) when a kernel must read it many times (a matmul
operand), when it is used more than once, when its expression grows past
`FUSE_LIMIT` ops, when a reshape cannot view it, and when it is a result;
one kernel of vyre.transforms.tensors.elementwise writes it (flat, or tiled
for a transpose).

Every question about a dynamic dim (do these shapes broadcast? is this index
in range? is the axis of a max empty?) and every strided read (inside its
buffer?) becomes a `Check` of the schedule, which the host evaluates before the
first dispatch.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from xdsl.ir import SSAValue

from vyre.dialects import tensor as t
from vyre.dialects.symbolic import Sym, sym
from vyre.dialects.tables import Dispatch as Handlers
from vyre.dialects.tensor_layout import (
    Check,
    Layout,
    attention_shape,
    broadcast_layout,
    broadcast_shapes,
    index_layout,
    layer_norm_shape,
    matmul_shape,
    numel,
    reduce_axis,
    reshape_layout,
    reshape_target,
    template,
    transpose_layout,
)
from vyre.ir import DataType, Expr
from vyre.ir import Expr as E
from vyre.transforms.tensors.attention import Attention, attention_kernel
from vyre.transforms.tensors.elementwise import elementwise_kernel
from vyre.transforms.tensors.kernel import Fused, KernelBuilder, Leaf, Rep, apply_view, rep_shape
from vyre.transforms.tensors.matmul import Matmul, dp4a_applies, matmul_kernels
from vyre.transforms.tensors.reduce import Planned, Reduction, reduction_kernels
from vyre.transforms.tensors.rows import layer_norm_kernel, softmax_kernel
from vyre.transforms.tensors.schedule import (
    Dispatch,
    Schedule,
    ScheduleBuffer,
    ScheduleInput,
    ScheduleResult,
)

__all__ = ["FUSE_LIMIT", "lower_graph"]

FUSE_LIMIT = 64
"""A fused expression of more ops than this is materialised first."""


def api_name(op: t.TensorOp) -> str:
    """How run-time errors name an op: its Python API function (`vt.add`)."""
    return "vt." + op.name.removeprefix("vtensor.")


@dataclass
class _Lowering:
    graph: t.GraphOp
    checks: list[Check] = field(default_factory=lambda: [])
    buffers: list[ScheduleBuffer] = field(default_factory=lambda: [])
    dispatches: list[Dispatch] = field(default_factory=lambda: [])
    reps: dict[SSAValue, Rep] = field(default_factory=lambda: {})
    lengths: dict[str, Sym] = field(default_factory=lambda: {})
    kernels: int = 0
    _seen_checks: set[tuple[Sym, str]] = field(default_factory=lambda: set())

    @property
    def name(self) -> str:
        return self.graph.sym_name.data

    def check(self, check: Check) -> None:
        key = (check.cond, check.message)
        if key not in self._seen_checks:
            self._seen_checks.add(key)
            self.checks.append(check)

    def new_buffer(self, dtype: DataType, count: Sym) -> str:
        name = f"#{len(self.buffers)}"
        self.buffers.append(ScheduleBuffer(name, dtype, count))
        self.lengths[name] = count
        return name

    def kernel_name(self, what: str) -> str:
        self.kernels += 1
        return f"{self.name}_{self.kernels - 1}_{what}"

    def add(self, planned: list[Planned]) -> None:
        for plan in planned:
            b = plan.builder
            program = b.program()
            self.dispatches.append(
                Dispatch(program, (plan.grid, sym(1), sym(1)), plan.repeat, tuple(b.params), tuple(b.bindings))
            )
            for buffer, layout in b.accesses:
                self._bounds(program.name, buffer, layout)

    def _bounds(self, kernel: str, buffer: str, layout: Layout) -> None:
        """Every element of `layout` inside `buffer` (dims are >= 1 where the
        tensor is not empty, which the condition tests first)."""
        low, high = layout.offset, layout.offset
        for dim, stride in zip(layout.shape, layout.strides):
            reach = (dim - 1) * stride
            value = stride.value
            if value is None:
                low, high = low + reach.min(0), high + reach.max(0)
            elif value < 0:
                low = low + reach
            else:
                high = high + reach
        length = self.lengths[buffer]
        inside = low.le(-1).eq(0).and_(high.lt(length))
        cond = numel(layout.shape).eq(0).or_(inside)
        message = f"kernel {kernel} would read buffer {buffer!r} at [{{0}}, {{1}}], outside its {{2}} elements"
        if cond.value == 0:
            raise ValueError(message.format(low, high, length))
        if cond.value is None:
            self.check(Check(cond, message, (low, high, length)))

    # -- values --------------------------------------------------------------------

    def materialize(self, rep: Rep) -> Leaf:
        """`rep` written to a new contiguous buffer by one elementwise kernel."""
        shape = rep_shape(rep)
        count = numel(shape)
        target = self.new_buffer(rep.dtype, count)
        name = self.kernel_name("map" if isinstance(rep, Fused) else "copy")
        self.add([elementwise_kernel(name, rep, target)])
        return Leaf(target, rep.dtype, Layout.contiguous(shape))

    def operand(self, value: SSAValue, fuse: bool = True) -> Rep:
        """The `Rep` of `value` for a consumer: a fused value that the consumer
        would recompute too often is materialised (once, for every use)."""
        rep = self.reps[value]
        if isinstance(rep, Fused) and (not fuse or value.has_more_than_one_use() or rep.size > FUSE_LIMIT):
            rep = self.materialize(rep)
            self.reps[value] = rep
        return rep

    def run(self) -> Schedule:
        inputs: list[ScheduleInput] = []
        for name, arg in self.graph.inputs:
            ty = t.tensor_type(arg)
            inputs.append(ScheduleInput(name, ty.dtype, ty.shape))
            self.lengths[name] = numel(ty.shape)
            self.reps[arg] = Leaf(name, ty.dtype, Layout.contiguous(ty.shape))
        results: list[ScheduleResult] = []
        for op in self.graph.entry.ops:
            if isinstance(op, t.OutputOp):
                results = [self.result(name, value) for name, value in op.outputs]
                break
            if not isinstance(op, t.TensorOp):
                raise ValueError(f"lower-tensors: `{op.name}` cannot be in a vtensor.graph")
            if not op.results[0].uses:
                continue  # a value nothing reads makes no kernel
            self.reps[op.results[0]] = LOWER(self, op)
        return Schedule(self.name, tuple(inputs), tuple(self.checks), tuple(self.buffers), tuple(self.dispatches), tuple(results))

    def result(self, name: str, value: SSAValue) -> ScheduleResult:
        ty = t.tensor_type(value)
        rep = self.reps[value]
        whole = Layout.contiguous(ty.shape)
        if not (isinstance(rep, Leaf) and rep.layout == whole and self.lengths[rep.buffer] == numel(ty.shape)):
            rep = self.materialize(rep)
            self.reps[value] = rep
        return ScheduleResult(name, rep.buffer, ty.dtype, ty.shape)


LOWER: Handlers[_Lowering, [], Rep] = Handlers("lower-tensors ops", lambda: t.VALUE_OPS)
"""The `Rep` of each tensor op's result (kernels added to the schedule on the way)."""


def _view(lowering: _Lowering, op: t.TensorOp, layout: Callable[[Layout], Layout]) -> Rep:
    """A view of the operand (one used elsewhere too is materialised first,
    so that it is computed once)."""
    return apply_view(lowering.operand(op.operands[0]), layout)


@LOWER.on(t.TransposeOp)
def _transpose(lowering: _Lowering, op: t.TransposeOp) -> Rep:
    axes = [a.data for a in op.axes.data]
    return _view(lowering, op, lambda layout: transpose_layout(layout, axes, api_name(op)))


@LOWER.on(t.IndexOp)
def _index(lowering: _Lowering, op: t.IndexOp) -> Rep:
    items = op.index_items
    checks: list[Check] = []
    index_layout(op.source_type.layout, items, api_name(op), checks)
    for check in checks:
        lowering.check(check)
    return _view(lowering, op, lambda layout: index_layout(layout, items, api_name(op)))


@LOWER.on(t.BroadcastToOp)
def _broadcast_to(lowering: _Lowering, op: t.BroadcastToOp) -> Rep:
    shape = t.tensor_type(op.res).shape
    checks: list[Check] = []
    broadcast_layout(op.source_type.layout, shape, api_name(op), checks)
    for check in checks:
        lowering.check(check)
    return _view(lowering, op, lambda layout: broadcast_layout(layout, shape, api_name(op)))


@LOWER.on(t.ReshapeOp)
def _reshape(lowering: _Lowering, op: t.ReshapeOp) -> Rep:
    shape = t.tensor_type(op.res).shape
    checks: list[Check] = []
    reshape_target(op.source_type.shape, shape, api_name(op), checks)
    for check in checks:
        lowering.check(check)
    rep = lowering.operand(op.source, fuse=False)
    assert isinstance(rep, Leaf)
    layout = reshape_layout(rep.layout, shape)
    if layout is None:
        rep = lowering.materialize(rep)
        layout = Layout.contiguous(shape, rep.layout.offset)
    return Leaf(rep.buffer, rep.dtype, layout)


@LOWER.on(t.CopyOp)
def _copy(lowering: _Lowering, op: t.CopyOp) -> Rep:
    return lowering.materialize(lowering.reps[op.source])


@LOWER.on(t.ElementwiseOp)
def _elementwise(lowering: _Lowering, op: t.ElementwiseOp) -> Rep:
    result = t.tensor_type(op.results[0])
    shapes = [t.tensor_type(o).shape for o in op.operands]
    checks: list[Check] = []
    broadcast_shapes(api_name(op), shapes, checks)
    for check in checks:
        lowering.check(check)
    operands: list[Rep] = []
    for value in op.operands:
        rep = lowering.operand(value)
        operands.append(apply_view(rep, lambda layout: broadcast_layout(layout, result.shape, api_name(op))))
    return Fused(op, tuple(operands), result.dtype, result.shape)


def _nonempty(lowering: _Lowering, op: t.TensorOp, shape: tuple[Sym, ...], axis: int, what: str = "") -> None:
    """Axis `axis` of `shape` holds an element (a `ValueError` now, or a check)."""
    args: list[Sym] = []
    (spelled,) = template([shape], args)
    message = f"{api_name(op)}: axis {axis} of {what}shape {spelled} is empty"
    if shape[axis].value == 0:
        raise ValueError(message.format(*args))
    if shape[axis].value is None:
        lowering.check(Check(shape[axis].ne(0), message, tuple(args)))


def _reduce(lowering: _Lowering, op: t.ReduceOp, kind: str) -> Rep:
    ty = op.source_type
    out_shape, axis = reduce_axis(ty.shape, op.axis.data, api_name(op))
    if kind in ("max", "min"):
        _nonempty(lowering, op, ty.shape, axis)
    source = lowering.operand(op.source)
    out = lowering.new_buffer(ty.dtype, numel(out_shape))
    reduction = Reduction(source, ty.shape, axis, ty.dtype, out_shape)
    name = lowering.kernel_name(kind if kind in ("max", "min") else f"sum_{kind}")
    lowering.add(reduction_kernels(name, kind, reduction, out, lowering.new_buffer))
    return Leaf(out, ty.dtype, Layout.contiguous(out_shape))


@LOWER.on(t.SumOp)
def _sum(lowering: _Lowering, op: t.SumOp) -> Rep:
    return _reduce(lowering, op, op.order.data)


@LOWER.on(t.MaxOp)
def _max(lowering: _Lowering, op: t.MaxOp) -> Rep:
    return _reduce(lowering, op, "max")


@LOWER.on(t.MinOp)
def _min(lowering: _Lowering, op: t.MinOp) -> Rep:
    return _reduce(lowering, op, "min")


@LOWER.on(t.MatmulOp)
def _matmul(lowering: _Lowering, op: t.MatmulOp) -> Rep:
    a_type, b_type = t.tensor_type(op.lhs), t.tensor_type(op.rhs)
    checks: list[Check] = []
    out_shape = matmul_shape(a_type.shape, b_type.shape, checks, api_name(op))
    for check in checks:
        lowering.check(check)
    batch = out_shape[:-2]
    m, k, n = a_type.shape[-2], a_type.shape[-1], b_type.shape[-1]
    a = apply_view(lowering.operand(op.lhs, fuse=False), lambda L: broadcast_layout(L, (*batch, m, k), api_name(op)))
    b = apply_view(lowering.operand(op.rhs, fuse=False), lambda L: broadcast_layout(L, (*batch, k, n), api_name(op)))
    out = lowering.new_buffer(DataType.F32, numel(out_shape))
    mm = Matmul(a, b, a_type.dtype, out_shape, k)
    name = lowering.kernel_name(f"matmul_{op.accumulate.data}")
    lowering.add(matmul_kernels(name, op.accumulate.data, mm, out, lowering.new_buffer))
    return Leaf(out, DataType.F32, Layout.contiguous(out_shape))


@LOWER.on(t.SoftmaxOp)
def _softmax(lowering: _Lowering, op: t.SoftmaxOp) -> Rep:
    ty = op.source_type
    axis = op.axis.data
    _nonempty(lowering, op, ty.shape, axis)
    source = lowering.operand(op.source)
    out = lowering.new_buffer(DataType.F32, numel(ty.shape))
    lowering.add([softmax_kernel(lowering.kernel_name("softmax"), source, ty.shape, axis, out)])
    return Leaf(out, DataType.F32, Layout.contiguous(ty.shape))


@LOWER.on(t.LayerNormOp)
def _layer_norm(lowering: _Lowering, op: t.LayerNormOp) -> Rep:
    shape = t.tensor_type(op.source).shape
    checks: list[Check] = []
    layer_norm_shape(shape, t.tensor_type(op.weight).shape, t.tensor_type(op.bias).shape, checks, api_name(op))
    for check in checks:
        lowering.check(check)
    x = lowering.operand(op.source)
    weight, bias = (
        apply_view(lowering.operand(value), lambda layout: broadcast_layout(layout, shape, api_name(op)))
        for value in (op.weight, op.bias)
    )
    out = lowering.new_buffer(DataType.F32, numel(shape))
    name = lowering.kernel_name("layer_norm")
    lowering.add([layer_norm_kernel(name, x, weight, bias, shape, op.eps.data, out)])
    return Leaf(out, DataType.F32, Layout.contiguous(shape))


@LOWER.on(t.AttentionOp)
def _attention(lowering: _Lowering, op: t.AttentionOp) -> Rep:
    q_shape, k_shape, v_shape = (t.tensor_type(o).shape for o in (op.query, op.key, op.value))
    checks: list[Check] = []
    out_shape = attention_shape(q_shape, k_shape, v_shape, op.is_causal, checks, api_name(op))
    for check in checks:
        lowering.check(check)
    _nonempty(lowering, op, k_shape, len(k_shape) - 2, "k's ")
    batch = out_shape[:-2]
    queries, depth, keys, columns = q_shape[-2], q_shape[-1], k_shape[-2], v_shape[-1]

    def operand(value: SSAValue, shape: tuple[Sym, ...]) -> Rep:
        rep = lowering.operand(value, fuse=False)
        return apply_view(rep, lambda layout: broadcast_layout(layout, (*batch, *shape), api_name(op)))

    att = Attention(
        operand(op.query, (queries, depth)),
        operand(op.key, (keys, depth)),
        operand(op.value, (keys, columns)),
        batch,
        (queries, keys, depth, columns),
        op.is_causal,
    )
    out = lowering.new_buffer(DataType.F32, numel(out_shape))
    scores_shape = (*batch, queries, keys)
    if dp4a_applies(scores_shape, depth) and dp4a_applies(tuple(out_shape), keys):
        _attention_composed(lowering, att, t.tensor_type(op.query).dtype, out)
        return Leaf(out, DataType.F32, Layout.contiguous(out_shape))
    name = lowering.kernel_name("attention")
    lowering.add([attention_kernel(name, att, out, lowering.new_buffer)])
    return Leaf(out, DataType.F32, Layout.contiguous(out_shape))


def _attention_composed(lowering: _Lowering, att: Attention, dtype: DataType, out: str) -> None:
    """Attention as its definition, op by op: the scores matmul and the values
    matmul on 8-bit dot products (vyre.transforms.tensors.matmul_dp4a), the
    scale and the causal mask applied where the softmax kernel reads the
    scores. The same operations as the one-kernel form (attention.py), so
    the same bits; chosen when both matmuls fit the dp4a kernels."""
    queries, keys, depth = att.queries, att.keys, att.depth
    rank = len(att.batch) + 2
    scores_shape = (*att.batch, queries, keys)
    key_t = apply_view(att.k, lambda layout: transpose_layout(layout, [*range(rank - 2), rank - 1, rank - 2]))
    scores = lowering.new_buffer(DataType.F32, numel(scores_shape))
    mm = Matmul(att.q, key_t, dtype, scores_shape, depth, "outputs" if att.causal else None)
    lowering.add(matmul_kernels(lowering.kernel_name("attention_scores"), "exact", mm, scores, lowering.new_buffer))

    def scale_and_mask(b: KernelBuilder, score: Expr, index: list[Expr]) -> Expr:
        scale = E.fdiv(E.f32(1.0), E.fsqrt(E.cast(DataType.F32, b.param(depth))))
        scaled = E.fmul(score, scale)
        if not att.causal:
            return scaled
        return E.select(E.gt(index[-1], index[-2]), E.float_bits(DataType.F32, 0xFF80_0000), scaled)

    probs = lowering.new_buffer(DataType.F32, numel(scores_shape))
    source = Leaf(scores, DataType.F32, Layout.contiguous(scores_shape))
    name = lowering.kernel_name("attention_softmax")
    lowering.add([softmax_kernel(name, source, scores_shape, rank - 1, probs, scale_and_mask)])
    probs_leaf = Leaf(probs, DataType.F32, Layout.contiguous(scores_shape))
    values = Matmul(probs_leaf, att.v, DataType.F32, (*att.batch, queries, att.columns), keys, "inner" if att.causal else None)
    lowering.add(matmul_kernels(lowering.kernel_name("attention_values"), "exact", values, out, lowering.new_buffer))


def lower_graph(graph: t.GraphOp) -> Schedule:
    """The schedule of `graph` (see the module doc); `ValueError` for a graph
    whose shapes cannot fit whatever the dims are."""
    return _Lowering(graph).run()
