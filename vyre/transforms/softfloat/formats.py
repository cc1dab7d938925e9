"""The three strict float formats, as the soft-float algorithms see them.

A value of a format is its bit pattern in a u32 word: F32 uses all 32 bits;
F16 (1-5-10) and BF16 (1-8-7) use the low 16 bits, the upper 16 are zero.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["BF16", "EB", "F16", "F32", "FORMATS", "Format"]

EB = 1024
"""Exponent offset: internal exponents are `biased exponent + EB`, so that every
intermediate exponent stays a positive u32 (the machine has no signed compare)."""


@dataclass(frozen=True)
class Format:
    name: str
    width: int
    """Bits of a pattern (32 or 16)."""
    fraction: int
    """Stored fraction bits M (23, 10, 7)."""
    bias: int
    emax: int
    """The all-ones biased exponent (inf and NaN)."""
    nan: int
    """The canonical quiet NaN every computed NaN result is."""

    @property
    def sign(self) -> int:
        return 1 << (self.width - 1)

    @property
    def abs_mask(self) -> int:
        return self.sign - 1

    @property
    def inf(self) -> int:
        return self.emax << self.fraction

    @property
    def one(self) -> int:
        return self.bias << self.fraction

    @property
    def half(self) -> int:
        return (self.bias - 1) << self.fraction


F32 = Format("f32", 32, 23, 127, 255, 0x7FC0_0000)
F16 = Format("f16", 16, 10, 15, 31, 0x7E00)
BF16 = Format("bf16", 16, 7, 127, 255, 0x7FC0)
FORMATS = {f.name: f for f in (F32, F16, BF16)}
