"""The float laws (`vyre.ops.float_laws`) as relations over a float algebra.

A float law of op `f` is stated, like the twelve (`algebra.law_relations`), as
`Relation`s between terms, over an algebra that can also flip a sign bit,
step to the next F32 in totalOrder and read a word of a constant table: the
numpy algebra (the CPU reference, or a backend's evaluations) and the IR
algebra (the law checked on the device) are both such algebras. The oracle is
the op itself at other points and the constants the law names, never a
reference.

The variables a law quantifies over: `a` (and the other inputs of a binary
op, free) for odd, even and range; `a` alone for monotonicity, whose other
point is `a`'s successor; for exact cases `i`, the case index (the law holds
when it holds at every index, which a check can cover exhaustively).

`law_relations_of` and `law_variables_of` dispatch any declared law of an
expression op: the twelve to `algebra`, the float laws here. The SMT
algebras (proofs, L4) know only the twelve: a float law there is an
`UnsupportedLaw`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, TypeVar

from vyre.conform.algebra import Algebra, Relation, UnsupportedLaw, law_relations, law_variables
from vyre.ops import float_laws as FL
from vyre.ops.laws import Law

__all__ = ["FloatAlgebra", "float_law_relations", "float_law_variables", "law_relations_of", "law_variables_of"]

V = TypeVar("V")


class FloatAlgebra(Algebra[V], Protocol[V]):
    """An algebra with the words the float laws need."""

    def flip_sign(self, x: V) -> V: ...

    def successor(self, x: V) -> V: ...

    def table(self, words: Sequence[int], index: V) -> V: ...


def _args(f: str, first: str, rest: int) -> str:
    names = [first, *("bcd"[:rest])]
    return f"{f}({','.join(names)})"


def _canonical_nan(alg: FloatAlgebra[V], f: str, xs: Sequence[V]) -> Relation[V]:
    """f(NaN, …) is the canonical NaN."""
    text = _args("f", "a", len(xs) - 1)
    nan = alg.const(FL.CANONICAL_NAN)
    return Relation(text, alg.call(f, *xs), "==", f"{FL.CANONICAL_NAN:#x}", nan, only_nan=xs[0])


def _odd(alg: FloatAlgebra[V], f: str, xs: Sequence[V]) -> list[Relation[V]]:
    rest = list(xs[1:])
    fa = alg.call(f, xs[0], *rest)
    f_neg = alg.call(f, alg.flip_sign(xs[0]), *rest)
    lhs, rhs = _args("f", "-a", len(rest)), _args("f", "a", len(rest))
    return [
        Relation(lhs, f_neg, "==", f"-{rhs}", alg.flip_sign(fa), unless_nan=(fa,)),
        Relation(lhs, f_neg, "==", f"{rhs} (a NaN)", fa, only_nan=fa),
        _canonical_nan(alg, f, xs),
    ]


def _even(alg: FloatAlgebra[V], f: str, xs: Sequence[V]) -> list[Relation[V]]:
    rest = list(xs[1:])
    fa = alg.call(f, xs[0], *rest)
    f_neg = alg.call(f, alg.flip_sign(xs[0]), *rest)
    lhs, rhs = _args("f", "-a", len(rest)), _args("f", "a", len(rest))
    return [Relation(lhs, f_neg, "==", rhs, fa), _canonical_nan(alg, f, xs)]


def _monotone(law: FL.FloatMonotone, alg: FloatAlgebra[V], f: str, xs: Sequence[V]) -> list[Relation[V]]:
    a = xs[0]
    after = alg.successor(a)
    fa, f_after = alg.call(f, a), alg.call(f, after)
    rel = ">=" if law.decreasing else "<="
    return [Relation("f(a)", fa, rel, "f(a⁺)", f_after, order="float", unless_nan=(a, after, fa, f_after))]


def _range(law: FL.FloatRange, alg: FloatAlgebra[V], f: str, xs: Sequence[V]) -> list[Relation[V]]:
    fa = alg.call(f, *xs)
    text = _args("f", "a", len(xs) - 1)
    lo, hi = FL.f32_text(law.lo), FL.f32_text(law.hi)
    return [
        Relation(text, fa, ">=", lo, alg.const(law.lo), order="float", unless_nan=(fa,)),
        Relation(text, fa, "<=", hi, alg.const(law.hi), order="float", unless_nan=(fa,)),
    ]


def _cases(law: FL.FloatExactCases, alg: FloatAlgebra[V], f: str, xs: Sequence[V]) -> list[Relation[V]]:
    i = xs[0]
    inputs = [alg.table([inputs[j] for inputs, _ in law.cases], i) for j in range(law.arity)]
    want = alg.table([result for _, result in law.cases], i)
    return [Relation("f(case i)", alg.call(f, *inputs), "==", "result of case i", want)]


def float_law_relations(law: FL.FloatLaw, f: str, alg: FloatAlgebra[V], xs: Sequence[V]) -> list[Relation[V]]:
    """The relations that together state the float `law` for op `f` at `xs`."""
    match law:
        case FL.FloatOdd():
            return _odd(alg, f, xs)
        case FL.FloatEven():
            return _even(alg, f, xs)
        case FL.FloatMonotone():
            return _monotone(law, alg, f, xs)
        case FL.FloatRange():
            return _range(law, alg, f, xs)
        case FL.FloatExactCases():
            return _cases(law, alg, f, xs)
        case _:
            raise UnsupportedLaw(f"no checker for float law {law} ({type(law).__name__})")


def float_law_variables(law: FL.FloatLaw) -> int:
    """How many variables the float law quantifies over (module doc)."""
    if isinstance(law, (FL.FloatMonotone, FL.FloatExactCases)):
        return 1
    if isinstance(law, (FL.FloatOdd, FL.FloatEven, FL.FloatRange)):
        return law.arity
    raise UnsupportedLaw(f"no checker for float law {law} ({type(law).__name__})")


def law_relations_of(law: Law, f: str, alg: FloatAlgebra[V], xs: Sequence[V]) -> list[Relation[V]]:
    """Any declared law of an expression op as relations (the twelve, or a float law)."""
    if isinstance(law, FL.FloatLaw):
        return float_law_relations(law, f, alg, xs)
    return law_relations(law, f, alg, xs)


def law_variables_of(law: Law) -> int:
    """How many variables any declared law quantifies over."""
    if isinstance(law, FL.FloatLaw):
        return float_law_variables(law)
    return law_variables(law)
