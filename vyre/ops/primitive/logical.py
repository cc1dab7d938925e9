"""`primitive.logical`: boolean connectives on u32 truthiness (0 = false,
anything else = true), giving u32 1/0."""

from __future__ import annotations

from vyre.ir import Expr
from vyre.ir import Expr as E
from vyre.ops import laws as L
from vyre.ops.primitive._common import U32_MAX, classes, op, truth, wide
from vyre.ops.spec import EquivalenceClass

P = "primitive.logical."
MIN = "primitive.math.min"
MAX = "primitive.math.max"


def _truth_table(ff: int, ft: int, tt: int) -> tuple[EquivalenceClass, ...]:
    return classes(
        (f"false, false gives {ff}", [(0, 0)]),
        (f"one operand false gives {ft}", [(0, 1), (0, U32_MAX), (0x8000_0000, 0)]),
        (f"true, true gives {tt}", [(1, 1), (2, 0x8000_0000), (U32_MAX, 7)]),
    )


def _is_true(a: Expr) -> Expr:
    return E.ne(a, E.u32(0))


SPECS = (
    op(
        P + "and",
        2,
        lambda a, b: truth((wide(a) != 0) & (wide(b) != 0)),
        lambda a, b: E.and_(a, b),
        laws=[
            L.Commutative(),
            L.Associative(),
            L.Absorbing(0),
            L.DistributiveOver(P + "or"),
            L.DistributiveOver(P + "xor"),
            L.DistributiveOver(MIN),
            L.DistributiveOver(MAX),
        ],
        equivalence_classes=_truth_table(0, 0, 1),
        summary="(a != 0) && (b != 0)",
    ),
    op(
        P + "or",
        2,
        lambda a, b: truth((wide(a) != 0) | (wide(b) != 0)),
        lambda a, b: E.or_(a, b),
        laws=[
            L.Commutative(),
            L.Associative(),
            L.Absorbing(1),
            L.DistributiveOver(P + "and"),
            L.DistributiveOver(MIN),
            L.DistributiveOver(MAX),
        ],
        equivalence_classes=_truth_table(0, 1, 1),
        summary="(a != 0) || (b != 0)",
    ),
    op(
        P + "xor",
        2,
        lambda a, b: truth((wide(a) != 0) != (wide(b) != 0)),
        lambda a, b: E.ne(_is_true(a), _is_true(b)),
        laws=[L.Commutative(), L.Associative(), L.SelfInverse(0)],
        equivalence_classes=_truth_table(0, 1, 0),
        summary="(a != 0) != (b != 0)",
    ),
    op(
        P + "nand",
        2,
        lambda a, b: truth(~((wide(a) != 0) & (wide(b) != 0))),
        lambda a, b: E.logical_not(E.and_(a, b)),
        laws=[L.Commutative()],
        equivalence_classes=_truth_table(1, 1, 0),
        summary="!((a != 0) && (b != 0))",
    ),
    op(
        P + "nor",
        2,
        lambda a, b: truth(~((wide(a) != 0) | (wide(b) != 0))),
        lambda a, b: E.logical_not(E.or_(a, b)),
        laws=[L.Commutative()],
        equivalence_classes=_truth_table(1, 0, 0),
        summary="!((a != 0) || (b != 0))",
    ),
)
