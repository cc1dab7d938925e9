"""The proof plan: every unit of work of a certification run, in a fixed order.

A run is a deterministic list of units (op x check x domain x chunk). Each unit
regenerates its own inputs from the seed, so units can run in any order, on any
shard, before or after an interruption; the certificate is assembled from the
unit results in plan order, so one run, sharded runs merged, and resumed runs
give the same certificate. The plan (its JSON form, `Plan.data`) holds
everything the certificate needs besides the results; its digest ties shard
results, checkpoints and certificates to it.
"""

from __future__ import annotations

import fnmatch
import hashlib
import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cache, cached_property
from typing import Any

import numpy as np

from vyre import ops
from vyre.ops import registry
from vyre.conform import generate as gen
from vyre.conform.algebra import UnsupportedLaw, law_check_name
from vyre.conform.float_relations import law_variables_of
from vyre.conform.backends import ConformBackend
from vyre.conform.corpus import Entry
from vyre.conform.entries import LawEntry, OpEntry, Rejection
from vyre.conform.kinds import CheckGroup, CheckKind, Level, OpStatus, Target, Track, UnitKind
from vyre.conform.strength import Strength
from vyre.conform.tensor_cases import TENSOR_OPS, tensor_fingerprint
from vyre.ir import Call, DataType
from vyre.kernels.spec import KernelSpec
from vyre.ops import float_laws as FL
from vyre.ops.laws import Law
from vyre.ops.spec import OpSpec, walk_expr
from vyre.pipeline import lower_to_wgsl
from vyre.kernels.evaluate import elementwise_program

__all__ = [
    "CHECK_GROUPS",
    "SUITE_VERSION",
    "Plan",
    "PlanError",
    "Unit",
    "build_plan",
    "canonical_json",
    "dependencies",
    "registry_hash",
    "select_ops",
]

SUITE_VERSION = "vyre-conform 0.1.0"

CHECK_GROUPS: tuple[CheckGroup, ...] = tuple(CheckGroup)
"""What a run can be restricted to (`checks=`); all of them by default."""


LANE_COST = 170.0
REFERENCE_LANE_COST = 12.0
"""Unit costs (scheduling, shard balance and progress only), in IR-op evaluations:
a backend lane costs about LANE_COST plus the ops it evaluates, a CPU-reference
lane about REFERENCE_LANE_COST per law (measured on the interpreter and numpy)."""


class PlanError(ValueError):
    """Bad selection arguments (no such op, bad check name, ...)."""


def canonical_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True)


def sha256_json(value: Any) -> str:
    return hashlib.sha256(canonical_json(value).encode()).hexdigest()


@dataclass(frozen=True)
class Unit:
    """One unit of work. `part` is the domain: "u8:k" (exhaustive, k variables),
    "w" (witnessed), "inputs" (an op's input stream), "runs", "corpus"."""

    kind: UnitKind
    op: str
    part: str
    chunk: int
    lanes: int
    cost: float = field(default=0.0, compare=False)

    @property
    def key(self) -> str:
        return f"{self.kind}|{self.op}|{self.part}|{self.chunk}"

    def to_json(self) -> list[Any]:
        return [self.kind.value, self.op, self.part, self.chunk, self.lanes]


@dataclass(frozen=True)
class Plan:
    """The plan's JSON (`data`: digested, shipped to workers, embedded in shard
    certificates) and its units, with typed views of the fields the engines
    and the assembly read."""

    data: dict[str, Any]
    units: tuple[Unit, ...]

    @property
    def digest(self) -> str:
        return str(self.data["digest"])

    @cached_property
    def entries(self) -> tuple[OpEntry, ...]:
        return tuple(OpEntry.from_json(e) for e in self.data["ops"])

    @cached_property
    def rejections(self) -> tuple[Rejection, ...]:
        return tuple(Rejection.from_json(e) for e in self.data["independence"])

    @cached_property
    def strength(self) -> Strength:
        return Strength.from_json(self.data["strength"])

    @property
    def track(self) -> Track:
        return Track(self.data.get("track") or Track.INTEGER)

    @property
    def level(self) -> Level:
        """The level the run aims for (the kernel track: L2)."""
        return Level(self.data.get("level") or Level.L2)

    @property
    def seed(self) -> int:
        return int(self.data["seed"])

    @property
    def backend_id(self) -> str:
        return str(self.data["backend"].get("id"))

    @property
    def selected(self) -> frozenset[str]:
        """The check groups the run was restricted to."""
        return frozenset(str(c) for c in self.data["checks"])

    @property
    def parity_applies(self) -> bool:
        return bool(self.data.get("parity_applies", True))

    @property
    def campaigns(self) -> Mapping[str, Any]:
        """Float-campaign evidence per op id (`campaign_evidence`; {} without)."""
        return dict(self.data.get("campaigns") or {})

    @property
    def proof_timeout(self) -> float | None:
        """Seconds per solver attempt of the SMT obligations; None without `prove`."""
        settings = self.data.get("prove")
        return None if not settings else float(settings["timeout_s"])

    def op(self, op_id: str) -> OpEntry:
        for entry in self.entries:
            if entry.id == op_id:
                return entry
        raise KeyError(op_id)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Plan:
        units = tuple(Unit(UnitKind(k), o, p, int(c), int(n)) for k, o, p, c, n in data["units"])
        return cls(dict(data), units)


# ---------------------------------------------------------------------------
# Selection
# ---------------------------------------------------------------------------


def select_ops(patterns: Iterable[str] | str) -> list[str]:
    """Registered op ids matching any glob pattern (`primitive.*`), sorted."""
    if isinstance(patterns, str):
        patterns = [patterns]
    wanted = [p.strip() for item in patterns for p in str(item).split(",") if p.strip()]
    if not wanted:
        raise PlanError("no ops selected: give op ids or patterns, e.g. ops=['primitive.*']")
    known = ops.known_op_ids()
    chosen: set[str] = set()
    for pattern in wanted:
        matches = [op_id for op_id in known if fnmatch.fnmatchcase(op_id, pattern)]
        if not matches:
            raise PlanError(
                f"no registered op matches {pattern!r} (ops.known_op_ids() lists the"
                f" {len(known)} registered ops)"
            )
        chosen.update(matches)
    return sorted(chosen)


def dependencies(op_ids: Iterable[str]) -> list[str]:
    """The ops plus every op they call or their laws name, transitively."""
    seen: set[str] = set()
    stack = list(op_ids)
    while stack:
        op_id = stack.pop()
        if op_id in seen:
            continue
        seen.add(op_id)
        spec = registry.resolve(op_id)
        if spec is None:  # unknown, or a kernel op (it calls no op)
            continue
        stack.extend(spec.callees)
        for law in spec.laws:
            stack.extend(law.referenced_ops())
    return sorted(seen)


def _wgsl(spec: OpSpec) -> str:
    try:
        return lower_to_wgsl(elementwise_program(spec, 1))
    except Exception as error:  # noqa: BLE001 - the hash records what lowering said
        return f"<lowering failed: {type(error).__name__}: {error}>"


def spec_fingerprint(op_id: str) -> dict[str, Any]:
    """What the registry hash covers for one op (an op of the tensor track:
    the kernels its graphs lower to)."""
    if op_id in TENSOR_OPS:
        return tensor_fingerprint(op_id)
    try:
        found = ops.get(op_id)
    except KeyError:
        return {"id": op_id, "missing": True}
    if isinstance(found, KernelSpec):
        return kernel_fingerprint(found)
    spec = found
    return {
        "id": spec.id,
        "version": spec.version,
        "category": spec.category,
        "signature": str(spec.signature),
        "laws": [str(law) for law in spec.laws],
        "wgsl": _wgsl(spec),
    }


KERNEL_FINGERPRINT_LENGTHS = (1, 4097)
"""Input lengths whose kernel pipelines a kernel op's fingerprint covers."""


def kernel_fingerprint(spec: KernelSpec) -> dict[str, Any]:
    """What the registry hash covers for a kernel op: its identity, ports, laws,
    boundaries, and the WGSL and dispatch of every step of its pipeline (and of
    its `alternative` plan's) at sample lengths (a changed kernel changes the
    hash)."""
    pipelines: list[list[Any]] = []
    planners = [spec.plan] if spec.alternative is None else [spec.plan, spec.alternative]
    for n in KERNEL_FINGERPRINT_LENGTHS:
        sizes = {p.name: n for p in spec.array_inputs}
        scalars = {p.name: 0 for p in spec.scalar_inputs}
        for planner in planners:
            try:
                plan = planner(sizes, scalars)
            except (ValueError, TypeError) as error:  # an op that needs particular scalars
                pipelines.append([n, f"no plan: {error}"])
                continue
            steps = [
                [hashlib.sha256(lower_to_wgsl(step.program).encode()).hexdigest(), list(step.dispatch), dict(step.bind)]
                for step in plan.steps
            ]
            buffers = [[b.name, str(b.dtype), b.count, b.fill] for b in plan.buffers]
            pipelines.append([n, steps, buffers])
    return {
        "id": spec.id,
        "version": spec.version,
        "kind": spec.kind,
        "signature": str(spec.signature),
        "laws": [str(law) for law in spec.laws],
        "boundaries": list(spec.boundaries),
        "max_length": spec.max_length,
        "pipelines": pipelines,
    }


def registry_hash(op_ids: Iterable[str]) -> str:
    """SHA-256 over (id, version, category, signature, laws, lowered WGSL) of each op."""
    return sha256_json([spec_fingerprint(op_id) for op_id in sorted(set(op_ids))])


# ---------------------------------------------------------------------------
# Costs (for scheduling only)
# ---------------------------------------------------------------------------


@cache
def _op_cost(op_id: str, version: int) -> float:
    spec = registry.get_scalar(op_id)
    if spec.intrinsic is not None:
        return 1.0
    total = 0.0
    for node in walk_expr(spec.composition_tree):
        if isinstance(node, Call):
            try:
                callee = registry.get_scalar(node.op_id)
                total += _op_cost(callee.id, callee.version)
            except KeyError:
                total += 1.0
        else:
            total += 1.0
    return max(total, 1.0)


def op_cost(spec: OpSpec) -> float:
    try:
        return _op_cost(spec.id, spec.version)
    except Exception:  # noqa: BLE001 - a cost estimate never fails a run
        return 10.0


# ---------------------------------------------------------------------------
# Building
# ---------------------------------------------------------------------------


TRACKS: dict[Track, DataType] = {Track.INTEGER: DataType.U32, Track.FLOAT: DataType.F32}
"""The two scalar tracks, by the one word type of their ops' signatures: the
integer track (L1, L2) certifies u32 scalar ops, the float track (L1f, L2f) the
strict F32 ops, compared as bit patterns. A certificate never mixes them."""


def in_track(spec: OpSpec | KernelSpec, track: Track) -> bool:
    if isinstance(spec, KernelSpec):
        return track == Track.KERNEL
    word = TRACKS.get(track)
    if word is None:
        return False
    sig = spec.signature
    return sig.arity >= 1 and all(t is word for t in (*sig.inputs, sig.output))


def _law_entries(spec: OpSpec, law_filter: set[str] | None) -> tuple[LawEntry, ...]:
    entries: list[LawEntry] = []
    for index, law in enumerate(spec.laws):
        if law_filter is not None and law.name not in law_filter and str(law) not in law_filter:
            continue
        try:
            variables = law_variables_of(law)
        except UnsupportedLaw:
            variables = 0
        entries.append(LawEntry(index, str(law), law_check_name(law), variables))
    return tuple(entries)


def _chunks(total: int) -> list[int]:
    return [min(gen.CHUNK, total - start) for start in range(0, total, gen.CHUNK)]


def parity_rejection(backend: ConformBackend, selected: set[CheckGroup]) -> list[Rejection]:
    """Parity on the reference interpreter would compare it with itself."""
    if CheckGroup.PARITY not in selected or not backend.is_reference_interpreter:
        return []
    reason = f"backend `{backend.id}` is the reference interpreter: parity would compare it with itself"
    return [Rejection("*", CheckKind.PARITY, reason)]


@dataclass(frozen=True)
class _Scope:
    """What every op of a plan is planned against."""

    backend: ConformBackend
    strength: Strength
    seed: int
    selected: set[CheckGroup]
    law_filter: set[str] | None
    corpus_entries: Sequence[Entry]
    oracle_rejections: Mapping[str, str | None]
    reference_probe: Callable[[OpSpec], str | None]
    track: Track
    prove: float | None
    level: Level

    @property
    def parity_applies(self) -> bool:
        return not self.backend.is_reference_interpreter


@dataclass
class _Parts:
    """The plan as it is built, op after op."""

    units: list[Unit] = field(default_factory=lambda: [])
    entries: list[OpEntry] = field(default_factory=lambda: [])
    independence: list[Rejection] = field(default_factory=lambda: [])
    regressions: list[list[Any]] = field(default_factory=lambda: [])


def build_plan(
    backend: ConformBackend,
    op_ids: Sequence[str],
    strength: Strength,
    seed: int,
    checks: Iterable[CheckGroup],
    law_filter: Iterable[str] | None,
    corpus_entries: Sequence[Entry],
    oracle_rejections: Mapping[str, str | None],
    reference_probe: Callable[[OpSpec], str | None],
    track: Track = Track.INTEGER,
    prove: float | None = None,
    level: Level = Level.L2,
    campaigns: Mapping[str, Any] | None = None,
) -> Plan:
    """The plan of a run. `oracle_rejections` maps op ids with a user oracle to
    None (accepted) or the gate's reason; `reference_probe(spec)` returns the
    gate's reason to reject the reference check of an op on this backend.
    `prove`: the per-attempt solver time limit of the SMT obligations (one
    unit per obligation: the composition, then each declared law), None for
    no proofs. `campaigns`: float-campaign evidence per op
    (`campaign_evidence`), kept in the plan (its digest covers it)."""
    scope = _Scope(
        backend, strength, seed, set(checks), set(law_filter) if law_filter is not None else None,
        corpus_entries, oracle_rejections, reference_probe, track, prove, level,
    )
    parts = _Parts(independence=parity_rejection(backend, scope.selected))
    for op_id in op_ids:
        _plan_op(scope, registry.get_scalar(op_id), parts)
    if level in (Level.L3, Level.L4):
        parts.units.extend(_invariant_units(strength))
    deps = dependencies(op_ids)
    data: dict[str, Any] = {
        "suite_version": SUITE_VERSION,
        "track": track.value,
        "backend": backend.info(),
        "strength": strength.to_json(),
        "seed": seed,
        "checks": sorted(c.value for c in scope.selected),
        "parity_applies": scope.parity_applies,
        "law_filter": sorted(scope.law_filter) if scope.law_filter is not None else None,
        "ops": [e.to_json() for e in parts.entries],
        "dependencies": deps,
        "registry_hash": registry_hash(deps),
        "prove": None if prove is None else _proof_settings(prove),
        "level": level.value,
        "regressions": parts.regressions,
        "independence": [r.to_json() for r in parts.independence],
        "units": [u.to_json() for u in parts.units],
    }
    if campaigns is not None:
        data["campaigns"] = dict(campaigns)
    data["digest"] = sha256_json(data)
    return Plan(data, tuple(parts.units))


def _unsupported_reason(scope: _Scope, spec: OpSpec) -> str:
    """Why the plan leaves `spec` out ("" when it checks it)."""
    if not scope.backend.supports(spec):
        return (
            f"Category C intrinsic `{spec.intrinsic.hardware if spec.intrinsic else '?'}`"
            f" is not available on backend `{scope.backend.id}` (UnsupportedByBackend)"
        )
    if not in_track(spec, scope.track):
        return f"signature {spec.signature}: the {scope.track} track checks {TRACKS[scope.track]} scalar ops"
    return ""


def _plan_op(scope: _Scope, spec: OpSpec, parts: _Parts) -> None:
    """The entry of one op and, when it is checked, its units."""
    entry = OpEntry(
        id=spec.id, version=spec.version, category=spec.category, signature=str(spec.signature),
        laws=_law_entries(spec, scope.law_filter), classes=len(spec.equivalence_classes),
        representatives=sum(len(c.representatives) for c in spec.equivalence_classes),
        boundaries=len(spec.boundaries),
    )
    reason = _unsupported_reason(scope, spec)
    if reason:
        parts.entries.append(replace(entry, status=OpStatus.UNSUPPORTED, reason=reason))
        return
    specials = gen.special_values(spec)
    structured = len(gen.structured_op_rows(spec))
    entry = replace(entry, specials=len(specials), structured_inputs=structured)
    parts.entries.append(entry)
    cost = op_cost(spec)
    parts.units.extend(_law_units(spec, entry.laws, scope.strength, specials, cost, scope.selected))
    _compare_units(scope, spec, structured, cost, parts)
    if scope.prove is not None:
        parts.units.extend(_proof_units(spec, entry.laws))
    if scope.level is Level.L4:
        parts.units.extend(_l4_units(spec, scope.backend, parts.independence))
    _run_units(scope, spec, entry, cost, parts)


def _compare_units(scope: _Scope, spec: OpSpec, structured: int, cost: float, parts: _Parts) -> None:
    """The reference, parity and oracle units of an op (or the gate's rejections)."""
    op_id, strength = spec.id, scope.strength
    if CheckGroup.REFERENCE in scope.selected:
        reason = scope.reference_probe(spec)
        if reason:
            parts.independence.append(Rejection(op_id, CheckKind.REFERENCE, reason))
        else:
            parts.units.extend(_input_units(UnitKind.REFERENCE, op_id, structured, strength, cost))
    if CheckGroup.PARITY in scope.selected and scope.parity_applies:
        parts.units.extend(_input_units(UnitKind.PARITY, op_id, structured, strength, LANE_COST + 2 * cost))
    if CheckGroup.ORACLE in scope.selected and op_id in scope.oracle_rejections:
        reason = scope.oracle_rejections[op_id]
        if reason:
            parts.independence.append(Rejection(op_id, CheckKind.ORACLE, reason))
        else:
            parts.units.extend(_input_units(UnitKind.ORACLE, op_id, structured, strength, cost))


def _run_units(scope: _Scope, spec: OpSpec, entry: OpEntry, cost: float, parts: _Parts) -> None:
    """The zero-overhead, determinism and regression units of an op."""
    op_id, strength = spec.id, scope.strength
    if CheckGroup.ZERO_OVERHEAD in scope.selected and spec.category == "A":
        parts.units.append(Unit(UnitKind.ZERO_OVERHEAD, op_id, "wgsl", 0, 1, cost))
    if CheckGroup.DETERMINISM in scope.selected:
        lanes = len(determinism_rows(spec, scope.seed, strength.determinism_random))
        runs_cost = lanes * (LANE_COST + cost) * strength.determinism_runs
        parts.units.append(Unit(UnitKind.DETERMINISM, op_id, "runs", 0, lanes, runs_cost))
    if CheckGroup.REGRESSION in scope.selected:
        mine = [e for e in scope.corpus_entries if _replayable(e, spec, entry, scope.parity_applies)]
        if mine:
            parts.regressions.extend([e.op, e.check, e.law, e.target, list(e.inputs)] for e in mine)
            parts.units.append(Unit(UnitKind.REGRESSION, op_id, "corpus", 0, len(mine), len(mine) * cost))


PERF_COST = 200_000.0
"""Scheduling cost of one performance baseline (two kernels, several timed submissions)."""


def _l4_units(spec: OpSpec, backend: ConformBackend, independence: list[Rejection]) -> list[Unit]:
    """L4: a compositional analysis for an op that calls library ops, and a
    performance baseline where a hand-written WGSL equivalent exists."""
    from vyre.conform.perf import baseline

    units: list[Unit] = []
    if spec.intrinsic is None and spec.callees:
        units.append(Unit(UnitKind.COMPOSE, spec.id, "structure", 0, 1, PROOF_COST))
    if baseline(spec.id) is None:
        independence.append(Rejection(spec.id, CheckKind.PERF,
                                      "no hand-written WGSL baseline (vyre.conform.perf.register_baseline)"))
    elif backend.id != "wgpu":
        independence.append(Rejection(spec.id, CheckKind.PERF,
                                      f"backend `{backend.id}` runs no WGSL: performance baselines are GPU measurements"))
    else:
        units.append(Unit(UnitKind.PERF, spec.id, "wgsl", 0, 1, PERF_COST))
    return units


INVARIANT_COST = 50_000.0
"""Scheduling cost of one chunk of generated programs (both backends, several runs each)."""


def _invariant_units(strength: Strength) -> list[Unit]:
    """L3: one unit per (engine check, chunk of generated programs)."""
    from vyre.conform.invariants import INVARIANTS, programs_per_chunk

    chunks, programs = programs_per_chunk(strength.name)
    return [
        Unit(UnitKind.INVARIANT, "engine", name, chunk, programs, INVARIANT_COST * programs)
        for name in INVARIANTS
        for chunk in range(chunks)
    ]


PROOF_COST = 2_000.0
"""Scheduling cost of one SMT obligation (most take milliseconds, a few the time limit)."""


def _proof_units(spec: OpSpec, laws: Sequence[LawEntry]) -> list[Unit]:
    """One unit per obligation: chunk 0 is composition == reference, chunk
    1 + i the declared law i (those the law filter keeps)."""
    units = [Unit(UnitKind.PROVE, spec.id, "smt", 0, 1, PROOF_COST)]
    units.extend(Unit(UnitKind.PROVE, spec.id, "smt", 1 + law.index, 1, PROOF_COST) for law in laws)
    return units


def _proof_settings(timeout: float) -> dict[str, Any]:
    from vyre.conform.smt import solver_versions

    return {"timeout_s": timeout, "solvers": dict(sorted(solver_versions().items()))}


def _replayable(entry: Entry, spec: OpSpec, op_entry: OpEntry, parity: bool) -> bool:
    if entry.op != spec.id or len(entry.inputs) == 0:
        return False
    if CheckKind.of(entry.check) is CheckKind.LAW:
        declared = {law.law: law for law in op_entry.laws}
        law = declared.get(entry.law or "")
        return law is not None and len(entry.inputs) == law.variables
    if len(entry.inputs) != spec.signature.arity:
        return False
    if entry.check == CheckKind.PARITY:
        return parity
    return entry.check in (CheckKind.REFERENCE, CheckKind.DETERMINISM)


FLOAT_PART = "float"
CASES_PART = "cases"
LAW_PARTS = ("w", FLOAT_PART, CASES_PART)
"""The witnessed parts of law units besides the exhaustive "u8:k": "w" (the
twelve laws), "float" (the float laws but exact cases) and "cases" (the exact
cases, by index: all of them)."""


def law_part(law: Law) -> str:
    """The witnessed part of the units that check `law`."""
    if isinstance(law, FL.FloatExactCases):
        return CASES_PART
    return FLOAT_PART if isinstance(law, FL.FloatLaw) else "w"


def _law_units(
    spec: OpSpec,
    laws: Sequence[LawEntry],
    strength: Strength,
    specials: Sequence[int],
    cost: float,
    selected: set[CheckGroup],
) -> list[Unit]:
    if CheckGroup.LAWS not in selected:
        return []
    checkable = [law for law in laws if law.variables and law_part(spec.laws[law.index]) == "w"]
    units = _float_law_units(spec, [law for law in laws if law.variables], strength, specials, cost)
    if not checkable:
        return units
    counts = sorted({law.variables for law in checkable})
    law_values = [v for law in spec.laws for v in gen.law_constants(law)]
    structured = len(gen.structured_law_rows(max(counts), specials, law_values))
    mine: list[Unit] = []
    for target, kind in ((Target.REFERENCE, UnitKind.LAWS_REFERENCE), (Target.BACKEND, UnitKind.LAWS_BACKEND)):
        per_lane = (
            REFERENCE_LANE_COST * len(checkable)
            if target is Target.REFERENCE
            else LANE_COST + 3 * len(checkable) * cost
        )
        for k in counts:
            bits = 8 if k < 3 or target is Target.REFERENCE else strength.backend_cube_bits
            for chunk, lanes in enumerate(_chunks(1 << (bits * k))):
                mine.append(Unit(kind, spec.id, f"u8:{k}", chunk, lanes, lanes * per_lane))
        mine.append(Unit(kind, spec.id, "w", 0, structured, structured * per_lane))
        for chunk, lanes in enumerate(_chunks(strength.witnesses), start=1):
            mine.append(Unit(kind, spec.id, "w", chunk, lanes, lanes * per_lane))
    return mine + units


def _float_law_units(
    spec: OpSpec, laws: Sequence[LawEntry], strength: Strength, specials: Sequence[int], cost: float
) -> list[Unit]:
    """The units of the float laws: per target, the structured float witnesses
    and seeded random ones ("float"), and every exact case ("cases")."""
    sampled = [law for law in laws if law_part(spec.laws[law.index]) == FLOAT_PART]
    cases = [c for law in laws if isinstance(c := spec.laws[law.index], FL.FloatExactCases)]
    units: list[Unit] = []
    for target, kind in ((Target.REFERENCE, UnitKind.LAWS_REFERENCE), (Target.BACKEND, UnitKind.LAWS_BACKEND)):
        reference = target is Target.REFERENCE
        if sampled:
            k = max(law.variables for law in sampled)
            per_lane = REFERENCE_LANE_COST * len(sampled) if reference else LANE_COST + 3 * len(sampled) * cost
            structured = len(gen.structured_float_rows(k, specials))
            units.append(Unit(kind, spec.id, FLOAT_PART, 0, structured, structured * per_lane))
            for chunk, lanes in enumerate(_chunks(strength.witnesses), start=1):
                units.append(Unit(kind, spec.id, FLOAT_PART, chunk, lanes, lanes * per_lane))
        if cases:
            lanes = max(len(c.cases) for c in cases)
            per_lane = REFERENCE_LANE_COST * len(cases) if reference else LANE_COST + len(cases) * cost
            units.append(Unit(kind, spec.id, CASES_PART, 0, lanes, lanes * per_lane))
    return units


def _input_units(kind: UnitKind, op_id: str, structured: int, strength: Strength, cost: float) -> list[Unit]:
    per_lane = LANE_COST + cost
    units = [Unit(kind, op_id, "inputs", 0, structured, structured * per_lane)]
    for chunk, lanes in enumerate(_chunks(strength.witnesses), start=1):
        units.append(Unit(kind, op_id, "inputs", chunk, lanes, lanes * per_lane))
    return units


def op_input_rows(spec: OpSpec, seed: int, chunk: int, lanes: int) -> np.ndarray:
    """Rows of chunk `chunk` of the op's input stream (0: structured)."""
    if chunk == 0:
        return gen.structured_op_rows(spec)
    entropy = gen.stream_entropy(seed, "inputs", spec.id)
    return gen.random_rows(entropy, chunk - 1, lanes, spec.signature.arity)


def law_witness_rows(
    spec: OpSpec, seed: int, k: int, chunk: int, lanes: int
) -> np.ndarray:
    """Rows of chunk `chunk` of the op's law witness stream (0: structured)."""
    if chunk == 0:
        law_values = [v for law in spec.laws for v in gen.law_constants(law)]
        return gen.structured_law_rows(k, gen.special_values(spec), law_values)
    entropy = gen.stream_entropy(seed, "laws", spec.id)
    return gen.random_rows(entropy, chunk - 1, lanes, k)


def law_rows(spec: OpSpec, seed: int, part: str, k: int, chunk: int, lanes: int) -> np.ndarray:
    """Rows of chunk `chunk` of a witnessed law part (`LAW_PARTS`): "w" as
    `law_witness_rows`; "float": chunk 0 the structured float witnesses, then
    seeded random patterns; "cases": the case indices 0..lanes-1."""
    if part == CASES_PART:
        return np.arange(lanes, dtype=np.uint32)[:, None]
    if part != FLOAT_PART:
        return law_witness_rows(spec, seed, k, chunk, lanes)
    if chunk == 0:
        return gen.structured_float_rows(k, gen.special_values(spec))
    return gen.random_rows(gen.stream_entropy(seed, "float-laws", spec.id), chunk - 1, lanes, k)


def determinism_rows(spec: OpSpec, seed: int, random: int) -> np.ndarray:
    """The rows re-run by the determinism check: the spec's special values
    (their product for arity <= 2, the structured rows otherwise, at most
    4,096) and `random` seeded random rows."""
    arity = spec.signature.arity
    if arity <= 2:
        values = np.asarray(gen.special_values(spec), dtype=np.uint32)
        grids = np.meshgrid(*([values] * arity), indexing="ij")
        structured = np.stack([g.ravel() for g in grids], axis=1)
    else:
        structured = gen.structured_op_rows(spec)[:4096]
    extra = gen.random_rows(gen.stream_entropy(seed, "determinism", spec.id), 0, random, arity)
    return np.concatenate([structured, extra], axis=0)
