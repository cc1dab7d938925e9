"""U128 semantics of the interpreter: Python integers, one per lane.

A U128 value of `n` lanes is a `(n, 4)` uint32 array, column 0 the least
significant word (values.py). Each operation joins the four words of every lane
into one Python int, computes with Python's exact integer arithmetic, and splits
the result again, so it shares nothing with the WGSL lowering (word-wise carries,
16-bit partial products, long division) nor with the dialect's folders.
Two operators need no integer: the bitwise ones act word by word, and a
shift by the same whole number of words in every lane moves the words
(`_whole_words`); both are what the definition says of the bits.

The meaning (docs/semantics.md, "u128"): arithmetic wraps modulo 2**128,
`x / 0 = x % 0 = 0` as for u32, shift amounts are taken modulo 128,
comparisons give 1 or 0 as u32 words, and `popcount`, `clz`, `ctz` give u32
counts in 0..128.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import numpy.typing as npt

from vyre.dialects.tables import OpTable
from vyre.dialects.vyre import U128_BINOP_KINDS, U128_UNOP_KINDS, BinOpKind, UnOpKind
from vyre.runtime.interp.errors import InterpError

Lanes = npt.NDArray[np.uint32]

MODULUS = 1 << 128
_WORD = (1 << 32) - 1


def to_ints(value: Lanes) -> list[int]:
    """The 128-bit integer of every lane of a `(n, 4)` word array."""
    rows: list[list[int]] = np.asarray(value, dtype=np.uint32).reshape(-1, 4).tolist()
    return [a | (b << 32) | (c << 64) | (d << 96) for a, b, c, d in rows]


def from_ints(values: Sequence[int]) -> Lanes:
    """The `(n, 4)` word array of 128-bit integers (each taken modulo 2**128)."""
    words = [
        [(v >> shift) & _WORD for shift in (0, 32, 64, 96)] for v in values
    ]
    return np.asarray(words, dtype=np.uint32).reshape(len(values), 4)


def _words(values: Sequence[int]) -> Lanes:
    """One u32 word per lane (comparisons and counts)."""
    return np.asarray(values, dtype=np.uint32).reshape(len(values))


def _divide(a: int, b: int) -> int:
    return 0 if b == 0 else a // b


def _remainder(a: int, b: int) -> int:
    return 0 if b == 0 else a % b


_Binary = Callable[[int, int], int]

VALUE_BINOPS: OpTable[BinOpKind, _Binary] = OpTable(
    "interpreter u128 binary operators", lambda: U128_BINOP_KINDS
)
"""`a <kind> b` on two 128-bit integers: a 128-bit result, or 0/1 for a comparison."""
VALUE_BINOPS.add(BinOpKind.ADD, lambda a, b: (a + b) % MODULUS)
VALUE_BINOPS.add(BinOpKind.SUB, lambda a, b: (a - b) % MODULUS)
VALUE_BINOPS.add(BinOpKind.MUL, lambda a, b: (a * b) % MODULUS)
VALUE_BINOPS.add(BinOpKind.DIV, _divide)
VALUE_BINOPS.add(BinOpKind.MOD, _remainder)
VALUE_BINOPS.add(BinOpKind.BIT_AND, lambda a, b: a & b)
VALUE_BINOPS.add(BinOpKind.BIT_OR, lambda a, b: a | b)
VALUE_BINOPS.add(BinOpKind.BIT_XOR, lambda a, b: a ^ b)
VALUE_BINOPS.add(BinOpKind.SHL, lambda a, b: (a << (b % 128)) % MODULUS)
VALUE_BINOPS.add(BinOpKind.SHR, lambda a, b: a >> (b % 128))
VALUE_BINOPS.add(BinOpKind.EQ, lambda a, b: int(a == b))
VALUE_BINOPS.add(BinOpKind.NE, lambda a, b: int(a != b))
VALUE_BINOPS.add(BinOpKind.LT, lambda a, b: int(a < b))
VALUE_BINOPS.add(BinOpKind.GT, lambda a, b: int(a > b))
VALUE_BINOPS.add(BinOpKind.LE, lambda a, b: int(a <= b))
VALUE_BINOPS.add(BinOpKind.GE, lambda a, b: int(a >= b))

_COMPARISONS = frozenset(
    {BinOpKind.EQ, BinOpKind.NE, BinOpKind.LT, BinOpKind.GT, BinOpKind.LE, BinOpKind.GE}
)


def _trailing_zeros(a: int) -> int:
    return 128 if a == 0 else (a & -a).bit_length() - 1


VALUE_UNOPS: OpTable[UnOpKind, Callable[[int], int]] = OpTable(
    "interpreter u128 unary operators", lambda: U128_UNOP_KINDS
)
"""`<kind> a` on a 128-bit integer: bit_not a 128-bit result, the counts 0..128."""
VALUE_UNOPS.add(UnOpKind.BIT_NOT, lambda a: (MODULUS - 1) ^ a)
VALUE_UNOPS.add(UnOpKind.POPCOUNT, lambda a: a.bit_count())
VALUE_UNOPS.add(UnOpKind.CLZ, lambda a: 128 - a.bit_length())
VALUE_UNOPS.add(UnOpKind.CTZ, _trailing_zeros)

_BINARY = {kind.value: kind for kind in U128_BINOP_KINDS}
_UNARY = {kind.value: kind for kind in U128_UNOP_KINDS}


def binop_function(spelling: str) -> Callable[[Lanes, Lanes], Lanes]:
    """`lhs <spelling> rhs` on two U128 values: `(n, 4)` words, or a u32 word
    per lane for a comparison."""
    kind = _BINARY.get(spelling)
    if kind is None:
        raise InterpError(
            f"`vyre.binop {spelling}` is not defined on u128 operands (V145)"
        )
    function = VALUE_BINOPS[kind]
    pack = _words if kind in _COMPARISONS else from_ints
    bitwise = _BITWISE.get(kind)

    def apply(lhs: Lanes, rhs: Lanes) -> Lanes:
        if bitwise is not None:
            return bitwise(np.asarray(lhs, dtype=np.uint32), np.asarray(rhs, dtype=np.uint32))
        if kind in (BinOpKind.SHL, BinOpKind.SHR):
            moved = _whole_words(kind, lhs, rhs)
            if moved is not None:
                return moved
        return pack([function(a, b) for a, b in zip(to_ints(lhs), to_ints(rhs), strict=True)])

    return apply


_BITWISE: dict[BinOpKind, Callable[[Lanes, Lanes], Lanes]] = {
    BinOpKind.BIT_AND: np.bitwise_and,
    BinOpKind.BIT_OR: np.bitwise_or,
    BinOpKind.BIT_XOR: np.bitwise_xor,
}
"""Bitwise operators, word by word (each bit of the result is the operator
on the same bit of the operands: the words are the integer's bits)."""


def _whole_words(kind: BinOpKind, lhs: Lanes, rhs: Lanes) -> Lanes | None:
    """`lhs << n` / `lhs >> n` when every lane's amount `n` (mod 128) is the
    same multiple of 32: the words move `n / 32` places, zeros shifted in
    (word `k` of the result is word `k - n/32` of `lhs` for <<, `k + n/32`
    for >>); None otherwise (the general path)."""
    words = np.asarray(lhs, dtype=np.uint32).reshape(-1, 4)
    amounts = np.asarray(rhs, dtype=np.uint32).reshape(-1, 4)[:, 0] & 127
    if amounts.size == 0 or amounts[0] % 32 or (amounts != amounts[0]).any():
        return None
    places = int(amounts[0]) // 32
    out = np.zeros_like(words)
    if kind == BinOpKind.SHL:
        out[:, places:] = words[:, : 4 - places]
    else:
        out[:, : 4 - places] = words[:, places:]
    return out


def unop_function(spelling: str) -> Callable[[Lanes], Lanes]:
    """`<spelling> operand` on a U128 value: `(n, 4)` words for bit_not, a u32
    count per lane otherwise."""
    kind = _UNARY.get(spelling)
    if kind is None:
        raise InterpError(f"`vyre.unop {spelling}` is not defined on a u128 operand (V145)")
    function = VALUE_UNOPS[kind]
    pack = from_ints if kind == UnOpKind.BIT_NOT else _words

    def apply(operand: Lanes) -> Lanes:
        return pack([function(a) for a in to_ints(operand)])

    return apply
