"""`primitive.bitwise`: bit operations on u32.

and/or/xor/not/shl/shr/rotl/rotr/andn/xnor/bit_test/byte_swap are Category A;
popcount, clz, ctz, reverse_bits, extract_bits and insert_bits are Category C
intrinsics with WGSL's definitions (countOneBits, countLeadingZeros,
countTrailingZeros, reverseBits, extractBits and insertBits on u32). Shift
amounts (and bit_test's bit index) are taken & 31.
"""

from __future__ import annotations

import numpy as np

from vyre.ir import Expr
from vyre.ir import Expr as E
from vyre.ir import UnOp
from vyre.ops import laws as L
from vyre.ops.primitive._common import (
    MASK,
    U32_BOUNDARIES,
    U32_MAX,
    bit_length,
    classes,
    narrow,
    op,
    wide,
)
from vyre.ops.spec import Intrinsic

P = "primitive.bitwise."

INTRINSIC_BOUNDARIES = (0, 1, 2, 0x8000_0000, 0x7FFF_FFFF, 0x0001_0000, U32_MAX)
SHIFT_BOUNDARIES = (
    *U32_BOUNDARIES,
    (1, 31),
    (1, 32),
    (1, 33),
    (0x8000_0000, 31),
    (U32_MAX, 0xFFFF_FFE1),
)


def _amount(b: np.ndarray) -> np.ndarray:
    return wide(b) & np.uint64(31)


BYTE_BOUNDARIES = (*U32_BOUNDARIES, 0xFF, 0xFF00, 0x00FF_0000, 0xFF00_0000, 0x0102_0304)


def _rotl_ref(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    a, s = wide(a), _amount(b)
    return narrow((a << s) | (a >> ((np.uint64(32) - s) & np.uint64(31))))


def _rotr_ref(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    a, s = wide(a), _amount(b)
    return narrow((a >> s) | (a << ((np.uint64(32) - s) & np.uint64(31))))


def _byte_swap_ref(a: np.ndarray) -> np.ndarray:
    return narrow(a).byteswap()


def _byte_swap(a: Expr) -> Expr:
    """Bytes 0 and 3 by shifts alone; bytes 1 and 2 masked on the way."""
    byte_1 = E.u32(0xFF00)
    eight = E.u32(8)
    outer = E.bitor(E.shl(a, E.u32(24)), E.shr(a, E.u32(24)))
    inner = E.bitor(E.shl(E.bitand(a, byte_1), eight), E.bitand(E.shr(a, eight), byte_1))
    return E.bitor(outer, inner)


def _popcount_ref(a: np.ndarray) -> np.ndarray:
    x = wide(a)
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555_5555))
    x = (x & np.uint64(0x3333_3333)) + ((x >> np.uint64(2)) & np.uint64(0x3333_3333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F_0F0F)
    return narrow(((x * np.uint64(0x0101_0101)) & MASK) >> np.uint64(24))


def _clz_ref(a: np.ndarray) -> np.ndarray:
    return narrow(np.uint64(32) - bit_length(wide(a)))


def _ctz_ref(a: np.ndarray) -> np.ndarray:
    x = wide(a)
    lowest = x & ((np.uint64(1) << np.uint64(32)) - x) & MASK
    return narrow(np.where(x == 0, 32, bit_length(lowest) - np.uint64(1)))


def _reverse_bits_ref(a: np.ndarray) -> np.ndarray:
    x = wide(a)
    for shift, mask in ((1, 0x5555_5555), (2, 0x3333_3333), (4, 0x0F0F_0F0F), (8, 0x00FF_00FF)):
        s, m = np.uint64(shift), np.uint64(mask)
        x = ((x >> s) & m) | ((x & m) << s)
    x = (x >> np.uint64(16)) | ((x & np.uint64(0xFFFF)) << np.uint64(16))
    return narrow(x)


def _field(offset: np.ndarray, count: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """WGSL's o = min(offset, 32), c = min(count, 32 - o)."""
    o = np.minimum(wide(offset), np.uint64(32))
    c = np.minimum(wide(count), np.uint64(32) - o)
    return o, c


def _extract_bits_ref(e: np.ndarray, offset: np.ndarray, count: np.ndarray) -> np.ndarray:
    o, c = _field(offset, count)
    low_mask = (np.uint64(1) << c) - np.uint64(1)
    return narrow((wide(e) >> o) & low_mask)


def _insert_bits_ref(
    e: np.ndarray, newbits: np.ndarray, offset: np.ndarray, count: np.ndarray
) -> np.ndarray:
    o, c = _field(offset, count)
    field_mask = ((np.uint64(1) << c) - np.uint64(1)) << o
    return narrow((wide(e) & ~field_mask) | ((wide(newbits) << o) & field_mask))


SPECS = (
    op(
        P + "and",
        2,
        lambda a, b: narrow(wide(a) & wide(b)),
        lambda a, b: E.bitand(a, b),
        laws=[
            L.Commutative(),
            L.Associative(),
            L.Idempotent(),
            L.Identity(U32_MAX),
            L.Absorbing(0),
            L.DistributiveOver(P + "or"),
            L.DistributiveOver(P + "xor"),
        ],
        equivalence_classes=classes(
            ("disjoint bits give 0", [(0xF0F0_F0F0, 0x0F0F_0F0F)]),
            ("overlapping bits", [(0xFF00, 0x0FF0), (U32_MAX, 0x8000_0001)]),
        ),
        summary="a & b",
    ),
    op(
        P + "or",
        2,
        lambda a, b: narrow(wide(a) | wide(b)),
        lambda a, b: E.bitor(a, b),
        laws=[
            L.Commutative(),
            L.Associative(),
            L.Idempotent(),
            L.Identity(0),
            L.Absorbing(U32_MAX),
            L.DistributiveOver(P + "and"),
        ],
        equivalence_classes=classes(
            ("disjoint bits add", [(0xFF00, 0x00FF)]),
            ("overlapping bits", [(0xFF00, 0x0FF0), (0x8000_0000, 0x8000_0001)]),
        ),
        summary="a | b",
    ),
    op(
        P + "xor",
        2,
        lambda a, b: narrow(wide(a) ^ wide(b)),
        lambda a, b: E.bitxor(a, b),
        laws=[L.Commutative(), L.Associative(), L.Identity(0), L.SelfInverse(0)],
        equivalence_classes=classes(
            ("disjoint bits add", [(0xFF00, 0x00FF)]),
            ("shared bits cancel", [(0xFF00, 0x0FF0), (U32_MAX, 0xAAAA_AAAA)]),
        ),
        summary="a ^ b",
    ),
    op(
        P + "not",
        1,
        lambda a: narrow(wide(a) ^ MASK),
        lambda a: E.bitnot(a),
        laws=[
            L.Involution(),
            L.DeMorgan(P + "and", P + "or"),
            L.DeMorgan(P + "or", P + "and"),
        ],
        equivalence_classes=classes(
            ("all zeros <-> all ones", [(0,), (U32_MAX,)]),
            ("mixed bits", [(0xAAAA_AAAA,), (0x0000_FFFF,)]),
        ),
        summary="~a",
    ),
    op(
        P + "shl",
        2,
        lambda a, b: narrow(wide(a) << _amount(b)),
        lambda a, b: E.shl(a, b),
        equivalence_classes=classes(
            ("amount 0..31 shifts left, zero fill", [(1, 31), (U32_MAX, 4)]),
            ("amount >= 32 uses amount & 31", [(1, 32), (3, 33)]),
            ("bits shifted out are lost", [(0x8000_0001, 1)]),
        ),
        boundaries=SHIFT_BOUNDARIES,
        summary="a << (b & 31)",
    ),
    op(
        P + "shr",
        2,
        lambda a, b: narrow(wide(a) >> _amount(b)),
        lambda a, b: E.shr(a, b),
        equivalence_classes=classes(
            ("amount 0..31 shifts right, zero fill (logical)", [(0x8000_0000, 31), (U32_MAX, 4)]),
            ("amount >= 32 uses amount & 31", [(1, 32), (0x8000_0000, 33)]),
            ("bits shifted out are lost", [(0x8000_0001, 1)]),
        ),
        boundaries=SHIFT_BOUNDARIES,
        summary="a >> (b & 31), logical",
    ),
    op(
        P + "rotl",
        2,
        _rotl_ref,
        lambda a, b: E.bitor(E.shl(a, b), E.shr(a, E.sub(E.u32(0), b))),
        equivalence_classes=classes(
            ("bits rotated out of bit 31 re-enter at bit 0", [(0x8000_0001, 1), (0xF000_0000, 4)]),
            ("amount 0 or 32 is the identity", [(0xDEAD_BEEF, 0), (0xDEAD_BEEF, 32)]),
        ),
        boundaries=SHIFT_BOUNDARIES,
        summary="rotate left by b & 31",
    ),
    op(
        P + "rotr",
        2,
        _rotr_ref,
        lambda a, b: E.bitor(E.shr(a, b), E.shl(a, E.sub(E.u32(0), b))),
        equivalence_classes=classes(
            ("bits rotated out of bit 0 re-enter at bit 31", [(0x8000_0001, 1), (0x0000_000F, 4)]),
            ("amount 0 or 32 is the identity", [(0xDEAD_BEEF, 0), (0xDEAD_BEEF, 32)]),
        ),
        boundaries=SHIFT_BOUNDARIES,
        summary="rotate right by b & 31",
    ),
    op(
        P + "andn",
        2,
        lambda a, b: narrow(wide(a) & (wide(b) ^ MASK)),
        lambda a, b: E.bitand(a, E.bitnot(b)),
        laws=[L.SelfInverse(0)],
        equivalence_classes=classes(
            ("bits of b are cleared from a", [(U32_MAX, 0x0F0F_0F0F), (0xFF00, 0x0FF0)]),
            ("disjoint bits keep a", [(0xFF00, 0x00FF), (0x8000_0000, 0x7FFF_FFFF)]),
            ("b covering a gives 0", [(0x0FF0, 0xFFFF), (0xDEAD_BEEF, U32_MAX)]),
        ),
        summary="a & ~b (clear the bits of b in a)",
    ),
    op(
        P + "xnor",
        2,
        lambda a, b: narrow((wide(a) ^ wide(b)) ^ MASK),
        lambda a, b: E.bitnot(E.bitxor(a, b)),
        laws=[L.Commutative(), L.Associative(), L.Identity(U32_MAX), L.SelfInverse(U32_MAX)],
        equivalence_classes=classes(
            ("equal operands give all ones", [(0, 0), (0xDEAD_BEEF, 0xDEAD_BEEF)]),
            ("complementary operands give 0", [(0xAAAA_AAAA, 0x5555_5555), (0, U32_MAX)]),
            ("agreeing bits set, differing bits clear", [(0xFF00, 0x0FF0), (1, 3)]),
        ),
        summary="~(a ^ b) (1 where the bits of a and b agree)",
    ),
    op(
        P + "bit_test",
        2,
        lambda a, b: narrow((wide(a) >> _amount(b)) & np.uint64(1)),
        lambda a, b: E.bitand(E.shr(a, b), E.u32(1)),
        equivalence_classes=classes(
            ("bit set gives 1", [(1, 0), (0x8000_0000, 31), (U32_MAX, 17)]),
            ("bit clear gives 0", [(0, 5), (0x7FFF_FFFF, 31), (0xFFFF_FFFE, 0)]),
            ("index >= 32 uses index & 31", [(1, 32), (0x8000_0000, 63), (2, 33), (4, U32_MAX)]),
        ),
        boundaries=SHIFT_BOUNDARIES,
        summary="(a >> (b & 31)) & 1: bit b of a",
    ),
    op(
        P + "byte_swap",
        1,
        _byte_swap_ref,
        _byte_swap,
        laws=[
            L.Involution(),
            L.DeMorgan(P + "and", P + "and"),
            L.DeMorgan(P + "or", P + "or"),
            L.DeMorgan(P + "xor", P + "xor"),
        ],
        equivalence_classes=classes(
            ("byte palindromes are fixed", [(0,), (U32_MAX,), (0x1234_3412,)]),
            ("byte k moves to byte 3 - k", [(0xFF,), (0x0102_0304,), (0xDEAD_BEEF,)]),
        ),
        boundaries=BYTE_BOUNDARIES,
        summary="reverse the four bytes of a (endianness swap)",
    ),
    op(
        P + "popcount",
        1,
        _popcount_ref,
        Intrinsic(hardware="population count", wgsl="countOneBits", unop=UnOp.POPCOUNT),
        laws=[L.Bounded(0, 32)],
        equivalence_classes=classes(
            ("no bit set", [(0,)]),
            ("one bit set", [(1,), (0x8000_0000,)]),
            ("many bits set", [(U32_MAX,), (0xAAAA_AAAA,), (0xDEAD_BEEF,)]),
        ),
        boundaries=INTRINSIC_BOUNDARIES,
        summary="number of set bits (0..32)",
    ),
    op(
        P + "clz",
        1,
        _clz_ref,
        Intrinsic(hardware="count leading zeros", wgsl="countLeadingZeros", unop=UnOp.CLZ),
        laws=[L.Bounded(0, 32)],
        equivalence_classes=classes(
            ("zero gives 32", [(0,)]),
            ("highest set bit k gives 31 - k", [(1,), (0x0001_0000,), (0x8000_0000,)]),
        ),
        boundaries=INTRINSIC_BOUNDARIES,
        summary="leading zero bits, clz(0) = 32",
    ),
    op(
        P + "ctz",
        1,
        _ctz_ref,
        Intrinsic(hardware="count trailing zeros", wgsl="countTrailingZeros", unop=UnOp.CTZ),
        laws=[L.Bounded(0, 32)],
        equivalence_classes=classes(
            ("zero gives 32", [(0,)]),
            ("lowest set bit k gives k", [(1,), (0x0001_0000,), (0x8000_0000,)]),
        ),
        boundaries=INTRINSIC_BOUNDARIES,
        summary="trailing zero bits, ctz(0) = 32",
    ),
    op(
        P + "reverse_bits",
        1,
        _reverse_bits_ref,
        Intrinsic(hardware="bit reversal", wgsl="reverseBits", unop=UnOp.REVERSE_BITS),
        laws=[
            L.Involution(),
            L.DeMorgan(P + "and", P + "and"),
            L.DeMorgan(P + "or", P + "or"),
            L.DeMorgan(P + "xor", P + "xor"),
        ],
        equivalence_classes=classes(
            ("palindromes are fixed", [(0,), (U32_MAX,), (0x8000_0001,)]),
            ("bit k moves to bit 31 - k", [(1,), (0x0000_FFFF,), (0xDEAD_BEEF,)]),
        ),
        boundaries=INTRINSIC_BOUNDARIES,
        summary="bit k -> bit 31 - k",
    ),
    op(
        P + "extract_bits",
        3,
        _extract_bits_ref,
        Intrinsic(hardware="bit-field extract (unsigned)", wgsl="extractBits"),
        equivalence_classes=classes(
            ("field inside the word", [(0xDEAD_BEEF, 4, 8), (U32_MAX, 0, 32)]),
            ("count 0 gives 0", [(U32_MAX, 5, 0)]),
            ("offset + count past bit 31 is clipped", [(U32_MAX, 28, 8), (0x8000_0000, 31, 5)]),
            ("offset >= 32 gives 0", [(U32_MAX, 32, 1), (U32_MAX, 40, 3)]),
        ),
        boundaries=[0, 1, 31, 32, 33, U32_MAX, (U32_MAX, 0, 32), (U32_MAX, 31, 1)],
        summary="WGSL extractBits(e, offset, count) on u32: zero-extended field",
    ),
    op(
        P + "insert_bits",
        4,
        _insert_bits_ref,
        Intrinsic(hardware="bit-field insert", wgsl="insertBits"),
        equivalence_classes=classes(
            ("field inside the word", [(0, U32_MAX, 4, 8), (0xDEAD_BEEF, 0x5, 28, 4)]),
            ("count 0 returns e", [(0xDEAD_BEEF, U32_MAX, 5, 0)]),
            ("offset + count past bit 31 is clipped", [(0, U32_MAX, 28, 8)]),
            ("offset >= 32 returns e", [(0xDEAD_BEEF, U32_MAX, 32, 4)]),
        ),
        boundaries=[0, 1, 31, 32, U32_MAX, (0, U32_MAX, 0, 32), (U32_MAX, 0, 31, 1)],
        summary="WGSL insertBits(e, newbits, offset, count) on u32",
    ),
)
