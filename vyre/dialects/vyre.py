"""The `vyre` dialect: vyre IR as xDSL operations.

Statements (Let, Assign, Store, If, Loop, Return, Block, Barrier) are ops without
results; statements with bodies hold single-block regions. Expressions (literals,
Var, Load, BufLen, ids, BinOp, UnOp, Call, Select, Cast, Atomic) are ops with one
SSA result, placed in the block right before the statement that consumes them, in
evaluation order. Names of locals stay names: `vyre.let "x" = %v` declares,
`vyre.var "x"` reads, `vyre.assign "x" = %v` writes.

Verifiers check the local invariants of each op (its operands, properties,
regions and the type it defines). The rules of the spec (V001-V025 and the type
rules) are checked by `vyre.validate`, an explicit step over a whole kernel, not by
IRDL constraints, so that every message is the spec's own text and all of them
are reported at once.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from collections.abc import Callable, Sequence
from enum import Enum
from typing import ClassVar, Self, TypeVar, cast

from xdsl.dialects.builtin import UNKNOWN_LOC, ArrayAttr, IntAttr, StringAttr
from xdsl.ir import (
    Attribute,
    Block,
    Dialect,
    OpResult,
    Operation,
    ParametrizedAttribute,
    Region,
    SSAValue,
    TypeAttribute,
    Use,
)
from xdsl.ir.core import SSAValues
from xdsl.irdl import (
    IRDLOperation,
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.parser import AttrParser, Parser
from xdsl.printer import Printer
from xdsl.dialect_interfaces.constant_materialization import (
    ConstantMaterializationInterface,
)
from xdsl.interfaces import HasFolderInterface
from xdsl.traits import (
    ConstantLike,
    IsTerminator,
    IsolatedFromAbove,
    MemoryReadEffect,
    NoTerminator,
    Pure,
    RecursiveMemoryEffect,
    SymbolOpInterface,
)
from xdsl.utils.exceptions import VerifyException

from vyre.dialects.tables import OpTable

# ---------------------------------------------------------------------------
# Enumerations (the stable spellings used in text, wire and Python)
# ---------------------------------------------------------------------------


class DataTypeKind(str, Enum):
    """The value types of vyre (docs/semantics.md). Planned types are added as members;
    everything vyre knows about a type is its row of `TYPE_FACTS`."""

    U32 = "u32"
    I32 = "i32"
    U64 = "u64"
    VEC2U32 = "vec2u32"
    VEC4U32 = "vec4u32"
    BOOL = "bool"
    BYTES = "bytes"
    F32 = "f32"
    F16 = "f16"
    BF16 = "bf16"
    U128 = "u128"

    @property
    def facts(self) -> TypeFacts:
        """This type's row of `TYPE_FACTS`."""
        return TYPE_FACTS[self]

    def min_bytes(self) -> int:
        """Size of one element in bytes (0 for the variable-length Bytes)."""
        return TYPE_FACTS[self].min_bytes

    @property
    def attr(self) -> DataTypeAttr:
        return data_type(self)

    @classmethod
    def of(cls, attr: object) -> DataTypeKind:
        if not isinstance(attr, DataTypeAttr):
            raise TypeError(f"not a vyre data type: {attr}")
        return cls(attr.kind.data)

    @property
    def is_float(self) -> bool:
        """F32, F16 or BF16: strict IEEE floats, carried as bit patterns."""
        return TYPE_FACTS[self].float_bits != 0

    @property
    def lanes(self) -> int:
        """32-bit lanes of one value (0: Bytes has no value form)."""
        return TYPE_FACTS[self].lanes

    @property
    def is_scalar(self) -> bool:
        """U32, I32 or Bool: usable as an index, condition or integer operand."""
        return TYPE_FACTS[self].scalar

    def __str__(self) -> str:
        return self.value


_KIND_OF_SPELLING: dict[str, DataTypeKind] = {kind.value: kind for kind in DataTypeKind}


@dataclass(frozen=True)
class TypeFacts:
    """What every layer needs to know about one value type."""

    min_bytes: int
    """Bytes of one element (0 for the variable-length Bytes)."""
    lanes: int
    """32-bit lanes of one value (0: no value form). A 16-bit float is one lane
    holding its pattern in the low half."""
    words: int
    """32-bit words of one element in a workgroup array or in a value; storage and
    uniform buffers of a 16-bit float pack two elements per word instead."""
    wgsl: str
    """The WGSL type of a value (floats travel as `u32` bit patterns)."""
    float_bits: int = 0
    """Width of a float's bit pattern; 0 for the integer types."""
    scalar: bool = False
    """U32, I32, Bool: indices, conditions, loop bounds, integer operands."""
    numpy: str = ""
    """The numpy dtype at the user's boundary ("" for Bytes: uint8 bytes)."""

    @property
    def half(self) -> bool:
        """A 16-bit float: two elements per word in storage and uniform buffers."""
        return self.float_bits == 16


TYPE_FACTS: dict[DataTypeKind, TypeFacts] = {
    DataTypeKind.U32: TypeFacts(4, 1, 1, "u32", scalar=True, numpy="uint32"),
    DataTypeKind.I32: TypeFacts(4, 1, 1, "i32", scalar=True, numpy="int32"),
    DataTypeKind.U64: TypeFacts(8, 2, 2, "vec2<u32>", numpy="uint64"),
    DataTypeKind.VEC2U32: TypeFacts(8, 2, 2, "vec2<u32>", numpy="uint32"),
    DataTypeKind.VEC4U32: TypeFacts(16, 4, 4, "vec4<u32>", numpy="uint32"),
    DataTypeKind.BOOL: TypeFacts(4, 1, 1, "u32", scalar=True, numpy="uint32"),
    DataTypeKind.BYTES: TypeFacts(0, 0, 1, "u32", numpy=""),
    DataTypeKind.F32: TypeFacts(4, 1, 1, "u32", float_bits=32, numpy="float32"),
    DataTypeKind.F16: TypeFacts(2, 1, 1, "u32", float_bits=16, numpy="float16"),
    DataTypeKind.BF16: TypeFacts(2, 1, 1, "u32", float_bits=16, numpy="uint16"),
    DataTypeKind.U128: TypeFacts(16, 4, 4, "vec4<u32>", numpy="uint32"),
}
"""One row per value type: the one table of type facts (a new type adds a row)."""


class AccessKind(str, Enum):
    READ_ONLY = "read_only"
    READ_WRITE = "read_write"
    UNIFORM = "uniform"
    WORKGROUP = "workgroup"


class BinOpKind(str, Enum):
    """The integer binary operators of `vyre.binop` (float operators are op
    classes of their own: `FloatBinaryOp`, `FCmpOp`). Append only: a member's
    position is its wire code."""

    ADD = "add"
    SUB = "sub"
    MUL = "mul"
    DIV = "div"
    MOD = "mod"
    BIT_AND = "bit_and"
    BIT_OR = "bit_or"
    BIT_XOR = "bit_xor"
    SHL = "shl"
    SHR = "shr"
    EQ = "eq"
    NE = "ne"
    LT = "lt"
    GT = "gt"
    LE = "le"
    GE = "ge"
    AND = "and"
    OR = "or"
    DOT4_I8 = "dot4_i8"
    """The four signed bytes of `a` times those of `b`, summed (WGSL
    `dot4I8Packed`): the 32-bit two's complement of the sum."""
    MUL_HIGH = "mul_high"
    """The high word of the unsigned 64-bit product `a * b` (`mul` is the low
    word): one instruction where the adapter offers 64-bit integers."""


class UnOpKind(str, Enum):
    """The integer unary operators of `vyre.unop` (float operators are op classes
    of their own: `FloatUnaryOp`). Append only: a member's position is its wire
    code."""

    NEGATE = "negate"
    BIT_NOT = "bit_not"
    LOGICAL_NOT = "logical_not"
    POPCOUNT = "popcount"
    CLZ = "clz"
    CTZ = "ctz"
    REVERSE_BITS = "reverse_bits"


class AtomicOpKind(str, Enum):
    ADD = "add"
    OR = "or"
    AND = "and"
    XOR = "xor"
    MIN = "min"
    MAX = "max"
    EXCHANGE = "exchange"
    COMPARE_EXCHANGE = "compare_exchange"


AXIS_NAMES = ("x", "y", "z")
_NAME_HINT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
U32_MAX = 0xFFFF_FFFF


# ---------------------------------------------------------------------------
# Constant semantics: what the integer ops compute from literal operands.
# The ops' folders (canonicalize) and the WGSL emitter's guard against
# all-literal operations both use these, so the semantics live here once.
# ---------------------------------------------------------------------------

LANE_COUNTS: dict[DataTypeKind, int] = {
    kind: facts.lanes for kind, facts in TYPE_FACTS.items() if facts.lanes and not facts.float_bits
}
"""32-bit lanes of each integer value type (Bytes has no value form)."""

SCALAR_KINDS = tuple(kind for kind, facts in TYPE_FACTS.items() if facts.scalar)


def _shift(a: int, b: int) -> int:
    return (a << (b & 31)) & U32_MAX


BINOP_FOLDS: OpTable[BinOpKind, Callable[[int, int], int]] = OpTable(
    "constant folds of vyre.binop", lambda: BinOpKind
)
"""`a <kind> b` on u32 bit patterns (wrapping; /0 and %0 give 0; shifts mask the
amount to 0..31; comparisons and logical ops give 0/1)."""
BINOP_FOLDS.add(BinOpKind.ADD, lambda a, b: (a + b) & U32_MAX)
BINOP_FOLDS.add(BinOpKind.SUB, lambda a, b: (a - b) & U32_MAX)
BINOP_FOLDS.add(BinOpKind.MUL, lambda a, b: (a * b) & U32_MAX)
BINOP_FOLDS.add(BinOpKind.DIV, lambda a, b: 0 if b == 0 else a // b)
BINOP_FOLDS.add(BinOpKind.MOD, lambda a, b: 0 if b == 0 else a % b)
BINOP_FOLDS.add(BinOpKind.BIT_AND, lambda a, b: a & b)
BINOP_FOLDS.add(BinOpKind.BIT_OR, lambda a, b: a | b)
BINOP_FOLDS.add(BinOpKind.BIT_XOR, lambda a, b: a ^ b)
BINOP_FOLDS.add(BinOpKind.SHL, _shift)
BINOP_FOLDS.add(BinOpKind.SHR, lambda a, b: a >> (b & 31))
BINOP_FOLDS.add(BinOpKind.EQ, lambda a, b: int(a == b))
BINOP_FOLDS.add(BinOpKind.NE, lambda a, b: int(a != b))
BINOP_FOLDS.add(BinOpKind.LT, lambda a, b: int(a < b))
BINOP_FOLDS.add(BinOpKind.GT, lambda a, b: int(a > b))
BINOP_FOLDS.add(BinOpKind.LE, lambda a, b: int(a <= b))
BINOP_FOLDS.add(BinOpKind.GE, lambda a, b: int(a >= b))
BINOP_FOLDS.add(BinOpKind.AND, lambda a, b: int(a != 0 and b != 0))
BINOP_FOLDS.add(BinOpKind.OR, lambda a, b: int(a != 0 or b != 0))


def _signed_byte(word: int, lane: int) -> int:
    byte = (word >> (8 * lane)) & 0xFF
    return byte - 256 if byte & 0x80 else byte


def dot4_i8(a: int, b: int) -> int:
    """The sum of the products of the signed bytes of `a` and `b`, as a u32
    bit pattern (`BinOpKind.DOT4_I8`)."""
    return sum(_signed_byte(a, k) * _signed_byte(b, k) for k in range(4)) & U32_MAX


BINOP_FOLDS.add(BinOpKind.DOT4_I8, dot4_i8)
BINOP_FOLDS.add(BinOpKind.MUL_HIGH, lambda a, b: (a * b) >> 32)

UNOP_FOLDS: OpTable[UnOpKind, Callable[[int], int]] = OpTable(
    "constant folds of vyre.unop", lambda: UnOpKind
)
"""`<kind> a` on a 32-bit pattern (clz(0) = ctz(0) = 32)."""
UNOP_FOLDS.add(UnOpKind.NEGATE, lambda a: (-a) & U32_MAX)
UNOP_FOLDS.add(UnOpKind.BIT_NOT, lambda a: a ^ U32_MAX)
UNOP_FOLDS.add(UnOpKind.LOGICAL_NOT, lambda a: int(a == 0))
UNOP_FOLDS.add(UnOpKind.POPCOUNT, lambda a: a.bit_count())
UNOP_FOLDS.add(UnOpKind.CLZ, lambda a: 32 - a.bit_length())
UNOP_FOLDS.add(UnOpKind.CTZ, lambda a: 32 if a == 0 else (a & -a).bit_length() - 1)
UNOP_FOLDS.add(UnOpKind.REVERSE_BITS, lambda a: int(f"{a:032b}"[::-1], 2))


def fold_binop(kind: BinOpKind, a: int, b: int) -> int:
    """`a <kind> b` on u32 bit patterns (`BINOP_FOLDS`)."""
    return BINOP_FOLDS[kind](a & U32_MAX, b & U32_MAX)


def fold_unop(kind: UnOpKind, a: int) -> int:
    """`<kind> a` on a 32-bit pattern (`UNOP_FOLDS`)."""
    return UNOP_FOLDS[kind](a & U32_MAX)


# ---------------------------------------------------------------------------
# U128: an unsigned 128-bit integer held as four u32 lanes, lane 0 the least
# significant. Its operators are the integer BinOps but the logical AND and OR
# DOT4_I8 and MUL_HIGH (two U128 operands, the shift amount too) and the UnOps BIT_NOT, POPCOUNT,
# CLZ and CTZ; comparisons, POPCOUNT, CLZ and CTZ give a u32.
# ---------------------------------------------------------------------------

U128_MAX = (1 << 128) - 1

U128_BINOP_KINDS: tuple[BinOpKind, ...] = tuple(
    kind
    for kind in BinOpKind
    if kind not in (BinOpKind.AND, BinOpKind.OR, BinOpKind.DOT4_I8, BinOpKind.MUL_HIGH)
)
"""The binary operators defined on two U128 operands."""
U128_COMPARISONS = frozenset(
    {BinOpKind.EQ, BinOpKind.NE, BinOpKind.LT, BinOpKind.GT, BinOpKind.LE, BinOpKind.GE}
)
"""The U128 operators that give a u32 (0 or 1) rather than a U128."""
U128_UNOP_KINDS: tuple[UnOpKind, ...] = (
    UnOpKind.BIT_NOT, UnOpKind.POPCOUNT, UnOpKind.CLZ, UnOpKind.CTZ,
)  # fmt: skip
"""The unary operators defined on a U128 operand (BIT_NOT gives a U128, the
counts a u32 in 0..128)."""


def u128_lanes(value: int) -> tuple[int, int, int, int]:
    """The four u32 lanes of a 128-bit value, lane 0 the least significant."""
    return (
        value & U32_MAX, (value >> 32) & U32_MAX, (value >> 64) & U32_MAX, (value >> 96) & U32_MAX,
    )  # fmt: skip


def u128_value(lanes: Sequence[int]) -> int:
    """The 128-bit value of four u32 lanes (lane 0 the least significant)."""
    return sum((lane & U32_MAX) << (32 * k) for k, lane in enumerate(lanes[:4]))


def _u128_ctz(a: int) -> int:
    return 128 if a == 0 else (a & -a).bit_length() - 1


U128_BINOP_FOLDS: OpTable[BinOpKind, Callable[[int, int], int]] = OpTable(
    "constant folds of vyre.binop on u128", lambda: U128_BINOP_KINDS
)
"""`a <kind> b` on 128-bit values (wrapping modulo 2**128; /0 and %0 give 0, as
for u32; shift amounts are taken modulo 128; comparisons give 0/1)."""
U128_BINOP_FOLDS.add(BinOpKind.ADD, lambda a, b: (a + b) & U128_MAX)
U128_BINOP_FOLDS.add(BinOpKind.SUB, lambda a, b: (a - b) & U128_MAX)
U128_BINOP_FOLDS.add(BinOpKind.MUL, lambda a, b: (a * b) & U128_MAX)
U128_BINOP_FOLDS.add(BinOpKind.DIV, lambda a, b: 0 if b == 0 else a // b)
U128_BINOP_FOLDS.add(BinOpKind.MOD, lambda a, b: 0 if b == 0 else a % b)
U128_BINOP_FOLDS.add(BinOpKind.BIT_AND, lambda a, b: a & b)
U128_BINOP_FOLDS.add(BinOpKind.BIT_OR, lambda a, b: a | b)
U128_BINOP_FOLDS.add(BinOpKind.BIT_XOR, lambda a, b: a ^ b)
U128_BINOP_FOLDS.add(BinOpKind.SHL, lambda a, b: (a << (b & 127)) & U128_MAX)
U128_BINOP_FOLDS.add(BinOpKind.SHR, lambda a, b: a >> (b & 127))
U128_BINOP_FOLDS.add(BinOpKind.EQ, lambda a, b: int(a == b))
U128_BINOP_FOLDS.add(BinOpKind.NE, lambda a, b: int(a != b))
U128_BINOP_FOLDS.add(BinOpKind.LT, lambda a, b: int(a < b))
U128_BINOP_FOLDS.add(BinOpKind.GT, lambda a, b: int(a > b))
U128_BINOP_FOLDS.add(BinOpKind.LE, lambda a, b: int(a <= b))
U128_BINOP_FOLDS.add(BinOpKind.GE, lambda a, b: int(a >= b))

U128_UNOP_FOLDS: OpTable[UnOpKind, Callable[[int], int]] = OpTable(
    "constant folds of vyre.unop on u128", lambda: U128_UNOP_KINDS
)
"""`<kind> a` on a 128-bit value (clz(0) = ctz(0) = 128)."""
U128_UNOP_FOLDS.add(UnOpKind.BIT_NOT, lambda a: a ^ U128_MAX)
U128_UNOP_FOLDS.add(UnOpKind.POPCOUNT, lambda a: a.bit_count())
U128_UNOP_FOLDS.add(UnOpKind.CLZ, lambda a: 128 - a.bit_length())
U128_UNOP_FOLDS.add(UnOpKind.CTZ, _u128_ctz)


def fold_u128_binop(kind: BinOpKind, a: int, b: int) -> int:
    """`a <kind> b` on two 128-bit values (`U128_BINOP_FOLDS`)."""
    return U128_BINOP_FOLDS[kind](a & U128_MAX, b & U128_MAX)


def fold_u128_unop(kind: UnOpKind, a: int) -> int:
    """`<kind> a` on a 128-bit value (`U128_UNOP_FOLDS`)."""
    return U128_UNOP_FOLDS[kind](a & U128_MAX)


def fold_cast(
    source: DataTypeKind, lanes: tuple[int, ...], target: DataTypeKind
) -> tuple[int, ...] | None:
    """The 32-bit lanes of `cast(target, value)` for a constant value (the cast
    table of docs/semantics.md), or None for a conversion the table does not define."""
    if source == target:
        return lanes
    width = LANE_COUNTS.get(target)
    if width is None or source not in LANE_COUNTS:
        return None
    if target == DataTypeKind.BOOL:
        return (int(any(lanes)),)
    if source in SCALAR_KINDS:
        word = lanes[0] & U32_MAX
        if target in (DataTypeKind.U32, DataTypeKind.I32):
            return (word,)
        if target in (DataTypeKind.U64, DataTypeKind.U128):
            high = U32_MAX if source == DataTypeKind.I32 and word & 0x8000_0000 else 0
            return (word, *(high,) * (width - 1))
        return (word,) * width
    if target == DataTypeKind.U128:  # zero-extension of the vector's lanes
        return (*lanes, *(0,) * (width - len(lanes)))
    # vector sources: truncation / component selection
    if width > len(lanes):
        return None
    return lanes[:width]


def signed(word: int) -> int:
    """A 32-bit pattern read as i32."""
    word &= U32_MAX
    return word - (1 << 32) if word & 0x8000_0000 else word


_E = TypeVar("_E", bound=Enum)


def _parse_enum_keyword(
    parser: AttrParser, enum: type[_E], what: str, members: Sequence[_E] | None = None
) -> _E:
    spellings = [str(member.value) for member in (enum if members is None else members)]
    pos = parser.pos
    word = parser.parse_optional_identifier()
    if word is None or word not in spellings:
        parser.raise_error(
            f"expected {what}, one of: {', '.join(spellings)}", pos, parser.pos
        )
    return enum(word)


# ---------------------------------------------------------------------------
# Types and attributes
# ---------------------------------------------------------------------------


@irdl_attr_definition
class DataTypeAttr(ParametrizedAttribute, TypeAttribute):
    """A vyre value type, printed `!vyre.type<u32>`; bare `u32` inside vyre ops."""

    name = "vyre.type"
    kind: StringAttr

    def __init__(self, kind: DataTypeKind | str):
        super().__init__(StringAttr(DataTypeKind(kind).value))

    @property
    def data_kind(self) -> DataTypeKind:
        return _KIND_OF_SPELLING[self.kind.data]

    def verify(self) -> None:
        if self.kind.data not in {k.value for k in DataTypeKind}:
            raise VerifyException(f"unknown vyre data type `{self.kind.data}`")

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            kind = _parse_enum_keyword(parser, DataTypeKind, "a vyre data type")
        return (StringAttr(kind.value),)

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(f"<{self.kind.data}>")


def parse_data_type(parser: AttrParser) -> DataTypeAttr:
    """Parse a bare data-type keyword such as `u32` (or a full `!vyre.type<...>`)."""
    if parser._current_token.text.startswith("!"):  # pyright: ignore[reportPrivateUsage]
        pos = parser.pos
        ty = parser.parse_type()
        if not isinstance(ty, DataTypeAttr):
            parser.raise_error(f"expected a vyre data type, got {ty}", pos, parser.pos)
        return ty
    return data_type(_parse_enum_keyword(parser, DataTypeKind, "a vyre data type"))


def print_data_type(printer: Printer, ty: Attribute) -> None:
    if isinstance(ty, DataTypeAttr):
        printer.print_string(ty.kind.data)
    else:
        printer.print_attribute(ty)


_DATA_TYPES = {kind: DataTypeAttr(kind) for kind in DataTypeKind}


def data_type(kind: DataTypeKind | str) -> DataTypeAttr:
    """The (shared, immutable) type attribute of a kind; cheaper than constructing one."""
    return _DATA_TYPES[DataTypeKind(kind)]


U32 = data_type(DataTypeKind.U32)
I32 = data_type(DataTypeKind.I32)
BOOL = data_type(DataTypeKind.BOOL)
U128 = data_type(DataTypeKind.U128)


@irdl_attr_definition
class BufferDeclAttr(ParametrizedAttribute):
    """One buffer declaration of a kernel: name, binding, access, element type, count."""

    name = "vyre.buffer"
    buffer_name: StringAttr
    binding: IntAttr
    access: StringAttr
    element: DataTypeAttr
    count: IntAttr

    def __init__(
        self,
        buffer_name: str,
        binding: int,
        access: AccessKind | str,
        element: DataTypeAttr,
        count: int = 0,
    ):
        super().__init__(
            StringAttr(buffer_name),
            IntAttr(binding),
            StringAttr(AccessKind(access).value),
            element,
            IntAttr(count),
        )

    @property
    def access_kind(self) -> AccessKind:
        return AccessKind(self.access.data)

    def verify(self) -> None:
        if self.access.data not in {k.value for k in AccessKind}:
            raise VerifyException(f"unknown buffer access `{self.access.data}`")
        if not 0 <= self.binding.data <= U32_MAX:
            raise VerifyException("buffer binding must be a u32")
        if not 0 <= self.count.data <= U32_MAX:
            raise VerifyException("buffer count must be a u32")

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            decl = parse_buffer_decl_body(parser)
        return (decl.buffer_name, decl.binding, decl.access, decl.element, decl.count)

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string("<")
        print_buffer_decl_body(printer, self)
        printer.print_string(">")


def parse_buffer_decl_body(parser: AttrParser) -> BufferDeclAttr:
    """`@name : access elem[count]? binding(N)?`"""
    buffer_name = parser.parse_symbol_name().data
    parser.parse_punctuation(":")
    access = _parse_enum_keyword(parser, AccessKind, "a buffer access")
    element = parse_data_type(parser)
    count = 0
    if parser.parse_optional_punctuation("[") is not None:
        count = parser.parse_integer(allow_boolean=False, allow_negative=False)
        parser.parse_punctuation("]")
    binding = 0
    if parser.parse_optional_keyword("binding") is not None:
        parser.parse_punctuation("(")
        binding = parser.parse_integer(allow_boolean=False, allow_negative=False)
        parser.parse_punctuation(")")
    return BufferDeclAttr(buffer_name, binding, access, element, count)


def print_buffer_decl_body(printer: Printer, decl: BufferDeclAttr) -> None:
    printer.print_symbol_name(decl.buffer_name.data)
    printer.print_string(f" : {decl.access.data} ")
    print_data_type(printer, decl.element)
    if decl.count.data != 0:
        printer.print_string(f"[{decl.count.data}]")
    if decl.access_kind != AccessKind.WORKGROUP or decl.binding.data != 0:
        printer.print_string(f" binding({decl.binding.data})")


# ---------------------------------------------------------------------------
# Parsing helpers shared by the ops' custom syntax
# ---------------------------------------------------------------------------


def parse_defined_operand(parser: Parser) -> SSAValue:
    """Parse `%name`, which must already be defined: vyre values are used after
    their definition, so their type is known and the syntax need not repeat it."""
    unresolved = parser.parse_unresolved_operand()
    values = parser.ssa_values.get(unresolved.operand_name)
    if values is None or unresolved.index >= len(values):
        parser.raise_error(
            f"value %{unresolved.operand_name} is used before it is defined",
            unresolved.span,
        )
    return values[unresolved.index]


def _parse_body(parser: Parser) -> Region:
    region = parser.parse_region()
    if not region.blocks:
        region.add_block(Block())
    return region


def _print_body(printer: Printer, region: Region) -> None:
    printer.print_region(region, print_entry_block_args=False, print_empty_block=False)


def _single_block_body(body: Region | Sequence[Operation] | None) -> Region:
    if isinstance(body, Region):
        if not body.blocks:
            body.add_block(Block())
        return body
    return Region(Block(list(body or ())))


def _parse_buffer_ref(parser: Parser) -> StringAttr:
    return parser.parse_symbol_name()


def _parse_axis(parser: Parser) -> int:
    if (word := parser.parse_optional_keyword_in(AXIS_NAMES)) is not None:
        return AXIS_NAMES.index(word)
    return parser.parse_integer(allow_boolean=False, allow_negative=False)


def _print_axis(printer: Printer, axis: int) -> None:
    printer.print_string(f" {AXIS_NAMES[axis]}" if 0 <= axis < 3 else f" {axis}")


def _print_attr_dict(printer: Printer, op: Operation) -> None:
    if op.attributes:
        printer.print_op_attributes(op.attributes)


def _init_op(
    op: Operation,
    *,
    operands: Sequence[SSAValue | Operation] = (),
    result_types: Sequence[Attribute] = (),
    properties: dict[str, Attribute] | None = None,
    regions: Sequence[Region] = (),
) -> None:
    """Construct an op without IRDL's generic argument processing nor
    `Operation.__init__`'s setters: its fields are set directly (about 4x faster
    than IRDL's constructor; vyre programs are built op by op, and vyre ops have
    no property defaults to fill). `verify` still checks the op against its
    IRDL definition."""
    values = SSAValues(SSAValue.get(value) for value in operands)
    uses = tuple(Use(op, index) for index in range(len(values)))
    for value, use in zip(values, uses):
        value.add_use(use)
    op._operands = values  # pyright: ignore[reportPrivateUsage]
    op._operand_uses = uses  # pyright: ignore[reportPrivateUsage]
    op.results = SSAValues(OpResult(ty, op, index) for index, ty in enumerate(result_types))
    op.properties = dict(properties) if properties else {}
    op.attributes = {}
    op.location = UNKNOWN_LOC
    op.regions = ()
    for region in regions:
        op.add_region(region)


class _OperandsSyntax(IRDLOperation):
    """The custom syntax `[<keyword>] %a, %b, ... {attrs}` shared by the ops that
    are a keyword (their kind or predicate, a property) and `ARITY` operands:
    `vyre.binop add %a, %b`, `vyre.fcmp lt %a, %b`, `vyre.fadd %a, %b`,
    `vyre.select %c, %t, %f`. The op is built as `cls(keyword, *operands)`, or
    `cls(*operands)` without a keyword."""

    ARITY: ClassVar[int]
    KEYWORD: ClassVar[str | None] = None
    """The property the keyword spells, or None."""
    KEYWORD_WHAT: ClassVar[str] = ""
    """How a parse error names the keyword (`a binary operator`)."""

    @classmethod
    def keywords(cls) -> tuple[str, ...]:
        """The keywords the syntax accepts."""
        return ()

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        keyword: list[str] = []
        if cls.KEYWORD is not None:
            spellings = cls.keywords()
            pos = parser.pos
            word = parser.parse_optional_identifier()
            if word is None or word not in spellings:
                parser.raise_error(
                    f"expected {cls.KEYWORD_WHAT}, one of: {', '.join(spellings)}", pos, parser.pos
                )
            keyword.append(word)
        operands = [parse_defined_operand(parser)]
        for _ in range(cls.ARITY - 1):
            parser.parse_punctuation(",")
            operands.append(parse_defined_operand(parser))
        op = cls(*keyword, *operands)
        op.attributes |= parser.parse_optional_attr_dict()
        return op

    def print(self, printer: Printer) -> None:
        if self.KEYWORD is not None:
            printer.print_string(f" {cast(StringAttr, self.properties[self.KEYWORD]).data}")
        printer.print_string(" ")
        printer.print_list(self.operands, printer.print_operand)
        _print_attr_dict(printer, self)


class _ConvertSyntax(IRDLOperation):
    """The custom syntax `%value to <type> {attrs}` of the ops that give one value
    another type: `vyre.cast`, `vyre.bitcast`. The op is built as `cls(value, type)`."""

    def __init__(self, value: SSAValue | Operation, target: DataTypeAttr):
        raise NotImplementedError  # each op constructs itself

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        value = parse_defined_operand(parser)
        parser.parse_keyword("to")
        op = cls(value, parse_data_type(parser))
        op.attributes |= parser.parse_optional_attr_dict()
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.operands[0])
        printer.print_string(" to ")
        print_data_type(printer, self.results[0].type)
        _print_attr_dict(printer, self)


class _CallSyntax(IRDLOperation):
    """The custom syntax `<callee>(%a, ...) : <type> {attrs}` of the calls: an op
    id as a string for `vyre.call`, a routine's symbol for `vyre.invoke`. The op
    is built as `cls(callee, args, type)`."""

    CALLEE: ClassVar[str]
    """The property naming what is called."""
    SYMBOL: ClassVar[bool]
    """Spelled `@name` (a symbol) rather than `"name"` (a string)."""

    def __init__(self, callee: str, args: Sequence[SSAValue | Operation], ty: DataTypeAttr):
        raise NotImplementedError  # each op constructs itself

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        callee = parser.parse_symbol_name().data if cls.SYMBOL else parser.parse_str_literal()
        args = parser.parse_comma_separated_list(
            parser.Delimiter.PAREN, lambda: parse_defined_operand(parser)
        )
        parser.parse_punctuation(":")
        op = cls(callee, args, parse_data_type(parser))
        op.attributes |= parser.parse_optional_attr_dict()
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        callee = cast(StringAttr, self.properties[self.CALLEE]).data
        if self.SYMBOL:
            printer.print_symbol_name(callee)
        else:
            printer.print_string_literal(callee)
        printer.print_string("(")
        printer.print_list(self.operands, printer.print_operand)
        printer.print_string(") : ")
        print_data_type(printer, self.results[0].type)
        _print_attr_dict(printer, self)


class BodyOp(IRDLOperation):
    """Shared accessors of ops whose regions hold statement lists."""

    @staticmethod
    def entry_block(region: Region) -> Block:
        block = region.blocks.first
        if block is None:
            block = Block()
            region.add_block(block)
        return block

    def _verify_single_block_regions(self) -> None:
        for region in self.regions:
            if len(region.blocks) > 1:
                raise VerifyException(
                    f"'{self.name}' regions hold one statement list (one block)"
                )
            if region.blocks.first is not None and region.blocks.first.args:
                raise VerifyException(f"'{self.name}' region blocks take no arguments")


# ---------------------------------------------------------------------------
# The kernel (program) op
# ---------------------------------------------------------------------------


@irdl_op_definition
class KernelOp(BodyOp):
    """A vyre Program: buffers, workgroup size and the entry body."""

    name = "vyre.kernel"
    sym_name = prop_def(StringAttr)
    workgroup_size = prop_def(ArrayAttr[IntAttr])
    buffers = prop_def(ArrayAttr[BufferDeclAttr])
    body = region_def()

    traits = traits_def(
        NoTerminator(), IsolatedFromAbove(), SymbolOpInterface(), RecursiveMemoryEffect()
    )

    def __init__(
        self,
        sym_name: str,
        workgroup_size: Sequence[int],
        buffers: Sequence[BufferDeclAttr],
        body: Region | Sequence[Operation] | None = None,
    ):
        _init_op(self, 
            properties={
                "sym_name": StringAttr(sym_name),
                "workgroup_size": ArrayAttr([IntAttr(v) for v in workgroup_size]),
                "buffers": ArrayAttr(list(buffers)),
            },
            regions=[_single_block_body(body)],
        )

    @property
    def entry(self) -> Block:
        return self.entry_block(self.body)

    @property
    def workgroup(self) -> tuple[int, ...]:
        return tuple(v.data for v in self.workgroup_size.data)

    @property
    def buffer_decls(self) -> tuple[BufferDeclAttr, ...]:
        return self.buffers.data

    def buffer(self, name: str) -> BufferDeclAttr | None:
        for decl in self.buffers.data:
            if decl.buffer_name.data == name:
                return decl
        return None

    def verify_(self) -> None:
        self._verify_single_block_regions()
        if len(self.workgroup_size.data) != 3:
            raise VerifyException("workgroup_size has exactly three components")

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        sym_name = parser.parse_symbol_name().data
        parser.parse_keyword("workgroup_size")
        sizes = parser.parse_comma_separated_list(
            parser.Delimiter.PAREN,
            lambda: parser.parse_integer(allow_boolean=False, allow_negative=False),
        )
        buffers: list[BufferDeclAttr] = []
        if parser.parse_optional_keyword("buffers") is not None:
            buffers = parser.parse_comma_separated_list(
                parser.Delimiter.PAREN, lambda: parse_buffer_decl_body(parser)
            )
        attributes = parser.parse_optional_attr_dict_with_keyword()
        op = cls(sym_name, sizes, buffers, _parse_body(parser))
        if attributes is not None:
            op.attributes |= attributes.data
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_symbol_name(self.sym_name.data)
        printer.print_string(" workgroup_size(")
        printer.print_list(self.workgroup, lambda v: printer.print_string(str(v)))
        printer.print_string(")")
        if self.buffers.data:
            printer.print_string(" buffers(")
            printer.print_list(
                self.buffers.data, lambda d: print_buffer_decl_body(printer, d)
            )
            printer.print_string(")")
        if self.attributes:
            printer.print_op_attributes(self.attributes, print_keyword=True)
        printer.print_string(" ")
        _print_body(printer, self.body)


# ---------------------------------------------------------------------------
# Expressions
# ---------------------------------------------------------------------------


class ExprOp(IRDLOperation):
    """Base of expression ops: exactly one result, the expression's value."""

    @property
    def value_type(self) -> DataTypeAttr:
        ty = self.results[0].type
        assert isinstance(ty, DataTypeAttr)
        return ty

    def inferred_type(self) -> Attribute | None:
        """The result type the op itself defines, or None where the op declares it
        (var, load, call, cast). The text form never spells an inferred type, so a
        different one can only come from the Python/xDSL API or the wire."""
        return None

    def verify_result_type(self) -> None:
        inferred = self.inferred_type()
        if inferred is not None and self.results[0].type != inferred:
            raise VerifyException(
                f"'{self.name}' yields {self.results[0].type} but the op defines {inferred}"
            )

    def verify_(self) -> None:
        self.verify_result_type()


class _LitOp(ExprOp, HasFolderInterface):
    """Shared shape of the literals: an integer `value` property and a fixed type;
    each literal says how its value is spelled and which values are in range.
    Literals are xDSL constants: `fold` gives the value, so the folders of the
    other ops read it (`literal_word`)."""

    value = prop_def(IntAttr)
    res = result_def(DataTypeAttr)
    traits = traits_def(Pure(), ConstantLike())

    def fold(self) -> Sequence[SSAValue | Attribute]:
        return (self.value,)

    LITERAL_TYPE: ClassVar[DataTypeAttr]

    def __init__(self, value: int):
        _init_op(self, properties={"value": IntAttr(int(value))}, result_types=[self.LITERAL_TYPE])

    def inferred_type(self) -> Attribute:
        return self.LITERAL_TYPE

    def verify_(self) -> None:
        self.verify_result_type()
        if not self.in_range(self.value.data):
            raise VerifyException(
                f"{self.LITERAL_TYPE.kind.data} literal {self.value.data} is out of range"
            )

    @staticmethod
    def in_range(value: int) -> bool:
        raise NotImplementedError

    @classmethod
    def parse_value(cls, parser: Parser) -> int:
        raise NotImplementedError

    def spelling(self) -> str:
        return str(self.value.data)

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        op = cls(cls.parse_value(parser))
        op.attributes |= parser.parse_optional_attr_dict()
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.spelling()}")
        _print_attr_dict(printer, self)


@irdl_op_definition
class LitU32Op(_LitOp):
    name = "vyre.lit_u32"
    LITERAL_TYPE: ClassVar[DataTypeAttr] = U32

    @staticmethod
    def in_range(value: int) -> bool:
        return 0 <= value <= U32_MAX

    @classmethod
    def parse_value(cls, parser: Parser) -> int:
        return parser.parse_integer(allow_boolean=False, allow_negative=False)


@irdl_op_definition
class LitI32Op(_LitOp):
    name = "vyre.lit_i32"
    LITERAL_TYPE: ClassVar[DataTypeAttr] = I32

    @staticmethod
    def in_range(value: int) -> bool:
        return -(2**31) <= value < 2**31

    @classmethod
    def parse_value(cls, parser: Parser) -> int:
        return parser.parse_integer(allow_boolean=False, allow_negative=True)


@irdl_op_definition
class LitBoolOp(_LitOp):
    name = "vyre.lit_bool"
    LITERAL_TYPE: ClassVar[DataTypeAttr] = BOOL

    @staticmethod
    def in_range(value: int) -> bool:
        return value in (0, 1)

    @classmethod
    def parse_value(cls, parser: Parser) -> int:
        return int(parser.parse_boolean())

    def spelling(self) -> str:
        return "true" if self.value.data else "false"


@irdl_op_definition
class LitU128Op(_LitOp):
    """A U128 literal, `vyre.lit_u128 <value>` (0 <= value < 2**128, in decimal)."""

    name = "vyre.lit_u128"
    LITERAL_TYPE: ClassVar[DataTypeAttr] = U128

    @staticmethod
    def in_range(value: int) -> bool:
        return 0 <= value <= U128_MAX

    @classmethod
    def parse_value(cls, parser: Parser) -> int:
        return parser.parse_integer(allow_boolean=False, allow_negative=False)


@irdl_op_definition
class VarOp(ExprOp):
    """Reads the current value of a local (a Let binding or a loop variable)."""

    name = "vyre.var"
    var_name = prop_def(StringAttr, prop_name="name")
    res = result_def(DataTypeAttr)
    traits = traits_def(MemoryReadEffect())

    def __init__(self, var_name: str, ty: DataTypeAttr):
        _init_op(self, properties={"name": StringAttr(var_name)}, result_types=[ty])
        if _NAME_HINT.fullmatch(var_name) and not var_name[0].isdigit():
            self.res.name_hint = var_name

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        var_name = parser.parse_str_literal()
        parser.parse_punctuation(":")
        op = cls(var_name, parse_data_type(parser))
        op.attributes |= parser.parse_optional_attr_dict()
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_string_literal(self.var_name.data)
        printer.print_string(" : ")
        print_data_type(printer, self.res.type)
        _print_attr_dict(printer, self)


@irdl_op_definition
class LoadOp(ExprOp):
    name = "vyre.load"
    buffer = prop_def(StringAttr)
    index = operand_def()
    res = result_def(DataTypeAttr)
    traits = traits_def(MemoryReadEffect())

    def __init__(self, buffer: str, index: SSAValue | Operation, ty: DataTypeAttr):
        _init_op(self, 
            operands=[index], properties={"buffer": StringAttr(buffer)}, result_types=[ty]
        )

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        buffer = _parse_buffer_ref(parser).data
        parser.parse_punctuation("[")
        index = parse_defined_operand(parser)
        parser.parse_punctuation("]")
        parser.parse_punctuation(":")
        op = cls(buffer, index, parse_data_type(parser))
        op.attributes |= parser.parse_optional_attr_dict()
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_symbol_name(self.buffer.data)
        printer.print_string("[")
        printer.print_operand(self.index)
        printer.print_string("] : ")
        print_data_type(printer, self.res.type)
        _print_attr_dict(printer, self)


@irdl_op_definition
class BufLenOp(ExprOp):
    name = "vyre.buf_len"
    buffer = prop_def(StringAttr)
    res = result_def(DataTypeAttr)
    traits = traits_def(Pure())

    def inferred_type(self) -> Attribute:
        return U32

    def __init__(self, buffer: str):
        _init_op(self, properties={"buffer": StringAttr(buffer)}, result_types=[U32])

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        op = cls(_parse_buffer_ref(parser).data)
        op.attributes |= parser.parse_optional_attr_dict()
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_symbol_name(self.buffer.data)
        _print_attr_dict(printer, self)


class IdOp(ExprOp):
    """Shared shape of the three id ops: an axis, a u32 result."""

    axis = prop_def(IntAttr)
    res = result_def(DataTypeAttr)
    traits = traits_def(Pure())

    def inferred_type(self) -> Attribute:
        return U32

    def __init__(self, axis: int):
        _init_op(self, properties={"axis": IntAttr(axis)}, result_types=[U32])

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        op = cls(_parse_axis(parser))
        op.attributes |= parser.parse_optional_attr_dict()
        return op

    def print(self, printer: Printer) -> None:
        _print_axis(printer, self.axis.data)
        _print_attr_dict(printer, self)


@irdl_op_definition
class InvocationIdOp(IdOp):
    name = "vyre.invocation_id"


@irdl_op_definition
class WorkgroupIdOp(IdOp):
    name = "vyre.workgroup_id"


@irdl_op_definition
class LocalIdOp(IdOp):
    name = "vyre.local_id"


def literal_word(value: SSAValue) -> int | None:
    """The 32-bit pattern of a value defined by a one-word literal op, else None."""
    owner = value.owner
    if isinstance(owner, _LitOp) and not isinstance(owner, LitU128Op):
        return owner.value.data & U32_MAX
    return None


def literal_u128(value: SSAValue) -> int | None:
    """The 128-bit value of a value defined by a U128 literal, else None."""
    owner = value.owner
    if isinstance(owner, LitU128Op):
        return owner.value.data & U128_MAX
    return None


def _scalar_kind(ty: Attribute) -> DataTypeKind | None:
    if isinstance(ty, DataTypeAttr) and ty.kind.data in _SCALAR_SPELLINGS:
        return ty.data_kind
    return None


_SCALAR_SPELLINGS = frozenset(kind.value for kind in SCALAR_KINDS)


def literal_attr(word: int, ty: DataTypeKind) -> IntAttr:
    """The `value` property of the literal of type `ty` holding pattern `word`."""
    return IntAttr(signed(word) if ty == DataTypeKind.I32 else word & U32_MAX)


@irdl_op_definition
class BinOp(_OperandsSyntax, ExprOp, HasFolderInterface):
    """`lhs <kind> rhs` on u32 operands; comparisons and logical ops give 0/1.
    Folds when both operands are scalar literals (`fold_binop`)."""

    ARITY: ClassVar[int] = 2
    KEYWORD: ClassVar[str | None] = "kind"
    KEYWORD_WHAT: ClassVar[str] = "a binary operator"

    @classmethod
    def keywords(cls) -> tuple[str, ...]:
        return tuple(kind.value for kind in BinOpKind)

    name = "vyre.binop"
    kind = prop_def(StringAttr)
    lhs = operand_def()
    rhs = operand_def()
    res = result_def(DataTypeAttr)
    traits = traits_def(Pure())

    def inferred_type(self) -> Attribute:
        return binop_result_type(self.kind.data, self.lhs.type, self.rhs.type)

    def __init__(
        self, kind: BinOpKind | str, lhs: SSAValue | Operation, rhs: SSAValue | Operation
    ):
        spelling = BinOpKind(kind).value
        left, right = SSAValue.get(lhs), SSAValue.get(rhs)
        _init_op(self, 
            operands=[left, right],
            properties={"kind": StringAttr(spelling)},
            result_types=[binop_result_type(spelling, left.type, right.type)],
        )

    @property
    def op_kind(self) -> BinOpKind:
        return BinOpKind(self.kind.data)

    def verify_(self) -> None:
        self.verify_result_type()
        if self.kind.data not in _BINOP_SPELLINGS:
            raise VerifyException(
                f"`{self.kind.data}` is not an integer binary operator (float operators are"
                " their own ops, e.g. vyre.fadd)"
            )

    def fold(self) -> Sequence[SSAValue | Attribute] | None:
        if self.kind.data in _U128_BINOP_SPELLINGS:
            a, b = literal_u128(self.lhs), literal_u128(self.rhs)
            if a is not None and b is not None:
                return (IntAttr(fold_u128_binop(self.op_kind, a, b)),)
        lhs, rhs = literal_word(self.lhs), literal_word(self.rhs)
        if lhs is None or rhs is None or self.kind.data not in _BINOP_SPELLINGS:
            return None
        if _scalar_kind(self.lhs.type) is None or _scalar_kind(self.rhs.type) is None:
            return None
        return (IntAttr(fold_binop(self.op_kind, lhs, rhs)),)


_UNOP_SPELLINGS = frozenset(kind.value for kind in UnOpKind)
_BINOP_SPELLINGS = frozenset(kind.value for kind in BinOpKind)
_U128_BINOP_SPELLINGS = frozenset(kind.value for kind in U128_BINOP_KINDS)
_U128_VALUE_SPELLINGS = _U128_BINOP_SPELLINGS - {kind.value for kind in U128_COMPARISONS}
_U128_UNOP_SPELLINGS = frozenset(kind.value for kind in U128_UNOP_KINDS)


def binop_result_type(kind: str, lhs: Attribute, rhs: Attribute) -> DataTypeAttr:
    """A U128 arithmetic, bitwise or shift operator with a U128 operand yields
    U128; every other binary operation yields u32 (comparisons give 0/1)."""
    if kind in _U128_VALUE_SPELLINGS and (lhs == U128 or rhs == U128):
        return U128
    return U32


def unop_result_type(kind: UnOpKind, operand: Attribute) -> DataTypeAttr:
    """negate, bit_not and reverse_bits keep an i32 or u128 operand's type;
    everything else yields u32."""
    if kind in (UnOpKind.NEGATE, UnOpKind.BIT_NOT, UnOpKind.REVERSE_BITS) and operand in (I32, U128):
        return cast(DataTypeAttr, operand)
    return U32


@irdl_op_definition
class UnOp(_OperandsSyntax, ExprOp, HasFolderInterface):
    """`<kind> operand`; folds when the operand is a scalar literal."""

    ARITY: ClassVar[int] = 1
    KEYWORD: ClassVar[str | None] = "kind"
    KEYWORD_WHAT: ClassVar[str] = "a unary operator"

    @classmethod
    def keywords(cls) -> tuple[str, ...]:
        return tuple(kind.value for kind in UnOpKind)

    name = "vyre.unop"
    kind = prop_def(StringAttr)
    operand = operand_def()
    res = result_def(DataTypeAttr)
    traits = traits_def(Pure())

    def inferred_type(self) -> Attribute | None:
        if self.kind.data not in _UNOP_SPELLINGS:
            return None
        return unop_result_type(UnOpKind(self.kind.data), self.operand.type)

    def verify_(self) -> None:
        self.verify_result_type()
        if self.kind.data not in _UNOP_SPELLINGS:
            raise VerifyException(
                f"`{self.kind.data}` is not an integer unary operator (float operators are"
                " their own ops, e.g. vyre.fneg)"
            )

    def __init__(self, kind: UnOpKind | str, operand: SSAValue | Operation):
        kind = UnOpKind(kind)
        value = SSAValue.get(operand)
        _init_op(self, 
            operands=[value],
            properties={"kind": StringAttr(kind.value)},
            result_types=[unop_result_type(kind, value.type)],
        )

    @property
    def op_kind(self) -> UnOpKind:
        return UnOpKind(self.kind.data)

    def fold(self) -> Sequence[SSAValue | Attribute] | None:
        wide = literal_u128(self.operand)
        if wide is not None:
            if self.kind.data not in _U128_UNOP_SPELLINGS:
                return None
            return (IntAttr(fold_u128_unop(self.op_kind, wide)),)
        word = literal_word(self.operand)
        result = _scalar_kind(self.res.type)
        if word is None or result is None or _scalar_kind(self.operand.type) is None:
            return None
        if self.kind.data not in _UNOP_SPELLINGS:
            return None
        return (literal_attr(fold_unop(self.op_kind, word), result),)


@irdl_op_definition
class CallOp(_CallSyntax, ExprOp):
    """A call of a standard-library op by id; inlined before lowering."""

    name = "vyre.call"
    CALLEE: ClassVar[str] = "op_id"
    SYMBOL: ClassVar[bool] = False
    op_id = prop_def(StringAttr)
    args = var_operand_def()
    res = result_def(DataTypeAttr)

    def __init__(
        self, op_id: str, args: Sequence[SSAValue | Operation], ty: DataTypeAttr
    ):
        _init_op(self, 
            operands=list(args), properties={"op_id": StringAttr(op_id)}, result_types=[ty]
        )



@irdl_op_definition
class SelectOp(_OperandsSyntax, ExprOp, HasFolderInterface):
    """`cond ? if_true : if_false`; both arms are evaluated. With a literal
    condition it folds to the arm it picks (the arms are already computed)."""

    ARITY: ClassVar[int] = 3

    name = "vyre.select"
    cond = operand_def()
    if_true = operand_def()
    if_false = operand_def()
    res = result_def(DataTypeAttr)
    traits = traits_def(Pure())

    def inferred_type(self) -> Attribute | None:
        if_true = self.if_true.type
        return if_true if isinstance(if_true, DataTypeAttr) else None

    def __init__(
        self,
        cond: SSAValue | Operation,
        if_true: SSAValue | Operation,
        if_false: SSAValue | Operation,
    ):
        true_value = SSAValue.get(if_true)
        ty = true_value.type if isinstance(true_value.type, DataTypeAttr) else U32
        _init_op(self, operands=[cond, true_value, if_false], result_types=[ty])

    def fold(self) -> Sequence[SSAValue | Attribute] | None:
        cond = literal_word(self.cond)
        if cond is None or _scalar_kind(self.cond.type) is None:
            return None
        arm = self.if_true if cond else self.if_false
        return (arm,) if arm.type == self.res.type else None


@irdl_op_definition
class CastOp(_ConvertSyntax, ExprOp, HasFolderInterface):
    """`value` converted to the result type (docs/semantics.md); folds a scalar literal to
    a scalar type, and a cast to the value's own type to the value."""

    name = "vyre.cast"
    value = operand_def()
    res = result_def(DataTypeAttr)
    traits = traits_def(Pure())

    def __init__(self, value: SSAValue | Operation, target: DataTypeAttr):
        _init_op(self, operands=[value], result_types=[target])

    def fold(self) -> Sequence[SSAValue | Attribute] | None:
        if self.value.type == self.res.type:
            return (self.value,)
        word = literal_word(self.value)
        source, target = _scalar_kind(self.value.type), _scalar_kind(self.res.type)
        if word is None or source is None or target is None:
            return None
        lanes = fold_cast(source, (word,), target)
        return None if lanes is None else (literal_attr(lanes[0], target),)

    @property
    def target(self) -> DataTypeAttr:
        return self.value_type


# ---------------------------------------------------------------------------
# Strict floats (F32, F16, BF16). Values are IEEE bit patterns; every float
# operation is its own op class, so rewrite patterns (float-strict) dispatch on
# the class. Operands of one op have one float type; the result has that type
# (comparisons and classifications give bool). Semantics: docs/floats.md;
# vyre.validate checks the type rules.
# ---------------------------------------------------------------------------

FLOAT_BITS: dict[DataTypeKind, int] = {
    kind: facts.float_bits for kind, facts in TYPE_FACTS.items() if facts.float_bits
}
"""Width of each float type's bit pattern (F16/BF16 use the low half of a word)."""


def _float_type_or_u32(value: SSAValue) -> DataTypeAttr:
    ty = value.type
    return ty if isinstance(ty, DataTypeAttr) and ty.data_kind.is_float else U32


@irdl_op_definition
class LitFloatOp(ExprOp):
    """A float literal given by its bit pattern (any pattern, NaNs included):
    `vyre.lit_float 0x3f800000 : f32`."""

    name = "vyre.lit_float"
    bits = prop_def(IntAttr)
    res = result_def(DataTypeAttr)
    traits = traits_def(Pure())

    def __init__(self, bits: int, ty: DataTypeAttr):
        _init_op(self, properties={"bits": IntAttr(int(bits))}, result_types=[ty])

    @property
    def float_kind(self) -> DataTypeKind:
        return self.value_type.data_kind

    def verify_(self) -> None:
        ty = cast(Attribute, self.res.type)
        if not isinstance(ty, DataTypeAttr) or not ty.data_kind.is_float:
            raise VerifyException(f"a float literal has a float type (f32, f16, bf16), not {ty}")
        width = FLOAT_BITS[ty.data_kind]
        if not 0 <= self.bits.data < 1 << width:
            raise VerifyException(f"bits {self.bits.data:#x} do not fit the {width} bits of {ty.kind.data}")

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        bits = parser.parse_integer(allow_boolean=False, allow_negative=False)
        parser.parse_punctuation(":")
        op = cls(bits, parse_data_type(parser))
        op.attributes |= parser.parse_optional_attr_dict()
        return op

    def print(self, printer: Printer) -> None:
        ty = cast(Attribute, self.res.type)
        width = FLOAT_BITS.get(ty.data_kind, 32) if isinstance(ty, DataTypeAttr) else 32
        printer.print_string(f" 0x{self.bits.data:0{width // 4}x} : ")
        print_data_type(printer, self.res.type)
        _print_attr_dict(printer, self)


class FloatOp(_OperandsSyntax, ExprOp):
    """A float operation: every one is its own op class, and the class is the one
    home of the op's facts. `SHORT_NAME` names the operation without its format
    or prefix (`add`, `sqrt`: campaigns, library ids and soft-float routines
    use it), except that an approximate op's is its mnemonic (`fsqrt_approx`),
    its one name in the IR, the docs and vyre-conform; `ARITY` counts its float operands; the operands share one float type
    and the result has it, except where `RESULT` says otherwise (bool for
    comparisons and classifications). Strict ops (every subclass but
    `ApproximateUnaryOp`) are rewritten into integer IR by float-strict."""

    SHORT_NAME: ClassVar[str]
    ARITY: ClassVar[int]
    RESULT: ClassVar[DataTypeAttr | None] = None
    """A fixed result type (bool), or None: the operands' float type."""
    traits = traits_def(Pure())

    @classmethod
    def mnemonic(cls) -> str:
        """The op's name without the dialect prefix (`fadd`): its public spelling
        (`vyre.ir.BinOp.FADD.value`) and its text keyword."""
        return cls.name.removeprefix("vyre.")

    def _result_type(self, first: SSAValue) -> DataTypeAttr:
        return self.RESULT if self.RESULT is not None else _float_type_or_u32(first)

    def inferred_type(self) -> Attribute | None:
        if self.RESULT is not None:
            return self.RESULT
        ty = self.operands[0].type
        return ty if isinstance(ty, DataTypeAttr) and ty.data_kind.is_float else None

    @classmethod
    def over(cls, *operands: SSAValue | Operation) -> Self:
        """The op over `ARITY` operands."""
        return cls(*operands)


class FloatBinaryOp(FloatOp):
    """`lhs <op> rhs` on two values of one float type, rounded once (RNE)."""

    ARITY: ClassVar[int] = 2
    lhs = operand_def()
    rhs = operand_def()
    res = result_def(DataTypeAttr)

    def __init__(self, lhs: SSAValue | Operation, rhs: SSAValue | Operation):
        left = SSAValue.get(lhs)
        _init_op(self, operands=[left, rhs], result_types=[self._result_type(left)])


@irdl_op_definition
class FAddOp(FloatBinaryOp):
    name = "vyre.fadd"
    SHORT_NAME: ClassVar[str] = "add"


@irdl_op_definition
class FSubOp(FloatBinaryOp):
    name = "vyre.fsub"
    SHORT_NAME: ClassVar[str] = "sub"


@irdl_op_definition
class FMulOp(FloatBinaryOp):
    name = "vyre.fmul"
    SHORT_NAME: ClassVar[str] = "mul"


@irdl_op_definition
class FDivOp(FloatBinaryOp):
    name = "vyre.fdiv"
    SHORT_NAME: ClassVar[str] = "div"


@irdl_op_definition
class FMinOp(FloatBinaryOp):
    """IEEE 754-2019 minimumNumber (-0 < +0; a NaN operand is ignored)."""

    name = "vyre.fmin"
    SHORT_NAME: ClassVar[str] = "min"


@irdl_op_definition
class FMaxOp(FloatBinaryOp):
    """IEEE 754-2019 maximumNumber (-0 < +0; a NaN operand is ignored)."""

    name = "vyre.fmax"
    SHORT_NAME: ClassVar[str] = "max"


FLOAT_PREDICATES = ("eq", "ne", "lt", "le", "gt", "ge")


@irdl_op_definition
class FCmpOp(FloatOp):
    """`lhs <predicate> rhs` for one float type, a bool; false when an operand is
    NaN, except `ne`, which is true: `vyre.fcmp lt %a, %b`. Each predicate is
    spelled `f<predicate>` in the public enum (`BinOp.FLT`)."""

    name = "vyre.fcmp"
    SHORT_NAME: ClassVar[str] = "cmp"
    ARITY: ClassVar[int] = 2
    RESULT: ClassVar[DataTypeAttr | None] = BOOL
    PREDICATES: ClassVar[tuple[str, ...]] = FLOAT_PREDICATES
    KEYWORD: ClassVar[str | None] = "predicate"
    KEYWORD_WHAT: ClassVar[str] = "a float predicate"
    predicate = prop_def(StringAttr)
    lhs = operand_def()
    rhs = operand_def()
    res = result_def(DataTypeAttr)

    def __init__(self, predicate: str, lhs: SSAValue | Operation, rhs: SSAValue | Operation):
        _init_op(
            self,
            operands=[lhs, rhs],
            properties={"predicate": StringAttr(predicate)},
            result_types=[BOOL],
        )

    def verify_(self) -> None:
        self.verify_result_type()
        if self.predicate.data not in FLOAT_PREDICATES:
            raise VerifyException(
                f"unknown float predicate `{self.predicate.data}` (one of {', '.join(FLOAT_PREDICATES)})"
            )

    @classmethod
    def keywords(cls) -> tuple[str, ...]:
        return FLOAT_PREDICATES


@irdl_op_definition
class FmaOp(FloatOp):
    """`a * b + c` with ONE rounding (IEEE fusedMultiplyAdd): `vyre.fma %a, %b, %c`."""

    name = "vyre.fma"
    SHORT_NAME: ClassVar[str] = "fma"
    ARITY: ClassVar[int] = 3
    a = operand_def()
    b = operand_def()
    c = operand_def()
    res = result_def(DataTypeAttr)

    def __init__(
        self, a: SSAValue | Operation, b: SSAValue | Operation, c: SSAValue | Operation
    ):
        first = SSAValue.get(a)
        _init_op(self, operands=[first, b, c], result_types=[self._result_type(first)])


class FloatUnaryOp(FloatOp):
    """`<op> operand` on a float value; the result has its type."""

    ARITY: ClassVar[int] = 1
    operand = operand_def()
    res = result_def(DataTypeAttr)

    def __init__(self, operand: SSAValue | Operation):
        value = SSAValue.get(operand)
        _init_op(self, operands=[value], result_types=[self._result_type(value)])


class FloatClassifyOp(FloatUnaryOp):
    """A classification of a float value: a bool."""

    RESULT: ClassVar[DataTypeAttr | None] = BOOL


@irdl_op_definition
class FNegOp(FloatUnaryOp):
    """Flips the sign bit; every other bit (NaN payloads too) is kept."""

    name = "vyre.fneg"
    SHORT_NAME: ClassVar[str] = "neg"


@irdl_op_definition
class FAbsOp(FloatUnaryOp):
    """Clears the sign bit; every other bit (NaN payloads too) is kept."""

    name = "vyre.fabs"
    SHORT_NAME: ClassVar[str] = "abs"


@irdl_op_definition
class FSqrtOp(FloatUnaryOp):
    name = "vyre.fsqrt"
    SHORT_NAME: ClassVar[str] = "sqrt"


@irdl_op_definition
class FFloorOp(FloatUnaryOp):
    name = "vyre.ffloor"
    SHORT_NAME: ClassVar[str] = "floor"


@irdl_op_definition
class FCeilOp(FloatUnaryOp):
    name = "vyre.fceil"
    SHORT_NAME: ClassVar[str] = "ceil"


@irdl_op_definition
class FRoundOp(FloatUnaryOp):
    """Round to the nearest integral value, ties to even."""

    name = "vyre.fround"
    SHORT_NAME: ClassVar[str] = "round"


@irdl_op_definition
class FTruncOp(FloatUnaryOp):
    name = "vyre.ftrunc"
    SHORT_NAME: ClassVar[str] = "trunc"


@irdl_op_definition
class FIsNanOp(FloatClassifyOp):
    name = "vyre.fis_nan"
    SHORT_NAME: ClassVar[str] = "is_nan"


@irdl_op_definition
class FIsInfOp(FloatClassifyOp):
    name = "vyre.fis_inf"
    SHORT_NAME: ClassVar[str] = "is_inf"


class FloatFunctionOp(FloatUnaryOp):
    """A correctly rounded function of one float value (`vyre.fexp2`...): the exact
    mathematical value rounded once, to nearest even, in the operand's own format
    (never a wider result rounded again); special values as C's Annex F lists."""


@irdl_op_definition
class FExp2Op(FloatFunctionOp):
    """2**x, correctly rounded."""

    name = "vyre.fexp2"
    SHORT_NAME: ClassVar[str] = "exp2"


@irdl_op_definition
class FExpOp(FloatFunctionOp):
    """e**x, correctly rounded."""

    name = "vyre.fexp"
    SHORT_NAME: ClassVar[str] = "exp"


@irdl_op_definition
class FExp10Op(FloatFunctionOp):
    """10**x, correctly rounded."""

    name = "vyre.fexp10"
    SHORT_NAME: ClassVar[str] = "exp10"


@irdl_op_definition
class FLogOp(FloatFunctionOp):
    """The natural logarithm, correctly rounded."""

    name = "vyre.flog"
    SHORT_NAME: ClassVar[str] = "log"


@irdl_op_definition
class FLog2Op(FloatFunctionOp):
    """The base-2 logarithm, correctly rounded."""

    name = "vyre.flog2"
    SHORT_NAME: ClassVar[str] = "log2"


@irdl_op_definition
class FLog10Op(FloatFunctionOp):
    """The base-10 logarithm, correctly rounded."""

    name = "vyre.flog10"
    SHORT_NAME: ClassVar[str] = "log10"


@irdl_op_definition
class FSinOp(FloatFunctionOp):
    """sin(x), correctly rounded (sin(+-0) = +-0, sin(+-inf) = NaN)."""

    name = "vyre.fsin"
    SHORT_NAME: ClassVar[str] = "sin"


@irdl_op_definition
class FCosOp(FloatFunctionOp):
    """cos(x), correctly rounded (cos(+-0) = 1, cos(+-inf) = NaN)."""

    name = "vyre.fcos"
    SHORT_NAME: ClassVar[str] = "cos"


@irdl_op_definition
class FTanOp(FloatFunctionOp):
    """tan(x), correctly rounded (tan(+-0) = +-0, tan(+-inf) = NaN)."""

    name = "vyre.ftan"
    SHORT_NAME: ClassVar[str] = "tan"


@irdl_op_definition
class FAsinOp(FloatFunctionOp):
    """asin(x), correctly rounded: NaN for |x| > 1, asin(+-0) = +-0."""

    name = "vyre.fasin"
    SHORT_NAME: ClassVar[str] = "asin"


@irdl_op_definition
class FAcosOp(FloatFunctionOp):
    """acos(x), correctly rounded: NaN for |x| > 1, acos(1) = +0."""

    name = "vyre.facos"
    SHORT_NAME: ClassVar[str] = "acos"


@irdl_op_definition
class FAtanOp(FloatFunctionOp):
    """atan(x), correctly rounded: atan(+-0) = +-0, atan(+-inf) = +-pi/2 rounded."""

    name = "vyre.fatan"
    SHORT_NAME: ClassVar[str] = "atan"


@irdl_op_definition
class FAtan2Op(FloatBinaryOp):
    """atan2(y, x) (`lhs` is y, like C), correctly rounded in the operands' float
    type: the angle of the point (x, y) in [-pi, pi], signed zeros and infinities
    as C's Annex F lists."""

    name = "vyre.fatan2"
    SHORT_NAME: ClassVar[str] = "atan2"


@irdl_op_definition
class FTanhOp(FloatFunctionOp):
    """tanh(x), correctly rounded (tanh(+-inf) = +-1)."""

    name = "vyre.ftanh"
    SHORT_NAME: ClassVar[str] = "tanh"


@irdl_op_definition
class FErfOp(FloatFunctionOp):
    """erf(x), correctly rounded (erf(+-inf) = +-1)."""

    name = "vyre.ferf"
    SHORT_NAME: ClassVar[str] = "erf"


@irdl_op_definition
class FPowOp(FloatBinaryOp):
    """pow(x, y) (`lhs` is x), correctly rounded in the operands' float type:
    pow(x, +-0) = 1 and pow(+1, y) = 1 even for NaN, NaN for x < 0 and a
    non-integer y, the sign of x kept for odd integer y, zeros and infinities
    as C's Annex F lists."""

    name = "vyre.fpow"
    SHORT_NAME: ClassVar[str] = "pow"


@dataclass(frozen=True)
class Tolerance:
    """The declared error bound of an approximate op (WGSL's accuracy rule for
    the builtin it lowers to): within `ulp` units in the last place of the exact
    result, or within `absolute` of it, for finite inputs in [`low`, `high`]
    (None: unbounded) whose exact result is a normal f32 or zero."""

    ulp: float
    absolute: float = 0.0
    low: float | None = None
    high: float | None = None
    ulp_per_magnitude: float = 0.0
    """Extra ULPs per unit of |x| (exp2: 3 + 2|x|)."""
    builtin: str = ""


class ApproximateUnaryOp(FloatUnaryOp):
    """An approximate float operation: it lowers to the native WGSL builtin (its
    bits depend on the GPU) and is held to a declared `TOLERANCE`, never to
    bit-exactness; `float-strict` leaves it alone. F32 only."""

    TOLERANCE: ClassVar[Tolerance]


@irdl_op_definition
class FSqrtApproxOp(ApproximateUnaryOp):
    name = "vyre.fsqrt_approx"
    SHORT_NAME: ClassVar[str] = "fsqrt_approx"
    TOLERANCE: ClassVar[Tolerance] = Tolerance(3.0, low=0.0, builtin="sqrt")


@irdl_op_definition
class FExp2ApproxOp(ApproximateUnaryOp):
    name = "vyre.fexp2_approx"
    SHORT_NAME: ClassVar[str] = "fexp2_approx"
    TOLERANCE: ClassVar[Tolerance] = Tolerance(3.0, ulp_per_magnitude=2.0, low=-126.0, high=128.0, builtin="exp2")


@irdl_op_definition
class FLog2ApproxOp(ApproximateUnaryOp):
    name = "vyre.flog2_approx"
    SHORT_NAME: ClassVar[str] = "flog2_approx"
    TOLERANCE: ClassVar[Tolerance] = Tolerance(3.0, absolute=2.0**-21, low=0.0, builtin="log2")


@irdl_op_definition
class FSinApproxOp(ApproximateUnaryOp):
    name = "vyre.fsin_approx"
    SHORT_NAME: ClassVar[str] = "fsin_approx"
    TOLERANCE: ClassVar[Tolerance] = Tolerance(0.0, absolute=2.0**-11, low=-3.14159265, high=3.14159265, builtin="sin")


@irdl_op_definition
class FCosApproxOp(ApproximateUnaryOp):
    name = "vyre.fcos_approx"
    SHORT_NAME: ClassVar[str] = "fcos_approx"
    TOLERANCE: ClassVar[Tolerance] = Tolerance(0.0, absolute=2.0**-11, low=-3.14159265, high=3.14159265, builtin="cos")


@irdl_op_definition
class BitcastOp(_ConvertSyntax, ExprOp, HasFolderInterface):
    """The bits of `value` read as the result type: `vyre.bitcast %x to u32`.
    F32 <-> U32/I32 keep all 32 bits; F16/BF16 <-> U32/I32 go through the low 16
    bits (a 16-bit pattern widens with zeros; a word narrows to its low half)."""

    name = "vyre.bitcast"
    value = operand_def()
    res = result_def(DataTypeAttr)
    traits = traits_def(Pure())

    def __init__(self, value: SSAValue | Operation, target: DataTypeAttr):
        _init_op(self, operands=[value], result_types=[target])

    def fold(self) -> Sequence[SSAValue | Attribute] | None:
        if self.value.type == self.res.type:
            return (self.value,)
        inner = self.value.owner
        # bitcast(bitcast(x)) is x when no bits were dropped on the way
        if (
            isinstance(inner, BitcastOp)
            and inner.value.type == self.res.type
            and bitcast_width(inner.value.type) <= bitcast_width(self.value.type)
        ):
            return (inner.value,)
        word = inner.bits.data if isinstance(inner, LitFloatOp) else literal_word(self.value)
        target = cast(Attribute, self.res.type)
        if word is None or not isinstance(target, DataTypeAttr) or target.data_kind not in BITCAST_WIDTHS:
            return None
        kind = target.data_kind
        if kind.is_float:
            return (IntAttr(word & ((1 << FLOAT_BITS[kind]) - 1)),)
        return (literal_attr(word, kind),)


BITCAST_WIDTHS: dict[DataTypeKind, int] = {
    DataTypeKind.U32: 32,
    DataTypeKind.I32: 32,
    DataTypeKind.F32: 32,
    DataTypeKind.F16: 16,
    DataTypeKind.BF16: 16,
}


def bitcast_width(ty: Attribute) -> int:
    """Bits a value of this type carries through a bitcast (0: not bitcastable)."""
    if not isinstance(ty, DataTypeAttr):
        return 0
    return BITCAST_WIDTHS.get(ty.data_kind, 0)


def bitcast_defined(source: DataTypeKind, target: DataTypeKind) -> bool:
    """Bitcasts between 32-bit values (f32, u32, i32), and between a 16-bit float
    and u32/i32 (through the low 16 bits), or a type to itself."""
    a, b = BITCAST_WIDTHS.get(source), BITCAST_WIDTHS.get(target)
    if a is None or b is None:
        return False
    if source == target or a == b == 32:
        return True
    integers = (DataTypeKind.U32, DataTypeKind.I32)
    return source in integers or target in integers


@irdl_op_definition
class AtomicOp(ExprOp):
    """Atomic read-modify-write of `buffer[index]`; yields the previous value."""

    name = "vyre.atomic"
    kind = prop_def(StringAttr)
    buffer = prop_def(StringAttr)
    index = operand_def()
    value = operand_def()
    expected = opt_operand_def()
    res = result_def(DataTypeAttr)

    def inferred_type(self) -> Attribute:
        return U32

    def __init__(
        self,
        kind: AtomicOpKind | str,
        buffer: str,
        index: SSAValue | Operation,
        value: SSAValue | Operation,
        expected: SSAValue | Operation | None = None,
    ):
        _init_op(self, 
            operands=[index, value] + ([] if expected is None else [expected]),
            properties={
                "kind": StringAttr(AtomicOpKind(kind).value),
                "buffer": StringAttr(buffer),
            },
            result_types=[U32],
        )

    @property
    def op_kind(self) -> AtomicOpKind:
        return AtomicOpKind(self.kind.data)

    def verify_(self) -> None:
        self.verify_result_type()
        is_cas = self.op_kind == AtomicOpKind.COMPARE_EXCHANGE
        if is_cas and self.expected is None:
            raise VerifyException("compare_exchange needs an `expected` operand")
        if not is_cas and self.expected is not None:
            raise VerifyException(f"atomic {self.kind.data} takes no `expected` operand")

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        kind = _parse_enum_keyword(parser, AtomicOpKind, "an atomic operator")
        buffer = _parse_buffer_ref(parser).data
        parser.parse_punctuation("[")
        index = parse_defined_operand(parser)
        parser.parse_punctuation("]")
        parser.parse_punctuation(",")
        value = parse_defined_operand(parser)
        expected = None
        if parser.parse_optional_keyword("expected") is not None:
            expected = parse_defined_operand(parser)
        op = cls(kind, buffer, index, value, expected)
        op.attributes |= parser.parse_optional_attr_dict()
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.kind.data} ")
        printer.print_symbol_name(self.buffer.data)
        printer.print_string("[")
        printer.print_operand(self.index)
        printer.print_string("], ")
        printer.print_operand(self.value)
        if self.expected is not None:
            printer.print_string(" expected ")
            printer.print_operand(self.expected)
        _print_attr_dict(printer, self)


# ---------------------------------------------------------------------------
# Statements
# ---------------------------------------------------------------------------


class StmtOp(IRDLOperation):
    """Marker base of statement ops (no results)."""


class _NamedValueStmt(StmtOp):
    """Shared shape of `let` and `assign`: a local's name and the value given to it."""

    var_name = prop_def(StringAttr, prop_name="name")
    value = operand_def()

    def __init__(self, var_name: str, value: SSAValue | Operation):
        _init_op(self, operands=[value], properties={"name": StringAttr(var_name)})

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        var_name = parser.parse_str_literal()
        parser.parse_punctuation("=")
        op = cls(var_name, parse_defined_operand(parser))
        op.attributes |= parser.parse_optional_attr_dict()
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_string_literal(self.var_name.data)
        printer.print_string(" = ")
        printer.print_operand(self.value)
        _print_attr_dict(printer, self)


@irdl_op_definition
class LetOp(_NamedValueStmt):
    """Declares a local, visible until the end of its enclosing statement list."""

    name = "vyre.let"


@irdl_op_definition
class AssignOp(_NamedValueStmt):
    """Writes a declared local (never a loop variable)."""

    name = "vyre.assign"


@irdl_op_definition
class StoreOp(StmtOp):
    name = "vyre.store"
    buffer = prop_def(StringAttr)
    index = operand_def()
    value = operand_def()

    def __init__(
        self, buffer: str, index: SSAValue | Operation, value: SSAValue | Operation
    ):
        _init_op(self, operands=[index, value], properties={"buffer": StringAttr(buffer)})

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        buffer = _parse_buffer_ref(parser).data
        parser.parse_punctuation("[")
        index = parse_defined_operand(parser)
        parser.parse_punctuation("]")
        parser.parse_punctuation("=")
        op = cls(buffer, index, parse_defined_operand(parser))
        op.attributes |= parser.parse_optional_attr_dict()
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_symbol_name(self.buffer.data)
        printer.print_string("[")
        printer.print_operand(self.index)
        printer.print_string("] = ")
        printer.print_operand(self.value)
        _print_attr_dict(printer, self)


@irdl_op_definition
class IfOp(StmtOp, BodyOp):
    name = "vyre.if"
    cond = operand_def()
    then_region = region_def()
    else_region = region_def()
    traits = traits_def(NoTerminator(), RecursiveMemoryEffect())

    def __init__(
        self,
        cond: SSAValue | Operation,
        then_body: Region | Sequence[Operation] | None = None,
        else_body: Region | Sequence[Operation] | None = None,
    ):
        _init_op(self, 
            operands=[cond],
            regions=[_single_block_body(then_body), _single_block_body(else_body)],
        )

    @property
    def then_block(self) -> Block:
        return self.entry_block(self.then_region)

    @property
    def else_block(self) -> Block:
        return self.entry_block(self.else_region)

    def verify_(self) -> None:
        self._verify_single_block_regions()

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        cond = parse_defined_operand(parser)
        then_body = _parse_body(parser)
        else_body = None
        if parser.parse_optional_keyword("else") is not None:
            else_body = _parse_body(parser)
        op = cls(cond, then_body, else_body)
        op.attributes |= parser.parse_optional_attr_dict()
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.cond)
        printer.print_string(" ")
        _print_body(printer, self.then_region)
        else_block = self.else_region.blocks.first
        if else_block is not None and else_block.ops:
            printer.print_string(" else ")
            _print_body(printer, self.else_region)
        _print_attr_dict(printer, self)


@irdl_op_definition
class LoopOp(StmtOp, BodyOp):
    """`for var in [from, to)`; bounds evaluated once, the variable is immutable."""

    name = "vyre.loop"
    var_name = prop_def(StringAttr, prop_name="var")
    lower = operand_def()
    upper = operand_def()
    body = region_def()
    traits = traits_def(NoTerminator(), RecursiveMemoryEffect())

    def __init__(
        self,
        var_name: str,
        lower: SSAValue | Operation,
        upper: SSAValue | Operation,
        body: Region | Sequence[Operation] | None = None,
    ):
        _init_op(self, 
            operands=[lower, upper],
            properties={"var": StringAttr(var_name)},
            regions=[_single_block_body(body)],
        )

    @property
    def body_block(self) -> Block:
        return self.entry_block(self.body)

    def verify_(self) -> None:
        self._verify_single_block_regions()

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        var_name = parser.parse_str_literal()
        parser.parse_punctuation("=")
        lower = parse_defined_operand(parser)
        parser.parse_keyword("to")
        upper = parse_defined_operand(parser)
        op = cls(var_name, lower, upper, _parse_body(parser))
        op.attributes |= parser.parse_optional_attr_dict()
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_string_literal(self.var_name.data)
        printer.print_string(" = ")
        printer.print_operand(self.lower)
        printer.print_string(" to ")
        printer.print_operand(self.upper)
        printer.print_string(" ")
        _print_body(printer, self.body)
        _print_attr_dict(printer, self)


@irdl_op_definition
class BlockOp(StmtOp, BodyOp):
    """A nested statement list with its own scope."""

    name = "vyre.block"
    body = region_def()
    traits = traits_def(NoTerminator(), RecursiveMemoryEffect())

    def __init__(self, body: Region | Sequence[Operation] | None = None):
        _init_op(self, regions=[_single_block_body(body)])

    @property
    def body_block(self) -> Block:
        return self.entry_block(self.body)

    def verify_(self) -> None:
        self._verify_single_block_regions()

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        op = cls(_parse_body(parser))
        op.attributes |= parser.parse_optional_attr_dict()
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        _print_body(printer, self.body)
        _print_attr_dict(printer, self)


class _BareStmt(StmtOp):
    @classmethod
    def parse(cls, parser: Parser) -> Self:
        op = cls()
        op.attributes |= parser.parse_optional_attr_dict()
        return op

    def print(self, printer: Printer) -> None:
        _print_attr_dict(printer, self)


@irdl_op_definition
class ReturnOp(_BareStmt):
    """Ends the invocation, wherever it appears."""

    name = "vyre.return"

    def __init__(self):
        _init_op(self)


@irdl_op_definition
class BarrierOp(_BareStmt):
    """Workgroup barrier: every invocation of the workgroup must reach it."""

    name = "vyre.barrier"

    def __init__(self):
        _init_op(self)


# ---------------------------------------------------------------------------
# Routines: integer functions shared by a kernel's uses (float-strict's soft-
# float programs). A routine is a module-level symbol beside the kernel; its
# body is straight-line expression code over its parameters, ended by
# `vyre.yield`; `vyre.invoke` calls it where an expression stands.
# ---------------------------------------------------------------------------


@irdl_op_definition
class YieldOp(IRDLOperation):
    """The value a routine returns: the last op of its body."""

    name = "vyre.yield"
    value = operand_def()
    traits = traits_def(IsTerminator())

    def __init__(self, value: SSAValue | Operation):
        _init_op(self, operands=[value])

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        op = cls(parse_defined_operand(parser))
        op.attributes |= parser.parse_optional_attr_dict()
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.value)
        _print_attr_dict(printer, self)


@irdl_op_definition
class RoutineOp(IRDLOperation):
    """A named integer function of u32 words: `vyre.routine @name(%a : u32, %b :
    u32) -> u32 { ... vyre.yield %r }`. Its body is straight-line: pure
    expression ops over the parameters (and other routines' invocations), then
    `vyre.yield`. It reads no buffer, local or id, so a call computes the same
    value wherever it stands."""

    name = "vyre.routine"
    sym_name = prop_def(StringAttr)
    result_type = prop_def(DataTypeAttr)
    body = region_def("single_block")
    traits = traits_def(IsolatedFromAbove(), SymbolOpInterface(), RecursiveMemoryEffect())

    def __init__(self, sym_name: str, params: Sequence[DataTypeAttr], result: DataTypeAttr, body: Region | None = None):
        region = body if body is not None else Region(Block(arg_types=list(params)))
        _init_op(
            self,
            properties={"sym_name": StringAttr(sym_name), "result_type": result},
            regions=[region],
        )

    @property
    def entry(self) -> Block:
        block = self.body.blocks.first
        assert block is not None
        return block

    @property
    def params(self) -> tuple[SSAValue, ...]:
        return tuple(self.entry.args)

    @property
    def returned(self) -> SSAValue | None:
        """The value the routine yields (None in a malformed body)."""
        last = self.entry.last_op
        return last.value if isinstance(last, YieldOp) else None

    def verify_(self) -> None:
        block = self.body.blocks.first
        if block is None or not isinstance(block.last_op, YieldOp):
            raise VerifyException(f"routine @{self.sym_name.data} ends with vyre.yield")
        for op in block.ops:
            if isinstance(op, YieldOp):
                if op is not block.last_op:
                    raise VerifyException(f"routine @{self.sym_name.data}: vyre.yield ends the body")
            elif not isinstance(op, ExprOp) or isinstance(op, (LoadOp, VarOp, BufLenOp, IdOp, AtomicOp, CallOp)):
                raise VerifyException(
                    f"routine @{self.sym_name.data} holds `{op.name}`: a routine body is pure"
                    " expression code over its parameters"
                )

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        sym_name = parser.parse_symbol_name().data

        def parameter() -> Parser.Argument:
            unresolved = parser.parse_argument(expect_type=False)
            parser.parse_punctuation(":")
            return unresolved.resolve(parse_data_type(parser))

        params = parser.parse_comma_separated_list(parser.Delimiter.PAREN, parameter)
        parser.parse_punctuation("->")
        result = parse_data_type(parser)
        attributes = parser.parse_optional_attr_dict_with_keyword()
        region = parser.parse_region(params)
        op = cls(sym_name, [cast(DataTypeAttr, p.type) for p in params], result, region)
        if attributes is not None:
            op.attributes |= attributes.data
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_symbol_name(self.sym_name.data)
        printer.print_string("(")
        for k, arg in enumerate(self.entry.args):
            if k:
                printer.print_string(", ")
            printer.print_block_argument(arg, print_type=False)
            printer.print_string(" : ")
            print_data_type(printer, arg.type)
        printer.print_string(") -> ")
        print_data_type(printer, self.result_type)
        if self.attributes:
            printer.print_op_attributes(self.attributes, print_keyword=True)
        printer.print_string(" ")
        printer.print_region(self.body, print_entry_block_args=False, print_block_terminators=True)


@irdl_op_definition
class InvokeOp(_CallSyntax, ExprOp):
    """A call of a routine of the enclosing module: `vyre.invoke @name(%a, %b) : u32`.
    Pure: the routine reads nothing but its arguments."""

    name = "vyre.invoke"
    CALLEE: ClassVar[str] = "callee"
    SYMBOL: ClassVar[bool] = True
    callee = prop_def(StringAttr)
    args = var_operand_def()
    res = result_def(DataTypeAttr)
    traits = traits_def(Pure())

    def __init__(self, callee: str, args: Sequence[SSAValue | Operation], ty: DataTypeAttr):
        _init_op(self, operands=list(args), properties={"callee": StringAttr(callee)}, result_types=[ty])



@irdl_op_definition
class LookupOp(ExprOp, HasFolderInterface):
    """Word `index` of a constant table of u32 words, 0 past its end:
    `%w = vyre.lookup %i [0x3f800000, 0x3f8b95c2]`. The soft-float functions
    read their tables of constants with it."""

    name = "vyre.lookup"
    table = prop_def(ArrayAttr[IntAttr])
    index = operand_def()
    res = result_def(DataTypeAttr)
    traits = traits_def(Pure())

    def __init__(self, index: SSAValue | Operation, table: Sequence[int]):
        _init_op(
            self,
            operands=[index],
            properties={"table": ArrayAttr([IntAttr(int(w)) for w in table])},
            result_types=[U32],
        )

    @property
    def words(self) -> tuple[int, ...]:
        return tuple(attr.data for attr in self.table.data)

    def inferred_type(self) -> Attribute:
        return U32

    def verify_(self) -> None:
        self.verify_result_type()
        if not self.table.data:
            raise VerifyException("a lookup table holds at least one word")
        for attr in self.table.data:
            if not 0 <= attr.data <= U32_MAX:
                raise VerifyException(f"lookup table word {attr.data} is not a u32")

    def fold(self) -> Sequence[SSAValue | Attribute] | None:
        index = literal_word(self.index)
        if index is None or _scalar_kind(self.index.type) is None:
            return None
        words = self.table.data
        return (IntAttr(words[index].data if index < len(words) else 0),)

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        index = parse_defined_operand(parser)
        words = parser.parse_comma_separated_list(
            parser.Delimiter.SQUARE,
            lambda: parser.parse_integer(allow_boolean=False, allow_negative=False),
        )
        op = cls(index, words)
        op.attributes |= parser.parse_optional_attr_dict()
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.index)
        printer.print_string(" [" + ", ".join(f"{w:#010x}" for w in self.words) + "]")
        _print_attr_dict(printer, self)


def kernel_of(module: Operation) -> KernelOp:
    """The kernel of a program's module (routines may stand beside it)."""
    block = module.regions[0].blocks.first if module.regions else None
    for op in block.ops if block is not None else ():
        if isinstance(op, KernelOp):
            return op
    raise ValueError("the module holds no vyre.kernel")


def routines_of(kernel: Operation) -> dict[str, RoutineOp]:
    """The routines beside `kernel` in its module, by name."""
    parent = kernel.parent_block()
    if parent is None:
        return {}
    return {op.sym_name.data: op for op in parent.ops if isinstance(op, RoutineOp)}


OPERATIONS: tuple[type[IRDLOperation], ...] = (
    LitU32Op,
    LitI32Op,
    LitBoolOp,
    VarOp,
    LoadOp,
    BufLenOp,
    InvocationIdOp,
    WorkgroupIdOp,
    LocalIdOp,
    BinOp,
    UnOp,
    CallOp,
    SelectOp,
    CastOp,
    AtomicOp,
    LetOp,
    AssignOp,
    StoreOp,
    IfOp,
    LoopOp,
    ReturnOp,
    BlockOp,
    BarrierOp,
    LitFloatOp,
    FAddOp,
    FSubOp,
    FMulOp,
    FDivOp,
    FMinOp,
    FMaxOp,
    FCmpOp,
    FmaOp,
    FNegOp,
    FAbsOp,
    FSqrtOp,
    FFloorOp,
    FCeilOp,
    FRoundOp,
    FTruncOp,
    FIsNanOp,
    FIsInfOp,
    BitcastOp,
    FSqrtApproxOp,
    FExp2ApproxOp,
    FLog2ApproxOp,
    FSinApproxOp,
    FCosApproxOp,
    InvokeOp,
    YieldOp,
    LookupOp,
    FExp2Op,
    FExpOp,
    FExp10Op,
    FLogOp,
    FLog2Op,
    FLog10Op,
    FSinOp,
    FCosOp,
    FTanOp,
    FAsinOp,
    FAcosOp,
    FAtanOp,
    FAtan2Op,
    FTanhOp,
    FErfOp,
    FPowOp,
    LitU128Op,
)
"""Every op of the dialect inside a kernel or a routine (the kernel op is the container).
Append only: an op's position is its wire code, so a new op goes at the end;
every table of per-op knowledge (`vyre.dialects.tables`) reads its scope from
this list, so a new op a table misses fails the completeness test."""

_O = TypeVar("_O", bound=IRDLOperation)


def ops_of(base: type[_O]) -> tuple[type[_O], ...]:
    """The dialect's ops derived from `base`, in `OPERATIONS` order."""
    return tuple(op for op in OPERATIONS if issubclass(op, base))


def strict_float_ops() -> tuple[type[FloatOp], ...]:
    """Every strict float op: the ones float-strict rewrites into integer IR."""
    return tuple(op for op in ops_of(FloatOp) if not issubclass(op, ApproximateUnaryOp))


EXPRESSION_OPS: tuple[type[ExprOp], ...] = ops_of(ExprOp)
STATEMENT_OPS: tuple[type[StmtOp], ...] = ops_of(StmtOp)
FLOAT_OPS: tuple[type[FloatOp], ...] = ops_of(FloatOp)
STRICT_FLOAT_OPS: tuple[type[FloatOp], ...] = strict_float_ops()
APPROXIMATE_OPS: tuple[type[ApproximateUnaryOp], ...] = ops_of(ApproximateUnaryOp)


def float_op_variants(op: type[FloatOp]) -> tuple[str, ...]:
    """The variants of a float op class: its predicates for `vyre.fcmp`, else ("",)."""
    return FCmpOp.PREDICATES if op is FCmpOp else ("",)


def float_op_spellings() -> dict[str, tuple[type[FloatOp], str]]:
    """Public spelling (`fadd`, `flt`, `fsqrt_approx`) -> (op class, variant):
    the mnemonic of every float op, and `f<predicate>` for each comparison."""
    spellings: dict[str, tuple[type[FloatOp], str]] = {}
    for op in ops_of(FloatOp):
        for variant in float_op_variants(op):
            spellings["f" + variant if variant else op.mnemonic()] = (op, variant)
    return spellings


def build_float_op(op: type[FloatOp], variant: str, operands: Sequence[SSAValue]) -> FloatOp:
    """The float op `op` (with its variant: a comparison's predicate) over `operands`."""
    if variant:
        assert issubclass(op, FCmpOp), op
        return FCmpOp(variant, *operands)
    return op.over(*operands)


class VyreConstantMaterialization(ConstantMaterializationInterface):
    """Folded values become literals of the folded op's result type."""

    def materialize_constant(self, value: Attribute, type: Attribute) -> Operation | None:
        if not isinstance(value, IntAttr) or not isinstance(type, DataTypeAttr):
            return None
        data = cast(int, value.data)  # pyright: ignore[reportUnknownMemberType]
        if type.data_kind.is_float:
            if not 0 <= data < 1 << FLOAT_BITS[type.data_kind]:
                return None
            return LitFloatOp(data, type)
        literal = _LITERALS.get(type.data_kind)
        if literal is None or not literal.in_range(data):
            return None
        return literal(data)


_LITERALS: dict[DataTypeKind, type[_LitOp]] = {
    DataTypeKind.U32: LitU32Op,
    DataTypeKind.I32: LitI32Op,
    DataTypeKind.BOOL: LitBoolOp,
    DataTypeKind.U128: LitU128Op,
}


Vyre = Dialect(
    "vyre",
    [KernelOp, RoutineOp, *OPERATIONS],
    [DataTypeAttr, BufferDeclAttr],
    [VyreConstantMaterialization()],
)
