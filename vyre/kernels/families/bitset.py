"""bitset.*: word-wise operations on bitsets (docs/kernel-library.md).

Conventions. A bitset is a U32[] of w words holding 32·w bits: bit i is bit
i % 32 (least significant first) of word i // 32, as in Python's ints and numpy's
`np.unpackbits(words.view(np.uint8), bitorder="little")`. A bitset has no
length finer than a word: `bitset.not` flips all 32·w bits (a caller whose set
has a logical size that is not a multiple of 32 masks the high bits of the last
word itself), and `popcount` counts every set bit of every word.

- `bitset.and(a, b)`, `bitset.or(a, b)`, `bitset.xor(a, b)`, `bitset.and_not(a, b)`
  (a & ~b): U32[w], U32[w] -> U32[w]; the two bitsets must have the same number
  of words (ValueError naming `b`).
- `bitset.not(a)`: U32[w] -> U32[w], ~a.
- `bitset.popcount(a)`: U32[w] -> U32, the number of set bits
  (`sum(int(x).bit_count())`); w is at most (2^32 - 1) // 32 words so the count
  fits a u32 (C5).

GPU: the binary ops and `not` are maps (`wordwise.map_program`: grid-stride,
four words in flight per invocation); popcount is a reduce (`countOneBits` per
word, the workgroup tree, one `atomicAdd` per workgroup). Empty bitsets run no
dispatch (empty output; popcount 0).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Any

import numpy as np

from vyre.ir import DataType, Expr, Node, Program
from vyre.ir import Expr as E
from vyre.kernels import laws as K
from vyre.kernels.families.wordwise import grid_params, map_program, reduce_program
from vyre.kernels.spec import Buffer, KernelLaw, KernelPlan, KernelSpec, Port, Step

__all__ = ["KERNELS", "MAX_POPCOUNT_WORDS"]

MAX_POPCOUNT_WORDS = (2**32 - 1) // 32
"""The most words `bitset.popcount` takes: 32 bits each, the count fits a u32."""

Op = Callable[..., tuple[np.ndarray, ...]]
Words = Callable[[np.ndarray, np.ndarray], np.ndarray]

_BINARY: dict[str, tuple[Callable[[Expr, Expr], Expr], Words, str]] = {
    "and": (E.bitand, np.bitwise_and, "a & b"),
    "or": (E.bitor, np.bitwise_or, "a | b"),
    "xor": (E.bitxor, np.bitwise_xor, "a ^ b"),
    "and_not": (lambda a, b: E.bitand(a, E.bitnot(b)), lambda a, b: a & ~b, "a & ~b (the bits of a not in b)"),
}


@cache
def binary_program(kind: str) -> Program:
    combine = _BINARY[kind][0]

    def value(i: Expr, s: str) -> tuple[list[Node], Expr]:
        return [], combine(E.load("a", i), E.load("b", i))

    return map_program(f"bitset_{kind}", ["a", "b"], value)


@cache
def not_program() -> Program:
    def value(i: Expr, s: str) -> tuple[list[Node], Expr]:
        return [], E.bitnot(E.load("a", i))

    return map_program("bitset_not", ["a"], value)


@cache
def popcount_program() -> Program:
    def element(i: Expr, s: str) -> tuple[list[Node], Expr]:
        return [], E.popcount(E.load("a", i))  # a load past w reads 0: adds nothing

    return reduce_program("bitset_popcount", ["a"], element, "add")


def _map_plan(program: Callable[[], Program]) -> Callable[[Any, Any], KernelPlan]:
    def plan(sizes: Any, scalars: Any) -> KernelPlan:
        w = int(sizes["a"])
        out = Buffer("out", DataType.U32, w)
        if w == 0:
            return KernelPlan((out,), ())
        g, params = grid_params("params", w)
        return KernelPlan((out, params), (Step(program(), g.dispatch),))

    return plan


def _popcount_plan(sizes: Any, scalars: Any) -> KernelPlan:
    w = int(sizes["a"])
    out = Buffer("out", DataType.U32, 1)
    if w == 0:
        return KernelPlan((out,), ())
    g, params = grid_params("params", w)
    return KernelPlan((out, params), (Step(popcount_program(), g.dispatch),))


def _check_words(op_id: str) -> Callable[[tuple[Any, ...]], None]:
    def check(args: tuple[Any, ...]) -> None:
        a, b = args
        if len(a) != len(b):
            raise ValueError(
                f"input `b` of `{op_id}` has {len(b)} words, input `a` {len(a)};"
                " the two bitsets must have the same number of words"
            )

    return check


# ---------------------------------------------------------------------------
# References and laws
# ---------------------------------------------------------------------------


def _binary_reference(kind: str) -> Callable[[np.ndarray, np.ndarray], tuple[np.ndarray]]:
    words = _BINARY[kind][1]

    def reference(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray]:
        return (np.asarray(words(np.asarray(a, np.uint32), np.asarray(b, np.uint32)), dtype=np.uint32),)

    return reference


def _not(a: np.ndarray) -> tuple[np.ndarray]:
    return (np.bitwise_not(np.asarray(a, dtype=np.uint32)),)


def _popcount(a: np.ndarray) -> tuple[np.ndarray]:
    total = sum(int(x).bit_count() for x in np.asarray(a, dtype=np.uint32).tolist())
    return (np.array([total], dtype=np.uint32),)


def _u32(op: Op, *args: np.ndarray) -> np.ndarray:
    return np.asarray(op(*args)[0], dtype=np.uint32)


def _third(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """A third bitset of the same size for three-operand laws."""
    return (np.roll(b, 1) ^ np.uint32(0x9E37_79B9) ^ (a >> np.uint32(3))).astype(np.uint32)


def _first_difference(x: np.ndarray, y: np.ndarray) -> str:
    if x.shape != y.shape:
        return f"{x.size} words against {y.size}"
    at = int(np.flatnonzero(x != y)[0])
    return f"word {at}: {int(x[at]):#010x} against {int(y[at]):#010x}"


class Commutative(KernelLaw):
    """op(a, b) = op(b, a)."""

    name = "Commutative"

    def check(self, op: Op, args: tuple[Any, ...]) -> str | None:
        a, b = (np.asarray(v, dtype=np.uint32) for v in args)
        x, y = _u32(op, a, b), _u32(op, b, a)
        return None if x.tobytes() == y.tobytes() else f"op(a, b) != op(b, a) at {_first_difference(x, y)}"


class Associative(KernelLaw):
    """op(op(a, b), c) = op(a, op(b, c))."""

    name = "Associative"

    def check(self, op: Op, args: tuple[Any, ...]) -> str | None:
        a, b = (np.asarray(v, dtype=np.uint32) for v in args)
        c = _third(a, b)
        x, y = _u32(op, _u32(op, a, b), c), _u32(op, a, _u32(op, b, c))
        return None if x.tobytes() == y.tobytes() else f"(a op b) op c != a op (b op c) at {_first_difference(x, y)}"


class Boolean(KernelLaw):
    """An identity of Boolean algebra of the op, with the other side computed by
    numpy from the op's own outputs (e.g. and(a, b | c) = and(a, b) | and(a, c))."""

    def __init__(self, name: str, holds: Callable[[Op, np.ndarray, np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]):
        self.name = name
        self.holds = holds

    def check(self, op: Op, args: tuple[Any, ...]) -> str | None:
        a = np.asarray(args[0], dtype=np.uint32)
        b = np.asarray(args[1], dtype=np.uint32) if len(args) > 1 else np.roll(a, 1) ^ np.uint32(0x0F0F_F0F0)
        left, right = self.holds(op, a, b.astype(np.uint32), _third(a, b.astype(np.uint32)))
        if left.tobytes() != right.tobytes():
            return f"{self.name} fails at {_first_difference(left, right)}"
        return None


def _laws(kind: str) -> tuple[KernelLaw, ...]:
    ones = np.uint32(0xFFFF_FFFF)
    if kind == "and":
        return (
            Commutative(),
            Associative(),
            Boolean("Idempotent", lambda op, a, b, c: (_u32(op, a, a), a)),
            Boolean("IdentityOnes", lambda op, a, b, c: (_u32(op, a, np.full_like(a, ones)), a)),
            Boolean("DistributesOverOr", lambda op, a, b, c: (_u32(op, a, b | c), _u32(op, a, b) | _u32(op, a, c))),
        )
    if kind == "or":
        return (
            Commutative(),
            Associative(),
            Boolean("Idempotent", lambda op, a, b, c: (_u32(op, a, a), a)),
            Boolean("IdentityZeros", lambda op, a, b, c: (_u32(op, a, np.zeros_like(a)), a)),
            Boolean("DistributesOverAnd", lambda op, a, b, c: (_u32(op, a, b & c), _u32(op, a, b) & _u32(op, a, c))),
        )
    if kind == "xor":
        return (
            Commutative(),
            Associative(),
            Boolean("SelfInverse", lambda op, a, b, c: (_u32(op, _u32(op, a, b), b), a)),
            Boolean("XorSelfIsZero", lambda op, a, b, c: (_u32(op, a, a), np.zeros_like(a))),
            Boolean("AndDistributes", lambda op, a, b, c: (_u32(op, a & c, b & c), _u32(op, a, b) & c)),
        )
    # and_not
    return (
        Boolean("Partition", lambda op, a, b, c: (_u32(op, a, b) ^ _u32(op, a, ~b), a)),
        Boolean("DisjointFromB", lambda op, a, b, c: (_u32(op, a, b) & b, np.zeros_like(a))),
        Boolean("DeMorgan", lambda op, a, b, c: (_u32(op, a, b | c), _u32(op, _u32(op, a, b), c))),
    )


class InclusionExclusion(KernelLaw):
    """popcount(a | b) + popcount(a & b) = popcount(a) + popcount(b), a and b the
    two halves of the input."""

    name = "InclusionExclusion"

    def check(self, op: Op, args: tuple[Any, ...]) -> str | None:
        x = np.asarray(args[0], dtype=np.uint32)
        h = len(x) // 2
        a, b = x[:h], x[h : 2 * h]

        def count(v: np.ndarray) -> int:
            return int(_u32(op, v)[0])

        left, right = count(a | b) + count(a & b), count(a) + count(b)
        return None if left == right else f"popcount(a|b) + popcount(a&b) = {left} != popcount(a) + popcount(b) = {right}"


def _u32_sum(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.array([(int(a[0]) + int(b[0])) & 0xFFFF_FFFF], dtype=np.uint32)


def _binary_spec(kind: str) -> KernelSpec:
    op_id = f"bitset.{kind}"
    return KernelSpec(
        id=op_id,
        version=1,
        inputs=(Port("a", DataType.U32), Port("b", DataType.U32)),
        outputs=(Port("out", DataType.U32),),
        kind="map",
        reference=_binary_reference(kind),
        plan=_map_plan(lambda: binary_program(kind)),
        summary=f"word-wise {_BINARY[kind][2]} of two bitsets of the same number of words",
        laws=_laws(kind),
        check_args=_check_words(op_id),
    )


KERNELS = (
    *(_binary_spec(kind) for kind in ("and", "or", "xor", "and_not")),
    KernelSpec(
        id="bitset.not",
        version=1,
        inputs=(Port("a", DataType.U32),),
        outputs=(Port("out", DataType.U32),),
        kind="map",
        reference=_not,
        plan=_map_plan(not_program),
        summary="~a: all 32 bits of every word flipped",
        laws=(
            Boolean("Involution", lambda op, a, b, c: (_u32(op, _u32(op, a)), a)),
            Boolean("DeMorgan", lambda op, a, b, c: (_u32(op, a & b), _u32(op, a) | _u32(op, b))),
            Boolean("Complement", lambda op, a, b, c: (_u32(op, a) ^ a, np.full_like(a, 0xFFFF_FFFF))),
        ),
    ),
    KernelSpec(
        id="bitset.popcount",
        version=1,
        inputs=(Port("a", DataType.U32),),
        outputs=(Port("out", DataType.U32, scalar=True),),
        kind="reduce",
        reference=_popcount,
        plan=_popcount_plan,
        summary="the number of set bits (sum of int(x).bit_count())",
        laws=(K.SplitCombine(_u32_sum), InclusionExclusion(), K.EmptyIs(0)),
        max_length=MAX_POPCOUNT_WORDS,
    ),
)
