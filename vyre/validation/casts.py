"""The supported cast table of casts.md, as the rule that rejects a pair."""

from __future__ import annotations

from vyre.dialects.vyre import DataTypeKind

_UNSUPPORTED_PAIRS = frozenset(
    {
        (DataTypeKind.U64, DataTypeKind.VEC4U32),
        (DataTypeKind.VEC2U32, DataTypeKind.VEC4U32),
    }
)


def rejected_cast_rule(source: DataTypeKind, target: DataTypeKind) -> str | None:
    """`None` for a supported cast, else the rule that rejects it.

    Identity casts are always valid. A cast to `bytes` from anything else is
    V023; a cast from `bytes` to anything else and the two widenings casts.md
    marks unsupported are V012."""
    if source == target:
        return None
    if target == DataTypeKind.BYTES:
        return "V023"
    if source == DataTypeKind.BYTES or (source, target) in _UNSUPPORTED_PAIRS:
        return "V012"
    return None
