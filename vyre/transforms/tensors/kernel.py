"""What a tensor value is while `lower-tensors` works, and how a kernel reads it.

A value is a `Rep`:

- `Leaf`: a buffer of the schedule (a graph input or a kernel's output) seen
  through a strided `Layout`; a chain of views over it is one layout, so a
  load is `buf[offset + i0*s0 + ... + ik*sk]`, one index expression;
- `Fused`: an elementwise op not written to memory yet, over operands that are
  `Rep`s of its own shape (broadcast already applied). A kernel that reads a
  `Fused` value computes it where it reads it, so a chain of views and
  elementwise ops is one kernel. A view of a `Fused` value is the view of each
  of its operands (views commute with elementwise ops).

`KernelBuilder` collects one kernel: its statements, the schedule buffers it
reads and writes (bound to kernel-local names), its workgroup buffers and the
symbolic values its `dims` uniform carries (a size that is a constant is a
literal instead); `Planned` is a built kernel with its grid and repeat count,
`Reduction` one reduction along an axis (what the kernels of
vyre.transforms.tensors.reduce and .exact_sum read). Index arithmetic is u32 and wraps, so a negative stride is
its two's complement: the host has checked that every index is in bounds.

Integer elements travel as u32 values inside a kernel (vyre's integer
operators take u32); I32 buffers are bitcast on load and store.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Generator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field

from vyre.dialects import tensor as t
from vyre.dialects import vyre as v
from vyre.dialects.symbolic import Sym, sym
from vyre.dialects.tables import Dispatch
from vyre.dialects.tensor_layout import Layout, numel
from vyre.ir import BufferDecl, DataType, Expr, Node, Program
from vyre.ir import Expr as E

__all__ = [
    "Fused",
    "KernelBuilder",
    "Leaf",
    "Planned",
    "Reduction",
    "Rep",
    "apply_view",
    "coalesce",
    "emit",
    "leaves",
    "rep_shape",
]

U32_MASK = 0xFFFF_FFFF


@dataclass(frozen=True)
class Leaf:
    """Buffer `buffer` of the schedule, read through `layout`."""

    buffer: str
    dtype: DataType
    layout: Layout


@dataclass(frozen=True)
class Fused:
    """An elementwise op computed where it is read."""

    op: t.ElementwiseOp
    """The graph op (its class decides the operation; a map's body is its function)."""
    operands: tuple[Rep, ...]
    dtype: DataType
    shape: tuple[Sym, ...]

    @property
    def size(self) -> int:
        """Ops in the tree (a bound on how much a kernel recomputes)."""
        return 1 + sum(o.size if isinstance(o, Fused) else 1 for o in self.operands)


Rep = Leaf | Fused


def rep_shape(rep: Rep) -> tuple[Sym, ...]:
    return rep.layout.shape if isinstance(rep, Leaf) else rep.shape


def apply_view(rep: Rep, view: Callable[[Layout], Layout]) -> Rep:
    """`view` (a function of layouts: transpose, index, broadcast) applied to
    `rep`: to a leaf's layout, or to each operand of a fused op."""
    if isinstance(rep, Leaf):
        return Leaf(rep.buffer, rep.dtype, view(rep.layout))
    shape = view(Layout.contiguous(rep.shape)).shape
    return Fused(rep.op, tuple(apply_view(o, view) for o in rep.operands), rep.dtype, shape)


def leaves(rep: Rep) -> list[Leaf]:
    if isinstance(rep, Leaf):
        return [rep]
    return [leaf for o in rep.operands for leaf in leaves(o)]


def _regroup(rep: Rep, groups: Sequence[Sequence[int]], shape: tuple[Sym, ...]) -> Rep:
    if isinstance(rep, Leaf):
        strides = tuple(rep.layout.strides[g[-1]] for g in groups)
        return Leaf(rep.buffer, rep.dtype, Layout(shape, strides, rep.layout.offset))
    operands = tuple(_regroup(o, groups, shape) for o in rep.operands)
    return Fused(rep.op, operands, rep.dtype, shape)


def coalesce(rep: Rep) -> Rep:
    """`rep` over fewer dims: dims of size 1 dropped, and neighbours merged
    where every leaf steps over them as one (`s[k] == s[k+1] * d[k+1]`), so an
    elementwise kernel over contiguous data computes one index, not one per dim."""
    shape = rep_shape(rep)
    layouts = [leaf.layout for leaf in leaves(rep)]
    kept = [k for k, d in enumerate(shape) if d.value != 1]
    groups: list[list[int]] = []
    for k in kept:
        if groups:
            last = groups[-1][-1]
            if all(lay.strides[last] == lay.strides[k] * shape[k] for lay in layouts):
                groups[-1].append(k)
                continue
        groups.append([k])
    new_shape = tuple(numel([shape[k] for k in g]) for g in groups)
    return _regroup(rep, groups, new_shape)


# ---------------------------------------------------------------------------
# The kernel builder
# ---------------------------------------------------------------------------


@dataclass
class KernelBuilder:
    """One kernel being written (see the module doc)."""

    name: str
    workgroup: int = 256
    body: list[Node] = field(default_factory=lambda: [])
    params: list[Sym] = field(default_factory=lambda: [])
    bindings: list[tuple[str, str]] = field(default_factory=lambda: [])
    """(kernel buffer, schedule buffer)."""
    accesses: list[tuple[str, Layout]] = field(default_factory=lambda: [])
    """(schedule buffer, layout) of every strided read, for the host's bounds checks."""
    _decls: list[BufferDecl] = field(default_factory=lambda: [])
    _by_schedule: dict[tuple[str, bool], str] = field(default_factory=lambda: {})
    _slots: dict[Sym, int] = field(default_factory=lambda: {})
    _names: itertools.count[int] = field(default_factory=lambda: itertools.count())

    # -- buffers and parameters ---------------------------------------------------

    def buffer(self, schedule: str, dtype: DataType, write: bool = False) -> str:
        """The kernel-local name of schedule buffer `schedule` (read only, or
        read_write when the kernel writes it)."""
        key = (schedule, write)
        found = self._by_schedule.get(key)
        if found is not None:
            return found
        local = f"{'out' if write else 'in'}{len(self._decls)}"
        binding = len([d for d in self._decls if d.access is not v.AccessKind.WORKGROUP])
        decl = BufferDecl.read_write(local, binding, dtype) if write else BufferDecl.read(local, binding, dtype)
        self._decls.append(decl)
        self._by_schedule[key] = local
        self.bindings.append((local, schedule))
        return local

    def workgroup_buffer(self, name: str, count: int, dtype: DataType = DataType.U32) -> str:
        self._decls.append(BufferDecl.workgroup(name, count, dtype))
        return name

    def param(self, value: Sym | int) -> Expr:
        """A size as a u32 expression: a literal, or a word of the `dims` uniform."""
        size = sym(value)
        constant = size.value
        if constant is not None:
            return E.u32(constant & U32_MASK)
        slot = self._slots.get(size)
        if slot is None:
            slot = len(self.params)
            self._slots[size] = slot
            self.params.append(size)
        return E.load("dims", E.u32(slot))

    def fresh(self, hint: str = "t") -> str:
        return f"_{hint}{next(self._names)}"

    @contextmanager
    def block(self) -> Generator[list[Node]]:
        """Statements emitted inside the `with` go to the list it gives (a
        loop's or an if's body), not to the enclosing body."""
        saved, inner = self.body, []
        self.body = inner
        try:
            yield inner
        finally:
            self.body = saved

    def emit(self, *nodes: Node) -> None:
        self.body.extend(nodes)

    def let(self, value: Expr, hint: str = "t") -> Expr:
        """`value` bound to a fresh local (a tree used twice is computed once)."""
        name = self.fresh(hint)
        self.body.append(Node.let(name, value))
        return E.var(name)

    def program(self) -> Program:
        decls = list(self._decls)
        if self.params:
            binding = len([d for d in decls if d.access is not v.AccessKind.WORKGROUP])
            decls.append(BufferDecl.uniform("dims", binding, DataType.U32, len(self.params)))
        return Program(decls, (self.workgroup, 1, 1), self.body, name=self.name)

    # -- element access -----------------------------------------------------------

    def index(self, layout: Layout, idx: Sequence[Expr]) -> Expr:
        """`offset + sum(idx[k] * stride[k])` in u32."""
        total: Expr | None = None if layout.offset.value == 0 else self.param(layout.offset)
        for position, stride in zip(idx, layout.strides):
            if stride.value == 0:
                continue
            term = position if stride.value == 1 else E.mul(position, self.param(stride))
            total = term if total is None else E.add(total, term)
        return E.u32(0) if total is None else total

    def load(self, leaf: Leaf, idx: Sequence[Expr]) -> Expr:
        """Element `idx` of `leaf` (an integer as u32)."""
        return self.load_at(leaf, self.index(leaf.layout, idx))

    def load_at(self, leaf: Leaf, at: Expr) -> Expr:
        """The element of `leaf` at buffer position `at` (an integer as u32),
        an element of the layout: the read is recorded for the host's bounds
        check of the whole layout."""
        local = self.buffer(leaf.buffer, leaf.dtype)
        self.accesses.append((leaf.buffer, leaf.layout))
        raw = E.load(local, at)
        return E.bitcast(DataType.U32, raw) if leaf.dtype is DataType.I32 else raw

    def store(self, local: str, dtype: DataType, at: Expr, value: Expr) -> Node:
        """Store `value` (an integer as u32) to element `at` of kernel buffer `local`."""
        stored = E.bitcast(DataType.I32, value) if dtype is DataType.I32 else value
        return Node.store(local, at, stored)

    def unflatten(self, flat: Expr, shape: Sequence[Sym]) -> list[Expr]:
        """The multi-index of row-major position `flat` in `shape`."""
        out: list[Expr] = [E.u32(0)] * len(shape)
        rest = flat
        for k in range(len(shape) - 1, -1, -1):
            dim = shape[k]
            if dim.value == 1:
                continue
            if k == 0 or all(d.value == 1 for d in shape[:k]):
                out[k] = rest
                break
            size = self.param(dim)
            out[k] = self.let(E.mod(rest, size), "i")
            rest = self.let(E.div(rest, size), "q")
        return out


@dataclass(frozen=True)
class Planned:
    """A kernel and how to dispatch it."""

    builder: KernelBuilder
    grid: Sym
    repeat: Sym = sym(1)


@dataclass(frozen=True)
class Reduction:
    """One reduction to lower: input `source` (shape with the axis), axis,
    output buffer and element types."""

    source: Rep
    shape: tuple[Sym, ...]
    axis: int
    dtype: DataType
    out_shape: tuple[Sym, ...]

    @property
    def length(self) -> Sym:
        return self.shape[self.axis]

    @property
    def outputs(self) -> Sym:
        total = sym(1)
        for d in self.out_shape:
            total = total * d
        return total


# ---------------------------------------------------------------------------
# Elementwise operations
# ---------------------------------------------------------------------------


def _signed_key(a: Expr) -> Expr:
    return E.bitxor(a, E.u32(0x8000_0000))


def _int_max(a: Expr, b: Expr, signed: bool, maximum: bool) -> Expr:
    x, y = (_signed_key(a), _signed_key(b)) if signed else (a, b)
    pick_a = E.gt(x, y) if maximum else E.lt(x, y)
    return E.select(pick_a, a, b)


ELEMENT_OPS: Dispatch[tuple[KernelBuilder, DataType], [Sequence[Expr]], Expr] = Dispatch(
    "tensor elementwise kernels", lambda: t.ELEMENTWISE_OPS
)
"""The scalar code of each elementwise tensor op: (builder, element type),
op, operand values -> the result value."""


def _float_or_int(float_op: Callable[[Expr, Expr], Expr], int_op: Callable[[Expr, Expr], Expr]):
    def handler(context: tuple[KernelBuilder, DataType], op: t.ElementwiseOp, args: Sequence[Expr]) -> Expr:
        return float_op(args[0], args[1]) if context[1].is_float else int_op(args[0], args[1])

    return handler


ELEMENT_OPS.add(t.AddOp, _float_or_int(E.fadd, E.add))
ELEMENT_OPS.add(t.SubOp, _float_or_int(E.fsub, E.sub))
ELEMENT_OPS.add(t.MulOp, _float_or_int(E.fmul, E.mul))
ELEMENT_OPS.add(t.DivOp, _float_or_int(E.fdiv, E.div))
ELEMENT_OPS.add(
    t.MaximumOp,
    _float_or_int(E.fmax, lambda a, b: _int_max(a, b, signed=False, maximum=True)),
)
ELEMENT_OPS.add(
    t.MinimumOp,
    _float_or_int(E.fmin, lambda a, b: _int_max(a, b, signed=False, maximum=False)),
)


@ELEMENT_OPS.on(t.NegOp)
def _neg(context: tuple[KernelBuilder, DataType], op: t.NegOp, args: Sequence[Expr]) -> Expr:
    return E.fneg(args[0]) if context[1].is_float else E.negate(args[0])


@ELEMENT_OPS.on(t.AbsOp)
def _abs(context: tuple[KernelBuilder, DataType], op: t.AbsOp, args: Sequence[Expr]) -> Expr:
    return E.fabs(args[0])


@ELEMENT_OPS.on(t.SqrtOp)
def _sqrt(context: tuple[KernelBuilder, DataType], op: t.SqrtOp, args: Sequence[Expr]) -> Expr:
    return E.fsqrt(args[0])


@ELEMENT_OPS.on(t.ExpOp)
def _exp(context: tuple[KernelBuilder, DataType], op: t.ExpOp, args: Sequence[Expr]) -> Expr:
    return E.fexp(args[0])


@ELEMENT_OPS.on(t.LogOp)
def _log(context: tuple[KernelBuilder, DataType], op: t.LogOp, args: Sequence[Expr]) -> Expr:
    return E.flog(args[0])


@ELEMENT_OPS.on(t.TanhOp)
def _tanh(context: tuple[KernelBuilder, DataType], op: t.TanhOp, args: Sequence[Expr]) -> Expr:
    return E.ftanh(args[0])


@ELEMENT_OPS.on(t.ErfOp)
def _erf(context: tuple[KernelBuilder, DataType], op: t.ErfOp, args: Sequence[Expr]) -> Expr:
    return E.ferf(args[0])


GELU_C = 0x3F35_04F3
"""f32(0.7071067811865476)."""


@ELEMENT_OPS.on(t.GeluOp)
def _gelu(context: tuple[KernelBuilder, DataType], op: t.GeluOp, args: Sequence[Expr]) -> Expr:
    x = args[0]
    inner = E.ferf(E.fmul(x, E.float_bits(DataType.F32, GELU_C)))
    return E.fmul(E.fmul(E.f32(0.5), x), E.fadd(E.f32(1.0), inner))


@ELEMENT_OPS.on(t.MapOp)
def _map(context: tuple[KernelBuilder, DataType], op: t.MapOp, args: Sequence[Expr]) -> Expr:
    from vyre.transforms.tensors.map_body import map_expr

    builder, _ = context
    types = [t.tensor_type(o).dtype for o in op.inputs]
    bound = [E.bitcast(DataType.I32, a) if ty is DataType.I32 else a for a, ty in zip(args, types)]
    names = [builder.let(a, "m") for a in bound]
    result = map_expr(op, names)
    dtype = t.tensor_type(op.res).dtype
    return E.bitcast(DataType.U32, result) if dtype is DataType.I32 else result


def emit(builder: KernelBuilder, rep: Rep, idx: Sequence[Expr], given: Mapping[Leaf, Expr] | None = None) -> Expr:
    """The value of `rep` at multi-index `idx` (integers as u32); a leaf in
    `given` is that value instead of a load at `idx` (a kernel that has read
    it already, or knows a cheaper index)."""
    if isinstance(rep, Leaf):
        value = None if given is None else given.get(rep)
        return builder.load(rep, idx) if value is None else value
    args = [emit(builder, o, idx, given) for o in rep.operands]
    if rep.dtype in (DataType.I32,) and isinstance(rep.op, (t.MaximumOp, t.MinimumOp)):
        return _int_max(args[0], args[1], signed=True, maximum=isinstance(rep.op, t.MaximumOp))
    operand_dtype = rep.operands[0].dtype if rep.operands else rep.dtype
    return ELEMENT_OPS((builder, operand_dtype), rep.op, args)
