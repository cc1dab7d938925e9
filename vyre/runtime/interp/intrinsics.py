"""The Category C intrinsics that stay `vyre.call` after inline-calls.

The interpreter is the oracle, so it has its own lane-wise implementation of
each WGSL builtin (the WGSL spec's numeric builtins `extractBits` and
`insertBits`, unsigned forms) and never calls an op's `reference` function nor
the lowering. With `w = 32`, `o = min(offset, w)` and `c = min(count, w - o)`:

- `extractBits(e, offset, count)` is 0 when `c == 0`, else bits `o..o+c-1` of
  `e` moved down to bits `0..c-1`;
- `insertBits(e, newbits, offset, count)` is `e` with bits `o..o+c-1` replaced
  by bits `0..c-1` of `newbits`.

The arithmetic runs on uint64 lanes, where shifting by 32 is well defined.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np

from vyre.runtime.interp.values import WORD, Lanes

__all__ = ["INTRINSICS", "CallIntrinsic"]

_WIDE = np.uint64
_BITS = _WIDE(32)
_ONE = _WIDE(1)
_LOW_WORD = _WIDE(0xFFFF_FFFF)


@dataclass(frozen=True)
class CallIntrinsic:
    """A WGSL builtin on u32 lanes: `arity` operands in call order."""

    wgsl: str
    arity: int
    function: Callable[..., Lanes]


def _field(offset: Lanes, count: Lanes) -> tuple[np.ndarray, np.ndarray]:
    """`(o, c)` as uint64 lanes: the bit field clamped to the 32-bit word."""
    start = np.minimum(offset.astype(_WIDE), _BITS)
    width = np.minimum(count.astype(_WIDE), _BITS - start)
    return start, width


def _low_mask(width: np.ndarray) -> np.ndarray:
    """`width` low bits set (0 <= width <= 32)."""
    return np.left_shift(_ONE, width) - _ONE


def _extract_bits(e: Lanes, offset: Lanes, count: Lanes) -> Lanes:
    start, width = _field(offset, count)
    field = np.right_shift(e.astype(_WIDE), start) & _low_mask(width)
    return field.astype(WORD)


def _insert_bits(e: Lanes, newbits: Lanes, offset: Lanes, count: Lanes) -> Lanes:
    start, width = _field(offset, count)
    mask = np.left_shift(_low_mask(width), start)
    kept = e.astype(_WIDE) & ~mask
    inserted = np.left_shift(newbits.astype(_WIDE), start) & mask
    return ((kept | inserted) & _LOW_WORD).astype(WORD)


INTRINSICS: Mapping[str, CallIntrinsic] = {
    "primitive.bitwise.extract_bits": CallIntrinsic("extractBits", 3, _extract_bits),
    "primitive.bitwise.insert_bits": CallIntrinsic("insertBits", 4, _insert_bits),
}
"""The interpreter's implementation per op id of a call that stays a call."""
