"""The kernel track of vyre-conform: certificates for kernel ops (`KernelSpec`).

A kernel op is a whole pipeline over buffers, so its evidence is a set of
*cases* (an argument tuple each), not rows of u32 words:

- boundary cases: every length of `spec.boundaries` (empty, 1, workgroup and
  tile sizes +- 1, lengths that are not multiples of 4) times the adversarial
  data patterns of the element type (`vyre.kernels.samplers.case_patterns`:
  zeros, all ones, ascending, descending, few distinct values, values near the
  wrap, uniform random; for F32 the special values, cancellation, small
  integers), made by `samplers.make_case` (the op's own sampler when it has one);
- random cases: lengths drawn log-uniformly up to `RANDOM_MAX_LENGTH`, data
  from a random pattern, seeded by (seed, op id, case index).

Checks (one `Unit` per check, op and block of cases):

- `reference`: the backend's outputs equal the CPU reference's, bit for bit,
  on every case (all cases of a unit in one backend submission);
- `parity`: the backend equals the reference interpreter (backends other than
  the interpreter);
- `determinism`: `strength.determinism_runs` (at most 5) runs of the boundary
  cases give identical bytes;
- `law:<Name>`: each declared `KernelLaw` holds on every case, with the op
  evaluated by the CPU reference (target "reference") and by the backend
  (target "backend").

A violation is shrunk by length (delta debugging on the array inputs, all
array inputs of the case's length cut alike) to a short failing case; the
certificate shows its first array input as unsigned element values (F32 as bit
patterns). Levels: L1k (reference, determinism and, off the interpreter,
parity pass) and L2k (L1k and every law witnessed on both targets).
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from vyre.conform.backends import ConformBackend, InterpBackend
from vyre.conform.plan import (
    SUITE_VERSION,
    Plan,
    Unit,
    dependencies,
    parity_rejection,
    registry_hash,
    sha256_json,
)
from vyre.conform.entries import LawEntry, OpEntry, Rejection
from vyre.conform.kinds import CheckGroup, CheckKind, Target, Track, UnitKind
from vyre.conform.results import Result, result
from vyre.conform.strength import Strength
from vyre.ir import DataType
from vyre.kernels.catalog import get_kernel
from vyre.kernels.samplers import case_patterns, make_case
from vyre.kernels.spec import KernelLaw, KernelSpec, Port

__all__ = [
    "KERNEL_CHECKS",
    "KernelEngine",
    "boundary_cases",
    "build_kernel_plan",
    "outputs_equal",
    "random_case",
    "shrink_case",
]

KERNEL_CHECKS = (CheckGroup.LAWS, CheckGroup.REFERENCE, CheckGroup.PARITY, CheckGroup.DETERMINISM)
"""The check groups of the kernel track."""

RANDOM_MAX_LENGTH = 20_000
"""The longest random case (past several tiles of every kernel of the library)."""

CASES_PER_UNIT = 16
MAX_DETERMINISM_RUNS = 5
SHRINK_BUDGET = 96
"""Predicate evaluations each phase of a shrink (length, values) may spend."""
SHOWN = 64
"""Elements of a counterexample kept in the certificate."""

Case = tuple[Any, ...]
OpFn = Callable[..., tuple[np.ndarray, ...]]


# ---------------------------------------------------------------------------
# Cases
# ---------------------------------------------------------------------------


def _rng(seed: int, op_id: str, label: str, index: int) -> np.random.Generator:
    digest = hashlib.sha256(f"{seed}|kernel|{op_id}|{label}|{index}".encode()).digest()
    return np.random.default_rng(int.from_bytes(digest[:16], "little"))


def _patterns_of(spec: KernelSpec) -> tuple[str, ...]:
    arrays = spec.array_inputs
    return case_patterns(arrays[0].dtype) if arrays else ("random",)


def boundary_cases(spec: KernelSpec, seed: int) -> list[Case]:
    """Every boundary length times every data pattern of the op's first array input."""
    cases: list[Case] = []
    for n in spec.boundaries:
        for pattern in _patterns_of(spec):
            cases.append(make_case(spec, _rng(seed, spec.id, f"b{n}{pattern}", 0), n, pattern))
    return cases


def random_case(spec: KernelSpec, seed: int, index: int) -> Case:
    """Random case `index`: a log-uniform length up to RANDOM_MAX_LENGTH and a random pattern."""
    rng = _rng(seed, spec.id, "random", index)
    n = int(math.exp(rng.uniform(0.0, math.log(RANDOM_MAX_LENGTH + 1)))) - 1
    choices = _patterns_of(spec)
    return make_case(spec, rng, n, choices[int(rng.integers(0, len(choices)))])


def random_case_count(strength: Strength) -> int:
    """Random cases per op and check: 8 (fast), 66 (standard), 4,096 (legendary)."""
    return max(8, min(4096, strength.witnesses // 15_000))


def _case_blocks(spec: KernelSpec, seed: int, strength: Strength) -> list[tuple[str, int, int]]:
    """(domain, first case index, count) of every unit's block of cases."""
    blocks: list[tuple[str, int, int]] = []
    total_boundary = len(spec.boundaries) * len(_patterns_of(spec))
    for start in range(0, total_boundary, CASES_PER_UNIT * 4):
        blocks.append(("boundary", start, min(CASES_PER_UNIT * 4, total_boundary - start)))
    total_random = random_case_count(strength)
    for start in range(0, total_random, CASES_PER_UNIT):
        blocks.append(("random", start, min(CASES_PER_UNIT, total_random - start)))
    return blocks


def cases_of(spec: KernelSpec, seed: int, domain: str, start: int, count: int) -> list[Case]:
    if domain == "boundary":
        return boundary_cases(spec, seed)[start : start + count]
    return [random_case(spec, seed, i) for i in range(start, start + count)]


# ---------------------------------------------------------------------------
# Comparison, shrinking, display
# ---------------------------------------------------------------------------

_NUMPY_OF = {
    DataType.U32: np.uint32,
    DataType.BOOL: np.uint32,
    DataType.I32: np.int32,
    DataType.U64: np.uint64,
    DataType.F32: np.float32,
    DataType.BYTES: np.uint8,
}


def _canonical(port: Port, value: Any) -> tuple[tuple[int, ...], bytes]:
    array = np.ascontiguousarray(np.asarray(value).reshape(-1))
    if port.dtype is DataType.F32:
        if array.dtype != np.float32:
            array = array.astype(np.float32)
    else:
        array = array.astype(_NUMPY_OF.get(port.dtype, np.uint32))
    return array.shape, array.tobytes()


def outputs_equal(spec: KernelSpec, a: Sequence[Any], b: Sequence[Any]) -> str | None:
    """None when every output is bit-identical, else which output differs and where."""
    if len(a) != len(b):
        return f"{len(a)} outputs against {len(b)}"
    for port, x, y in zip(spec.outputs, a, b):
        (sx, bx), (sy, by) = _canonical(port, x), _canonical(port, y)
        if sx != sy:
            return f"output `{port.name}` has {sx[0]} elements against {sy[0]}"
        if bx != by:
            ex, ey = _elements(port, x), _elements(port, y)
            at = next(i for i, (p, q) in enumerate(zip(ex, ey)) if p != q)
            return f"output `{port.name}`[{at}] is {ex[at]:#x} against {ey[at]:#x}"
    return None


def _elements(port: Port, value: Any) -> list[int]:
    """Unsigned element values (F32 as bit patterns, I32 as two's complement)."""
    array = np.ascontiguousarray(np.asarray(value).reshape(-1))
    if port.dtype is DataType.F32:
        return [int(v) for v in array.astype(np.float32).view(np.uint32)]
    if port.dtype is DataType.I32:
        return [int(v) for v in array.astype(np.int32).view(np.uint32)]
    return [int(v) for v in array.astype(_NUMPY_OF.get(port.dtype, np.uint32))]


def _length(spec: KernelSpec, case: Case) -> int:
    arrays = [len(v) for p, v in zip(spec.inputs, case) if not p.scalar]
    return arrays[0] if arrays else 0


def _cut(spec: KernelSpec, case: Case, keep: np.ndarray) -> Case:
    n = _length(spec, case)
    return tuple(
        v if p.scalar or len(v) != n else np.asarray(v)[keep] for p, v in zip(spec.inputs, case)
    )


def shrink_case(spec: KernelSpec, case: Case, fails: Callable[[Case], bool]) -> Case:
    """A shorter, simpler case that still fails: delta debugging over element
    positions (drop halves, then quarters, ... of the array inputs), then over
    values (set such runs to zero), within SHRINK_BUDGET evaluations of `fails`.
    An op's own `sample` (structured inputs) is not cut."""
    if spec.sample is not None:
        return case
    budget = SHRINK_BUDGET
    current = case
    n = _length(spec, current)
    chunk = max(1, n // 2)
    while n > 0 and budget > 0:
        removed = False
        for start in range(0, n, chunk):
            if budget <= 0:
                break
            keep = np.concatenate([np.arange(0, start), np.arange(min(n, start + chunk), n)])
            candidate = _cut(spec, current, keep)
            budget -= 1
            try:
                still = fails(candidate)
            except (TypeError, ValueError):  # the op rejects the cut input: not smaller
                still = False
            if still:
                current, n, removed = candidate, len(keep), True
                break
        if not removed:
            if chunk == 1:
                break
            chunk = max(1, chunk // 2)
        else:
            chunk = min(chunk, max(1, n // 2))
    return _zero_out(spec, current, fails, SHRINK_BUDGET)


def _zero_out(spec: KernelSpec, case: Case, fails: Callable[[Case], bool], budget: int) -> Case:
    """Set runs of elements of the array inputs to zero while the case still
    fails (halves, quarters, ... as in the length phase)."""
    current = case
    n = _length(spec, current)
    chunk = max(1, n // 2)
    while n > 0 and budget > 0:
        for start in range(0, n, chunk):
            if budget <= 0:
                break
            candidate = tuple(
                v if p.scalar or len(v) != n else _zeroed(np.asarray(v), start, start + chunk)
                for p, v in zip(spec.inputs, current)
            )
            if all(
                p.scalar or len(a) != n or np.array_equal(np.asarray(a), np.asarray(b))
                for p, a, b in zip(spec.inputs, candidate, current)
            ):
                continue  # already zero there
            budget -= 1
            try:
                still = fails(candidate)
            except (TypeError, ValueError):
                still = False
            if still:
                current = candidate
        if chunk == 1:
            break
        chunk = max(1, chunk // 2)
    return current


def _zeroed(array: np.ndarray, start: int, stop: int) -> np.ndarray:
    out = array.copy()
    out[start:stop] = 0
    return out


def _shown(spec: KernelSpec, case: Case) -> list[int]:
    for port, value in zip(spec.inputs, case):
        if not port.scalar:
            return _elements(port, value)[:SHOWN]
    return [int(v) for v in case][:SHOWN]


def _describe(spec: KernelSpec, case: Case) -> str:
    parts: list[str] = []
    for port, value in zip(spec.inputs, case):
        if port.scalar:
            parts.append(f"{port.name}={int(value)}")
        else:
            elements = _elements(port, value)
            nonzero = [i for i, e in enumerate(elements) if e]
            if len(elements) > 8 and len(nonzero) <= 8:
                shown = ", ".join(f"[{i}] = {elements[i]:#x}" for i in nonzero)
                parts.append(f"{port.name}: {len(elements)} elements, all 0" + (f" but {shown}" if shown else ""))
                continue
            more = "" if len(elements) <= 8 else ", ..."
            parts.append(
                f"{port.name}: {len(elements)} elements [{', '.join(f'{e:#x}' for e in elements[:8])}{more}]"
            )
    return "; ".join(parts)


# ---------------------------------------------------------------------------
# The plan
# ---------------------------------------------------------------------------


def _law_entries(spec: KernelSpec, law_filter: set[str] | None) -> tuple[LawEntry, ...]:
    return tuple(
        LawEntry(i, str(law), CheckKind.LAW.check(law.name), 1)
        for i, law in enumerate(spec.laws)
        if law_filter is None or law.name in law_filter or str(law) in law_filter
    )


def build_kernel_plan(
    backend: ConformBackend,
    op_ids: Sequence[str],
    strength: Strength,
    seed: int,
    checks: Sequence[CheckGroup],
    law_filter: Sequence[str] | None,
    reference_probe: Callable[[KernelSpec], str | None],
) -> Plan:
    """The plan of a kernel-track run (same certificate format as the other tracks)."""
    selected = set(checks)
    filter_set = set(law_filter) if law_filter is not None else None
    parity_applies = not backend.is_reference_interpreter
    independence = parity_rejection(backend, selected)
    units: list[Unit] = []
    entries: list[OpEntry] = []
    for op_id in op_ids:
        spec = get_kernel(op_id)
        blocks = _case_blocks(spec, seed, strength)
        boundary = len(spec.boundaries) * len(_patterns_of(spec))
        entry = OpEntry(
            id=spec.id, version=spec.version, category="kernel", signature=str(spec.signature),
            laws=_law_entries(spec, filter_set), classes=0, representatives=0, boundaries=len(spec.boundaries),
            specials=len(_patterns_of(spec)), structured_inputs=boundary,
        )
        entries.append(entry)
        cost = 1.0 + len(spec.laws)
        for domain, start, count in blocks:
            part = f"{domain}:{start}"
            if CheckGroup.REFERENCE in selected:
                reason = reference_probe(spec)
                if reason:
                    if domain == "boundary" and start == 0:
                        independence.append(Rejection(op_id, CheckKind.REFERENCE, reason))
                else:
                    units.append(Unit(UnitKind.KERNEL_REFERENCE, op_id, part, count, count, count * 2.0))
            if CheckGroup.PARITY in selected and parity_applies:
                units.append(Unit(UnitKind.KERNEL_PARITY, op_id, part, count, count, count * 2.0))
            if CheckGroup.LAWS in selected and entry.laws:
                for kind in (UnitKind.KERNEL_LAWS_REFERENCE, UnitKind.KERNEL_LAWS_BACKEND):
                    units.append(Unit(kind, op_id, part, count, count, count * cost * 3))
        if CheckGroup.DETERMINISM in selected:
            runs = min(MAX_DETERMINISM_RUNS, strength.determinism_runs)
            units.append(Unit(UnitKind.KERNEL_DETERMINISM, op_id, f"boundary:{runs}", boundary, boundary, boundary * runs))
    deps = dependencies(op_ids)
    data: dict[str, Any] = {
        "suite_version": SUITE_VERSION,
        "track": Track.KERNEL.value,
        "backend": backend.info(),
        "strength": strength.to_json(),
        "seed": seed,
        "checks": sorted(c.value for c in selected),
        "parity_applies": parity_applies,
        "law_filter": sorted(filter_set) if filter_set is not None else None,
        "ops": [e.to_json() for e in entries],
        "dependencies": deps,
        "registry_hash": registry_hash(deps),
        "regressions": [],
        "independence": [r.to_json() for r in independence],
        "units": [u.to_json() for u in units],
    }
    data["digest"] = sha256_json(data)
    return Plan(data, tuple(units))


# ---------------------------------------------------------------------------
# Running units
# ---------------------------------------------------------------------------


class _LawOp:
    """The op a law checks: called with one case's inputs it evaluates them
    alone; `many(cases)` evaluates a list of cases together (on a backend: one
    `evaluate_many`, the batched plan of ops that have one), for laws such as
    batch(i) = single(i)."""

    def __init__(
        self,
        one: OpFn,
        many: Callable[[Sequence[Case]], list[tuple[np.ndarray, ...]]],
    ):
        self._one = one
        self.many = many

    def __call__(self, *args: Any) -> tuple[np.ndarray, ...]:
        return self._one(*args)


class KernelEngine:
    """Runs the units of a kernel-track plan on a backend."""

    def __init__(self, plan: Plan, backend: ConformBackend):
        self.plan = plan
        self.backend = backend
        self.seed = plan.seed
        self._interp = InterpBackend()

    def run_unit(self, unit: Unit) -> list[Result]:
        spec = get_kernel(unit.op)
        if unit.kind == UnitKind.KERNEL_DETERMINISM:
            runs = int(unit.part.split(":")[1])
            return self._determinism(spec, boundary_cases(spec, self.seed), runs)
        domain, start = unit.part.split(":")
        cases = cases_of(spec, self.seed, domain, int(start), unit.lanes)
        if unit.kind == UnitKind.KERNEL_REFERENCE:
            return self._compare(spec, cases, domain, CheckKind.REFERENCE, self._reference)
        if unit.kind == UnitKind.KERNEL_PARITY:
            return self._compare(spec, cases, domain, CheckKind.PARITY, self._interp_outputs)
        target = Target.REFERENCE if unit.kind == UnitKind.KERNEL_LAWS_REFERENCE else Target.BACKEND
        return self._laws(spec, cases, domain, target)

    # -- evaluation ------------------------------------------------------------------

    def _backend(self, spec: KernelSpec, cases: Sequence[Case]) -> list[tuple[np.ndarray, ...]]:
        return self.backend.run_kernel(spec, list(cases))

    def _reference(self, spec: KernelSpec, cases: Sequence[Case]) -> list[tuple[np.ndarray, ...]]:
        return [tuple(spec.reference(*case)) for case in cases]

    def _interp_outputs(self, spec: KernelSpec, cases: Sequence[Case]) -> list[tuple[np.ndarray, ...]]:
        return self._interp.run_kernel(spec, list(cases))

    # -- checks ------------------------------------------------------------------------

    def _compare(
        self,
        spec: KernelSpec,
        cases: Sequence[Case],
        domain: str,
        check: CheckKind,
        expected_of: Callable[[KernelSpec, Sequence[Case]], list[tuple[np.ndarray, ...]]],
    ) -> list[Result]:
        got = self._backend(spec, cases)
        expected = expected_of(spec, cases)
        bad = [i for i, (g, e) in enumerate(zip(got, expected)) if outputs_equal(spec, g, e)]
        if not bad:
            return [result(check.value, Target.BACKEND, domain, len(cases), 0)]
        first = cases[bad[0]]

        def fails(case: Case) -> bool:
            return outputs_equal(spec, self._backend(spec, [case])[0], expected_of(spec, [case])[0]) is not None

        small = shrink_case(spec, first, fails)
        why = outputs_equal(spec, self._backend(spec, [small])[0], expected_of(spec, [small])[0])
        against = "the CPU reference" if check is CheckKind.REFERENCE else "the reference interpreter"
        return [
            result(
                check.value, Target.BACKEND, domain, len(cases), len(bad),
                counterexample=_shown(spec, small), raw=_shown(spec, first),
                detail=f"{_describe(spec, small)}: {why} ({self.backend.id} against {against})",
            )
        ]

    def _determinism(self, spec: KernelSpec, cases: Sequence[Case], runs: int) -> list[Result]:
        first = self._backend(spec, cases)
        bad: set[int] = set()
        for _ in range(runs - 1):
            again = self._backend(spec, cases)
            bad.update(i for i, (a, b) in enumerate(zip(first, again)) if outputs_equal(spec, a, b))
        if not bad:
            return [result(CheckKind.DETERMINISM.value, Target.BACKEND, "boundary", len(cases) * runs, 0)]
        case = cases[min(bad)]
        return [
            result(
                CheckKind.DETERMINISM.value, Target.BACKEND, "boundary", len(cases) * runs, len(bad),
                counterexample=_shown(spec, case), raw=_shown(spec, case),
                detail=f"{_describe(spec, case)}: two runs returned different bytes",
            )
        ]

    def _op(self, spec: KernelSpec, target: Target) -> OpFn:
        if target is Target.REFERENCE:
            return _LawOp(lambda *args: tuple(spec.reference(*args)), lambda many: self._reference(spec, many))
        return _LawOp(lambda *args: self._backend(spec, [args])[0], lambda many: self._backend(spec, many))

    def _laws(self, spec: KernelSpec, cases: Sequence[Case], domain: str, target: Target) -> list[Result]:
        op = self._op(spec, target)
        out: list[Result] = []
        for entry in self.plan.op(spec.id).laws:
            law: KernelLaw = spec.laws[entry.index]
            bad: list[int] = []
            why: str | None = None
            for i, case in enumerate(cases):
                found = law.check(op, case)
                if found is not None:
                    bad.append(i)
                    why = why or found
            if not bad:
                out.append(result(entry.check, target, domain, len(cases), 0, law=entry.law))
                continue
            first = cases[bad[0]]
            small = shrink_case(spec, first, lambda case: law.check(op, case) is not None)
            why = law.check(op, small) or why
            out.append(
                result(
                    entry.check, target, domain, len(cases), len(bad), law=entry.law,
                    counterexample=_shown(spec, small), raw=_shown(spec, first),
                    detail=f"{_describe(spec, small)}: {why}",
                )
            )
        return out
