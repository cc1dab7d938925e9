"""The `vtensor` dialect: the tensor level above vyre kernels.

A tensor program is a `vtensor.graph`: named inputs (block arguments of type
`!vtensor.tensor<...>`), whole-tensor ops with value semantics (views,
elementwise ops, reductions, matmul, and the composites softmax, layer_norm
and attention), and `vtensor.output`, which names the results. `lower-tensors`
(vyre/transforms/lower_tensors.py) turns it into `vyre.kernel`s and a
`vtensor.schedule` that says how the host runs them.

The type `!vtensor.tensor<f32[n, 64]>` has an element type (f32, f16, bf16,
u32, i32), dims that are integers, dynamic-dimension names (`n`) or symbolic
expressions over them (quoted: `"n - 2"`, vyre.dialects.symbolic), and a strided
layout: `!vtensor.tensor<f32[64, n] strides[1, 64] offset 3>` says where each
element sits in the buffer the value is a view of; a contiguous layout at offset 0
is not spelled. Views (transpose, index, broadcast_to, reshape) compute their
result's layout; every other op's result is contiguous.

Each op's verifier computes its result type from its operands and properties
(vyre.dialects.tensor_layout, the functions the Python API uses) and compares it
with the declared one, so a wrong shape or type is a located error of the op.
Questions that depend on a dynamic dim are left to the host: `lower-tensors`
turns them into `vtensor.check` ops of the schedule.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache
from typing import ClassVar, Self, cast

from xdsl.dialects.builtin import ArrayAttr, IntAttr, StringAttr
from xdsl.ir import Attribute, Block, BlockArgument, Dialect, Operation, ParametrizedAttribute, Region, SSAValue, TypeAttribute
from xdsl.irdl import (
    IRDLOperation,
    irdl_attr_definition,
    irdl_op_definition,
    lazy_traits_def,
    operand_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.parser import AttrParser, Parser
from xdsl.printer import Printer
from xdsl.traits import (
    HasParent,
    IsolatedFromAbove,
    IsTerminator,
    NoTerminator,
    Pure,
    RecursiveMemoryEffect,
    SymbolOpInterface,
)
from xdsl.utils.exceptions import VerifyException

from vyre.dialects import vyre as v
from vyre.dialects.symbolic import Sym, SymParseError, parse_sym
from vyre.dialects.tensor_layout import (
    Layout,
    ShapeError,
    SliceItem,
    IndexItem,
    attention_shape,
    broadcast_layout,
    broadcast_shapes,
    contiguous_strides,
    index_layout,
    layer_norm_shape,
    matmul_shape,
    reduce_axis,
    reshape_layout,
    reshape_target,
    transpose_layout,
)

__all__ = [
    "ELEMENT_TYPES",
    "FLOAT_TYPES",
    "SUM_ORDERS",
    "ACCUMULATE_MODES",
    "TensorType",
    "VTensor",
    "cached_sym",
]

DataType = v.DataTypeKind
ELEMENT_TYPES = (DataType.F32, DataType.F16, DataType.BF16, DataType.U32, DataType.I32)
FLOAT_TYPES = (DataType.F32, DataType.F16, DataType.BF16)
SUM_ORDERS = ("exact", "sequential", "tree")
ACCUMULATE_MODES = ("exact", "sequential")
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@lru_cache(maxsize=4096)
def cached_sym(text: str) -> Sym:
    """The `Sym` a type or schedule spells (parsed once per text)."""
    return parse_sym(text)


def _sym_text(value: StringAttr, what: str) -> Sym:
    try:
        return cached_sym(value.data)
    except SymParseError as error:
        raise VerifyException(f"{what}: {error}") from None


# ---------------------------------------------------------------------------
# The tensor type
# ---------------------------------------------------------------------------


def _parse_sym_item(parser: AttrParser) -> str:
    """An int, a name or a quoted expression: its `Sym` text."""
    pos = parser.pos
    number = parser.parse_optional_integer(allow_boolean=False, allow_negative=True)
    name = None if number is None else str(number)  # held to the size parser's limits too
    if name is None:
        name = parser.parse_optional_identifier()
    if name is None:
        name = parser.parse_optional_str_literal()
    if name is None:
        parser.raise_error("expected an integer, a dimension name or a quoted size", pos, parser.pos)
    try:
        return str(parse_sym(name))
    except SymParseError as error:
        parser.raise_error(str(error), pos, parser.pos)


def _sym_spelling(text: str) -> str:
    value = cached_sym(text)
    if value.value is not None or value.plain_name is not None:
        return str(value)
    return '"' + str(value) + '"'


def _parse_sym_list(parser: AttrParser) -> list[str]:
    return parser.parse_comma_separated_list(parser.Delimiter.SQUARE, lambda: _parse_sym_item(parser))


@irdl_attr_definition
class TensorType(ParametrizedAttribute, TypeAttribute):
    """`!vtensor.tensor<f32[n, 64]>`, `!vtensor.tensor<f32[64, n] strides[1, 64] offset 3>`."""

    name = "vtensor.tensor"
    element: v.DataTypeAttr
    dims: ArrayAttr[StringAttr]
    strides: ArrayAttr[StringAttr]
    """Empty when the layout is contiguous."""
    offset: StringAttr

    @staticmethod
    def make(dtype: DataType, layout: Layout) -> TensorType:
        """The type of a value of `dtype` with `layout` (canonical spelling)."""
        layout = layout.canonical()
        strides = [] if layout.strides == contiguous_strides(layout.shape) else list(layout.strides)
        return TensorType(
            v.data_type(dtype),
            ArrayAttr([StringAttr(str(d)) for d in layout.shape]),
            ArrayAttr([StringAttr(str(s)) for s in strides]),
            StringAttr(str(layout.offset)),
        )

    @staticmethod
    def contiguous(dtype: DataType, shape: Sequence[Sym]) -> TensorType:
        return TensorType.make(dtype, Layout.contiguous(tuple(shape)))

    @property
    def dtype(self) -> DataType:
        return DataType.of(self.element)

    @property
    def shape(self) -> tuple[Sym, ...]:
        return tuple(cached_sym(d.data) for d in self.dims)

    @property
    def layout(self) -> Layout:
        shape = self.shape
        strides = (
            tuple(cached_sym(s.data) for s in self.strides)
            if self.strides.data
            else contiguous_strides(shape)
        )
        return Layout(shape, strides, cached_sym(self.offset.data))

    def verify(self) -> None:
        kind = self.element.kind.data
        if kind not in {t.value for t in ELEMENT_TYPES}:
            raise VerifyException(f"a tensor's element type is f32, f16, bf16, u32 or i32, got {kind}")
        for what, values in (("dim", self.dims.data), ("stride", self.strides.data)):
            for value in values:
                _sym_text(value, f"tensor {what}")
        if self.strides.data and len(self.strides.data) != len(self.dims.data):
            raise VerifyException(
                f"a tensor of {len(self.dims.data)} dims has {len(self.strides.data)} strides"
            )
        for dim in self.dims.data:
            if (value := cached_sym(dim.data).value) is not None and value < 0:
                raise VerifyException(f"a tensor dim cannot be negative, got {value}")

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            element = v.parse_data_type(parser)
            dims = _parse_sym_list(parser)
            strides: list[str] = []
            offset = "0"
            if parser.parse_optional_keyword("strides") is not None:
                strides = _parse_sym_list(parser)
            if parser.parse_optional_keyword("offset") is not None:
                offset = _parse_sym_item(parser)
        return (
            element,
            ArrayAttr([StringAttr(d) for d in dims]),
            ArrayAttr([StringAttr(s) for s in strides]),
            StringAttr(offset),
        )

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(f"<{self.element.kind.data}[")
        printer.print_string(", ".join(_sym_spelling(d.data) for d in self.dims.data))
        printer.print_string("]")
        if self.strides.data:
            printer.print_string(" strides[")
            printer.print_string(", ".join(_sym_spelling(s.data) for s in self.strides.data))
            printer.print_string("]")
        if self.offset.data != "0":
            printer.print_string(f" offset {_sym_spelling(self.offset.data)}")
        printer.print_string(">")


def tensor_type(value: SSAValue) -> TensorType:
    ty = value.type
    if not isinstance(ty, TensorType):
        raise VerifyException(f"expected a tensor value, got {ty}")
    return ty


# ---------------------------------------------------------------------------
# Shared syntax
# ---------------------------------------------------------------------------


def _print_attrs(printer: Printer, op: IRDLOperation) -> None:
    if op.attributes:
        printer.print_op_attributes(op.attributes)


def _parse_result_type(parser: Parser) -> TensorType:
    parser.parse_punctuation(":")
    pos = parser.pos
    ty = parser.parse_type()
    if not isinstance(ty, TensorType):
        parser.raise_error(f"expected a !vtensor.tensor type, got {ty}", pos, parser.pos)
    return ty


def _print_result_type(printer: Printer, op: IRDLOperation) -> None:
    printer.print_string(" : ")
    printer.print_attribute(op.results[0].type)


class TensorOp(IRDLOperation):
    """A tensor op: one tensor result whose type the op defines."""

    DISPLAY: ClassVar[str] = ""
    """How messages name the op (its name unless set)."""

    @classmethod
    def display(cls) -> str:
        return cls.DISPLAY or cls.name

    def expected_type(self) -> TensorType:
        raise NotImplementedError

    def verify_(self) -> None:
        try:
            expected = self.expected_type()
        except ShapeError as error:
            raise VerifyException(str(error)) from None
        if self.results[0].type != expected:
            raise VerifyException(
                f"'{self.name}' result type {self.results[0].type} does not match the inferred {expected}"
            )


def elementwise_dtype(op: str, types: Sequence[DataType], integers: bool) -> DataType:
    """The element type of an elementwise op over `types`: all the same, and
    a float unless the op is defined for integers (`ShapeError` naming them)."""
    first = types[0]
    for other in types[1:]:
        if other is not first:
            names = " and ".join(t.value for t in types)
            raise ShapeError(f"{op}: element types {names} differ")
    if not integers and first not in FLOAT_TYPES:
        raise ShapeError(f"{op} is defined for f32, f16 and bf16 tensors, not {first.value}")
    return first


def composite_dtype(op: str, types: Sequence[DataType]) -> DataType:
    """Composites are defined for f32 (`ShapeError` naming any other type)."""
    for dtype in types:
        if dtype is not DataType.F32:
            raise ShapeError(f"{op} is defined for f32 tensors, not {dtype.value}")
    return DataType.F32


# ---------------------------------------------------------------------------
# Graph, inputs and outputs
# ---------------------------------------------------------------------------


@irdl_op_definition
class GraphOp(IRDLOperation):
    """`vtensor.graph @name(%x : T, ...) { ... vtensor.output "y" = %y }`."""

    name = "vtensor.graph"
    sym_name = prop_def(StringAttr)
    input_names = prop_def(ArrayAttr[StringAttr])
    body = region_def("single_block")
    traits = traits_def(IsolatedFromAbove(), SymbolOpInterface(), RecursiveMemoryEffect())

    def __init__(self, sym_name: str, inputs: Sequence[tuple[str, TensorType]], body: Region | None = None):
        region = body if body is not None else Region(Block(arg_types=[t for _, t in inputs]))
        super().__init__(
            properties={
                "sym_name": StringAttr(sym_name),
                "input_names": ArrayAttr([StringAttr(n) for n, _ in inputs]),
            },
            regions=[region],
        )

    @property
    def entry(self) -> Block:
        block = self.body.blocks.first
        assert block is not None
        return block

    @property
    def inputs(self) -> tuple[tuple[str, BlockArgument], ...]:
        return tuple((n.data, a) for n, a in zip(self.input_names.data, self.entry.args))

    @property
    def output(self) -> OutputOp | None:
        last = self.entry.last_op
        return last if isinstance(last, OutputOp) else None

    def verify_(self) -> None:
        names = [n.data for n in self.input_names.data]
        if len(names) != len(self.entry.args):
            raise VerifyException(f"graph @{self.sym_name.data}: {len(names)} input names for {len(self.entry.args)} inputs")
        if len(set(names)) != len(names):
            raise VerifyException(f"graph @{self.sym_name.data}: input names must be distinct, got {names}")
        for arg in self.entry.args:
            ty = tensor_type(arg)
            if ty.strides.data or ty.offset.data != "0":
                raise VerifyException(f"graph @{self.sym_name.data}: inputs are contiguous tensors, got {ty}")
            for dim in ty.shape:
                if dim.value is None and dim.plain_name is None:
                    raise VerifyException(
                        f"graph @{self.sym_name.data}: an input dim is an integer or a name, got {dim}"
                    )
        if self.output is None:
            raise VerifyException(f"graph @{self.sym_name.data} ends with vtensor.output")

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        sym_name = parser.parse_symbol_name().data

        def parameter() -> Parser.Argument:
            unresolved = parser.parse_argument(expect_type=False)
            parser.parse_punctuation(":")
            return unresolved.resolve(parser.parse_type())

        params = parser.parse_comma_separated_list(parser.Delimiter.PAREN, parameter)
        attributes = parser.parse_optional_attr_dict_with_keyword()
        region = parser.parse_region(params)
        names = [p.name.text.removeprefix("%") for p in params]
        op = cls(sym_name, [(n, cast(TensorType, p.type)) for n, p in zip(names, params)], region)
        if attributes is not None:
            op.attributes |= attributes.data
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_symbol_name(self.sym_name.data)
        printer.print_string("(")
        for k, (name, arg) in enumerate(self.inputs):
            if k:
                printer.print_string(", ")
            if _IDENTIFIER.fullmatch(name):
                arg.name_hint = name
            printer.print_block_argument(arg, print_type=False)
            printer.print_string(" : ")
            printer.print_attribute(arg.type)
        printer.print_string(")")
        if self.attributes:
            printer.print_op_attributes(self.attributes, print_keyword=True)
        printer.print_string(" ")
        printer.print_region(self.body, print_entry_block_args=False, print_block_terminators=True)


@irdl_op_definition
class OutputOp(IRDLOperation):
    """`vtensor.output "y" = %y, "z" = %z`: the graph's named results."""

    name = "vtensor.output"
    values = var_operand_def(TensorType)
    names = prop_def(ArrayAttr[StringAttr])
    traits = traits_def(IsTerminator(), HasParent(GraphOp))

    def __init__(self, outputs: Sequence[tuple[str, SSAValue]]):
        super().__init__(
            operands=[[value for _, value in outputs]],
            properties={"names": ArrayAttr([StringAttr(n) for n, _ in outputs])},
        )

    @property
    def outputs(self) -> tuple[tuple[str, SSAValue], ...]:
        return tuple((n.data, value) for n, value in zip(self.names.data, self.values))

    def verify_(self) -> None:
        names = [n.data for n in self.names.data]
        if len(names) != len(self.values):
            raise VerifyException(f"vtensor.output: {len(names)} names for {len(self.values)} values")
        if len(set(names)) != len(names):
            raise VerifyException(f"vtensor.output: output names must be distinct, got {names}")

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        def item() -> tuple[str, SSAValue]:
            name = parser.parse_str_literal()
            parser.parse_punctuation("=")
            return name, v.parse_defined_operand(parser)

        outputs = parser.parse_optional_undelimited_comma_separated_list(
            lambda: item() if parser._current_token.text.startswith('"') else None,  # pyright: ignore[reportPrivateUsage]
            item,
        )
        op = cls(outputs or [])
        op.attributes |= parser.parse_optional_attr_dict()
        return op

    def print(self, printer: Printer) -> None:
        for k, (name, value) in enumerate(self.outputs):
            printer.print_string(", " if k else " ")
            printer.print_string_literal(name)
            printer.print_string(" = ")
            printer.print_operand(value)
        _print_attrs(printer, self)


# ---------------------------------------------------------------------------
# Views
# ---------------------------------------------------------------------------


class _UnarySyntax(TensorOp):
    """`%r = vtensor.<op> %x <props> : T` for ops with one tensor operand;
    subclasses parse and print their properties between operand and type."""

    source = operand_def(TensorType)
    res = result_def(TensorType)

    @classmethod
    def parse_props(cls, parser: Parser) -> dict[str, Attribute]:
        return {}

    def print_props(self, printer: Printer) -> None:
        return

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        source = v.parse_defined_operand(parser)
        props = cls.parse_props(parser)
        attributes = parser.parse_optional_attr_dict()
        result = _parse_result_type(parser)
        op = cls.create(operands=[source], result_types=[result], properties=props)
        op.attributes |= attributes
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.source)
        self.print_props(printer)
        _print_attrs(printer, self)
        _print_result_type(printer, self)

    @property
    def source_type(self) -> TensorType:
        return tensor_type(self.source)


@irdl_op_definition
class TransposeOp(_UnarySyntax):
    """A view with the dims permuted: `vtensor.transpose %x [1, 0] : T`."""

    name = "vtensor.transpose"
    axes = prop_def(ArrayAttr[IntAttr])
    traits = traits_def(Pure())

    @staticmethod
    def make(source: SSAValue, axes: Sequence[int]) -> TransposeOp:
        ty = tensor_type(source)
        layout = transpose_layout(ty.layout, axes, "vtensor.transpose")
        return TransposeOp.create(
            operands=[source],
            result_types=[TensorType.make(ty.dtype, layout)],
            properties={"axes": ArrayAttr([IntAttr(a % max(1, len(axes))) for a in axes])},
        )

    @classmethod
    def parse_props(cls, parser: Parser) -> dict[str, Attribute]:
        axes = parser.parse_comma_separated_list(
            parser.Delimiter.SQUARE, lambda: parser.parse_integer(allow_boolean=False)
        )
        return {"axes": ArrayAttr([IntAttr(a) for a in axes])}

    def print_props(self, printer: Printer) -> None:
        printer.print_string(" [" + ", ".join(str(a.data) for a in self.axes.data) + "]")

    def expected_type(self) -> TensorType:
        ty = self.source_type
        layout = transpose_layout(ty.layout, [a.data for a in self.axes.data], self.display())
        return TensorType.make(ty.dtype, layout)


def index_items(texts: Sequence[str]) -> list[IndexItem]:
    """Index items from their text (`2`, `1:9:2`, `::-1`, `:`)."""
    items: list[IndexItem] = []
    for text in texts:
        parts = text.split(":")
        if len(parts) == 1:
            items.append(int(parts[0]))
            continue
        start, stop, *rest = parts
        step = rest[0] if rest else ""
        items.append(
            SliceItem(
                int(start) if start else None,
                int(stop) if stop else None,
                int(step) if step else 1,
            )
        )
    return items


def index_text(item: IndexItem) -> str:
    if isinstance(item, int):
        return str(item)
    start = "" if item.start is None else str(item.start)
    stop = "" if item.stop is None else str(item.stop)
    return f"{start}:{stop}" if item.step == 1 else f"{start}:{stop}:{item.step}"


def _parse_index_item(parser: Parser) -> str:
    def number() -> str:
        value = parser.parse_optional_integer(allow_boolean=False, allow_negative=True)
        return "" if value is None else str(value)

    start = number()
    if parser.parse_optional_punctuation(":") is None:
        if not start:
            parser.raise_error("expected an index or a slice")
        return start
    stop = "" if parser._current_token.text in (":", ",", "]") else number()  # pyright: ignore[reportPrivateUsage]
    if parser.parse_optional_punctuation(":") is None:
        return f"{start}:{stop}"
    step = "" if parser._current_token.text in (",", "]") else number()  # pyright: ignore[reportPrivateUsage]
    return f"{start}:{stop}:{step}"


@irdl_op_definition
class IndexOp(_UnarySyntax):
    """Basic indexing, a view: `vtensor.index %x [2, 1:9:2, ::-1] : T`."""

    name = "vtensor.index"
    items = prop_def(ArrayAttr[StringAttr])
    traits = traits_def(Pure())

    @staticmethod
    def make(source: SSAValue, items: Sequence[IndexItem]) -> IndexOp:
        ty = tensor_type(source)
        layout = index_layout(ty.layout, items, "vtensor.index")
        return IndexOp.create(
            operands=[source],
            result_types=[TensorType.make(ty.dtype, layout)],
            properties={"items": ArrayAttr([StringAttr(index_text(i)) for i in items])},
        )

    @property
    def index_items(self) -> list[IndexItem]:
        try:
            return index_items([t.data for t in self.items.data])
        except ValueError:
            raise VerifyException(f"vtensor.index: bad index items {[t.data for t in self.items.data]}") from None

    @classmethod
    def parse_props(cls, parser: Parser) -> dict[str, Attribute]:
        texts = parser.parse_comma_separated_list(parser.Delimiter.SQUARE, lambda: _parse_index_item(parser))
        return {"items": ArrayAttr([StringAttr(t) for t in texts])}

    def print_props(self, printer: Printer) -> None:
        texts = [index_text(i) for i in self.index_items]
        printer.print_string(" [" + ", ".join(texts) + "]")

    def expected_type(self) -> TensorType:
        ty = self.source_type
        return TensorType.make(ty.dtype, index_layout(ty.layout, self.index_items, self.display()))


@irdl_op_definition
class BroadcastToOp(_UnarySyntax):
    """A view broadcast to the result's shape: `vtensor.broadcast_to %x : T`."""

    name = "vtensor.broadcast_to"
    traits = traits_def(Pure())

    @staticmethod
    def make(source: SSAValue, shape: Sequence[Sym]) -> BroadcastToOp:
        ty = tensor_type(source)
        layout = broadcast_layout(ty.layout, tuple(shape), "vtensor.broadcast_to")
        return BroadcastToOp.create(operands=[source], result_types=[TensorType.make(ty.dtype, layout)])

    def expected_type(self) -> TensorType:
        ty = self.source_type
        shape = tensor_type(self.res).shape
        return TensorType.make(ty.dtype, broadcast_layout(ty.layout, shape, self.display()))


@irdl_op_definition
class ReshapeOp(_UnarySyntax):
    """A view with another shape, where the strides can express it (else a
    `vtensor.copy` comes first): `vtensor.reshape %x : T`."""

    name = "vtensor.reshape"
    traits = traits_def(Pure())

    def expected_type(self) -> TensorType:
        ty = self.source_type
        shape = tensor_type(self.res).shape
        reshape_target(ty.shape, shape, self.display())
        layout = reshape_layout(ty.layout, shape)
        if layout is None:
            raise ShapeError(
                f"{self.display()}: the layout of {ty} cannot be viewed as shape"
                f" [{', '.join(str(d) for d in shape)}]; copy it first (vtensor.copy)"
            )
        return TensorType.make(ty.dtype, layout)


@irdl_op_definition
class CopyOp(_UnarySyntax):
    """The value in a new contiguous buffer: `vtensor.copy %x : T`."""

    name = "vtensor.copy"
    traits = traits_def(Pure())

    def expected_type(self) -> TensorType:
        ty = self.source_type
        return TensorType.contiguous(ty.dtype, ty.shape)


VIEW_OPS: tuple[type[TensorOp], ...] = (TransposeOp, IndexOp, BroadcastToOp, ReshapeOp)


# ---------------------------------------------------------------------------
# Elementwise
# ---------------------------------------------------------------------------


class ElementwiseOp(TensorOp):
    """Elementwise with numpy broadcasting; the result is contiguous."""

    SHORT: ClassVar[str]
    INTEGERS: ClassVar[bool] = False
    """Defined for u32/i32 tensors too."""

    res = result_def(TensorType)

    def result_dtype(self, types: Sequence[DataType]) -> DataType:
        return elementwise_dtype(self.display(), types, self.INTEGERS)

    def expected_type(self) -> TensorType:
        types = [tensor_type(o) for o in self.operands]
        dtype = self.result_dtype([t.dtype for t in types])
        shape = broadcast_shapes(self.display(), [t.shape for t in types])
        return TensorType.contiguous(dtype, shape)

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        operands = [v.parse_defined_operand(parser)]
        while parser.parse_optional_punctuation(",") is not None:
            operands.append(v.parse_defined_operand(parser))
        attributes = parser.parse_optional_attr_dict()
        result = _parse_result_type(parser)
        op = cls.create(operands=operands, result_types=[result])
        op.attributes |= attributes
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_list(self.operands, printer.print_operand)
        _print_attrs(printer, self)
        _print_result_type(printer, self)


class BinaryOp(ElementwiseOp):
    lhs = operand_def(TensorType)
    rhs = operand_def(TensorType)
    traits = traits_def(Pure())


class UnaryOp(ElementwiseOp):
    operand = operand_def(TensorType)
    traits = traits_def(Pure())


@irdl_op_definition
class AddOp(BinaryOp):
    name = "vtensor.add"
    SHORT: ClassVar[str] = "add"
    INTEGERS: ClassVar[bool] = True


@irdl_op_definition
class SubOp(BinaryOp):
    name = "vtensor.sub"
    SHORT: ClassVar[str] = "sub"
    INTEGERS: ClassVar[bool] = True


@irdl_op_definition
class MulOp(BinaryOp):
    name = "vtensor.mul"
    SHORT: ClassVar[str] = "mul"
    INTEGERS: ClassVar[bool] = True


@irdl_op_definition
class DivOp(BinaryOp):
    name = "vtensor.div"
    SHORT: ClassVar[str] = "div"


@irdl_op_definition
class MaximumOp(BinaryOp):
    name = "vtensor.maximum"
    SHORT: ClassVar[str] = "maximum"
    INTEGERS: ClassVar[bool] = True


@irdl_op_definition
class MinimumOp(BinaryOp):
    name = "vtensor.minimum"
    SHORT: ClassVar[str] = "minimum"
    INTEGERS: ClassVar[bool] = True


@irdl_op_definition
class NegOp(UnaryOp):
    name = "vtensor.neg"
    SHORT: ClassVar[str] = "neg"
    INTEGERS: ClassVar[bool] = True


@irdl_op_definition
class AbsOp(UnaryOp):
    name = "vtensor.abs"
    SHORT: ClassVar[str] = "abs"


@irdl_op_definition
class SqrtOp(UnaryOp):
    name = "vtensor.sqrt"
    SHORT: ClassVar[str] = "sqrt"


@irdl_op_definition
class ExpOp(UnaryOp):
    name = "vtensor.exp"
    SHORT: ClassVar[str] = "exp"


@irdl_op_definition
class LogOp(UnaryOp):
    name = "vtensor.log"
    SHORT: ClassVar[str] = "log"


@irdl_op_definition
class TanhOp(UnaryOp):
    name = "vtensor.tanh"
    SHORT: ClassVar[str] = "tanh"


@irdl_op_definition
class ErfOp(UnaryOp):
    name = "vtensor.erf"
    SHORT: ClassVar[str] = "erf"


@irdl_op_definition
class GeluOp(UnaryOp):
    """`(0.5 * x) * (1 + erf(x * c))`, `c = f32(0.7071067811865476)`: a
    composite of strict ops, elementwise (F32)."""

    name = "vtensor.gelu"
    SHORT: ClassVar[str] = "gelu"

    def result_dtype(self, types: Sequence[DataType]) -> DataType:
        return composite_dtype(self.display(), types)


@irdl_op_definition
class YieldOp(IRDLOperation):
    """The element a `vtensor.map` body computes."""

    name = "vtensor.yield"
    value = operand_def(v.DataTypeAttr)
    traits = lazy_traits_def(lambda: (IsTerminator(), HasParent(MapOp)))

    def __init__(self, value: SSAValue):
        super().__init__(operands=[value])

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        op = cls(v.parse_defined_operand(parser))
        op.attributes |= parser.parse_optional_attr_dict()
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.value)
        _print_attrs(printer, self)


_IMPURE_EXPRESSIONS = (v.LoadOp, v.VarOp, v.BufLenOp, v.IdOp, v.AtomicOp, v.CallOp, v.InvokeOp)


@irdl_op_definition
class MapOp(ElementwiseOp):
    """`%r = vtensor.map(%a, %b) : T { ^bb0(%x : f32, %y : f32): ... vtensor.yield %e }`:
    the body's pure vyre expression ops compute one element from the operands'
    elements; the result's element type is the yielded value's."""

    name = "vtensor.map"
    SHORT: ClassVar[str] = "map"
    INTEGERS: ClassVar[bool] = True
    inputs = var_operand_def(TensorType)
    body = region_def("single_block")
    traits = traits_def(RecursiveMemoryEffect())

    @property
    def entry(self) -> Block:
        block = self.body.blocks.first
        assert block is not None
        return block

    def result_dtype(self, types: Sequence[DataType]) -> DataType:
        block = self.body.blocks.first
        last = None if block is None else block.last_op
        if not isinstance(last, YieldOp):
            raise ShapeError("vtensor.map: the body ends with vtensor.yield")
        yielded = last.value.type
        kinds = {t.value for t in ELEMENT_TYPES}
        if not isinstance(yielded, v.DataTypeAttr) or yielded.kind.data not in kinds:
            raise ShapeError(f"vtensor.map: the body yields {yielded}, not a tensor element type")
        return DataType.of(yielded)

    def verify_(self) -> None:
        block = self.body.blocks.first
        if block is None:
            raise VerifyException("vtensor.map has a body")
        types = [tensor_type(o) for o in self.inputs]
        if len(block.args) != len(types) or any(
            a.type != v.data_type(t.dtype) for a, t in zip(block.args, types)
        ):
            raise VerifyException(
                "vtensor.map: the body takes one argument per operand, of its element type"
            )
        for op in block.ops:
            if isinstance(op, YieldOp):
                continue
            if not isinstance(op, v.ExprOp) or isinstance(op, _IMPURE_EXPRESSIONS):
                raise VerifyException(
                    f"vtensor.map holds `{op.name}`: the body is pure vyre expression code over its arguments"
                )
        super().verify_()

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        operands = parser.parse_comma_separated_list(
            parser.Delimiter.PAREN, lambda: v.parse_defined_operand(parser)
        )
        attributes = parser.parse_optional_attr_dict()
        result = _parse_result_type(parser)
        region = parser.parse_region()
        op = cls.create(operands=operands, result_types=[result], regions=[region])
        op.attributes |= attributes
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string("(")
        printer.print_list(self.operands, printer.print_operand)
        printer.print_string(")")
        _print_attrs(printer, self)
        _print_result_type(printer, self)
        printer.print_string(" ")
        printer.print_region(self.body, print_entry_block_args=True, print_block_terminators=True)


ELEMENTWISE_OPS: tuple[type[ElementwiseOp], ...] = (
    AddOp,
    SubOp,
    MulOp,
    DivOp,
    MaximumOp,
    MinimumOp,
    NegOp,
    AbsOp,
    SqrtOp,
    ExpOp,
    LogOp,
    TanhOp,
    ErfOp,
    GeluOp,
    MapOp,
)


# ---------------------------------------------------------------------------
# Reductions and matmul
# ---------------------------------------------------------------------------


class _AxisOp(_UnarySyntax):
    """An op along one axis of its operand: `... %x axis 1 ... : T`."""

    SHORT: ClassVar[str]
    axis = prop_def(IntAttr)
    traits = traits_def(Pure())

    @classmethod
    def parse_props(cls, parser: Parser) -> dict[str, Attribute]:
        parser.parse_keyword("axis")
        return {"axis": IntAttr(parser.parse_integer(allow_boolean=False))}

    def print_props(self, printer: Printer) -> None:
        printer.print_string(f" axis {self.axis.data}")

    def reduced_shape(self) -> tuple[Sym, ...]:
        """The operand's shape without the axis (which must be written counted from 0)."""
        shape, axis = reduce_axis(self.source_type.shape, self.axis.data, self.display())
        if axis != self.axis.data:
            raise ShapeError(f"{self.display()}: the axis is written counted from 0, got {self.axis.data}")
        return shape


class ReduceOp(_AxisOp):
    """A reduction along one axis (removed from the shape):
    `vtensor.sum %x axis 1 order exact : T`, `vtensor.max %x axis 0 : T`."""

    def expected_type(self) -> TensorType:
        return TensorType.contiguous(self.source_type.dtype, self.reduced_shape())


@irdl_op_definition
class SumOp(ReduceOp):
    name = "vtensor.sum"
    SHORT: ClassVar[str] = "sum"
    order = prop_def(StringAttr)

    @classmethod
    def parse_props(cls, parser: Parser) -> dict[str, Attribute]:
        props = super().parse_props(parser)
        parser.parse_keyword("order")
        props["order"] = StringAttr(parser.parse_identifier())
        return props

    def print_props(self, printer: Printer) -> None:
        super().print_props(printer)
        printer.print_string(f" order {self.order.data}")

    def expected_type(self) -> TensorType:
        if self.order.data not in SUM_ORDERS:
            raise ShapeError(f"vtensor.sum: order is one of {', '.join(SUM_ORDERS)}, got {self.order.data!r}")
        return super().expected_type()


@irdl_op_definition
class MaxOp(ReduceOp):
    name = "vtensor.max"
    SHORT: ClassVar[str] = "max"


@irdl_op_definition
class MinOp(ReduceOp):
    name = "vtensor.min"
    SHORT: ClassVar[str] = "min"


@irdl_op_definition
class MatmulOp(TensorOp):
    """`%c = vtensor.matmul %a, %b accumulate exact : T`: `(..., M, K) @ (..., K, N)`,
    f32/f16/bf16 operands of one type, an f32 result."""

    name = "vtensor.matmul"
    lhs = operand_def(TensorType)
    rhs = operand_def(TensorType)
    accumulate = prop_def(StringAttr)
    res = result_def(TensorType)
    traits = traits_def(Pure())

    def expected_type(self) -> TensorType:
        if self.accumulate.data not in ACCUMULATE_MODES:
            raise ShapeError(
                f"vtensor.matmul: accumulate is exact or sequential, got {self.accumulate.data!r}"
            )
        a, b = tensor_type(self.lhs), tensor_type(self.rhs)
        elementwise_dtype(self.display(), [a.dtype, b.dtype], integers=False)
        return TensorType.contiguous(DataType.F32, matmul_shape(a.shape, b.shape, None, self.display()))

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        lhs = v.parse_defined_operand(parser)
        parser.parse_punctuation(",")
        rhs = v.parse_defined_operand(parser)
        parser.parse_keyword("accumulate")
        mode = parser.parse_identifier()
        attributes = parser.parse_optional_attr_dict()
        result = _parse_result_type(parser)
        op = cls.create(operands=[lhs, rhs], result_types=[result], properties={"accumulate": StringAttr(mode)})
        op.attributes |= attributes
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_list(self.operands, printer.print_operand)
        printer.print_string(f" accumulate {self.accumulate.data}")
        _print_attrs(printer, self)
        _print_result_type(printer, self)


# ---------------------------------------------------------------------------
# Composites (each defined as a sequence of strict operations, docs/tensors.md)
# ---------------------------------------------------------------------------


def _print_f32(printer: Printer, bits: int) -> None:
    printer.print_string(f"0x{bits:08x}")


@irdl_op_definition
class SoftmaxOp(_AxisOp):
    """`%p = vtensor.softmax %x axis 1 : T`: `m = max(x, axis)`,
    `e = exp(x - m)`, `s = sum(e, axis, exact)`, `e / s`."""

    name = "vtensor.softmax"
    SHORT: ClassVar[str] = "softmax"

    def expected_type(self) -> TensorType:
        ty = self.source_type
        composite_dtype(self.display(), [ty.dtype])
        self.reduced_shape()
        return TensorType.contiguous(ty.dtype, ty.shape)


@irdl_op_definition
class LayerNormOp(TensorOp):
    """`%y = vtensor.layer_norm %x, %w, %b eps 0x3727c5ac : T`: the last axis
    normalised (eps an f32 bit pattern), scaled by `w` and shifted by `b`
    (both broadcast to `x`'s shape)."""

    name = "vtensor.layer_norm"
    SHORT: ClassVar[str] = "layer_norm"
    source = operand_def(TensorType)
    weight = operand_def(TensorType)
    bias = operand_def(TensorType)
    eps = prop_def(IntAttr)
    res = result_def(TensorType)
    traits = traits_def(Pure())

    def expected_type(self) -> TensorType:
        x, w, b = (tensor_type(o) for o in (self.source, self.weight, self.bias))
        composite_dtype(self.display(), [x.dtype, w.dtype, b.dtype])
        if not 0 <= self.eps.data < 1 << 32:
            raise ShapeError(f"{self.display()}: eps is an f32 bit pattern, got {self.eps.data}")
        return TensorType.contiguous(DataType.F32, layer_norm_shape(x.shape, w.shape, b.shape, None, self.display()))

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        operands = [v.parse_defined_operand(parser)]
        for _ in range(2):
            parser.parse_punctuation(",")
            operands.append(v.parse_defined_operand(parser))
        parser.parse_keyword("eps")
        eps = parser.parse_integer(allow_boolean=False, allow_negative=False)
        attributes = parser.parse_optional_attr_dict()
        result = _parse_result_type(parser)
        op = cls.create(operands=operands, result_types=[result], properties={"eps": IntAttr(eps)})
        op.attributes |= attributes
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_list(self.operands, printer.print_operand)
        printer.print_string(" eps ")
        _print_f32(printer, self.eps.data)
        _print_attrs(printer, self)
        _print_result_type(printer, self)


@irdl_op_definition
class AttentionOp(TensorOp):
    """`%o = vtensor.attention %q, %k, %v causal : T` (`causal` left out for
    full attention): q `(..., T, d)`, k `(..., S, d)`, v `(..., S, e)`;
    `softmax(matmul(q, kT) * (1 / sqrt(f32(d))), -1)` (masked to -inf above
    the diagonal when causal) `@ v`, both matmuls exact."""

    name = "vtensor.attention"
    SHORT: ClassVar[str] = "attention"
    query = operand_def(TensorType)
    key = operand_def(TensorType)
    value = operand_def(TensorType)
    causal = prop_def(IntAttr)
    res = result_def(TensorType)
    traits = traits_def(Pure())

    @property
    def is_causal(self) -> bool:
        return self.causal.data != 0

    def expected_type(self) -> TensorType:
        q, k, w = (tensor_type(o) for o in (self.query, self.key, self.value))
        composite_dtype(self.display(), [q.dtype, k.dtype, w.dtype])
        if self.causal.data not in (0, 1):
            raise ShapeError(f"{self.display()}: causal is 0 or 1, got {self.causal.data}")
        shape = attention_shape(q.shape, k.shape, w.shape, self.is_causal, None, self.display())
        return TensorType.contiguous(DataType.F32, shape)

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        operands = [v.parse_defined_operand(parser)]
        for _ in range(2):
            parser.parse_punctuation(",")
            operands.append(v.parse_defined_operand(parser))
        causal = parser.parse_optional_keyword("causal") is not None
        attributes = parser.parse_optional_attr_dict()
        result = _parse_result_type(parser)
        op = cls.create(operands=operands, result_types=[result], properties={"causal": IntAttr(int(causal))})
        op.attributes |= attributes
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_list(self.operands, printer.print_operand)
        if self.is_causal:
            printer.print_string(" causal")
        _print_attrs(printer, self)
        _print_result_type(printer, self)


COMPOSITE_OPS: tuple[type[TensorOp], ...] = (SoftmaxOp, LayerNormOp, AttentionOp)


VALUE_OPS: tuple[type[TensorOp], ...] = (
    *VIEW_OPS,
    CopyOp,
    *ELEMENTWISE_OPS,
    SumOp,
    MaxOp,
    MinOp,
    MatmulOp,
    *COMPOSITE_OPS,
)
"""Every op of a graph body that makes a tensor value."""


# ---------------------------------------------------------------------------
# The schedule (what lower-tensors produces)
# ---------------------------------------------------------------------------


def _parse_sym_strings(parser: Parser) -> list[str]:
    def one() -> str:
        pos = parser.pos
        text = parser.parse_str_literal()
        try:
            return str(parse_sym(text))
        except SymParseError as error:
            parser.raise_error(str(error), pos, parser.pos)

    return parser.parse_comma_separated_list(parser.Delimiter.SQUARE, one)


def _print_sym_strings(printer: Printer, values: ArrayAttr[StringAttr]) -> None:
    printer.print_string("[")
    printer.print_list(values.data, lambda s: printer.print_string_literal(s.data))
    printer.print_string("]")


@irdl_op_definition
class ScheduleOp(IRDLOperation):
    """`vtensor.schedule @name { ... }`: how the host runs a lowered graph, in
    order: its inputs, the checks, the buffers, the dispatches of the
    module's `vyre.kernel`s and the results."""

    name = "vtensor.schedule"
    sym_name = prop_def(StringAttr)
    body = region_def("single_block")
    traits = traits_def(NoTerminator(), SymbolOpInterface(), IsolatedFromAbove())

    def __init__(self, sym_name: str, ops: Sequence[Operation]):
        super().__init__(properties={"sym_name": StringAttr(sym_name)}, regions=[Region(Block(ops))])

    def verify_(self) -> None:
        block = self.body.blocks.first
        if block is None:
            return
        for op in block.ops:
            if not isinstance(op, SCHEDULE_OPS):
                raise VerifyException(f"vtensor.schedule holds `{op.name}`")

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        sym_name = parser.parse_symbol_name().data
        attributes = parser.parse_optional_attr_dict_with_keyword()
        region = parser.parse_region()
        if not region.blocks:
            region.add_block(Block())
        op = cls.create(properties={"sym_name": StringAttr(sym_name)}, regions=[region])
        if attributes is not None:
            op.attributes |= attributes.data
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_symbol_name(self.sym_name.data)
        if self.attributes:
            printer.print_op_attributes(self.attributes, print_keyword=True)
        printer.print_string(" ")
        printer.print_region(self.body, print_entry_block_args=False, print_empty_block=False)


class _ScheduleEntry(IRDLOperation):
    traits = traits_def(HasParent(ScheduleOp))


@irdl_op_definition
class InputOp(_ScheduleEntry):
    """`vtensor.input "x" : T`: an argument; its named dims are bound from it."""

    name = "vtensor.input"
    input_name = prop_def(StringAttr, prop_name="name")
    tensor = prop_def(TensorType)

    def __init__(self, input_name: str, tensor: TensorType):
        super().__init__(properties={"name": StringAttr(input_name), "tensor": tensor})

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        input_name = parser.parse_str_literal()
        op = cls(input_name, _parse_result_type(parser))
        op.attributes |= parser.parse_optional_attr_dict()
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_string_literal(self.input_name.data)
        printer.print_string(" : ")
        printer.print_attribute(self.tensor)
        _print_attrs(printer, self)


@irdl_op_definition
class CheckOp(_ScheduleEntry):
    """`vtensor.check "n == m" "message {0}" ["n"]`: a condition on the dims
    that must hold before anything runs; the message (its `{k}` the values of
    the listed sizes) is the `ValueError` otherwise."""

    name = "vtensor.check"
    cond = prop_def(StringAttr)
    message = prop_def(StringAttr)
    args = prop_def(ArrayAttr[StringAttr])

    def __init__(self, cond: Sym, message: str, args: Sequence[Sym]):
        super().__init__(
            properties={
                "cond": StringAttr(str(cond)),
                "message": StringAttr(message),
                "args": ArrayAttr([StringAttr(str(a)) for a in args]),
            }
        )

    def verify_(self) -> None:
        _sym_text(self.cond, "vtensor.check")
        for arg in self.args.data:
            _sym_text(arg, "vtensor.check")

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        pos = parser.pos
        cond = parser.parse_str_literal()
        message = parser.parse_str_literal()
        args = _parse_sym_strings(parser)
        try:
            op = cls(parse_sym(cond), message, [parse_sym(a) for a in args])
        except SymParseError as error:
            parser.raise_error(str(error), pos, parser.pos)
        op.attributes |= parser.parse_optional_attr_dict()
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_string_literal(self.cond.data)
        printer.print_string(" ")
        printer.print_string_literal(self.message.data)
        printer.print_string(" ")
        _print_sym_strings(printer, self.args)
        _print_attrs(printer, self)


@irdl_op_definition
class BufferOp(_ScheduleEntry):
    """`vtensor.buffer "t0" f32 ["n*32"]`: device memory for an intermediate or
    a result: that many elements, zeroed."""

    name = "vtensor.buffer"
    buffer_name = prop_def(StringAttr, prop_name="name")
    element = prop_def(v.DataTypeAttr)
    count = prop_def(StringAttr)

    def __init__(self, buffer_name: str, dtype: DataType, count: Sym):
        super().__init__(
            properties={"name": StringAttr(buffer_name), "element": v.data_type(dtype), "count": StringAttr(str(count))}
        )

    def verify_(self) -> None:
        _sym_text(self.count, "vtensor.buffer")

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        buffer_name = parser.parse_str_literal()
        dtype = DataType.of(v.parse_data_type(parser))
        (count,) = _parse_sym_strings(parser)
        op = cls(buffer_name, dtype, parse_sym(count))
        op.attributes |= parser.parse_optional_attr_dict()
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_string_literal(self.buffer_name.data)
        printer.print_string(f" {self.element.kind.data} ")
        printer.print_string("[")
        printer.print_string_literal(self.count.data)
        printer.print_string("]")
        _print_attrs(printer, self)


@irdl_op_definition
class DispatchOp(_ScheduleEntry):
    """`vtensor.dispatch @k grid ["g", "1", "1"] repeat ["r"] params ["n"] bind("a" = "x")`:
    run kernel `@k` `repeat` times (the size `rep` is 0, 1, ... in its
    params) over `grid` workgroups, its buffers bound to the schedule's
    (inputs and `vtensor.buffer`s), its uniform `dims` holding `params`."""

    name = "vtensor.dispatch"
    kernel = prop_def(StringAttr)
    grid = prop_def(ArrayAttr[StringAttr])
    repeat = prop_def(StringAttr)
    params = prop_def(ArrayAttr[StringAttr])
    bind_from = prop_def(ArrayAttr[StringAttr])
    bind_to = prop_def(ArrayAttr[StringAttr])

    def __init__(
        self,
        kernel: str,
        grid: Sequence[Sym],
        repeat: Sym,
        params: Sequence[Sym],
        bind: Sequence[tuple[str, str]],
    ):
        super().__init__(
            properties={
                "kernel": StringAttr(kernel),
                "grid": ArrayAttr([StringAttr(str(g)) for g in grid]),
                "repeat": StringAttr(str(repeat)),
                "params": ArrayAttr([StringAttr(str(p)) for p in params]),
                "bind_from": ArrayAttr([StringAttr(a) for a, _ in bind]),
                "bind_to": ArrayAttr([StringAttr(b) for _, b in bind]),
            }
        )

    @property
    def bindings(self) -> tuple[tuple[str, str], ...]:
        return tuple((a.data, b.data) for a, b in zip(self.bind_from.data, self.bind_to.data))

    def verify_(self) -> None:
        if len(self.grid.data) != 3:
            raise VerifyException("vtensor.dispatch: the grid has three sizes")
        if len(self.bind_from.data) != len(self.bind_to.data):
            raise VerifyException("vtensor.dispatch: every binding names two buffers")
        for value in (*self.grid.data, self.repeat, *self.params.data):
            _sym_text(value, "vtensor.dispatch")

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        kernel = parser.parse_symbol_name().data
        parser.parse_keyword("grid")
        grid = _parse_sym_strings(parser)
        parser.parse_keyword("repeat")
        (repeat,) = _parse_sym_strings(parser)
        parser.parse_keyword("params")
        params = _parse_sym_strings(parser)
        parser.parse_keyword("bind")

        def pair() -> tuple[str, str]:
            a = parser.parse_str_literal()
            parser.parse_punctuation("=")
            return a, parser.parse_str_literal()

        bind = parser.parse_comma_separated_list(parser.Delimiter.PAREN, pair)
        op = cls(kernel, [parse_sym(g) for g in grid], parse_sym(repeat), [parse_sym(p) for p in params], bind)
        op.attributes |= parser.parse_optional_attr_dict()
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_symbol_name(self.kernel.data)
        printer.print_string(" grid ")
        _print_sym_strings(printer, self.grid)
        printer.print_string(" repeat [")
        printer.print_string_literal(self.repeat.data)
        printer.print_string("] params ")
        _print_sym_strings(printer, self.params)
        printer.print_string(" bind(")
        printer.print_list(
            self.bindings,
            lambda p: printer.print_string(f'"{p[0]}" = "{p[1]}"'),
        )
        printer.print_string(")")
        _print_attrs(printer, self)


@irdl_op_definition
class ResultOp(_ScheduleEntry):
    """`vtensor.result "y" = "t3" : T`: output `y` is buffer `t3`, contiguous, of type T."""

    name = "vtensor.result"
    result_name = prop_def(StringAttr, prop_name="name")
    buffer = prop_def(StringAttr)
    tensor = prop_def(TensorType)

    def __init__(self, result_name: str, buffer: str, tensor: TensorType):
        super().__init__(
            properties={"name": StringAttr(result_name), "buffer": StringAttr(buffer), "tensor": tensor}
        )

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        result_name = parser.parse_str_literal()
        parser.parse_punctuation("=")
        buffer = parser.parse_str_literal()
        op = cls(result_name, buffer, _parse_result_type(parser))
        op.attributes |= parser.parse_optional_attr_dict()
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_string_literal(self.result_name.data)
        printer.print_string(" = ")
        printer.print_string_literal(self.buffer.data)
        printer.print_string(" : ")
        printer.print_attribute(self.tensor)
        _print_attrs(printer, self)


SCHEDULE_OPS: tuple[type[IRDLOperation], ...] = (InputOp, CheckOp, BufferOp, DispatchOp, ResultOp)


VTensor = Dialect(
    "vtensor",
    [GraphOp, OutputOp, YieldOp, *VALUE_OPS, ScheduleOp, *SCHEDULE_OPS],
    [TensorType],
)
