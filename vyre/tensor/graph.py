"""`vt.Graph` and `vt.Tensor`: a tensor program built as `vtensor` IR.

A `Graph` holds one `vtensor.graph` op in its own module; `input` adds a block
argument, every op function (vyre.tensor.ops) appends an op before the
`vtensor.output` that ends the body, and `output` names a result. A `Tensor` is
one SSA value of that graph, with its `.shape` and `.dtype`. Shapes are
checked as the graph is built, by the same functions the dialect's verifiers
and `lower-tensors` use: a mismatch of static dims is a `ValueError` naming the
op and both shapes at once; one that depends on a dynamic dim is checked by
`vt.run` before anything runs.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Sequence
from typing import Any, cast

from xdsl.dialects.builtin import ArrayAttr, ModuleOp, StringAttr
from xdsl.ir import Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from vyre.dialects import tensor as t
from vyre.dialects.symbolic import Sym, sym
from vyre.dialects.tensor_layout import IndexItem, SliceItem, broadcast_shapes, index_layout
from vyre.ir import DataType
from vyre.text import print_module

__all__ = ["Dim", "Graph", "Tensor"]

Dim = int | str
"""A dimension: an int, or the name of a dynamic dimension."""

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _name(what: str, name: object) -> str:
    if not isinstance(name, str) or not _IDENTIFIER.fullmatch(name):
        raise ValueError(f"{what} must be an identifier (letters, digits, _), got {name!r}")
    return name


def dims(shape: object, what: str) -> tuple[Sym, ...]:
    """A user shape (ints and dimension names) as `Sym`s."""
    if isinstance(shape, (int, str)):
        shape = (shape,)
    if not isinstance(shape, Sequence):
        raise TypeError(f"{what} must be a tuple of ints and dimension names, got {shape!r}")
    out: list[Sym] = []
    for dim in cast(Sequence[object], shape):
        if isinstance(dim, str):
            out.append(sym(_name(f"{what}: a dynamic dimension", dim)))
            continue
        try:
            value = operator.index(cast(Any, dim))
        except TypeError:
            raise TypeError(f"{what} must hold ints and dimension names, got {dim!r}") from None
        if value < 0:
            raise ValueError(f"{what} cannot hold the negative dim {value}")
        out.append(sym(value))
    return tuple(out)


def user_dim(dim: Sym) -> Dim:
    value = dim.value
    if value is not None:
        return value
    return dim.plain_name or str(dim)


class Graph:
    """A tensor program (see the module doc). `name` is an identifier."""

    def __init__(self, name: str = "graph"):
        self.name = _name("a graph name", name)
        self.op = t.GraphOp(self.name, [])
        self.op.entry.add_op(t.OutputOp([]))
        self.module = ModuleOp([self.op])
        self.version = 0
        """Bumped by every change (the lowered schedule is cached per version)."""

    def input(self, name: str, dtype: DataType, shape: Sequence[Dim]) -> Tensor:
        """A new input: `shape` holds ints and names of dynamic dims (bound from
        the argument's shape when the graph runs)."""
        _name("an input name", name)
        if name in self.input_names:
            raise ValueError(f"graph {self.name!r} already has an input {name!r}")
        if not isinstance(dtype, DataType) or dtype not in t.ELEMENT_TYPES:  # pyright: ignore[reportUnnecessaryIsInstance]
            raise ValueError(f"input {name!r}: the element type is F32, F16, BF16, U32 or I32, got {dtype!r}")
        ty = t.TensorType.contiguous(dtype, dims(shape, f"the shape of input {name!r}"))
        block = self.op.entry
        arg = block.insert_arg(ty, len(block.args))
        names = [*self.input_names, name]
        self.op.properties["input_names"] = ArrayAttr([StringAttr(n) for n in names])
        self.version += 1
        return Tensor(self, arg)

    @property
    def input_names(self) -> tuple[str, ...]:
        return tuple(n.data for n in self.op.input_names.data)

    def output(self, name: str, value: Tensor) -> None:
        """Name `value` a result of the graph."""
        _name("an output name", name)
        self.own(value, "output")
        out = self.op.output
        assert out is not None
        outputs = [(n, v) for n, v in out.outputs if n != name]
        replacement = t.OutputOp([*outputs, (name, value.value)])
        Rewriter.replace_op(out, replacement)
        self.version += 1

    def add(self, op: Operation) -> Tensor:
        """Append `op` (verified) before the output and return its result."""
        out = self.op.output
        assert out is not None
        Rewriter.insert_op(op, InsertPoint.before(out))
        self.version += 1
        return Tensor(self, op.results[0])

    def elementwise(self, cls: type[t.ElementwiseOp], *operands: Tensor) -> Tensor:
        """An elementwise op over `operands` (numpy broadcasting): the element
        types must agree, and be floats unless the op takes integers."""
        name = f"vt.{cls.SHORT}"
        for operand in operands:
            self.own(operand, cls.SHORT)
        dtype = t.elementwise_dtype(name, [o.dtype for o in operands], cls.INTEGERS)
        shape = broadcast_shapes(name, [o.type.shape for o in operands])
        op = cls.create(operands=[o.value for o in operands], result_types=[t.TensorType.contiguous(dtype, shape)])
        return self.add(op)

    def index(self, x: Tensor, key: object) -> Tensor:
        """numpy's basic indexing of `x`: a view."""
        self.own(x, "index")
        items = index_items(key, x.ndim)
        index_layout(x.type.layout, items, "vt.index")
        return self.add(t.IndexOp.make(x.value, items))

    def own(self, value: object, what: str) -> Tensor:
        if not isinstance(value, Tensor):
            raise TypeError(f"vt.{what} expects vt.Tensor values, got {type(value).__name__}")
        if value.graph is not self:
            raise ValueError(f"vt.{what}: the tensor belongs to graph {value.graph.name!r}, not {self.name!r}")
        return value

    def __str__(self) -> str:
        return print_module(self.module)

    def __repr__(self) -> str:
        return f"vt.Graph({self.name!r}, inputs={list(self.input_names)})"


def _index_item(item: object) -> IndexItem:
    if isinstance(item, slice):
        whole = cast("slice[Any, Any, Any]", item)
        bounds: tuple[object, object, object] = (whole.start, whole.stop, whole.step)
        parts = [None if p is None else operator.index(cast(Any, p)) for p in bounds]
        return SliceItem(parts[0], parts[1], 1 if parts[2] is None else parts[2])
    try:
        return operator.index(cast(Any, item))
    except TypeError:
        raise TypeError(
            f"a tensor index holds ints, slices and at most one `...`, got {item!r}"
        ) from None


def index_items(key: object, rank: int) -> list[IndexItem]:
    """numpy's basic indexing key as one item per dim (`...` expanded)."""
    parts: list[object] = list(cast(tuple[object, ...], key)) if isinstance(key, tuple) else [key]
    ellipses = [k for k, p in enumerate(parts) if p is Ellipsis]
    if len(ellipses) > 1:
        raise ValueError("a tensor index holds at most one `...`")
    if ellipses:
        at = ellipses[0]
        fill = rank - (len(parts) - 1)
        parts[at : at + 1] = [slice(None)] * max(fill, 0)
    return [_index_item(p) for p in parts]


class Tensor:
    """A value of a `Graph`: `.shape` (ints and dynamic dims), `.dtype`."""

    __slots__ = ("graph", "value")

    def __init__(self, graph: Graph, value: SSAValue):
        self.graph = graph
        self.value = value

    @property
    def type(self) -> t.TensorType:
        return t.tensor_type(self.value)

    @property
    def shape(self) -> tuple[Dim, ...]:
        """Ints and dynamic dims (a name, or the expression of a derived dim)."""
        return tuple(user_dim(d) for d in self.type.shape)

    @property
    def dtype(self) -> DataType:
        return self.type.dtype

    @property
    def ndim(self) -> int:
        return len(self.type.shape)

    def __getitem__(self, key: object) -> Tensor:
        return self.graph.index(self, key)

    def __add__(self, other: Tensor) -> Tensor:
        return self.graph.elementwise(t.AddOp, self, other)

    def __sub__(self, other: Tensor) -> Tensor:
        return self.graph.elementwise(t.SubOp, self, other)

    def __mul__(self, other: Tensor) -> Tensor:
        return self.graph.elementwise(t.MulOp, self, other)

    def __truediv__(self, other: Tensor) -> Tensor:
        return self.graph.elementwise(t.DivOp, self, other)

    def __neg__(self) -> Tensor:
        return self.graph.elementwise(t.NegOp, self)

    def __repr__(self) -> str:
        return f"vt.Tensor({self.dtype.value}, shape={self.shape})"
