"""The Python builder of vyre programs.

`Expr` and `Node` values are small immutable trees; `Program` materialises them
as ops of the `vyre` dialect. Builders accept anything a V-rule covers (unknown
buffers, bad axes, duplicate names...) so that `vyre.validate` can report it;
they reject only values no program can hold (a u32 literal of -1, a name that
is not a string).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, fields
import math
from enum import Enum
from typing import TypeVar, cast

import numpy as np

from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, Operation, Region, SSAValue

from vyre import text, wire
from vyre.context import MAX_BUILD_NODES, bulk_ir, check_nesting, run_deep
from vyre.dialects import vyre as d
from vyre.dialects.tables import Dispatch
from vyre.text import VyreParseError

__all__ = [
    "AtomicOp",
    "ExprEmitter",
    "INTEGER_BINOPS",
    "INTEGER_UNOPS",
    "float_op_expr",
    "public_member",
    "Param",
    "emit_expr",
    "parse_ir",
    "print_ir",
    "set_call_typer",
    "BinOp",
    "BufferAccess",
    "BufferDecl",
    "DataType",
    "Expr",
    "Node",
    "Program",
    "UnOp",
]


DataType = d.DataTypeKind
"""vyre value types (docs/semantics.md): `DataType.U32.min_bytes() == 4`."""
BufferAccess = d.AccessKind
AtomicOp = d.AtomicOpKind


class BinOp(str, Enum):
    """Binary operators: the integer operators of `vyre.binop` and one member per
    binary float operation (`FADD`: `vyre.fadd`; `FLT`: `vyre.fcmp lt`). A member's
    value is its spelling in the IR; `E.binop(BinOp.FADD, a, b)` builds what
    `E.fadd(a, b)` builds."""

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
    MUL_HIGH = "mul_high"
    FADD = "fadd"
    FSUB = "fsub"
    FMUL = "fmul"
    FDIV = "fdiv"
    FMIN = "fmin"
    FMAX = "fmax"
    FEQ = "feq"
    FNE = "fne"
    FLT = "flt"
    FLE = "fle"
    FGT = "fgt"
    FGE = "fge"
    FATAN2 = "fatan2"
    FPOW = "fpow"

    @property
    def is_float(self) -> bool:
        """A float operation (its own op class), not an integer `vyre.binop`."""
        return self.value not in _INT_BINOPS


class UnOp(str, Enum):
    """Unary operators: the integer operators of `vyre.unop` and one member per
    unary float operation (`FSQRT`: `vyre.fsqrt`), approximate ones included."""

    NEGATE = "negate"
    BIT_NOT = "bit_not"
    LOGICAL_NOT = "logical_not"
    POPCOUNT = "popcount"
    CLZ = "clz"
    CTZ = "ctz"
    REVERSE_BITS = "reverse_bits"
    FNEG = "fneg"
    FABS = "fabs"
    FSQRT = "fsqrt"
    FFLOOR = "ffloor"
    FCEIL = "fceil"
    FROUND = "fround"
    FTRUNC = "ftrunc"
    FIS_NAN = "fis_nan"
    FIS_INF = "fis_inf"
    FEXP2 = "fexp2"
    FEXP = "fexp"
    FEXP10 = "fexp10"
    FLOG = "flog"
    FLOG2 = "flog2"
    FLOG10 = "flog10"
    FSIN = "fsin"
    FCOS = "fcos"
    FTAN = "ftan"
    FASIN = "fasin"
    FACOS = "facos"
    FATAN = "fatan"
    FTANH = "ftanh"
    FERF = "ferf"
    FSQRT_APPROX = "fsqrt_approx"
    FEXP2_APPROX = "fexp2_approx"
    FLOG2_APPROX = "flog2_approx"
    FSIN_APPROX = "fsin_approx"
    FCOS_APPROX = "fcos_approx"

    @property
    def is_float(self) -> bool:
        """A float operation (its own op class), not an integer `vyre.unop`."""
        return self.value not in _INT_UNOPS

    @property
    def is_approximate(self) -> bool:
        """An approximate float operation: native hardware, a declared error bound."""
        found = d.float_op_spellings().get(self.value)
        return found is not None and issubclass(found[0], d.ApproximateUnaryOp)


_INT_BINOPS = frozenset(kind.value for kind in d.BinOpKind)
_INT_UNOPS = frozenset(kind.value for kind in d.UnOpKind)

INTEGER_BINOPS: tuple[BinOp, ...] = tuple(BinOp(kind.value) for kind in d.BinOpKind)
"""The members of `BinOp` that are integer operators (`vyre.binop` kinds)."""
INTEGER_UNOPS: tuple[UnOp, ...] = tuple(UnOp(kind.value) for kind in d.UnOpKind)
"""The members of `UnOp` that are integer operators (`vyre.unop` kinds)."""


def float_operation(op: BinOp | UnOp) -> tuple[type[d.FloatOp], str]:
    """The dialect's op class (and variant: a comparison's predicate) of a float
    member of `BinOp`/`UnOp`."""
    found = _float_spellings().get(op.value)
    if found is None:
        raise ValueError(f"{op!r} is not a float operation")
    return found


_FLOAT_SPELLINGS: dict[str, tuple[type[d.FloatOp], str]] = {}


def _float_spellings() -> dict[str, tuple[type[d.FloatOp], str]]:
    if not _FLOAT_SPELLINGS:
        _FLOAT_SPELLINGS.update(d.float_op_spellings())
    return _FLOAT_SPELLINGS


def public_member(op: type[d.FloatOp], variant: str = "") -> BinOp | UnOp:
    """The `BinOp`/`UnOp` member that spells a float op class (and variant);
    `vyre.fma` has none (it is `E.fma`)."""
    spelling = "f" + variant if variant else op.mnemonic()
    if op.ARITY == 1:
        return UnOp(spelling)
    if op.ARITY == 2:
        return BinOp(spelling)
    raise ValueError(f"{op.name} takes {op.ARITY} operands: no BinOp/UnOp member spells it")


def float_op_expr(op: type[d.FloatOp], operands: Sequence[Expr], variant: str = "") -> Expr:
    """The expression applying the float op class `op` (a comparison's predicate
    as `variant`) to `operands`: what `E.fadd`, `E.flt`, `E.fma`... build."""
    if len(operands) != op.ARITY:
        raise ValueError(f"{op.name} takes {op.ARITY} operand(s), got {len(operands)}")
    if op.ARITY == 3:
        return Expr.fma(*operands)
    member = public_member(op, variant)
    if isinstance(member, UnOp):
        return Expr.unop(member, operands[0])
    return Expr.binop(member, operands[0], operands[1])


def _check_name(what: str, name: object) -> str:
    if not isinstance(name, str):
        raise TypeError(f"{what} must be a str, got {type(name).__name__}")
    return name


def _check_uint(what: str, value: object, bits: int = 32) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{what} must be an int, got {type(value).__name__}")
    if not 0 <= value < 2**bits:
        raise ValueError(f"{what} must be in [0, 2**{bits}), got {value}")
    return value


_T = TypeVar("_T", bound=Enum)


_PUBLIC_ENUM_NAMES: dict[type[Enum], str] = {
    d.DataTypeKind: "DataType",
    d.AccessKind: "BufferAccess",
    d.AtomicOpKind: "AtomicOp",
}


def _check_enum(what: str, enum: type[_T], value: object) -> _T:
    if isinstance(value, enum):
        return value
    public_name = _PUBLIC_ENUM_NAMES.get(enum, enum.__name__)
    raise TypeError(f"{what} must be a vyre.ir.{public_name}, got {value!r}")


def _check_float_type(what: str, value: object) -> DataType:
    dtype = _check_enum(what, DataType, value)
    if not dtype.is_float:
        raise ValueError(f"{what} must be DataType.F32, F16 or BF16, got {dtype}")
    return dtype


def float_bits(dtype: DataType, value: float) -> int:
    """The bit pattern of `value` rounded to nearest, ties to even, in `dtype`
    (overflow gives an infinity, NaN the canonical quiet NaN)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):  # pyright: ignore[reportUnnecessaryIsInstance]
        raise TypeError(f"a {dtype} literal must be a float, got {type(value).__name__}")
    x = float(value)
    if dtype is DataType.F32:
        with np.errstate(over="ignore"):
            return int(np.array(x, dtype=np.float32).view(np.uint32))
    if dtype is DataType.F16:
        with np.errstate(over="ignore"):
            return int(np.array(x, dtype=np.float16).view(np.uint16))
    return _bf16_bits(x)


def _bf16_bits(x: float) -> int:
    """bfloat16 (1-8-7) rounding of a float64, exact: one rounding, no detour
    through f32 (which would round twice)."""
    if math.isnan(x):
        return 0x7FC0
    sign = 0x8000 if math.copysign(1.0, x) < 0 else 0
    magnitude = abs(x)
    if math.isinf(magnitude):
        return sign | 0x7F80
    if magnitude == 0.0:
        return sign
    mantissa, exponent = math.frexp(magnitude)  # magnitude = mantissa * 2**exponent
    if exponent - 1 < -126:  # subnormal: multiples of 2**-133
        return sign | round(math.ldexp(magnitude, 133))  # 128 is the smallest normal
    q = round(mantissa * 256)  # 8 significant bits, ties to even
    if q == 256:
        q, exponent = 128, exponent + 1
    biased = exponent - 1 + 127
    if biased >= 255:
        return sign | 0x7F80
    return sign | biased << 7 | (q - 128)


# ---------------------------------------------------------------------------
# Buffers
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class BufferDecl:
    """A buffer of a program: name, binding slot, access mode, element type and a
    static element count (required for workgroup buffers, 0 = runtime-sized).

    `TypeError` for a name that is not a str, a binding or count that is not an int,
    or an access or element type that is not a `BufferAccess`/`DataType`;
    `ValueError` for a binding or count outside [0, 2**32)."""

    name: str
    binding: int
    access: BufferAccess
    dtype: DataType
    count: int = 0

    def __post_init__(self) -> None:
        _check_name("buffer name", self.name)
        _check_uint(f"binding of buffer `{self.name}`", self.binding)
        _check_enum(f"access of buffer `{self.name}`", BufferAccess, self.access)
        _check_enum(f"element type of buffer `{self.name}`", DataType, self.dtype)
        _check_uint(f"count of buffer `{self.name}`", self.count)

    @classmethod
    def read(cls, name: str, binding: int, dtype: DataType, count: int = 0) -> BufferDecl:
        """A read-only storage buffer (an input of `vyre.run`) at slot `binding`; `count`: a
        static element count, 0 for runtime-sized. `TypeError`/`ValueError` as for the
        constructor."""
        return cls(name, binding, BufferAccess.READ_ONLY, dtype, count)

    @classmethod
    def read_write(
        cls, name: str, binding: int, dtype: DataType, count: int = 0
    ) -> BufferDecl:
        """A read_write storage buffer at slot `binding`: an input and an output (`vyre.run`
        returns its final contents); `count`: a static element count, 0 for runtime-sized.
        `TypeError`/`ValueError` as for the constructor."""
        return cls(name, binding, BufferAccess.READ_WRITE, dtype, count)

    @classmethod
    def uniform(cls, name: str, binding: int, dtype: DataType, count: int = 0) -> BufferDecl:
        """A uniform buffer (a read-only input) at slot `binding`; `count`: a static element
        count, 0 for runtime-sized. `TypeError`/`ValueError` as for the constructor."""
        return cls(name, binding, BufferAccess.UNIFORM, dtype, count)

    @classmethod
    def storage(
        cls, name: str, binding: int, access: BufferAccess, dtype: DataType, count: int = 0
    ) -> BufferDecl:
        """A buffer of any `access` mode: the constructor's general form.
        `TypeError`/`ValueError` as for the constructor."""
        return cls(name, binding, access, dtype, count)

    @classmethod
    def workgroup(cls, name: str, count: int, dtype: DataType) -> BufferDecl:
        """Per-workgroup scratch memory of `count` elements of `dtype`, zeroed when each
        workgroup starts (no binding slot). `TypeError`/`ValueError` as for the constructor."""
        return cls(name, 0, BufferAccess.WORKGROUP, dtype, count)

    def to_attr(self) -> d.BufferDeclAttr:
        """This declaration as the dialect's `BufferDeclAttr` (a property of `vyre.kernel`)."""
        return d.BufferDeclAttr(
            self.name, self.binding, self.access.value, self.dtype.attr, self.count
        )

    @classmethod
    def from_attr(cls, attr: d.BufferDeclAttr) -> BufferDecl:
        """The declaration a dialect `BufferDeclAttr` holds (the inverse of `to_attr`).
        `ValueError` for an access mode vyre does not know, `TypeError`/`ValueError` as for the
        constructor."""
        return cls(
            attr.buffer_name.data,
            attr.binding.data,
            BufferAccess(attr.access.data),
            DataType.of(attr.element),
            attr.count.data,
        )


# ---------------------------------------------------------------------------
# Expressions
# ---------------------------------------------------------------------------


class Expr:
    """An expression tree. Build with the static constructors.

    Trees compare, hash and print by value, like the frozen dataclasses they
    are, but without recursion (a 2,000-deep chain is a normal expression);
    the hash of each node is computed once."""

    __slots__ = ()

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Expr):
            return NotImplemented
        return _tree_equal(self, other)

    def __hash__(self) -> int:
        return _tree_hash(self)

    def __repr__(self) -> str:
        return _tree_repr(self)

    def __reduce__(self) -> tuple[object, ...]:
        return (_unflatten, (_flatten(self),))

    def children(self) -> tuple[Expr, ...]:
        """The operand expressions, in evaluation order (a leaf has none)."""
        return ()

    # -- literals and leaves -------------------------------------------------
    @staticmethod
    def u32(value: int) -> Expr:
        """A `u32` literal. `value`: an int in [0, 2**32); `TypeError` for anything else (a bool
        too), `ValueError` outside the range."""
        return LitU32(_check_uint("u32 literal", value))

    @staticmethod
    def i32(value: int) -> Expr:
        """An `i32` literal. `value`: an int in [-2**31, 2**31); `TypeError` for anything else
        (a bool too), `ValueError` outside the range."""
        if isinstance(value, bool) or not isinstance(value, int):  # pyright: ignore[reportUnnecessaryIsInstance]
            raise TypeError(f"i32 literal must be an int, got {type(value).__name__}")
        if not -(2**31) <= value < 2**31:
            raise ValueError(f"i32 literal must be in [-2**31, 2**31), got {value}")
        return LitI32(value)

    @staticmethod
    def bool_(value: bool) -> Expr:
        """A `bool` literal. `value`: `True` or `False`; `TypeError` for anything else (0 and 1
        too)."""
        if not isinstance(value, bool):  # pyright: ignore[reportUnnecessaryIsInstance]
            raise TypeError(f"bool literal must be a bool, got {type(value).__name__}")
        return LitBool(value)

    @staticmethod
    def u128(value: int) -> Expr:
        """A `u128` literal. `value`: an int in [0, 2**128); `TypeError` for anything else (a
        bool too), `ValueError` outside the range."""
        return LitU128(_check_uint("u128 literal", value, 128))

    @staticmethod
    def f32(value: float) -> Expr:
        """An `f32` literal: `value` (a float or an int) rounded to nearest even, as
        `np.float32` does (overflow gives an infinity, NaN the canonical NaN). `TypeError` for
        anything else (a bool too)."""
        return LitFloat(DataType.F32, float_bits(DataType.F32, value))

    @staticmethod
    def f16(value: float) -> Expr:
        """An `f16` literal: `value` (a float or an int) rounded to nearest even, as
        `np.float16` does (overflow gives an infinity, NaN the canonical NaN). `TypeError` for
        anything else (a bool too)."""
        return LitFloat(DataType.F16, float_bits(DataType.F16, value))

    @staticmethod
    def bf16(value: float) -> Expr:
        """A `bf16` (1-8-7) literal: `value` (a float or an int) rounded once to nearest even,
        not through f32 (overflow gives an infinity, NaN the canonical NaN). `TypeError` for
        anything else (a bool too)."""
        return LitFloat(DataType.BF16, float_bits(DataType.BF16, value))

    @staticmethod
    def float_bits(dtype: DataType, bits: int) -> Expr:
        """A float literal from its bit pattern (any pattern, NaNs too). `dtype`:
        `DataType.F32`, `F16` or `BF16` (`TypeError` for a non-`DataType`, `ValueError` for
        another type); `bits`: an int below 2**32 for F32, 2**16 for F16/BF16 (`TypeError` for a
        non-int, `ValueError` outside the range)."""
        dtype = _check_float_type("float literal type", dtype)
        return LitFloat(dtype, _check_uint(f"{dtype} bit pattern", bits, d.FLOAT_BITS[dtype]))

    @staticmethod
    def var(name: str) -> Expr:
        """The current value of local `name` (declared by `Node.let`, or a loop variable); its
        type is the local's. `TypeError` when `name` is not a str (an undeclared name is
        V006)."""
        return Var(_check_name("variable name", name))

    @staticmethod
    def load(buf: str, index: Expr) -> Expr:
        """The element `buf[index]` of buffer `buf`, of its element type (0 when `index` is out
        of bounds). `index`: a u32 `Expr`. `TypeError` when `buf` is not a str or `index` not an
        `Expr`."""
        return Load(_check_name("buffer name", buf), _expr(index))

    @staticmethod
    def buf_len(buf: str) -> Expr:
        """The logical length of buffer `buf` as a u32: its element count (for a Bytes buffer,
        its word count). `TypeError` when `buf` is not a str."""
        return BufLen(_check_name("buffer name", buf))

    @staticmethod
    def invocation_id(axis: int) -> Expr:
        """The global invocation id on `axis` (0 = x, 1 = y, 2 = z) as a u32: workgroup id *
        workgroup size + local id. `axis`: an int in [0, 2**32) (`TypeError`, `ValueError`; an
        axis above 2 is V007)."""
        return InvocationId(_check_uint("axis", axis))

    @staticmethod
    def workgroup_id(axis: int) -> Expr:
        """The id of the invocation's workgroup on `axis` (0 = x, 1 = y, 2 = z) as a u32.
        `axis`: an int in [0, 2**32) (`TypeError`, `ValueError`; an axis above 2 is V007)."""
        return WorkgroupId(_check_uint("axis", axis))

    @staticmethod
    def local_id(axis: int) -> Expr:
        """The invocation's position in its workgroup on `axis` (0 = x, 1 = y, 2 = z) as a u32.
        `axis`: an int in [0, 2**32) (`TypeError`, `ValueError`; an axis above 2 is V007)."""
        return LocalId(_check_uint("axis", axis))

    @staticmethod
    def gid_x() -> Expr:
        """The global invocation id on x: `Expr.invocation_id(0)`."""
        return InvocationId(0)

    # -- operators -----------------------------------------------------------
    @staticmethod
    def binop(op: BinOp, left: Expr, right: Expr) -> Expr:
        """The binary operation `op` on `left` and `right` (the shorthands `Expr.add`... build
        the same). `TypeError` when `op` is not a `BinOp` or an operand is not an `Expr`."""
        return BinaryExpr(_check_enum("binary operator", BinOp, op), _expr(left), _expr(right))

    @staticmethod
    def unop(op: UnOp, operand: Expr) -> Expr:
        """The unary operation `op` on `operand` (the shorthands `Expr.negate`... build the
        same). `TypeError` when `op` is not a `UnOp` or `operand` is not an `Expr`."""
        return UnaryExpr(_check_enum("unary operator", UnOp, op), _expr(operand))

    @staticmethod
    def call(op_id: str, args: Iterable[Expr], result: DataType | None = None) -> Expr:
        """A call of library op `op_id` on `args` (`Expr`s, in the op's signature order); its
        type is the op's declared output, or `result` when given (e.g. for an op registered
        later). `TypeError` when `op_id` is not a str, an argument is not an `Expr` or `result`
        is not a `DataType` (an unknown op id is V016)."""
        checked = None if result is None else _check_enum("call result type", DataType, result)
        return Call(_check_name("op id", op_id), tuple(_expr(a) for a in args), checked)

    @staticmethod
    def select(cond: Expr, if_true: Expr, if_false: Expr) -> Expr:
        """`if_true` when `cond` is non-zero, else `if_false`; both arms are evaluated.
        `TypeError` when an argument is not an `Expr`."""
        return Select(_expr(cond), _expr(if_true), _expr(if_false))

    @staticmethod
    def cast(target: DataType, value: Expr) -> Expr:
        """`value` converted to `target` (the cast table of docs/semantics.md; floats round to
        nearest even, float to integer truncates and saturates; an undefined pair is V012).
        `TypeError` when `target` is not a `DataType` or `value` not an `Expr`."""
        return Cast(_check_enum("cast target", DataType, target), _expr(value))

    @staticmethod
    def bitcast(target: DataType, value: Expr) -> Expr:
        """The bits of `value` read as `target` (F32 <-> U32/I32; F16/BF16 <-> U32/I32 through
        the low 16 bits). `TypeError` when `target` is not a `DataType` or `value` not an
        `Expr`."""
        return Bitcast(_check_enum("bitcast target", DataType, target), _expr(value))

    @staticmethod
    def lookup(table: Sequence[int], index: Expr) -> Expr:
        """Word `index` of the constant `table` of u32 words (0 past its end), a u32.
        `TypeError`/`ValueError` when `table` is not a non-empty sequence of u32 ints or
        `index` not an `Expr`."""
        if isinstance(table, (str, bytes)) or not isinstance(table, Sequence):  # pyright: ignore[reportUnnecessaryIsInstance]
            raise TypeError(f"a lookup table must be a sequence of u32 ints, got {type(table).__name__}")
        words = tuple(_check_uint(f"lookup table word {k}", w) for k, w in enumerate(table))
        if not words:
            raise ValueError("a lookup table holds at least one word")
        return Lookup(words, _expr(index))

    @staticmethod
    def fma(a: Expr, b: Expr, c: Expr) -> Expr:
        """`a * b + c` with one rounding (FMulAdd), in the operands' float type. `TypeError`
        when an operand is not an `Expr`."""
        return Fma(_expr(a), _expr(b), _expr(c))

    @staticmethod
    def atomic(
        op: AtomicOp, buf: str, index: Expr, value: Expr, expected: Expr | None = None
    ) -> Expr:
        """An atomic `op` on element `buf[index]` with `value`, giving the element's previous
        value (sequentially consistent; out of bounds nothing happens and it gives 0).
        `expected` is the compared value of `AtomicOp.COMPARE_EXCHANGE` and of no other op
        (`ValueError` otherwise). `TypeError` when `op` is not an `AtomicOp`, `buf` not a str or
        an operand not an `Expr`."""
        op = _check_enum("atomic operator", AtomicOp, op)
        if (op is AtomicOp.COMPARE_EXCHANGE) != (expected is not None):
            raise ValueError(
                "`expected` is required for AtomicOp.COMPARE_EXCHANGE and only for it"
            )
        return Atomic(
            op,
            _check_name("buffer name", buf),
            _expr(index),
            _expr(value),
            None if expected is None else _expr(expected),
        )

    # one shorthand per operator
    @staticmethod
    def add(a: Expr, b: Expr) -> Expr:
        """`a + b`, wrapping (`BinOp.ADD`). `TypeError` when an operand is not an `Expr`."""
        return Expr.binop(BinOp.ADD, a, b)

    @staticmethod
    def sub(a: Expr, b: Expr) -> Expr:
        """`a - b`, wrapping (`BinOp.SUB`). `TypeError` when an operand is not an `Expr`."""
        return Expr.binop(BinOp.SUB, a, b)

    @staticmethod
    def mul(a: Expr, b: Expr) -> Expr:
        """`a * b`, wrapping: the low 32 bits (`BinOp.MUL`). `TypeError` when an operand is not
        an `Expr`."""
        return Expr.binop(BinOp.MUL, a, b)

    @staticmethod
    def div(a: Expr, b: Expr) -> Expr:
        """`a / b`, unsigned and truncating; `x / 0` is 0 (`BinOp.DIV`). `TypeError` when an
        operand is not an `Expr`."""
        return Expr.binop(BinOp.DIV, a, b)

    @staticmethod
    def mod(a: Expr, b: Expr) -> Expr:
        """`a % b`, unsigned; `x % 0` is 0 (`BinOp.MOD`). `TypeError` when an operand is not an
        `Expr`."""
        return Expr.binop(BinOp.MOD, a, b)

    @staticmethod
    def bitand(a: Expr, b: Expr) -> Expr:
        """`a & b`, bitwise (`BinOp.BIT_AND`). `TypeError` when an operand is not an `Expr`."""
        return Expr.binop(BinOp.BIT_AND, a, b)

    @staticmethod
    def bitor(a: Expr, b: Expr) -> Expr:
        """`a | b`, bitwise (`BinOp.BIT_OR`). `TypeError` when an operand is not an `Expr`."""
        return Expr.binop(BinOp.BIT_OR, a, b)

    @staticmethod
    def bitxor(a: Expr, b: Expr) -> Expr:
        """`a ^ b`, bitwise (`BinOp.BIT_XOR`). `TypeError` when an operand is not an `Expr`."""
        return Expr.binop(BinOp.BIT_XOR, a, b)

    @staticmethod
    def shl(a: Expr, b: Expr) -> Expr:
        """`a << (b & 31)` (`BinOp.SHL`). `TypeError` when an operand is not an `Expr`."""
        return Expr.binop(BinOp.SHL, a, b)

    @staticmethod
    def shr(a: Expr, b: Expr) -> Expr:
        """`a >> (b & 31)`, logical (`BinOp.SHR`). `TypeError` when an operand is not an
        `Expr`."""
        return Expr.binop(BinOp.SHR, a, b)

    @staticmethod
    def eq(a: Expr, b: Expr) -> Expr:
        """`a == b`: 1 or 0 (`BinOp.EQ`). `TypeError` when an operand is not an `Expr`."""
        return Expr.binop(BinOp.EQ, a, b)

    @staticmethod
    def ne(a: Expr, b: Expr) -> Expr:
        """`a != b`: 1 or 0 (`BinOp.NE`). `TypeError` when an operand is not an `Expr`."""
        return Expr.binop(BinOp.NE, a, b)

    @staticmethod
    def lt(a: Expr, b: Expr) -> Expr:
        """`a < b`, unsigned: 1 or 0 (`BinOp.LT`). `TypeError` when an operand is not an
        `Expr`."""
        return Expr.binop(BinOp.LT, a, b)

    @staticmethod
    def gt(a: Expr, b: Expr) -> Expr:
        """`a > b`, unsigned: 1 or 0 (`BinOp.GT`). `TypeError` when an operand is not an
        `Expr`."""
        return Expr.binop(BinOp.GT, a, b)

    @staticmethod
    def le(a: Expr, b: Expr) -> Expr:
        """`a <= b`, unsigned: 1 or 0 (`BinOp.LE`). `TypeError` when an operand is not an
        `Expr`."""
        return Expr.binop(BinOp.LE, a, b)

    @staticmethod
    def ge(a: Expr, b: Expr) -> Expr:
        """`a >= b`, unsigned: 1 or 0 (`BinOp.GE`). `TypeError` when an operand is not an
        `Expr`."""
        return Expr.binop(BinOp.GE, a, b)

    @staticmethod
    def and_(a: Expr, b: Expr) -> Expr:
        """Logical and: 1 when both operands are non-zero, else 0 (`BinOp.AND`). `TypeError`
        when an operand is not an `Expr`."""
        return Expr.binop(BinOp.AND, a, b)

    @staticmethod
    def or_(a: Expr, b: Expr) -> Expr:
        """Logical or: 1 when either operand is non-zero, else 0 (`BinOp.OR`). `TypeError` when
        an operand is not an `Expr`."""
        return Expr.binop(BinOp.OR, a, b)

    @staticmethod
    def dot4_i8(a: Expr, b: Expr) -> Expr:
        """The four signed bytes of `a` times those of `b`, summed, as the 32-bit two's
        complement of the sum (`BinOp.DOT4_I8`, WGSL `dot4I8Packed`). `TypeError` when an
        operand is not an `Expr`."""
        return Expr.binop(BinOp.DOT4_I8, a, b)

    @staticmethod
    def mul_high(a: Expr, b: Expr) -> Expr:
        """The high 32 bits of the unsigned 64-bit product `a * b` (`mul` gives the low 32;
        `BinOp.MUL_HIGH`). `TypeError` when an operand is not an `Expr`."""
        return Expr.binop(BinOp.MUL_HIGH, a, b)

    @staticmethod
    def negate(a: Expr) -> Expr:
        """`0 - a`, wrapping (`UnOp.NEGATE`). `TypeError` when an operand is not an `Expr`."""
        return Expr.unop(UnOp.NEGATE, a)

    @staticmethod
    def bitnot(a: Expr) -> Expr:
        """`~a`, bitwise (`UnOp.BIT_NOT`). `TypeError` when an operand is not an `Expr`."""
        return Expr.unop(UnOp.BIT_NOT, a)

    @staticmethod
    def logical_not(a: Expr) -> Expr:
        """`a == 0`: 1 or 0 (`UnOp.LOGICAL_NOT`). `TypeError` when an operand is not an
        `Expr`."""
        return Expr.unop(UnOp.LOGICAL_NOT, a)

    @staticmethod
    def popcount(a: Expr) -> Expr:
        """The number of set bits of `a` (`UnOp.POPCOUNT`). `TypeError` when an operand is not
        an `Expr`."""
        return Expr.unop(UnOp.POPCOUNT, a)

    @staticmethod
    def clz(a: Expr) -> Expr:
        """The number of leading zero bits of `a`, 32 for 0 (`UnOp.CLZ`). `TypeError` when an
        operand is not an `Expr`."""
        return Expr.unop(UnOp.CLZ, a)

    @staticmethod
    def ctz(a: Expr) -> Expr:
        """The number of trailing zero bits of `a`, 32 for 0 (`UnOp.CTZ`). `TypeError` when an
        operand is not an `Expr`."""
        return Expr.unop(UnOp.CTZ, a)

    @staticmethod
    def reverse_bits(a: Expr) -> Expr:
        """The bits of `a` in reverse order (`UnOp.REVERSE_BITS`). `TypeError` when an operand
        is not an `Expr`."""
        return Expr.unop(UnOp.REVERSE_BITS, a)

    # strict floats (docs/floats.md)
    @staticmethod
    def fadd(a: Expr, b: Expr) -> Expr:
        """`a + b` in the operands' float type, rounded to nearest even (`BinOp.FADD`).
        `TypeError` when an operand is not an `Expr`."""
        return Expr.binop(BinOp.FADD, a, b)

    @staticmethod
    def fsub(a: Expr, b: Expr) -> Expr:
        """`a - b` in the operands' float type, rounded to nearest even (`BinOp.FSUB`).
        `TypeError` when an operand is not an `Expr`."""
        return Expr.binop(BinOp.FSUB, a, b)

    @staticmethod
    def fmul(a: Expr, b: Expr) -> Expr:
        """`a * b` in the operands' float type, rounded to nearest even (`BinOp.FMUL`).
        `TypeError` when an operand is not an `Expr`."""
        return Expr.binop(BinOp.FMUL, a, b)

    @staticmethod
    def fdiv(a: Expr, b: Expr) -> Expr:
        """`a / b` in the operands' float type, correctly rounded (`BinOp.FDIV`). `TypeError`
        when an operand is not an `Expr`."""
        return Expr.binop(BinOp.FDIV, a, b)

    @staticmethod
    def fmin(a: Expr, b: Expr) -> Expr:
        """IEEE 754-2019 minimumNumber: a NaN operand is ignored, -0 is below +0 (`BinOp.FMIN`).
        `TypeError` when an operand is not an `Expr`."""
        return Expr.binop(BinOp.FMIN, a, b)

    @staticmethod
    def fmax(a: Expr, b: Expr) -> Expr:
        """IEEE 754-2019 maximumNumber: a NaN operand is ignored, +0 is above -0 (`BinOp.FMAX`).
        `TypeError` when an operand is not an `Expr`."""
        return Expr.binop(BinOp.FMAX, a, b)

    @staticmethod
    def feq(a: Expr, b: Expr) -> Expr:
        """`a == b` as a bool, false when an operand is NaN (`BinOp.FEQ`). `TypeError` when an
        operand is not an `Expr`."""
        return Expr.binop(BinOp.FEQ, a, b)

    @staticmethod
    def fne(a: Expr, b: Expr) -> Expr:
        """`a != b` as a bool, true when an operand is NaN (`BinOp.FNE`). `TypeError` when an
        operand is not an `Expr`."""
        return Expr.binop(BinOp.FNE, a, b)

    @staticmethod
    def flt(a: Expr, b: Expr) -> Expr:
        """`a < b` as a bool, false when an operand is NaN (`BinOp.FLT`). `TypeError` when an
        operand is not an `Expr`."""
        return Expr.binop(BinOp.FLT, a, b)

    @staticmethod
    def fle(a: Expr, b: Expr) -> Expr:
        """`a <= b` as a bool, false when an operand is NaN (`BinOp.FLE`). `TypeError` when an
        operand is not an `Expr`."""
        return Expr.binop(BinOp.FLE, a, b)

    @staticmethod
    def fgt(a: Expr, b: Expr) -> Expr:
        """`a > b` as a bool, false when an operand is NaN (`BinOp.FGT`). `TypeError` when an
        operand is not an `Expr`."""
        return Expr.binop(BinOp.FGT, a, b)

    @staticmethod
    def fge(a: Expr, b: Expr) -> Expr:
        """`a >= b` as a bool, false when an operand is NaN (`BinOp.FGE`). `TypeError` when an
        operand is not an `Expr`."""
        return Expr.binop(BinOp.FGE, a, b)

    @staticmethod
    def fneg(a: Expr) -> Expr:
        """`-a`: the sign bit flipped, every other bit kept, NaN payloads too (`UnOp.FNEG`).
        `TypeError` when an operand is not an `Expr`."""
        return Expr.unop(UnOp.FNEG, a)

    @staticmethod
    def fabs(a: Expr) -> Expr:
        """`|a|`: the sign bit cleared, every other bit kept, NaN payloads too (`UnOp.FABS`).
        `TypeError` when an operand is not an `Expr`."""
        return Expr.unop(UnOp.FABS, a)

    @staticmethod
    def fsqrt(a: Expr) -> Expr:
        """The square root of `a`, correctly rounded (`UnOp.FSQRT`). `TypeError` when an operand
        is not an `Expr`."""
        return Expr.unop(UnOp.FSQRT, a)

    @staticmethod
    def ffloor(a: Expr) -> Expr:
        """`a` rounded down to an integral value, the sign of zero kept (`UnOp.FFLOOR`).
        `TypeError` when an operand is not an `Expr`."""
        return Expr.unop(UnOp.FFLOOR, a)

    @staticmethod
    def fceil(a: Expr) -> Expr:
        """`a` rounded up to an integral value, the sign of zero kept (`UnOp.FCEIL`).
        `TypeError` when an operand is not an `Expr`."""
        return Expr.unop(UnOp.FCEIL, a)

    @staticmethod
    def fround(a: Expr) -> Expr:
        """`a` rounded to the nearest integral value, ties to even, the sign of zero kept
        (`UnOp.FROUND`). `TypeError` when an operand is not an `Expr`."""
        return Expr.unop(UnOp.FROUND, a)

    @staticmethod
    def ftrunc(a: Expr) -> Expr:
        """`a` rounded toward zero to an integral value, the sign of zero kept (`UnOp.FTRUNC`).
        `TypeError` when an operand is not an `Expr`."""
        return Expr.unop(UnOp.FTRUNC, a)

    @staticmethod
    def fis_nan(a: Expr) -> Expr:
        """Whether `a` is a NaN, as a bool (`UnOp.FIS_NAN`). `TypeError` when an operand is not
        an `Expr`."""
        return Expr.unop(UnOp.FIS_NAN, a)

    @staticmethod
    def fis_inf(a: Expr) -> Expr:
        """Whether `a` is an infinity, as a bool (`UnOp.FIS_INF`). `TypeError` when an operand
        is not an `Expr`."""
        return Expr.unop(UnOp.FIS_INF, a)

    # -- correctly rounded functions: the exact value rounded once, in a's format
    @staticmethod
    def fexp2(a: Expr) -> Expr:
        """2**a, correctly rounded in the operand's float type (`UnOp.FEXP2`): exp2(3) = 8
        exactly, exp2(-inf) = +0, overflow +inf. `TypeError` when `a` is not an `Expr`."""
        return Expr.unop(UnOp.FEXP2, a)

    @staticmethod
    def fexp(a: Expr) -> Expr:
        """e**a, correctly rounded in the operand's float type (`UnOp.FEXP`): exp(0) = 1
        exactly, exp(-inf) = +0, overflow +inf. `TypeError` when `a` is not an `Expr`."""
        return Expr.unop(UnOp.FEXP, a)

    @staticmethod
    def fexp10(a: Expr) -> Expr:
        """10**a, correctly rounded in the operand's float type (`UnOp.FEXP10`): exp10(3) =
        1000 exactly, exp10(-inf) = +0, overflow +inf. `TypeError` when `a` is not an `Expr`."""
        return Expr.unop(UnOp.FEXP10, a)

    @staticmethod
    def flog(a: Expr) -> Expr:
        """The natural logarithm of a, correctly rounded in the operand's float type
        (`UnOp.FLOG`): log(1) = +0, log(±0) = -inf, log(a < 0) = NaN, log(+inf) = +inf.
        `TypeError` when `a` is not an `Expr`."""
        return Expr.unop(UnOp.FLOG, a)

    @staticmethod
    def flog2(a: Expr) -> Expr:
        """The base-2 logarithm of a, correctly rounded in the operand's float type
        (`UnOp.FLOG2`): log2(2**k) = k exactly, log2(±0) = -inf, log2(a < 0) = NaN.
        `TypeError` when `a` is not an `Expr`."""
        return Expr.unop(UnOp.FLOG2, a)

    @staticmethod
    def flog10(a: Expr) -> Expr:
        """The base-10 logarithm of a, correctly rounded in the operand's float type
        (`UnOp.FLOG10`): log10(10**k) = k exactly, log10(±0) = -inf, log10(a < 0) = NaN.
        `TypeError` when `a` is not an `Expr`."""
        return Expr.unop(UnOp.FLOG10, a)

    @staticmethod
    def fsin(a: Expr) -> Expr:
        """sin(a), correctly rounded in the operand's float type (`UnOp.FSIN`; `a` in
        radians): sin(+-0) = +-0, sin(+-inf) = NaN. `TypeError` when `a` is not an `Expr`."""
        return Expr.unop(UnOp.FSIN, a)

    @staticmethod
    def fcos(a: Expr) -> Expr:
        """cos(a), correctly rounded in the operand's float type (`UnOp.FCOS`; `a` in
        radians): cos(+-0) = 1, cos(+-inf) = NaN. `TypeError` when `a` is not an `Expr`."""
        return Expr.unop(UnOp.FCOS, a)

    @staticmethod
    def ftan(a: Expr) -> Expr:
        """tan(a), correctly rounded in the operand's float type (`UnOp.FTAN`; `a` in
        radians): tan(+-0) = +-0, tan(+-inf) = NaN. `TypeError` when `a` is not an `Expr`."""
        return Expr.unop(UnOp.FTAN, a)

    @staticmethod
    def fasin(a: Expr) -> Expr:
        """asin(a), correctly rounded in the operand's float type (`UnOp.FASIN`): asin(+-0) =
        +-0, NaN for |a| > 1. `TypeError` when `a` is not an `Expr`."""
        return Expr.unop(UnOp.FASIN, a)

    @staticmethod
    def facos(a: Expr) -> Expr:
        """acos(a), correctly rounded in the operand's float type (`UnOp.FACOS`): acos(1) = +0,
        NaN for |a| > 1. `TypeError` when `a` is not an `Expr`."""
        return Expr.unop(UnOp.FACOS, a)

    @staticmethod
    def fatan(a: Expr) -> Expr:
        """atan(a), correctly rounded in the operand's float type (`UnOp.FATAN`): atan(+-0) =
        +-0, atan(+-inf) = +-pi/2 rounded. `TypeError` when `a` is not an `Expr`."""
        return Expr.unop(UnOp.FATAN, a)

    @staticmethod
    def fatan2(y: Expr, x: Expr) -> Expr:
        """atan2(y, x), y first like C: the angle of the point (x, y) in [-pi, pi], correctly
        rounded in the operands' float type (`BinOp.FATAN2`); signed zeros and infinities as
        C's Annex F lists (atan2(+-0, -0) = +-pi, atan2(+-inf, +inf) = +-pi/4). `TypeError`
        when an operand is not an `Expr`."""
        return Expr.binop(BinOp.FATAN2, y, x)

    @staticmethod
    def ftanh(a: Expr) -> Expr:
        """tanh(a), correctly rounded in the operand's float type (`UnOp.FTANH`):
        tanh(+-0) = +-0, tanh(+-inf) = +-1. `TypeError` when `a` is not an `Expr`."""
        return Expr.unop(UnOp.FTANH, a)

    @staticmethod
    def ferf(a: Expr) -> Expr:
        """The error function erf(a), correctly rounded in the operand's float type
        (`UnOp.FERF`): erf(+-0) = +-0, erf(+-inf) = +-1. `TypeError` when `a` is not an
        `Expr`."""
        return Expr.unop(UnOp.FERF, a)

    @staticmethod
    def fpow(x: Expr, y: Expr) -> Expr:
        """x**y, correctly rounded in the operands' float type (`BinOp.FPOW`), C's Annex F
        special values: pow(x, +-0) = 1 and pow(+1, y) = 1 even for NaN, pow(-1, +-inf) = 1,
        NaN for x < 0 and a non-integer y, the sign of x kept for an odd integer y, signed
        zeros and infinities by the sign and parity of y. `TypeError` when an operand is not
        an `Expr`."""
        return Expr.binop(BinOp.FPOW, x, y)

    @staticmethod
    def fsqrt_approx(a: Expr) -> Expr:
        """The square root of an F32 `a`, approximate: the GPU's native instruction within a
        declared error bound (`UnOp.FSQRT_APPROX`). `TypeError` when an operand is not an
        `Expr`."""
        return Expr.unop(UnOp.FSQRT_APPROX, a)

    @staticmethod
    def fexp2_approx(a: Expr) -> Expr:
        """`2**a` for an F32 `a`, approximate: the GPU's native instruction within a declared
        error bound (`UnOp.FEXP2_APPROX`). `TypeError` when an operand is not an `Expr`."""
        return Expr.unop(UnOp.FEXP2_APPROX, a)

    @staticmethod
    def flog2_approx(a: Expr) -> Expr:
        """`log2(a)` for an F32 `a`, approximate: the GPU's native instruction within a declared
        error bound (`UnOp.FLOG2_APPROX`). `TypeError` when an operand is not an `Expr`."""
        return Expr.unop(UnOp.FLOG2_APPROX, a)

    @staticmethod
    def fsin_approx(a: Expr) -> Expr:
        """`sin(a)` for an F32 `a`, approximate: the GPU's native instruction within a declared
        error bound (`UnOp.FSIN_APPROX`). `TypeError` when an operand is not an `Expr`."""
        return Expr.unop(UnOp.FSIN_APPROX, a)

    @staticmethod
    def fcos_approx(a: Expr) -> Expr:
        """`cos(a)` for an F32 `a`, approximate: the GPU's native instruction within a declared
        error bound (`UnOp.FCOS_APPROX`). `TypeError` when an operand is not an `Expr`."""
        return Expr.unop(UnOp.FCOS_APPROX, a)


def _expr(value: object) -> Expr:
    if isinstance(value, Expr):
        return value
    raise TypeError(f"expected a vyre Expr, got {type(value).__name__}: {value!r}")


@dataclass(frozen=True, eq=False, repr=False)
class LitU32(Expr):
    value: int


@dataclass(frozen=True, eq=False, repr=False)
class LitI32(Expr):
    value: int


@dataclass(frozen=True, eq=False, repr=False)
class LitBool(Expr):
    value: bool


@dataclass(frozen=True, eq=False, repr=False)
class LitU128(Expr):
    value: int


@dataclass(frozen=True, eq=False, repr=False)
class LitFloat(Expr):
    """A float literal by its bit pattern."""

    dtype: DataType
    bits: int


@dataclass(frozen=True, eq=False, repr=False)
class Var(Expr):
    name: str


@dataclass(frozen=True, eq=False, repr=False)
class Load(Expr):
    buffer: str
    index: Expr

    def children(self) -> tuple[Expr, ...]:
        return (self.index,)


@dataclass(frozen=True, eq=False, repr=False)
class BufLen(Expr):
    buffer: str


@dataclass(frozen=True, eq=False, repr=False)
class InvocationId(Expr):
    axis: int


@dataclass(frozen=True, eq=False, repr=False)
class WorkgroupId(Expr):
    axis: int


@dataclass(frozen=True, eq=False, repr=False)
class LocalId(Expr):
    axis: int


@dataclass(frozen=True, eq=False, repr=False)
class BinaryExpr(Expr):
    op: BinOp
    left: Expr
    right: Expr

    def children(self) -> tuple[Expr, ...]:
        return (self.left, self.right)


@dataclass(frozen=True, eq=False, repr=False)
class UnaryExpr(Expr):
    op: UnOp
    operand: Expr

    def children(self) -> tuple[Expr, ...]:
        return (self.operand,)


@dataclass(frozen=True, eq=False, repr=False)
class Call(Expr):
    """A call of a library op; `result` is its output type, looked up in the op
    library when the program is built if not given."""

    op_id: str
    args: tuple[Expr, ...]
    result: DataType | None = None

    def children(self) -> tuple[Expr, ...]:
        return self.args


@dataclass(frozen=True, eq=False, repr=False)
class Lookup(Expr):
    table: tuple[int, ...]
    index: Expr

    def children(self) -> tuple[Expr, ...]:
        return (self.index,)


@dataclass(frozen=True, eq=False, repr=False)
class Select(Expr):
    cond: Expr
    if_true: Expr
    if_false: Expr

    def children(self) -> tuple[Expr, ...]:
        return (self.cond, self.if_true, self.if_false)


@dataclass(frozen=True, eq=False, repr=False)
class Cast(Expr):
    target: DataType
    value: Expr

    def children(self) -> tuple[Expr, ...]:
        return (self.value,)


@dataclass(frozen=True, eq=False, repr=False)
class Bitcast(Expr):
    target: DataType
    value: Expr

    def children(self) -> tuple[Expr, ...]:
        return (self.value,)


@dataclass(frozen=True, eq=False, repr=False)
class Fma(Expr):
    a: Expr
    b: Expr
    c: Expr

    def children(self) -> tuple[Expr, ...]:
        return (self.a, self.b, self.c)


@dataclass(frozen=True, eq=False, repr=False)
class Param(Expr):
    """The `index`-th input of a composition: a leaf bound to a given value."""

    index: int
    dtype: DataType = DataType.U32


@dataclass(frozen=True, eq=False, repr=False)
class Atomic(Expr):
    op: AtomicOp
    buffer: str
    index: Expr
    value: Expr
    expected: Expr | None = None

    def children(self) -> tuple[Expr, ...]:
        if self.expected is None:
            return (self.index, self.value)
        return (self.index, self.value, self.expected)


# ---------------------------------------------------------------------------
# Statements
# ---------------------------------------------------------------------------


class Node:
    """A statement. Build with the static constructors. Compared, hashed and
    printed by value without recursion, like `Expr`."""

    __slots__ = ()

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Node):
            return NotImplemented
        return _tree_equal(self, other)

    def __hash__(self) -> int:
        return _tree_hash(self)

    def __repr__(self) -> str:
        return _tree_repr(self)

    def __reduce__(self) -> tuple[object, ...]:
        return (_unflatten, (_flatten(self),))

    @staticmethod
    def let(name: str, expr: Expr) -> Node:
        """Declares local `name` holding the value of `expr` (its type is the expression's;
        names are unique in a kernel, V008). `TypeError` when `name` is not a str or `expr` not
        an `Expr`."""
        return Let(_check_name("variable name", name), _expr(expr))

    @staticmethod
    def assign(name: str, expr: Expr) -> Node:
        """Writes the value of `expr` to the declared local `name`. `TypeError` when `name` is
        not a str or `expr` not an `Expr`."""
        return Assign(_check_name("variable name", name), _expr(expr))

    @staticmethod
    def store(buf: str, index: Expr, value: Expr) -> Node:
        """Writes `value` to element `buf[index]` of buffer `buf` (nothing happens out of
        bounds). `TypeError` when `buf` is not a str or `index` or `value` not an `Expr`."""
        return Store(_check_name("buffer name", buf), _expr(index), _expr(value))

    @staticmethod
    def if_(cond: Expr, then: Iterable[Node], otherwise: Iterable[Node] = ()) -> Node:
        """Runs the statements `then` when `cond` (u32 or bool) is non-zero, else `otherwise`.
        `TypeError` when `cond` is not an `Expr`; `TypeError` for a single `Node` instead of a
        list or an item that is not a `Node`."""
        return If(_expr(cond), _nodes(then), _nodes(otherwise))

    @staticmethod
    def loop(var: str, from_: Expr, to: Expr, body: Iterable[Node]) -> Node:
        """Runs `body` with the read-only u32 local `var` = `from_`, `from_ + 1`, ..., `to - 1`
        (both bounds evaluated once). `TypeError` when `var` is not a str or a bound not an
        `Expr`; `TypeError` for a single `Node` instead of a list or an item that is not a
        `Node`."""
        return Loop(_check_name("loop variable", var), _expr(from_), _expr(to), _nodes(body))

    @staticmethod
    def return_() -> Node:
        """Ends the invocation."""
        return Return()

    @staticmethod
    def block(body: Iterable[Node]) -> Node:
        """The statements of `body` (`Node`s) grouped as one statement. `TypeError` for a single
        `Node` instead of a list or an item that is not a `Node`."""
        return BlockNode(_nodes(body))

    @staticmethod
    def barrier() -> Node:
        """Every invocation of the workgroup waits here until all arrive; the writes before it
        are then visible to the whole workgroup. It must be reached by every invocation of the
        workgroup or by none (V010)."""
        return Barrier()


def _nodes(values: Iterable[object]) -> tuple[Node, ...]:
    if isinstance(values, Node):
        raise TypeError("expected a list of vyre Nodes, got a single Node")
    nodes = tuple(values)
    for value in nodes:
        if not isinstance(value, Node):
            raise TypeError(f"expected a vyre Node, got {type(value).__name__}: {value!r}")
    return cast("tuple[Node, ...]", nodes)


@dataclass(frozen=True, eq=False, repr=False)
class Let(Node):
    name: str
    value: Expr


@dataclass(frozen=True, eq=False, repr=False)
class Assign(Node):
    name: str
    value: Expr


@dataclass(frozen=True, eq=False, repr=False)
class Store(Node):
    buffer: str
    index: Expr
    value: Expr


@dataclass(frozen=True, eq=False, repr=False)
class If(Node):
    cond: Expr
    then: tuple[Node, ...]
    otherwise: tuple[Node, ...] = ()


@dataclass(frozen=True, eq=False, repr=False)
class Loop(Node):
    var: str
    from_: Expr
    to: Expr
    body: tuple[Node, ...]


@dataclass(frozen=True, eq=False, repr=False)
class Return(Node):
    pass


@dataclass(frozen=True, eq=False, repr=False)
class BlockNode(Node):
    body: tuple[Node, ...]


@dataclass(frozen=True, eq=False, repr=False)
class Barrier(Node):
    pass


# ---------------------------------------------------------------------------
# Value semantics of trees, without recursion
# ---------------------------------------------------------------------------

_Tree = Expr | Node
_HASH = "_hash"
"""Instance-dict key of a node's cached hash (never pickled: str and enum hashes
differ between processes; `_flatten` stores fields only)."""
_FIELD_NAMES: dict[type, tuple[str, ...]] = {}


def _field_names(cls: type) -> tuple[str, ...]:
    names = _FIELD_NAMES.get(cls)
    if names is None:
        names = tuple(f.name for f in fields(cls))
        _FIELD_NAMES[cls] = names
    return names


@dataclass(frozen=True)
class _Ref:
    """A reference to an earlier record of a flattened tree."""

    index: int


_Record = tuple[type, tuple[object, ...]]


def _flatten(root: _Tree) -> tuple[_Record, ...]:
    """The distinct nodes of the tree in post-order (root last), each as its class
    and field values with sub-trees replaced by `_Ref`s: what pickle and copy
    store, so that neither recurses over a deep tree."""
    records: list[_Record] = []
    index: dict[int, int] = {}

    def flat(value: object) -> object:
        if isinstance(value, _Tree):
            return _Ref(index[id(value)])
        if isinstance(value, tuple):
            return tuple(flat(item) for item in cast("tuple[object, ...]", value))
        return value

    stack: list[tuple[_Tree, bool]] = [(root, False)]
    while stack:
        node, ready = stack.pop()
        if id(node) in index:
            continue
        if not ready:
            stack.append((node, True))
            stack.extend((child, False) for child in _tree_children(node) if id(child) not in index)
            continue
        values = tuple(flat(getattr(node, name)) for name in _field_names(type(node)))
        index[id(node)] = len(records)
        records.append((type(node), values))
    return tuple(records)


def _unflatten(records: tuple[_Record, ...]) -> _Tree:
    built: list[_Tree] = []

    def rebuilt(value: object) -> object:
        if isinstance(value, _Ref):
            return built[value.index]
        if isinstance(value, tuple):
            return tuple(rebuilt(item) for item in cast("tuple[object, ...]", value))
        return value

    for cls, values in records:
        built.append(cls(*(rebuilt(value) for value in values)))
    return built[-1]


def _tree_equal(first: _Tree, second: _Tree) -> bool:
    """Same type and equal fields, sub-trees compared pairwise with a stack
    (each pair of shared sub-trees once, so DAGs compare in linear time)."""
    stack: list[tuple[object, object]] = [(first, second)]
    seen: set[tuple[int, int]] = set()
    while stack:
        a, b = stack.pop()
        if a is b:
            continue
        if type(a) is not type(b):
            return False
        pair = (id(a), id(b))
        if pair in seen:
            continue
        seen.add(pair)
        hash_a, hash_b = vars(a).get(_HASH), vars(b).get(_HASH)
        if hash_a is not None and hash_b is not None and hash_a != hash_b:
            return False
        for name in _field_names(type(a)):
            x, y = getattr(a, name), getattr(b, name)
            if isinstance(x, _Tree):
                stack.append((x, y))
            elif isinstance(x, tuple):
                xs = cast("tuple[object, ...]", x)
                if not isinstance(y, tuple) or len(xs) != len(cast("tuple[object, ...]", y)):
                    return False
                for u, v in zip(xs, cast("tuple[object, ...]", y)):
                    if isinstance(u, _Tree):
                        stack.append((u, v))
                    elif u != v:
                        return False
            elif x != y:
                return False
    return True


def _tree_children(node: object) -> Iterator[_Tree]:
    for name in _field_names(type(node)):
        value = getattr(node, name)
        if isinstance(value, _Tree):
            yield value
        elif isinstance(value, tuple):
            for item in value:  # pyright: ignore[reportUnknownVariableType]
                if isinstance(item, _Tree):
                    yield item


def _hash_part(value: object) -> object:
    if isinstance(value, _Tree):
        return vars(value)[_HASH]
    if isinstance(value, tuple):
        return tuple(_hash_part(item) for item in cast("tuple[object, ...]", value))
    return value


def _tree_hash(root: _Tree) -> int:
    """The hash of the node's type and fields, children first (post-order with a
    stack); every node keeps its hash."""
    cached = vars(root).get(_HASH)
    if cached is not None:
        return cached
    stack: list[tuple[_Tree, bool]] = [(root, False)]
    while stack:
        node, ready = stack.pop()
        if _HASH in vars(node):
            continue
        if not ready:
            stack.append((node, True))
            stack.extend((child, False) for child in _tree_children(node) if _HASH not in vars(child))
            continue
        parts = tuple(_hash_part(getattr(node, name)) for name in _field_names(type(node)))
        object.__setattr__(node, _HASH, hash((type(node).__name__, parts)))
    return vars(root)[_HASH]


@dataclass(frozen=True)
class _Text:
    text: str


def _tree_repr(root: _Tree) -> str:
    """`Name(field=value, ...)` as a dataclass prints, built with a stack."""
    out: list[str] = []
    stack: list[object] = [root]
    while stack:
        item = stack.pop()
        if isinstance(item, _Text):
            out.append(item.text)
        elif isinstance(item, _Tree):
            names = _field_names(type(item))
            pending: list[object] = [_Text(f"{type(item).__qualname__}(")]
            for k, name in enumerate(names):
                pending.append(_Text(f"{', ' if k else ''}{name}="))
                pending.append(getattr(item, name))
            pending.append(_Text(")"))
            stack.extend(reversed(pending))
        elif isinstance(item, tuple) and any(isinstance(v, _Tree) for v in item):  # pyright: ignore[reportUnknownVariableType, reportUnknownArgumentType]
            items = cast("tuple[object, ...]", item)
            pending = [_Text("(")]
            for k, value in enumerate(items):
                pending.extend((_Text(", ") if k else _Text(""), value))
            pending.append(_Text(",)" if len(items) == 1 else ")"))
            stack.extend(reversed(pending))
        else:
            out.append(repr(cast(object, item)))
    return "".join(out)


# ---------------------------------------------------------------------------
# Materialisation: trees -> dialect ops
# ---------------------------------------------------------------------------

CallTyper = Callable[[str], "DataType | None"]
"""Op id -> the declared output type of that library op (None: unknown id)."""


def _unknown_call_type(op_id: str) -> DataType | None:
    return None


_call_typer: CallTyper = _unknown_call_type


def set_call_typer(typer: CallTyper) -> None:
    """Install how a `Call` that does not spell its result type is typed.

    The op library (`vyre.ops.registry`) installs its signature lookup when it is
    imported, which `import vyre` always does: the builder sits below the library
    and must not import it. Unknown ids are typed u32 (V016 reports them)."""
    global _call_typer
    _call_typer = typer


def _element_u32(buffer: str) -> d.DataTypeAttr:
    return d.U32


def _local_u32(name: str) -> d.DataTypeAttr:
    return d.U32


@dataclass
class ExprEmitter:
    """The one translation of `Expr` trees into dialect ops.

    `emit(tree)` creates the ops computing `tree` in evaluation order (children
    before parents, left to right), appends them to `ops` and returns the SSA
    value of the root. It is iterative, so expression depth is bounded by memory,
    not by Python's stack. `Param(i)` leaves stand for `params[i]` and create no
    op. With `share=True` (pure compositions) every distinct node, by identity, is
    emitted once and its value reused, so a DAG stays linear; without it (program
    bodies, where loads and atomics happen where they are written) every
    occurrence is emitted. The builder (`Program`) and `inline-calls` both use
    this class; the type of an expression is the type of the value it emits."""

    params: Sequence[SSAValue] = ()
    share: bool = False
    local_type: Callable[[str], d.DataTypeAttr] = _local_u32
    """The type of a local read by `Var` (u32 for unknown names: V006 reports them)."""
    element_type: Callable[[str], d.DataTypeAttr] = _element_u32
    """The element type of a buffer read by `Load` (u32 for unknown buffers: V004)."""
    call_type: CallTyper | None = None
    """Types calls that do not spell their result; None: the installed typer."""
    ops: list[Operation] = field(default_factory=lambda: list[Operation]())
    limit: int = 0
    """Ops this emitter may create in all (0: no limit); one more is a
    `ValueError` (`too_many_nodes`). The builder sets `MAX_BUILD_NODES`."""
    count: int = 0
    """Ops created so far (statement ops the builder adds count too)."""
    _memo: dict[int, tuple[Expr, SSAValue]] = field(default_factory=lambda: {})

    def emit(self, tree: Expr) -> SSAValue:
        values: list[SSAValue] = []
        stack: list[tuple[Expr, bool]] = [(tree, False)]
        memo = self._memo
        while stack:
            node, ready = stack.pop()
            if not ready:
                if isinstance(node, Param):
                    values.append(self._param(node))
                    continue
                if self.share and (known := memo.get(id(node))) is not None:
                    values.append(known[1])
                    continue
                stack.append((node, True))
                stack.extend((child, False) for child in reversed(node.children()))
                continue
            arity = len(node.children())
            operands = values[len(values) - arity :]
            del values[len(values) - arity :]
            build = OP_BUILDERS.get(type(node))
            if build is None:
                raise TypeError(f"not a vyre Expr: {node!r}")
            op = build(self, node, operands)
            self.ops.append(op)
            self.count += 1
            if self.count > self.limit > 0:
                raise too_many_nodes(self.limit)
            value = op.results[0]
            if self.share:
                memo[id(node)] = (node, value)  # the node is kept alive with its id
            values.append(value)
        return values[0]

    def _param(self, node: Param) -> SSAValue:
        if not 0 <= node.index < len(self.params):
            raise ValueError(
                f"Param({node.index}) is outside the {len(self.params)} parameter(s) given"
            )
        return self.params[node.index]


def too_many_nodes(limit: int) -> ValueError:
    """The builder's error for a program that expands past `limit` ops."""
    return ValueError(
        f"V019: program has more than {limit:,} nodes once built: the builder stopped there"
        " (validation allows 100,000). Every use of a shared Expr or Node is built as its own"
        " copy, so a DAG of n nodes can expand to 2^n. Fix: compute a value used many times"
        " once (Node.let) and read it (Expr.var), or split the program into smaller kernels."
    )


OP_BUILDERS: Dispatch[ExprEmitter, [Sequence[SSAValue]], Operation] = Dispatch(
    "builder expression ops", lambda: [c for c in _expression_classes() if c is not Param]
)
"""The dialect op of each `Expr` class, over its operands' values (`Param`
leaves stand for given values and make no op)."""


def _expression_classes() -> list[type[Expr]]:
    found: list[type[Expr]] = []
    pending = list(Expr.__subclasses__())
    while pending:
        cls = pending.pop()
        found.append(cls)
        pending.extend(cls.__subclasses__())
    return found


@OP_BUILDERS.on(LitU32)
def _lit_u32(_: ExprEmitter, e: LitU32, operands: Sequence[SSAValue]) -> Operation:
    return d.LitU32Op(e.value)


@OP_BUILDERS.on(LitI32)
def _lit_i32(_: ExprEmitter, e: LitI32, operands: Sequence[SSAValue]) -> Operation:
    return d.LitI32Op(e.value)


@OP_BUILDERS.on(LitBool)
def _lit_bool(_: ExprEmitter, e: LitBool, operands: Sequence[SSAValue]) -> Operation:
    return d.LitBoolOp(e.value)


@OP_BUILDERS.on(LitU128)
def _lit_u128(_: ExprEmitter, e: LitU128, operands: Sequence[SSAValue]) -> Operation:
    return d.LitU128Op(e.value)


@OP_BUILDERS.on(LitFloat)
def _lit_float(_: ExprEmitter, e: LitFloat, operands: Sequence[SSAValue]) -> Operation:
    return d.LitFloatOp(e.bits, e.dtype.attr)


@OP_BUILDERS.on(Var)
def _var(emitter: ExprEmitter, e: Var, operands: Sequence[SSAValue]) -> Operation:
    return d.VarOp(e.name, emitter.local_type(e.name))


@OP_BUILDERS.on(Load)
def _load(emitter: ExprEmitter, e: Load, operands: Sequence[SSAValue]) -> Operation:
    return d.LoadOp(e.buffer, operands[0], emitter.element_type(e.buffer))


@OP_BUILDERS.on(BufLen)
def _buf_len(_: ExprEmitter, e: BufLen, operands: Sequence[SSAValue]) -> Operation:
    return d.BufLenOp(e.buffer)


@OP_BUILDERS.on(InvocationId)
def _invocation_id(_: ExprEmitter, e: InvocationId, operands: Sequence[SSAValue]) -> Operation:
    return d.InvocationIdOp(e.axis)


@OP_BUILDERS.on(WorkgroupId)
def _workgroup_id(_: ExprEmitter, e: WorkgroupId, operands: Sequence[SSAValue]) -> Operation:
    return d.WorkgroupIdOp(e.axis)


@OP_BUILDERS.on(LocalId)
def _local_id(_: ExprEmitter, e: LocalId, operands: Sequence[SSAValue]) -> Operation:
    return d.LocalIdOp(e.axis)


@OP_BUILDERS.on(BinaryExpr)
def _binary(_: ExprEmitter, e: BinaryExpr, operands: Sequence[SSAValue]) -> Operation:
    if e.op.is_float:
        return d.build_float_op(*float_operation(e.op), operands)
    return d.BinOp(e.op.value, operands[0], operands[1])


@OP_BUILDERS.on(UnaryExpr)
def _unary(_: ExprEmitter, e: UnaryExpr, operands: Sequence[SSAValue]) -> Operation:
    if e.op.is_float:
        return d.build_float_op(*float_operation(e.op), operands)
    return d.UnOp(e.op.value, operands[0])


@OP_BUILDERS.on(Fma)
def _fma(_: ExprEmitter, e: Fma, operands: Sequence[SSAValue]) -> Operation:
    return d.FmaOp(operands[0], operands[1], operands[2])


@OP_BUILDERS.on(Bitcast)
def _bitcast(_: ExprEmitter, e: Bitcast, operands: Sequence[SSAValue]) -> Operation:
    return d.BitcastOp(operands[0], e.target.attr)


@OP_BUILDERS.on(Cast)
def _cast(_: ExprEmitter, e: Cast, operands: Sequence[SSAValue]) -> Operation:
    return d.CastOp(operands[0], e.target.attr)


@OP_BUILDERS.on(Lookup)
def _lookup(_: ExprEmitter, e: Lookup, operands: Sequence[SSAValue]) -> Operation:
    return d.LookupOp(operands[0], e.table)


@OP_BUILDERS.on(Select)
def _select(_: ExprEmitter, e: Select, operands: Sequence[SSAValue]) -> Operation:
    return d.SelectOp(operands[0], operands[1], operands[2])


@OP_BUILDERS.on(Call)
def _call(emitter: ExprEmitter, e: Call, operands: Sequence[SSAValue]) -> Operation:
    result = e.result
    if result is None:
        result = (emitter.call_type or _call_typer)(e.op_id) or DataType.U32
    return d.CallOp(e.op_id, operands, result.attr)


@OP_BUILDERS.on(Atomic)
def _atomic(_: ExprEmitter, e: Atomic, operands: Sequence[SSAValue]) -> Operation:
    third = None if e.expected is None else operands[2]
    return d.AtomicOp(e.op.value, e.buffer, operands[0], operands[1], third)


def emit_expr(
    tree: Expr,
    params: Sequence[SSAValue] = (),
    *,
    call_type: CallTyper | None = None,
) -> tuple[list[Operation], SSAValue]:
    """The ops computing the pure expression DAG `tree` with `Param(i)` bound to
    `params[i]`, in evaluation order (shared sub-trees once), and the root's value.
    The compositions of library ops become IR through this function."""
    emitter = ExprEmitter(params, share=True, call_type=call_type)
    value = emitter.emit(tree)
    return emitter.ops, value


@dataclass
class _Scope:
    """Name -> type of the locals visible while materialising, innermost last.
    Unknown names read as u32 (V006 reports them)."""

    frames: list[dict[str, d.DataTypeAttr]] = field(default_factory=lambda: [{}])

    def lookup(self, name: str) -> d.DataTypeAttr:
        for frame in reversed(self.frames):
            if name in frame:
                return frame[name]
        return d.U32

    def declare(self, name: str, ty: d.DataTypeAttr) -> None:
        self.frames[-1].setdefault(name, ty)


@dataclass
class _Emitter:
    """Statements -> ops; expressions go through one `ExprEmitter`."""

    buffers: Mapping[str, BufferDecl]
    scope: _Scope = field(default_factory=_Scope)

    def __post_init__(self) -> None:
        self.exprs = ExprEmitter(
            local_type=self.scope.lookup, element_type=self._element, limit=MAX_BUILD_NODES
        )

    def expr(self, e: Expr, block: Block) -> SSAValue:
        value = self.exprs.emit(e)
        block.add_ops(self.exprs.ops)
        self.exprs.ops.clear()
        return value

    def _element(self, buffer: str) -> d.DataTypeAttr:
        decl = self.buffers.get(buffer)
        return d.U32 if decl is None else decl.dtype.attr

    def nodes(self, nodes: Sequence[Node], block: Block) -> Block:
        """Materialise `nodes` into `block`, nested statement lists included,
        with a stack: nesting depth is bounded by memory (V018 reports it).
        Blocks are filled before their op is attached, so no insertion walks
        up a deep chain of parents."""
        stack: list[_Frame | Callable[[], None]] = [_Frame(iter(nodes), block, None)]
        while stack:
            frame = stack[-1]
            if not isinstance(frame, _Frame):  # attach a finished statement's op
                stack.pop()
                frame()
                continue
            if frame.scope is not None and not frame.opened:
                self.scope.frames.append(dict(frame.scope))
                frame.opened = True
            n = next(frame.nodes, None)
            if n is None:
                stack.pop()
                if frame.opened:
                    self.scope.frames.pop()
                continue
            nested = self.node(n, frame.block)
            if nested is not None:
                bodies, attach = nested
                stack.append(attach)
                stack.extend(
                    _Frame(iter(body), inner, extra) for body, inner, extra in reversed(bodies)
                )
        return block

    def node(self, n: Node, block: Block) -> _Nested | None:
        """Add the op of `n` to `block`. For a statement holding statement lists,
        return them (each with its empty block and the locals its scope starts
        with) and the function that adds the op once they are filled."""
        build = STATEMENT_BUILDERS.get(type(n))
        if build is None:
            raise TypeError(f"not a vyre Node: {n!r}")
        exprs = self.exprs
        exprs.count += 1
        if exprs.count > exprs.limit:
            raise too_many_nodes(exprs.limit)
        return build(self, n, block)


_Nested = tuple[
    list[tuple[Sequence["Node"], Block, Mapping[str, d.DataTypeAttr]]], Callable[[], None]
]


STATEMENT_BUILDERS: Dispatch[_Emitter, [Block], _Nested | None] = Dispatch(
    "builder statement ops", lambda: Node.__subclasses__()
)
"""The dialect op of each `Node` class, added to the block given."""


@STATEMENT_BUILDERS.on(Let)
def _let(emitter: _Emitter, n: Let, block: Block) -> _Nested | None:
    v = emitter.expr(n.value, block)
    block.add_op(d.LetOp(n.name, v))
    if isinstance(v.type, d.DataTypeAttr):
        emitter.scope.declare(n.name, v.type)
    return None


@STATEMENT_BUILDERS.on(Assign)
def _assign(emitter: _Emitter, n: Assign, block: Block) -> _Nested | None:
    block.add_op(d.AssignOp(n.name, emitter.expr(n.value, block)))
    return None


@STATEMENT_BUILDERS.on(Store)
def _store(emitter: _Emitter, n: Store, block: Block) -> _Nested | None:
    i = emitter.expr(n.index, block)
    block.add_op(d.StoreOp(n.buffer, i, emitter.expr(n.value, block)))
    return None


@STATEMENT_BUILDERS.on(If)
def _if(emitter: _Emitter, n: If, block: Block) -> _Nested | None:
    c = emitter.expr(n.cond, block)
    then_block, else_block = Block(), Block()
    return (
        [(n.then, then_block, {}), (n.otherwise, else_block, {})],
        lambda: block.add_op(d.IfOp(c, Region(then_block), Region(else_block))),
    )


@STATEMENT_BUILDERS.on(Loop)
def _loop(emitter: _Emitter, n: Loop, block: Block) -> _Nested | None:
    lo = emitter.expr(n.from_, block)
    hi = emitter.expr(n.to, block)
    inner = Block()
    return (
        [(n.body, inner, {n.var: d.U32})],
        lambda: block.add_op(d.LoopOp(n.var, lo, hi, Region(inner))),
    )


@STATEMENT_BUILDERS.on(Return)
def _return(emitter: _Emitter, n: Return, block: Block) -> _Nested | None:
    block.add_op(d.ReturnOp())
    return None


@STATEMENT_BUILDERS.on(BlockNode)
def _block(emitter: _Emitter, n: BlockNode, block: Block) -> _Nested | None:
    inner = Block()
    return ([(n.body, inner, {})], lambda: block.add_op(d.BlockOp(Region(inner))))


@STATEMENT_BUILDERS.on(Barrier)
def _barrier(emitter: _Emitter, n: Barrier, block: Block) -> _Nested | None:
    block.add_op(d.BarrierOp())
    return None


@dataclass
class _Frame:
    """A statement list being materialised: the nodes left, the block they go
    to, and the scope it opens (None: the kernel's entry, already open)."""

    nodes: Iterator[Node]
    block: Block
    scope: Mapping[str, d.DataTypeAttr] | None
    opened: bool = False


# ---------------------------------------------------------------------------
# Program
# ---------------------------------------------------------------------------


_DECLS: dict[int, tuple[object, tuple[BufferDecl, ...]]] = {}
"""id of a kernel's (immutable) `buffer_decls` attribute -> (it, its `BufferDecl`s)."""
_DECLS_CAPACITY = 4096


class Program:
    """A vyre program: a `builtin.module` holding one `vyre.kernel`.

    `Program(buffers, workgroup_size, entry, *, name="main")` builds it from
    `BufferDecl`s, the three workgroup dimensions and the body's `Node`s.
    `TypeError` for a buffer that is not a `BufferDecl`, a statement that is not a
    `Node`, a name that is not a str or a dimension that is not an int;
    `ValueError` unless `workgroup_size` has 3 dimensions in [0, 2**32) (0 is V003)."""

    __slots__ = ("module",)

    module: ModuleOp

    def __init__(
        self,
        buffers: Iterable[BufferDecl],
        workgroup_size: Sequence[int],
        entry: Iterable[Node],
        *,
        name: str = "main",
    ):
        decls = list(buffers)
        for decl in decls:
            if not isinstance(decl, BufferDecl):  # pyright: ignore[reportUnnecessaryIsInstance]
                raise TypeError(f"buffers must be BufferDecl values, got {decl!r}")
        sizes = tuple(workgroup_size)
        if len(sizes) != 3:
            raise ValueError(f"workgroup_size must have 3 components, got {len(sizes)}")
        for axis, size in enumerate(sizes):
            _check_uint(f"workgroup_size[{axis}]", size)
        emitter = _Emitter({decl.name: decl for decl in reversed(decls)})
        with bulk_ir():
            body = emitter.nodes(_nodes(entry), Block())
        kernel = d.KernelOp(
            _check_name("program name", name),
            sizes,
            [decl.to_attr() for decl in decls],
            Region(body),
        )
        self.module = ModuleOp([kernel])

    @classmethod
    def from_module(cls, module: ModuleOp) -> Program:
        """Wrap a parsed module that holds exactly one `vyre.kernel`."""
        if len(module.body.blocks) != 1:
            raise ValueError(
                "a vyre program module holds exactly one vyre.kernel in one block, found"
                f" {len(module.body.blocks)} blocks"
            )
        kernels = [op for op in module.ops if isinstance(op, d.KernelOp)]
        others = [op for op in module.ops if not isinstance(op, (d.KernelOp, d.RoutineOp))]
        if len(kernels) != 1 or others:
            raise ValueError(
                f"a vyre program module holds exactly one vyre.kernel, found {len(kernels)}"
                f" among {len(list(module.ops))} top-level ops (beside it a module holds only"
                " vyre.routine ops)"
            )
        program = cls.__new__(cls)
        program.module = module
        return program

    @property
    def kernel(self) -> d.KernelOp:
        """The program's `vyre.kernel` op."""
        return d.kernel_of(self.module)

    @property
    def name(self) -> str:
        """The kernel's name (the constructor's `name`)."""
        return self.kernel.sym_name.data

    @property
    def buffers(self) -> tuple[BufferDecl, ...]:
        """The buffer declarations, in declaration order (made once per declaration
        attribute: kernel ops read them at every evaluation)."""
        attr = self.kernel.buffers
        hit = _DECLS.get(id(attr))
        if hit is not None and hit[0] is attr:
            return hit[1]
        decls = tuple(BufferDecl.from_attr(decl) for decl in attr.data)
        if len(_DECLS) >= _DECLS_CAPACITY:
            _DECLS.clear()
        _DECLS[id(attr)] = (attr, decls)  # the entry keeps `attr` alive: its id stays its own
        return decls

    @property
    def workgroup_size(self) -> tuple[int, int, int]:
        """The kernel's workgroup size `(x, y, z)`."""
        x, y, z = self.kernel.workgroup
        return (x, y, z)

    def to_wire(self) -> bytes:
        """The versioned, checksummed binary form (vyre/wire.py)."""
        return wire.encode(self.module)

    @classmethod
    def from_wire(cls, blob: bytes) -> Program:
        """The program a wire blob holds; `vyre.wire.WireError` for anything else."""
        return cls.from_module(wire.decode(blob))

    def __str__(self) -> str:
        return print_ir(self)

    def __eq__(self, other: object) -> bool:
        """Structural equality: the same ops with the same properties, attributes,
        result types, operand wiring and region shapes (SSA name hints and
        locations aside)."""
        if not isinstance(other, Program):
            return NotImplemented
        return self is other or structure(self.module) == structure(other.module)

    def __hash__(self) -> int:
        return hash(structure(self.module))

    def clone(self) -> Program:
        """A deep copy (`vyre.context.NestingError` for a program nested deeper
        than `MAX_NESTING` levels)."""
        depth = check_nesting(self.module, "Program.clone")
        return Program.from_module(run_deep(self.module.clone, depth))


_END = "}"
"""Closes a block's ops in a structure key."""


def structure(op: Operation) -> tuple[Hashable, ...]:
    """A flat key of `op`'s structure, equal for two ops exactly when they are
    structurally equal: op names, properties, attributes, result types, operand
    wiring (values numbered by definition) and region/block shapes, in pre-order,
    computed without recursion."""
    key: list[Hashable] = []
    numbers: dict[SSAValue, int] = {}

    def number(value: SSAValue) -> int:
        found = numbers.get(value)
        if found is None:
            found = numbers[value] = len(numbers)
        return found

    stack: list[Iterator[Operation] | None] = [iter((op,))]
    while stack:
        top = stack[-1]
        if top is None:  # the end of a block
            stack.pop()
            key.append(_END)
            continue
        current = next(top, None)
        if current is None:
            stack.pop()
            continue
        key.append(current.name)
        key.append(tuple(sorted(current.properties.items())))
        key.append(tuple(sorted(current.attributes.items())))
        key.append(tuple(number(operand) for operand in current.operands))
        key.append(tuple((number(result), result.type) for result in current.results))
        key.append(len(current.successors))
        # a region without a block and one with an empty block are the same empty
        # statement list (the text form cannot tell them apart)
        key.append(tuple(max(1, len(region.blocks)) for region in current.regions))
        blocks = [block for region in current.regions for block in (list(region.blocks) or [None])]
        for block in reversed(blocks):
            stack.append(None)
            stack.append(_empty_block(key) if block is None else _block_ops(block, key, number))
    return tuple(key)


def _empty_block(key: list[Hashable]) -> Iterator[Operation]:
    """What `_block_ops` gives for a block without arguments or ops."""
    key.append(())
    yield from ()


def _block_ops(
    block: Block, key: list[Hashable], number: Callable[[SSAValue], int]
) -> Iterator[Operation]:
    key.append(tuple((number(arg), arg.type) for arg in block.args))
    yield from block.ops


def print_ir(program: Program, *, generic: bool = False) -> str:
    """The program in the dialect's custom (or generic) textual form."""
    if not isinstance(program, Program):  # pyright: ignore[reportUnnecessaryIsInstance]
        raise TypeError(f"print_ir: `program` must be a vyre Program, got {type(program).__name__}")
    if not isinstance(generic, bool):  # pyright: ignore[reportUnnecessaryIsInstance]
        raise TypeError(f"print_ir: `generic` must be True or False, got {generic!r}")
    return text.print_module(program.module, generic=generic)


def parse_ir(source: str, name: str = "<vyre>") -> Program:
    """Parse the textual form (custom or generic) back into a Program.

    Ops carry their `name:line:col` locations. The text is parsed only: validation
    is its own step (`vyre.validate`, or `vyre.pipeline.prepare`, which every run
    and lowering goes through). Malformed text, or text that is not exactly one
    `vyre.kernel`, raises `VyreParseError` (a ValueError)."""
    module = text.parse_module(source, name)
    try:
        return Program.from_module(module)
    except ValueError as error:
        raise VyreParseError(f"{name}: error: {error}") from None
