"""L4 compositional proofs: the laws a composition inherits from its structure.

An op whose composition calls other library ops (`clamp` calls `min` and
`max`, a user op built from `primitive.*`) is analysed with every callee
replaced by an uninterpreted function that knows nothing but the callee's
declared laws, as universally quantified axioms (z3, bit-vectors +
uninterpreted functions). A candidate law (the op's declared laws, and
Commutative/Idempotent for binary ops) that is then proved holds for *any*
implementation of the callees that satisfies their laws: it is inherited
from the structure, so certifying the callees certifies it (conform.md
"compositional.rs: prove A∘B correct from A and B's laws"). A candidate the
solver refutes does not follow from the structure alone (it may still hold,
by the callees' particular values: the L2 checks say whether it does).
"""

# pyright: reportUnknownMemberType=false, reportUnknownVariableType=false, reportUnknownArgumentType=false, reportMissingTypeStubs=false

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import z3

from vyre.conform.algebra import law_relations, law_variables
from vyre.conform.results import Composition
from vyre.conform.smt.terms import Z3Bits
from vyre.conform.smt.translate import Untranslatable, _Translator  # pyright: ignore[reportPrivateUsage]
from vyre.ir import BinaryExpr, Call, Cast, Expr, LitBool, LitI32, LitU32, Param, Select, UnaryExpr
from vyre.ops import laws as L
from vyre.ops import registry
from vyre.ops.spec import OpSpec

__all__ = ["analyse", "candidate_laws"]


def candidate_laws(spec: OpSpec) -> list[L.Law]:
    laws = list(spec.laws)
    if spec.signature.arity == 2:
        for extra in (L.Commutative(), L.Idempotent()):
            if extra not in laws:
                laws.append(extra)
    return laws


class _Uninterpreted:
    """Ops as z3 functions; each op's declared laws become quantified axioms."""

    def __init__(self) -> None:
        self.functions: dict[str, Any] = {}
        self.axioms: list[Any] = []
        self.B = Z3Bits()

    def function(self, op_id: str) -> Any:
        found = self.functions.get(op_id)
        if found is not None:
            return found
        spec = registry.get_scalar(op_id)
        word = z3.BitVecSort(32)
        f = z3.Function(f"op_{len(self.functions)}", *([word] * spec.signature.arity), word)
        self.functions[op_id] = f
        for law in spec.laws:
            try:
                k = law_variables(law)
            except ValueError:
                continue
            xs = [z3.BitVec(f"q{j}", 32) for j in range(k)]
            rels = law_relations(law, op_id, _Axioms(self), xs)
            body = z3.And(*[_holds(r) for r in rels])
            self.axioms.append(z3.ForAll(xs, body) if xs else body)
        return f

    def apply(self, op_id: str, args: Sequence[Any]) -> Any:
        return self.function(op_id)(*args)


class _Axioms:
    def __init__(self, world: _Uninterpreted):
        self.world = world

    def call(self, op_id: str, *args: Any) -> Any:
        return self.world.apply(op_id, args)

    def const(self, value: int) -> Any:
        return z3.BitVecVal(value, 32)

    def wrapping_add(self, x: Any, y: Any) -> Any:
        return x + y


def _holds(rel: Any) -> Any:
    ok = rel.lhs == rel.rhs if rel.rel == "==" else z3.ULE(rel.lhs, rel.rhs) if rel.rel == "<=" else z3.UGE(rel.lhs, rel.rhs)
    if rel.premise is not None:
        ok = z3.Implies(z3.ULE(rel.premise[0], rel.premise[1]), ok)
    return ok


def _structure(spec: OpSpec, world: _Uninterpreted, args: Sequence[Any]) -> Any:
    """The op's composition tree (calls not inlined) over `args`, calls as functions."""
    t = _Translator(world.B, list(args))
    memo: dict[int, Any] = {}

    def walk(node: Expr) -> Any:
        key = id(node)
        if key in memo:
            return memo[key]
        match node:
            case Param(index):
                value = args[index]
            case LitU32(v) | LitI32(v) | LitBool(v):
                value = z3.BitVecVal(int(v) & 0xFFFF_FFFF, 32)
            case BinaryExpr(op, left, right):
                value = t.binop_term(op.value, walk(left), walk(right))
            case UnaryExpr(op, operand):
                value = t.unop_term(op.value, walk(operand))
            case Select(cond, if_true, if_false):
                value = z3.If(walk(cond) != 0, walk(if_true), walk(if_false))
            case Cast(target, inner):
                value = walk(inner) if str(target) in ("u32", "i32") else z3.If(walk(inner) != 0, z3.BitVecVal(1, 32), z3.BitVecVal(0, 32))
            case Call(op_id, call_args):
                value = world.apply(op_id, [walk(a) for a in call_args])
            case _:
                raise Untranslatable(f"{type(node).__name__} in a composition")
        memo[key] = value
        return value

    return walk(spec.composition_tree)


class _Composed:
    """`law_relations` algebra: the analysed op is its structure, others are functions."""

    def __init__(self, spec: OpSpec, world: _Uninterpreted):
        self.spec = spec
        self.world = world

    def call(self, op_id: str, *args: Any) -> Any:
        if op_id == self.spec.id:
            return _structure(self.spec, self.world, args)
        return self.world.apply(op_id, args)

    def const(self, value: int) -> Any:
        return z3.BitVecVal(value, 32)

    def wrapping_add(self, x: Any, y: Any) -> Any:
        return x + y


def analyse(spec: OpSpec, timeout: float = 10.0) -> Composition:
    """The candidate laws of a composed op (one whose composition calls library
    ops) sorted into inherited, not implied and undecided."""
    buckets: dict[str, list[str]] = {"inherited": [], "not_implied": [], "undecided": []}
    for law in candidate_laws(spec):
        world = _Uninterpreted()
        for callee in spec.callees:
            world.function(callee)
        try:
            k = law_variables(law)
            xs = [z3.BitVec(f"x{j}", 32) for j in range(k)]
            rels = law_relations(law, spec.id, _Composed(spec, world), xs)
        except (Untranslatable, ValueError) as error:
            buckets["undecided"].append(f"{law} ({error})")
            continue
        solver = z3.Solver()
        solver.set("timeout", max(1, int(timeout * 1000)))
        solver.add(*world.axioms)
        solver.add(z3.Not(z3.And(*[_holds(r) for r in rels])))
        answer = solver.check()
        bucket = "inherited" if answer == z3.unsat else "not_implied" if answer == z3.sat else "undecided"
        buckets[bucket].append(str(law))
    return Composition(
        callees=tuple(spec.callees), inherited=tuple(buckets["inherited"]),
        not_implied=tuple(buckets["not_implied"]), undecided=tuple(buckets["undecided"]),
        solver=f"z3 {z3.get_version_string()} (QF_UFBV with quantified callee laws)",
    )
