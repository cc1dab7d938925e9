"""Running the units of a plan: the verification strategies.

Each strategy is independent and streams: a unit generates its chunk, dispatches
it, compares, and keeps only counts, the first violating index and the shrunk
counterexample.

- laws, on the CPU reference (numpy) and through the backend (a conformance
  kernel that evaluates both sides on the device and counts violations there);
- reference: the backend's evaluation of the op's composition against the op's
  CPU reference;
- parity: the backend against the reference interpreter, byte for byte;
- determinism: the same input N times gives the same bytes;
- regression: every corpus entry for the op, replayed;
- oracle: the backend against a user-supplied independent oracle.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from vyre.ops import registry
from vyre.conform import generate as gen
from vyre.conform import law_programs, zero_overhead
from vyre.conform.algebra import NumpyAlgebra, Relation, describe, violations_numpy
from vyre.conform.float_relations import law_relations_of, law_variables_of
from vyre.conform.backends import ConformBackend, InterpBackend
from vyre.conform.corpus import Entry
from vyre.conform.entries import LawEntry
from vyre.conform.kinds import CheckKind, ProofStatus, Target, UnitKind
from vyre.conform.plan import CASES_PART, Plan, Unit, determinism_rows, law_part, law_rows, op_input_rows
from vyre.conform.results import Composition, PerfSummary, ProofSummary, Result
from vyre.conform.results import result as _result
from vyre.conform.strength import Strength, StrengthName
from vyre.conform.shrink import shrink
from vyre.ir import DataType, Program
from vyre.pipeline import Prepared, prepare
from vyre.ops import laws as L
from vyre.ops.spec import OpSpec

__all__ = ["Engine", "ReferenceOutputError", "call_reference"]



class ReferenceOutputError(RuntimeError):
    """A CPU reference that did not return one u32 per input row."""


def call_reference(spec: OpSpec, columns: Sequence[np.ndarray]) -> np.ndarray:
    """`spec.reference` on flat uint32 columns, checked: a flat uint32 array of
    the same length."""
    n = len(columns[0]) if columns else 1
    inputs = [
        np.ascontiguousarray(c, dtype=np.uint32).view(np.float32) if t is DataType.F32 else c
        for c, t in zip(columns, spec.signature.inputs, strict=False)
    ]
    raw = spec.reference(*inputs)
    out = np.asarray(raw)
    if spec.signature.output is DataType.F32 and out.dtype == np.float32:
        out = np.ascontiguousarray(out).view(np.uint32)
    if out.ndim == 0:
        out = np.broadcast_to(out, (n,))
    out = out.reshape(-1)
    if len(out) != n:
        raise ReferenceOutputError(
            f"the CPU reference of `{spec.id}` returned {len(out)} values for {n} inputs"
        )
    if not np.issubdtype(out.dtype, np.integer) and out.dtype != np.bool_:
        raise ReferenceOutputError(f"the CPU reference of `{spec.id}` returned {out.dtype} values")
    return (out.astype(np.int64) & 0xFFFF_FFFF).astype(np.uint32)


def _columns(rows: np.ndarray) -> list[np.ndarray]:
    return [np.ascontiguousarray(rows[:, j], dtype=np.uint32) for j in range(rows.shape[1])]


class Engine:
    """Executes units of `plan` on `backend`."""

    def __init__(
        self,
        plan: Plan,
        backend: ConformBackend,
        oracles: Mapping[str, Callable[..., Any]] | None = None,
    ):
        self.plan = plan
        self.backend = backend
        self.oracles = dict(oracles or {})
        self.seed = plan.seed
        self._programs: dict[tuple[Any, ...], Prepared] = {}
        self._interp: ConformBackend | None = None

    # -- programs -------------------------------------------------------------

    def _prepared(self, key: tuple[Any, ...], build: Callable[[], Program]) -> Prepared:
        """Build and prepare (once: validate, inline, fold) a conformance program."""
        program = self._programs.get(key)
        if program is None:
            program = prepare(build())
            self._programs[key] = program
        return program

    def _spec_key(self, spec: OpSpec) -> tuple[Any, ...]:
        return (spec.id, spec.version, id(spec))

    def _law_program(self, spec: OpSpec, laws: Sequence[L.Law], k: int, bits: int | None) -> Prepared:
        key = ("laws", *self._spec_key(spec), tuple(str(x) for x in laws), k, bits)
        return self._prepared(
            key, lambda: law_programs.law_program(spec.id, laws, k, exhaustive_bits=bits)
        )

    def _match_program(self, spec: OpSpec) -> Prepared:
        key = ("match", *self._spec_key(spec))
        return self._prepared(key, lambda: law_programs.match_program(spec.id, spec.signature.arity))

    def _eval_program(self, spec: OpSpec) -> Prepared:
        key = ("eval", *self._spec_key(spec))
        return self._prepared(key, lambda: law_programs.eval_program(spec.id, spec.signature.arity))

    @property
    def strength(self) -> Strength:
        return self.plan.strength

    @property
    def interp(self) -> ConformBackend:
        if self.backend.is_reference_interpreter:
            return self.backend
        if self._interp is None:
            self._interp = InterpBackend()
        return self._interp

    # -- backend primitives -----------------------------------------------------

    def count(
        self, program: Prepared, words: dict[str, np.ndarray], lanes: int, slots: int
    ) -> list[tuple[int, int | None]]:
        """Run a counting kernel; (violations, first index or None) per slot."""
        init = np.tile(np.array([0, law_programs.NO_INDEX], dtype=np.uint32), slots)
        words = {**words, "res": init}
        out = self.backend.run(program, words, law_programs.dispatch_for(lanes))["res"]
        found: list[tuple[int, int | None]] = []
        for slot in range(slots):
            violations = int(out[2 * slot])
            first = int(out[2 * slot + 1])
            found.append((violations, None if violations == 0 else first))
        return found

    def evaluate(
        self, spec: OpSpec, rows: np.ndarray, backend: ConformBackend | None = None
    ) -> np.ndarray:
        """The op on every row, evaluated by `backend` (default: the one certified)."""
        backend = backend or self.backend
        program = self._eval_program(spec)
        out: list[np.ndarray] = []
        for start in range(0, len(rows), gen.CHUNK):
            part = rows[start : start + gen.CHUNK]
            words = {f"x{j}": c for j, c in enumerate(_columns(part))}
            words["out"] = np.zeros(len(part), dtype=np.uint32)
            result = backend.run(program, words, law_programs.dispatch_for(len(part)))
            out.append(np.asarray(result["out"], dtype=np.uint32)[: len(part)])
        return np.concatenate(out) if out else np.zeros(0, dtype=np.uint32)

    def mismatches(self, spec: OpSpec, rows: np.ndarray, expected: np.ndarray) -> tuple[int, int | None]:
        """(count, first lane) where the backend's op differs from `expected`."""
        words = {f"x{j}": c for j, c in enumerate(_columns(rows))}
        words["expected"] = np.ascontiguousarray(expected, dtype=np.uint32)
        return self.count(self._match_program(spec), words, len(rows), 1)[0]

    def law_counts(
        self, spec: OpSpec, laws: Sequence[L.Law], k: int, rows: np.ndarray
    ) -> list[tuple[int, int | None]]:
        words = {f"x{j}": c for j, c in enumerate(_columns(rows[:, :k]))}
        return self.count(self._law_program(spec, laws, k, None), words, len(rows), len(laws))

    # -- dispatch -------------------------------------------------------------------

    def run_unit(self, unit: Unit) -> list[Result]:
        if unit.kind == UnitKind.INVARIANT:
            from vyre.conform.invariants import InvariantChecker

            return InvariantChecker(self.backend, self.seed).check_chunk(unit.part, unit.chunk, unit.lanes)
        spec = registry.get_scalar(unit.op)
        handler: dict[UnitKind, Callable[[OpSpec, Unit], list[Result]]] = {
            UnitKind.LAWS_REFERENCE: self._laws_reference,
            UnitKind.LAWS_BACKEND: self._laws_backend,
            UnitKind.REFERENCE: self._reference,
            UnitKind.PARITY: self._parity,
            UnitKind.ORACLE: self._oracle,
            UnitKind.DETERMINISM: self._determinism,
            UnitKind.REGRESSION: self._regression,
            UnitKind.ZERO_OVERHEAD: self._zero_overhead,
            UnitKind.PROVE: self._prove,
            UnitKind.COMPOSE: self._compose,
            UnitKind.PERF: self._perf,
        }
        return handler[unit.kind](spec, unit)

    def _laws_of(self, spec: OpSpec, unit: Unit) -> list[tuple[LawEntry, L.Law]]:
        """The laws a unit checks: those of its part ("u8:k": the twelve's of k
        variables, else `plan.law_part`)."""
        entry = self.plan.op(spec.id)
        chosen = [(law, spec.laws[law.index]) for law in entry.laws if law.variables]
        if unit.part.startswith("u8:"):
            k = int(unit.part[3:])
            return [(law, obj) for law, obj in chosen if law.variables == k and law_part(obj) == "w"]
        return [(law, obj) for law, obj in chosen if law_part(obj) == unit.part]

    @staticmethod
    def _witnessed_domain(part: str) -> str:
        return "cases" if part == CASES_PART else "witnessed"

    # -- laws on the CPU reference -------------------------------------------------------

    def _ref_algebra(self) -> NumpyAlgebra:
        return NumpyAlgebra(lambda op_id, cols: call_reference(registry.get_scalar(op_id), cols))

    def _laws_reference(self, spec: OpSpec, unit: Unit) -> list[Result]:
        chosen = self._laws_of(spec, unit)
        alg = self._ref_algebra()
        if unit.part.startswith("u8:"):
            k = int(unit.part[3:])
            variables = self._u8_grid(k, unit.chunk)
            base = unit.chunk * gen.CHUNK
            domain = "u8"
        else:
            k = max(law.variables for law, _ in chosen)
            rows = law_rows(spec, self.seed, unit.part, k, unit.chunk, unit.lanes)
            variables = _columns(rows)
            base = 0
            domain = self._witnessed_domain(unit.part)
        shape = np.broadcast_shapes(*(v.shape for v in variables))
        results: list[Result] = []
        for entry, law in chosen:
            kv = law_variables_of(law)
            rels = law_relations_of(law, spec.id, alg, variables[:kv])
            bad = violations_numpy(rels, shape)
            count = int(np.count_nonzero(bad))
            if count == 0:
                results.append(_result(entry.check, Target.REFERENCE, domain, bad.size, 0, law=entry.law))
                continue
            flat = int(np.flatnonzero(bad)[0])
            position = np.unravel_index(flat, shape)
            raw = tuple(int(np.broadcast_to(v, shape)[position]) for v in variables[:kv])
            minimal = shrink(raw, lambda c, law=law: self._ref_law_first(spec, law, c))
            detail = self._explain_law(spec, law, minimal, self._ref_algebra())
            results.append(
                _result(
                    entry.check, Target.REFERENCE, domain, bad.size, count, law=entry.law,
                    first=base + flat, counterexample=minimal, raw=raw, detail=detail,
                )
            )
        return results

    def _u8_grid(self, k: int, chunk: int) -> list[np.ndarray]:
        values = np.arange(256, dtype=np.uint32)
        if k == 1:
            return [values]
        if k == 2:
            return [values[:, None], values[None, :]]
        step = 256 // (256 * 256 * 256 // gen.CHUNK)
        a = np.arange(chunk * step, (chunk + 1) * step, dtype=np.uint32)
        return [a[:, None, None], values[None, :, None], values[None, None, :]]

    def _ref_law_first(self, spec: OpSpec, law: L.Law, candidates: Sequence[tuple[int, ...]]) -> int | None:
        rows = np.asarray(candidates, dtype=np.uint64).astype(np.uint32)
        alg = self._ref_algebra()
        variables = _columns(rows)
        bad = violations_numpy(law_relations_of(law, spec.id, alg, variables), (len(rows),))
        hits = np.flatnonzero(bad)
        return int(hits[0]) if len(hits) else None

    def _explain_law(self, spec: OpSpec, law: L.Law, values: Sequence[int], alg: NumpyAlgebra) -> str:
        try:
            variables = [np.array([v], dtype=np.uint32) for v in values]
            rels: list[Relation[np.ndarray]] = law_relations_of(law, spec.id, alg, variables)
            return describe(rels)
        except Exception as error:  # noqa: BLE001 - an explanation never fails a unit
            return f"(could not evaluate the sides: {error})"

    # -- laws through the backend -----------------------------------------------------------

    def _backend_algebra(self) -> NumpyAlgebra:
        def evaluate(op_id: str, cols: list[np.ndarray]) -> np.ndarray:
            rows = np.stack(cols, axis=1) if cols else np.zeros((1, 0), np.uint32)
            return self.evaluate(registry.get_scalar(op_id), rows)

        return NumpyAlgebra(evaluate)

    def _laws_backend(self, spec: OpSpec, unit: Unit) -> list[Result]:
        chosen = self._laws_of(spec, unit)
        laws = [law for _, law in chosen]
        if unit.part.startswith("u8:"):
            k = int(unit.part[3:])
            bits = 8 if k < 3 else self.strength.backend_cube_bits
            base = unit.chunk * gen.CHUNK
            params = np.array([base, unit.lanes], dtype=np.uint32)
            program = self._law_program(spec, laws, k, bits)
            counts = self.count(program, {"params": params}, unit.lanes, len(laws))
            domain = f"u{bits}"
            rows_for: Callable[[int], tuple[int, ...]] = lambda g: tuple(
                int(v) for v in gen.exhaustive_rows(k, bits, g, g + 1)[0]
            )
        else:
            k = max(law_variables_of(law) for law in laws)
            rows = law_rows(spec, self.seed, unit.part, k, unit.chunk, unit.lanes)
            counts = self.law_counts(spec, laws, k, rows)
            domain = self._witnessed_domain(unit.part)
            rows_for = lambda i: tuple(int(v) for v in rows[i])
        results: list[Result] = []
        for (entry, law), (violations, first) in zip(chosen, counts):
            cases = unit.lanes
            if violations == 0 or first is None:
                results.append(_result(entry.check, Target.BACKEND, domain, cases, 0, law=entry.law))
                continue
            kv = law_variables_of(law)
            raw = rows_for(first)[:kv]
            minimal = shrink(raw, lambda c, law=law: self._backend_law_first(spec, law, c))
            detail = self._explain_law(spec, law, minimal, self._backend_algebra())
            results.append(
                _result(
                    entry.check, Target.BACKEND, domain, cases, violations, law=entry.law,
                    first=first,
                    counterexample=minimal, raw=raw, detail=detail,
                )
            )
        return results

    def _backend_law_first(
        self, spec: OpSpec, law: L.Law, candidates: Sequence[tuple[int, ...]]
    ) -> int | None:
        rows = np.asarray(candidates, dtype=np.uint64).astype(np.uint32)
        return self.law_counts(spec, [law], rows.shape[1], rows)[0][1]

    # -- reference, parity, oracle ------------------------------------------------------------

    def _compare_inputs(
        self,
        spec: OpSpec,
        unit: Unit,
        check: CheckKind,
        expect: Callable[[np.ndarray], np.ndarray],
        against: str,
    ) -> list[Result]:
        rows = op_input_rows(spec, self.seed, unit.chunk, unit.lanes)
        violations, first = self.mismatches(spec, rows, expect(rows))
        domain = "structured" if unit.chunk == 0 else "witnessed"
        if violations == 0 or first is None:
            return [_result(check.value, Target.BACKEND, domain, len(rows), 0)]
        raw = tuple(int(v) for v in rows[first])

        def first_failing(candidates: Sequence[tuple[int, ...]]) -> int | None:
            batch = np.asarray(candidates, dtype=np.uint64).astype(np.uint32)
            return self.mismatches(spec, batch, expect(batch))[1]

        minimal = shrink(raw, first_failing)
        batch = np.asarray([minimal], dtype=np.uint64).astype(np.uint32)
        got = int(self.evaluate(spec, batch)[0])
        want = int(expect(batch)[0])
        args = ", ".join(f"{v:#x}" for v in minimal)
        detail = f"{spec.id}({args}): {self.backend.id} gives {got:#x}, {against} gives {want:#x}"
        return [
            _result(
                check.value, Target.BACKEND, domain, len(rows), violations, first=first,
                counterexample=minimal, raw=raw, detail=detail,
            )
        ]

    def _reference(self, spec: OpSpec, unit: Unit) -> list[Result]:
        return self._compare_inputs(
            spec, unit, CheckKind.REFERENCE, lambda rows: call_reference(spec, _columns(rows)), "the CPU reference"
        )

    def _parity(self, spec: OpSpec, unit: Unit) -> list[Result]:
        return self._compare_inputs(
            spec, unit, CheckKind.PARITY, lambda rows: self.evaluate(spec, rows, self.interp), "the reference interpreter"
        )

    def _oracle(self, spec: OpSpec, unit: Unit) -> list[Result]:
        oracle = self.oracles[spec.id]

        def expect(rows: np.ndarray) -> np.ndarray:
            out = np.asarray(oracle(*_columns(rows))).reshape(-1)
            return (out.astype(np.int64) & 0xFFFF_FFFF).astype(np.uint32)

        return self._compare_inputs(spec, unit, CheckKind.ORACLE, expect, "the oracle")

    # -- determinism ------------------------------------------------------------------------------

    def _determinism_rows(self, spec: OpSpec) -> np.ndarray:
        return determinism_rows(spec, self.seed, self.strength.determinism_random)

    def _first_unstable(self, spec: OpSpec, rows: np.ndarray, runs: int) -> tuple[int, int | None, list[int]]:
        outputs = [self.evaluate(spec, rows) for _ in range(runs)]
        unstable = np.zeros(len(rows), dtype=bool)
        for out in outputs[1:]:
            unstable |= out != outputs[0]
        hits = np.flatnonzero(unstable)
        if len(hits) == 0:
            return 0, None, []
        first = int(hits[0])
        seen = sorted({int(out[first]) for out in outputs})
        return len(hits), first, seen

    def _determinism(self, spec: OpSpec, unit: Unit) -> list[Result]:
        runs = self.strength.determinism_runs
        rows = self._determinism_rows(spec)
        violations, first, _ = self._first_unstable(spec, rows, runs)
        if first is None:
            return [_result(CheckKind.DETERMINISM.value, Target.BACKEND, "runs", len(rows) * runs, 0)]
        raw = tuple(int(v) for v in rows[first])

        def first_failing(candidates: Sequence[tuple[int, ...]]) -> int | None:
            batch = np.asarray(candidates, dtype=np.uint64).astype(np.uint32)
            return self._first_unstable(spec, batch, runs)[1]

        minimal = shrink(raw, first_failing)
        batch = np.asarray([minimal], dtype=np.uint64).astype(np.uint32)
        _, again, seen = self._first_unstable(spec, batch, runs)
        if again is None:
            minimal, seen = raw, self._first_unstable(spec, rows[first : first + 1], runs)[2]
        args = ", ".join(f"{v:#x}" for v in minimal)
        values = ", ".join(f"{v:#x}" for v in seen) if seen else "(stable when re-run alone)"
        detail = f"{spec.id}({args}) gave different results over {runs} runs: {values}"
        return [
            _result(
                CheckKind.DETERMINISM.value, Target.BACKEND, "runs", len(rows) * runs, violations, first=first,
                counterexample=minimal, raw=raw, detail=detail,
            )
        ]

    # -- zero overhead (the WGSL half of admission gate 3) ---------------------------------------

    def _zero_overhead(self, spec: OpSpec, unit: Unit) -> list[Result]:
        found = zero_overhead.problems(spec)
        detail = f"the lowered WGSL of `{spec.id}` has {', '.join(found)}" if found else None
        return [_result(CheckKind.ZERO_OVERHEAD.value, Target.LOWERING, "wgsl", 1, int(bool(found)), detail=detail)]

    # -- SMT proofs (vyre.conform.smt) ------------------------------------------------------------

    def _prove(self, spec: OpSpec, unit: Unit) -> list[Result]:
        """Obligation `unit.chunk` of the op (0: its composition, 1 + i: law i)
        decided by the solver portfolio; the record rides on the result."""
        from vyre.conform.smt import prove_obligation

        timeout = self.plan.proof_timeout
        if unit.chunk == 0:
            check, law_text, name = CheckKind.COMPOSITION.value, None, CheckKind.COMPOSITION.value
        else:
            law = spec.laws[unit.chunk - 1]
            check, law_text, name = CheckKind.LAW.check(law.name), str(law), CheckKind.LAW.check(str(law))
        record = prove_obligation(spec, name, 10.0 if timeout is None else timeout)
        failed = record.status is ProofStatus.COUNTEREXAMPLE
        # no timings in the summary: the certificate content is reproducible
        summary = ProofSummary(record.status, record.solver, record.detail)
        return [
            _result(
                check, Target.PROOF, "smt", 1, int(failed), law=law_text, first=0 if failed else None,
                counterexample=record.counterexample, raw=record.raw,
                detail=record.description if failed else None, proof=summary,
            )
        ]

    # -- L4: compositional proofs and performance baselines -------------------------------------

    def _compose(self, spec: OpSpec, unit: Unit) -> list[Result]:
        from vyre.conform.compose import analyse

        timeout = self.plan.proof_timeout
        record: Composition = analyse(spec, min(2.0 if timeout is None else timeout, 10.0))
        return [_result(CheckKind.COMPOSE.check(spec.id), Target.STRUCTURE, "smt", 1, 0, compose=record)]

    PERF_SIZES = {
        StrengthName.FAST: (1 << 16, 5, 5, 6),
        StrengthName.STANDARD: (1 << 22, 8, 5, 3),
        StrengthName.LEGENDARY: (1 << 24, 8, 7, 3),
    }
    """(elements, dispatches per submission, repetitions, submissions per kernel
    and repetition) of a performance baseline, by strength."""

    def _perf(self, spec: OpSpec, unit: Unit) -> list[Result]:
        from vyre.conform.perf import PERF_THRESHOLD, measure

        n, reps, runs, samples = self.PERF_SIZES.get(self.strength.name, (1 << 20, 8, 5, 3))
        found = measure(spec, n=n, reps=reps, runs=runs, seed=self.seed, samples=samples, confirm=PERF_THRESHOLD)
        slow = found.below(PERF_THRESHOLD)
        detail = (
            f"ratio {found.ratio:.3f} (median of {len(found.ratios)} interleaved repetitions, spread"
            f" {found.low:.3f} to {found.high:.3f}; hand-written {found.hand_s * 1e6:,.1f} us / vyre"
            f" {found.vyre_s * 1e6:,.1f} us per dispatch, n={n:,}, each the fastest of {samples}"
            f" submissions of {reps} dispatches) on {found.device}"
        )
        summary = PerfSummary(round(found.ratio, 4), found.device, n, detail, round(found.low, 4), round(found.high, 4))
        return [
            _result(
                CheckKind.PERF.check(spec.id), Target.BACKEND, "timing", 1, int(slow), first=0 if slow else None,
                counterexample=() if slow else None, detail=detail, perf=summary,
            )
        ]

    # -- regression replay ---------------------------------------------------------------------------

    def _regression(self, spec: OpSpec, unit: Unit) -> list[Result]:
        entries = [
            Entry(op=o, check=c, law=law, target=t, inputs=tuple(x))
            for o, c, law, t, x in self.plan.data["regressions"]
            if o == spec.id
        ]
        groups: dict[tuple[str, str | None, Target], list[Entry]] = {}
        for entry in entries:
            groups.setdefault((entry.check, entry.law, Target(entry.target)), []).append(entry)
        results: list[Result] = []
        for (check, law_text, target), group in groups.items():
            rows = np.asarray([e.inputs for e in group], dtype=np.uint64).astype(np.uint32)
            first = self._replay_first(spec, check, law_text, target, rows)
            if first is None:
                results.append(_result(check, target, "regression", len(group), 0, law=law_text))
                continue
            failing = [
                i for i in range(len(group))
                if self._replay_first(spec, check, law_text, target, rows[i : i + 1]) is not None
            ]
            example = tuple(int(v) for v in rows[failing[0] if failing else first])
            args = ", ".join(f"{v:#x}" for v in example)
            results.append(
                _result(
                    check, target, "regression", len(group), max(1, len(failing)), law=law_text,
                    first=failing[0] if failing else first, counterexample=example, raw=example,
                    detail=f"corpus entry ({args}) fails again",
                )
            )
        return results

    def _replay_first(
        self, spec: OpSpec, check: str, law_text: str | None, target: Target, rows: np.ndarray
    ) -> int | None:
        kind = CheckKind.of(check)
        if kind is CheckKind.LAW:
            law = next(x for x in spec.laws if str(x) == law_text)
            candidates = [tuple(int(v) for v in row) for row in rows]
            if target is Target.REFERENCE:
                return self._ref_law_first(spec, law, candidates)
            return self._backend_law_first(spec, law, candidates)
        if kind is CheckKind.REFERENCE:
            return self.mismatches(spec, rows, call_reference(spec, _columns(rows)))[1]
        if kind is CheckKind.PARITY:
            return self.mismatches(spec, rows, self.evaluate(spec, rows, self.interp))[1]
        if kind is CheckKind.DETERMINISM:
            return self._first_unstable(spec, rows, self.strength.determinism_runs)[1]
        return None
