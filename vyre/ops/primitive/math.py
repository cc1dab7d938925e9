"""`primitive.math`: wrapping u32 arithmetic (docs/semantics.md, "Integer operations").

Every op is Category A: its composition is a loop-free vyre expression. Ops
with an "i32 view" (sign, abs) read and return u32 bit patterns interpreted as
two's-complement i32.
"""

from __future__ import annotations

import numpy as np

from vyre.ir import Expr
from vyre.ir import Expr as E
from vyre.ops import laws as L
from vyre.ops.primitive._common import U32_MAX, classes, narrow, op, wide

P = "primitive.math."

GCD_STEPS = 64
"""Unrolled steps of the binary GCD. Proof that 64 suffice: the loop state is
(x odd, y); a step strips y's factors of two (yo), then takes
(min(x, yo), |x - yo|). The next step's yo is at most |x - yo| / 2 < max / 2, so
x * yo at least halves per step. It starts below 2**64 and is at least 1 while
y != 0, so y reaches 0 within 64 steps; a step with y == 0 keeps the state."""


def _div(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    a, b = wide(a), wide(b)
    return narrow(np.where(b == 0, 0, a // np.where(b == 0, 1, b)))


def _mod(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    a, b = wide(a), wide(b)
    return narrow(np.where(b == 0, 0, a % np.where(b == 0, 1, b)))


def _gcd_ref(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return narrow(np.gcd(wide(a), wide(b)))


def _lcm_ref(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    a, b = wide(a), wide(b)
    g = np.gcd(a, b)
    quotient = np.where(g == 0, 0, a // np.where(g == 0, 1, g))
    return narrow(quotient * b)


def _sign_ref(a: np.ndarray) -> np.ndarray:
    signed = narrow(a).view(np.int32)
    return narrow(np.where(signed > 0, 1, np.where(signed < 0, U32_MAX, 0)))


def _abs_ref(a: np.ndarray) -> np.ndarray:
    a = wide(a)
    return narrow(np.where(a >= 0x8000_0000, (1 << 32) - a, a))


def _mul_high_ref(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return narrow((wide(a) * wide(b)) >> np.uint64(32))


def _div_ceil_ref(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    a, b = wide(a), wide(b)  # a + b - 1 < 2**33: no overflow in uint64
    return narrow(np.where(b == 0, 0, (a + b - np.uint64(1)) // np.where(b == 0, 1, b)))


# -- compositions ---------------------------------------------------------------


def _u(value: int) -> Expr:
    return E.u32(value)


def _min(a: Expr, b: Expr) -> Expr:
    return E.select(E.lt(a, b), a, b)


def _max(a: Expr, b: Expr) -> Expr:
    return E.select(E.gt(a, b), a, b)


def _gcd(a: Expr, b: Expr) -> Expr:
    """Stein's binary GCD, unrolled `GCD_STEPS` times: no loop, no branch."""
    x = E.shr(a, E.ctz(a))  # odd part of a (0 stays 0)
    y = b
    for _ in range(GCD_STEPS):
        y_odd = E.select(y, E.shr(y, E.ctz(y)), x)  # y == 0: (x, x) keeps the state
        x_greater = E.gt(x, y_odd)
        x, y = (
            E.select(x_greater, y_odd, x),
            E.select(x_greater, E.sub(x, y_odd), E.sub(y_odd, x)),
        )
    shared_twos = E.ctz(E.bitor(a, b))
    both = E.shl(x, shared_twos)
    return E.select(E.eq(a, _u(0)), b, E.select(E.eq(b, _u(0)), a, both))


def _mul_high(a: Expr, b: Expr) -> Expr:
    """High word of the 64-bit product from 16-bit limbs (no partial sum overflows)."""
    low = _u(0xFFFF)
    sixteen = _u(16)
    a_lo, a_hi = E.bitand(a, low), E.shr(a, sixteen)
    b_lo, b_hi = E.bitand(b, low), E.shr(b, sixteen)
    lo_lo = E.mul(a_lo, b_lo)
    lo_hi = E.mul(a_lo, b_hi)
    hi_lo = E.mul(a_hi, b_lo)
    hi_hi = E.mul(a_hi, b_hi)
    middle = E.add(
        E.add(E.shr(lo_lo, sixteen), E.bitand(lo_hi, low)), E.bitand(hi_lo, low)
    )
    return E.add(
        E.add(E.add(hi_hi, E.shr(lo_hi, sixteen)), E.shr(hi_lo, sixteen)),
        E.shr(middle, sixteen),
    )


def _mul_sat(a: Expr, b: Expr) -> Expr:
    """The product overflows exactly when its high word is non-zero."""
    return E.select(E.call(P + "mul_high", [a, b]), _u(U32_MAX), E.mul(a, b))


def _div_ceil(a: Expr, b: Expr) -> Expr:
    """floor(a / b) plus one when a remainder is left (b = 0: 0 + 0, as div and mod)."""
    return E.add(E.div(a, b), E.ne(E.mod(a, b), _u(0)))


def _avg_ceil(a: Expr, b: Expr) -> Expr:
    """a + b = (a | b) + (a & b) = 2 (a | b) - (a ^ b), so ceil((a + b) / 2) is
    (a | b) - ((a ^ b) >> 1), with no intermediate above 2**32 - 1."""
    return E.sub(E.bitor(a, b), E.shr(E.bitxor(a, b), _u(1)))


def _sign(a: Expr) -> Expr:
    # non-zero -> 1; negative (bit 31) -> 1 | 0xFFFFFFFF
    return E.bitor(E.ne(a, _u(0)), E.negate(E.shr(a, _u(31))))


def _abs(a: Expr) -> Expr:
    negative_mask = E.negate(E.shr(a, _u(31)))  # 0 or 0xFFFFFFFF
    return E.sub(E.bitxor(a, negative_mask), negative_mask)


WRAP = [(U32_MAX, 1), (0x8000_0000, 0x8000_0000), (U32_MAX, U32_MAX)]
NEGATION_CLASSES = classes(
    ("zero is its own negation", [(0,)]),
    ("i32 positives map to negatives", [(1,), (0x7FFF_FFFF,)]),
    ("i32 negatives map to positives", [(U32_MAX,), (0x8000_0001,)]),
    ("i32 minimum is its own negation", [(0x8000_0000,)]),
)

SPECS = (
    op(
        P + "add",
        2,
        lambda a, b: narrow(wide(a) + wide(b)),
        lambda a, b: E.add(a, b),
        laws=[L.Commutative(), L.Associative(), L.Identity(0)],
        equivalence_classes=classes(
            ("sum below 2**32", [(1, 2), (0x7FFF_FFFF, 1)]), ("sum wraps past 2**32", WRAP)
        ),
        summary="(a + b) mod 2**32",
    ),
    op(
        P + "sub",
        2,
        lambda a, b: narrow(wide(a) - wide(b)),
        lambda a, b: E.sub(a, b),
        laws=[L.SelfInverse(0)],
        equivalence_classes=classes(
            ("a >= b: no borrow", [(5, 3), (U32_MAX, 1)]),
            ("a < b: wraps below 0", [(0, 1), (3, 5)]),
        ),
        summary="(a - b) mod 2**32",
    ),
    op(
        P + "mul",
        2,
        lambda a, b: narrow(wide(a) * wide(b)),
        lambda a, b: E.mul(a, b),
        laws=[
            L.Commutative(),
            L.Associative(),
            L.Identity(1),
            L.Absorbing(0),
            L.DistributiveOver(P + "add"),
            L.DistributiveOver(P + "sub"),
        ],
        equivalence_classes=classes(
            ("product below 2**32", [(3, 7), (0xFFFF, 0xFFFF)]),
            ("product wraps", [(0x1_0000, 0x1_0000), (U32_MAX, 2)]),
        ),
        summary="low 32 bits of a * b",
    ),
    op(
        P + "div",
        2,
        _div,
        lambda a, b: E.div(a, b),
        laws=[L.Absorbing(0)],
        equivalence_classes=classes(
            ("divisor 0 gives 0", [(5, 0), (U32_MAX, 0)]),
            ("truncating quotient", [(10, 3), (U32_MAX, U32_MAX), (7, 8)]),
        ),
        summary="a / b truncating, b = 0 -> 0",
    ),
    op(
        P + "mod",
        2,
        _mod,
        lambda a, b: E.mod(a, b),
        laws=[L.Absorbing(0), L.SelfInverse(0)],
        equivalence_classes=classes(
            ("divisor 0 gives 0", [(5, 0), (U32_MAX, 0)]),
            ("remainder", [(10, 3), (7, 8), (U32_MAX, 0x10)]),
        ),
        summary="a % b, b = 0 -> 0",
    ),
    op(
        P + "abs_diff",
        2,
        lambda a, b: narrow(np.where(wide(a) > wide(b), wide(a) - wide(b), wide(b) - wide(a))),
        lambda a, b: E.select(E.gt(a, b), E.sub(a, b), E.sub(b, a)),
        laws=[L.Commutative(), L.Identity(0), L.SelfInverse(0)],
        equivalence_classes=classes(
            ("a > b", [(5, 3), (U32_MAX, 0)]), ("a <= b", [(3, 5), (0, U32_MAX)])
        ),
        summary="|a - b| (unsigned)",
    ),
    op(
        P + "min",
        2,
        lambda a, b: narrow(np.minimum(wide(a), wide(b))),
        _min,
        laws=[
            L.Commutative(),
            L.Associative(),
            L.Idempotent(),
            L.Identity(U32_MAX),
            L.Absorbing(0),
            L.DistributiveOver(P + "max"),
        ],
        equivalence_classes=classes(
            ("a < b picks a", [(1, 2), (0, U32_MAX)]), ("a >= b picks b", [(2, 1), (7, 7)])
        ),
        summary="unsigned minimum",
    ),
    op(
        P + "max",
        2,
        lambda a, b: narrow(np.maximum(wide(a), wide(b))),
        _max,
        laws=[
            L.Commutative(),
            L.Associative(),
            L.Idempotent(),
            L.Identity(0),
            L.Absorbing(U32_MAX),
            L.DistributiveOver(P + "min"),
        ],
        equivalence_classes=classes(
            ("a > b picks a", [(2, 1), (U32_MAX, 0)]), ("a <= b picks b", [(1, 2), (7, 7)])
        ),
        summary="unsigned maximum",
    ),
    op(
        P + "gcd",
        2,
        _gcd_ref,
        _gcd,
        laws=[
            L.Commutative(),
            L.Associative(),
            L.Identity(0),
            L.Idempotent(),
            L.Absorbing(1),
        ],
        equivalence_classes=classes(
            ("an operand is 0", [(0, 12), (12, 0), (0, 0)]),
            ("coprime", [(35, 64), (U32_MAX, 0xFFFF_FFFE)]),
            ("shared powers of two", [(48, 36), (0x8000_0000, 0xC000_0000)]),
        ),
        summary="greatest common divisor, gcd(a, 0) = a",
    ),
    op(
        P + "lcm",
        2,
        _lcm_ref,
        lambda a, b: E.mul(E.div(a, E.call(P + "gcd", [a, b])), b),
        laws=[L.Commutative(), L.Idempotent(), L.Identity(1), L.Absorbing(0)],
        equivalence_classes=classes(
            ("an operand is 0 gives 0", [(0, 12), (12, 0)]),
            ("fits in u32", [(4, 6), (0xFFFF, 0x1_0001)]),
            ("wraps (low 32 bits of a / gcd * b)", [(U32_MAX, 0xFFFF_FFFE), (0x1_0001, 0x1_0003)]),
        ),
        summary="least common multiple (a / gcd(a, b)) * b, wrapping; 0 when an operand is 0",
    ),
    op(
        P + "add_sat",
        2,
        lambda a, b: narrow(np.minimum(wide(a) + wide(b), U32_MAX)),
        lambda a, b: (lambda s: E.select(E.lt(s, a), _u(U32_MAX), s))(E.add(a, b)),
        laws=[
            L.Commutative(),
            L.Associative(),
            L.Identity(0),
            L.Absorbing(U32_MAX),
            L.DistributiveOver(P + "min"),
            L.DistributiveOver(P + "max"),
        ],
        equivalence_classes=classes(
            ("no overflow", [(1, 2), (0x7FFF_FFFF, 0x8000_0000)]),
            ("saturates at 2**32 - 1", WRAP),
        ),
        summary="a + b clamped to 2**32 - 1",
    ),
    op(
        P + "sub_sat",
        2,
        lambda a, b: narrow(np.where(wide(a) > wide(b), wide(a) - wide(b), 0)),
        lambda a, b: E.select(E.gt(a, b), E.sub(a, b), _u(0)),
        laws=[L.SelfInverse(0)],
        equivalence_classes=classes(
            ("a > b", [(5, 3), (U32_MAX, 1)]), ("a <= b saturates at 0", [(3, 5), (0, 1)])
        ),
        summary="a - b clamped to 0",
    ),
    op(
        P + "clamp",
        3,
        lambda x, lo, hi: narrow(np.minimum(np.maximum(wide(x), wide(lo)), wide(hi))),
        lambda x, lo, hi: E.call(P + "min", [E.call(P + "max", [x, lo]), hi]),
        equivalence_classes=classes(
            ("inside [lo, hi]", [(5, 1, 9), (1, 1, 9), (9, 1, 9)]),
            ("below lo", [(0, 1, 9)]),
            ("above hi", [(10, 1, 9), (U32_MAX, 0, 0xFFFF)]),
            ("lo > hi gives hi", [(5, 9, 1), (0, 9, 1)]),
        ),
        boundaries=[0, 1, U32_MAX, (0, 0, U32_MAX), (U32_MAX, 0, U32_MAX), (7, U32_MAX, 0)],
        summary="min(max(x, lo), hi) (WGSL clamp)",
    ),
    op(
        P + "avg_floor",
        2,
        lambda a, b: narrow((wide(a) + wide(b)) >> np.uint64(1)),
        lambda a, b: E.add(E.bitand(a, b), E.shr(E.bitxor(a, b), _u(1))),
        laws=[
            L.Commutative(),
            L.Idempotent(),
            L.DistributiveOver(P + "min"),
            L.DistributiveOver(P + "max"),
        ],
        equivalence_classes=classes(
            ("even sum", [(2, 4), (U32_MAX, U32_MAX)]),
            ("odd sum rounds down", [(1, 2), (U32_MAX, 0xFFFF_FFFE)]),
        ),
        summary="floor((a + b) / 2) without overflow",
    ),
    op(
        P + "mul_sat",
        2,
        lambda a, b: narrow(np.minimum(wide(a) * wide(b), U32_MAX)),
        _mul_sat,
        laws=[
            L.Commutative(),
            L.Associative(),
            L.Identity(1),
            L.Absorbing(0),
            L.DistributiveOver(P + "min"),
            L.DistributiveOver(P + "max"),
            L.DistributiveOver(P + "add_sat"),
        ],
        equivalence_classes=classes(
            ("product below 2**32", [(3, 7), (0xFFFF, 0xFFFF), (0x1_0001, 0xFFFF)]),
            (
                "product of 2**32 or more saturates at 2**32 - 1",
                [(0x1_0000, 0x1_0000), (U32_MAX, 2), (0x8000_0000, 2), (U32_MAX, U32_MAX)],
            ),
        ),
        summary="a * b clamped to 2**32 - 1",
    ),
    op(
        P + "div_ceil",
        2,
        _div_ceil_ref,
        _div_ceil,
        laws=[L.Absorbing(0)],
        equivalence_classes=classes(
            ("divisor 0 gives 0", [(5, 0), (U32_MAX, 0)]),
            ("exact quotient", [(12, 4), (U32_MAX, U32_MAX), (U32_MAX, 5)]),
            ("remainder rounds up", [(13, 4), (1, U32_MAX), (U32_MAX, 2), (U32_MAX, 0xFFFF_FFFE)]),
        ),
        summary="ceil(a / b), b = 0 -> 0",
    ),
    op(
        P + "avg_ceil",
        2,
        lambda a, b: narrow((wide(a) + wide(b) + np.uint64(1)) >> np.uint64(1)),
        _avg_ceil,
        laws=[
            L.Commutative(),
            L.Idempotent(),
            L.DistributiveOver(P + "min"),
            L.DistributiveOver(P + "max"),
        ],
        equivalence_classes=classes(
            ("even sum", [(2, 4), (U32_MAX, U32_MAX), (0, 0)]),
            ("odd sum rounds up", [(1, 2), (0, 1), (U32_MAX, 0xFFFF_FFFE), (0, U32_MAX)]),
        ),
        summary="ceil((a + b) / 2) without overflow",
    ),
    op(
        P + "wrapping_neg",
        1,
        lambda a: narrow((1 << 32) - wide(a)),
        lambda a: E.sub(_u(0), a),
        laws=[L.Involution(), L.DeMorgan(P + "add", P + "add"), L.DeMorgan(P + "sub", P + "sub")],
        equivalence_classes=NEGATION_CLASSES,
        summary="0 - a (wrapping); the same function as primitive.math.negate",
    ),
    op(
        P + "negate",
        1,
        lambda a: narrow((1 << 32) - wide(a)),
        lambda a: E.negate(a),
        laws=[L.Involution(), L.DeMorgan(P + "add", P + "add"), L.DeMorgan(P + "sub", P + "sub")],
        equivalence_classes=NEGATION_CLASSES,
        summary="two's complement (~a) + 1; the same function as primitive.math.wrapping_neg",
    ),
    op(
        P + "sign",
        1,
        _sign_ref,
        _sign,
        laws=[L.Monotone()],
        equivalence_classes=classes(
            ("zero", [(0,)]),
            ("i32 positive gives 1", [(1,), (0x7FFF_FFFF,)]),
            ("i32 negative gives 0xFFFFFFFF (-1)", [(0x8000_0000,), (U32_MAX,)]),
        ),
        summary="sign of a as i32: 1, 0 or 0xFFFFFFFF (-1)",
    ),
    op(
        P + "abs",
        1,
        _abs_ref,
        _abs,
        laws=[L.Bounded(0, 0x8000_0000)],
        equivalence_classes=classes(
            ("i32 non-negative is unchanged", [(0,), (5,), (0x7FFF_FFFF,)]),
            ("i32 negative is negated", [(U32_MAX,), (0x8000_0001,)]),
            ("i32 minimum stays 0x80000000", [(0x8000_0000,)]),
        ),
        summary="|a| of a as i32, wrapping (abs(0x80000000) = 0x80000000)",
    ),
    op(
        P + "mul_high",
        2,
        _mul_high_ref,
        _mul_high,
        laws=[
            L.Commutative(),
            L.Absorbing(0),
            L.DistributiveOver(P + "min"),
            L.DistributiveOver(P + "max"),
        ],
        equivalence_classes=classes(
            ("product below 2**32 gives 0", [(3, 7), (0xFFFF, 0xFFFF)]),
            ("high word", [(0x1_0000, 0x1_0000), (U32_MAX, 0xFFFF_FFFE), (U32_MAX, U32_MAX)]),
        ),
        summary="high 32 bits of the 64-bit product a * b",
    ),
)
