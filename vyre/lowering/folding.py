"""Constant folding with vyre's reference semantics (conform.md, casts.md).

The lowering never emits a WGSL operation whose operands are all literals: WGSL
const-evaluates those and rejects `1u / 0u`, `1u << 32u` or an overflowing
constant shift, where vyre defines a result. Folding here also removes every
literal zero divisor and every constant shift amount >= 32.
"""

from __future__ import annotations

from vyre.dialects.vyre import BinOpKind, DataTypeKind, UnOpKind
from vyre.lowering.values import LANES, U32_MASK, LoweringError

_SCALARS = (DataTypeKind.U32, DataTypeKind.I32, DataTypeKind.BOOL)


def fold_binop(kind: BinOpKind, a: int, b: int) -> int:
    """`a <kind> b` on u32 bit patterns (wrapping; /0 and %0 give 0; shifts mask)."""
    a &= U32_MASK
    b &= U32_MASK
    match kind:
        case BinOpKind.ADD:
            return (a + b) & U32_MASK
        case BinOpKind.SUB:
            return (a - b) & U32_MASK
        case BinOpKind.MUL:
            return (a * b) & U32_MASK
        case BinOpKind.DIV:
            return 0 if b == 0 else a // b
        case BinOpKind.MOD:
            return 0 if b == 0 else a % b
        case BinOpKind.BIT_AND:
            return a & b
        case BinOpKind.BIT_OR:
            return a | b
        case BinOpKind.BIT_XOR:
            return a ^ b
        case BinOpKind.SHL:
            return (a << (b & 31)) & U32_MASK
        case BinOpKind.SHR:
            return a >> (b & 31)
        case BinOpKind.EQ:
            return int(a == b)
        case BinOpKind.NE:
            return int(a != b)
        case BinOpKind.LT:
            return int(a < b)
        case BinOpKind.GT:
            return int(a > b)
        case BinOpKind.LE:
            return int(a <= b)
        case BinOpKind.GE:
            return int(a >= b)
        case BinOpKind.AND:
            return int(a != 0 and b != 0)
        case BinOpKind.OR:
            return int(a != 0 or b != 0)


def fold_unop(kind: UnOpKind, a: int) -> int:
    """`<kind> a` on a 32-bit pattern (clz(0) = ctz(0) = 32)."""
    a &= U32_MASK
    match kind:
        case UnOpKind.NEGATE:
            return (-a) & U32_MASK
        case UnOpKind.BIT_NOT:
            return a ^ U32_MASK
        case UnOpKind.LOGICAL_NOT:
            return int(a == 0)
        case UnOpKind.POPCOUNT:
            return bin(a).count("1")
        case UnOpKind.CLZ:
            return 32 - a.bit_length()
        case UnOpKind.CTZ:
            return 32 if a == 0 else (a & -a).bit_length() - 1
        case UnOpKind.REVERSE_BITS:
            return int(f"{a:032b}"[::-1], 2)


def fold_cast(
    source: DataTypeKind, lanes: tuple[int, ...], target: DataTypeKind
) -> tuple[int, ...]:
    """The lanes of `cast(target, value)` for a constant value (casts.md)."""
    if source == target:
        return lanes
    width = LANES.get(target)
    if width is None:
        raise LoweringError(
            f"vyre lowering: unsupported cast from `{source.value}` to `{target.value}`. "
            "Fix: see casts.md for valid conversions."
        )
    if target == DataTypeKind.BOOL:
        return (int(any(lanes)),)
    if source in _SCALARS:
        word = lanes[0]
        if target in (DataTypeKind.U32, DataTypeKind.I32):
            return (word,)
        if target == DataTypeKind.U64:
            high = U32_MASK if source == DataTypeKind.I32 and word & 0x8000_0000 else 0
            return (word, high)
        return (word,) * width
    # vector sources: truncation / component selection
    if width > len(lanes):
        raise LoweringError(
            f"vyre lowering: unsupported cast from `{source.value}` to `{target.value}`. "
            "Fix: see casts.md for valid conversions."
        )
    return lanes[:width]
