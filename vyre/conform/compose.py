"""L4 compositional proofs: the laws a composition inherits from its structure.

An op whose composition calls other library ops (`clamp` calls `min` and
`max`, a user op built from `primitive.*`) is analysed with every callee
replaced by an uninterpreted function that knows nothing but the callee's
declared laws, as universally quantified axioms (z3, bit-vectors +
uninterpreted functions). A candidate law (the op's declared laws, and
Commutative/Idempotent for binary ops) that is then proved holds for *any*
implementation of the callees that satisfies their laws: it is inherited
from the structure, so certifying the callees certifies it (A∘B proved
correct from A's and B's laws alone). A candidate the
solver refutes does not follow from the structure alone (it may still hold,
by the callees' particular values: the L2 checks say whether it does).
"""

# pyright: reportUnknownMemberType=false, reportUnknownVariableType=false, reportUnknownArgumentType=false, reportMissingTypeStubs=false

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import z3

from vyre.conform.algebra import law_relations, law_variables
from vyre.conform.results import Composition
from vyre.conform.smt.terms import Z3Bits
from vyre.conform.smt.translate import Untranslatable, _Translator  # pyright: ignore[reportPrivateUsage]
from vyre.dialects.tables import Dispatch
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


@dataclass
class _Structure:
    """The walk of one composition tree: children first (a DAG's shared nodes once)."""

    translator: _Translator
    world: _Uninterpreted
    args: Sequence[Any]
    memo: dict[int, Any] = field(default_factory=lambda: {})

    def term(self, node: Expr) -> Any:
        key = id(node)
        if key in self.memo:
            return self.memo[key]
        translate = TERMS.get(type(node))
        if translate is None:
            raise Untranslatable(f"{type(node).__name__} in a composition")
        value = translate(self, node)
        self.memo[key] = value
        return value


TERMS: Dispatch[_Structure, [], Any] = Dispatch("composition terms", lambda: ())
"""The z3 term of each composition node (a node without an entry is Untranslatable)."""


@TERMS.on(Param)
def _param(walk: _Structure, node: Param) -> Any:
    return walk.args[node.index]


@TERMS.on(LitU32, LitI32, LitBool)
def _literal(walk: _Structure, node: LitU32 | LitI32 | LitBool) -> Any:
    return z3.BitVecVal(int(node.value) & 0xFFFF_FFFF, 32)


@TERMS.on(BinaryExpr)
def _binary(walk: _Structure, node: BinaryExpr) -> Any:
    return walk.translator.binop_term(node.op.value, walk.term(node.left), walk.term(node.right))


@TERMS.on(UnaryExpr)
def _unary(walk: _Structure, node: UnaryExpr) -> Any:
    return walk.translator.unop_term(node.op.value, walk.term(node.operand))


@TERMS.on(Select)
def _select(walk: _Structure, node: Select) -> Any:
    return z3.If(walk.term(node.cond) != 0, walk.term(node.if_true), walk.term(node.if_false))


@TERMS.on(Cast)
def _cast(walk: _Structure, node: Cast) -> Any:
    inner = walk.term(node.value)
    if str(node.target) in ("u32", "i32"):
        return inner
    return z3.If(inner != 0, z3.BitVecVal(1, 32), z3.BitVecVal(0, 32))


@TERMS.on(Call)
def _call(walk: _Structure, node: Call) -> Any:
    return walk.world.apply(node.op_id, [walk.term(a) for a in node.args])


def _structure(spec: OpSpec, world: _Uninterpreted, args: Sequence[Any]) -> Any:
    """The op's composition tree (calls not inlined) over `args`, calls as functions."""
    return _Structure(_Translator(world.B, list(args)), world, args).term(spec.composition_tree)


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
