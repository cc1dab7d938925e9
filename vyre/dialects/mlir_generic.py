"""The generic form of vyre IR in the syntax MLIR's own tools read.

xDSL's generic printer writes two things MLIR 16 does not accept: properties
in `<{...}>` (MLIR has properties only from 17 on) and `#builtin.int<N>`, an
xDSL-only attribute (vyre keeps its integer properties as `IntAttr`). The
printer here writes the generic form as `mlir-opt-16 --allow-unregistered-dialect`
reads and prints it again, unchanged:

- properties print as attributes, in one dictionary with the op's attributes,
  sorted by name as MLIR sorts a dictionary attribute;
- an `IntAttr` prints as a standard integer attribute, `64 : i64`, and inside an
  array as a bare `64` (MLIR elides the default `i64` there); a value past `i64`
  that 128 bits hold (a `vyre.lit_u128`) prints as its 128-bit pattern read
  signed, `-1 : i128`, as MLIR prints an `i128` back;
- vyre's own attributes and types (`#vyre.buffer<...>`, `!vyre.type<u32>`) keep
  their syntax, which MLIR holds as opaque dialect attributes and types;
- for the ops of xDSL's standard dialects in a mixed module: a property at its
  default value is left out (xDSL's `arith` carries `overflowFlags`, which MLIR
  16 does not know), and `operandSegmentSizes` is spelled `operand_segment_sizes`,
  as MLIR 16 spells it.

`int_properties_from_mlir` is the way back: xDSL's parser moves attributes that
an op declares as properties into its properties, and this turns the standard
integers among them (`64 : i64`, `[64, 2, 1]`; an `i128` as its unsigned
pattern) into the `IntAttr`s vyre's ops declare (and MLIR 16's `operand_segment_sizes` back into `operandSegmentSizes`). `vyre.text`'s parser applies it to every op it reads, so both generic
spellings parse.

See MLIR's [generic operation form](https://mlir.llvm.org/docs/LangRef/#operations).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import cast

from xdsl.dialects.builtin import ArrayAttr, IntAttr, IntegerAttr, IntegerType, i64
from xdsl.ir import Attribute, Operation
from xdsl.irdl import IRDLOperation
from xdsl.printer import Printer

__all__ = ["MLIRGenericPrinter", "int_properties_from_mlir"]

_I64_MIN, _I64_MAX = -(1 << 63), (1 << 63) - 1
_I128 = IntegerType(128)
_U128_MAX = (1 << 128) - 1


def _i128(attr: Attribute) -> int | None:
    """The signed 128-bit reading of an `IntAttr` past `i64` that 128 bits hold, else None."""
    if not isinstance(attr, IntAttr):
        return None
    value = cast("IntAttr[int]", attr).data
    if not _I64_MAX < value <= _U128_MAX:
        return None
    return value - (1 << 128) if value >> 127 else value


def _i64(attr: Attribute) -> int | None:
    """The value of an `IntAttr` that an `i64` holds, else None."""
    if not isinstance(attr, IntAttr):
        return None
    value = cast("IntAttr[int]", attr).data
    return value if _I64_MIN <= value <= _I64_MAX else None


def _i64_array(attr: Attribute) -> list[int] | None:
    """The values of a non-empty array of `IntAttr`s that `i64` holds, else None."""
    if not isinstance(attr, ArrayAttr):
        return None
    numbers: list[int] = []
    for element in cast("ArrayAttr[Attribute]", attr).data:
        value = _i64(element)
        if value is None:
            return None
        numbers.append(value)
    return numbers or None


@dataclass(eq=False, repr=False)
class MLIRGenericPrinter(Printer):
    """A `Printer` for the generic form MLIR 16 reads (see the module doc); with
    `print_generic_format=False` it prints custom syntax exactly as xDSL does."""

    print_generic_format: bool = field(default=True)
    print_properties_as_attributes: bool = field(default=True)

    def print_attribute(self, attribute: Attribute) -> None:
        if not self.print_generic_format:
            super().print_attribute(attribute)
            return
        value = _i64(attribute)
        if value is not None:
            self.print_string(f"{value} : i64")
            return
        wide = _i128(attribute)
        if wide is not None:
            self.print_string(f"{wide} : i128")
            return
        numbers = _i64_array(attribute)
        if numbers is not None:
            self.print_string(f"[{', '.join(map(str, numbers))}]")
            return
        super().print_attribute(attribute)

    def print_op_with_default_format(self, op: Operation) -> None:
        if not (self.print_generic_format and self.print_properties_as_attributes):
            super().print_op_with_default_format(op)
            return
        clashing = op.properties.keys() & op.attributes.keys()
        if clashing:
            raise ValueError(
                f"'{op.name}': properties {', '.join(sorted(clashing))} would overwrite the"
                " attributes of the same names in MLIR's generic form"
            )
        self.print_operands(op.operands)
        self.print_successors(op.successors)
        self.print_regions(op.regions)
        properties = _mlir16_properties(op)
        self.print_op_attributes(dict(sorted((op.attributes | properties).items())))
        self.print_string(" : ")
        self.print_operation_type(op)


_SEGMENTS, _MLIR16_SEGMENTS = "operandSegmentSizes", "operand_segment_sizes"


def _mlir16_properties(op: Operation) -> dict[str, Attribute]:
    """The op's properties as MLIR 16 spells them: defaults left out, operand
    segment sizes under their MLIR 16 name."""
    if not isinstance(op, IRDLOperation) or not op.properties:
        return op.properties
    definitions = type(op).get_irdl_definition().properties
    spelled: dict[str, Attribute] = {}
    for name, value in op.properties.items():
        definition = definitions.get(name)
        if definition is not None and definition.default_value == value:
            continue
        spelled[_MLIR16_SEGMENTS if name == _SEGMENTS else name] = value
    return spelled


def _int_from_mlir(attr: Attribute) -> Attribute:
    if not isinstance(attr, IntegerAttr):
        return attr
    integer = cast("IntegerAttr[IntegerType]", attr)
    if integer.type == _I128:
        return IntAttr(integer.value.data & _U128_MAX)
    if integer.type != i64:
        return integer
    return IntAttr(integer.value.data)


def int_properties_from_mlir(op: Operation) -> None:
    """In place: the `i64` integer attributes among a vyre or vtensor op's properties (and
    the elements of its array properties) become the `IntAttr`s vyre's ops hold.
    Other ops, and other attributes, are left as they are."""
    segments = op.attributes.get(_MLIR16_SEGMENTS)
    if segments is not None and isinstance(op, IRDLOperation) and _SEGMENTS not in op.properties:
        if _SEGMENTS in type(op).get_irdl_definition().properties:
            op.properties[_SEGMENTS] = op.attributes.pop(_MLIR16_SEGMENTS)
    if not op.properties or not op.name.startswith(("vyre.", "vtensor.")):
        return
    for name, value in op.properties.items():
        if isinstance(value, IntegerAttr):
            op.properties[name] = _int_from_mlir(cast(Attribute, value))
        elif isinstance(value, ArrayAttr):
            elements = cast("ArrayAttr[Attribute]", value).data
            if any(isinstance(e, IntegerAttr) for e in elements):
                op.properties[name] = ArrayAttr([_int_from_mlir(e) for e in elements])
