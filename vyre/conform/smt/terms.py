"""Bit-vector term builders: one vocabulary, three interpretations.

The formal models of the ops (`models.py`) and the translation of prepared vyre
IR (`translate.py`) are written once against `Bits`, and evaluated as

- `Z3Bits`: z3 bit-vector terms (the proof);
- `NumpyBits`: concrete uint64 arrays (the exhaustive cross-check of a model
  against the op's numpy reference, and of the translation against the
  reference interpreter);
- `IntBits` (`lift.py`): z3 integer terms, the "integer lifting" for the
  nonlinear cases (products, quotients, saturation).

Every value has a width (1..64 bits). The semantics are SMT-LIB's with the
vyre spec's total division: `udiv(x, 0) = urem(x, 0) = 0` (docs/semantics.md,
"Integer operations"); a shift by an amount >= the width gives 0 (the
callers mask vyre's shift amounts to 5 bits before, as the spec says).
"""

# pyright: reportUnknownMemberType=false, reportUnknownVariableType=false, reportUnknownArgumentType=false, reportMissingTypeStubs=false, reportUnknownParameterType=false, reportMissingParameterType=false

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import z3

__all__ = ["Bits", "NumpyBits", "NV", "Unliftable", "Z3Bits"]


class Unliftable(ValueError):
    """An operation an interpretation cannot express (e.g. bitwise xor over integers)."""


class Bits:
    """The vocabulary. Values and conditions are whatever the interpretation uses."""

    def const(self, value: int, width: int = 32) -> Any: raise NotImplementedError
    def width(self, x: Any) -> int: raise NotImplementedError
    def add(self, x: Any, y: Any) -> Any: raise NotImplementedError
    def sub(self, x: Any, y: Any) -> Any: raise NotImplementedError
    def mul(self, x: Any, y: Any) -> Any: raise NotImplementedError
    def udiv(self, x: Any, y: Any) -> Any: raise NotImplementedError
    def urem(self, x: Any, y: Any) -> Any: raise NotImplementedError
    def band(self, x: Any, y: Any) -> Any: raise NotImplementedError
    def bor(self, x: Any, y: Any) -> Any: raise NotImplementedError
    def bxor(self, x: Any, y: Any) -> Any: raise NotImplementedError
    def bnot(self, x: Any) -> Any: raise NotImplementedError
    def shl(self, x: Any, amount: Any) -> Any: raise NotImplementedError
    def lshr(self, x: Any, amount: Any) -> Any: raise NotImplementedError
    def zext(self, x: Any, extra: int) -> Any: raise NotImplementedError
    def extract(self, x: Any, high: int, low: int) -> Any: raise NotImplementedError
    def concat(self, parts: Sequence[Any]) -> Any: raise NotImplementedError
    def eq(self, x: Any, y: Any) -> Any: raise NotImplementedError
    def ult(self, x: Any, y: Any) -> Any: raise NotImplementedError
    def ule(self, x: Any, y: Any) -> Any: raise NotImplementedError
    def slt(self, x: Any, y: Any) -> Any: raise NotImplementedError
    def ite(self, cond: Any, x: Any, y: Any) -> Any: raise NotImplementedError
    def all_(self, conds: Sequence[Any]) -> Any: raise NotImplementedError
    def any_(self, conds: Sequence[Any]) -> Any: raise NotImplementedError
    def not_(self, cond: Any) -> Any: raise NotImplementedError

    # -- derived -------------------------------------------------------------

    def ne(self, x: Any, y: Any) -> Any:
        return self.not_(self.eq(x, y))

    def ugt(self, x: Any, y: Any) -> Any:
        return self.ult(y, x)

    def uge(self, x: Any, y: Any) -> Any:
        return self.ule(y, x)

    def truth(self, cond: Any, width: int = 32) -> Any:
        """A condition as the word 1 or 0."""
        return self.ite(cond, self.const(1, width), self.const(0, width))

    def nonzero(self, x: Any) -> Any:
        return self.ne(x, self.const(0, self.width(x)))

    def bit(self, x: Any, index: int) -> Any:
        return self.extract(x, index, index)

    def sum(self, xs: Sequence[Any]) -> Any:
        """A balanced adder tree."""
        items = list(xs)
        while len(items) > 1:
            items = [self.add(items[i], items[i + 1]) if i + 1 < len(items) else items[i]
                     for i in range(0, len(items), 2)]
        return items[0]


class Z3Bits(Bits):
    """z3 bit-vectors; conditions are z3 Bools."""

    def const(self, value: int, width: int = 32) -> Any:
        return z3.BitVecVal(value & ((1 << width) - 1), width)

    def width(self, x: Any) -> int:
        return int(x.size())

    def add(self, x: Any, y: Any) -> Any: return x + y
    def sub(self, x: Any, y: Any) -> Any: return x - y
    def mul(self, x: Any, y: Any) -> Any: return x * y

    def udiv(self, x: Any, y: Any) -> Any:
        zero = z3.BitVecVal(0, self.width(x))
        return z3.If(y == zero, zero, z3.UDiv(x, y))

    def urem(self, x: Any, y: Any) -> Any:
        zero = z3.BitVecVal(0, self.width(x))
        return z3.If(y == zero, zero, z3.URem(x, y))

    def band(self, x: Any, y: Any) -> Any: return x & y
    def bor(self, x: Any, y: Any) -> Any: return x | y
    def bxor(self, x: Any, y: Any) -> Any: return x ^ y
    def bnot(self, x: Any) -> Any: return ~x
    def shl(self, x: Any, amount: Any) -> Any: return x << amount  # SMT-LIB: >= width gives 0
    def lshr(self, x: Any, amount: Any) -> Any: return z3.LShR(x, amount)
    def zext(self, x: Any, extra: int) -> Any: return z3.ZeroExt(extra, x)
    def extract(self, x: Any, high: int, low: int) -> Any: return z3.Extract(high, low, x)

    def concat(self, parts: Sequence[Any]) -> Any:
        return parts[0] if len(parts) == 1 else z3.Concat(*parts)

    def eq(self, x: Any, y: Any) -> Any: return x == y
    def ult(self, x: Any, y: Any) -> Any: return z3.ULT(x, y)
    def ule(self, x: Any, y: Any) -> Any: return z3.ULE(x, y)
    def slt(self, x: Any, y: Any) -> Any: return x < y
    def ite(self, cond: Any, x: Any, y: Any) -> Any: return z3.If(cond, x, y)
    def all_(self, conds: Sequence[Any]) -> Any: return z3.And(*conds) if conds else z3.BoolVal(True)
    def any_(self, conds: Sequence[Any]) -> Any: return z3.Or(*conds) if conds else z3.BoolVal(False)
    def not_(self, cond: Any) -> Any: return z3.Not(cond)


class NV:
    """A concrete value: uint64 array (broadcastable) of a given width."""

    __slots__ = ("value", "bits")

    def __init__(self, value: Any, bits: int):
        if not 1 <= bits <= 64:
            raise Unliftable(f"numpy values hold at most 64 bits, not {bits}")
        self.value = np.asarray(value, dtype=np.uint64) & _mask(bits)
        self.bits = bits


def _mask(bits: int) -> np.uint64:
    return np.uint64((1 << bits) - 1)


class NumpyBits(Bits):
    """Concrete evaluation on uint64 arrays (widths up to 64); conditions are bool arrays."""

    def const(self, value: int, width: int = 32) -> NV:
        return NV(value & ((1 << width) - 1), width)

    def width(self, x: NV) -> int:
        return x.bits

    def add(self, x: NV, y: NV) -> NV:
        with np.errstate(over="ignore"):
            return NV(np.add(x.value, y.value), x.bits)

    def sub(self, x: NV, y: NV) -> NV:
        with np.errstate(over="ignore"):
            return NV(np.subtract(x.value, y.value), x.bits)

    def mul(self, x: NV, y: NV) -> NV:
        with np.errstate(over="ignore"):
            return NV(np.multiply(x.value, y.value), x.bits)

    def udiv(self, x: NV, y: NV) -> NV:
        zero = y.value == 0
        return NV(np.where(zero, 0, x.value // np.where(zero, 1, y.value)), x.bits)

    def urem(self, x: NV, y: NV) -> NV:
        zero = y.value == 0
        return NV(np.where(zero, 0, x.value % np.where(zero, 1, y.value)), x.bits)

    def band(self, x: NV, y: NV) -> NV: return NV(x.value & y.value, x.bits)
    def bor(self, x: NV, y: NV) -> NV: return NV(x.value | y.value, x.bits)
    def bxor(self, x: NV, y: NV) -> NV: return NV(x.value ^ y.value, x.bits)
    def bnot(self, x: NV) -> NV: return NV(np.invert(x.value), x.bits)

    def shl(self, x: NV, amount: NV) -> NV:
        big = amount.value >= x.bits
        safe = np.where(big, 0, amount.value)
        return NV(np.where(big, 0, x.value << safe), x.bits)

    def lshr(self, x: NV, amount: NV) -> NV:
        big = amount.value >= x.bits
        safe = np.where(big, 0, amount.value)
        return NV(np.where(big, 0, x.value >> safe), x.bits)

    def zext(self, x: NV, extra: int) -> NV: return NV(x.value, x.bits + extra)

    def extract(self, x: NV, high: int, low: int) -> NV:
        return NV(x.value >> np.uint64(low), high - low + 1)

    def concat(self, parts: Sequence[NV]) -> NV:
        out = np.uint64(0)
        bits = 0
        for part in parts:
            out = (out << np.uint64(part.bits)) | part.value
            bits += part.bits
        return NV(out, bits)

    def eq(self, x: NV, y: NV) -> Any: return x.value == y.value
    def ult(self, x: NV, y: NV) -> Any: return x.value < y.value
    def ule(self, x: NV, y: NV) -> Any: return x.value <= y.value

    def slt(self, x: NV, y: NV) -> Any:
        sign = np.uint64(1 << (x.bits - 1))
        return (x.value ^ sign) < (y.value ^ sign)

    def ite(self, cond: Any, x: NV, y: NV) -> NV:
        return NV(np.where(cond, x.value, y.value), x.bits)

    def all_(self, conds: Sequence[Any]) -> Any:
        out: Any = np.bool_(True)
        for c in conds:
            out = out & c
        return out

    def any_(self, conds: Sequence[Any]) -> Any:
        out: Any = np.bool_(False)
        for c in conds:
            out = out | c
        return out

    def not_(self, cond: Any) -> Any: return ~np.asarray(cond, dtype=bool)
