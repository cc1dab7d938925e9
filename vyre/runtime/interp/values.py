"""Lane-wise semantics of vyre values (docs/semantics.md).

A value of `n` lanes is a numpy `uint32` array: shape `(n,)` for U32, I32 and
Bool (Bool holds 0 or 1), `(n, 2)` for U64 and Vec2U32 (low/x first) and
`(n, 4)` for Vec4U32 and U128 (least significant word first; its arithmetic
is `u128`'s), `(n,)` for the floats: F32 is its bit pattern, F16 and
BF16 hold their 16-bit pattern in the low half (upper half zero). Bytes is
never a value. Every function here returns a fresh array and never writes to
its arguments.

Float semantics come from `floats` (the exact strict-IEEE core on bit patterns);
this module only picks the function of each op and type.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import numpy.typing as npt

from vyre.dialects import vyre as d
from vyre.dialects.tables import OpTable
from vyre.dialects.vyre import BinOpKind, DataTypeKind, UnOpKind, bitcast_defined
from vyre.runtime.interp import floats
from vyre.runtime.interp.errors import InterpError

Lanes = npt.NDArray[np.uint32]
Truth = npt.NDArray[np.bool_]

WORD = np.uint32
ALL_ONES = np.uint32(0xFFFF_FFFF)

WORDS_PER_VALUE: dict[DataTypeKind, int] = {
    kind: kind.lanes for kind in DataTypeKind if kind.lanes
}

SCALARS = frozenset(kind for kind in DataTypeKind if kind.is_scalar)
"""Types usable as indices, conditions, loop bounds and integer operands (floats are not)."""

FLOATS = frozenset(kind for kind in DataTypeKind if kind.is_float)
HALF_FLOATS = frozenset(kind for kind in DataTypeKind if kind.facts.half)
"""Floats of 16 bits: one value per word, but two elements per word in storage buffers."""


def words_per_value(kind: DataTypeKind) -> int:
    """Lane width of a value type; Bytes is not a value type."""
    width = WORDS_PER_VALUE.get(kind)
    if width is None:
        raise InterpError(
            f"`{kind.value}` is not a value type: Bytes data lives only in buffers"
        )
    return width


def lane_width(value: Lanes) -> int:
    return 1 if value.ndim == 1 else value.shape[1]


def as_bits(flag: Truth) -> Lanes:
    return flag.astype(WORD)


def truth(value: Lanes) -> Truth:
    """Non-zero is true (If/Select conditions, casts to Bool)."""
    if value.ndim == 1:
        return value != 0
    return np.any(value != 0, axis=1)


# ---------------------------------------------------------------------------
# Binary operations: u32 x u32 -> u32, wrapping
# ---------------------------------------------------------------------------


def _div(a: Lanes, b: Lanes) -> Lanes:
    zero = b == 0
    quotient = np.floor_divide(a, np.where(zero, WORD(1), b))
    return np.where(zero, WORD(0), quotient).astype(WORD, copy=False)


def _mod(a: Lanes, b: Lanes) -> Lanes:
    zero = b == 0
    remainder = np.remainder(a, np.where(zero, WORD(1), b))
    return np.where(zero, WORD(0), remainder).astype(WORD, copy=False)


def _shl(a: Lanes, b: Lanes) -> Lanes:
    return np.left_shift(a, b & WORD(31))


def _shr(a: Lanes, b: Lanes) -> Lanes:
    return np.right_shift(a, b & WORD(31))


BINOPS: OpTable[BinOpKind, Callable[[Lanes, Lanes], Lanes]] = OpTable(
    "interpreter binary operators", lambda: BinOpKind
)
BINOPS.add(BinOpKind.ADD, np.add)
BINOPS.add(BinOpKind.SUB, np.subtract)
BINOPS.add(BinOpKind.MUL, np.multiply)
BINOPS.add(BinOpKind.DIV, _div)
BINOPS.add(BinOpKind.MOD, _mod)
BINOPS.add(BinOpKind.BIT_AND, np.bitwise_and)
BINOPS.add(BinOpKind.BIT_OR, np.bitwise_or)
BINOPS.add(BinOpKind.BIT_XOR, np.bitwise_xor)
BINOPS.add(BinOpKind.SHL, _shl)
BINOPS.add(BinOpKind.SHR, _shr)
BINOPS.add(BinOpKind.EQ, lambda a, b: as_bits(a == b))
BINOPS.add(BinOpKind.NE, lambda a, b: as_bits(a != b))
BINOPS.add(BinOpKind.LT, lambda a, b: as_bits(a < b))
BINOPS.add(BinOpKind.GT, lambda a, b: as_bits(a > b))
BINOPS.add(BinOpKind.LE, lambda a, b: as_bits(a <= b))
BINOPS.add(BinOpKind.GE, lambda a, b: as_bits(a >= b))
BINOPS.add(BinOpKind.AND, lambda a, b: as_bits((a != 0) & (b != 0)))
BINOPS.add(BinOpKind.OR, lambda a, b: as_bits((a != 0) | (b != 0)))


def _dot4_i8(a: Lanes, b: Lanes) -> Lanes:
    """Per lane: the signed bytes of `a` times those of `b`, summed (wrapping)."""
    total = np.zeros(np.broadcast_shapes(np.shape(a), np.shape(b)), dtype=np.int64)
    for lane in range(4):
        x = ((a >> WORD(8 * lane)) & WORD(0xFF)).astype(np.int64)
        y = ((b >> WORD(8 * lane)) & WORD(0xFF)).astype(np.int64)
        total += (x - ((x & 0x80) << 1)) * (y - ((y & 0x80) << 1))
    return (total & 0xFFFF_FFFF).astype(WORD)


BINOPS.add(BinOpKind.DOT4_I8, _dot4_i8)
BINOPS.add(
    BinOpKind.MUL_HIGH,
    lambda a, b: ((a.astype(np.uint64) * b.astype(np.uint64)) >> np.uint64(32)).astype(WORD),
)


def binop_function(kind: str) -> Callable[[Lanes, Lanes], Lanes]:
    """`lhs <kind> rhs` on the 32-bit patterns of both operands."""
    function = BINOPS.get(BinOpKind(kind)) if kind in _BINOP_SPELLINGS else None
    if function is None:
        raise InterpError(
            f"`vyre.binop {kind}` is not an integer operator: float operators are "
            "their own ops (`vyre.fadd`, `vyre.fcmp`, ...)"
        )
    return function


_BINOP_SPELLINGS = frozenset(kind.value for kind in BinOpKind)
_UNOP_SPELLINGS = frozenset(kind.value for kind in UnOpKind)


# ---------------------------------------------------------------------------
# Unary operations on the 32-bit pattern
# ---------------------------------------------------------------------------


def _popcount(a: Lanes) -> Lanes:
    return np.bitwise_count(a).astype(WORD)


def _clz(a: Lanes) -> Lanes:
    smeared = a.copy()
    for shift in (1, 2, 4, 8, 16):
        smeared |= smeared >> WORD(shift)
    return WORD(32) - _popcount(smeared)


def _ctz(a: Lanes) -> Lanes:
    # bits below the lowest set bit; all 32 bits when a == 0
    return _popcount((a & (WORD(0) - a)) - WORD(1))


_REVERSE_STEPS = (
    (1, 0x5555_5555),
    (2, 0x3333_3333),
    (4, 0x0F0F_0F0F),
    (8, 0x00FF_00FF),
)


def _reverse_bits(a: Lanes) -> Lanes:
    bits = a.copy()
    for shift, mask in _REVERSE_STEPS:
        low = WORD(mask)
        bits = ((bits >> WORD(shift)) & low) | ((bits & low) << WORD(shift))
    return (bits >> WORD(16)) | (bits << WORD(16))


UNOPS: OpTable[UnOpKind, Callable[[Lanes], Lanes]] = OpTable(
    "interpreter unary operators", lambda: UnOpKind
)
UNOPS.add(UnOpKind.NEGATE, lambda a: WORD(0) - a)
UNOPS.add(UnOpKind.BIT_NOT, np.invert)
UNOPS.add(UnOpKind.LOGICAL_NOT, lambda a: as_bits(a == 0))
UNOPS.add(UnOpKind.POPCOUNT, _popcount)
UNOPS.add(UnOpKind.CLZ, _clz)
UNOPS.add(UnOpKind.CTZ, _ctz)
UNOPS.add(UnOpKind.REVERSE_BITS, _reverse_bits)


def unop_function(kind: str) -> Callable[[Lanes], Lanes]:
    """The unary op on the 32-bit pattern of its operand."""
    function = UNOPS.get(UnOpKind(kind)) if kind in _UNOP_SPELLINGS else None
    if function is None:
        raise InterpError(
            f"`vyre.unop {kind}` is not an integer operator: float operators are "
            "their own ops (`vyre.fneg`, `vyre.fis_nan`, ...)"
        )
    return function


# ---------------------------------------------------------------------------
# Casts: exactly the table of docs/semantics.md
# ---------------------------------------------------------------------------

U32, I32, BOOL = DataTypeKind.U32, DataTypeKind.I32, DataTypeKind.BOOL
U64, VEC2, VEC4 = DataTypeKind.U64, DataTypeKind.VEC2U32, DataTypeKind.VEC4U32
U128 = DataTypeKind.U128


def _identity(v: Lanes) -> Lanes:
    return v


def _to_bool(v: Lanes) -> Lanes:
    return as_bits(truth(v))


def _splat(count: int) -> Callable[[Lanes], Lanes]:
    def splat(v: Lanes) -> Lanes:
        return np.repeat(v[:, None], count, axis=1)

    return splat


def _zero_extend(v: Lanes) -> Lanes:
    return np.stack([v, np.zeros_like(v)], axis=1)


def _sign_extend(v: Lanes) -> Lanes:
    high = np.where(v >= WORD(0x8000_0000), ALL_ONES, WORD(0))
    return np.stack([v, high.astype(WORD, copy=False)], axis=1)


def _lane0(v: Lanes) -> Lanes:
    return v[:, 0].copy()


def _lanes01(v: Lanes) -> Lanes:
    return v[:, :2].copy()


def _bool_to_word(v: Lanes) -> Lanes:
    return as_bits(v != 0)


def _bool_to_u64(v: Lanes) -> Lanes:
    return _zero_extend(_bool_to_word(v))


def _widen(v: Lanes) -> Lanes:
    """Zero-extension to the four words of a U128 (a word or a two-word value)."""
    words = v[:, None] if v.ndim == 1 else v
    high = np.zeros((words.shape[0], 4 - words.shape[1]), dtype=WORD)
    return np.concatenate([words, high], axis=1)


def _sign_widen(v: Lanes) -> Lanes:
    """An i32 sign-extended to the four words of a U128."""
    high = np.where(v >= WORD(0x8000_0000), ALL_ONES, WORD(0)).astype(WORD, copy=False)
    return np.stack([v, high, high, high], axis=1)


CAST_TABLE: dict[tuple[DataTypeKind, DataTypeKind], Callable[[Lanes], Lanes]] = {
    (U32, U32): _identity,
    (U32, I32): _identity,
    (U32, BOOL): _to_bool,
    (U32, U64): _zero_extend,
    (U32, VEC2): _splat(2),
    (U32, VEC4): _splat(4),
    (I32, I32): _identity,
    (I32, U32): _identity,
    (I32, BOOL): _to_bool,
    (I32, U64): _sign_extend,
    (I32, VEC2): _splat(2),
    (I32, VEC4): _splat(4),
    (BOOL, U32): _bool_to_word,
    (BOOL, I32): _bool_to_word,
    (BOOL, BOOL): _bool_to_word,
    (BOOL, U64): _bool_to_u64,
    (BOOL, VEC2): lambda v: _splat(2)(_bool_to_word(v)),
    (BOOL, VEC4): lambda v: _splat(4)(_bool_to_word(v)),
    (U64, U32): _lane0,
    (U64, I32): _lane0,
    (U64, BOOL): _to_bool,
    (U64, U64): _identity,
    (U64, VEC2): _identity,
    (VEC2, U32): _lane0,
    (VEC2, I32): _lane0,
    (VEC2, U64): _identity,
    (VEC2, VEC2): _identity,
    (VEC2, BOOL): _to_bool,
    (VEC4, U32): _lane0,
    (VEC4, I32): _lane0,
    (VEC4, VEC2): _lanes01,
    (VEC4, VEC4): _identity,
    (VEC4, BOOL): _to_bool,
    (VEC4, U64): _lanes01,
    (U128, U128): _identity,
    (U128, U32): _lane0,
    (U128, I32): _lane0,
    (U128, U64): _lanes01,
    (U128, VEC2): _lanes01,
    (U128, VEC4): _identity,
    (U128, BOOL): _to_bool,
    (U32, U128): _widen,
    (I32, U128): _sign_widen,
    (U64, U128): _widen,
    (VEC2, U128): _widen,
    (VEC4, U128): _identity,
    (BOOL, U128): lambda v: _widen(_bool_to_word(v)),
}


def _float_conversion(source: DataTypeKind, target: DataTypeKind) -> Callable[[Lanes], Lanes]:
    def convert(v: Lanes) -> Lanes:
        return floats.convert(source.value, target.value, v)

    return convert


_FLOAT_PARTNERS = (U32, I32, *sorted(FLOATS, key=lambda kind: kind.value))

CAST_TABLE.update(
    {
        (source, target): _float_conversion(source, target)
        for source in _FLOAT_PARTNERS
        for target in _FLOAT_PARTNERS
        if source in FLOATS or target in FLOATS
    }
)
"""Float rows (docs/floats.md): u32/i32 -> float RNE; float -> u32/i32
truncate and saturate, NaN -> 0; among floats RNE (F16 <-> BF16 through F32)."""


def cast_function(
    source: DataTypeKind, target: DataTypeKind
) -> Callable[[Lanes], Lanes]:
    """The table entry for `source -> target`; unsupported pairs are errors."""
    entry = CAST_TABLE.get((source, target))
    if entry is None:
        raise InterpError(
            f"unsupported cast from `{source.value}` to `{target.value}` "
            "(V012/V023); the interpreter never guesses a conversion. "
            'Fix: use a conversion of the cast table (docs/semantics.md, "Casts")'
        )
    return entry


# ---------------------------------------------------------------------------
# Strict floats: every op on the bit patterns through `floats`
# ---------------------------------------------------------------------------


def float_function(
    op: type[d.FloatOp], fmt: DataTypeKind, variant: str = ""
) -> Callable[..., Lanes]:
    """The float op class `op` on values of float type `fmt` (a comparison's
    predicate as `variant`): lanes of bit patterns in, lanes out (0/1 words for
    comparisons and classifications)."""
    floats.ORACLES[op]  # a missing oracle fails here, naming the op, not at run time
    fmt_name = "f32" if issubclass(op, d.ApproximateUnaryOp) else fmt.value

    def apply(*operands: Lanes) -> Lanes:
        return floats.evaluate(op, fmt_name, *operands, variant=variant)

    return apply


def lookup_function(table: tuple[int, ...]) -> Callable[[Lanes], Lanes]:
    """Word `index` of a constant table, 0 past its end."""
    words = np.asarray((*table, 0), dtype=WORD)
    end = len(table)

    def apply(index: Lanes) -> Lanes:
        return words[np.minimum(index, WORD(end))]

    return apply


def bitcast_function(source: DataTypeKind, target: DataTypeKind) -> Callable[[Lanes], Lanes]:
    """The bits of a value read as `target`: F32 <-> U32/I32 keep all 32 bits,
    U32/I32 -> F16/BF16 keep the low 16 bits, F16/BF16 -> U32/I32 zero-extend,
    a type to itself is the identity; other pairs are errors (V142)."""
    if not bitcast_defined(source, target):
        raise InterpError(
            f"bitcast from `{source.value}` to `{target.value}` is not defined (V142): "
            "bitcasts go between f32, u32 and i32, or between f16/bf16 and u32/i32"
        )

    def apply(v: Lanes) -> Lanes:
        return floats.bitcast(source.value, target.value, v)

    return apply
