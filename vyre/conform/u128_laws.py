"""The algebraic laws of the u128 operators, checked exhaustively and proved.

The standard library has no u128 ops (its scalar tracks are u32 and F32), so the
laws here are those of the IR operators on u128 values themselves, written with
the law vocabulary of the library (`vyre.ops.laws`) and stated by the same
`law_relations` as every op's laws. An operator is named `u128.<spelling>`
(`u128.add`, `u128.bit_not`); a law naming another operator (DistributiveOver,
DeMorgan) names it that way. `LAWS` lists every law of the twelve kinds that
holds for all inputs: shl and shr have none (a shift by 0 is the identity on
one side only).

Laws become one program: variable j is u128 buffer `xj`, and word k of `out`'s
row i gets 1 where every relation of law k holds at row i of the variables, 0
where one fails. The same program is checked two ways:

- `check` (one law) and `check_all` (every law of `LAWS`, one program): on a
  backend (the interpreter, wgpu), exhaustively over `DOMAIN`, sixteen values at
  every word boundary (all 16, 256 or 4,096 tuples for a law of one, two or
  three variables; a law of fewer variables than the program's reads the first
  ones): a failing tuple is the counterexample;
- `prove`: for every input, by z3: the program of one lane, prepared by the
  pipeline, translated to 128-bit terms by `vyre.conform.smt.translate` (what
  is proved is what runs through the pipeline), and `out == 0` shown
  unsatisfiable, or a model returned as the counterexample.
"""

# pyright: reportUnknownMemberType=false, reportUnknownVariableType=false, reportUnknownArgumentType=false, reportMissingTypeStubs=false, reportAttributeAccessIssue=false

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import reduce

import numpy as np
import z3

from vyre.conform.algebra import Relation, law_relations, law_variables
from vyre.conform.smt.terms import Z3Bits
from vyre.conform.smt.translate import translate
from vyre.dialects import vyre as d
from vyre.ir import BinOp, BufferDecl, DataType, Expr, Node, Program, UnOp
from vyre.ir import Expr as E
from vyre.ops import laws as L
from vyre.pipeline import prepare
from vyre.runtime.api import run

__all__ = ["DOMAIN", "LAWS", "OPERATORS", "LawResult", "check", "check_all", "law_program", "prove"]

U128 = DataType.U128
MAX = (1 << 128) - 1
WORKGROUP = 16

OPERATORS: dict[str, BinOp | UnOp] = {
    **{f"u128.{kind.value}": BinOp(kind.value) for kind in d.U128_BINOP_KINDS},
    **{f"u128.{kind.value}": UnOp(kind.value) for kind in d.U128_UNOP_KINDS},
}
"""Every u128 operator, by the name laws use for it."""

_COMPARISONS = frozenset(BinOp(kind.value) for kind in d.U128_COMPARISONS)
_U32_RESULTS = _COMPARISONS | {UnOp.POPCOUNT, UnOp.CLZ, UnOp.CTZ}

LAWS: dict[str, tuple[L.Law, ...]] = {
    "u128.add": (L.Commutative(), L.Associative(), L.Identity(0)),
    "u128.sub": (L.SelfInverse(0),),
    "u128.mul": (
        L.Commutative(), L.Associative(), L.Identity(1), L.Absorbing(0),
        L.DistributiveOver("u128.add"), L.DistributiveOver("u128.sub"),
    ),
    "u128.div": (L.Absorbing(0),),
    "u128.mod": (L.Absorbing(0), L.SelfInverse(0)),
    "u128.bit_and": (
        L.Commutative(), L.Associative(), L.Idempotent(), L.Absorbing(0),
        L.DistributiveOver("u128.bit_or"), L.DistributiveOver("u128.bit_xor"),
    ),
    "u128.bit_or": (
        L.Commutative(), L.Associative(), L.Idempotent(), L.Identity(0),
        L.DistributiveOver("u128.bit_and"),
    ),
    "u128.bit_xor": (L.Commutative(), L.Associative(), L.Identity(0), L.SelfInverse(0)),
    "u128.eq": (L.Commutative(), L.SelfInverse(1)),
    "u128.ne": (L.Commutative(), L.SelfInverse(0)),
    "u128.lt": (L.SelfInverse(0),),
    "u128.gt": (L.SelfInverse(0),),
    "u128.le": (L.SelfInverse(1),),
    "u128.ge": (L.SelfInverse(1),),
    "u128.bit_not": (
        L.Involution(), L.DeMorgan("u128.bit_and", "u128.bit_or"),
        L.DeMorgan("u128.bit_or", "u128.bit_and"),
    ),
    "u128.popcount": (L.Bounded(0, 128),),
    "u128.clz": (L.Bounded(0, 128),),
    "u128.ctz": (L.Bounded(0, 128),),
}  # fmt: skip
"""The laws of each u128 operator (the law kinds of `vyre.ops.laws`)."""

DOMAIN: tuple[int, ...] = (
    0, 1, 2, 0xFFFF_FFFF, 0x1_0000_0000, 0x8000_0000_0000_0000, 2**64 - 1, 2**64 + 1,
    2**96 - 1, 2**96, 2**127, 2**127 + 2**64 + 7, MAX - 1, MAX,
    0x0123_4567_89AB_CDEF_FEDC_BA98_7654_3210, 0xFFFF_0000_FFFF_0000_FFFF_0000_FFFF_0000,
)  # fmt: skip
"""The values every law is checked at, in every combination: carries, borrows and
products across each word boundary, the top bit, all ones, mixed patterns."""


@dataclass(frozen=True)
class LawResult:
    """One law of one operator, checked on `target` ("interp", "wgpu", "smt")."""

    op: str
    law: str
    target: str
    cases: int
    """Tuples checked (0 for a proof, which covers them all)."""
    status: str
    """"holds" (checked), "proved", "violated", or "unknown" (the solver gave up)."""
    counterexample: tuple[int, ...] | None = None


@dataclass(frozen=True)
class _Term:
    """A side of a relation: an expression of a known type, or a constant whose
    type is the other side's (a u128 operand, or a u32 count or truth value)."""

    expr: Expr | None
    dtype: DataType | None
    value: int = 0

    def typed(self, dtype: DataType) -> Expr:
        if self.expr is not None:
            return self.expr
        return E.u128(self.value) if dtype is U128 else E.u32(self.value)


class _IRAlgebra:
    """`law_relations` over u128 IR expressions."""

    def call(self, op_id: str, *args: _Term) -> _Term:
        operator = OPERATORS.get(op_id)
        if operator is None:
            raise KeyError(f"`{op_id}` is no u128 operator; one of {', '.join(OPERATORS)}")
        operands = [arg.typed(U128) for arg in args]
        if isinstance(operator, BinOp):
            expr = E.binop(operator, operands[0], operands[1])
        else:
            expr = E.unop(operator, operands[0])
        return _Term(expr, DataType.U32 if operator in _U32_RESULTS else U128)

    def const(self, value: int) -> _Term:
        return _Term(None, None, value)

    def wrapping_add(self, x: _Term, y: _Term) -> _Term:
        dtype = x.dtype or y.dtype or U128
        return _Term(E.add(x.typed(dtype), y.typed(dtype)), dtype)


_RELATIONS: dict[str, Callable[[Expr, Expr], Expr]] = {"==": E.eq, "<=": E.le, ">=": E.ge}


def _holds(relation: Relation[_Term]) -> Expr:
    """1 where the relation holds (or its premise does not), else 0, as a u32."""
    dtype = relation.lhs.dtype or relation.rhs.dtype or U128
    test = _RELATIONS[relation.rel](relation.lhs.typed(dtype), relation.rhs.typed(dtype))
    if relation.premise is None:
        return test
    a, b = relation.premise
    return E.select(E.le(a.typed(U128), b.typed(U128)), test, E.u32(1))


def law_program(laws: Sequence[tuple[str, L.Law]], *, lanes: bool = True) -> Program:
    """`out[i * len(laws) + k] = 1` where law k (of its operator) holds at
    `(x0[i], x1[i], ..)`, else 0; with `lanes` False, the one-lane program the
    prover translates."""
    variables = max(law_variables(law) for _, law in laws)
    index = E.gid_x() if lanes else E.u32(0)
    xs = [_Term(E.load(f"x{j}", index), U128) for j in range(variables)]
    stores: list[Node] = []
    for k, (op_id, law) in enumerate(laws):
        relations = law_relations(law, op_id, _IRAlgebra(), xs)
        holds = reduce(E.bitand, [_holds(relation) for relation in relations])
        slot = E.add(E.mul(index, E.u32(len(laws))), E.u32(k)) if len(laws) > 1 else index
        stores.append(Node.store("out", slot, holds))
    buffers = [BufferDecl.read(f"x{j}", j, U128) for j in range(variables)]
    buffers.append(BufferDecl.read_write("out", variables, DataType.U32))
    return Program(
        buffers=buffers,
        workgroup_size=(WORKGROUP if lanes else 1, 1, 1),
        entry=stores,
        name="u128_laws",
    )


def _words(values: Sequence[int]) -> np.ndarray:
    rows = [[(v >> shift) & 0xFFFF_FFFF for shift in (0, 32, 64, 96)] for v in values]
    return np.array(rows, dtype=np.uint32).reshape(len(values), 4)


def check_all(
    backend: str = "interp", laws: Sequence[tuple[str, L.Law]] | None = None
) -> list[LawResult]:
    """Each law (default: every law of `LAWS`) at every tuple of `DOMAIN` values
    it quantifies over, on `backend`, in one program."""
    chosen = list(laws) if laws is not None else [(op, law) for op, found in LAWS.items() for law in found]
    variables = max(law_variables(law) for _, law in chosen)
    tuples = list(itertools.product(DOMAIN, repeat=variables))
    inputs: dict[str, object] = {f"x{j}": _words([t[j] for t in tuples]) for j in range(variables)}
    inputs["out"] = np.zeros(len(tuples) * len(chosen), dtype=np.uint32)
    dispatch = (len(tuples) // WORKGROUP, 1, 1)
    out = run(law_program(chosen), inputs, dispatch=dispatch, backend=backend)["out"]
    rows = np.asarray(out).reshape(len(tuples), len(chosen))
    results: list[LawResult] = []
    for k, (op_id, law) in enumerate(chosen):
        own = law_variables(law)
        cases = len(DOMAIN) ** own
        failing = np.flatnonzero(rows[:, k] != 1)
        if failing.size == 0:
            results.append(LawResult(op_id, str(law), backend, cases, "holds"))
            continue
        counterexample = tuples[int(failing[0])][:own]
        results.append(LawResult(op_id, str(law), backend, cases, "violated", counterexample))
    return results


def check(op_id: str, law: L.Law, backend: str = "interp") -> LawResult:
    """`law` of operator `op_id` at every tuple of `DOMAIN` values, on `backend`."""
    return check_all(backend, [(op_id, law)])[0]


def prove(op_id: str, law: L.Law, timeout: float = 10.0) -> LawResult:
    """`law` of operator `op_id` for all inputs, decided by z3 on the translation
    of the prepared one-lane program."""
    variables = law_variables(law)
    xs = [z3.BitVec(f"x{j}", 128) for j in range(variables)]
    (truth,) = translate(prepare(law_program([(op_id, law)], lanes=False)), Z3Bits(), xs)
    solver = z3.Solver()
    solver.set("timeout", max(1, int(timeout * 1000)))
    solver.add(truth != z3.BitVecVal(1, 32))
    answer = solver.check()
    if answer == z3.unsat:
        return LawResult(op_id, str(law), "smt", 0, "proved")
    if answer == z3.sat:
        model = solver.model()
        values = tuple(model.eval(x, model_completion=True).as_long() for x in xs)
        return LawResult(op_id, str(law), "smt", 0, "violated", values)
    return LawResult(op_id, str(law), "smt", 0, "unknown")
