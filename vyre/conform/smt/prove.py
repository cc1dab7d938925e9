"""Proof obligations of one integer op: its composition equals its reference, and
each declared law holds, for all 32-bit inputs.

- "composition": the prepared composition (`translate.py`) equals the op's
  formal model (`models.py`) for every input.
- "law:<Name>": the law holds on the formal models of the op and of every op it
  names (a law speaks of the CPU reference). For an op without a
  model the law is proved on its composition instead, and the detail says so.

Every model used is cross-checked against its numpy reference first
(`check_model`); a model that disagrees is an error and nothing is proved
with it. A solver counterexample is replayed, through the reference
interpreter and the numpy reference (composition) or the numpy references
(laws), and shrunk; one that does not replay is an error of the prover, not a
finding about the op. A timeout is reported as such, never as proved.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np

from vyre.conform import generate as gen
from vyre.conform.algebra import NumpyAlgebra, Relation, describe, law_relations, violations_numpy
from vyre.conform.kinds import ProofStatus
from vyre.conform.shrink import shrink
from vyre.conform.smt.models import Model, model_for
from vyre.conform.smt.solve import Goal, Outcome, decide
from vyre.conform.smt.terms import Bits, NumpyBits, NV
from vyre.conform.smt.translate import Untranslatable, translate_op
from vyre.ops import laws as L
from vyre.ops import registry
from vyre.ops.spec import OpSpec

__all__ = [
    "DEFAULT_TIMEOUT",
    "ModelMismatch",
    "ProofRecord",
    "check_model",
    "law_goal",
    "obligation_names",
    "prove_obligation",
]

DEFAULT_TIMEOUT = 10.0
"""Seconds per solver attempt."""

MASK = 0xFFFF_FFFF


class ModelMismatch(ValueError):
    """A formal model that disagrees with its op's numpy reference."""


def reference_words(spec: OpSpec, columns: Sequence[np.ndarray]) -> np.ndarray:
    out = np.asarray(spec.reference(*[np.asarray(c, dtype=np.uint32) for c in columns]))
    n = len(columns[0]) if columns else 1
    return (np.broadcast_to(out, (n,)).astype(np.int64) & MASK).astype(np.uint32)


def model_words(model: Model, columns: Sequence[np.ndarray]) -> np.ndarray:
    B = NumpyBits()
    value = model(B, *[NV(np.asarray(c, dtype=np.uint64), 32) for c in columns])
    n = len(columns[0]) if columns else 1
    return np.broadcast_to(value.value, (n,)).astype(np.uint32)


def cross_check_rows(spec: OpSpec, exhaustive_bits: int) -> list[np.ndarray]:
    """Chunks of input rows: every input of `exhaustive_bits` bits per
    variable, then the op's structured rows (boundaries, classes, specials)."""
    arity = spec.signature.arity
    total = 1 << (exhaustive_bits * arity)
    chunks: list[np.ndarray] = []
    for start in range(0, total, gen.CHUNK):
        chunks.append(gen.exhaustive_rows(arity, exhaustive_bits, start, min(total, start + gen.CHUNK)))
    chunks.append(gen.structured_op_rows(spec))
    return chunks


def check_model(spec: OpSpec, model: Model, exhaustive_bits: int) -> int:
    """Compare the model with the numpy reference; the number of inputs compared.
    Raises `ModelMismatch` naming the first disagreement."""
    count = 0
    for rows in cross_check_rows(spec, exhaustive_bits):
        columns = [np.ascontiguousarray(rows[:, j], dtype=np.uint32) for j in range(rows.shape[1])]
        got = model_words(model, columns)
        want = reference_words(spec, columns)
        bad = np.flatnonzero(got != want)
        if len(bad):
            i = int(bad[0])
            args = ", ".join(f"{int(c[i]):#x}" for c in columns)
            raise ModelMismatch(
                f"the formal model of `{spec.id}` gives {int(got[i]):#x} at ({args}),"
                f" the numpy reference {int(want[i]):#x}"
            )
        count += len(rows)
    return count


def runtime_bits(arity: int) -> int:
    """Bits per variable of the cross-check run before proving (all u8 inputs for
    arity <= 2; fewer for wider ops, the full u8 check being a test)."""
    return {1: 16, 2: 8, 3: 5}.get(arity, 4)


@cache
def _checked(op_id: str, version: int, spec_key: int) -> tuple[bool, str]:
    del version, spec_key
    spec = registry.get_scalar(op_id)
    model = model_for(op_id)
    if model is None:
        return False, "no formal model"
    bits = runtime_bits(spec.signature.arity)
    try:
        count = check_model(spec, model, bits)
    except ModelMismatch as error:
        return False, str(error)
    return True, f"model = numpy reference on {count:,} inputs (all u{bits} and the structured inputs)"


def model_status(spec: OpSpec) -> tuple[bool, str]:
    return _checked(spec.id, spec.version, id(spec))


# ---------------------------------------------------------------------------
# Goals
# ---------------------------------------------------------------------------


class _SmtAlgebra:
    """`law_relations` over `Bits`: each op is its model, or its composition
    when `compositions` says so."""

    def __init__(self, B: Bits, compositions: frozenset[str]):
        self.B = B
        self.compositions = compositions

    def call(self, op_id: str, *args: Any) -> Any:
        spec = registry.get_scalar(op_id)
        if op_id in self.compositions:
            return translate_op(spec, self.B, args)
        model = model_for(op_id)
        if model is None:
            raise Untranslatable(f"`{op_id}` has no formal model")
        return model(self.B, *args)

    def const(self, value: int) -> Any:
        return self.B.const(value, 32)

    def wrapping_add(self, x: Any, y: Any) -> Any:
        return self.B.add(x, y)


def _holds(B: Bits, rel: Relation[Any]) -> Any:
    if rel.rel == "==":
        ok = B.eq(rel.lhs, rel.rhs)
    elif rel.rel == "<=":
        ok = B.ule(rel.lhs, rel.rhs)
    else:
        ok = B.uge(rel.lhs, rel.rhs)
    if rel.premise is not None:
        ok = B.any_([B.not_(B.ule(rel.premise[0], rel.premise[1])), ok])
    return ok


def law_goal(op_id: str, law: L.Law, compositions: frozenset[str] = frozenset()) -> Goal:
    def goal(B: Bits, xs: Sequence[Any]) -> Any:
        rels = law_relations(law, op_id, _SmtAlgebra(B, compositions), list(xs))
        return B.all_([_holds(B, r) for r in rels])

    return goal


def composition_goal(spec: OpSpec, model: Model) -> Goal:
    def goal(B: Bits, xs: Sequence[Any]) -> Any:
        return B.eq(translate_op(spec, B, xs), model(B, *xs))

    return goal


# ---------------------------------------------------------------------------
# Obligations
# ---------------------------------------------------------------------------


def obligation_names(spec: OpSpec) -> list[str]:
    """"composition" then one "law:<str(law)>" per declared law, in order."""
    return ["composition", *(f"law:{law}" for law in spec.laws)]


def _rows(values: Sequence[tuple[int, ...]]) -> list[np.ndarray]:
    rows = np.asarray(values, dtype=np.uint64).astype(np.uint32)
    return [np.ascontiguousarray(rows[:, j]) for j in range(rows.shape[1])]


def _composition_first(spec: OpSpec) -> Callable[[Sequence[tuple[int, ...]]], int | None]:
    from vyre.kernels.evaluate import evaluate

    def first(candidates: Sequence[tuple[int, ...]]) -> int | None:
        columns = _rows(candidates)
        got = np.asarray(evaluate(spec.id, columns, backend="interp"), dtype=np.uint32)
        bad = np.flatnonzero(got != reference_words(spec, columns))
        return int(bad[0]) if len(bad) else None

    return first


def _reference_algebra() -> NumpyAlgebra:
    return NumpyAlgebra(lambda op_id, cols: reference_words(registry.get_scalar(op_id), cols))


def _law_first(spec: OpSpec, law: L.Law) -> Callable[[Sequence[tuple[int, ...]]], int | None]:
    def first(candidates: Sequence[tuple[int, ...]]) -> int | None:
        columns = _rows(candidates)
        bad = violations_numpy(law_relations(law, spec.id, _reference_algebra(), columns), (len(candidates),))
        hits = np.flatnonzero(bad)
        return int(hits[0]) if len(hits) else None

    return first


@dataclass(frozen=True)
class ProofRecord:
    """The decision on one obligation: `status`, the `solver` that decided it,
    `seconds`, `detail` (every attempt, the model used), and for a
    counterexample the shrunk `counterexample`, the solver's `raw` one and a
    `description` of the failure."""

    status: ProofStatus
    solver: str
    seconds: float
    detail: str
    counterexample: tuple[int, ...] | None = None
    raw: tuple[int, ...] | None = None
    description: str | None = None


@dataclass(frozen=True)
class _Replayed:
    """A solver counterexample that replays: shrunk, raw, and what goes wrong."""

    counterexample: tuple[int, ...]
    raw: tuple[int, ...]
    description: str


def prove_obligation(spec: OpSpec, check: str, timeout: float = DEFAULT_TIMEOUT) -> ProofRecord:
    """Decide one obligation ("composition" or "law:<law>")."""
    model = model_for(spec.id)
    model_ok, model_note = model_status(spec) if model is not None else (False, "no formal model")
    if model is not None and not model_ok:
        return _record(ProofStatus.ERROR, "", 0.0, f"the formal model is wrong: {model_note}")
    if check == "composition":
        if model is None:
            return _record(ProofStatus.ERROR, "", 0.0, f"`{spec.id}` has no formal model (register one with"
                           " vyre.conform.smt.register_model): composition == reference is not provable")
        outcome = decide(composition_goal(spec, model), spec.signature.arity, timeout)
        return _outcome(outcome, model_note, lambda v: _replay_composition(spec, v))
    law = next((x for x in spec.laws if f"law:{x}" == check), None)
    if law is None:
        raise ValueError(f"`{spec.id}` declares no obligation {check!r}")
    from vyre.conform.algebra import law_variables

    names = {spec.id, *law.referenced_ops()}
    missing = frozenset(n for n in names if model_for(n) is None)
    for other in names - missing - {spec.id}:
        ok, note = model_status(registry.get_scalar(other))
        if not ok:
            return _record(ProofStatus.ERROR, "", 0.0, f"the formal model of `{other}` is wrong: {note}")
    on = "the formal models" if not missing else f"the compositions of {', '.join(sorted(missing))}"
    outcome = decide(law_goal(spec.id, law, missing), law_variables(law), timeout)
    return _outcome(outcome, f"law on {on}; {model_note}", lambda v: _replay_law(spec, law, v))


def _record(
    status: ProofStatus, solver: str, seconds: float, detail: str, replayed: _Replayed | None = None
) -> ProofRecord:
    if replayed is None:
        return ProofRecord(status, solver, round(seconds, 4), detail)
    return ProofRecord(
        status, solver, round(seconds, 4), detail, replayed.counterexample, replayed.raw, replayed.description
    )


def _outcome(outcome: Outcome, note: str, replay: Callable[[tuple[int, ...]], _Replayed | None]) -> ProofRecord:
    detail = f"{outcome.detail}; {note}" if note else outcome.detail
    status = ProofStatus(outcome.status)
    if status is not ProofStatus.COUNTEREXAMPLE or outcome.values is None:
        return _record(status, outcome.solver, outcome.seconds, detail)
    found = replay(outcome.values)
    if found is None:
        args = ", ".join(f"{v:#x}" for v in outcome.values)
        return _record(
            ProofStatus.ERROR, outcome.solver, outcome.seconds,
            f"{detail}; the solver's counterexample ({args}) does not replay through the"
            " references: the formal model or the translation is wrong",
        )
    return _record(status, outcome.solver, outcome.seconds, detail, found)


def _replay_composition(spec: OpSpec, values: tuple[int, ...]) -> _Replayed | None:
    first = _composition_first(spec)
    if first([values]) is None:
        return None
    minimal = shrink(values, first)
    from vyre.kernels.evaluate import evaluate

    columns = _rows([minimal])
    got = int(np.asarray(evaluate(spec.id, columns, backend="interp"))[0])
    want = int(reference_words(spec, columns)[0])
    args = ", ".join(f"{v:#x}" for v in minimal)
    description = f"{spec.id}({args}): the composition gives {got:#x}, the reference {want:#x}"
    return _Replayed(tuple(minimal), tuple(values), description)


def _replay_law(spec: OpSpec, law: L.Law, values: tuple[int, ...]) -> _Replayed | None:
    first = _law_first(spec, law)
    if first([values]) is None:
        return None
    minimal = shrink(values, first)
    rels = law_relations(law, spec.id, _reference_algebra(), _rows([minimal]))
    return _Replayed(tuple(minimal), tuple(values), describe(rels))
