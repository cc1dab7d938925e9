"""Integer lifting, for what bit-blasting cannot decide: bit-vector terms as z3 integers.

A w-bit value is an integer in [0, 2**w) and every operation is its SMT-LIB
definition over the naturals (`bv2nat(x * y) = (bv2nat x * bv2nat y) mod 2**w`),
so a proof over the lifted terms is a proof over the bit-vectors. Each term
carries an upper bound; a wrap (`mod 2**w`) is emitted only where the bound
can exceed 2**w, so products of zero-extended words, limb sums and saturating
arithmetic become plain polynomials, which z3's nonlinear arithmetic handles
where bit-blasting a multiplier does not. Division and remainder by a power
of two introduce a fresh quotient and remainder with their defining equation
(`x = q * 2**k + r, 0 <= r < 2**k`). Bitwise operations other than masks,
complements and constant shifts are not liftable (`Unliftable`).
"""

# pyright: reportUnknownMemberType=false, reportUnknownVariableType=false, reportUnknownArgumentType=false, reportMissingTypeStubs=false, reportUnknownParameterType=false

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

import z3

from vyre.conform.smt.terms import Bits, Unliftable

__all__ = ["IntBits", "IV"]

_fresh = itertools.count()


class IV:
    """A lifted value: an integer term in [0, bound) of `bits` bits."""

    __slots__ = ("term", "bound", "bits", "const")

    def __init__(self, term: Any, bound: int, bits: int, const: int | None = None):
        self.term = term
        self.bound = bound
        self.bits = bits
        self.const = const


class IntBits(Bits):
    """z3 integer terms; `constraints` collects the definitions of fresh variables."""

    def __init__(self) -> None:
        self.constraints: list[Any] = []
        self._splits: dict[tuple[int, int], tuple[Any, IV, IV]] = {}

    def variable(self, name: str, bits: int = 32) -> IV:
        x = z3.Int(name)
        self.constraints.extend([x >= 0, x < 2**bits])
        return IV(x, 2**bits, bits)

    def _wrap(self, term: Any, bound: int, bits: int) -> IV:
        if bound <= 2**bits:
            return IV(term, bound, bits)
        q, r = self._divmod(IV(term, bound, bits + 64), bits)
        del q
        return r

    def _divmod(self, x: IV, k: int) -> tuple[IV, IV]:
        """Fresh (q, r) with x = q * 2**k + r, 0 <= r < 2**k (one pair per term and k)."""
        if x.const is not None:
            return self.const(x.const >> k, max(1, x.bits - k)), self.const(x.const & ((1 << k) - 1), k)
        key = (int(x.term.get_id()), k)
        cached = self._splits.get(key)
        if cached is not None and cached[0].eq(x.term):
            return cached[1], cached[2]
        n = next(_fresh)
        q, r = z3.Int(f"_q{n}"), z3.Int(f"_r{n}")
        self.constraints.extend([x.term == q * 2**k + r, r >= 0, r < 2**k, q >= 0])
        q_bound = (x.bound - 1) // 2**k + 1
        quotient, remainder = IV(q, q_bound, max(1, x.bits - k)), IV(r, min(2**k, x.bound), k)
        self._splits[key] = (x.term, quotient, remainder)  # the term kept alive: z3 reuses freed ids
        return quotient, remainder

    @staticmethod
    def _both(x: IV, y: IV) -> tuple[int, int] | None:
        return (x.const, y.const) if x.const is not None and y.const is not None else None

    def const(self, value: int, width: int = 32) -> IV:
        v = value & ((1 << width) - 1)
        return IV(z3.IntVal(v), v + 1, width, v)

    def width(self, x: IV) -> int:
        return x.bits

    def add(self, x: IV, y: IV) -> IV:
        if self._both(x, y) is not None:
            assert x.const is not None and y.const is not None
            return self.const(x.const + y.const, x.bits)
        return self._wrap(x.term + y.term, x.bound + y.bound - 1, x.bits)

    def sub(self, x: IV, y: IV) -> IV:
        if self._both(x, y) is not None:
            assert x.const is not None and y.const is not None
            return self.const(x.const - y.const, x.bits)
        n = 2**x.bits
        return self._wrap(x.term - y.term + n, x.bound + n, x.bits)

    def mul(self, x: IV, y: IV) -> IV:
        if x.const is not None and y.const is not None:
            return self.const(x.const * y.const, x.bits)
        return self._wrap(x.term * y.term, (x.bound - 1) * (y.bound - 1) + 1, x.bits)

    def udiv(self, x: IV, y: IV) -> IV:
        if self._both(x, y) is not None:
            assert x.const is not None and y.const is not None
            return self.const((x.const // y.const) if y.const else 0, x.bits)
        if y.const is not None and y.const and y.const & (y.const - 1) == 0:
            q = self._divmod(x, y.const.bit_length() - 1)[0]
            return IV(q.term, q.bound, x.bits)
        return IV(z3.If(y.term == 0, 0, x.term / y.term), x.bound, x.bits)

    def urem(self, x: IV, y: IV) -> IV:
        if self._both(x, y) is not None:
            assert x.const is not None and y.const is not None
            return self.const((x.const % y.const) if y.const else 0, x.bits)
        if y.const is not None and y.const and y.const & (y.const - 1) == 0:
            r = self._divmod(x, y.const.bit_length() - 1)[1]
            return IV(r.term, r.bound, x.bits)
        return IV(z3.If(y.term == 0, 0, x.term % y.term), min(x.bound, y.bound), x.bits)

    def band(self, x: IV, y: IV) -> IV:
        if self._both(x, y) is not None:
            assert x.const is not None and y.const is not None
            return self.const(x.const & y.const, x.bits)
        for value, mask in ((x, y), (y, x)):
            if mask.const is not None and mask.const & (mask.const + 1) == 0:
                return self.urem(value, self.const(mask.const + 1, value.bits + 1)) if mask.const else self.const(0, x.bits)
        raise Unliftable("bitwise and of two non-mask values")

    def bor(self, x: IV, y: IV) -> IV:
        if self._both(x, y) is not None:
            assert x.const is not None and y.const is not None
            return self.const(x.const | y.const, x.bits)
        raise Unliftable("bitwise or")

    def bxor(self, x: IV, y: IV) -> IV:
        if self._both(x, y) is not None:
            assert x.const is not None and y.const is not None
            return self.const(x.const ^ y.const, x.bits)
        raise Unliftable("bitwise xor")

    def bnot(self, x: IV) -> IV:
        return IV(2**x.bits - 1 - x.term, 2**x.bits, x.bits)

    def shl(self, x: IV, amount: IV) -> IV:
        if x.const is not None and amount.const is not None:
            return self.const(x.const << amount.const if amount.const < x.bits else 0, x.bits)
        if amount.const is None:
            raise Unliftable("shift by a variable amount")
        if amount.const >= x.bits:
            return self.const(0, x.bits)
        factor = 2**amount.const
        return self._wrap(x.term * factor, (x.bound - 1) * factor + 1, x.bits)

    def lshr(self, x: IV, amount: IV) -> IV:
        if x.const is not None and amount.const is not None:
            return self.const(x.const >> amount.const if amount.const < x.bits else 0, x.bits)
        if amount.const is None:
            raise Unliftable("shift by a variable amount")
        if amount.const >= x.bits:
            return self.const(0, x.bits)
        q, _ = self._divmod(x, amount.const)
        return IV(q.term, q.bound, x.bits)

    def zext(self, x: IV, extra: int) -> IV:
        return IV(x.term, x.bound, x.bits + extra, x.const)

    def extract(self, x: IV, high: int, low: int) -> IV:
        value = x
        if low:
            q, _ = self._divmod(x, low)
            value = IV(q.term, q.bound, x.bits - low)
        bits = high - low + 1
        if value.bound <= 2**bits:
            return IV(value.term, value.bound, bits)
        return self._divmod(value, bits)[1]

    def concat(self, parts: Sequence[IV]) -> IV:
        term: Any = z3.IntVal(0)
        bound = 1
        bits = 0
        for part in parts:
            term = term * 2**part.bits + part.term
            bound = (bound - 1) * 2**part.bits + part.bound
            bits += part.bits
        return IV(term, bound, bits)

    def eq(self, x: IV, y: IV) -> Any: return x.term == y.term
    def ult(self, x: IV, y: IV) -> Any: return x.term < y.term
    def ule(self, x: IV, y: IV) -> Any: return x.term <= y.term

    def slt(self, x: IV, y: IV) -> Any:
        half = 2 ** (x.bits - 1)
        sx: Any = z3.If(x.term >= half, x.term - 2**x.bits, x.term)
        sy: Any = z3.If(y.term >= half, y.term - 2**y.bits, y.term)
        return sx < sy

    def ite(self, cond: Any, x: IV, y: IV) -> IV:
        if z3.is_true(cond):
            return x
        if z3.is_false(cond):
            return y
        return IV(z3.If(cond, x.term, y.term), max(x.bound, y.bound), x.bits)

    def all_(self, conds: Sequence[Any]) -> Any: return z3.And(*conds) if conds else z3.BoolVal(True)
    def any_(self, conds: Sequence[Any]) -> Any: return z3.Or(*conds) if conds else z3.BoolVal(False)
    def not_(self, cond: Any) -> Any: return z3.Not(cond)
