"""The supported cast table (docs/semantics.md), as the rule that rejects a pair."""

from __future__ import annotations

from vyre.dialects.vyre import DataTypeKind

_UNSUPPORTED_PAIRS = frozenset(
    {
        (DataTypeKind.U64, DataTypeKind.VEC4U32),
        (DataTypeKind.VEC2U32, DataTypeKind.VEC4U32),
    }
)


_FLOAT_PARTNERS = frozenset(
    {DataTypeKind.U32, DataTypeKind.I32, DataTypeKind.F32, DataTypeKind.F16, DataTypeKind.BF16}
)
"""The types a float converts to and from (docs/floats.md): u32/i32 <-> float
round to nearest even one way and truncate and saturate the other; floats convert
among themselves (F16 <-> BF16 through F32)."""


def rejected_cast_rule(source: DataTypeKind, target: DataTypeKind) -> str | None:
    """`None` for a supported cast, else the rule that rejects it.

    Identity casts are always valid. A cast to `bytes` from anything else is
    V023; a cast from `bytes` to anything else, the two widenings the table
    marks unsupported, and a float cast to or from anything but u32, i32 and
    the floats are V012."""
    if source == target:
        return None
    if target == DataTypeKind.BYTES:
        return "V023"
    if source == DataTypeKind.BYTES or (source, target) in _UNSUPPORTED_PAIRS:
        return "V012"
    if (source.is_float or target.is_float) and not (
        source in _FLOAT_PARTNERS and target in _FLOAT_PARTNERS
    ):
        return "V012"
    return None
