"""The tensor track of vyre-conform: L3f and L4f certificates for `vyre.tensor`.

Its ops are the entries of `vyre.conform.tensor_cases.TENSOR_OPS`: the
elementary ops (L3f: views, elementwise ops and the correctly rounded
functions, map, reductions in every order, matmul in both modes, integer ops)
and the composites (L4f: softmax, layer_norm, attention, gelu and the
transformer block). Each op has a few variants (graphs over random shapes with
dims of size 0 and 1, dynamic dims, non-contiguous views, F32/F16/BF16), and
each unit runs one variant on `cases_per_variant(strength)` random input sets:

- `reference`: the backend's outputs equal the independent reference's
  (vyre.conform.tensor_reference), bit for bit;
- `parity`: the backend equals the reference interpreter (off the interpreter);
- `determinism`: the backend gives the same bytes for the same inputs, run
  `min(3, determinism runs)` times.

A violation shows the first input set that fails: the op, the variant, the
input shapes, the first output element that differs (bits on both sides) and
the first elements of its first input. Levels: L3f when every elementary op
passes every check; L4f when, at `level="L4"`, the composites and the block
pass too (`verdicts.run_level`).
"""

from __future__ import annotations

import fnmatch
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from vyre.conform.backends import ConformBackend, InterpBackend
from vyre.conform.entries import OpEntry
from vyre.conform.kinds import CheckGroup, CheckKind, Level, Target, Track, UnitKind
from vyre.conform.plan import SUITE_VERSION, Plan, PlanError, Unit, registry_hash, sha256_json
from vyre.conform.results import Result, result
from vyre.conform.strength import Strength
from vyre.conform.tensor_cases import TENSOR_OPS, TensorOp, Variant, input_sets, variant_of

__all__ = [
    "TENSOR_CHECKS",
    "TensorEngine",
    "build_tensor_plan",
    "cases_per_variant",
    "select_tensor_ops",
]

TENSOR_CHECKS = (CheckGroup.REFERENCE, CheckGroup.PARITY, CheckGroup.DETERMINISM)
"""The check groups of the tensor track."""

MAX_DETERMINISM_RUNS = 3
SHOWN = 16
"""Elements of a failing case's first input kept in the certificate."""

Outputs = Mapping[str, np.ndarray]


def cases_per_variant(strength: Strength) -> int:
    """Input sets per variant: 2 (fast), 8 (standard), 64 at most."""
    return max(2, min(64, strength.witnesses // 125_000))


def select_tensor_ops(patterns: Iterable[str] | str, level: Level) -> tuple[str, ...]:
    """The track's op ids matching any glob (`tensor.*`), in catalogue order;
    the composites only at L4. `PlanError` for a pattern matching nothing."""
    wanted = [patterns] if isinstance(patterns, str) else list(patterns)
    wanted = [p.strip() for item in wanted for p in str(item).split(",") if p.strip()]
    if not wanted:
        raise PlanError("no ops selected: give tensor op ids or patterns, e.g. ops=['tensor.*']")
    for pattern in wanted:
        if not any(fnmatch.fnmatchcase(op_id, pattern) for op_id in TENSOR_OPS):
            raise PlanError(f"no op of the tensor track matches {pattern!r} (its ops: {', '.join(TENSOR_OPS)})")
    chosen = [op_id for op_id in TENSOR_OPS if any(fnmatch.fnmatchcase(op_id, p) for p in wanted)]
    if level is not Level.L4:
        chosen = [op_id for op_id in chosen if not TENSOR_OPS[op_id].composite]
    if not chosen:
        raise PlanError("the selected tensor ops are composites, certified at level L4 (--level L4)")
    return tuple(chosen)


# ---------------------------------------------------------------------------
# The plan
# ---------------------------------------------------------------------------


def build_tensor_plan(
    backend: ConformBackend,
    op_ids: Sequence[str],
    strength: Strength,
    seed: int,
    checks: Sequence[CheckGroup],
    level: Level,
) -> Plan:
    """The plan of a tensor-track run (the certificate format of the other tracks)."""
    selected = set(checks)
    parity_applies = not backend.is_reference_interpreter
    count = cases_per_variant(strength)
    runs = min(MAX_DETERMINISM_RUNS, strength.determinism_runs)
    units: list[Unit] = []
    entries: list[OpEntry] = []
    for op_id in op_ids:
        op = TENSOR_OPS[op_id]
        entries.append(OpEntry(
            id=op.id, version=1, category=op.category, signature=f"{op.variants} graphs",
            laws=(), classes=0, representatives=0, boundaries=0, specials=0, structured_inputs=op.variants * count,
        ))
        cost = 30.0 if op.composite else 10.0
        for k in range(op.variants):
            part = f"v{k}"
            if CheckGroup.REFERENCE in selected:
                units.append(Unit(UnitKind.TENSOR_REFERENCE, op_id, part, 0, count, cost * count))
            if CheckGroup.PARITY in selected and parity_applies:
                units.append(Unit(UnitKind.TENSOR_PARITY, op_id, part, 0, count, cost * count * 2))
            if CheckGroup.DETERMINISM in selected:
                units.append(Unit(UnitKind.TENSOR_DETERMINISM, op_id, part, 0, runs, cost * runs))
    data: dict[str, Any] = {
        "suite_version": SUITE_VERSION,
        "track": Track.TENSOR.value,
        "level": level.value,
        "backend": backend.info(),
        "strength": strength.to_json(),
        "seed": seed,
        "checks": sorted(c.value for c in selected),
        "parity_applies": parity_applies,
        "law_filter": None,
        "ops": [e.to_json() for e in entries],
        "dependencies": list(op_ids),
        "registry_hash": registry_hash(op_ids),
        "regressions": [],
        "independence": [],
        "units": [u.to_json() for u in units],
    }
    data["digest"] = sha256_json(data)
    return Plan(data, tuple(units))


# ---------------------------------------------------------------------------
# Running units
# ---------------------------------------------------------------------------


def _bits(a: np.ndarray) -> np.ndarray:
    """Unsigned element values of an output (F32 and I32 as their bits)."""
    flat = np.ascontiguousarray(a).reshape(-1)
    if flat.dtype.itemsize == 4:
        return flat.view(np.uint32)
    if flat.dtype.itemsize == 2:
        return flat.view(np.uint16)
    return flat


def difference(got: Outputs, expected: Outputs) -> str | None:
    """None when every output is bit-identical, else which output differs and where."""
    if sorted(got) != sorted(expected):
        return f"outputs {sorted(got)} against {sorted(expected)}"
    for name in sorted(got):
        a, b = np.asarray(got[name]), np.asarray(expected[name])
        if a.shape != b.shape:
            return f"output `{name}` has shape {a.shape} against {b.shape}"
        x, y = _bits(a), _bits(b.astype(a.dtype) if a.dtype != b.dtype else b)
        if x.tobytes() != y.tobytes():
            at = int(np.flatnonzero(x != y)[0])
            where = np.unravel_index(at, a.shape) if a.ndim else ()
            return f"output `{name}`{list(map(int, where))} is {int(x[at]):#x} against {int(y[at]):#x}"
    return None


def _shown(inputs: Mapping[str, np.ndarray]) -> list[int]:
    for value in inputs.values():
        return [int(v) for v in _bits(np.asarray(value))[:SHOWN]]
    return []


def _shapes(inputs: Mapping[str, np.ndarray]) -> str:
    return ", ".join(f"{name} {tuple(value.shape)}" for name, value in inputs.items())


class TensorEngine:
    """Runs the units of a tensor-track plan on a backend."""

    def __init__(self, plan: Plan, backend: ConformBackend):
        self.plan = plan
        self.backend = backend
        self.seed = plan.seed
        self._interp = InterpBackend()

    def run_unit(self, unit: Unit) -> list[Result]:
        op = TENSOR_OPS[unit.op]
        k = int(unit.part.removeprefix("v"))
        variant = variant_of(op, self.seed, k)
        if unit.kind == UnitKind.TENSOR_DETERMINISM:
            return self._determinism(op, variant, k, unit.lanes)
        sets = input_sets(op, variant, self.seed, k, unit.lanes)
        if unit.kind == UnitKind.TENSOR_REFERENCE:
            return self._compare(op, variant, unit.part, sets, CheckKind.REFERENCE, variant.expect)
        return self._compare(
            op, variant, unit.part, sets, CheckKind.PARITY, lambda i: self._interp.run_tensor(variant.graph, i)
        )

    def _compare(
        self,
        op: TensorOp,
        variant: Variant,
        part: str,
        sets: Sequence[dict[str, np.ndarray]],
        check: CheckKind,
        expected_of: Callable[[dict[str, np.ndarray]], Outputs],
    ) -> list[Result]:
        bad: list[tuple[int, str]] = []
        for j, inputs in enumerate(sets):
            why = difference(self.backend.run_tensor(variant.graph, inputs), expected_of(inputs))
            if why is not None:
                bad.append((j, why))
        if not bad:
            return [result(check.value, Target.BACKEND, part, len(sets), 0)]
        j, why = bad[0]
        against = "the independent reference" if check is CheckKind.REFERENCE else "the reference interpreter"
        detail = f"{op.id} graph {part}, input set {j} ({_shapes(sets[j])}): {why} ({self.backend.id} against {against})"
        shown = _shown(sets[j])
        return [
            result(check.value, Target.BACKEND, part, len(sets), len(bad), counterexample=shown, raw=shown, detail=detail)
        ]

    def _determinism(self, op: TensorOp, variant: Variant, k: int, runs: int) -> list[Result]:
        (inputs,) = input_sets(op, variant, self.seed, k, 1)
        first = self.backend.run_tensor(variant.graph, inputs)
        for _ in range(runs - 1):
            why = difference(self.backend.run_tensor(variant.graph, inputs), first)
            if why is not None:
                shown = _shown(inputs)
                detail = f"{op.id} graph v{k} ({_shapes(inputs)}): two runs differ: {why}"
                return [
                    result(
                        CheckKind.DETERMINISM.value, Target.BACKEND, f"v{k}", runs, 1,
                        counterexample=shown, raw=shown, detail=detail,
                    )
                ]
        return [result(CheckKind.DETERMINISM.value, Target.BACKEND, f"v{k}", runs, 0)]
