"""`primitive.compare`: unsigned comparisons giving u32 1/0, logical_not and select."""

from __future__ import annotations

import numpy as np

from vyre.ir import Expr as E
from vyre.ops import laws as L
from vyre.ops.primitive._common import U32_BOUNDARIES, U32_MAX, classes, narrow, op, truth, wide
from vyre.ops.spec import EquivalenceClass

P = "primitive.compare."
MIN = "primitive.math.min"
MAX = "primitive.math.max"


def _order_classes(less: int, equal: int, greater: int) -> tuple[EquivalenceClass, ...]:
    return classes(
        (f"a < b gives {less}", [(1, 2), (0, U32_MAX), (0x7FFF_FFFF, 0x8000_0000)]),
        (f"a = b gives {equal}", [(0, 0), (U32_MAX, U32_MAX)]),
        (f"a > b gives {greater}", [(2, 1), (U32_MAX, 0), (0x8000_0000, 0x7FFF_FFFF)]),
    )


SPECS = (
    op(
        P + "eq",
        2,
        lambda a, b: truth(wide(a) == wide(b)),
        lambda a, b: E.eq(a, b),
        laws=[L.Commutative(), L.SelfInverse(1)],
        equivalence_classes=classes(
            ("equal gives 1", [(0, 0), (U32_MAX, U32_MAX)]),
            ("different gives 0", [(1, 2), (0x8000_0000, 0)]),
        ),
        summary="a == b ? 1 : 0",
    ),
    op(
        P + "ne",
        2,
        lambda a, b: truth(wide(a) != wide(b)),
        lambda a, b: E.ne(a, b),
        laws=[L.Commutative(), L.SelfInverse(0)],
        equivalence_classes=classes(
            ("equal gives 0", [(0, 0), (U32_MAX, U32_MAX)]),
            ("different gives 1", [(1, 2), (0x8000_0000, 0)]),
        ),
        summary="a != b ? 1 : 0",
    ),
    op(
        P + "lt",
        2,
        lambda a, b: truth(wide(a) < wide(b)),
        lambda a, b: E.lt(a, b),
        laws=[L.SelfInverse(0), L.DistributiveOver(MIN), L.DistributiveOver(MAX)],
        equivalence_classes=_order_classes(1, 0, 0),
        summary="a < b ? 1 : 0 (unsigned)",
    ),
    op(
        P + "le",
        2,
        lambda a, b: truth(wide(a) <= wide(b)),
        lambda a, b: E.le(a, b),
        laws=[L.SelfInverse(1), L.DistributiveOver(MIN), L.DistributiveOver(MAX)],
        equivalence_classes=_order_classes(1, 1, 0),
        summary="a <= b ? 1 : 0 (unsigned)",
    ),
    op(
        P + "gt",
        2,
        lambda a, b: truth(wide(a) > wide(b)),
        lambda a, b: E.gt(a, b),
        laws=[L.SelfInverse(0)],
        equivalence_classes=_order_classes(0, 0, 1),
        summary="a > b ? 1 : 0 (unsigned)",
    ),
    op(
        P + "ge",
        2,
        lambda a, b: truth(wide(a) >= wide(b)),
        lambda a, b: E.ge(a, b),
        laws=[L.SelfInverse(1)],
        equivalence_classes=_order_classes(0, 1, 1),
        summary="a >= b ? 1 : 0 (unsigned)",
    ),
    op(
        P + "logical_not",
        1,
        lambda a: truth(wide(a) == 0),
        lambda a: E.logical_not(a),
        laws=[
            L.Bounded(0, 1),
            L.DeMorgan("primitive.logical.and", "primitive.logical.or"),
            L.DeMorgan("primitive.logical.or", "primitive.logical.and"),
        ],
        equivalence_classes=classes(
            ("zero gives 1", [(0,)]), ("non-zero gives 0", [(1,), (0x8000_0000,), (U32_MAX,)])
        ),
        summary="a == 0 ? 1 : 0",
    ),
    op(
        P + "select",
        3,
        lambda c, a, b: narrow(np.where(wide(c) != 0, wide(a), wide(b))),
        lambda c, a, b: E.select(c, a, b),
        equivalence_classes=classes(
            ("non-zero condition picks a", [(1, 5, 9), (U32_MAX, 0, 9), (0x8000_0000, 5, 9)]),
            ("zero condition picks b", [(0, 5, 9), (0, U32_MAX, 0)]),
        ),
        boundaries=[*U32_BOUNDARIES, (0, U32_MAX, 0), (1, 0, U32_MAX)],
        summary="c != 0 ? a : b (both arms evaluated)",
    ),
)
