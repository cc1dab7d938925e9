"""Shapes and strided layouts of the tensor level, over symbolic sizes.

One set of functions decides every shape question three times: when the
Python API builds a graph (static dims: a mismatch is a `ShapeError` at once),
when the dialect verifies an op's result type, and when `lower-tensors` lowers
the graph (a question that depends on a dynamic dim becomes a `Check` the host
evaluates before any dispatch).

A `Layout` says where the elements of a tensor sit in the flat buffer that
holds them: element `(i0, ..., ik)` is at `offset + i0*s0 + ... + ik*sk`.
Views (transpose, basic indexing, broadcast_to, reshape where the strides allow
it) are functions from layouts to layouts, so a chain of views folds into one
layout: one index expression per load. A dimension of size 1 has stride 0 in
the canonical form (its index is always 0), so that equal layouts compare equal.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from vyre.dialects.symbolic import Sym, sym

__all__ = [
    "Check",
    "attention_shape",
    "Layout",
    "Shape",
    "ShapeError",
    "broadcast_layout",
    "broadcast_shapes",
    "contiguous_strides",
    "format_shape",
    "index_layout",
    "layer_norm_shape",
    "matmul_shape",
    "numel",
    "reduce_axis",
    "reshape_layout",
    "reshape_target",
    "template",
    "transpose_layout",
]

Shape = tuple[Sym, ...]


class ShapeError(ValueError):
    """Shapes that do not fit an op: names the op and the shapes."""


@dataclass(frozen=True)
class Check:
    """A condition on the dynamic dims that must hold (non-zero) before the
    graph runs, and the `ValueError` message when it does not: `message` with
    `{0}`, `{1}`, ... standing for the values of `args`."""

    cond: Sym
    message: str
    args: tuple[Sym, ...] = ()

    def render(self, values: Sequence[int | str]) -> str:
        return self.message.format(*values)


Checks = list[Check] | None


def require(cond: Sym, message: str, args: Sequence[Sym], checks: Checks) -> None:
    """`cond` must hold: a static failure raises `ShapeError` now, a dynamic
    condition is appended to `checks` (ignored when `checks` is None: the
    caller only wants the static answer)."""
    value = cond.value
    if value is not None:
        if value == 0:
            raise ShapeError(message.format(*(str(a) for a in args)))
        return
    if checks is not None:
        checks.append(Check(cond, message, tuple(args)))


def format_shape(shape: Sequence[Sym]) -> str:
    """`(n, 64)`, numpy's spelling (a 1-D shape `(5,)`)."""
    inner = ", ".join(str(d) for d in shape)
    return f"({inner},)" if len(shape) == 1 else f"({inner})"


def template(shapes: Sequence[Sequence[Sym]], args: list[Sym]) -> list[str]:
    """Each shape spelled with a `{k}` placeholder for each dim that is not a
    constant (its `Sym` appended to `args`), for a `Check` message."""
    out: list[str] = []
    for shape in shapes:
        parts: list[str] = []
        for dim in shape:
            if dim.value is not None:
                parts.append(str(dim.value))
            else:
                parts.append(f"{{{len(args)}}}")
                args.append(dim)
        inner = ", ".join(parts)
        out.append(f"({inner},)" if len(parts) == 1 else f"({inner})")
    return out


def numel(shape: Sequence[Sym]) -> Sym:
    total = sym(1)
    for dim in shape:
        total = total * dim
    return total


def contiguous_strides(shape: Sequence[Sym]) -> Shape:
    """Row-major strides (size-1 dims: 0, the canonical form)."""
    strides: list[Sym] = []
    step = sym(1)
    for dim in reversed(shape):
        strides.append(sym(0) if dim.value == 1 else step)
        step = step * dim
    return tuple(reversed(strides))


@dataclass(frozen=True)
class Layout:
    """Shape, strides and offset of a tensor in its buffer (elements)."""

    shape: Shape
    strides: Shape
    offset: Sym

    @staticmethod
    def contiguous(shape: Sequence[Sym], offset: Sym | int = 0) -> Layout:
        dims = tuple(shape)
        return Layout(dims, contiguous_strides(dims), sym(offset))

    def canonical(self) -> Layout:
        strides = tuple(sym(0) if d.value == 1 else s for d, s in zip(self.shape, self.strides))
        return Layout(self.shape, strides, self.offset)

    @property
    def is_contiguous(self) -> bool:
        """Row-major without gaps (any offset): provably, for the symbolic dims."""
        return self.strides == contiguous_strides(self.shape)

    @property
    def rank(self) -> int:
        return len(self.shape)


# ---------------------------------------------------------------------------
# Broadcasting
# ---------------------------------------------------------------------------


def _pick(a: Sym, b: Sym) -> Sym:
    """The broadcast of two dims that fit: `b` where `a` is 1, else `a`."""
    if a == b or b.value == 1:
        return a
    if a.value == 1:
        return b
    return a + a.eq(1) * (b - 1)


def broadcast_shapes(op: str, shapes: Sequence[Shape], checks: Checks = None) -> Shape:
    """numpy's broadcast of `shapes` (right-aligned; a dim fits a dim of the
    same size or of size 1)."""
    result: Shape = shapes[0] if shapes else ()
    for other in shapes[1:]:
        rank = max(len(result), len(other))
        a = (sym(1),) * (rank - len(result)) + result
        b = (sym(1),) * (rank - len(other)) + other
        args: list[Sym] = []
        first, second = template([result, other], args)
        message = f"{op}: shapes {first} and {second} do not broadcast"
        cond = sym(1)
        for x, y in zip(a, b):
            cond = cond.and_(x.eq(y).or_(x.eq(1)).or_(y.eq(1)))
        require(cond, message, args, checks)
        result = tuple(_pick(x, y) for x, y in zip(a, b))
    return result


def broadcast_layout(layout: Layout, shape: Shape, op: str, checks: Checks = None) -> Layout:
    """The view of `layout` broadcast to `shape` (new leading dims and dims of
    size 1 get stride 0); `ShapeError` naming both shapes when it does not fit."""
    if len(shape) < layout.rank:
        raise ShapeError(
            f"{op}: cannot broadcast shape {format_shape(layout.shape)} to"
            f" {format_shape(shape)} (fewer dims)"
        )
    lead = len(shape) - layout.rank
    args: list[Sym] = []
    first, second = template([layout.shape, shape], args)
    message = f"{op}: cannot broadcast shape {first} to {second}"
    cond = sym(1)
    strides: list[Sym] = [sym(0)] * lead
    for dim, stride, target in zip(layout.shape, layout.strides, shape[lead:]):
        if dim == target:
            strides.append(stride)
            continue
        cond = cond.and_(dim.eq(target).or_(dim.eq(1)))
        strides.append(stride * dim.ne(1))
    require(cond, message, args, checks)
    return Layout(tuple(shape), tuple(strides), layout.offset).canonical()


# ---------------------------------------------------------------------------
# Views
# ---------------------------------------------------------------------------


def transpose_layout(layout: Layout, axes: Sequence[int] | None, op: str = "vt.transpose") -> Layout:
    """The dims permuted (`axes[k]` is the source of dim k; None reverses)."""
    rank = layout.rank
    order = list(reversed(range(rank))) if axes is None else [int(a) for a in axes]
    normal = [a + rank if a < 0 else a for a in order]
    if sorted(normal) != list(range(rank)):
        raise ShapeError(f"{op}: axes {tuple(order)} are not a permutation of {rank} dims")
    return Layout(
        tuple(layout.shape[a] for a in normal),
        tuple(layout.strides[a] for a in normal),
        layout.offset,
    )


@dataclass(frozen=True)
class SliceItem:
    """`start:stop:step` of basic indexing (None: numpy's default)."""

    start: int | None
    stop: int | None
    step: int


IndexItem = int | SliceItem


def _slice_bounds(dim: Sym, item: SliceItem) -> tuple[Sym, Sym]:
    """(first index, length) of `item` over a dim of size `dim`, numpy's rules
    (negative indices count from the end, out-of-range bounds are clipped).
    The first index is exact whenever the length is not 0 (an empty slice
    reads nothing)."""
    step = item.step

    def bound(value: int | None, default: Sym, low: int, high: Sym) -> Sym:
        if value is None:
            return default
        if value < 0:
            return (dim + value).max(low)
        return sym(value).min(high)

    if step > 0:
        start = sym(0) if item.start is None else sym(item.start) if item.start >= 0 else (dim + item.start).max(0)
        stop = bound(item.stop, dim, 0, dim)
        length = ((stop - start + (step - 1)) // step).max(0)
    else:
        start = bound(item.start, dim - 1, -1, dim - 1)
        stop = bound(item.stop, sym(-1), -1, dim - 1)
        length = ((start - stop + (-step - 1)) // -step).max(0)
    return start, length


def index_layout(
    layout: Layout, items: Sequence[IndexItem], op: str = "vt.index", checks: Checks = None
) -> Layout:
    """Basic indexing: one item per leading dim (missing trailing dims are
    `:`); an int drops its dim (in range, negative from the end), a slice keeps
    it (steps, clipping)."""
    if len(items) > layout.rank:
        raise ShapeError(
            f"{op}: {len(items)} indices for a tensor of shape {format_shape(layout.shape)}"
        )
    shape: list[Sym] = []
    strides: list[Sym] = []
    offset = layout.offset
    full = list(items) + [SliceItem(None, None, 1)] * (layout.rank - len(items))
    for axis, (item, dim, stride) in enumerate(zip(full, layout.shape, layout.strides)):
        if isinstance(item, SliceItem):
            if item.step == 0:
                raise ShapeError(f"{op}: slice step cannot be zero")
            start, length = _slice_bounds(dim, item)
            offset = offset + start * stride
            shape.append(length)
            strides.append(stride * item.step)
            continue
        position = dim + item if item < 0 else sym(item)
        args: list[Sym] = []
        (spelled,) = template([layout.shape], args)
        require(
            position.le(-1).eq(0).and_(position.lt(dim)),
            f"{op}: index {item} is out of range for axis {axis} of shape {spelled}",
            args,
            checks,
        )
        offset = offset + position * stride
    return Layout(tuple(shape), tuple(strides), offset).canonical()


def reshape_target(
    shape: Shape, target: Sequence[Sym | None], op: str = "vt.reshape", checks: Checks = None
) -> Shape:
    """The shape of a reshape of `shape` to `target` (None: numpy's -1, the
    one dim inferred); the element counts must agree."""
    known = [d for d in target if d is not None]
    unknown = len(target) - len(known)
    if unknown > 1:
        raise ShapeError(f"{op}: at most one dim can be -1, got {len(target) - len(known)}")
    total = numel(shape)
    if unknown:
        rest = numel(known)
        args: list[Sym] = []
        (spelled,) = template([shape], args)
        require(
            rest.ne(0),
            f"{op}: cannot reshape shape {spelled} to a shape holding -1 beside a dim of size 0"
            " (the -1 dim is undefined)",
            args,
            checks,
        )
        inferred = total // rest
        resolved = tuple(inferred if d is None else d for d in target)
    else:
        resolved = tuple(d for d in target if d is not None)
    for dim in resolved:
        if dim.value is not None and dim.value < 0:
            raise ShapeError(f"{op}: negative dim {dim.value} in {format_shape(resolved)}")
    args: list[Sym] = []
    first, second = template([shape, resolved], args)
    require(
        numel(resolved).eq(total),
        f"{op}: cannot reshape shape {first} to {second} (element counts differ)",
        args,
        checks,
    )
    return resolved


def reshape_layout(layout: Layout, shape: Shape) -> Layout | None:
    """The view of `layout` as `shape` (same element count, row-major order),
    or None when the strides cannot express it (a copy is needed first).
    Contiguous layouts always can; other layouts when every dim is static
    (numpy's no-copy reshape)."""
    if layout.is_contiguous:
        return Layout.contiguous(shape, layout.offset)
    old = [d.value for d in layout.shape]
    old_strides = [s.value for s in layout.strides]
    new = [d.value for d in shape]
    if None in old or None in old_strides or None in new:
        return None
    strides = _nocopy_strides(
        [int(v) for v in old if v is not None],
        [int(v) for v in old_strides if v is not None],
        [int(v) for v in new if v is not None],
    )
    if strides is None:
        return None
    return Layout(shape, tuple(sym(s) for s in strides), layout.offset).canonical()


def _nocopy_strides(old: list[int], old_strides: list[int], new: list[int]) -> list[int] | None:
    """numpy's `_attempt_nocopy_reshape`: the strides of `new` over the same
    memory, or None (dims of size 1 are dropped first)."""
    if 0 in old or 0 in new:
        return [0] * len(new)
    dims = [(d, s) for d, s in zip(old, old_strides) if d != 1]
    od = [d for d, _ in dims]
    os_ = [s for _, s in dims]
    result = [0] * len(new)
    oi, oj, ni, nj = 0, 1, 0, 1
    while ni < len(new) and oi < len(od):
        np_, op_ = new[ni], od[oi]
        while np_ != op_:
            if np_ < op_:
                np_ *= new[nj]
                nj += 1
            else:
                op_ *= od[oj]
                oj += 1
        for ok in range(oi, oj - 1):
            if os_[ok] != od[ok + 1] * os_[ok + 1]:
                return None
        result[nj - 1] = os_[oj - 1]
        for nk in range(nj - 1, ni, -1):
            result[nk - 1] = result[nk] * new[nk]
        ni, nj = nj, nj + 1
        oi, oj = oj, oj + 1
    return result


# ---------------------------------------------------------------------------
# Reductions and matmul
# ---------------------------------------------------------------------------


def reduce_axis(shape: Shape, axis: int, op: str) -> tuple[Shape, int]:
    """(the shape without `axis`, the axis counted from 0)."""
    rank = len(shape)
    normal = axis + rank if axis < 0 else axis
    if not 0 <= normal < rank:
        raise ShapeError(f"{op}: axis {axis} is out of range for shape {format_shape(shape)}")
    return shape[:normal] + shape[normal + 1 :], normal


def matmul_shape(a: Shape, b: Shape, checks: Checks = None, op: str = "vt.matmul") -> Shape:
    """`(..., M, K) @ (..., K, N)`: `(..., M, N)` with the batch dims broadcast."""
    if len(a) < 2 or len(b) < 2:
        raise ShapeError(
            f"{op}: operands need at least 2 dims, got shapes {format_shape(a)} and {format_shape(b)}"
        )
    args: list[Sym] = []
    first, second = template([a, b], args)
    require(
        a[-1].eq(b[-2]),
        f"{op}: shapes {first} and {second} do not match (inner dims differ)",
        args,
        checks,
    )
    batch = broadcast_shapes(op, [a[:-2], b[:-2]], checks)
    return batch + (a[-2], b[-1])


# ---------------------------------------------------------------------------
# Composites
# ---------------------------------------------------------------------------


def layer_norm_shape(x: Shape, weight: Shape, bias: Shape, checks: Checks = None, op: str = "vt.layer_norm") -> Shape:
    """`layer_norm(x, weight, bias)` normalises the last axis of `x`; weight and
    bias broadcast to `x`'s shape, which is the result's."""
    if not x:
        raise ShapeError(f"{op}: the input needs at least one dim, got shape ()")
    for name, shape in (("weight", weight), ("bias", bias)):
        broadcast_layout(Layout.contiguous(shape), x, f"{op}'s {name}", checks)
    return x


def attention_shape(q: Shape, k: Shape, v: Shape, causal: bool, checks: Checks = None, op: str = "vt.attention") -> Shape:
    """q `(..., T, d)`, k `(..., S, d)`, v `(..., S, e)`: `(..., T, e)` with the
    batch dims broadcast; causal attention needs T == S."""
    for name, shape in (("q", q), ("k", k), ("v", v)):
        if len(shape) < 2:
            raise ShapeError(f"{op}: {name} needs at least 2 dims, got shape {format_shape(shape)}")
    args: list[Sym] = []
    qs, ks, vs = template([q, k, v], args)
    require(q[-1].eq(k[-1]), f"{op}: q {qs} and k {ks} differ in their last dim", args, checks)
    require(k[-2].eq(v[-2]), f"{op}: k {ks} and v {vs} differ in the number of keys", args, checks)
    if causal:
        require(q[-2].eq(k[-2]), f"{op}: causal attention needs as many queries as keys, got q {qs} and k {ks}", args, checks)
    batch = broadcast_shapes(op, [q[:-2], k[:-2], v[:-2]], checks)
    return batch + (q[-2], v[-1])
