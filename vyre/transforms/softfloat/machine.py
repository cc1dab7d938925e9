"""The u32 machine the soft-float algorithms run on, and the word type `W`.

The algorithms are written once, against `W`: a 32-bit word with Python
operators for vyre's integer operations, exactly as vyre (and WGSL) define them:

- `+ - *` wrap modulo 2**32 (`*` is the low word of the product);
- `a.mul_high(b)` is the high word of the 64-bit product (one instruction where
  the GPU has 64-bit integers, four 16-bit products where not: the same bits);
- `& | ^` are bitwise;
- `<< >>` are logical shifts whose amount is masked to 0..31 (`a << 32 == a`);
- comparisons are methods (`a.lt(b)`, `a.eq(b)`, ...) giving 0/1 words, unsigned;
- `sel(c, t, f)` picks `t` where the 0/1 word `c` is 1 (both arms are computed);
- `a.clz()` counts leading zeros (`clz(0) == 32`).

Python ints mix in as literals. A `W` wraps a value of one `Machine`:

- `NumpyMachine`: values are uint32 arrays; the algorithms run vectorised, which
  is how they are verified against independent IEEE references;
- `ExprMachine`: values are `vyre.ir.Expr` trees; running an algorithm builds the
  expression DAG of its integer IR (shared sub-expressions are the same Python
  object, so the DAG stays linear), which `vyre.ir.emit_expr` materialises.

All code is straight-line: loops in the algorithms are unrolled in Python.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from collections.abc import Callable
from typing import Generic, Protocol, TypeVar

import numpy as np
import numpy.typing as npt

from vyre.ir import Expr
from vyre.ir import Expr as E

__all__ = ["ExprMachine", "Machine", "NumpyMachine", "W", "sel"]

V = TypeVar("V")
U32 = npt.NDArray[np.uint32]
MASK = 0xFFFF_FFFF


class Machine(Protocol[V]):
    """The integer operations the algorithms use, on one representation."""

    def const(self, value: int) -> V: ...
    def add(self, a: V, b: V) -> V: ...
    def sub(self, a: V, b: V) -> V: ...
    def mul(self, a: V, b: V) -> V: ...
    def mul_high(self, a: V, b: V) -> V: ...
    def and_(self, a: V, b: V) -> V: ...
    def or_(self, a: V, b: V) -> V: ...
    def xor(self, a: V, b: V) -> V: ...
    def shl(self, a: V, b: V) -> V: ...
    def shr(self, a: V, b: V) -> V: ...
    def eq(self, a: V, b: V) -> V: ...
    def ne(self, a: V, b: V) -> V: ...
    def lt(self, a: V, b: V) -> V: ...
    def le(self, a: V, b: V) -> V: ...
    def select(self, c: V, t: V, f: V) -> V: ...
    def clz(self, a: V) -> V: ...
    def lookup(self, table: tuple[int, ...], index: V) -> V: ...


@dataclass(frozen=True, eq=False)
class W(Generic[V]):
    """A 32-bit word of machine `m` (see the module docstring for the semantics)."""

    m: Machine[V]
    v: V

    def _w(self, other: W[V] | int) -> V:
        if isinstance(other, W):
            return other.v
        return self.m.const(other & MASK)

    def _new(self, value: V) -> W[V]:
        return W(self.m, value)

    def __add__(self, other: W[V] | int) -> W[V]:
        return self._new(self.m.add(self.v, self._w(other)))

    def __radd__(self, other: int) -> W[V]:
        return self._new(self.m.add(self._w(other), self.v))

    def __sub__(self, other: W[V] | int) -> W[V]:
        return self._new(self.m.sub(self.v, self._w(other)))

    def __rsub__(self, other: int) -> W[V]:
        return self._new(self.m.sub(self._w(other), self.v))

    def __mul__(self, other: W[V] | int) -> W[V]:
        return self._new(self.m.mul(self.v, self._w(other)))

    def __and__(self, other: W[V] | int) -> W[V]:
        return self._new(self.m.and_(self.v, self._w(other)))

    def __or__(self, other: W[V] | int) -> W[V]:
        return self._new(self.m.or_(self.v, self._w(other)))

    def __xor__(self, other: W[V] | int) -> W[V]:
        return self._new(self.m.xor(self.v, self._w(other)))

    def __lshift__(self, other: W[V] | int) -> W[V]:
        return self._new(self.m.shl(self.v, self._w(other)))

    def __rshift__(self, other: W[V] | int) -> W[V]:
        return self._new(self.m.shr(self.v, self._w(other)))

    def eq(self, other: W[V] | int) -> W[V]:
        return self._new(self.m.eq(self.v, self._w(other)))

    def ne(self, other: W[V] | int) -> W[V]:
        return self._new(self.m.ne(self.v, self._w(other)))

    def lt(self, other: W[V] | int) -> W[V]:
        return self._new(self.m.lt(self.v, self._w(other)))

    def le(self, other: W[V] | int) -> W[V]:
        return self._new(self.m.le(self.v, self._w(other)))

    def gt(self, other: W[V] | int) -> W[V]:
        return self._new(self.m.lt(self._w(other), self.v))

    def ge(self, other: W[V] | int) -> W[V]:
        return self._new(self.m.le(self._w(other), self.v))

    def mul_high(self, other: W[V] | int) -> W[V]:
        """The high word of the 64-bit product `self * other`."""
        return self._new(self.m.mul_high(self.v, self._w(other)))

    def lookup(self, table: tuple[int, ...]) -> W[V]:
        """Word `self` of the constant `table` (0 past its end)."""
        return self._new(self.m.lookup(table, self.v))

    def clz(self) -> W[V]:
        return self._new(self.m.clz(self.v))

    def const(self, value: int) -> W[V]:
        """A literal of this word's machine."""
        return self._new(self.m.const(value & MASK))


def sel(c: W[V], t: W[V] | int, f: W[V] | int) -> W[V]:
    """`t` where the 0/1 word `c` is 1, else `f` (both are computed)."""
    return c._new(c.m.select(c.v, c._w(t), c._w(f)))  # pyright: ignore[reportPrivateUsage]


class NumpyMachine:
    """Words as uint32 numpy arrays (broadcasting), with vyre's semantics."""

    def const(self, value: int) -> U32:
        return np.array(value, dtype=np.uint32)

    def add(self, a: U32, b: U32) -> U32:
        return a + b

    def sub(self, a: U32, b: U32) -> U32:
        return a - b

    def mul(self, a: U32, b: U32) -> U32:
        return a * b

    def mul_high(self, a: U32, b: U32) -> U32:
        return ((a.astype(np.uint64) * b.astype(np.uint64)) >> np.uint64(32)).astype(np.uint32)

    def and_(self, a: U32, b: U32) -> U32:
        return a & b

    def or_(self, a: U32, b: U32) -> U32:
        return a | b

    def xor(self, a: U32, b: U32) -> U32:
        return a ^ b

    def shl(self, a: U32, b: U32) -> U32:
        return a << (b & np.uint32(31))

    def shr(self, a: U32, b: U32) -> U32:
        return a >> (b & np.uint32(31))

    def eq(self, a: U32, b: U32) -> U32:
        return (a == b).astype(np.uint32)

    def ne(self, a: U32, b: U32) -> U32:
        return (a != b).astype(np.uint32)

    def lt(self, a: U32, b: U32) -> U32:
        return (a < b).astype(np.uint32)

    def le(self, a: U32, b: U32) -> U32:
        return (a <= b).astype(np.uint32)

    def select(self, c: U32, t: U32, f: U32) -> U32:
        return np.where(c != 0, t, f).astype(np.uint32)

    def clz(self, a: U32) -> U32:
        _, exponent = np.frexp(np.asarray(a, dtype=np.float64))  # exact for 32-bit ints
        return (32 - exponent).astype(np.uint32)

    def lookup(self, table: tuple[int, ...], index: U32) -> U32:
        words = np.asarray((*table, 0), dtype=np.uint32)  # past the end: 0
        return words[np.minimum(np.asarray(index, dtype=np.int64), len(table))]

    def word(self, values: npt.ArrayLike) -> W[U32]:
        """Input words (any integer array-like, taken modulo 2**32)."""
        array = np.asarray(values).astype(np.int64) & MASK
        return W(self, array.astype(np.uint32))


@dataclass
class ExprMachine:
    """Words as `vyre.ir.Expr` trees: running an algorithm builds its IR DAG.
    Literals are shared per value, and an operation applied to the same
    operands again is the same node (hash-consing: an algorithm may spell a
    sub-expression twice, the IR holds it once); `ops` counts the distinct
    operations built."""

    ops: int = 0
    _literals: dict[int, Expr] = field(default_factory=lambda: {})
    _nodes: dict[tuple[str, int, int, int], tuple[Expr, tuple[Expr, ...]]] = field(default_factory=lambda: {})
    _tables: list[tuple[int, ...]] = field(default_factory=lambda: list[tuple[int, ...]]())

    def const(self, value: int) -> Expr:
        literal = self._literals.get(value)
        if literal is None:
            literal = self._literals[value] = E.u32(value)
        return literal

    def _node(self, kind: str, build: Callable[..., Expr], *operands: Expr) -> Expr:
        """The node `build(*operands)`, built once per (kind, operands)."""
        ids = tuple(id(x) for x in operands) + (0,) * (3 - len(operands))
        key = (kind, ids[0], ids[1], ids[2])
        found = self._nodes.get(key)
        if found is not None:
            return found[0]
        expr = build(*operands)
        self._nodes[key] = (expr, operands)  # the operands stay alive: their ids stay theirs
        self.ops += 1
        return expr

    def add(self, a: Expr, b: Expr) -> Expr:
        return self._node("add", E.add, a, b)

    def sub(self, a: Expr, b: Expr) -> Expr:
        return self._node("sub", E.sub, a, b)

    def mul(self, a: Expr, b: Expr) -> Expr:
        return self._node("mul", E.mul, a, b)

    def mul_high(self, a: Expr, b: Expr) -> Expr:
        return self._node("mul_high", E.mul_high, a, b)

    def and_(self, a: Expr, b: Expr) -> Expr:
        return self._node("and", E.bitand, a, b)

    def or_(self, a: Expr, b: Expr) -> Expr:
        return self._node("or", E.bitor, a, b)

    def xor(self, a: Expr, b: Expr) -> Expr:
        return self._node("xor", E.bitxor, a, b)

    def shl(self, a: Expr, b: Expr) -> Expr:
        return self._node("shl", E.shl, a, b)

    def shr(self, a: Expr, b: Expr) -> Expr:
        return self._node("shr", E.shr, a, b)

    def eq(self, a: Expr, b: Expr) -> Expr:
        return self._node("eq", E.eq, a, b)

    def ne(self, a: Expr, b: Expr) -> Expr:
        return self._node("ne", E.ne, a, b)

    def lt(self, a: Expr, b: Expr) -> Expr:
        return self._node("lt", E.lt, a, b)

    def le(self, a: Expr, b: Expr) -> Expr:
        return self._node("le", E.le, a, b)

    def select(self, c: Expr, t: Expr, f: Expr) -> Expr:
        return self._node("select", E.select, c, t, f)

    def clz(self, a: Expr) -> Expr:
        return self._node("clz", E.clz, a)

    def lookup(self, table: tuple[int, ...], index: Expr) -> Expr:
        key = ("lookup", id(table), id(index), 0)
        found = self._nodes.get(key)
        if found is not None:
            return found[0]
        expr = E.lookup(table, index)
        self._nodes[key] = (expr, (index,))
        self._tables.append(table)  # the table stays alive: its id stays its
        self.ops += 1
        return expr

    def word(self, value: Expr) -> W[Expr]:
        return W(self, value)
